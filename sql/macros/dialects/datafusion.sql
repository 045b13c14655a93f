{#- Apache DataFusion. sqlglot has no DataFusion dialect: its SQL is read and formatted as PostgreSQL's. -#}
{%- macro datafusion__dialect_facts() -%}{{ return({'dialects': ['datafusion'], 'nearest': 'postgres'}) }}{%- endmacro -%}

{%- macro datafusion__is_finite(expression) -%}{{ return('(ABS(' ~ expression ~ ') <= 1.7976931348623157e308)') }}{%- endmacro -%}
