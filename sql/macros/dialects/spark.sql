{#- Spark (and, through inheritance, Databricks). -#}
{%- macro spark__dialect_facts() -%}{{ return({'dialects': ['spark', 'spark2', 'hive']}) }}{%- endmacro -%}

{%- macro spark__text_type() -%}{{ return('STRING') }}{%- endmacro -%}
{%- macro spark__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BINARY)') }}{%- endmacro -%}
{%- macro spark__is_finite(expression) -%}{{ return('(NOT isnan(' ~ expression ~ ') AND ABS(' ~ expression ~ ") < CAST('Infinity' AS DOUBLE))") }}{%- endmacro -%}
{%- macro spark__top_n(p) -%}{{ return('window') }}{%- endmacro -%}
{%- macro spark__text_literal(value) -%}{{ return(sqlndcg._backslash_text_literal(value)) }}{%- endmacro -%}
