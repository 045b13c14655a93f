{#- Amazon Athena: Trino's rules (trino.sql); nothing of its own. -#}
{%- macro athena__dialect_facts() -%}{{ return({'dialects': ['athena'], 'inherits': 'trino'}) }}{%- endmacro -%}
