{#- Microsoft Fabric: SQL Server's rules (sqlserver.sql); nothing of its own. -#}
{%- macro fabric__dialect_facts() -%}{{ return({'dialects': ['fabric'], 'inherits': 'sqlserver'}) }}{%- endmacro -%}
