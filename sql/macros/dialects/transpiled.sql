{#- Every dialect no other file names (Oracle, Teradata, Doris, Exasol, ...): the portable forms (default.sql), which
    are DuckDB's SQL, rendered once; sqlglot reads them as DuckDB and writes them in the dialect asked for. No
    engine in the tests runs them. Its facts: `transpiles_from`, the sqlglot dialect the rendered text is read in;
    `identify`, whether sqlglot quotes every identifier (Oracle's unquoted names cannot start with `_`, as the
    statement's own column names do). -#}
{%- macro transpiled__dialect_facts() -%}{{ return({'transpiles_from': 'duckdb', 'identify': true}) }}{%- endmacro -%}

{#- sqlglot reads DuckDB's VARCHAR as unbounded text (dropping any length) and writes that as CLOB in Oracle (which
    refuses GROUP BY, joins and ORDER BY on it) and TEXT in Teradata (no such type); the standard spelling, which
    DuckDB also reads, keeps its length: VARCHAR2(4000) in Oracle, VARCHAR(4000) in Teradata and Doris. -#}
{%- macro transpiled__text_type() -%}{{ return('CHARACTER VARYING(4000)') }}{%- endmacro -%}
