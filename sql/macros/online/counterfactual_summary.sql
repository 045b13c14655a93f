{#-
  The summary of counterfactual metrics per (group, metric), with bootstrap intervals, and the account; the dbt
  entry points (the plan: counterfactual.sql; the sums: counterfactual_estimates.sql).

  Every replicate's summary weighs each query by its impressions: ips = sum n * A / sum n, snips = sum n * A /
  sum n * rel. (Aliases never repeat a column's name: ClickHouse reads an alias in the SELECT that defines it.) Replicate 0 is the estimate; the interval is the nearest-rank percentiles of replicates 1..B, and
  with a baseline the difference's interval and a bootstrap p-value, 2 (1 + the replicates on the smaller side of
  0) / (B + 1), capped at 1 (Davison and Hinkley, 1997, ch. 4).
-#}

{#- Per (group, replicate _rep) the weighted sums of the summary: _qw the query's weight in the replicate. -#}
{%- macro _counterfactual_replicates(cp) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set sides = [1, 2] if cp.baseline else [1] -%}
{%- if cp.resample == 'queries' and cp.bootstrap > 0 %}
_qweights AS (
  {{ sqlndcg._impression_weights('_qv', (cp.log.groups | map(attribute='alias') | list) + ['_q'], cp.bootstrap, cp.seed) }}
),
_qb AS (
  SELECT w._b AS _rep, w._w AS _qw, v.*
  FROM _qv AS v
  JOIN _qweights AS w ON w._q = v._q{% for g in cp.log.groups %} AND w.{{ g.alias }} = v.{{ g.alias }}{% endfor %}
),
{%- else %}
_qb AS (
  SELECT _b AS _rep, 1 AS _qw, v.* FROM _qv AS v
),
{%- endif %}
_reps AS (
  SELECT {{ g_cols }}_rep,
    {%- for m in cp.metrics %}{% set i = loop.index %}
    {%- for s in sides %}
    SUM(_qw * _n * _a{{ i }}_{{ s }}) AS _num{{ i }}_{{ s }},
    {%- endfor %}
    SUM(_qw * _k{{ i }}_1) AS _naive{{ i }},
    SUM(_qw * _u{{ i }}_1) AS _u{{ i }},
    SUM(CASE WHEN _tw{{ i }}_1 > 0 THEN _qw * _n * _uw{{ i }}_1 / _tw{{ i }}_1 ELSE 0 END) AS _uwn{{ i }},
    SUM(CASE WHEN _tw{{ i }}_1 > 0 THEN _qw * _n ELSE 0 END) AS _twn{{ i }},
    {%- endfor %}
    SUM(_qw * _n) AS _imps, SUM(_qw * _n * _rel) AS _reln, SUM(_qw * _n * _n * _s2) AS _s2n, SUM(_qw * _n * _s1c) AS _s1cn,
    SUM(_qw) AS _queries, SUM(_qw * _clicks) AS _clicked
  FROM _qb
  GROUP BY {{ g_cols }}_rep
)
{%- endmacro -%}

{#- Per (group, replicate, metric): the run's summary _v1, the baseline's _v2 and the rest of replicate 0's row. -#}
{%- macro _counterfactual_long(cp) -%}
{%- set null = sqlndcg.null_double() -%}
{%- set den = '_reln' if cp.estimator == 'snips' else '_imps' -%}
_long AS (
  {%- for m in cp.metrics %}{% set i = loop.index %}
  SELECT {% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}_rep, {{ i }} AS _m, {{ sqlndcg.text_literal(m.name) }} AS _metric,
    {%- for s in ([1, 2] if cp.baseline else [1]) %}
    CASE WHEN {{ den }} > 0 THEN _num{{ i }}_{{ s }} / {{ den }} ELSE {{ null }} END AS _v{{ s }},
    {%- endfor %}
    CASE WHEN _imps > 0 THEN _naive{{ i }} / _imps ELSE {{ null }} END AS _naive, _u{{ i }} AS _u,
    CASE WHEN _twn{{ i }} > 0 THEN _uwn{{ i }} / _twn{{ i }} ELSE {{ null }} END AS _uw,
    _imps, _queries, _clicked,
    CASE WHEN _s2n > 0 THEN _reln * _reln / _s2n ELSE {{ null }} END AS _ess,
    CASE WHEN _reln > 0 THEN _s1cn / _reln ELSE {{ null }} END AS _clipped
  FROM _reps
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
)
{%- endmacro -%}

{#- The percentile interval of the replicates 1..B (and the difference's, with its p-value), per (group, metric). -#}
{%- macro _counterfactual_intervals(cp) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set n = sqlndcg.null_double() -%}
{%- set low, high = (1 - cp.level) / 2, 1 - (1 - cp.level) / 2 -%}
_ordered AS (
  SELECT {{ g_cols }}_m, _v1,
    ROW_NUMBER() OVER (PARTITION BY {{ g_cols }}_m ORDER BY _v1) AS _o1,
    {%- if cp.baseline %}
    _v1 - _v2 AS _diff, ROW_NUMBER() OVER (PARTITION BY {{ g_cols }}_m ORDER BY _v1 - _v2) AS _od,
    {%- endif %}
    COUNT(*) OVER (PARTITION BY {{ g_cols }}_m) AS _count
  FROM _long
  WHERE _rep > 0 AND _v1 IS NOT NULL{% if cp.baseline %} AND _v2 IS NOT NULL{% endif %}
),
_intervals AS (
  SELECT {{ g_cols }}_m,
    MIN(CASE WHEN _o1 >= {{ sqlndcg._number(low) }} * _count THEN _v1 ELSE {{ n }} END) AS _low,
    MIN(CASE WHEN _o1 >= {{ sqlndcg._number(high) }} * _count THEN _v1 ELSE {{ n }} END) AS _high
    {%- if cp.baseline %},
    MIN(CASE WHEN _od >= {{ sqlndcg._number(low) }} * _count THEN _diff ELSE {{ n }} END) AS _dlow,
    MIN(CASE WHEN _od >= {{ sqlndcg._number(high) }} * _count THEN _diff ELSE {{ n }} END) AS _dhigh,
    SUM(CASE WHEN _diff <= 0 THEN 1 ELSE 0 END) AS _below, SUM(CASE WHEN _diff >= 0 THEN 1 ELSE 0 END) AS _above,
    COUNT(*) AS _b
    {%- endif %}
  FROM _ordered
  GROUP BY {{ g_cols }}_m
)
{%- endmacro -%}

{%- macro _counterfactual_summary_sql(cp) -%}
{%- set i_t = sqlndcg.integer_type() -%}
{%- set d = sqlndcg.double() -%}
WITH {{ sqlndcg._counterfactual_ctes(cp, cp.bootstrap if cp.resample == 'impressions' else 0) }},
{{ sqlndcg._counterfactual_replicates(cp) }},
{{ sqlndcg._counterfactual_long(cp) }},
{{ sqlndcg._counterfactual_intervals(cp) }}
SELECT
  {%- for g in cp.log.groups %}
  e.{{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  e._metric AS {{ sqlndcg._quote('metric') }},
  e._v1 AS {{ sqlndcg._quote('value') }},
  i._low AS {{ sqlndcg._quote('ci_low') }},
  i._high AS {{ sqlndcg._quote('ci_high') }},
  {%- if cp.baseline %}
  e._v2 AS {{ sqlndcg._quote('baseline') }},
  e._v1 - e._v2 AS {{ sqlndcg._quote('difference') }},
  i._dlow AS {{ sqlndcg._quote('difference_low') }},
  i._dhigh AS {{ sqlndcg._quote('difference_high') }},
  CASE WHEN i._b > 0 THEN CASE WHEN 2 * (1 + CASE WHEN i._below < i._above THEN i._below ELSE i._above END) < i._b + 1
    THEN 2 * (1 + CAST(CASE WHEN i._below < i._above THEN i._below ELSE i._above END AS {{ d }})) / (i._b + 1) ELSE 1 END
    ELSE {{ sqlndcg.null_double() }} END AS {{ sqlndcg._quote('p_value') }},
  {%- endif %}
  e._naive AS {{ sqlndcg._quote('naive') }},
  CAST(e._queries AS {{ i_t }}) AS {{ sqlndcg._quote('queries') }},
  CAST(e._imps AS {{ i_t }}) AS {{ sqlndcg._quote('impressions') }},
  CAST(e._clicked AS {{ i_t }}) AS {{ sqlndcg._quote('clicks') }},
  CAST(e._u AS {{ i_t }}) AS {{ sqlndcg._quote('unknown') }},
  e._uw AS {{ sqlndcg._quote('unknown_weight') }},
  e._ess AS {{ sqlndcg._quote('ess') }},
  e._clipped AS {{ sqlndcg._quote('clipped_weight_share') }}
FROM _long AS e
LEFT JOIN _intervals AS i ON i._m = e._m{% for g in cp.log.groups %} AND i.{{ g.alias }} = e.{{ g.alias }}{% endfor %}
WHERE e._rep = 0
ORDER BY {% for g in cp.log.groups %}e.{{ g.alias }}, {% endfor %}e._m
{%- endmacro -%}

{#- Per group: the log's rows and impressions read, rows deeper than max_position, the logged queries, those the
    run (and the baseline) does not rank, and the run's queries no impression of the group shows. -#}
{%- macro _counterfactual_account_sql(cp) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set i_t = sqlndcg.integer_type() -%}
{%- set kept = ('_pos <= ' ~ cp.em.max_position) if cp.em.max_position is not none else '1 = 1' -%}
WITH {{ sqlndcg._counterfactual_ctes(cp, 0) }},
_read AS (
  SELECT {{ g_cols }}COUNT(*) AS _rows, COUNT(DISTINCT _i) AS _imps, SUM(CASE WHEN {{ kept }} THEN 0 ELSE 1 END) AS _deeper
  FROM ({{ sqlndcg._click_log_rows(cp.log) }}) AS log_rows
  {%- if cp.log.groups %}
  GROUP BY {{ g_cols[:-2] }}
  {%- endif %}
),
_run_queries AS (
  SELECT COUNT(DISTINCT _q) AS _all FROM _ranked WHERE _s = 1
),
_logged AS (
  SELECT {{ g_cols }}COUNT(*) AS _queries, SUM(CASE WHEN _ranked1 = 0 THEN 1 ELSE 0 END) AS _unranked1
    {%- if cp.baseline %}, SUM(CASE WHEN _ranked2 = 0 THEN 1 ELSE 0 END) AS _unranked2{% endif %}
  FROM _qv
  {%- if cp.log.groups %}
  GROUP BY {{ g_cols[:-2] }}
  {%- endif %}
)
SELECT
  {%- for g in cp.log.groups %}
  r.{{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  CAST(r._rows AS {{ i_t }}) AS rows_read,
  CAST(r._imps AS {{ i_t }}) AS impressions_read,
  CAST(r._deeper AS {{ i_t }}) AS rows_deeper_than_max_position,
  CAST(COALESCE(l._queries, 0) AS {{ i_t }}) AS logged_queries,
  CAST(COALESCE(l._unranked1, 0) AS {{ i_t }}) AS queries_the_run_lacks,
  {%- if cp.baseline %}
  CAST(COALESCE(l._unranked2, 0) AS {{ i_t }}) AS queries_the_baseline_lacks,
  {%- endif %}
  CAST(a._all - (COALESCE(l._queries, 0) - COALESCE(l._unranked1, 0)) AS {{ i_t }}) AS run_queries_without_impressions
FROM _read AS r
CROSS JOIN _run_queries AS a
LEFT JOIN _logged AS l ON 1 = 1{% for g in cp.log.groups %} AND l.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
ORDER BY {% for g in cp.log.groups %}r.{{ g.alias }}, {% endfor %}1
{%- endmacro -%}

{#- dbt entry points: the summary (or, per_query=true, the per-query values). `propensities` is a relation or
    'logged'; `baseline` a second run to compare with, on the same logs. -#}
{%- macro counterfactual(log=none, run=none, propensities=none, baseline=none, per_query=false) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set parts = sqlndcg._click_log_split(kwargs) -%}
{%- set lp = sqlndcg._click_log_plan('counterfactual', sqlndcg._input_relation('log', log), parts[0], ['propensity'] if propensities == 'logged' else []) -%}
{%- set props = none if propensities is none or propensities is string else sqlndcg._input_relation('propensities', propensities) -%}
{%- set own = parts[1] -%}
{%- do own.update({'propensities': propensities if propensities is string else ('table' if props is not none else none)}) -%}
{%- set cp = sqlndcg._counterfactual_plan(lp, sqlndcg._input_relation('run', run), none if baseline is none else sqlndcg._input_relation('baseline', baseline), props, own) -%}
{{ return(sqlndcg._counterfactual_per_query_sql(cp) if per_query else sqlndcg._counterfactual_summary_sql(cp)) }}
{%- endmacro -%}
