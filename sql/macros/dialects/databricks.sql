{#- Databricks: Spark's rules (spark.sql); nothing of its own. -#}
{%- macro databricks__dialect_facts() -%}{{ return({'dialects': ['databricks'], 'inherits': 'spark'}) }}{%- endmacro -%}
