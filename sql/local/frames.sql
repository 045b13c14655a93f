{#-
  Data frames on engines that cannot read them in place (SQLite, PostgreSQL; sqlndcg/engines/dbapi.py): the rows
  are copied into a temporary table of the frame's columns, a batch at a time, and the table is dropped when the
  evaluation is done. `name` and the column names arrive unquoted; `columns` are {'name': ..., 'kind': ...} with
  kind 'integer', 'float', 'text' or 'boolean', as the frame's Arrow schema classes them.
-#}

{#- The column type of each kind: 64-bit integers and doubles (local/dialects/default.sql); SQLite's storage
    classes, booleans being integers there (local/dialects/sqlite.sql). -#}
{%- macro sqlndcg_frame_type(kind) -%}{{ return(adapter.dispatch('sqlndcg_frame_type', 'sqlndcg')(kind)) }}{%- endmacro -%}

{#- The temporary table, qualified by the temporary schema where the engine has one (local/dialects/), so that
    loading and dropping never touch a permanent table of the same name. -#}
{%- macro sqlndcg_frame_table(name) -%}{{ return(adapter.dispatch('sqlndcg_frame_table', 'sqlndcg')(name)) }}{%- endmacro -%}

{%- macro sqlndcg_frame_columns(columns) -%}
{%- for c in columns %}{{ sqlndcg._quote(c) }}{% if not loop.last %}, {% endif %}{% endfor -%}
{%- endmacro -%}

{%- macro sqlndcg_frame_create(name, columns) -%}
CREATE TEMPORARY TABLE {{ sqlndcg._quote(name) }} (
{%- for c in columns %}
  {{ sqlndcg._quote(c.name) }} {{ sqlndcg.sqlndcg_frame_type(c.kind) }}{% if not loop.last %},{% endif %}
{%- endfor %}
)
{%- endmacro -%}

{#- One row's INSERT, run with executemany; `placeholder` is the driver's parameter marker ('?' or '%s'). With
    '%s' a literal % (in a quoted name) is written %% as such drivers expect. -#}
{%- macro sqlndcg_frame_insert(name, columns, placeholder) -%}
{%- set text -%}
INSERT INTO {{ sqlndcg.sqlndcg_frame_table(name) }} ({{ sqlndcg.sqlndcg_frame_columns(columns) }})
{%- endset -%}
{{ text | replace('%', '%%') if placeholder == '%s' else text }}
VALUES ({% for c in columns %}{{ placeholder }}{% if not loop.last %}, {% endif %}{% endfor %})
{%- endmacro -%}

{#- PostgreSQL's bulk load (psycopg 3 writes the rows, one write_row each). -#}
{%- macro sqlndcg_frame_copy(name, columns) -%}
COPY {{ sqlndcg.sqlndcg_frame_table(name) }} ({{ sqlndcg.sqlndcg_frame_columns(columns) }}) FROM STDIN
{%- endmacro -%}

{%- macro sqlndcg_frame_drop(name) -%}{{ return(adapter.dispatch('sqlndcg_frame_drop', 'sqlndcg')(name)) }}{%- endmacro -%}
