{#-
  How different two systems' rankings are, with no labels: per (group, query) each system's list against the
  baseline's (one run, a system column telling the systems apart), ranked as evaluate ranks a run (score
  descending, equal scores by doc id descending; or the rank column, 1 first).

    {{ sqlndcg.overlap(run=ref('rankings'), system='system', baseline='bm25', metrics=['rbo@10', 'jaccard@10'], p=0.9) }}

  With A and B the two lists, A_d and B_d their first d documents (all of a list shorter than d: the prefixes that
  exist, as in the paper's lists of uneven lengths) and X_d = |A_d n B_d| (Webber, Moffat & Zobel, A similarity
  measure for indefinite rankings, TOIS 2010):
    rbo@k      (1 - p) sum_{d=1..k} p^(d-1) X_d / d                                            (the paper's eq. 11)
    rbo_ext@k  the paper's extrapolation from lists cut at k: s <= l their lengths,
               (1 - p)/p [sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d - s)/(s d) p^d] + [(X_l - X_s)/l + X_s/s] p^l
               (eq. 32; with s = l, eq. 30: X_k/k p^k + (1 - p)/p sum_{d=1..k} X_d/d p^d). 1 for equal lists.
    jaccard@k  |A_k n B_k| / |A_k u B_k|
  Without @k the whole lists (rbo sums to the longer list's length l). short_lists='truncate' computes every measure
  at n = min(k, |A|, |B|) instead: both lists cut to the depth both reach. A query that one side lacks scores 0 and
  is counted (account). docs/beyond.md explains each measure.

  In SQL: X_d per depth d (1 to the longer list's length within the deepest k) is a running count of the common
  documents by the depth max(rank in A, rank in B) at which each enters both prefixes; every measure is then one sum
  over those rows. P(k) = sum_{d=1..k} p^d / d, which rbo@k needs beyond the lists' ends, is a constant Jinja adds up.
-#}

{%- macro _overlap_declared() -%}
{{ return({'metrics': ['rbo@10', 'jaccard@10'], 'p': 0.9, 'system': 'system', 'baseline': none, 'group_by': [],
           'ties': 'doc_id', 'short_lists': 'pad', 'lower_is_better': false, 'id_order': 'native',
           'query_id': 'query_id', 'doc_id': 'doc_id', 'score': 'score', 'rank': none}) }}
{%- endmacro -%}

{#- The per-query table's columns after the metrics, and the account's after the group, system and baseline. -#}
{%- macro _overlap_columns() -%}
{{ return({'lengths': ['length', 'baseline_length'],
           'account': ['queries', 'in_both', 'only_in_baseline', 'only_in_system', 'short_lists', 'baseline_short_lists']}) }}
{%- endmacro -%}

{#- Metric names -> [{name, kind, k (none: whole lists), column}]: rbo@k, rbo_ext@k, jaccard@k (k from 1 to 1000),
    or rbo, rbo_ext, jaccard. -#}
{%- macro _overlap_metrics(names) -%}
{%- set kinds = ['rbo', 'rbo_ext', 'jaccard'] -%}
{%- set names = [names] if names is string else names -%}
{%- if names is none or names is mapping or names is not sequence or not names -%}
  {{ sqlndcg._fail('metric', "overlap: metrics= lists the measures, e.g. ['rbo@10', 'rbo_ext@10', 'jaccard@10'], got " ~ sqlndcg._show(names)) }}
{%- endif -%}
{%- set out, seen = [], [] -%}
{%- for raw in names -%}
  {%- set name = (raw | trim | lower) if raw is string else '' -%}
  {%- set kind, at, k = name.partition('@') -%}
  {%- if kind not in kinds or (at and (k == '' or k.strip('0123456789') != '')) -%}
    {%- set close = sqlndcg._closest(kind, kinds) if raw is string else [] -%}
    {{ sqlndcg._fail('metric', 'overlap: unknown metric ' ~ sqlndcg._show(raw) ~ ';' ~ sqlndcg._did_you_mean(close) ~ ' the overlap measures are rbo@k, rbo_ext@k and jaccard@k (k a whole number from 1 to 1000), or rbo, rbo_ext and jaccard for whole lists') }}
  {%- endif -%}
  {%- set k = (k | int) if at else none -%}
  {%- if at and (k < 1 or k > 1000) -%}
    {{ sqlndcg._fail('metric', 'overlap: metric ' ~ sqlndcg._show(raw) ~ ': k must be a whole number from 1 to 1000') }}
  {%- endif -%}
  {%- set canonical = kind ~ ('@' ~ k if at else '') -%}
  {%- if canonical in seen -%}
    {{ sqlndcg._fail('metric', 'overlap: metric ' ~ sqlndcg._show(canonical) ~ ' is asked for twice') }}
  {%- endif -%}
  {%- do seen.append(canonical) -%}
  {%- do out.append({'name': canonical, 'kind': kind, 'k': k, 'column': sqlndcg._quote(canonical)}) -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- The settings other than the columns, checked: p, ties, short_lists, lower_is_better, id_order. -#}
{%- macro _overlap_options(s) -%}
{%- if not sqlndcg._is_real(s.p) or s.p <= 0 or s.p >= 1 -%}
  {{ sqlndcg._fail('setting', 'p must be a number between 0 and 1, both excluded (the persistence of rank-biased overlap: the chance of reading on to the next position; the expected depth read is 1 / (1 - p), 10 for p = 0.9), got ' ~ sqlndcg._show(s.p)) }}
{%- endif -%}
{%- if s.ties == 'average' -%}
  {{ sqlndcg._fail('setting', "overlap: ties='average' averages gains over tied positions, and overlap has no gains; use ties='doc_id' (equal scores ordered by doc id descending) or ties='rank' (the run's rank column as given)") }}
{%- endif -%}
{%- set ties = sqlndcg._choice('ties', s.ties, ['doc_id', 'rank']) -%}
{%- if ties == 'rank' and s.rank is none -%}
  {{ sqlndcg._fail('setting', "overlap: ties='rank' ranks each list by the run's rank column: name it with rank=") }}
{%- endif -%}
{%- if sqlndcg._flag('lower_is_better', s.lower_is_better) and s.rank is not none -%}
  {{ sqlndcg._fail('setting', 'overlap: lower_is_better=True ranks the score from its lowest value, but rank=' ~ sqlndcg._show(s.rank) ~ ' ranks the lists (1 is best); leave one of them out') }}
{%- endif -%}
{{ return({'p': s.p | float, 'ties': ties, 'short_lists': sqlndcg._choice('short_lists', s.short_lists, ['pad', 'truncate']),
           'lower_is_better': s.lower_is_better, 'id_order': sqlndcg._choice('id_order', s.id_order, ['native', 'text'])}) }}
{%- endmacro -%}

{#- The baseline as SQL in the system column's type: {compare: the value as the ids compare, shown: the output value}. -#}
{%- macro _overlap_baseline(value, column, label) -%}
{%- if value is none -%}
  {{ sqlndcg._fail('setting', 'overlap needs baseline=: the system the others are compared with, a value of the system column ' ~ sqlndcg._show(column.name) ~ ' of ' ~ label) }}
{%- endif -%}
{%- if column.class == 'integer' -%}
  {%- if value is not integer or value is boolean -%}
    {{ sqlndcg._fail('setting', 'overlap: the system column ' ~ sqlndcg._show(column.name) ~ ' of ' ~ label ~ ' holds integers, so baseline= must be one, got ' ~ sqlndcg._show(value)) }}
  {%- endif -%}
  {{ return({'compare': value | string, 'shown': 'CAST(' ~ value ~ ' AS ' ~ sqlndcg.integer_type() ~ ')', 'value': value}) }}
{%- endif -%}
{%- if (value is not string and (value is not integer or value is boolean)) or value == '' -%}
  {{ sqlndcg._fail('setting', 'overlap: baseline= names a system, a value of the column ' ~ sqlndcg._show(column.name) ~ ', got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{%- set text = value | string -%}
{{ return({'compare': sqlndcg._id(sqlndcg.text_literal(text), true), 'shown': 'CAST(' ~ sqlndcg.text_literal(text) ~ ' AS ' ~ sqlndcg.text_type() ~ ')', 'value': text}) }}
{%- endmacro -%}

{#- The run (described as {sql, label, columns}) and the settings given -> the plan. -#}
{%- macro _overlap_plan(run, given) -%}
{%- set s = sqlndcg._judgment_settings('overlap', sqlndcg._overlap_declared(), given) -%}
{%- set metrics = sqlndcg._overlap_metrics(s.metrics) -%}
{%- set o = sqlndcg._overlap_options(s) -%}
{%- for key in ['system', 'query_id', 'doc_id'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set by_rank = s.rank is not none -%}
{%- set key = sqlndcg._column_name('rank', s.rank) if by_rank else sqlndcg._column_name('score', s.score) -%}
{%- set groups = sqlndcg._judgment_groups(s.group_by) -%}
{%- if s.system in groups or s.query_id in groups or s.doc_id in groups -%}
  {{ sqlndcg._fail('setting', 'overlap: group_by=' ~ sqlndcg._show(groups) ~ ' names the system, query or document column; group_by lists the columns beyond the system that split the run (day, segment)') }}
{%- endif -%}
{%- set needed = [('system', s.system, 'system'), ('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'),
                  ('rank' if by_rank else 'score', key, 'rank' if by_rank else 'score')] -%}
{%- for g in groups -%}{%- do needed.append(('group_by', g, 'group_by')) -%}{%- endfor -%}
{{ sqlndcg._judgment_require_columns(run, needed) }}
{{ sqlndcg._judgment_require_types(run, [key], [s.system, s.query_id, s.doc_id]) }}
{%- set system_column = sqlndcg._column_of(run.columns, s.system) -%}
{%- set baseline = sqlndcg._overlap_baseline(s.baseline, system_column, run.label) -%}
{%- set names = groups + [s.system, 'baseline', s.query_id] + (metrics | map(attribute='name') | list) + sqlndcg._overlap_columns().lengths -%}
{{ sqlndcg._judgment_distinct_outputs('overlap', names + sqlndcg._overlap_columns().account) }}
{%- set doc_text = sqlndcg._judgment_ids_as_text([(run, s.doc_id)]) -%}
{%- set tie = sqlndcg._tie_doc({'doc_ids_as_text': doc_text, 'run_doc_ids_integer': not doc_text, 'id_order': o.id_order}) -%}
{%- set cutoffs = metrics | map(attribute='k') | list -%}
{%- set given_k = cutoffs | reject('none') | list -%}
{%- set readings = [] -%}
{%- for k in cutoffs if k not in readings -%}{%- do readings.append(k) -%}{%- endfor -%}
{%- set checks = [] -%}
{%- for name in groups + [s.system, s.query_id, s.doc_id, key] -%}
  {%- do checks.append(sqlndcg._judgment_check('null', name, 'is NULL' ~ (' (a group needs a value to pair the lists in it)' if name in groups else ''))) -%}
{%- endfor -%}
{%- do checks.append(sqlndcg._judgment_check('not_finite', key, 'is NaN or infinite')) -%}
{%- if by_rank -%}{%- do checks.append(sqlndcg._judgment_check('outside', key, 'is below 1 (ranks start at 1)', [1, true, none])) -%}{%- endif -%}
{%- set settings = {'metrics': metrics | map(attribute='name') | list, 'p': o.p, 'system': s.system, 'baseline': baseline.value,
                    'group_by': groups, 'ties': o.ties, 'short_lists': o.short_lists, 'ranked_by': key} -%}
{%- if o.lower_is_better -%}{%- do settings.update({'lower_is_better': true}) -%}{%- endif -%}
{%- if o.id_order != 'native' -%}{%- do settings.update({'id_order': o.id_order}) -%}{%- endif -%}
{{ return({
  'run': run.sql, 'label': run.label, 'metrics': metrics, 'p': o.p, 'short_lists': o.short_lists,
  'groups': sqlndcg._overlap_groups(groups), 'system': sqlndcg._quote(s.system), 'system_as_text': system_column.class != 'integer',
  'query_id': sqlndcg._quote(s.query_id), 'query_ids_as_text': sqlndcg._judgment_ids_as_text([(run, s.query_id)]),
  'doc_id': sqlndcg._quote(s.doc_id), 'doc_ids_as_text': doc_text, 'key': sqlndcg._quote(key),
  'order': sqlndcg._rank_order('_key', tie, not by_rank and not o.lower_is_better),
  'baseline': baseline, 'readings': readings, 'cut': none if none in cutoffs else cutoffs | max, 'deepest': (given_k | max) if given_k else none,
  'checks': checks, 'identity': groups + [s.system, s.query_id, s.doc_id],
  'rank_keys': groups + [s.system, s.query_id, key] if o.ties == 'rank' else none,
  'summary': sqlndcg._overlap_summary_shape(groups, s.system, s.query_id, metrics),
  'settings': settings,
}) }}
{%- endmacro -%}

{#- The group columns as the statements name them: {name, column (quoted, read from the run), output (quoted)}. -#}
{%- macro _overlap_groups(names) -%}
{%- set out = [] -%}
{%- for g in names -%}{%- do out.append({'name': g, 'column': sqlndcg._quote(g), 'output': sqlndcg._quote(g)}) -%}{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- The per-query table as the summary (statements/summary.sql) reads it: the groups (the group columns, the system
    and the baseline), the query column and each metric's summary columns. -#}
{%- macro _overlap_summary_shape(groups, system, query_id, metrics) -%}
{%- set keys = sqlndcg._overlap_groups(groups + [system, 'baseline']) -%}
{%- set columns = [] -%}
{%- for m in metrics -%}
  {%- set c = {'name': m.name, 'emptyable': false} -%}
  {%- for key, suffix in sqlndcg._summary_suffixes() -%}{%- do c.update({key: sqlndcg._quote(m.name ~ suffix)}) -%}{%- endfor -%}
  {%- do columns.append(c) -%}
{%- endfor -%}
{{ return({'groups': keys, 'query_output': sqlndcg._quote(query_id), 'queries_output': sqlndcg._quote('queries'),
           'metrics': columns}) }}
{%- endmacro -%}

{#- The group aliases, each followed by a comma: `_g0, _g1, `; with a prefix `t._g0, `, or `t._g0 AS _g0, ` when
    `aliased`. `` without groups. -#}
{%- macro _overlap_keys(p, prefix='', aliased=false) -%}
{%- set out = [] -%}
{%- for c in p.groups -%}
  {%- do out.append(prefix ~ '_g' ~ loop.index0 ~ (' AS _g' ~ loop.index0 if aliased else '') ~ ', ') -%}
{%- endfor -%}
{{ return(out | join('')) }}
{%- endmacro -%}

{#- `a._g0 = b._g0 AND ... AND a.c = b.c ...`: the groups, then the columns `more`, equal in a and b. -#}
{%- macro _overlap_on(p, a, b, more=[]) -%}
{%- set out = [] -%}
{%- for c in p.groups -%}{%- do out.append(a ~ '._g' ~ loop.index0 ~ ' = ' ~ b ~ '._g' ~ loop.index0) -%}{%- endfor -%}
{%- for c in more -%}{%- do out.append(a ~ '.' ~ c ~ ' = ' ~ b ~ '.' ~ c) -%}{%- endfor -%}
{{ return(out | join(' AND ')) }}
{%- endmacro -%}

{#- The lists, as CTEs both statements share (each followed by a comma): _ranked (every row of the run with its
    position _r in its (group, system, query) list and the list's length _n), _systems (the (group, system) pairs to
    compare: each system but the baseline, in each group it has rows in), _mine (the systems' rows) and _base (the
    baseline's rows of each pair's group, once per pair), both within the deepest cutoff, and _lists: per pair and
    query of either side, the lengths _la (the system's) and _lb (the baseline's), 0 for a list that is absent. -#}
{%- macro _overlap_lists(p) -%}
{%- set g = sqlndcg._overlap_keys(p) -%}
{%- set cut = '' if p.cut is none else ' AND _r <= ' ~ p.cut -%}
_input AS (
  SELECT
    {%- for c in p.groups %}
    {{ c.column }} AS _g{{ loop.index0 }},
    {%- endfor %}
    {{ sqlndcg._id(p.system, p.system_as_text) }} AS _s,
    {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q,
    {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d,
    {{ p.key }} AS _key
  FROM {{ p.run }} AS run_input
),
_ranked AS (
  SELECT {{ g }}_s, _q, _d,
    ROW_NUMBER() OVER (PARTITION BY {{ g }}_s, _q ORDER BY {{ p.order }}) AS _r,
    COUNT(*) OVER (PARTITION BY {{ g }}_s, _q) AS _n
  FROM _input
),
_systems AS (
  SELECT DISTINCT {{ g }}_s FROM _ranked WHERE _s <> {{ p.baseline.compare }}
),
_mine AS (
  SELECT {{ g }}_s, _q, _d, _r, _n FROM _ranked WHERE _s <> {{ p.baseline.compare }}{{ cut }}
),
_base AS (
  SELECT {{ sqlndcg._overlap_keys(p, 'sy.', true) }}sy._s AS _s, b._q AS _q, b._d AS _d, b._r AS _r, b._n AS _n
  FROM _ranked AS b
  {%- if p.groups %}
  JOIN _systems AS sy ON {{ sqlndcg._overlap_on(p, 'sy', 'b') }}
  {%- else %}
  CROSS JOIN _systems AS sy
  {%- endif %}
  WHERE b._s = {{ p.baseline.compare }}{{ cut | replace('_r', 'b._r') }}
),
_lists AS (
  SELECT {{ g }}_s, _q, MAX(_la) AS _la, MAX(_lb) AS _lb
  FROM (
    SELECT {{ g }}_s, _q, _n AS _la, 0 AS _lb FROM _mine WHERE _r = 1
    UNION ALL
    SELECT {{ g }}_s, _q, 0 AS _la, _n AS _lb FROM _base WHERE _r = 1
  ) AS list_ends
  GROUP BY {{ g }}_s, _q
),
{%- endmacro -%}

{#- min and max of two SQL expressions (LEAST and GREATEST are not everywhere). -#}
{%- macro _overlap_min(a, b) -%}{{ return('CASE WHEN ' ~ a ~ ' < ' ~ b ~ ' THEN ' ~ a ~ ' ELSE ' ~ b ~ ' END') }}{%- endmacro -%}
{%- macro _overlap_max(a, b) -%}{{ return('CASE WHEN ' ~ a ~ ' > ' ~ b ~ ' THEN ' ~ a ~ ' ELSE ' ~ b ~ ' END') }}{%- endmacro -%}

{#- Reading i's depths [s, l], the shorter and the longer list as a measure at cutoff k reads them, from the lists'
    lengths cut at k (_ca<i> and _cb<i>); under short_lists='truncate' both n = min(k, |A|, |B|). -#}
{%- macro _overlap_lengths(p, i) -%}
{%- set shorter = sqlndcg._overlap_min('_ca' ~ i, '_cb' ~ i) -%}
{{ return([shorter, shorter if p.short_lists == 'truncate' else sqlndcg._overlap_max('_ca' ~ i, '_cb' ~ i)]) }}
{%- endmacro -%}

{#- p^x on doubles for an integer expression x >= 0, 0 from the depth on where it falls below 1e-150 (a term too small
    to move a sum of doubles; PostgreSQL's POWER raises on underflow): that depth, a power of two, found in Jinja. -#}
{%- macro _overlap_power(p, x) -%}
{%- set ns = namespace(x=p.p, depth=1) -%}
{%- for i in range(64) -%}
  {%- if ns.x * ns.x >= 1e-300 -%}{%- set ns.x = ns.x * ns.x -%}{%- set ns.depth = ns.depth * 2 -%}{%- endif -%}
{%- endfor -%}
{%- set d = sqlndcg.double() -%}
{{ return('(CASE WHEN ' ~ x ~ ' > ' ~ ns.depth ~ ' THEN CAST(0 AS ' ~ d ~ ') ELSE POWER(' ~ sqlndcg._number(p.p) ~ ', CAST(' ~ x ~ ' AS ' ~ d ~ ')) END)') }}
{%- endmacro -%}

{#- P(k) = sum_{d=1..k} p^d / d, added up in Jinja. -#}
{%- macro _overlap_partial(p, k) -%}
{%- set ns = namespace(total=0.0, power=1.0) -%}
{%- for d in range(1, k + 1) -%}{%- set ns.power = ns.power * p.p -%}{%- set ns.total = ns.total + ns.power / d -%}{%- endfor -%}
{{ return(ns.total) }}
{%- endmacro -%}

{#- Whether metric m is rbo@k read to k beyond the lists' ends (the tail X_l (P(k) - P(l)) adds what the rows lack). -#}
{%- macro _overlap_tail(p, m) -%}{{ return(m.kind == 'rbo' and m.k is not none and p.short_lists == 'pad') }}{%- endmacro -%}

{#- Metric j's sums over its query's depth rows (_dp, _x = X at _dp; _short<j>, _long<j> its s and l), in depth order:
    _xl (X_l), and for rbo and rbo_ext _a (sum of p^d X_d / d to its depth), for rbo@k _pl (P(l)), for rbo_ext _xs
    (X_s) and _t (sum_{d=s+1..l} p^d (d - s) / d). -#}
{%- macro _overlap_aggregates(p, m, j) -%}
{%- set d = sqlndcg.double() -%}
{%- set w = sqlndcg._overlap_power(p, '_dp') -%}
{%- set r = p.readings.index(m.k) -%}
{%- set out = ['COALESCE(MAX(CASE WHEN _dp = _long' ~ r ~ ' THEN _x END), 0) AS _xl' ~ j] -%}
{%- if m.kind != 'jaccard' -%}
  {%- set depth = m.k if sqlndcg._overlap_tail(p, m) else '_long' ~ r -%}
  {%- do out.append(sqlndcg.ordered('SUM', 'CASE WHEN _dp <= ' ~ depth ~ ' THEN ' ~ w ~ ' * CAST(_x AS ' ~ d ~ ') / _dp ELSE 0 END', '_dp') ~ ' AS _a' ~ j) -%}
{%- endif -%}
{%- if sqlndcg._overlap_tail(p, m) -%}
  {%- do out.append(sqlndcg.ordered('SUM', 'CASE WHEN _dp <= _long' ~ r ~ ' THEN ' ~ w ~ ' / _dp ELSE 0 END', '_dp') ~ ' AS _pl' ~ j) -%}
{%- endif -%}
{%- if m.kind == 'rbo_ext' -%}
  {%- do out.append('COALESCE(MAX(CASE WHEN _dp = _short' ~ r ~ ' THEN _x END), 0) AS _xs' ~ j) -%}
  {%- do out.append(sqlndcg.ordered('SUM', 'CASE WHEN _dp > _short' ~ r ~ ' AND _dp <= _long' ~ r ~ ' THEN ' ~ w ~ ' * CAST(_dp - _short' ~ r ~ ' AS ' ~ d ~ ') / _dp ELSE 0 END', '_dp') ~ ' AS _t' ~ j) -%}
{%- endif -%}
{{ return(out) }}
{%- endmacro -%}

{#- Metric j's value from its sums (the header's formulas; a query one side lacks: 0). -#}
{%- macro _overlap_value(p, m, j) -%}
{%- set d = sqlndcg.double() -%}
{%- set c = sqlndcg._number((1 - p.p) / p.p) -%}
{%- set r = p.readings.index(m.k) -%}
{%- set s, l, xs, xl = '_short' ~ r, '_long' ~ r, 'CAST(_xs' ~ j ~ ' AS ' ~ d ~ ')', 'CAST(_xl' ~ j ~ ' AS ' ~ d ~ ')' -%}
{%- if m.kind == 'jaccard' -%}
  {{ return('CASE WHEN ' ~ s ~ ' + ' ~ l ~ ' - _xl' ~ j ~ ' > 0 THEN ' ~ xl ~ ' / (' ~ s ~ ' + ' ~ l ~ ' - _xl' ~ j ~ ') ELSE CAST(0 AS ' ~ d ~ ') END') }}
{%- elif m.kind == 'rbo' and sqlndcg._overlap_tail(p, m) -%}
  {{ return(c ~ ' * (_a' ~ j ~ ' + ' ~ xl ~ ' * (' ~ sqlndcg._number(sqlndcg._overlap_partial(p, m.k)) ~ ' - _pl' ~ j ~ '))') }}
{%- elif m.kind == 'rbo' -%}
  {{ return(c ~ ' * _a' ~ j) }}
{%- endif -%}
{{ return('CASE WHEN ' ~ s ~ ' = 0 THEN CAST(0 AS ' ~ d ~ ') ELSE ' ~ c ~ ' * (_a' ~ j ~ ' + ' ~ xs ~ ' / ' ~ s ~ ' * _t' ~ j ~ ') + ('
          ~ 'CAST(_xl' ~ j ~ ' - _xs' ~ j ~ ' AS ' ~ d ~ ') / ' ~ l ~ ' + ' ~ xs ~ ' / ' ~ s ~ ') * ' ~ sqlndcg._overlap_power(p, l) ~ ' END') }}
{%- endmacro -%}

{#- The plan -> the per-query table: the group columns, the system, `baseline`, the query id, one column per metric,
    `length` and `baseline_length` (each list's length, 0 for a list that is absent). `ordered`: sorted by group,
    system and query (not inside a subquery). -#}
{%- macro _overlap_sql(p, ordered=true) -%}
{%- set g, i = sqlndcg._overlap_keys(p), sqlndcg.integer_type() -%}
{%- set kept %}{% for k in p.readings %}, _short{{ loop.index0 }}, _long{{ loop.index0 }}{% endfor %}{% endset -%}
WITH {{ sqlndcg._overlap_lists(p) }}
_common AS (
  SELECT {{ sqlndcg._overlap_keys(p, 'm.', true) }}m._s AS _s, m._q AS _q, CASE WHEN m._r > b._r THEN m._r ELSE b._r END AS _m
  FROM _mine AS m
  JOIN _base AS b ON {{ sqlndcg._overlap_on(p, 'b', 'm', ['_s', '_q', '_d']) }}
),
_entered AS (
  SELECT {{ g }}_s, _q, _m, COUNT(*) AS _c FROM _common GROUP BY {{ g }}_s, _q, _m
),
_depths AS (
  SELECT DISTINCT {{ g }}_s, _q, _dp
  FROM (
    SELECT {{ g }}_s, _q, _r AS _dp FROM _mine
    UNION ALL
    SELECT {{ g }}_s, _q, _r AS _dp FROM _base
  ) AS ranks
),
_overlaps AS (
  SELECT {{ sqlndcg._overlap_keys(p, 'dp.', true) }}dp._s AS _s, dp._q AS _q, dp._dp AS _dp,
    CAST(SUM(COALESCE(e._c, 0)) OVER (PARTITION BY {{ sqlndcg._overlap_keys(p, 'dp.') }}dp._s, dp._q ORDER BY dp._dp ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS {{ i }}) AS _x
  FROM _depths AS dp
  LEFT JOIN _entered AS e ON {{ sqlndcg._overlap_on(p, 'e', 'dp', ['_s', '_q']) }} AND e._m = dp._dp
),
_read AS (
  SELECT {{ g }}_s, _q, _dp, _x, _la, _lb
    {%- for k in p.readings %}{% set sl = sqlndcg._overlap_lengths(p, loop.index0) %},
    {{ sl[0] }} AS _short{{ loop.index0 }}, {{ sl[1] }} AS _long{{ loop.index0 }}
    {%- endfor %}
  FROM (
    SELECT {{ sqlndcg._overlap_keys(p, 'o.', true) }}o._s AS _s, o._q AS _q, o._dp AS _dp, o._x AS _x, li._la AS _la, li._lb AS _lb
      {%- for k in p.readings %},
      {{ 'li._la' if k is none else sqlndcg._overlap_min('li._la', k) }} AS _ca{{ loop.index0 }}, {{ 'li._lb' if k is none else sqlndcg._overlap_min('li._lb', k) }} AS _cb{{ loop.index0 }}
      {%- endfor %}
    FROM _overlaps AS o
    JOIN _lists AS li ON {{ sqlndcg._overlap_on(p, 'li', 'o', ['_s', '_q']) }}
  ) AS depth_rows
),
_sums AS (
  SELECT {{ g }}_s, _q, _la, _lb{{ kept }}
    {%- for m in p.metrics %}{% set j = loop.index0 %}{% for a in sqlndcg._overlap_aggregates(p, m, j) %},
    {{ a }}
    {%- endfor %}{% endfor %}
  FROM _read
  GROUP BY {{ g }}_s, _q, _la, _lb{{ kept }}
)
SELECT
  {%- for c in p.groups %}
  _g{{ loop.index0 }} AS {{ c.output }},
  {%- endfor %}
  _s AS {{ p.system }},
  {{ p.baseline.shown }} AS {{ sqlndcg._quote('baseline') }},
  _q AS {{ p.query_id }},
  {%- for m in p.metrics %}
  {{ sqlndcg._overlap_value(p, m, loop.index0) }} AS {{ m.column }},
  {%- endfor %}
  CAST(_la AS {{ i }}) AS {{ sqlndcg._quote('length') }},
  CAST(_lb AS {{ i }}) AS {{ sqlndcg._quote('baseline_length') }}
FROM _sums
{%- if ordered %}
ORDER BY {{ g }}_s, _q
{%- endif %}
{%- endmacro -%}

{#- The plan -> the account, per group and system: its queries (of either side), those both sides have, those only
    the baseline has (the system's list is absent: 0), those only the system has, and the lists shorter than the
    deepest cutoff among the metrics (NULL when no metric has one), the system's and the baseline's. -#}
{%- macro _overlap_account_sql(p) -%}
{%- set g, i = sqlndcg._overlap_keys(p), sqlndcg.integer_type() -%}
{%- set short = none if p.deepest is none else p.deepest -%}
WITH {{ sqlndcg._overlap_lists(p) }}
_counted AS (
  SELECT {{ g }}_s, COUNT(*) AS _n,
    SUM(CASE WHEN _la > 0 AND _lb > 0 THEN 1 ELSE 0 END) AS _both,
    SUM(CASE WHEN _la = 0 THEN 1 ELSE 0 END) AS _only_baseline,
    SUM(CASE WHEN _lb = 0 THEN 1 ELSE 0 END) AS _only_system,
    SUM(CASE WHEN _la > 0 AND _la < {{ short or 0 }} THEN 1 ELSE 0 END) AS _short,
    SUM(CASE WHEN _lb > 0 AND _lb < {{ short or 0 }} THEN 1 ELSE 0 END) AS _short_baseline
  FROM _lists
  GROUP BY {{ g }}_s
)
SELECT
  {%- for c in p.groups %}
  _g{{ loop.index0 }} AS {{ c.output }},
  {%- endfor %}
  _s AS {{ p.system }},
  {{ p.baseline.shown }} AS {{ sqlndcg._quote('baseline') }},
  {%- set names = sqlndcg._overlap_columns().account %}
  {%- for internal in ['_n', '_both', '_only_baseline', '_only_system', '_short', '_short_baseline'] %}
  {%- if short is none and loop.index > 4 %}
  CAST(NULL AS {{ i }}) AS {{ sqlndcg._quote(names[loop.index0]) }}{% if not loop.last %},{% endif %}
  {%- else %}
  CAST({{ internal }} AS {{ i }}) AS {{ sqlndcg._quote(names[loop.index0]) }}{% if not loop.last %},{% endif %}
  {%- endif %}
  {%- endfor %}
FROM _counted
ORDER BY {{ g }}_s
{%- endmacro -%}

{#- The run's systems, to check the baseline against: each distinct system (_s), 1 for the baseline (_b), and how many
    there are (_systems); the baseline first, then at most ten others. -#}
{%- macro _overlap_systems_sql(p) -%}
{%- set system = sqlndcg._id(p.system, p.system_as_text) -%}
SELECT _s, _b, COUNT(*) OVER () AS _systems
FROM (
  SELECT DISTINCT {{ system }} AS _s, CASE WHEN {{ system }} = {{ p.baseline.compare }} THEN 1 ELSE 0 END AS _b
  FROM {{ p.run }} AS run_input
  WHERE {{ p.system }} IS NOT NULL
) AS systems
ORDER BY _b DESC, _s
LIMIT 11
{%- endmacro -%}

{#- What is wrong with the systems (the rows of _overlap_systems_sql), or '': the baseline is not among them, or no
    other system is. -#}
{%- macro _overlap_systems_problem(p, rows) -%}
{%- set column = 'column ' ~ sqlndcg._show(p.settings.system) ~ ' of ' ~ p.label -%}
{%- if (rows | length) == 0 -%}
  {{ return('overlap: ' ~ p.label ~ ' has no rows with a system: nothing to compare') }}
{%- endif -%}
{%- set shown = [] -%}
{%- for r in rows[:10] -%}{%- do shown.append(sqlndcg._show(r[0])) -%}{%- endfor -%}
{%- set more = (rows[0][2] | int) - (shown | length) -%}
{%- set listed = (shown | join(', ')) ~ (' and ' ~ more ~ ' more' if more > 0 else '') -%}
{%- if (rows[0][1] | int) != 1 -%}
  {{ return('overlap: baseline=' ~ sqlndcg._show(p.settings.baseline) ~ ' is not among the systems in the ' ~ column ~ ': ' ~ listed ~ '; name one of them with baseline=') }}
{%- endif -%}
{%- if (rows[0][2] | int) == 1 -%}
  {{ return('overlap: the ' ~ column ~ ' holds only the baseline ' ~ sqlndcg._show(p.settings.baseline) ~ ': there is no other system to compare with it') }}
{%- endif -%}
{{ return('') }}
{%- endmacro -%}

{#- dbt: the plan of a run relation, its baseline checked against its systems (one query, when dbt executes). -#}
{%- macro _overlap_relation_plan(run, system, baseline, metrics, p, more) -%}
{%- set given = {'system': system, 'baseline': baseline, 'metrics': metrics, 'p': p} -%}
{%- do given.update(more) -%}
{%- set plan = sqlndcg._overlap_plan(sqlndcg._input_relation('run', run), given) -%}
{%- set problem = sqlndcg._overlap_systems_problem(plan, run_query(sqlndcg._overlap_systems_sql(plan)).rows) -%}
{%- if problem -%}{{ sqlndcg._fail('setting', problem) }}{%- endif -%}
{{ return(plan) }}
{%- endmacro -%}

{#- dbt entry point: the per-query table. -#}
{%- macro overlap(run=none, system='system', baseline=none, metrics=['rbo@10', 'jaccard@10'], p=0.9) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._overlap_sql(sqlndcg._overlap_relation_plan(run, system, baseline, metrics, p, kwargs))) }}
{%- endmacro -%}

{#- dbt entry point: per group, system and metric the mean, count, std and 95% interval (statements/summary.sql). -#}
{%- macro overlap_summary(run=none, system='system', baseline=none, metrics=['rbo@10', 'jaccard@10'], p=0.9) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set plan = sqlndcg._overlap_relation_plan(run, system, baseline, metrics, p, kwargs) -%}
{{ return(sqlndcg._summary_sql('(' ~ sqlndcg._overlap_sql(plan, false) ~ ')', plan.summary)) }}
{%- endmacro -%}

{#- dbt entry point: the account. -#}
{%- macro overlap_account(run=none, system='system', baseline=none, metrics=['rbo@10', 'jaccard@10'], p=0.9) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._overlap_account_sql(sqlndcg._overlap_relation_plan(run, system, baseline, metrics, p, kwargs))) }}
{%- endmacro -%}

{#- dbt: the rows overlap() refuses in Python (NULL ids, systems, groups or scores, NaN scores, a document twice in a
    list), one row per problem, for a data test: {{ sqlndcg.overlap_problems(run=ref('rankings'), baseline='bm25') }}. -#}
{%- macro overlap_problems(run=none, system='system', baseline=none, metrics=['rbo@10', 'jaccard@10'], p=0.9) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set given = {'system': system, 'baseline': baseline, 'metrics': metrics, 'p': p} -%}
{%- do given.update(kwargs) -%}
{%- set plan = sqlndcg._overlap_plan(sqlndcg._input_relation('run', run), given) -%}
{%- set keys = [] -%}{%- for c in plan.identity -%}{%- do keys.append(sqlndcg._quote(c)) -%}{%- endfor -%}
{{ return(sqlndcg._judgment_problems(plan.run, plan.checks, keys, keys, '(system, query, document) rows')) }}
{%- endmacro -%}
