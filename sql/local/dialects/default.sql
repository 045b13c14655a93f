{#- The portable forms of sql/local's dialect rules (frames.sql). Python-only, like the rest of sql/local: dbt never
    sees these, since the rules they implement are Python's (copying a data frame into an engine). -#}
{%- macro default__sqlndcg_frame_type(kind) -%}
{{ return({'integer': sqlndcg.integer_type(), 'float': sqlndcg.double(), 'text': 'TEXT', 'boolean': 'BOOLEAN'}[kind]) }}
{%- endmacro -%}
{%- macro default__sqlndcg_frame_table(name) -%}{{ return(sqlndcg._quote(name)) }}{%- endmacro -%}
{%- macro default__sqlndcg_frame_drop(name) -%}
{{ return('DROP TABLE IF EXISTS ' ~ sqlndcg.sqlndcg_frame_table(name)) }}
{%- endmacro -%}
