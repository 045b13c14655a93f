{#-
  Comparing systems query by query against a baseline (docs/compare.md says what each number means).

  Input: a per-query relation as per_query_sql writes it, whose groups include the system column (`system`), and
  optionally other groups (strata: a day, a segment) within which queries are paired. For every system other
  than `baseline`, every stratum and every metric:

    pairs            queries with a value on both sides (the n of the tests)
    effective_pairs  the n of the interval: Kish's effective n of the pairs' weights, floor(V1^2 / V2)
                     (= pairs without query weights)
    baseline_mean    the baseline's mean over the pairs
    mean             the system's mean over the pairs
    difference       mean of (system - baseline) per query, = mean - baseline_mean
    difference_std   standard deviation of the per-query differences; 0 when it is float rounding
                     (_within_rounding: at most 1e-12 max(1, |baseline_mean| + |mean|)), and then the difference
                     too when it is (every pair equal up to rounding: identical systems)
    t_low, t_high    95% Student's t interval of the mean difference:
                     difference +- t(0.975, effective_pairs - 1) * difference_std / sqrt(effective_pairs)
                     (NULL below 2)
    relative_change  (mean - baseline_mean) / baseline_mean (NULL when baseline_mean is 0)
    effect_size      Cohen's d_z, the standardized mean difference of paired data: difference / difference_std
                     (NULL when difference_std is NULL or 0)
    wins/ties/losses queries where the system is above / equal to / below the baseline; equal means equal up to
                     a relative 1e-12 (|a - b| <= 1e-12 (|a| + |b|)), so float rounding is not a win
    only_baseline    queries with a baseline value and none for the system (no per-query row, or NULL under
                     empty='skip'): counted, left out of the pairs
    only_system      the reverse

  With query weights (`weights`, the weights plan of weights.sql: one weight per query and stratum, the same for
  both sides of a pair), the means, the difference, its standard deviation and its interval are summary.sql's
  weighted ones (weighted_moments, the same macro): sum(w x) / sum(w), the reliability-weighted standard deviation,
  Kish's effective n. Without them every weight is 1 and these are the plain mean, the sample standard deviation
  (n - 1) and Student's t interval. Counts (pairs, wins, ties, losses, only_*) stay counts of queries.

  Which queries have a per-query row follows the `queries` setting: under 'judged' (the default) a judged query
  missing from a run is scored 0, so it is paired; under 'both' it has no row and shows up in only_*.
  The p-values, the randomization test, the bootstrap and the multiple-comparison correction are small
  statistics of the per-query differences (paired_differences_sql) that Python computes (sqlndcg/compare.py).

  Portable SQL: no UNION (distinct), no FULL JOIN, missing join rows detected through a `_present` marker under
  COALESCE (ClickHouse fills defaults instead of NULLs), aggregates ordered by query where the engine can.
-#}

{#- A string as an SQL literal, escaped as the engine reads its literals (text_literal: backslashes too). -#}
{%- macro _compare_literal(value) -%}
{%- if value is none or value is mapping or (value is sequence and value is not string) -%}
  {{ sqlndcg._fail('setting', 'baseline= must name one system (a string or a number), got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{{ return(sqlndcg.text_literal(value | string)) }}
{%- endmacro -%}

{#- The output columns whose names are fixed (the paired statement's, _compare_columns in outputs.sql, and the
    differences'); a group column may not take one of them. -#}
{%- macro _compare_reserved() -%}
{{ return(sqlndcg._compare_columns() + ['baseline_value', 'value']) }}
{%- endmacro -%}

{#- The plan's system group and the other groups (strata), checked; with query weights, that they weigh queries,
    not (system, query) pairs. -#}
{%- macro _compare_parts(p, system, weights=none) -%}
{%- set found, strata = [], [] -%}
{%- for g in p.groups -%}
  {%- if g.name == system -%}{%- do found.append(g) -%}{%- else -%}{%- do strata.append(g) -%}{%- endif -%}
  {%- if g.name in sqlndcg._compare_reserved() -%}
    {{ sqlndcg._fail('setting', 'group column ' ~ sqlndcg._show(g.name) ~ ' has the name of a comparison output column; rename it (one of ' ~ sqlndcg._show(sqlndcg._compare_reserved()) ~ ')') }}
  {%- endif -%}
{%- endfor -%}
{%- if not found -%}
  {%- set names = [] -%}{%- for g in p.groups -%}{%- do names.append(g.name) -%}{%- endfor -%}
  {{ sqlndcg._fail('setting', 'the system column ' ~ sqlndcg._show(system) ~ ' is not among the group columns ' ~ sqlndcg._show(names) ~ '; name the column that tells the systems apart with system=') }}
{%- endif -%}
{%- if weights -%}
  {%- for g in weights.groups if g.name == system -%}
    {{ sqlndcg._fail('input', weights.label ~ ' has the system column ' ~ sqlndcg._show(system) ~ ': a comparison weighs each query (per stratum) once, the same for both systems of a pair; give weights without the system column') }}
  {%- endfor -%}
  {%- for g in p.groups if g.name == 'weight' -%}
    {{ sqlndcg._fail('setting', "group column 'weight' has the name of the differences' weight column; rename it") }}
  {%- endfor -%}
{%- endif -%}
{{ return({'system': found[0], 'strata': strata}) }}
{%- endmacro -%}

{#- Join condition on the strata (or a cross join when there are none). -#}
{%- macro _compare_on(left, right, strata, extra=[]) -%}
{%- set terms = [] -%}
{%- for g in strata -%}{%- do terms.append(right ~ '._g' ~ loop.index0 ~ ' = ' ~ left ~ '._g' ~ loop.index0) -%}{%- endfor -%}
{%- for column in extra -%}{%- do terms.append(right ~ '.' ~ column ~ ' = ' ~ left ~ '.' ~ column) -%}{%- endfor -%}
{{ return(terms | join(' AND ') if terms else '1 = 1') }}
{%- endmacro -%}

{#- The CTEs both statements share, ending in compare_differences: one row per (stratum, system, query) with a
    value on either side; _b<i> the baseline's value of metric i, _a<i> the system's, _d<i> = _a<i> - _b<i>
    (NULL unless both exist). -#}
{%- macro _compare_ctes(per_query, p, system, baseline, weights=none) -%}
{%- set parts = sqlndcg._compare_parts(p, system, weights) -%}
{{ sqlndcg._compare_sides(per_query, p, parts, baseline, weights) }}
{{ sqlndcg._compare_matched(p, parts) }}
{%- endmacro -%}


{#- The two sides of every comparison: the baseline's per-query rows (with each query's weight) and the others'. -#}
{%- macro _compare_sides(per_query, p, parts, baseline, weights) -%}
{%- set d = sqlndcg.double() -%}
{%- set is_baseline -%}CAST(per_query.{{ parts.system.output }} AS {{ sqlndcg.text_type() }}) = {{ sqlndcg._compare_literal(baseline) }}{%- endset -%}
compare_baseline AS (
  {#- the baseline's rows carry the query's weight (1 without weights): a pair's weight #}
  SELECT
    {%- for g in parts.strata %}
    per_query.{{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    per_query.{{ p.query_output }} AS _q,
    1 AS _present,
    {{ sqlndcg._query_weight(weights) }} AS _w,
    {{ sqlndcg._query_weight(weights, given=true) }} AS _given_w,
    {%- for m in p.metrics %}
    CAST(per_query.{{ m.column }} AS {{ d }}) AS _v{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ per_query }} AS per_query
  {{- sqlndcg._query_weights_join(weights, p, 'per_query') }}
  WHERE {{ is_baseline }}
),
compare_rows AS (
  SELECT
    {%- for g in parts.strata %}
    per_query.{{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    per_query.{{ parts.system.output }} AS _sys,
    per_query.{{ p.query_output }} AS _q,
    1 AS _present,
    {%- for m in p.metrics %}
    CAST(per_query.{{ m.column }} AS {{ d }}) AS _v{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ per_query }} AS per_query
  WHERE NOT ({{ is_baseline }})
),
{%- endmacro -%}


{#- Each (stratum, system) matched with the baseline query by query, present on either side, and the differences. -#}
{%- macro _compare_matched(p, parts) -%}
compare_systems AS (
  {#- Every (stratum, system) either side has: the system's own, and every stratum of the baseline for every
      system, so a stratum a system lacks counts the baseline's queries in only_baseline instead of vanishing. #}
  SELECT DISTINCT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    _sys AS _sys
  FROM (
    SELECT {% for g in parts.strata %}_g{{ loop.index0 }} AS _g{{ loop.index0 }}, {% endfor %}_sys AS _sys
    FROM compare_rows
    {%- if parts.strata %}
    UNION ALL
    SELECT {% for g in parts.strata %}b._g{{ loop.index0 }} AS _g{{ loop.index0 }}, {% endfor %}s._sys AS _sys
    FROM (SELECT DISTINCT {% for g in parts.strata %}_g{{ loop.index0 }}{% if not loop.last %}, {% endif %}{% endfor %} FROM compare_baseline) AS b
    CROSS JOIN (SELECT DISTINCT _sys FROM compare_rows) AS s
    {%- endif %}
  ) AS either_side
),
compare_keys AS (
  {#- every (stratum, system) with every baseline query of its stratum ... #}
  SELECT
    {%- for g in parts.strata %}
    s._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    s._sys AS _sys,
    b._q AS _q
  FROM compare_systems AS s
  JOIN compare_baseline AS b ON {{ sqlndcg._compare_on('s', 'b', parts.strata) }}
  UNION ALL
  {#- ... and the system's queries the baseline lacks #}
  SELECT
    {%- for g in parts.strata %}
    o._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    o._sys AS _sys,
    o._q AS _q
  FROM compare_rows AS o
  LEFT JOIN compare_baseline AS b ON {{ sqlndcg._compare_on('o', 'b', parts.strata, ['_q']) }}
  WHERE COALESCE(b._present, 0) = 0
),
compare_pairs AS (
  SELECT
    {%- for g in parts.strata %}
    k._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    k._sys AS _sys,
    k._q AS _q,
    CASE WHEN COALESCE(b._present, 0) = 1 THEN b._w END AS _w,
    CASE WHEN COALESCE(b._present, 0) = 1 THEN b._given_w END AS _given_w,
    {%- for m in p.metrics %}
    CASE WHEN COALESCE(b._present, 0) = 1 THEN b._v{{ loop.index0 }} END AS _b{{ loop.index0 }},
    CASE WHEN COALESCE(o._present, 0) = 1 THEN o._v{{ loop.index0 }} END AS _a{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM compare_keys AS k
  LEFT JOIN compare_baseline AS b ON {{ sqlndcg._compare_on('k', 'b', parts.strata, ['_q']) }}
  LEFT JOIN compare_rows AS o ON {{ sqlndcg._compare_on('k', 'o', parts.strata, ['_sys', '_q']) }}
),
compare_differences AS (
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    _sys AS _sys,
    _q AS _q,
    _w AS _w,
    _given_w AS _given_w,
    {%- for m in p.metrics %}
    _b{{ loop.index0 }} AS _b{{ loop.index0 }},
    _a{{ loop.index0 }} AS _a{{ loop.index0 }},
    _a{{ loop.index0 }} - _b{{ loop.index0 }} AS _d{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM compare_pairs
)
{%- endmacro -%}

{#- One row per (stratum, system, metric, query): the baseline's value, the system's, and their difference
    (NULL when either side has no value), and with query weights the pair's `weight`. What the randomization test
    and the bootstrap resample. -#}
{%- macro _paired_differences_sql(per_query, p, system, baseline, weights=none) -%}
{%- set parts = sqlndcg._compare_parts(p, system, weights) -%}
WITH {{ sqlndcg._compare_ctes(per_query, p, system, baseline, weights) }}
SELECT * FROM (
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS {{ g.output }},
    {%- endfor %}
    _sys AS {{ parts.system.output }},
    CAST({{ sqlndcg._compare_literal(baseline) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg._quote('baseline') }},
    CAST({{ sqlndcg._compare_literal(m.name) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg._quote('metric') }},
    {{ i }} AS {{ sqlndcg._quote('metric_index') }},
    _q AS {{ p.query_output }},
    _b{{ i }} AS {{ sqlndcg._quote('baseline_value') }},
    _a{{ i }} AS {{ sqlndcg._quote('value') }},
    _d{{ i }} AS {{ sqlndcg._quote('difference') }}
    {%- if weights %},
    _given_w AS {{ sqlndcg._quote('weight') }}
    {%- endif %}
  FROM compare_differences
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
) AS paired_differences
ORDER BY {% for g in parts.strata %}{{ g.output }}, {% endfor %}{{ parts.system.output }}, {{ sqlndcg._quote('metric_index') }}, {{ p.query_output }}
{%- endmacro -%}

{#- A few query ids of one system of the run (`value`): messages about a system none of whose queries is scored. -#}
{%- macro _some_system_queries(relation, system, query_id, value, limit) -%}
SELECT DISTINCT {{ sqlndcg._quote(query_id) }} AS shown_value
FROM {{ relation }} AS runs
WHERE CAST({{ sqlndcg._quote(system) }} AS {{ sqlndcg.text_type() }}) = {{ sqlndcg._compare_literal(value) }}
ORDER BY shown_value
LIMIT {{ limit }}
{%- endmacro -%}

{#- Whether `x` (a standard deviation or a mean difference) is 0 up to float rounding of the values compared:
    |x| <= 1e-12 max(1, |baseline mean| + |system mean|), as the ties are (sqlndcg/stats/effect.py, ROUNDING, says
    why 1e-12). A sd of float noise (1e-17) would give an effect size of 10^15 and a t test of rounding. -#}
{%- macro _within_rounding(x, baseline_mean, mean) -%}
{%- set scale = 'ABS(' ~ baseline_mean ~ ') + ABS(' ~ mean ~ ')' -%}
{{ return('ABS(' ~ x ~ ') <= ' ~ sqlndcg._number('1e-12') ~ ' * CASE WHEN ' ~ scale ~ ' > 1 THEN ' ~ scale ~ ' ELSE 1 END') }}
{%- endmacro -%}

{#- One row per (stratum, system, metric): the paired statistics listed at the top of this file. The means, the
    difference's standard deviation and effective n are summary.sql's weighted_moments over the pairs (a value j of
    metric i: 3i the baseline's, 3i + 1 the system's, 3i + 2 the difference), so weighted and unweighted
    comparisons are one template and the summary's definitions. -#}
{%- macro _paired_sql(per_query, p, system, baseline, weights=none) -%}
{%- set parts = sqlndcg._compare_parts(p, system, weights) -%}
{%- set keys = [] -%}{%- for g in parts.strata -%}{%- do keys.append('_g' ~ loop.index0) -%}{%- endfor -%}{%- do keys.append('_sys') -%}
{%- set values, extra = [], [] -%}
{%- for m in p.metrics -%}
  {%- set i = loop.index0 -%}
  {%- set tie -%}ABS(_d{{ i }}) <= {{ sqlndcg._number('1e-12') }} * (ABS(_a{{ i }}) + ABS(_b{{ i }})){%- endset -%}
  {%- do values.extend(['_pb' ~ i, '_pa' ~ i, '_d' ~ i]) -%}
  {%- do extra.append(['COUNT(CASE WHEN _d' ~ i ~ ' > 0 AND NOT (' ~ tie ~ ') THEN 1 END)', '_wins' ~ i]) -%}
  {%- do extra.append(['COUNT(CASE WHEN ' ~ tie ~ ' THEN 1 END)', '_ties' ~ i]) -%}
  {%- do extra.append(['COUNT(CASE WHEN _d' ~ i ~ ' < 0 AND NOT (' ~ tie ~ ') THEN 1 END)', '_losses' ~ i]) -%}
  {%- do extra.append(['COUNT(CASE WHEN _a' ~ i ~ ' IS NULL THEN _b' ~ i ~ ' END)', '_ob' ~ i]) -%}
  {%- do extra.append(['COUNT(CASE WHEN _b' ~ i ~ ' IS NULL THEN _a' ~ i ~ ' END)', '_os' ~ i]) -%}
{%- endfor -%}
WITH {{ sqlndcg._compare_ctes(per_query, p, system, baseline, weights) }},
compare_weighted AS (
  {#- each metric's values over the pairs only: the baseline's, the system's, their difference #}
  SELECT
    {%- for k in keys %}
    {{ k }} AS {{ k }},
    {%- endfor %}
    _q AS _q,
    _w AS _w,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    _a{{ i }} AS _a{{ i }},
    _b{{ i }} AS _b{{ i }},
    _d{{ i }} AS _d{{ i }},
    CASE WHEN _d{{ i }} IS NOT NULL THEN _b{{ i }} END AS _pb{{ i }},
    CASE WHEN _d{{ i }} IS NOT NULL THEN _a{{ i }} END AS _pa{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM compare_differences
),
{{ sqlndcg._weighted_moments('compare_weighted', keys, values, '_q', 'compare_', extra, not weights) }},
{#- One row per metric, then the t interval's half-width once per row: the t quantile is a long expression
    (t975.sql), planned once instead of twice per metric. _df is n_eff - 1 as a column. #}
compare_metric_rows AS (
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  {%- set b, a, dd = 3 * i, 3 * i + 1, 3 * i + 2 %}
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS {{ g.output }},
    {%- endfor %}
    _sys AS {{ parts.system.output }},
    CAST({{ sqlndcg._compare_literal(baseline) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg._quote('baseline') }},
    CAST({{ sqlndcg._compare_literal(m.name) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg._quote('metric') }},
    {{ i }} AS {{ sqlndcg._quote('metric_index') }},
    _n{{ dd }} AS {{ sqlndcg._quote('pairs') }},
    _neff{{ dd }} AS {{ sqlndcg._quote('effective_pairs') }},
    _neff{{ dd }} - 1 AS _df,
    _mean{{ b }} AS {{ sqlndcg._quote('baseline_mean') }},
    _mean{{ a }} AS {{ sqlndcg._quote('mean') }},
    {%- set noise = sqlndcg._within_rounding('_std' ~ dd, '_mean' ~ b, '_mean' ~ a) %}
    CASE WHEN {{ noise }} AND {{ sqlndcg._within_rounding('_mean' ~ dd, '_mean' ~ b, '_mean' ~ a) }} THEN {{ sqlndcg._number(0) }} ELSE _mean{{ dd }} END AS {{ sqlndcg._quote('difference') }},
    CASE WHEN {{ noise }} THEN {{ sqlndcg._number(0) }} ELSE _std{{ dd }} END AS {{ sqlndcg._quote('difference_std') }},
    CASE WHEN _mean{{ b }} <> 0 THEN (_mean{{ a }} - _mean{{ b }}) / _mean{{ b }} END AS {{ sqlndcg._quote('relative_change') }},
    CASE WHEN _std{{ dd }} > 0 AND NOT ({{ noise }}) THEN _mean{{ dd }} / _std{{ dd }} END AS {{ sqlndcg._quote('effect_size') }},
    _wins{{ i }} AS {{ sqlndcg._quote('wins') }},
    _ties{{ i }} AS {{ sqlndcg._quote('ties') }},
    _losses{{ i }} AS {{ sqlndcg._quote('losses') }},
    _ob{{ i }} AS {{ sqlndcg._quote('only_baseline') }},
    _os{{ i }} AS {{ sqlndcg._quote('only_system') }}
  FROM compare_dispersion
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
),
compare_intervals AS (
  SELECT
    {%- for g in parts.strata %}
    {{ g.output }} AS {{ g.output }},
    {%- endfor %}
    {{ parts.system.output }} AS {{ parts.system.output }},
    {%- for c in sqlndcg._compare_columns() if c not in ('t_low', 't_high') %}
    {{ sqlndcg._quote(c) }} AS {{ sqlndcg._quote(c) }},
    {%- endfor %}
    CASE WHEN {{ sqlndcg._quote('effective_pairs') }} >= 2 AND {{ sqlndcg._quote('difference_std') }} IS NOT NULL
         THEN {{ sqlndcg._weighted_half_width(sqlndcg._quote('difference_std'), sqlndcg._quote('effective_pairs'), '_df') }} END AS _half
  FROM compare_metric_rows
)
SELECT
  {%- for g in parts.strata %}
  {{ g.output }} AS {{ g.output }},
  {%- endfor %}
  {{ parts.system.output }} AS {{ parts.system.output }},
  {%- for c in sqlndcg._compare_columns() %}
  {%- if c == 't_low' %}
  {{ sqlndcg._quote('difference') }} - _half AS {{ sqlndcg._quote(c) }}
  {%- elif c == 't_high' %}
  {{ sqlndcg._quote('difference') }} + _half AS {{ sqlndcg._quote(c) }}
  {%- else %}
  {{ sqlndcg._quote(c) }} AS {{ sqlndcg._quote(c) }}
  {%- endif %}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM compare_intervals
ORDER BY {% for g in parts.strata %}{{ g.output }}, {% endfor %}{{ parts.system.output }}, {{ sqlndcg._quote('metric_index') }}
{%- endmacro -%}

{#- Several runs, one per system, as one relation with a system column holding each run's name: what
    sqlndcg.compare() evaluates when given a dict of runs. `inputs` are {name, sql}; `columns` those all share. -#}
{%- macro _compare_union_sql(inputs, columns, system) -%}
{%- for input in inputs %}
SELECT
  CAST({{ sqlndcg._compare_literal(input.name) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg._quote(system) }}
  {%- for c in columns %},
  {{ sqlndcg._quote(c) }} AS {{ sqlndcg._quote(c) }}
  {%- endfor %}
FROM {{ input.sql }} AS run_{{ loop.index0 }}
{%- if not loop.last %}
UNION ALL
{%- endif %}
{%- endfor %}
{%- endmacro -%}
