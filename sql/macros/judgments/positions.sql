{#-
  Where relevance sits in the ranking: per group and rank position 1..k, over the run's lists whose query has
  judgments (run queries without any judgment are left out, as evaluate never scores them):
    lists              how many lists have a document at that position;
    mean_label         mean of max(rel, 0), unjudged documents counting 0 (what CG adds up);
    mean_gain          mean gain (the `gain` setting; unjudged and rel <= 0: 0);
    share_relevant     share with rel >= threshold;
    share_judged       share with a judgment (rel >= 0; a negative label means judged unusable);
    mean_judged_label  mean label of the judged documents only (NULL when none is judged there).
  The ranking is evaluate's: score descending, equal scores by doc id descending in byte order (ties='doc_id'),
  the run's rank (ties='rank'), or tied documents sharing their mean values (ties='average'). It is built from
  the same spec, facts and plan (spec.sql, plan.sql) and the same run and judgment rows (per_query.sql).

    {{ sqlndcg.positions(run=ref('rankings'), judgments=ref('judgments'), k=10, group_by=['system']) }}
-#}

{%- macro _positions_settings() -%}
{{ return(['group_by', 'gain', 'ties', 'lower_is_better', 'threshold', 'query_id', 'doc_id', 'score', 'rank', 'rel',
           'judgments_query_id', 'judgments_doc_id']) }}
{%- endmacro -%}

{%- macro _positions_outputs() -%}
{{ return(['position', 'lists', 'mean_label', 'mean_gain', 'share_relevant', 'share_judged', 'mean_judged_label']) }}
{%- endmacro -%}

{#- run and judgments described as {sql, label, columns}, k and the settings -> the plan. -#}
{%- macro _positions_plan(run, judgments, k, given) -%}
{%- set allowed = sqlndcg._positions_settings() -%}
{%- for key in given if key not in allowed -%}
  {{ sqlndcg._fail('setting', 'positions: unknown setting ' ~ sqlndcg._show(key) ~ '; its settings are k, ' ~ (allowed | join(', '))) }}
{%- endfor -%}
{%- if k is not integer or k < 1 or k > 10000 -%}
  {{ sqlndcg._fail('setting', 'positions: k must be a whole number from 1 to 10000 (the deepest position shown), got ' ~ sqlndcg._show(k)) }}
{%- endif -%}
{%- set spec = sqlndcg._spec(['ndcg@' ~ k], given) -%}
{%- set facts = sqlndcg._facts(spec, run, judgments) -%}
{%- set p = sqlndcg._plan(facts) -%}
{{ sqlndcg._judgment_distinct_outputs('positions', spec.group_by + sqlndcg._positions_outputs()) }}
{%- set recorded = {} -%}
{%- for key, value in p.settings.items() if key in ['gain', 'ties', 'lower_is_better', 'threshold', 'group_by', 'columns', 'ranked_by', 'ignored_column'] -%}
  {%- do recorded.update({key: value}) -%}
{%- endfor -%}
{%- do recorded.update({'k': k}) -%}
{{ return({
  'base': p,
  'k': k,
  'threshold': facts.spec.threshold,
  'run_checks': sqlndcg._input_checks('run', facts.spec, run.columns),
  'judgment_checks': sqlndcg._input_checks('judgments', facts.spec, judgments.columns, facts.shared_groups),
  'settings': recorded,
}) }}
{%- endmacro -%}

{%- macro _positions_sql(pp) -%}
{%- set p = pp.base -%}
{%- set d = sqlndcg.double() -%}
{%- set first, last = sqlndcg.nulls('FIRST'), sqlndcg.nulls('LAST') -%}
{%- set direction = ('DESC' ~ last) if sqlndcg._descending(p) else ('ASC' ~ first) -%}
{%- set average = p.ties == 'average' -%}
{%- set groups = p.groups -%}
{%- set shared = p.groups | selectattr('shared') | list -%}
{%- set g_cols %}{% for g in groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set s_cols %}{% for g in shared %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set values = ['_label', '_gain', '_relevant', '_judged', '_judged_label'] -%}
WITH _run_rows AS (
  {{ sqlndcg._run_rows(p) }}
),
_ranked AS (
  SELECT {{ g_cols }}_q, _d, _key,
    ROW_NUMBER() OVER (PARTITION BY {{ g_cols }}_q ORDER BY _key {{ direction }}, {{ sqlndcg._tie_doc(p) }} DESC) AS _pos
  FROM _run_rows
),
_judgment_rows AS (
  {{ sqlndcg._judgment_rows(p) }}
),
_labels AS (
  SELECT {{ s_cols }}_q, _d,
    CASE WHEN _rel > 0 THEN _rel ELSE 0 END AS _label,
    {{ sqlndcg._gain('_rel', p) }} AS _gain,
    CASE WHEN _rel >= {{ sqlndcg._number(pp.threshold) }} THEN 1 ELSE 0 END AS _relevant,
    CASE WHEN _rel >= 0 THEN 1 ELSE 0 END AS _judged,
    CASE WHEN _rel >= 0 THEN _rel ELSE 0 END AS _judged_label
  FROM _judgment_rows
),
_judged_queries AS (
  SELECT DISTINCT {{ s_cols }}_q FROM _labels
),
_scored AS (
  {#- Only lists whose query has judgments; an unjudged document reads 0 everywhere (COALESCE: some engines fill
      unmatched outer-join columns with 0 rather than NULL, which is the same here). #}
  SELECT
    {%- for g in groups %}
    r.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    r._q AS _q, r._key AS _key, r._pos AS _pos,
    {%- for v in values %}
    CAST(COALESCE(l.{{ v }}, 0) AS {{ d }}) AS {{ v }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM _ranked AS r
  JOIN _judged_queries AS jq
    ON jq._q = r._q{% for g in shared %} AND jq.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  LEFT JOIN _labels AS l
    ON l._q = r._q AND l._d = r._d{% for g in shared %} AND l.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
),
_valued AS (
  SELECT {{ g_cols }}_q, _pos,
    {%- for v in values %}
    {% if average %}AVG({{ v }}) OVER (PARTITION BY {{ g_cols }}_q, _key){% else %}{{ v }}{% endif %} AS {{ v }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM _scored
)
SELECT
  {%- for g in groups %}
  {{ g.alias }} AS {{ g.output }},
  {%- endfor %}
  _pos AS {{ sqlndcg._quote('position') }},
  COUNT(*) AS {{ sqlndcg._quote('lists') }},
  AVG(_label) AS {{ sqlndcg._quote('mean_label') }},
  AVG(_gain) AS {{ sqlndcg._quote('mean_gain') }},
  AVG(_relevant) AS {{ sqlndcg._quote('share_relevant') }},
  AVG(_judged) AS {{ sqlndcg._quote('share_judged') }},
  CASE WHEN SUM(_judged) > 0 THEN SUM(_judged_label) / SUM(_judged) ELSE {{ sqlndcg.null_double() }} END AS {{ sqlndcg._quote('mean_judged_label') }}
FROM _valued
WHERE _pos <= {{ pp.k }}
GROUP BY {{ g_cols }}_pos
ORDER BY {{ g_cols }}_pos
{%- endmacro -%}

{#- dbt entry point. -#}
{%- macro positions(run=none, judgments=none, k=10) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set pp = sqlndcg._positions_plan(sqlndcg._input_relation('run', run), sqlndcg._input_relation('judgments', judgments), k, kwargs) -%}
{{ return(sqlndcg._positions_sql(pp)) }}
{%- endmacro -%}
