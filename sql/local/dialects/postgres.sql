{#- PostgreSQL's part of sql/local's dialect rules (frames.sql); the rest of its rules: sql/macros/dialects/postgres.sql. -#}
{%- macro postgres__sqlndcg_frame_table(name) -%}{{ return('pg_temp.' ~ sqlndcg._quote(name)) }}{%- endmacro -%}
