{#-
  The summary of per-query results: per group, the arithmetic mean of each metric over the scored queries, with
  how many queries it averages (a metric left NULL by empty="skip" is left out), the sample standard deviation,
  and the 95% confidence interval of the mean, mean +- t(0.975, n - 1) * std / sqrt(n) (Student's t; NULL with
  fewer than two values). The t quantile is computed in SQL too (t_quantile.sql), so every engine and dbt give
  the numbers Python gives.
-#}

{%- macro summary_sql(per_query, p) -%}
{%- set group_list %}{% for g in p.groups %}{{ g.output }}{% if not loop.last %}, {% endif %}{% endfor %}{% endset -%}
{#- The moments get internal names first: ClickHouse lets a SELECT's aliases shadow its columns, so
    `AVG(m) AS m, COUNT(m)` would count the average. -#}
WITH moments AS (
  SELECT
    {%- for g in p.groups %}
    {{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    COUNT(*) AS _queries,
    {%- for m in p.metrics %}
    {{ sqlndcg.ordered('AVG', m.column, p.query_output) }} AS _mean{{ loop.index0 }},
    COUNT({{ m.column }}) AS _count{{ loop.index0 }},
    {{ sqlndcg.ordered('STDDEV_SAMP', m.column, p.query_output) }} AS _std{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ per_query }} AS per_query
  {%- if p.groups %}
  GROUP BY {{ group_list }}
  {%- endif %}
)
SELECT
  {%- for g in p.groups %}
  _g{{ loop.index0 }} AS {{ g.output }},
  {%- endfor %}
  _queries AS {{ p.queries_output }},
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  {%- set half %}({{ sqlndcg.t975('_count' ~ i ~ ' - 1') }} * _std{{ i }} / SQRT(CAST(_count{{ i }} AS {{ sqlndcg.double() }}))){% endset %}
  _mean{{ i }} AS {{ m.column }},
  _count{{ i }} AS {{ m.count_column }},
  _std{{ i }} AS {{ m.std_column }},
  CASE WHEN _count{{ i }} >= 2 THEN _mean{{ i }} - {{ half }} END AS {{ m.ci_low_column }},
  CASE WHEN _count{{ i }} >= 2 THEN _mean{{ i }} + {{ half }} END AS {{ m.ci_high_column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM moments
{%- if p.groups %}
ORDER BY {% for g in p.groups %}_g{{ loop.index0 }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endif %}
{%- endmacro -%}
