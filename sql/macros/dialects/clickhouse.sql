{#- ClickHouse (chdb). Its types refuse NULL unless declared Nullable. -#}
{%- macro clickhouse__dialect_facts() -%}{{ return({'dialects': ['clickhouse']}) }}{%- endmacro -%}

{%- macro clickhouse__double() -%}{{ return('Nullable(Float64)') }}{%- endmacro -%}
{%- macro clickhouse__text_type() -%}{{ return('String') }}{%- endmacro -%}
{%- macro clickhouse__is_finite(expression) -%}{{ return('isFinite(' ~ expression ~ ')') }}{%- endmacro -%}
{#- ClickHouse reads backslash escapes inside quoted identifiers (`\"` is a quote that does not close), so a
    backslash is written `\\` and the quote `\"`. -#}
{%- macro clickhouse__escape_identifier(name, q) -%}
{{ return(name | replace('\\', '\\\\') | replace(q, '\\' ~ q)) }}
{%- endmacro -%}
{%- macro clickhouse__md5_hex(text) -%}{{ return('lower(hex(MD5(' ~ text ~ ')))') }}{%- endmacro -%}
{%- macro clickhouse__text_literal(value) -%}{{ return(sqlndcg._backslash_text_literal(value)) }}{%- endmacro -%}
{%- macro clickhouse__null_double() -%}{{ return('CAST(NULL AS Nullable(Float64))') }}{%- endmacro -%}
