{#-
  The statements of counterfactual metrics (the plan and the estimators: counterfactual.sql): per query, the
  summary with its bootstrap intervals, and the account. All read the CTEs of `_counterfactual_ctes`, which end in
  _qv: per (group, replicate _b, query), the sums the estimators need. Replicate 0 is the log itself; with
  resample='impressions', replicates 1..B weigh each impression by a Poisson(1) draw (resample.sql) before any sum,
  with resample='queries' the summary weighs each query's sums instead.
-#}

{#- Each run's ranking (_s = 1: the run, 2: the baseline) as evaluate ranks it, to the deepest cutoff. -#}
{%- macro _counterfactual_ranked(cp) -%}
_ranked AS (
  {%- for run in cp.runs %}
  SELECT {{ loop.index }} AS _s, _q, _d, _r FROM (
    SELECT _q, _d, ROW_NUMBER() OVER (PARTITION BY _q ORDER BY {{ sqlndcg._rank_order('_key', run.tie, true) }}) AS _r
    FROM (
      SELECT {{ sqlndcg._id(cp.log.query_id, cp.log.ids_as_text) }} AS _q, {{ sqlndcg._id(cp.log.doc_id, cp.log.ids_as_text) }} AS _d, {{ cp.score }} AS _key
      FROM {{ run.sql }} AS run_input
    ) AS run_rows
  ) AS run_ranked
  {%- if cp.depth is not none %}
  WHERE _r <= {{ cp.depth }}
  {%- endif %}
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
)
{%- endmacro -%}

{#- The log's rows with theta (clipped), weighted by their impression's draw: _docs per (group, _b, query,
    document) C = _c, E = _e and the clicks on clipped rows _cc; _queries the impressions _n and clicks. -#}
{%- macro _counterfactual_rows(cp, replicates) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set clip = sqlndcg._number(cp.clip) if cp.clip is not none else none -%}
{{ sqlndcg._click_labels_weighted(cp) }},
{%- if replicates %}
_iweights AS (
  {{ sqlndcg._impression_weights('_weighted', (cp.log.groups | map(attribute='alias') | list) + ['_i'], replicates, cp.seed) }}
),
{%- endif %}
_wrows AS (
  SELECT {% for g in cp.log.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}
    {%- if replicates %}w._b AS _b, w._w AS _w{% else %}0 AS _b, 1 AS _w{% endif %}, r._q AS _q, r._d AS _d, r._pos AS _pos, r._click AS _click,
    {%- if clip %}
    CASE WHEN r._theta < {{ clip }} THEN {{ clip }} ELSE r._theta END AS _theta, CASE WHEN r._theta < {{ clip }} THEN 1 ELSE 0 END AS _clipped
    {%- else %}
    r._theta AS _theta, 0 AS _clipped
    {%- endif %}
  FROM _weighted AS r
  {%- if replicates %}
  JOIN _iweights AS w ON w._i = r._i{% for g in cp.log.groups %} AND w.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  WHERE w._w > 0
  {%- endif %}
),
_docs AS (
  SELECT {{ g_cols }}_b, _q, _d, SUM(_w * _click) AS _c, SUM(_w * _theta) AS _e, SUM(_w * _click * _clipped) AS _cc
  FROM _wrows
  GROUP BY {{ g_cols }}_b, _q, _d
),
_queries AS (
  SELECT {{ g_cols }}_b, _q, SUM(CASE WHEN _pos = 1 THEN _w ELSE 0 END) AS _n, SUM(_w * _click) AS _clicks
  FROM _wrows
  GROUP BY {{ g_cols }}_b, _q
)
{%- endmacro -%}

{#- Every document of a logged query that was shown or that a ranking places, with its clicks, examinations and
    ranks (_r1 the run's, _r2 the baseline's; NULL where that ranking lacks it); never shown: _e = 0. -#}
{%- macro _counterfactual_placed(cp) -%}
{%- set d = sqlndcg.double() -%}
{%- set placed -%}
(SELECT {% for g in cp.log.groups %}q.{{ g.alias }} AS {{ g.alias }}, {% endfor %}q._b AS _b, q._q AS _q, r._d AS _d, r._s AS _s, r._r AS _r
   FROM _queries AS q JOIN _ranked AS r ON r._q = q._q)
{%- endset -%}
{%- set on -%}
x._b = u._b AND x._q = u._q AND x._d = u._d{% for g in cp.log.groups %} AND x.{{ g.alias }} = u.{{ g.alias }}{% endfor %}
{%- endset -%}
_placed AS (
  SELECT {% for g in cp.log.groups %}x.{{ g.alias }} AS {{ g.alias }}, {% endfor %}x._b AS _b, x._q AS _q, x._d AS _d, x._c AS _c, x._e AS _e, x._cc AS _cc,
    r1._r AS _r1{% if cp.baseline %}, r2._r AS _r2{% endif %}
  FROM _docs AS x
  LEFT JOIN _ranked AS r1 ON r1._s = 1 AND r1._q = x._q AND r1._d = x._d
  {%- if cp.baseline %}
  LEFT JOIN _ranked AS r2 ON r2._s = 2 AND r2._q = x._q AND r2._d = x._d
  {%- endif %}
  UNION ALL
  SELECT {% for g in cp.log.groups %}u.{{ g.alias }} AS {{ g.alias }}, {% endfor %}u._b AS _b, u._q AS _q, u._d AS _d, CAST(0 AS {{ d }}) AS _c, CAST(0 AS {{ d }}) AS _e, CAST(0 AS {{ d }}) AS _cc,
    CASE WHEN u._s = 1 THEN u._r END AS _r1{% if cp.baseline %}, CASE WHEN u._s = 2 THEN u._r END AS _r2{% endif %}
  FROM {{ sqlndcg.unmatched_rows(placed, 'u', '_docs', 'x', on) }}
)
{%- endmacro -%}

{#- The CTEs up to _qv: per (group, _b, query), for metric i and ranking s (1 the run, 2 the baseline): _a<i>_<s>
    the IPS sum, _k the naive sum of weight * clicks, _u the unknown documents with a weight, _uw their weight and
    _tw the ranking's whole weight; _ranked<s> the documents it ranks; _rel = sum C / E, _s2 = sum C / E^2 and
    _s1c = sum C_clipped / E (the click weights' sums, without the factor n); _n and _clicks. -#}
{%- macro _counterfactual_ctes(cp, replicates) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set sides = [1, 2] if cp.baseline else [1] -%}
{{ sqlndcg._counterfactual_rows(cp, replicates) }},
{{ sqlndcg._counterfactual_ranked(cp) }},
{{ sqlndcg._counterfactual_placed(cp) }},
_qsums AS (
  SELECT {{ g_cols }}_b, _q,
    {%- for m in cp.metrics %}{% set i = loop.index %}
    {%- for s in sides %}{% set w = sqlndcg._counterfactual_weight(m, '_r' ~ s) %}
    SUM(CASE WHEN _e > 0 THEN ({{ w }}) * _c / _e ELSE 0 END) AS _a{{ i }}_{{ s }},
    SUM(({{ w }}) * _c) AS _k{{ i }}_{{ s }},
    SUM(CASE WHEN _e = 0 AND ({{ w }}) > 0 THEN 1 ELSE 0 END) AS _u{{ i }}_{{ s }},
    SUM(CASE WHEN _e = 0 THEN {{ w }} ELSE 0 END) AS _uw{{ i }}_{{ s }},
    SUM({{ w }}) AS _tw{{ i }}_{{ s }},
    {%- endfor %}
    {%- endfor %}
    {%- for s in sides %}
    SUM(CASE WHEN _r{{ s }} > 0 THEN 1 ELSE 0 END) AS _ranked{{ s }},  {#- not the clicks weight's text: DataFusion names equal aggregates alike #}
    {%- endfor %}
    SUM(CASE WHEN _e > 0 THEN _c / _e ELSE 0 END) AS _rel,
    SUM(CASE WHEN _e > 0 THEN _c / (_e * _e) ELSE 0 END) AS _s2,
    SUM(CASE WHEN _e > 0 THEN _cc / _e ELSE 0 END) AS _s1c
  FROM _placed
  GROUP BY {{ g_cols }}_b, _q
),
_qv AS (
  SELECT s.*, q._n AS _n, q._clicks AS _clicks
  FROM _qsums AS s
  JOIN _queries AS q ON q._b = s._b AND q._q = s._q{% for g in cp.log.groups %} AND q.{{ g.alias }} = s.{{ g.alias }}{% endfor %}
)
{%- endmacro -%}

{#- Per (group, query, metric): the run's estimate (and the baseline's and their difference), the naive click
    metric, impressions, clicks, unknown documents and their weight share, the effective sample size of the click
    weights and the share of that weight from clipped rows. -#}
{%- macro _counterfactual_per_query_sql(cp) -%}
{%- set names = cp.log.settings.columns -%}
{%- set i_t = sqlndcg.integer_type() -%}
{%- set null = sqlndcg.null_double() -%}
WITH {{ sqlndcg._counterfactual_ctes(cp, 0) }},
_long AS (
  {%- for m in cp.metrics %}{% set i = loop.index %}
  SELECT {% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}_q, {{ i }} AS _m, {{ sqlndcg.text_literal(m.name) }} AS _metric,
    {%- for s in ([1, 2] if cp.baseline else [1]) %}
    {%- if cp.estimator == 'snips' %}
    CASE WHEN _rel > 0 THEN _a{{ i }}_{{ s }} / _rel ELSE {{ null }} END AS _v{{ s }},
    {%- else %}
    _a{{ i }}_{{ s }} AS _v{{ s }},
    {%- endif %}
    _k{{ i }}_{{ s }} / _n AS _naive{{ s }}, _u{{ i }}_{{ s }} AS _u{{ s }},
    CASE WHEN _tw{{ i }}_{{ s }} > 0 THEN _uw{{ i }}_{{ s }} / _tw{{ i }}_{{ s }} ELSE {{ null }} END AS _uw{{ s }},
    {%- endfor %}
    _n, _clicks, _rel, _s2, _s1c
  FROM _qv
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
)
SELECT
  {%- for g in cp.log.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _q AS {{ sqlndcg._quote(names.query_id) }},
  _metric AS {{ sqlndcg._quote('metric') }},
  _v1 AS {{ sqlndcg._quote('value') }},
  {%- if cp.baseline %}
  _v2 AS {{ sqlndcg._quote('baseline') }},
  _v1 - _v2 AS {{ sqlndcg._quote('difference') }},
  {%- endif %}
  _naive1 AS {{ sqlndcg._quote('naive') }},
  CAST(_n AS {{ i_t }}) AS {{ sqlndcg._quote('impressions') }},
  CAST(_clicks AS {{ i_t }}) AS {{ sqlndcg._quote('clicks') }},
  CAST(_u1 AS {{ i_t }}) AS {{ sqlndcg._quote('unknown') }},
  _uw1 AS {{ sqlndcg._quote('unknown_weight') }},
  {%- if cp.baseline %}
  CAST(_u2 AS {{ i_t }}) AS {{ sqlndcg._quote('baseline_unknown') }},
  _uw2 AS {{ sqlndcg._quote('baseline_unknown_weight') }},
  {%- endif %}
  CASE WHEN _s2 > 0 THEN _rel * _rel / _s2 ELSE {{ null }} END AS {{ sqlndcg._quote('ess') }},
  CASE WHEN _rel > 0 THEN _s1c / _rel ELSE {{ null }} END AS {{ sqlndcg._quote('clipped_weight_share') }}
FROM _long
ORDER BY {% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}_q, _m
{%- endmacro -%}
