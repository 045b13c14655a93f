{#- Snowflake. -#}
{%- macro snowflake__dialect_facts() -%}{{ return({'dialects': ['snowflake']}) }}{%- endmacro -%}

{%- macro snowflake__byte_order(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'utf8')") }}{%- endmacro -%}
{%- macro snowflake__binary_text(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'utf8')") }}{%- endmacro -%}
{%- macro snowflake__is_finite(expression) -%}{{ return('(' ~ expression ~ " NOT IN ('NaN'::FLOAT, 'inf'::FLOAT, '-inf'::FLOAT))") }}{%- endmacro -%}
