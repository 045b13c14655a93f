{#- Session helpers for the engines Python drives: results are materialized once, summarized, fetched, then
    dropped. dbt never loads these (it materializes models itself). -#}
{%- macro sqlndcg_materialize(name, query) -%}
CREATE TEMPORARY TABLE {{ name }} AS
{{ query }}
{%- endmacro -%}

{#- Partitions: each further bucket's per-query rows are added to the table the first bucket created. -#}
{%- macro sqlndcg_append(name, query) -%}
INSERT INTO {{ name }}
{{ query }}
{%- endmacro -%}

{%- macro sqlndcg_select_all(name, order_by=none) -%}
SELECT * FROM {{ name }}
{%- if order_by %}
ORDER BY {{ order_by | join(', ') }}
{%- endif %}
{%- endmacro -%}

{#- An input's columns without its rows (each engine reads the names and types off the result). -#}
{%- macro sqlndcg_no_rows(relation) -%}
SELECT * FROM {{ relation }} AS input_rows LIMIT 0
{%- endmacro -%}

{%- macro sqlndcg_all_rows(relation) -%}
SELECT * FROM {{ relation }} AS input_rows
{%- endmacro -%}

{%- macro sqlndcg_any_row(name) -%}
SELECT 1 FROM {{ name }} AS input_rows LIMIT 1
{%- endmacro -%}

{%- macro sqlndcg_drop(name) -%}
DROP TABLE IF EXISTS {{ name }}
{%- endmacro -%}

{#- How many rows the per-query result will have when every judged query is scored for every group of the run
    (queries='judged'): the values of the run-only group columns times the judged (shared group, query) pairs. -#}
{%- macro sqlndcg_result_size(p) -%}
{%- set only = p.groups | rejectattr('shared') | list -%}
SELECT
  (SELECT COUNT(*) FROM ({{ sqlndcg._run_groups(p, only) }}) AS run_groups) AS run_groups,
  (SELECT COUNT(*) FROM (SELECT DISTINCT {% for g in p.groups if g.shared %}{{ g.judgments_column }}, {% endfor %}{{ p.judgments_query_id }} FROM {{ p.judgments }} AS judgments_input) AS judged) AS judged_queries
{%- endmacro -%}


{#- DuckDB's memory limit and spill directory in force on a connection (named in out-of-memory errors). -#}
{%- macro sqlndcg_duckdb_limits() -%}
SELECT current_setting('memory_limit') AS memory_limit, current_setting('temp_directory') AS temp_directory
{%- endmacro -%}

{#- PostgreSQL: "table" (or partitioned table) or "view" (also a materialized view or foreign table: no constraint
    enforced on its rows) for the relation of exactly the name `param` binds (quoted), found as the statements
    find it (search_path); no row for anything else. -#}
{%- macro sqlndcg_postgres_relation_kind(param) -%}
SELECT CASE WHEN c.relkind IN ('r', 'p') THEN 'table' ELSE 'view' END
FROM pg_class AS c
WHERE c.oid = to_regclass({{ param }}) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
{%- endmacro -%}

{#- PostgreSQL: the PRIMARY KEY and UNIQUE constraints of that table and their columns in order; a DEFERRABLE one is
    left out (inside a transaction its rows may repeat until the commit). -#}
{%- macro sqlndcg_postgres_unique_keys(param) -%}
SELECT CASE c.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END,
       ARRAY(SELECT CAST(a.attname AS TEXT)
             FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord)
FROM pg_constraint AS c
WHERE c.conrelid = to_regclass({{ param }}) AND c.contype IN ('p', 'u') AND NOT c.condeferrable
ORDER BY c.contype, c.conname
{%- endmacro -%}

{#- The column lists of the PRIMARY KEY and UNIQUE constraints of the one table named `name` (a text literal):
    DuckDB enforces them, so an input they cover needs no check for repeated keys. No rows when the name is not
    exactly one table (a view, or tables of that name in several schemas). -#}
{%- macro sqlndcg_unique_keys(name) -%}
SELECT constraint_type, constraint_column_names
FROM duckdb_constraints()
WHERE table_name = {{ name }} AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
  AND (SELECT COUNT(*) FROM duckdb_tables() WHERE table_name = {{ name }}) = 1
ORDER BY constraint_type, constraint_index
{%- endmacro -%}
