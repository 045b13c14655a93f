{#- DuckDB: the default engine. Its SQL is the portable form (default.sql); here only what DuckDB does faster or
    to trec_eval's bits (dialects/rules.sql explains each rule). -#}
{%- macro duckdb__dialect_facts() -%}{{ return({'dialects': ['duckdb']}) }}{%- endmacro -%}

{%- macro duckdb__binary_text(expression) -%}{{ return(expression ~ ' COLLATE "binary"') }}{%- endmacro -%}
{%- macro duckdb__discounted(gain, position) -%}
{{ return(gain ~ ' / ' ~ sqlndcg._log2('CAST(' ~ position ~ ' AS ' ~ sqlndcg.double() ~ ') + 1')) }}
{%- endmacro -%}
{#- Spelled system.main.log2: sqlglot rewrites a plain LOG2(x) as LOG(2, x), which DuckDB computes as
    LN(x) / LN(2), so the SQL shown (to_sql) would give other bits. -#}
{%- macro duckdb__log2(x) -%}{{ return('system.main.log2(' ~ sqlndcg._as_double(x) ~ ')') }}{%- endmacro -%}
{%- macro duckdb__top_n(p) -%}{{ return('window' if p.get('many_lists') else 'aggregate') }}{%- endmacro -%}
{%- macro duckdb__ordered(function, column, order_by) -%}{{ return(function ~ '(' ~ column ~ ' ORDER BY ' ~ order_by ~ ')') }}{%- endmacro -%}
{%- macro duckdb__list_sums() -%}{{ return(true) }}{%- endmacro -%}
{%- macro duckdb__rank_folds() -%}{{ return(true) }}{%- endmacro -%}
{%- macro duckdb__reread(rereadable) -%}{{ return(' NOT MATERIALIZED' if rereadable else '') }}{%- endmacro -%}
{%- macro duckdb__held() -%}{{ return(' MATERIALIZED') }}{%- endmacro -%}
{%- macro duckdb__unmatched_rows(left, l, right, r, condition) -%}
{{ return(left ~ ' AS ' ~ l ~ ' ANTI JOIN ' ~ right ~ ' AS ' ~ r ~ ' ON ' ~ condition) }}
{%- endmacro -%}
