{#- Session helpers for the engines Python drives: results are materialized once, summarized, fetched, then
    dropped. dbt never loads these (it materializes models itself). -#}
{%- macro sqlndcg_materialize(name, query) -%}
CREATE TEMPORARY TABLE {{ name }} AS
{{ query }}
{%- endmacro -%}

{%- macro sqlndcg_select_all(name, order_by=none) -%}
SELECT * FROM {{ name }}
{%- if order_by %}
ORDER BY {{ order_by | join(', ') }}
{%- endif %}
{%- endmacro -%}

{%- macro sqlndcg_any_row(name) -%}
SELECT 1 FROM {{ name }} AS input_rows LIMIT 1
{%- endmacro -%}

{%- macro sqlndcg_drop(name) -%}
DROP TABLE IF EXISTS {{ name }}
{%- endmacro -%}
