{#- SQLite's part of sql/local's dialect rules (frames.sql); the rest of its rules: sql/macros/dialects/sqlite.sql. -#}
{%- macro sqlite__sqlndcg_frame_type(kind) -%}
{{ return({'integer': 'INTEGER', 'float': 'REAL', 'text': 'TEXT', 'boolean': 'INTEGER'}[kind]) }}
{%- endmacro -%}
{%- macro sqlite__sqlndcg_frame_table(name) -%}{{ return('temp.' ~ sqlndcg._quote(name)) }}{%- endmacro -%}
