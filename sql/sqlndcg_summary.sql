{#-
  The summary of per-query results: per group, the arithmetic mean of each metric over the scored queries, with
  how many queries it averages (a metric left NULL by empty="skip" is left out) and the sample standard
  deviation. The 95% confidence interval of the mean is mean +- t(0.975, n - 1) * std / sqrt(n).
-#}

{%- macro sqlndcg_summary(per_query, p) -%}
SELECT
  {%- for g in p.groups %}
  {{ g.output }} AS {{ g.output }},
  {%- endfor %}
  COUNT(*) AS {{ p.queries_output }},
  {%- for m in p.metrics %}
  {{ sqlndcg_ordered('AVG', m.column, p.query_output) }} AS {{ m.column }},
  COUNT({{ m.column }}) AS {{ m.count_column }},
  {{ sqlndcg_ordered('STDDEV_SAMP', m.column, p.query_output) }} AS {{ m.std_column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM {{ per_query }} AS per_query
{%- if p.groups %}
GROUP BY {% for g in p.groups %}{{ g.output }}{% if not loop.last %}, {% endif %}{% endfor %}
ORDER BY {% for g in p.groups %}{{ g.output }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endif %}
{%- endmacro -%}

{#- DuckDB session helpers: results are materialized once, summarized, fetched, then dropped. -#}
{%- macro sqlndcg_materialize(name, query) -%}
CREATE TEMPORARY TABLE {{ name }} AS
{{ query }}
{%- endmacro -%}

{%- macro sqlndcg_select_all(name) -%}
SELECT * FROM {{ name }}
{%- endmacro -%}

{%- macro sqlndcg_any_row(name) -%}
SELECT 1 FROM {{ name }} AS input_rows LIMIT 1
{%- endmacro -%}

{%- macro sqlndcg_drop(name) -%}
DROP TABLE IF EXISTS {{ name }}
{%- endmacro -%}

{#- Rows where any of `columns` is NULL (test='null': the queries empty="error" refuses) or not a finite number
    (test='not_finite': gains too large for a DOUBLE). -#}
{%- macro sqlndcg_rows_where(name, identity, columns, test, limit) -%}
SELECT {{ identity | join(', ') }}, COUNT(*) OVER () AS matching_rows
FROM {{ name }}
WHERE {% for c in columns %}{% if test == 'null' %}{{ c }} IS NULL{% else %}NOT isfinite({{ c }}){% endif %}{% if not loop.last %} OR {% endif %}{% endfor %}
ORDER BY {{ identity | join(', ') }}
LIMIT {{ limit }}
{%- endmacro -%}
