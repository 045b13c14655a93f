{#-
  Beyond-accuracy measures of recommendation lists (docs/beyond.md, "Beyond accuracy: catalog measures"), per
  group of the run (a system, a week, ...), from the run (query_id: the list, e.g. a user; doc_id: the item; score)
  and an items table (the catalog: doc_id, and a category and a popularity column where a measure reads them).
  Each list is ranked as evaluate ranks it (score descending, equal scores by item id descending) and cut at k; a
  shorter list keeps what it has. With m the items of a list's top k, n the items of the catalog:
    coverage@k  = |items in any top k of the group| / n                              (Ge et al., RecSys 2010)
    gini@k      = sum_i (2i - n - 1) x_(i) / (n sum_i x_i), x_i the lists of the group with item i in their top k,
                  over every catalog item (0 for those never shown), sorted ascending (Fleder and Hosanagar 2009)
    novelty@k   = per list, the mean of -log2 p(i) over its top k, p(i) = popularity(i) / sum over the catalog
                  (Zhou et al., PNAS 2010; Vargas and Castells, RecSys 2011)
    ild@k       = per list, the share of the pairs of its top k whose categories differ (Ziegler et al., WWW 2005);
                  NULL for a list of fewer than 2 items
    long_tail@k = per list, the share of its top k outside the short head, the round(head_share * n) most
                  popular catalog items (Abdollahpouri, Burke and Mobasher, RecSys 2017: APLT)
  Per-list measures are averaged over the group's lists (ild over those with 2 items or more) with the package's
  95% t interval; coverage and gini are values of the group. Sums of doubles run in a fixed order where the engine
  can (sqlndcg.ordered): DuckDB gives the same bits whatever its threads. Counts are exact integers and every ratio one
  division of them (ild, long_tail, coverage, gini): the same bits on every engine.
-#}

{%- macro _beyond_declared() -%}
{{ return({'metrics': none, 'group_by': [], 'head_share': 0.2, 'query_id': 'query_id', 'doc_id': 'doc_id',
           'score': 'score', 'category': 'category', 'popularity': 'popularity'}) }}
{%- endmacro -%}

{#- The measures: name -> (per list, reads). -#}
{%- macro _beyond_kinds() -%}
{{ return({'coverage': [false, none], 'gini': [false, none], 'novelty': [true, 'popularity'],
           'ild': [true, 'category'], 'long_tail': [true, 'popularity']}) }}
{%- endmacro -%}

{#- Whether a metric name is one of these measures (evaluate hands a list of them all to beyond_accuracy). -#}
{%- macro _beyond_is_metric(name) -%}
{{ return(name is string and (name | lower).split('@')[0] in sqlndcg._beyond_kinds()) }}
{%- endmacro -%}

{#- A metric name -> {name, kind, k, per_list, reads}; unknown names and missing or bad cutoffs are errors. -#}
{%- macro _beyond_metric(name) -%}
{%- if name is not string -%}{{ sqlndcg._fail('metric', 'beyond_accuracy: a metric is a name such as coverage@10, got ' ~ sqlndcg._show(name)) }}{%- endif -%}
{%- set parts = (name | lower).split('@') -%}
{%- set kinds = sqlndcg._beyond_kinds() -%}
{%- if parts[0] not in kinds or (parts | length) > 2 -%}
  {{ sqlndcg._fail('metric', 'beyond_accuracy: unknown metric ' ~ sqlndcg._show(name) ~ '; the beyond-accuracy measures are ' ~ (kinds.keys() | join(', ')) ~ ', each with a cutoff (coverage@10, ...)') }}
{%- endif -%}
{%- if (parts | length) < 2 or not parts[1].isdigit() or parts[1] | int < 1 -%}
  {{ sqlndcg._fail('metric', 'beyond_accuracy: ' ~ sqlndcg._show(name) ~ ' needs a cutoff, a whole number 1 or more: the top k of each list it reads, e.g. ' ~ parts[0] ~ '@10') }}
{%- endif -%}
{%- set k = parts[1] | int -%}
{{ return({'name': parts[0] ~ '@' ~ k, 'kind': parts[0], 'k': k, 'per_list': kinds[parts[0]][0], 'reads': kinds[parts[0]][1]}) }}
{%- endmacro -%}

{#- The run and the items (inputs described as {sql, label, columns}) and the settings -> the plan. -#}
{%- macro _beyond_plan(run, items, given) -%}
{%- set s = sqlndcg._judgment_settings('beyond_accuracy', sqlndcg._beyond_declared(), given) -%}
{%- if s.head_share is not number or s.head_share is boolean or not (0 < s.head_share < 1) -%}
  {{ sqlndcg._fail('setting', 'beyond_accuracy: head_share must be a number between 0 and 1 (the share of the catalog, by popularity, that is the short head), got ' ~ sqlndcg._show(s.head_share)) }}
{%- endif -%}
{%- set names = [s.metrics] if s.metrics is string else (s.metrics or []) -%}
{%- if not names -%}{{ sqlndcg._fail('metric', 'beyond_accuracy: no metric asked for; choose from coverage@k, gini@k, novelty@k, ild@k, long_tail@k') }}{%- endif -%}
{%- set metrics, seen = [], [] -%}
{%- for name in names -%}
  {%- set m = sqlndcg._beyond_metric(name) -%}
  {%- if m.name not in seen -%}{%- do metrics.append(m) -%}{%- do seen.append(m.name) -%}{%- endif -%}
{%- endfor -%}
{%- set ns = namespace(lists=0, system=0) -%}
{%- for m in metrics -%}
  {%- if m.per_list %}{% do m.update({'slot': ns.lists}) %}{% set ns.lists = ns.lists + 1 %}
  {%- else %}{% do m.update({'slot': ns.system}) %}{% set ns.system = ns.system + 1 %}{% endif -%}
{%- endfor -%}
{%- set reads = metrics | map(attribute='reads') | select | unique | list -%}
{%- set groups = sqlndcg._judgment_groups(s.group_by) -%}
{%- for key in ['query_id', 'doc_id', 'score', 'category', 'popularity'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set needed = [('query id', s.query_id, 'query_id'), ('item id', s.doc_id, 'doc_id'), ('score', s.score, 'score')] -%}
{%- for g in groups %}{% do needed.append(('group', g, 'group_by')) %}{% endfor -%}
{{ sqlndcg._judgment_require_columns(run, needed) }}
{%- set item_needed = [('item id', s.doc_id, 'doc_id')] -%}
{%- for r in reads %}{% do item_needed.append((r, s[r], r)) %}{% endfor -%}
{{ sqlndcg._judgment_require_columns(items, item_needed) }}
{{ sqlndcg._judgment_require_types(run, [s.score], [s.query_id, s.doc_id]) }}
{{ sqlndcg._judgment_require_types(items, [s.popularity] if 'popularity' in reads else [], [s.doc_id]) }}
{%- set checks = [] -%}
{%- for name in groups + [s.query_id, s.doc_id, s.score] %}{% do checks.append(sqlndcg._judgment_check('null', name, 'is NULL')) %}{% endfor -%}
{%- do checks.append(sqlndcg._judgment_check('not_finite', s.score, 'is not a finite number')) -%}
{%- set item_checks = [sqlndcg._judgment_check('null', s.doc_id, 'is NULL')] -%}
{%- if 'category' in reads %}{% do item_checks.append(sqlndcg._judgment_check('null', s.category, 'is NULL (ild reads one category per item)')) %}{% endif -%}
{%- if 'popularity' in reads -%}
  {%- do item_checks.append(sqlndcg._judgment_check('null', s.popularity, 'is NULL')) -%}
  {%- do item_checks.append(sqlndcg._judgment_check('outside', s.popularity, 'is not a positive number (novelty takes -log2 of each item\'s share of the interactions)', [0, false, none])) -%}
{%- endif -%}
{%- set doc_text = sqlndcg._judgment_ids_as_text([(run, s.doc_id), (items, s.doc_id)]) -%}
{{ return({
  'run': run.sql, 'item_input': items.sql, 'metrics': metrics, 'reads': reads, 'head_share': s.head_share,
  'groups': sqlndcg._beyond_quoted(groups), 'group_names': groups,
  'depth': metrics | map(attribute='k') | max,
  'query_id': sqlndcg._quote(s.query_id), 'doc_id': sqlndcg._quote(s.doc_id), 'score': sqlndcg._quote(s.score),
  'category': sqlndcg._quote(s.category), 'popularity': sqlndcg._quote(s.popularity),
  'query_ids_as_text': sqlndcg._judgment_ids_as_text([(run, s.query_id)]), 'doc_ids_as_text': doc_text,
  'run_doc_ids_integer': sqlndcg._column_of(run.columns, s.doc_id).class == 'integer',
  'run_checks': checks, 'run_identity': groups + [s.query_id, s.doc_id],
  'item_checks': item_checks, 'item_identity': [s.doc_id],
  'settings': {'metrics': metrics | map(attribute='name') | list, 'group_by': groups, 'head_share': s.head_share,
               'columns': {'query_id': s.query_id, 'doc_id': s.doc_id, 'score': s.score, 'category': s.category,
                           'popularity': s.popularity}},
}) }}
{%- endmacro -%}

{%- macro _beyond_quoted(names) -%}
{%- set out = [] -%}{%- for n in names %}{% do out.append(sqlndcg._quote(n)) %}{% endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- `_g0, _g1, ` (with a prefix, e.g. 'r.', and `named`: each AS its name, as ClickHouse needs): the group keys, each followed by a comma. -#}
{%- macro _beyond_keys(p, prefix='', named=false) -%}
{%- for g in p.groups %}{{ prefix }}_g{{ loop.index0 }}{% if named %} AS _g{{ loop.index0 }}{% endif %}, {% endfor -%}
{%- endmacro -%}

{%- macro _beyond_on(p, a, b) -%}
{%- for g in p.groups %} AND {{ a }}._g{{ loop.index0 }} = {{ b }}._g{{ loop.index0 }}{% endfor -%}
{%- endmacro -%}

{#- The lists ranked and cut at the largest k (_run: group keys _g0.., _q, _d, _pos) and the catalog (_items: _d,
    _c its category, _p its share of the interactions, _tail 1 outside the short head). -#}
{%- macro _beyond_inputs(p) -%}
{%- set tie = sqlndcg._tie_doc({'doc_ids_as_text': p.doc_ids_as_text, 'run_doc_ids_integer': p.run_doc_ids_integer}) -%}
{%- set d = sqlndcg.double() -%}
_run AS (
  SELECT {{ sqlndcg._beyond_keys(p) }}_q, _d, _pos FROM (
    SELECT {{ sqlndcg._beyond_keys(p) }}_q, _d, ROW_NUMBER() OVER (PARTITION BY {{ sqlndcg._beyond_keys(p) }}_q ORDER BY {{ sqlndcg._rank_order('_key', tie, true) }}) AS _pos
    FROM (
      SELECT {% for g in p.groups %}{{ g }} AS _g{{ loop.index0 }}, {% endfor %}{{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q,
        {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ p.score }} AS _key
      FROM {{ p.run }} AS run_input
    ) AS run_rows
  ) AS run_ranked
  WHERE _pos <= {{ p.depth }}
),
{{ sqlndcg._beyond_catalog(p) }}
_items AS (
  SELECT c._d AS _d
    {%- if 'category' in p.reads %}, c._c AS _c{% endif %}
    {%- if 'popularity' in p.reads %},
    c._pop / t._total AS _p,
    CASE WHEN ROW_NUMBER() OVER (ORDER BY c._pop DESC, {{ sqlndcg._tie_doc({'doc_ids_as_text': p.doc_ids_as_text, 'run_doc_ids_integer': false}, 'c._d') }} DESC) > FLOOR({{ sqlndcg._number(p.head_share) }} * t._n + 0.5) THEN 1 ELSE 0 END AS _tail
    {%- endif %}
  FROM _catalog AS c
  {%- if 'popularity' in p.reads %}
  CROSS JOIN (SELECT SUM(_pop) AS _total, COUNT(*) AS _n FROM _catalog) AS t
  {%- endif %}
),
{%- endmacro -%}

{%- macro _beyond_catalog(p) -%}
_catalog AS (
  SELECT {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d
    {%- if 'category' in p.reads %}, {{ sqlndcg._id(p.category, true) }} AS _c{% endif %}
    {%- if 'popularity' in p.reads %}, CAST({{ p.popularity }} AS {{ sqlndcg.double() }}) AS _pop{% endif %}
  FROM {{ p.item_input }} AS item_input
),
{%- endmacro -%}

{#- Items of the run the items table lacks: how many, and a few of them (the smallest) to name in the error. -#}
{%- macro _beyond_missing_sql(p, shown=5) -%}
WITH {{ sqlndcg._beyond_catalog(p) }}
_recommended AS (
  SELECT DISTINCT {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d FROM {{ p.run }} AS run_input
),
_missing AS (
  SELECT r._d AS _d FROM {{ sqlndcg.unmatched_rows('_recommended', 'r', '_catalog', 'c', 'c._d = r._d') }}
)
SELECT _d, (SELECT COUNT(*) FROM _missing) AS _count FROM _missing ORDER BY _d LIMIT {{ shown }}
{%- endmacro -%}

{#- `GROUP BY` the group keys (with a prefix) and `extra`, or nothing when there is neither. -#}
{%- macro _beyond_group_by(p, prefix='', extra='') -%}
{%- set keys = [] -%}{%- for g in p.groups %}{% do keys.append(prefix ~ '_g' ~ loop.index0) %}{% endfor -%}
{%- if extra %}{% do keys.append(extra) %}{% endif -%}
{{ return('GROUP BY ' ~ keys | join(', ') if keys else '') }}
{%- endmacro -%}

{#- Per list (group keys, _q) each per-list measure, as _v0, _v1, ... in the order of the plan's metrics. -#}
{%- macro _beyond_lists(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set ks = p.metrics | selectattr('kind', 'equalto', 'ild') | map(attribute='k') | unique | list -%}
{%- if ks %}
_categories AS (
  SELECT {{ sqlndcg._beyond_keys(p, 'r.', true) }}r._q AS _q, i._c AS _c
    {%- for k in ks %}, SUM(CASE WHEN r._pos <= {{ k }} THEN 1 ELSE 0 END) AS _n{{ k }}{% endfor %}
  FROM _run AS r JOIN _items AS i ON i._d = r._d
  {{ sqlndcg._beyond_group_by(p, 'r.', 'r._q, i._c') }}
),
_pairs AS (
  SELECT {{ sqlndcg._beyond_keys(p) }}_q
    {%- for k in ks %}, SUM(_n{{ k }}) AS _m{{ k }}, SUM(_n{{ k }} * (_n{{ k }} - 1)) AS _same{{ k }}{% endfor %}
  FROM _categories {{ sqlndcg._beyond_group_by(p, '', '_q') }}
),
{%- endif %}
_lists AS (
  SELECT {{ sqlndcg._beyond_keys(p, 'r.', true) }}r._q AS _q
    {%- for m in p.metrics if m.per_list %},
    {%- if m.kind == 'novelty' %}
    {{ sqlndcg.ordered('AVG', 'CASE WHEN r._pos <= ' ~ m.k ~ ' THEN -' ~ sqlndcg._log2('i._p') ~ ' END', 'r._pos') }} AS _v{{ m.slot }}
    {%- elif m.kind == 'long_tail' %}
    CAST(SUM(CASE WHEN r._pos <= {{ m.k }} THEN i._tail ELSE 0 END) AS {{ d }}) / CAST(SUM(CASE WHEN r._pos <= {{ m.k }} THEN 1 ELSE 0 END) AS {{ d }}) AS _v{{ m.slot }}
    {%- else %}
    MAX(CASE WHEN pr._m{{ m.k }} >= 2 THEN CAST(pr._m{{ m.k }} * (pr._m{{ m.k }} - 1) - pr._same{{ m.k }} AS {{ d }}) / CAST(pr._m{{ m.k }} * (pr._m{{ m.k }} - 1) AS {{ d }}) END) AS _v{{ m.slot }}
    {%- endif %}
    {%- endfor %}
  FROM _run AS r JOIN _items AS i ON i._d = r._d
  {%- if ks %}
  JOIN _pairs AS pr ON pr._q = r._q{{ sqlndcg._beyond_on(p, 'pr', 'r') }}
  {%- endif %}
  {{ sqlndcg._beyond_group_by(p, 'r.', 'r._q') }}
)
{%- endmacro -%}

{#- Per group, each system-level measure as _s0, _s1, ... (coverage and gini, by the plan's metrics' order). -#}
{%- macro _beyond_system(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set ginis = p.metrics | selectattr('kind', 'equalto', 'gini') | map(attribute='k') | unique | list -%}
_groups AS (
  SELECT {{ sqlndcg._beyond_keys(p) }}COUNT(DISTINCT _q) AS _lists
    {%- for k in p.metrics | selectattr('kind', 'equalto', 'coverage') | map(attribute='k') | unique %},
    COUNT(DISTINCT CASE WHEN _pos <= {{ k }} THEN _d END) AS _cov{{ k }}
    {%- endfor %}
  FROM _run {{ sqlndcg._beyond_group_by(p) }}
),
_n AS (
  SELECT COUNT(*) AS _n FROM _items
),
{%- if ginis %}
_exposure AS (
  SELECT {{ sqlndcg._beyond_keys(p) }}_d{% for k in ginis %}, SUM(CASE WHEN _pos <= {{ k }} THEN 1 ELSE 0 END) AS _x{{ k }}{% endfor %}
  FROM _run {{ sqlndcg._beyond_group_by(p, '', '_d') }}
),
_sorted AS (
  SELECT {{ sqlndcg._beyond_keys(p, 'g.', true) }}i._d AS _d
    {%- for k in ginis %}, COALESCE(e._x{{ k }}, 0) AS _x{{ k }},
    ROW_NUMBER() OVER ({% if p.groups %}PARTITION BY {{ sqlndcg._beyond_keys(p, 'g.')[:-2] }} {% endif %}ORDER BY COALESCE(e._x{{ k }}, 0)) AS _i{{ k }}{% endfor %}
  FROM _groups AS g CROSS JOIN _items AS i
  LEFT JOIN _exposure AS e ON e._d = i._d{{ sqlndcg._beyond_on(p, 'e', 'g') }}
),
_gini AS (
  SELECT {{ sqlndcg._beyond_keys(p, 's.', true) }}n._n AS _n
    {%- for k in ginis %},
    SUM((2 * CAST(s._i{{ k }} AS {{ d }}) - n._n - 1) * s._x{{ k }}) / CAST(n._n * SUM(s._x{{ k }}) AS {{ d }}) AS _gini{{ k }}
    {%- endfor %}
  FROM _sorted AS s CROSS JOIN _n AS n
  {{ sqlndcg._beyond_group_by(p, 's.', 'n._n') }}
),
{%- endif %}
_system AS (
  SELECT {{ sqlndcg._beyond_keys(p, 'g.', true) }}g._lists AS _lists
    {%- for m in p.metrics if not m.per_list %},
    {%- if m.kind == 'coverage' %}
    CAST(g._cov{{ m.k }} AS {{ d }}) / CAST(n._n AS {{ d }}) AS _s{{ m.slot }}
    {%- else %}
    gi._gini{{ m.k }} AS _s{{ m.slot }}
    {%- endif %}
    {%- endfor %}
  FROM _groups AS g CROSS JOIN _n AS n
  {%- if ginis %}
  JOIN _gini AS gi ON 1 = 1{{ sqlndcg._beyond_on(p, 'gi', 'g') }}
  {%- endif %}
)
{%- endmacro -%}

{#- The per-list table: group columns, query_id and one column per per-list measure, by group and list. -#}
{%- macro _beyond_sql(p) -%}
WITH {{ sqlndcg._beyond_inputs(p) }}
{{ sqlndcg._beyond_lists(p) }}
SELECT
  {%- for g in p.groups %}
  l._g{{ loop.index0 }} AS {{ g }},
  {%- endfor %}
  l._q AS {{ p.query_id }}
  {%- for m in p.metrics if m.per_list %},
  l._v{{ m.slot }} AS {{ sqlndcg._quote(m.name) }}
  {%- endfor %}
FROM _lists AS l
ORDER BY {{ sqlndcg._beyond_keys(p, 'l.') }}l._q
{%- endmacro -%}

{#- Half the width of the 95% t interval of a mean of `n` values whose squared deviations sum to `ss`. -#}
{%- macro _beyond_half(n, ss) -%}
{{ return('CASE WHEN ' ~ n ~ ' >= 2 THEN ' ~ sqlndcg._t975(n ~ ' - 1') ~ ' * SQRT(' ~ ss ~ ' / (' ~ n ~ ' - 1)) / SQRT(CAST(' ~ n ~ ' AS ' ~ sqlndcg.double() ~ ')) END') }}
{%- endmacro -%}

{#- The summary: per group, the lists, then per measure its value: per-list measures their mean over the lists
    (ild over those of 2 items or more) with <name>_ci_low and <name>_ci_high, coverage and gini the group's. -#}
{%- macro _beyond_summary_sql(p) -%}
{%- set per_list = p.metrics | selectattr('per_list') | list -%}
WITH {{ sqlndcg._beyond_inputs(p) }}
{{ sqlndcg._beyond_lists(p) }},
_means AS (
  SELECT {{ sqlndcg._beyond_keys(p) }}COUNT(*) AS _count
    {%- for m in per_list %}, {{ sqlndcg.ordered('AVG', '_v' ~ m.slot, '_q') }} AS _mean{{ m.slot }}, COUNT(_v{{ m.slot }}) AS _c{{ m.slot }}{% endfor %}
  FROM _lists {{ sqlndcg._beyond_group_by(p) }}
),
_spread AS (
  SELECT {{ sqlndcg._beyond_keys(p, 'l.', true) }}COUNT(*) AS _count
    {%- for m in per_list %}, {{ sqlndcg.ordered('SUM', '(l._v' ~ m.slot ~ ' - mn._mean' ~ m.slot ~ ') * (l._v' ~ m.slot ~ ' - mn._mean' ~ m.slot ~ ')', 'l._q') }} AS _ss{{ m.slot }}{% endfor %}
  FROM _lists AS l JOIN _means AS mn ON 1 = 1{{ sqlndcg._beyond_on(p, 'mn', 'l') }}
  {{ sqlndcg._beyond_group_by(p, 'l.') }}
),
{{ sqlndcg._beyond_system(p) }}
SELECT
  {%- for g in p.groups %}
  s._g{{ loop.index0 }} AS {{ g }},
  {%- endfor %}
  s._lists AS {{ sqlndcg._quote('lists') }}
  {%- for m in p.metrics %},
  {%- if m.per_list %}
  {%- set h = sqlndcg._beyond_half('mn._c' ~ m.slot, 'sp._ss' ~ m.slot) %}
  mn._mean{{ m.slot }} AS {{ sqlndcg._quote(m.name) }},
  mn._mean{{ m.slot }} - {{ h }} AS {{ sqlndcg._quote(m.name ~ '_ci_low') }},
  mn._mean{{ m.slot }} + {{ h }} AS {{ sqlndcg._quote(m.name ~ '_ci_high') }}
  {%- else %}
  s._s{{ m.slot }} AS {{ sqlndcg._quote(m.name) }}
  {%- endif %}
  {%- endfor %}
FROM _system AS s
LEFT JOIN _means AS mn ON 1 = 1{{ sqlndcg._beyond_on(p, 'mn', 's') }}
LEFT JOIN _spread AS sp ON 1 = 1{{ sqlndcg._beyond_on(p, 'sp', 's') }}
ORDER BY {{ sqlndcg._beyond_keys(p, 's.') }}s._lists
{%- endmacro -%}

{#- dbt entry point: per group the beyond-accuracy measures of a run (per_list=true: per list) from an items table. -#}
{%- macro beyond_accuracy(run=none, items=none, per_list=false) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set p = sqlndcg._beyond_plan(sqlndcg._input_relation('run', run), sqlndcg._input_relation('items', items), kwargs) -%}
{{ return(sqlndcg._beyond_sql(p) if per_list else sqlndcg._beyond_summary_sql(p)) }}
{%- endmacro -%}
