{#-
  The summary of per-query results: per group, the arithmetic mean of each metric over the scored queries, with
  how many queries it averages (a metric left NULL by empty="skip" is left out), the sample standard deviation,
  and the 95% confidence interval of the mean, mean +- t(0.975, n - 1) * std / sqrt(n) (Student's t; NULL with
  fewer than two values). The t quantile is computed in SQL too (t_quantile.sql), so every engine and dbt give
  the numbers Python gives.
-#}

{%- macro summary_sql(per_query, p) -%}
{%- set group_list %}{% for g in p.groups %}{{ g.output }}{% if not loop.last %}, {% endif %}{% endfor %}{% endset -%}
WITH moments AS (
  SELECT
    {%- for g in p.groups %}
    {{ g.output }} AS {{ g.output }},
    {%- endfor %}
    COUNT(*) AS {{ p.queries_output }},
    {%- for m in p.metrics %}
    {{ sqlndcg.ordered('AVG', m.column, p.query_output) }} AS {{ m.column }},
    COUNT({{ m.column }}) AS {{ m.count_column }},
    {{ sqlndcg.ordered('STDDEV_SAMP', m.column, p.query_output) }} AS {{ m.std_column }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ per_query }} AS per_query
  {%- if p.groups %}
  GROUP BY {{ group_list }}
  {%- endif %}
)
SELECT
  {%- for g in p.groups %}
  {{ g.output }} AS {{ g.output }},
  {%- endfor %}
  {{ p.queries_output }} AS {{ p.queries_output }},
  {%- for m in p.metrics %}
  {%- set half %}({{ sqlndcg.t975(m.count_column ~ ' - 1') }} * {{ m.std_column }} / SQRT(CAST({{ m.count_column }} AS {{ sqlndcg.double() }}))){% endset %}
  {{ m.column }} AS {{ m.column }},
  {{ m.count_column }} AS {{ m.count_column }},
  {{ m.std_column }} AS {{ m.std_column }},
  CASE WHEN {{ m.count_column }} >= 2 THEN {{ m.column }} - {{ half }} END AS {{ m.ci_low_column }},
  CASE WHEN {{ m.count_column }} >= 2 THEN {{ m.column }} + {{ half }} END AS {{ m.ci_high_column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM moments
{%- if p.groups %}
ORDER BY {{ group_list }}
{%- endif %}
{%- endmacro -%}
