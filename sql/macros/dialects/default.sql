{#-
  The portable form of every dialect rule (dialects/rules.sql names and explains each): DuckDB's SQL, which most engines
  share. dbt's dispatch falls back to these where an adapter's file (dialects/<adapter>.sql) says nothing, and a
  dialect with no file of its own renders these alone, then sqlglot writes them in that dialect (read as DuckDB).
-#}

{%- macro default__double() -%}{{ return('DOUBLE') }}{%- endmacro -%}
{%- macro default__integer_type() -%}{{ return('BIGINT') }}{%- endmacro -%}
{%- macro default__text_type() -%}{{ return('VARCHAR') }}{%- endmacro -%}
{%- macro default__byte_order(expression) -%}{{ return(expression) }}{%- endmacro -%}
{%- macro default__nulls(where) -%}{{ return(' NULLS ' ~ where) }}{%- endmacro -%}
{%- macro default__is_finite(expression) -%}{{ return('isfinite(' ~ expression ~ ')') }}{%- endmacro -%}

{#- Most engines read a backslash between an identifier's quotes as itself and the closing quote character doubled
    as one (DuckDB, SQLite, PostgreSQL, Redshift, Snowflake, Trino, DataFusion; Spark and MySQL backticks; SQL
    Server's `]`). -#}
{%- macro default__escape_identifier(name, q) -%}{{ return(name | replace(q, q ~ q)) }}{%- endmacro -%}

{%- macro default__discounted(gain, position) -%}{{ return(gain ~ ' * ' ~ sqlndcg._discount(position)) }}{%- endmacro -%}
{%- macro default__binary_text(expression) -%}{{ return(expression) }}{%- endmacro -%}
{%- macro default__top_n(p) -%}{{ return('cut') }}{%- endmacro -%}
{%- macro default__ordered(function, column, order_by) -%}{{ return(function ~ '(' ~ column ~ ')') }}{%- endmacro -%}
{%- macro default__list_sums() -%}{{ return(false) }}{%- endmacro -%}
{%- macro default__rank_folds() -%}{{ return(false) }}{%- endmacro -%}
{%- macro default__md5_hex(text) -%}{{ return('LOWER(MD5(' ~ text ~ '))') }}{%- endmacro -%}
{%- macro default__concat_text(a, b) -%}{{ return('CONCAT(' ~ a ~ ', ' ~ b ~ ')') }}{%- endmacro -%}
{%- macro default__reread(rereadable) -%}{{ return('') }}{%- endmacro -%}
{%- macro default__held() -%}{{ return('') }}{%- endmacro -%}
{%- macro default__unmatched_rows(left, l, right, r, condition) -%}
{{ return(left ~ ' AS ' ~ l ~ ' WHERE NOT EXISTS (SELECT 1 FROM ' ~ right ~ ' AS ' ~ r ~ ' WHERE ' ~ condition ~ ')') }}
{%- endmacro -%}
{%- macro default__text_literal(value) -%}{{ return("'" ~ (value | string | replace("'", "''")) ~ "'") }}{%- endmacro -%}
{%- macro default__null_double() -%}{{ return('CAST(NULL AS ' ~ sqlndcg.double() ~ ')') }}{%- endmacro -%}
{%- macro default__try_double(expression) -%}{{ return('TRY_CAST(' ~ expression ~ ' AS ' ~ sqlndcg.double() ~ ')') }}{%- endmacro -%}
{%- macro default__log2(x) -%}{{ return('(LN(' ~ sqlndcg._as_double(x) ~ ') / LN(CAST(2 AS ' ~ sqlndcg.double() ~ ')))') }}{%- endmacro -%}
{%- macro default__whole(x) -%}{{ return('FLOOR(' ~ x ~ ')') }}{%- endmacro -%}
{%- macro default__integer_part(x) -%}{{ return('(CASE WHEN ' ~ x ~ ' >= 0 THEN FLOOR(' ~ x ~ ') ELSE CEIL(' ~ x ~ ') END)') }}{%- endmacro -%}
{%- macro default__distinct_keys(keys) -%}{{ return(keys) }}{%- endmacro -%}
