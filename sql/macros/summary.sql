{#-
  The summary of per-query results, per group and metric, over the scored queries (a metric left NULL by
  empty="skip" is left out):
    mean      sum(w x) / sum(w)                        (w = 1 without query weights: the arithmetic mean)
    count     how many queries the mean is over
    std       sqrt(sum(w (x - mean)^2) / (V1 - V2 / V1)), V1 = sum(w), V2 = sum(w^2)
              (the unbiased weighted variance for reliability weights; with w = 1, the sample standard deviation)
    95% CI    mean +- t(0.975, n_eff - 1) * std / sqrt(n_eff), n_eff = V1^2 / V2 (Kish's effective sample size,
              rounded down; with w = 1, n_eff = n and this is Student's t interval), NULL with n_eff < 2.
  The same expressions serve weighted and unweighted summaries, so equal weights give the unweighted numbers.
  The t quantile is SQL too (t975.sql): every engine and dbt give the numbers Python gives. Sums run in query order
  (sqlndcg.ordered) so the bits do not depend on thread count.
  `weights` (optional): the weights plan of weights.sql.
-#}

{%- macro summary_sql(per_query, p, weights=none) -%}
{%- set g_list %}{% for g in p.groups %}_g{{ loop.index0 }}{% if not loop.last %}, {% endif %}{% endfor %}{% endset -%}
{%- set one = 'CAST(1 AS ' ~ sqlndcg.double() ~ ')' -%}
{#- Internal names first: ClickHouse lets a SELECT's aliases shadow its columns (`AVG(m) AS m, COUNT(m)`). -#}
WITH weighted AS (
  SELECT
    {%- for g in p.groups %}
    pq.{{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    pq.{{ p.query_output }} AS _q,
    {%- for m in p.metrics %}
    CAST(pq.{{ m.column }} AS {{ sqlndcg.double() }}) AS _x{{ loop.index0 }},
    {%- endfor %}
    {% if weights %}CAST(w.{{ weights.weight_column }} AS {{ sqlndcg.double() }}){% else %}{{ one }}{% endif %} AS _w
  FROM {{ per_query }} AS pq
  {%- if weights %}
  LEFT JOIN {{ sqlndcg.weights_relation(weights) }} AS w
    ON w.{{ weights.query_column }} = pq.{{ p.query_output }}{% for g in weights.groups %} AND w.{{ g.column }} = pq.{{ g.output }}{% endfor %}
  {%- endif %}
),
moments AS (
  SELECT
    {%- for g in p.groups %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    COUNT(*) AS _queries,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    COUNT(_x{{ i }}) AS _n{{ i }},
    {{ sqlndcg.ordered('SUM', 'CASE WHEN _x' ~ i ~ ' IS NULL THEN NULL ELSE _w END', '_q') }} AS _v1_{{ i }},
    {{ sqlndcg.ordered('SUM', 'CASE WHEN _x' ~ i ~ ' IS NULL THEN NULL ELSE _w * _w END', '_q') }} AS _v2_{{ i }},
    {{ sqlndcg.ordered('SUM', '_w * _x' ~ i, '_q') }} AS _wx{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM weighted
  {%- if p.groups %}
  GROUP BY {{ g_list }}
  {%- endif %}
),
means AS (
  SELECT
    {%- for g in p.groups %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    _queries AS _queries,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    _n{{ i }} AS _n{{ i }}, _v1_{{ i }} AS _v1_{{ i }}, _v2_{{ i }} AS _v2_{{ i }},
    CASE WHEN _v1_{{ i }} > 0 THEN _wx{{ i }} / _v1_{{ i }} END AS _mean{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM moments
),
spread AS (
  SELECT
    {%- for g in p.groups %}
    mn._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    {{ sqlndcg.ordered('SUM', 'wt._w * (wt._x' ~ i ~ ' - mn._mean' ~ i ~ ') * (wt._x' ~ i ~ ' - mn._mean' ~ i ~ ')', 'wt._q') }} AS _ss{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM weighted AS wt
  {%- if p.groups %}
  JOIN means AS mn ON {% for g in p.groups %}mn._g{{ loop.index0 }} = wt._g{{ loop.index0 }}{% if not loop.last %} AND {% endif %}{% endfor %}
  GROUP BY {% for g in p.groups %}mn._g{{ loop.index0 }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- else %}
  CROSS JOIN means AS mn
  {%- endif %}
),
dispersion AS (
  SELECT
    {%- for g in p.groups %}
    mn._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    mn._queries AS _queries,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    mn._n{{ i }} AS _n{{ i }},
    mn._mean{{ i }} AS _mean{{ i }},
    CASE WHEN mn._n{{ i }} >= 2 AND mn._v1_{{ i }} > 0 AND mn._v1_{{ i }} - mn._v2_{{ i }} / mn._v1_{{ i }} > 0
         THEN SQRT(sp._ss{{ i }} / (mn._v1_{{ i }} - mn._v2_{{ i }} / mn._v1_{{ i }})) END AS _std{{ i }},
    CASE WHEN mn._v2_{{ i }} > 0 THEN FLOOR(mn._v1_{{ i }} * mn._v1_{{ i }} / mn._v2_{{ i }} + 0.000001) END AS _neff{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM means AS mn
  {%- if p.groups %}
  JOIN spread AS sp ON {% for g in p.groups %}sp._g{{ loop.index0 }} = mn._g{{ loop.index0 }}{% if not loop.last %} AND {% endif %}{% endfor %}
  {%- else %}
  CROSS JOIN spread AS sp
  {%- endif %}
)
SELECT
  {%- for g in p.groups %}
  _g{{ loop.index0 }} AS {{ g.output }},
  {%- endfor %}
  _queries AS {{ p.queries_output }},
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  {%- set half %}({{ sqlndcg.t975('_neff' ~ i ~ ' - 1') }} * _std{{ i }} / SQRT(_neff{{ i }})){% endset %}
  _mean{{ i }} AS {{ m.column }},
  _n{{ i }} AS {{ m.count_column }},
  _std{{ i }} AS {{ m.std_column }},
  CASE WHEN _neff{{ i }} >= 2 AND _std{{ i }} IS NOT NULL THEN _mean{{ i }} - {{ half }} END AS {{ m.ci_low_column }},
  CASE WHEN _neff{{ i }} >= 2 AND _std{{ i }} IS NOT NULL THEN _mean{{ i }} + {{ half }} END AS {{ m.ci_high_column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM dispersion
{%- if p.groups %}
ORDER BY {{ g_list }}
{%- endif %}
{%- endmacro -%}
