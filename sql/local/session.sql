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

{#- Whether the run holds many lists (DuckDB: an estimate, HyperLogLog): the top-N aggregate then costs more memory
    than the window's sort, which spills (top_n in dialects/rules.sql). 500,000 lists hold about 1.3 GB of aggregate state
    at k = 10. -#}
{%- macro sqlndcg_duckdb_many_lists(p) -%}
SELECT approx_count_distinct(row({% for g in p.groups %}{{ g.alias }}, {% endfor %}_q)) >= 500000 AS many
FROM (
  {{ sqlndcg._run_rows(p) }}
) AS run_rows
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


{#- DuckDB: set one of the limits sqlndcg sets (`setting` is a name of sqlndcg's list, never a user's) to the bound
    $value; RESET puts DuckDB's default back. -#}
{%- macro sqlndcg_duckdb_set(setting) -%}
SET {{ setting }} = $value
{%- endmacro -%}

{%- macro sqlndcg_duckdb_reset(setting) -%}
RESET {{ setting }}
{%- endmacro -%}

{#- DuckDB: "table" or "view" for the relation a name of one to three parts names, found as a statement finds it
    (bound: $name the last part, $schema the one before it or NULL, $database the first of three or NULL): two
    parts are a schema and its relation, or a database and its main schema's. -#}
{%- macro sqlndcg_duckdb_relation_named() -%}
SELECT kind FROM ({{ sqlndcg._duckdb_relations_named('$name') }}) AS relations
WHERE ($schema IS NULL OR schema_name = $schema OR ($database IS NULL AND database_name = $schema AND schema_name = 'main'))
  AND ($database IS NULL OR database_name = $database)
ORDER BY resolution
LIMIT 1
{%- endmacro -%}

{#- DuckDB: one setting's value in force (`name` a text literal): read before sqlndcg changes it on a caller's
    connection, to put it back afterwards. -#}
{%- macro sqlndcg_duckdb_setting(name) -%}
SELECT current_setting({{ name }})
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

{#- DuckDB: every table and (user) view of the bare name `name` (a text literal or a bound parameter) in any attached database or schema,
    the temporary ones included, numbered in the order a statement's FROM resolves that name: the temporary
    catalog, then the current schema of the current database, then the rest. -#}
{%- macro _duckdb_relations_named(name) -%}
SELECT database_name, schema_name, kind,
       ROW_NUMBER() OVER (ORDER BY CASE WHEN database_name = 'temp' THEN 0
                                        WHEN database_name = current_database() AND schema_name = current_schema() THEN 1
                                        ELSE 2 END, database_name, schema_name) AS resolution
FROM (SELECT database_name, schema_name, 'table' AS kind FROM duckdb_tables() WHERE table_name = {{ name }}
      UNION ALL
      SELECT database_name, schema_name, 'view' AS kind FROM duckdb_views() WHERE view_name = {{ name }} AND NOT internal
     ) AS named
{%- endmacro -%}

{#- DuckDB: 'table' or 'view' for the relation a bare name binds to; no row when it names none. -#}
{%- macro sqlndcg_duckdb_relation_kind(name) -%}
SELECT kind FROM ({{ sqlndcg._duckdb_relations_named(name) }}) AS named WHERE resolution = 1
{%- endmacro -%}

{#- The column lists of the PRIMARY KEY and UNIQUE constraints of the table named `name` (a text literal or a bound
    parameter): DuckDB enforces them, so an input they cover needs no check for repeated keys. Only those of the very
    relation a statement reads count: no rows unless the name is exactly one relation in every attached database
    and schema (a view or a temporary table of the name, or a table of it elsewhere, rules the constraint out), and
    that relation is a table of the temporary catalog or of the current schema. -#}
{%- macro sqlndcg_unique_keys(name) -%}
SELECT c.constraint_type, c.constraint_column_names
FROM duckdb_constraints() AS c
JOIN ({{ sqlndcg._duckdb_relations_named(name) }}) AS named
  ON named.database_name = c.database_name AND named.schema_name = c.schema_name
WHERE c.table_name = {{ name }} AND c.constraint_type IN ('PRIMARY KEY', 'UNIQUE')
  AND named.kind = 'table' AND named.resolution = 1
  AND (named.database_name = 'temp' OR (named.database_name = current_database() AND named.schema_name = current_schema()))
  AND (SELECT COUNT(*) FROM ({{ sqlndcg._duckdb_relations_named(name) }}) AS every_named) = 1
ORDER BY c.constraint_type, c.constraint_index
{%- endmacro -%}
