{#-
  Comparing systems query by query against a baseline (docs/compare.md says what each number means).

  Input: a per-query relation as per_query_sql writes it, whose groups include the system column (`system`), and
  optionally other groups (strata: a day, a segment) within which queries are paired. For every system other
  than `baseline`, every stratum and every metric:

    pairs            queries with a value on both sides (the n of the tests)
    baseline_mean    the baseline's mean over the pairs
    mean             the system's mean over the pairs
    difference       mean of (system - baseline) per query, = mean - baseline_mean
    difference_std   sample standard deviation of the per-query differences
    t_low, t_high    95% Student's t interval of the mean difference:
                     difference +- t(0.975, pairs - 1) * difference_std / sqrt(pairs) (NULL below 2 pairs)
    relative_change  (mean - baseline_mean) / baseline_mean (NULL when baseline_mean is 0)
    wins/ties/losses queries where the system is above / equal to / below the baseline; equal means equal up to
                     a relative 1e-12 (|a - b| <= 1e-12 (|a| + |b|)), so float rounding is not a win
    only_baseline    queries with a baseline value and none for the system (no per-query row, or NULL under
                     empty='skip'): counted, left out of the pairs
    only_system      the reverse

  Which queries have a per-query row follows the `queries` setting: under 'judged' (the default) a judged query
  missing from a run is scored 0, so it is paired; under 'both' it has no row and shows up in only_*.
  The p-values, the randomization test, the bootstrap and the multiple-comparison correction are small
  statistics of the per-query differences (paired_differences_sql) that Python computes (sqlndcg/compare.py).

  Portable SQL: no UNION (distinct), no FULL JOIN, missing join rows detected through a `_present` marker under
  COALESCE (ClickHouse fills defaults instead of NULLs), aggregates ordered by query where the engine can.
-#}

{#- A string as an SQL literal, its quotes doubled. -#}
{%- macro compare_literal(value) -%}
{%- if value is none or value is mapping or (value is sequence and value is not string) -%}
  {{ sqlndcg.fail('setting', 'baseline= must name one system (a string or a number), got ' ~ sqlndcg.show(value)) }}
{%- endif -%}
{{ return("'" ~ (value | string | replace("'", "''")) ~ "'") }}
{%- endmacro -%}

{#- The output columns whose names are fixed; a group column may not take one of them. -#}
{%- macro compare_reserved() -%}
{{ return(['baseline', 'metric', 'metric_index', 'pairs', 'baseline_mean', 'mean', 'difference', 'difference_std',
           't_low', 't_high', 'relative_change', 'wins', 'ties', 'losses', 'only_baseline', 'only_system',
           'baseline_value', 'value']) }}
{%- endmacro -%}

{#- The plan's system group and the other groups (strata), checked. -#}
{%- macro compare_parts(p, system) -%}
{%- set found, strata = [], [] -%}
{%- for g in p.groups -%}
  {%- if g.name == system -%}{%- do found.append(g) -%}{%- else -%}{%- do strata.append(g) -%}{%- endif -%}
  {%- if g.name in sqlndcg.compare_reserved() -%}
    {{ sqlndcg.fail('setting', 'group column ' ~ sqlndcg.show(g.name) ~ ' has the name of a comparison output column; rename it (one of ' ~ sqlndcg.show(sqlndcg.compare_reserved()) ~ ')') }}
  {%- endif -%}
{%- endfor -%}
{%- if not found -%}
  {%- set names = [] -%}{%- for g in p.groups -%}{%- do names.append(g.name) -%}{%- endfor -%}
  {{ sqlndcg.fail('setting', 'the system column ' ~ sqlndcg.show(system) ~ ' is not among the group columns ' ~ sqlndcg.show(names) ~ '; name the column that tells the systems apart with system=') }}
{%- endif -%}
{{ return({'system': found[0], 'strata': strata}) }}
{%- endmacro -%}

{#- Join condition on the strata (or a cross join when there are none). -#}
{%- macro compare_on(left, right, strata, extra=[]) -%}
{%- set terms = [] -%}
{%- for g in strata -%}{%- do terms.append(right ~ '._g' ~ loop.index0 ~ ' = ' ~ left ~ '._g' ~ loop.index0) -%}{%- endfor -%}
{%- for column in extra -%}{%- do terms.append(right ~ '.' ~ column ~ ' = ' ~ left ~ '.' ~ column) -%}{%- endfor -%}
{{ return(terms | join(' AND ') if terms else '1 = 1') }}
{%- endmacro -%}

{#- The CTEs both statements share, ending in compare_differences: one row per (stratum, system, query) with a
    value on either side; _b<i> the baseline's value of metric i, _a<i> the system's, _d<i> = _a<i> - _b<i>
    (NULL unless both exist). -#}
{%- macro compare_ctes(per_query, p, system, baseline) -%}
{%- set parts = sqlndcg.compare_parts(p, system) -%}
{%- set d = sqlndcg.double() -%}
{%- set is_baseline -%}CAST({{ parts.system.output }} AS {{ sqlndcg.text_type() }}) = {{ sqlndcg.compare_literal(baseline) }}{%- endset -%}
compare_baseline AS (
  SELECT
    {%- for g in parts.strata %}
    {{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    {{ p.query_output }} AS _q,
    1 AS _present,
    {%- for m in p.metrics %}
    CAST({{ m.column }} AS {{ d }}) AS _v{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ per_query }} AS per_query
  WHERE {{ is_baseline }}
),
compare_rows AS (
  SELECT
    {%- for g in parts.strata %}
    {{ g.output }} AS _g{{ loop.index0 }},
    {%- endfor %}
    {{ parts.system.output }} AS _sys,
    {{ p.query_output }} AS _q,
    1 AS _present,
    {%- for m in p.metrics %}
    CAST({{ m.column }} AS {{ d }}) AS _v{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM {{ per_query }} AS per_query
  WHERE NOT ({{ is_baseline }})
),
compare_systems AS (
  SELECT DISTINCT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    _sys AS _sys
  FROM compare_rows
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
  JOIN compare_baseline AS b ON {{ sqlndcg.compare_on('s', 'b', parts.strata) }}
  UNION ALL
  {#- ... and the system's queries the baseline lacks #}
  SELECT
    {%- for g in parts.strata %}
    o._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    o._sys AS _sys,
    o._q AS _q
  FROM compare_rows AS o
  LEFT JOIN compare_baseline AS b ON {{ sqlndcg.compare_on('o', 'b', parts.strata, ['_q']) }}
  WHERE COALESCE(b._present, 0) = 0
),
compare_pairs AS (
  SELECT
    {%- for g in parts.strata %}
    k._g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    k._sys AS _sys,
    k._q AS _q,
    {%- for m in p.metrics %}
    CASE WHEN COALESCE(b._present, 0) = 1 THEN b._v{{ loop.index0 }} END AS _b{{ loop.index0 }},
    CASE WHEN COALESCE(o._present, 0) = 1 THEN o._v{{ loop.index0 }} END AS _a{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM compare_keys AS k
  LEFT JOIN compare_baseline AS b ON {{ sqlndcg.compare_on('k', 'b', parts.strata, ['_q']) }}
  LEFT JOIN compare_rows AS o ON {{ sqlndcg.compare_on('k', 'o', parts.strata, ['_sys', '_q']) }}
),
compare_differences AS (
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    _sys AS _sys,
    _q AS _q,
    {%- for m in p.metrics %}
    _b{{ loop.index0 }} AS _b{{ loop.index0 }},
    _a{{ loop.index0 }} AS _a{{ loop.index0 }},
    _a{{ loop.index0 }} - _b{{ loop.index0 }} AS _d{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM compare_pairs
)
{%- endmacro -%}

{#- One row per (stratum, system, metric, query): the baseline's value, the system's, and their difference
    (NULL when either side has no value). What the randomization test and the bootstrap resample. -#}
{%- macro paired_differences_sql(per_query, p, system, baseline) -%}
{%- set parts = sqlndcg.compare_parts(p, system) -%}
WITH {{ sqlndcg.compare_ctes(per_query, p, system, baseline) }}
SELECT * FROM (
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS {{ g.output }},
    {%- endfor %}
    _sys AS {{ parts.system.output }},
    CAST({{ sqlndcg.compare_literal(baseline) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg.quote('baseline') }},
    CAST({{ sqlndcg.compare_literal(m.name) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg.quote('metric') }},
    {{ i }} AS {{ sqlndcg.quote('metric_index') }},
    _q AS {{ p.query_output }},
    _b{{ i }} AS {{ sqlndcg.quote('baseline_value') }},
    _a{{ i }} AS {{ sqlndcg.quote('value') }},
    _d{{ i }} AS {{ sqlndcg.quote('difference') }}
  FROM compare_differences
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
) AS paired_differences
ORDER BY {% for g in parts.strata %}{{ g.output }}, {% endfor %}{{ parts.system.output }}, {{ sqlndcg.quote('metric_index') }}, {{ p.query_output }}
{%- endmacro -%}

{#- One row per (stratum, system, metric): the paired statistics listed at the top of this file. -#}
{%- macro paired_sql(per_query, p, system, baseline) -%}
{%- set parts = sqlndcg.compare_parts(p, system) -%}
{%- set d = sqlndcg.double() -%}
{%- set strata_list %}{% for g in parts.strata %}_g{{ loop.index0 }}, {% endfor %}{% endset -%}
WITH {{ sqlndcg.compare_ctes(per_query, p, system, baseline) }},
compare_moments AS (
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS _g{{ loop.index0 }},
    {%- endfor %}
    _sys AS _sys,
    {%- for m in p.metrics %}
    {%- set i = loop.index0 %}
    {%- set tie %}ABS(_d{{ i }}) <= {{ sqlndcg.number('1e-12') }} * (ABS(_a{{ i }}) + ABS(_b{{ i }})){% endset %}
    COUNT(_d{{ i }}) AS _n{{ i }},
    {{ sqlndcg.ordered('AVG', 'CASE WHEN _a' ~ i ~ ' IS NOT NULL THEN _b' ~ i ~ ' END', '_q') }} AS _mb{{ i }},
    {{ sqlndcg.ordered('AVG', 'CASE WHEN _b' ~ i ~ ' IS NOT NULL THEN _a' ~ i ~ ' END', '_q') }} AS _ma{{ i }},
    {{ sqlndcg.ordered('AVG', '_d' ~ i, '_q') }} AS _md{{ i }},
    {{ sqlndcg.ordered('STDDEV_SAMP', '_d' ~ i, '_q') }} AS _sd{{ i }},
    COUNT(CASE WHEN _d{{ i }} > 0 AND NOT ({{ tie }}) THEN 1 END) AS _wins{{ i }},
    COUNT(CASE WHEN {{ tie }} THEN 1 END) AS _ties{{ i }},
    COUNT(CASE WHEN _d{{ i }} < 0 AND NOT ({{ tie }}) THEN 1 END) AS _losses{{ i }},
    COUNT(CASE WHEN _a{{ i }} IS NULL THEN _b{{ i }} END) AS _ob{{ i }},
    COUNT(CASE WHEN _b{{ i }} IS NULL THEN _a{{ i }} END) AS _os{{ i }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM compare_differences
  GROUP BY {{ strata_list }}_sys
)
SELECT * FROM (
  {%- for m in p.metrics %}
  {%- set i = loop.index0 %}
  {%- set half %}({{ sqlndcg.t975('_n' ~ i ~ ' - 1') }} * _sd{{ i }} / SQRT(CAST(_n{{ i }} AS {{ d }}))){% endset %}
  SELECT
    {%- for g in parts.strata %}
    _g{{ loop.index0 }} AS {{ g.output }},
    {%- endfor %}
    _sys AS {{ parts.system.output }},
    CAST({{ sqlndcg.compare_literal(baseline) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg.quote('baseline') }},
    CAST({{ sqlndcg.compare_literal(m.name) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg.quote('metric') }},
    {{ i }} AS {{ sqlndcg.quote('metric_index') }},
    _n{{ i }} AS {{ sqlndcg.quote('pairs') }},
    _mb{{ i }} AS {{ sqlndcg.quote('baseline_mean') }},
    _ma{{ i }} AS {{ sqlndcg.quote('mean') }},
    _md{{ i }} AS {{ sqlndcg.quote('difference') }},
    _sd{{ i }} AS {{ sqlndcg.quote('difference_std') }},
    CASE WHEN _n{{ i }} >= 2 THEN _md{{ i }} - {{ half }} END AS {{ sqlndcg.quote('t_low') }},
    CASE WHEN _n{{ i }} >= 2 THEN _md{{ i }} + {{ half }} END AS {{ sqlndcg.quote('t_high') }},
    CASE WHEN _mb{{ i }} <> 0 THEN (_ma{{ i }} - _mb{{ i }}) / _mb{{ i }} END AS {{ sqlndcg.quote('relative_change') }},
    _wins{{ i }} AS {{ sqlndcg.quote('wins') }},
    _ties{{ i }} AS {{ sqlndcg.quote('ties') }},
    _losses{{ i }} AS {{ sqlndcg.quote('losses') }},
    _ob{{ i }} AS {{ sqlndcg.quote('only_baseline') }},
    _os{{ i }} AS {{ sqlndcg.quote('only_system') }}
  FROM compare_moments
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
) AS paired_comparison
ORDER BY {% for g in parts.strata %}{{ g.output }}, {% endfor %}{{ parts.system.output }}, {{ sqlndcg.quote('metric_index') }}
{%- endmacro -%}

{#-
  dbt entry points, with the keywords of sqlndcg.compare() (and every setting of sqlndcg.per_query):

    {{ sqlndcg.compare(run=ref('rankings'), judgments=ref('judgments'), metrics=['ndcg@10', 'p@5'],
                       system='system', baseline='bm25', group_by=['ds']) }}
    {{ sqlndcg.compare(per_query=ref('my_per_query_model'), metrics=[...], system='system', baseline='bm25') }}
    {{ sqlndcg.compare_differences(run=ref('rankings'), judgments=ref('judgments'), metrics=[...],
                                   system='system', baseline='bm25') }}

  compare gives one row per (group_by..., system, metric) with the columns listed at the top of this file;
  compare_differences one row per (group_by..., system, metric, query). `group_by` names strata within which
  queries are paired (a day, a segment); the system column is added to it. A per_query model must have been
  built by sqlndcg.per_query with the same metrics and with group_by including the system column.
-#}

{%- macro compare_settings(settings, system) -%}
{%- if system is not string or system == '' -%}
  {{ sqlndcg.fail('setting', 'system= must name the column that tells the systems apart, got ' ~ sqlndcg.show(system)) }}
{%- endif -%}
{%- set out = {} -%}{%- do out.update(settings) -%}
{%- set group_by = settings.get('group_by', []) -%}
{%- set group_by = ([group_by] if group_by is string else (group_by or [])) | list -%}
{%- if system not in group_by -%}{%- set group_by = group_by + [system] -%}{%- endif -%}
{%- do out.update({'group_by': group_by}) -%}
{{ return(out) }}
{%- endmacro -%}

{%- macro compare_relation_sql(statement, run, judgments, metrics, system, baseline, per_query, run_where,
                               judgments_where, settings) -%}
{%- if metrics is none -%}{{ sqlndcg.fail('metric', "compare needs metrics=, e.g. metrics=['ndcg@10', 'p@5', 'map']") }}{%- endif -%}
{%- if baseline is none -%}{{ sqlndcg.fail('setting', "compare needs baseline=, the system the others are compared with, e.g. baseline='bm25'") }}{%- endif -%}
{%- set settings = sqlndcg.compare_settings(settings, system) -%}
{%- if per_query is not none -%}
  {%- set spec = sqlndcg.spec(metrics, settings) -%}
  {%- set plan = sqlndcg.plan(sqlndcg.assumed_facts(spec, per_query | string, per_query | string)) -%}
  {%- set relation = per_query -%}
{%- else -%}
  {%- set plan = sqlndcg.relation_plan(run, judgments, metrics, settings, run_where, judgments_where) -%}
  {%- set relation = '(' ~ sqlndcg.per_query_sql(plan) ~ ')' -%}
{%- endif -%}
{%- if statement == 'differences' -%}
  {{ return(sqlndcg.paired_differences_sql(relation, plan, system, baseline)) }}
{%- endif -%}
{{ return(sqlndcg.paired_sql(relation, plan, system, baseline)) }}
{%- endmacro -%}

{%- macro compare(run=none, judgments=none, metrics=none, system='system', baseline=none, per_query=none,
                  run_where=none, judgments_where=none) -%}
{%- if not execute -%}{{ return(sqlndcg.parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg.compare_relation_sql('tests', run, judgments, metrics, system, baseline, per_query, run_where,
                                       judgments_where, kwargs)) }}
{%- endmacro -%}

{%- macro compare_differences(run=none, judgments=none, metrics=none, system='system', baseline=none,
                              per_query=none, run_where=none, judgments_where=none) -%}
{%- if not execute -%}{{ return(sqlndcg.parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg.compare_relation_sql('differences', run, judgments, metrics, system, baseline, per_query,
                                       run_where, judgments_where, kwargs)) }}
{%- endmacro -%}

{#- Several runs, one per system, as one relation with a system column holding each run's name: what
    sqlndcg.compare() evaluates when given a dict of runs. `inputs` are {name, sql}; `columns` those all share. -#}
{%- macro compare_union_sql(inputs, columns, system) -%}
{%- for input in inputs %}
SELECT
  CAST({{ sqlndcg.compare_literal(input.name) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg.quote(system) }}
  {%- for c in columns %},
  {{ sqlndcg.quote(c) }} AS {{ sqlndcg.quote(c) }}
  {%- endfor %}
FROM {{ input.sql }} AS run_{{ loop.index0 }}
{%- if not loop.last %}
UNION ALL
{%- endif %}
{%- endfor %}
{%- endmacro -%}
