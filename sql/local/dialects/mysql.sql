{#- MySQL's part of sql/local's dialect rules (frames.sql); the rest of its rules: sql/macros/dialects/mysql.sql. -#}
{#- Data frames copied into temporary tables: MySQL casts to SIGNED but declares columns
    BIGINT; and DROP TEMPORARY TABLE, which neither commits the caller's transaction (DROP TABLE does) nor ever
    drops a permanent table of the same name. -#}
{%- macro mysql__sqlndcg_frame_type(kind) -%}
{{ return({'integer': 'BIGINT', 'float': 'DOUBLE', 'text': 'TEXT', 'boolean': 'BOOLEAN'}[kind]) }}
{%- endmacro -%}
{%- macro mysql__sqlndcg_frame_drop(name) -%}
{{ return('DROP TEMPORARY TABLE IF EXISTS ' ~ sqlndcg.sqlndcg_frame_table(name)) }}
{%- endmacro -%}
