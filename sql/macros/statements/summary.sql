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
  `weights` (optional): the weights plan of weights.sql. `rereadable`: per_query is a stored table (evaluate()'s own),
  read once for the means and once for the spread instead of copied first (dialects/rules.sql, reread: a lower peak of
  memory on large results); dbt's per_query is a model or a subquery, left to the engine.
  weighted_moments computes these per key and value, for the summary and for the paired comparison (compare.sql),
  so the two state one weighted mean, one weighted standard deviation and one effective n.
-#}

{#- Weighted moments of `values` (column names of `source`) per `keys` (column names of `source`, maybe none), with
    the weight in `source`'s column `_w` and sums in `order` order: the CTEs <prefix>moments, <prefix>means,
    <prefix>spread and <prefix>dispersion; the last has the keys, the `extra` aggregates ([expression, alias] pairs
    computed over `source`'s rows of a key) and, for value j (its position in `values`):
      _n<j>     COUNT(value)
      _mean<j>  sum(w x) / V1                         (NULL when V1 = 0)
      _std<j>   sqrt(sum(w (x - mean)^2) / (V1 - V2 / V1))   (NULL below 2 values or when the denominator is 0)
      _neff<j>  floor(V1^2 / V2)                      (Kish's effective n; = _n<j> when every weight is 1)
    with V1 = sum(w), V2 = sum(w^2) over the rows where the value is not NULL. With unit_weights (every w is 1),
    V1 = V2 = COUNT(value), exactly what the sums of ones give, without two of the ordered sums (each an
    engine-side sort of the group's rows). -#}
{%- macro _weighted_moments(source, keys, values, order, prefix='', extra=[], unit_weights=false) -%}
{%- set key_list = keys | join(', ') -%}
{{ prefix }}moments AS (
  SELECT
    {%- for k in keys %}
    {{ k }} AS {{ k }},
    {%- endfor %}
    {%- for e in extra %}
    {{ e[0] }} AS {{ e[1] }},
    {%- endfor %}
    {%- for x in values %}
    {%- set i = loop.index0 %}
    COUNT({{ x }}) AS _n{{ i }},
    {%- if unit_weights %}
    CAST(COUNT({{ x }}) AS {{ sqlndcg.double() }}) AS _v1_{{ i }},
    CAST(COUNT({{ x }}) AS {{ sqlndcg.double() }}) AS _v2_{{ i }},
    {%- else %}
    {{ sqlndcg.ordered('SUM', 'CASE WHEN ' ~ x ~ ' IS NULL THEN NULL ELSE _w END', order) }} AS _v1_{{ i }},
    {{ sqlndcg.ordered('SUM', 'CASE WHEN ' ~ x ~ ' IS NULL THEN NULL ELSE _w * _w END', order) }} AS _v2_{{ i }},
    {%- endif %}
    {{ sqlndcg.ordered('SUM', '_w * ' ~ x, order) }} AS _wx{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ source }}
  {%- if keys %}
  GROUP BY {{ key_list }}
  {%- endif %}
),
{{ prefix }}means AS (
  SELECT
    {%- for k in keys %}
    {{ k }} AS {{ k }},
    {%- endfor %}
    {%- for e in extra %}
    {{ e[1] }} AS {{ e[1] }},
    {%- endfor %}
    {%- for x in values %}
    {%- set i = loop.index0 %}
    _n{{ i }} AS _n{{ i }}, _v1_{{ i }} AS _v1_{{ i }}, _v2_{{ i }} AS _v2_{{ i }},
    CASE WHEN _v1_{{ i }} > 0 THEN _wx{{ i }} / _v1_{{ i }} END AS _mean{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ prefix }}moments
),
{{ prefix }}spread AS (
  SELECT
    {%- for k in keys %}
    mn.{{ k }} AS {{ k }},
    {%- endfor %}
    {%- for x in values %}
    {%- set i = loop.index0 %}
    {{ sqlndcg.ordered('SUM', 'wt._w * (wt.' ~ x ~ ' - mn._mean' ~ i ~ ') * (wt.' ~ x ~ ' - mn._mean' ~ i ~ ')', 'wt.' ~ order) }} AS _ss{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ source }} AS wt
  {%- if keys %}
  JOIN {{ prefix }}means AS mn ON {% for k in keys %}mn.{{ k }} = wt.{{ k }}{% if not loop.last %} AND {% endif %}{% endfor %}
  GROUP BY {% for k in keys %}mn.{{ k }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- else %}
  CROSS JOIN {{ prefix }}means AS mn
  {%- endif %}
),
{{ prefix }}dispersion AS (
  SELECT
    {%- for k in keys %}
    mn.{{ k }} AS {{ k }},
    {%- endfor %}
    {%- for e in extra %}
    mn.{{ e[1] }} AS {{ e[1] }},
    {%- endfor %}
    {%- for x in values %}
    {%- set i = loop.index0 %}
    mn._n{{ i }} AS _n{{ i }},
    mn._mean{{ i }} AS _mean{{ i }},
    CASE WHEN mn._n{{ i }} >= 2 AND mn._v1_{{ i }} > 0 AND mn._v1_{{ i }} - mn._v2_{{ i }} / mn._v1_{{ i }} > 0
         THEN SQRT(sp._ss{{ i }} / (mn._v1_{{ i }} - mn._v2_{{ i }} / mn._v1_{{ i }})) END AS _std{{ i }},
    CASE WHEN mn._v2_{{ i }} > 0 THEN FLOOR(mn._v1_{{ i }} * mn._v1_{{ i }} / mn._v2_{{ i }} + 0.000001) END AS _neff{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ prefix }}means AS mn
  {%- if keys %}
  JOIN {{ prefix }}spread AS sp ON {% for k in keys %}sp.{{ k }} = mn.{{ k }}{% if not loop.last %} AND {% endif %}{% endfor %}
  {%- else %}
  CROSS JOIN {{ prefix }}spread AS sp
  {%- endif %}
)
{%- endmacro -%}

{#- The half-width of the 95% interval of a weighted mean: t(0.975, n_eff - 1) * std / sqrt(n_eff). `df`, when given,
    names a column holding n_eff - 1 (the t quantile repeats its argument: a column is cheaper to plan). -#}
{%- macro _weighted_half_width(std, neff, df=none) -%}
{{ return('(' ~ sqlndcg._t975(df if df else neff ~ ' - 1') ~ ' * ' ~ std ~ ' / SQRT(' ~ neff ~ '))') }}
{%- endmacro -%}

{#- A sample of the queries (the plan's sample, sample=): the interval is of the whole input's mean, the half-width
    times the finite-population correction sqrt(1 - f) (Cochran, Sampling Techniques, 2.15), f the sampled share:
    the hash chooses each query with probability f, so given how many it chose, they are a simple random sample. -#}
{%- macro _sampled_share(p) -%}
{%- set sample = p.get('sample') -%}
{{ return(' * ' ~ sqlndcg._number((1 - sample.fraction) ** 0.5) if sample else '') }}
{%- endmacro -%}

{%- macro _summary_sql(per_query, p, weights=none, rereadable=false) -%}
{%- set keys = [] -%}{%- for g in p.groups -%}{%- do keys.append('_g' ~ loop.index0) -%}{%- endfor -%}
{%- set values = [] -%}{%- for m in p.metrics -%}{%- do values.append('_x' ~ loop.index0) -%}{%- endfor -%}
{#- Internal names first: ClickHouse lets a SELECT's aliases shadow its columns (`AVG(m) AS m, COUNT(m)`). -#}
WITH weighted AS{{ sqlndcg.reread(rereadable) }} (
  SELECT
    {%- for g in p.groups %}
    pq.{{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    pq.{{ p.query_output }} AS _q,
    {%- for m in p.metrics %}
    CAST(pq.{{ m.column }} AS {{ sqlndcg.double() }}) AS _x{{ loop.index0 }},
    {%- endfor %}
    {{ sqlndcg._query_weight(weights) }} AS _w
  FROM {{ per_query }} AS pq
  {{- sqlndcg._query_weights_join(weights, p, 'pq') }}
),
{{ sqlndcg._weighted_moments('weighted', keys, values, '_q', '', [['COUNT(*)', '_queries']], not weights) }},
{#- The t quantile once, whatever the number of metrics: it is a long expression (t975.sql), and planning one copy
    per metric cost more than the rest of a small summary. Each row of dispersion becomes one row per metric
    (interval_rows: the metric's index _i, its std, n_eff and n_eff - 1 as plain columns, beside the row's own
    columns), the half-width is computed once on those rows (interval_halves), and intervals folds them back into one
    row per key: MAX of a value every row of the key carries is that value, MAX(CASE WHEN _i = j ...) is metric j's
    half-width, so the numbers are the same bits. Grouping, not a join on the keys, so a NULL key stays one group.
    Each step renames what it aggregates (ClickHouse: `MAX(x) AS x` would shadow x). #}
interval_index AS (
  {%- for m in p.metrics %}
  SELECT {{ loop.index0 }} AS _i{% if not loop.last %} UNION ALL{% endif %}
  {%- endfor %}
),
interval_rows AS (
  SELECT
    {%- for k in keys %}
    d.{{ k }} AS {{ k }},
    {%- endfor %}
    d._queries AS _queries,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    d._mean{{ i }} AS _mean{{ i }}, d._n{{ i }} AS _n{{ i }}, d._std{{ i }} AS _std{{ i }},
    {%- endfor %}
    ix._i AS _i,
    CASE{% for m in p.metrics %} WHEN ix._i = {{ loop.index0 }} THEN d._std{{ loop.index0 }}{% endfor %} END AS _istd,
    CASE{% for m in p.metrics %} WHEN ix._i = {{ loop.index0 }} THEN d._neff{{ loop.index0 }}{% endfor %} END AS _ineff,
    CASE{% for m in p.metrics %} WHEN ix._i = {{ loop.index0 }} THEN d._neff{{ loop.index0 }} - 1{% endfor %} END AS _idf
  FROM dispersion AS d
  CROSS JOIN interval_index AS ix
),
interval_halves AS (
  SELECT
    {%- for k in keys %}
    {{ k }} AS {{ k }},
    {%- endfor %}
    _queries AS _queries,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    _mean{{ i }} AS _mean{{ i }}, _n{{ i }} AS _n{{ i }}, _std{{ i }} AS _std{{ i }},
    {%- endfor %}
    _i AS _i,
    CASE WHEN _ineff >= 2 AND _istd IS NOT NULL
         THEN {{ sqlndcg._weighted_half_width('_istd', '_ineff', '_idf') }}{{ sqlndcg._sampled_share(p) }} END AS _ihalf
  FROM interval_rows
),
intervals AS (
  SELECT
    {%- for k in keys %}
    {{ k }} AS {{ k }},
    {%- endfor %}
    MAX(_queries) AS _nq,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    MAX(_mean{{ i }}) AS _m{{ i }}, MAX(_n{{ i }}) AS _c{{ i }}, MAX(_std{{ i }}) AS _s{{ i }},
    MAX(CASE WHEN _i = {{ i }} THEN _ihalf END) AS _h{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM interval_halves
  {%- if keys %}
  GROUP BY {{ keys | join(', ') }}
  {%- endif %}
)
SELECT
  {%- for g in p.groups %}
  _g{{ loop.index0 }} AS {{ g.output }},
  {%- endfor %}
  _nq AS {{ p.queries_output }},
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  _m{{ i }} AS {{ m.column }},
  _c{{ i }} AS {{ m.count_column }},
  _s{{ i }} AS {{ m.std_column }},
  _m{{ i }} - _h{{ i }} AS {{ m.ci_low_column }},
  _m{{ i }} + _h{{ i }} AS {{ m.ci_high_column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM intervals
{%- if p.groups %}
ORDER BY {{ keys | join(', ') }}
{%- endif %}
{%- endmacro -%}
