{#- SQLite. No FLOOR without its math extension (its CAST to INTEGER truncates, where DuckDB's and PostgreSQL's
    round), no MD5 (its engine registers sqlndcg_md5, Python's hashlib, on the connection), no CONCAT before 3.44. -#}
{%- macro sqlite__dialect_facts() -%}{{ return({'dialects': ['sqlite']}) }}{%- endmacro -%}

{%- macro sqlite__binary_text(expression) -%}{{ return(expression ~ ' COLLATE BINARY') }}{%- endmacro -%}
{%- macro sqlite__is_finite(expression) -%}{{ return('(' ~ expression ~ ' = ' ~ expression ~ ' AND ABS(' ~ expression ~ ') < 1e308 * 10)') }}{%- endmacro -%}
{%- macro sqlite__md5_hex(text) -%}{{ return('sqlndcg_md5(' ~ text ~ ')') }}{%- endmacro -%}
{%- macro sqlite__concat_text(a, b) -%}{{ return('(' ~ a ~ ' || ' ~ b ~ ')') }}{%- endmacro -%}
{%- macro sqlite__whole(x) -%}{{ return('CAST(' ~ x ~ ' AS INTEGER)') }}{%- endmacro -%}
{%- macro sqlite__integer_part(x) -%}{{ return('CAST(CAST(' ~ x ~ ' AS INTEGER) AS REAL)') }}{%- endmacro -%}
