{#-
  Intent-aware and novelty-aware measures (docs/diversity.md), exactly as ndeval 4.5 (the TREC Web track's
  program) computes them, from judgments with an intent column: (query_id, intent, doc_id, rel), one row per
  judged (query, intent, document); a document is relevant to an intent when rel >= threshold (1: ndeval reads
  every grade above 1 as 1). With A the query's intents that have a relevant document, g = 1 - alpha and, at
  position i of a list, G_i = sum over the intents j the document is relevant to of g^c_ij (c_ij: the documents
  above i relevant to j):
    alpha_dcg@k  = sum_{i<=k} G_i / log2(i + 1), divided by sum_{i<=k} A g^(i-1) / log2(i + 1) when k >= 2
    err_ia@k     = the same with 1 / i in place of 1 / log2(i + 1)
    alpha_ndcg@k, nerr_ia@k = the run's value / the greedy ideal's (0 when the run's is 0)
    nrbp         = (1 - g * beta) / A * sum_i G_i beta^(i - 1) over the whole list; nnrbp = nrbp / the ideal's
    p_ia@k       = (relevant (document, intent) pairs in the top k) / (k A)
    strec@k      = (intents with a relevant document in the top k) / A
    map_ia       = (1 / A) sum_j (1 / n_j) sum over positions i of documents relevant to j of (c_ij + 1) / i
  The ideal list is ndeval's greedy one: at each step the judged document of the largest gain given those taken
  (equal gains: the larger document id in byte order), unrolled here as `rounds` steps (each one CTE; no WITH
  RECURSIVE, so every engine runs it): enough for the cutoffs, and for nNRBP until the terms left are below a
  double's precision. A query whose judgments have no relevant intent scores 0, nnrbp NULL (ndeval's 0/0).
  The run is ranked by score descending, equal scores by document id descending as text in byte order (ndeval
  -traditional, trec_eval's rule), or by its rank column (order_by='rank', ndeval's default).
-#}

{%- macro _diversity_declared() -%}
{{ return({'metrics': none, 'alpha': 0.5, 'beta': 0.5, 'threshold': 1, 'depth': none, 'ideal_depth': none,
           'order_by': 'score', 'preset': none, 'queries': 'both', 'group_by': none, 'query_id': 'query_id', 'doc_id': 'doc_id', 'score': 'score',
           'rank': 'rank', 'intent': 'intent', 'rel': 'rel'}) }}
{%- endmacro -%}

{#- The measures: name -> (takes a cutoff, needs the ideal list). ndeval's own spellings (alpha-nDCG@10, ERR-IA@5,
    MAP-IA, ...) read as these once lower-cased with '-' as '_'. -#}
{%- macro _diversity_kinds() -%}
{{ return({'alpha_dcg': [true, false], 'alpha_ndcg': [true, true], 'err_ia': [true, false], 'nerr_ia': [true, true],
           'p_ia': [true, false], 'strec': [true, false], 'nrbp': [false, false], 'nnrbp': [false, true],
           'map_ia': [false, false]}) }}
{%- endmacro -%}

{#- ndeval's measures, in the order it prints them. -#}
{%- macro _diversity_ndeval_metrics() -%}
{%- set out = [] -%}
{%- for kind in ['err_ia', 'nerr_ia', 'alpha_dcg', 'alpha_ndcg'] %}{% for k in [5, 10, 20] %}{% do out.append(kind ~ '@' ~ k) %}{% endfor %}{% endfor -%}
{%- do out.extend(['nrbp', 'nnrbp', 'map_ia']) -%}
{%- for kind in ['p_ia', 'strec'] %}{% for k in [5, 10, 20] %}{% do out.append(kind ~ '@' ~ k) %}{% endfor %}{% endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- Whether a metric name is one of these measures (evaluate hands a list of them all to diversity). -#}
{%- macro _diversity_is_metric(name) -%}
{{ return(name is string and (name | lower | replace('-', '_')).split('@')[0] in sqlndcg._diversity_kinds()) }}
{%- endmacro -%}

{#- A metric name -> {name, kind, k}; unknown names and cutoffs outside 1..20 (ndeval's DEPTH) are errors. -#}
{%- macro _diversity_metric(name) -%}
{%- if name is not string -%}{{ sqlndcg._fail('metric', 'diversity: a metric is a name such as alpha_ndcg@10, got ' ~ sqlndcg._show(name)) }}{%- endif -%}
{%- set parts = (name | lower | replace('-', '_')).split('@') -%}
{%- set kinds = sqlndcg._diversity_kinds() -%}
{%- if parts[0] not in kinds or (parts | length) > 2 -%}
  {{ sqlndcg._fail('metric', 'diversity: unknown metric ' ~ sqlndcg._show(name) ~ '; the diversity measures are ' ~ (kinds.keys() | join(', ')) ~ ' (alpha_ndcg@k, ...)') }}
{%- endif -%}
{%- set cut = kinds[parts[0]][0] -%}
{%- if cut and ((parts | length) < 2 or not parts[1].isdigit() or parts[1] | int < 1 or parts[1] | int > 20) -%}
  {{ sqlndcg._fail('metric', 'diversity: ' ~ sqlndcg._show(name) ~ ' needs a cutoff from 1 to 20 (ndeval computes these measures to depth 20), e.g. ' ~ parts[0] ~ '@10') }}
{%- elif not cut and (parts | length) > 1 -%}
  {{ sqlndcg._fail('metric', 'diversity: ' ~ parts[0] ~ ' takes no cutoff (it reads the whole list), got ' ~ sqlndcg._show(name)) }}
{%- endif -%}
{%- set k = parts[1] | int if cut else none -%}
{{ return({'name': parts[0] ~ ('@' ~ k if cut else ''), 'kind': parts[0], 'k': k, 'ideal': kinds[parts[0]][1]}) }}
{%- endmacro -%}

{#- The greedy ideal's steps: the largest cutoff, and with nnrbp the steps after which beta^i times any gain (at
    most `intents`, A's largest, 1000 when not known) is below 2^-54 of the sum: ndeval's value to the last bit.
    `relevant` (the most relevant documents of a query, when known) bounds it: the list has no more. -#}
{%- macro _diversity_rounds(metrics, beta, intents=none, relevant=none) -%}
{%- set ns = namespace(k=1, rest=0, x=(intents or 1000) / (1 - beta) if beta < 1 else 0) -%}
{%- for m in metrics if m.k is not none and m.k > ns.k %}{% set ns.k = m.k %}{% endfor -%}
{%- if metrics | selectattr('kind', 'equalto', 'nnrbp') | list -%}
  {%- if beta >= 1 -%}{%- set ns.rest = relevant or 1000 -%}
  {%- else -%}
    {%- for i in range(1, 2000) if ns.x >= 2 ** -54 -%}{%- set ns.x = ns.x * beta -%}{%- set ns.rest = i -%}{%- endfor -%}
  {%- endif -%}
{%- endif -%}
{%- set rounds = [ns.k, ns.rest] | max -%}
{{ return(rounds if relevant is none else [rounds, [relevant, 1] | max] | min) }}
{%- endmacro -%}

{#- The run and the judgments (inputs described as {sql, label, columns}) and the settings -> the plan. `facts`
    ({intents, relevant}: the largest A and the most relevant documents of a query, from _diversity_facts_sql)
    bound the greedy ideal's steps when known. -#}
{%- macro _diversity_plan(run, judgments, given, facts=none) -%}
{%- set s = sqlndcg._judgment_settings('diversity', sqlndcg._diversity_declared(), given) -%}
{%- if s.preset is not none and s.preset != 'ndeval' -%}
  {{ sqlndcg._fail('setting', "diversity: preset must be 'ndeval' (ndeval's defaults, the run ranked by its rank column), got " ~ sqlndcg._show(s.preset)) }}
{%- endif -%}
{%- if s.preset == 'ndeval' and given.get('order_by') is none -%}{%- do s.update({'order_by': 'rank'}) -%}{%- endif -%}
{%- for key in ['alpha', 'beta'] -%}
  {%- if s[key] is not number or s[key] is boolean or not (0 <= s[key] <= 1) -%}
    {{ sqlndcg._fail('setting', 'diversity: ' ~ key ~ ' must be a number from 0 to 1 (ndeval refuses others), got ' ~ sqlndcg._show(s[key])) }}
  {%- endif -%}
{%- endfor -%}
{%- if s.threshold is not number or s.threshold is boolean -%}
  {{ sqlndcg._fail('setting', 'diversity: threshold must be a number (the label from which a document is relevant to an intent), got ' ~ sqlndcg._show(s.threshold)) }}
{%- endif -%}
{%- for key in ['depth', 'ideal_depth'] if s[key] is not none and (s[key] is not integer or s[key] is boolean or s[key] < 1) -%}
  {{ sqlndcg._fail('setting', 'diversity: ' ~ key ~ ' must be a whole number 1 or more, got ' ~ sqlndcg._show(s[key])) }}
{%- endfor -%}
{%- if s.queries not in ['both', 'run'] -%}
  {{ sqlndcg._fail('setting', "diversity: queries must be 'both' (those in the run and the judgments, ndeval's average) or 'run' (every run query; those without judgments score 0, as ndeval prints them), got " ~ sqlndcg._show(s.queries)) }}
{%- endif -%}
{%- if s.order_by not in ['score', 'rank'] -%}
  {{ sqlndcg._fail('setting', "diversity: order_by must be 'score' or 'rank', got " ~ sqlndcg._show(s.order_by)) }}
{%- endif -%}
{%- set names = s.metrics if s.metrics is not none else sqlndcg._diversity_ndeval_metrics() -%}
{%- if names is string -%}{%- set names = [names] -%}{%- endif -%}
{%- if not names -%}{{ sqlndcg._fail('metric', 'diversity: no metric asked for') }}{%- endif -%}
{%- set metrics, seen = [], [] -%}
{%- for name in names -%}
  {%- set m = sqlndcg._diversity_metric(name) -%}
  {%- if m.name not in seen -%}{%- do metrics.append(m) -%}{%- do seen.append(m.name) -%}{%- endif -%}
{%- endfor -%}
{%- for key in ['query_id', 'doc_id', 'score', 'rank', 'intent', 'rel'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set key = s[s.order_by] -%}
{%- set groups = sqlndcg._judgment_groups(s.group_by) -%}
{%- set needed = [] -%}{%- for g in groups -%}{%- do needed.append(('group_by', g, 'group_by')) -%}{%- endfor -%}
{{ sqlndcg._judgment_require_columns(run, needed + [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'), (s.order_by, key, s.order_by)]) }}
{{ sqlndcg._judgment_require_columns(judgments, [('query id', s.query_id, 'query_id'), ('intent', s.intent, 'intent'), ('document id', s.doc_id, 'doc_id'), ('label', s.rel, 'rel')]) }}
{{ sqlndcg._judgment_require_types(run, [key], [s.query_id, s.doc_id]) }}
{{ sqlndcg._judgment_require_types(judgments, [s.rel], [s.query_id, s.intent, s.doc_id]) }}
{%- set rounds = s.ideal_depth or sqlndcg._diversity_rounds(metrics, s.beta, facts.intents if facts else none, facts.relevant if facts else none) -%}
{%- set quoted_groups = [] -%}{%- for g in groups -%}{%- do quoted_groups.append(sqlndcg._quote(g)) -%}{%- endfor -%}
{%- set checks = [] -%}
{%- for name in groups + [s.query_id, s.doc_id, key] %}{% do checks.append(sqlndcg._judgment_check('null', name, 'is NULL')) %}{% endfor -%}
{%- do checks.append(sqlndcg._judgment_check('not_finite', key, 'is not a finite number')) -%}
{%- set judgment_checks = [] -%}
{%- for name in [s.query_id, s.intent, s.doc_id, s.rel] %}{% do judgment_checks.append(sqlndcg._judgment_check('null', name, 'is NULL')) %}{% endfor -%}
{%- do judgment_checks.append(sqlndcg._judgment_check('not_finite', s.rel, 'is not a finite number')) -%}
{{ return({
  'run': run.sql, 'judgments': judgments.sql, 'metrics': metrics,
  'alpha': s.alpha, 'beta': s.beta, 'threshold': s.threshold, 'depth': s.depth, 'rounds': rounds, 'queries': s.queries,
  'ideal': metrics | selectattr('ideal') | list | length > 0,
  'descending': s.order_by == 'score', 'key': sqlndcg._quote(key),
  'query_id': sqlndcg._quote(s.query_id), 'doc_id': sqlndcg._quote(s.doc_id), 'intent': sqlndcg._quote(s.intent),
  'rel': sqlndcg._quote(s.rel),
  'query_ids_as_text': sqlndcg._judgment_ids_as_text([(run, s.query_id), (judgments, s.query_id)]),
  'doc_ids_as_text': sqlndcg._judgment_ids_as_text([(run, s.doc_id), (judgments, s.doc_id)]),
  'run_checks': checks, 'run_identity': groups + [s.query_id, s.doc_id], 'groups': quoted_groups,
  'judgment_checks': judgment_checks, 'judgment_identity': [s.query_id, s.intent, s.doc_id],
  'settings': {'metrics': metrics | map(attribute='name') | list, 'alpha': s.alpha, 'beta': s.beta,
               'threshold': s.threshold, 'depth': s.depth, 'order_by': s.order_by, 'ideal_depth': rounds, 'queries': s.queries,
               'group_by': groups,
               'columns': {'query_id': s.query_id, 'doc_id': s.doc_id, s.order_by: key, 'intent': s.intent, 'rel': s.rel}},
}) }}
{%- endmacro -%}

{#- The judgments' largest A and most relevant documents of a query (what bounds the greedy ideal's steps), and
    how many queries they judge (ndeval -c averages over those). -#}
{%- macro _diversity_facts_sql(p) -%}
WITH {{ sqlndcg._diversity_inputs(p) }}
_facts AS (
  SELECT _q, COUNT(DISTINCT _i) AS _a, COUNT(DISTINCT _d) AS _r FROM _relevant GROUP BY _q
)
SELECT COALESCE(MAX(_a), 0) AS {{ sqlndcg._quote('intents') }}, COALESCE(MAX(_r), 0) AS {{ sqlndcg._quote('relevant') }},
  (SELECT COUNT(*) FROM _queries) AS {{ sqlndcg._quote('judged_queries') }}
FROM _facts
{%- endmacro -%}

{#- The group columns' inner names (_g0, _g1, ...) as the head of a column list ('' without groups): of the table
    alias `of` (named again with AS when `named`). -#}
{%- macro _diversity_g(p, of='', named=true) -%}
{%- set out = [] -%}
{%- for g in p.groups -%}
  {%- set inner = '_g' ~ loop.index0 -%}
  {%- do out.append((of ~ '.' ~ inner ~ (' AS ' ~ inner if named else '')) if of else inner) -%}
{%- endfor -%}
{{ return(out | join(', ') ~ (', ' if out else '')) }}
{%- endmacro -%}

{#- ' AND a._g0 = b._g0 ...': a join's condition on the groups ('' without groups). -#}
{%- macro _diversity_on(p, a, b) -%}
{%- set out = [] -%}
{%- for g in p.groups -%}{%- do out.append(' AND ' ~ a ~ '._g' ~ loop.index0 ~ ' = ' ~ b ~ '._g' ~ loop.index0) -%}{%- endfor -%}
{{ return(out | join('')) }}
{%- endmacro -%}

{#- The run ranked (_q, _d, _pos; with group_by, per group _g0, ... of the run's columns), each judged (query, intent) with its relevant documents (_intents: _n) and each
    query's A (_queries: _a, and _present: 1, what a LEFT JOIN's miss leaves NULL, or 0 on ClickHouse), the relevant (query, intent, document) triples (_relevant). -#}
{%- macro _diversity_inputs(p) -%}
{%- set tie = sqlndcg._tie_doc({'id_order': 'text', 'doc_ids_as_text': p.doc_ids_as_text}) -%}
{%- set g = sqlndcg._diversity_g(p) -%}
_run AS (
  SELECT {{ g }}_q, _d, _pos FROM (
    SELECT {{ g }}_q, _d, ROW_NUMBER() OVER (PARTITION BY {{ g }}_q ORDER BY {{ sqlndcg._rank_order('_key', tie, p.descending) }}) AS _pos
    FROM (
      SELECT {% for c in p.groups %}{{ c }} AS _g{{ loop.index0 }}, {% endfor %}{{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ p.key }} AS _key
      FROM {{ p.run }} AS run_input
    ) AS run_rows
  ) AS run_ranked
  {%- if p.depth %}
  WHERE _pos <= {{ p.depth }}
  {%- endif %}
),
_judged AS (
  SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, {{ sqlndcg._id(p.intent, true) }} AS _i,
    {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d,
    CASE WHEN {{ p.rel }} >= {{ sqlndcg._number(p.threshold) }} THEN 1 ELSE 0 END AS _rel
  FROM {{ p.judgments }} AS judgment_input
),
_intents AS (
  SELECT _q, _i, SUM(_rel) AS _n FROM _judged GROUP BY _q, _i
),
_queries AS (
  SELECT _q, SUM(CASE WHEN _n > 0 THEN 1 ELSE 0 END) AS _a, 1 AS _present FROM _intents GROUP BY _q
),
_relevant AS (
  SELECT _q, _i, _d FROM _judged WHERE _rel = 1
),
{%- endmacro -%}

{#- Step t of the greedy ideal, from the state after step t - 1 (each relevant triple with _p, the ideal position
    of its document, 0 while not taken): the intents' counts of documents taken (_c), each open document's gain
    (_s, the sum of g^_c over its intents), and the document taken, the first by gain descending then id
    descending in byte order (ndeval's idealResult). -#}
{%- macro _diversity_step(p, t) -%}
{%- set tie = sqlndcg._tie_doc({'id_order': 'text', 'doc_ids_as_text': p.doc_ids_as_text}) -%}
{%- set g = sqlndcg._number(1 - p.alpha) -%}
_s{{ t }} AS (
  SELECT _q, _i, _d, CASE WHEN _p = 0 AND _d = _best THEN {{ t }} ELSE _p END AS _p
  FROM (
    SELECT _q, _i, _d, _p,
      FIRST_VALUE(_d) OVER (PARTITION BY _q ORDER BY _open DESC, _s DESC{{ sqlndcg.nulls('LAST') }}, {{ tie }} DESC
                            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS _best
    FROM (
      SELECT _q, _i, _d, _p, CASE WHEN _p = 0 THEN 1 ELSE 0 END AS _open,
        SUM(CASE WHEN _p = 0 THEN POWER({{ g }}, _c) ELSE 0 END) OVER (PARTITION BY _q, _d) AS _s
      FROM (
        SELECT _q, _i, _d, _p, SUM(CASE WHEN _p > 0 THEN 1 ELSE 0 END) OVER (PARTITION BY _q, _i) AS _c
        FROM _s{{ t - 1 }} AS state_{{ t }}
      ) AS counted_{{ t }}
    ) AS gains_{{ t }}
  ) AS best_{{ t }}
),
{%- endmacro -%}

{#- Both lists' relevant (document, intent) pairs by position (_side 1: the run, 2: the greedy ideal), each with
    _c, its rank among the intent's (c_ij + 1); per position the gain G (_g), the pairs (_m) and the intents
    first met (_new); per query and list the sums each metric reads at its cutoff. -#}
{%- macro _diversity_sums(p) -%}
{%- set g, d = sqlndcg._number(1 - p.alpha), sqlndcg.double() -%}
{%- set gs = sqlndcg._diversity_g(p) -%}
_hits AS (
  SELECT 1 AS _side, {{ sqlndcg._diversity_g(p, 'r') }}r._q AS _q, r._pos AS _pos, j._i AS _i
  FROM _run AS r JOIN _relevant AS j ON j._q = r._q AND j._d = r._d
  {%- if p.ideal %}
  UNION ALL
  SELECT 2 AS _side, {% for c in p.groups %}NULL AS _g{{ loop.index0 }}, {% endfor %}_q, _p AS _pos, _i FROM _s{{ p.rounds }} AS ideal WHERE _p > 0
  {%- endif %}
),
_counted AS (
  SELECT _side, {{ gs }}_q, _pos, _i, ROW_NUMBER() OVER (PARTITION BY _side, {{ gs }}_q, _i ORDER BY _pos) AS _c FROM _hits
),
_at AS (
  SELECT _side, {{ gs }}_q, _pos, {{ sqlndcg.ordered('SUM', 'POWER(' ~ g ~ ', _c - 1)', '_i') }} AS _g, COUNT(*) AS _m, SUM(CASE WHEN _c = 1 THEN 1 ELSE 0 END) AS _new
  FROM _counted GROUP BY _side, {{ gs }}_q, _pos
),
_sums AS (
  SELECT _side, {{ gs }}_q,
    {%- for k in p.metrics | selectattr('k') | map(attribute='k') | unique %}
    {{ sqlndcg.ordered('SUM', 'CASE WHEN _pos <= ' ~ k ~ ' THEN _g * ' ~ sqlndcg._discount('_pos') ~ ' ELSE 0 END', '_pos') }} AS _dcg{{ k }},
    {{ sqlndcg.ordered('SUM', 'CASE WHEN _pos <= ' ~ k ~ ' THEN _g / _pos ELSE 0 END', '_pos') }} AS _err{{ k }},
    SUM(CASE WHEN _pos <= {{ k }} THEN _m ELSE 0 END) AS _m{{ k }},
    SUM(CASE WHEN _pos <= {{ k }} THEN _new ELSE 0 END) AS _new{{ k }},
    {%- endfor %}
    {{ sqlndcg.ordered('SUM', '_g * POWER(' ~ sqlndcg._number(p.beta) ~ ', _pos - 1)', '_pos') }} AS _rbp
  FROM _at GROUP BY _side, {{ gs }}_q
),
_map AS (
  SELECT {{ sqlndcg._diversity_g(p, 'c') }}c._q AS _q, {{ sqlndcg.ordered('SUM', 'c._t / i._n', 'c._i') }} AS _s
  FROM (SELECT {{ gs }}_q, _i, {{ sqlndcg.ordered('SUM', 'CAST(_c AS ' ~ d ~ ') / _pos', '_pos') }} AS _t FROM _counted WHERE _side = 1 GROUP BY {{ gs }}_q, _i) AS c
  JOIN _intents AS i ON i._q = c._q AND i._i = c._i
  GROUP BY {{ sqlndcg._diversity_g(p, 'c', false) }}c._q
)
{%- endmacro -%}

{#- ndeval's "ideal ideal" normalizer of alpha_dcg@k (kind dcg) or err_ia@k (kind err): sum_{i<k} A g^i times the
    discount of position i + 1, A = q._a. -#}
{%- macro _diversity_normalizer(p, kind, k) -%}
{%- set terms = [] -%}
{%- for i in range(k) -%}
  {%- set discount = sqlndcg._discount(i + 1) if kind == 'dcg' else '1.0 / ' ~ (i + 1) -%}
  {%- do terms.append('CAST(q._a AS ' ~ sqlndcg.double() ~ ') * POWER(' ~ sqlndcg._number(1 - p.alpha) ~ ', ' ~ i ~ ') * ' ~ discount) -%}
{%- endfor -%}
{{ return('(' ~ terms | join(' + ') ~ ')') }}
{%- endmacro -%}

{#- One metric's per-query value over q (_queries), r and i (the run's and the ideal's _sums) and m (_map). -#}
{%- macro _diversity_value(p, m) -%}
{%- set a, k = 'CAST(COALESCE(q._a, 0) AS ' ~ sqlndcg.double() ~ ')', m.k -%}
{%- set kind = {'alpha_dcg': 'dcg', 'alpha_ndcg': 'dcg', 'err_ia': 'err', 'nerr_ia': 'err'}.get(m.kind) -%}
{%- if kind -%}
  {%- set run, ideal = 'COALESCE(r._' ~ kind ~ k ~ ', 0)', 'i._' ~ kind ~ k -%}
  {%- set scaled = (run ~ ' / ' ~ sqlndcg._diversity_normalizer(p, kind, k)) if k > 1 else run -%}
  {%- if m.kind in ['alpha_dcg', 'err_ia'] -%}{{ return('CASE WHEN COALESCE(q._a, 0) = 0 THEN 0 ELSE ' ~ scaled ~ ' END') }}{%- endif -%}
  {%- set ideal_scaled = (ideal ~ ' / ' ~ sqlndcg._diversity_normalizer(p, kind, k)) if k > 1 else ideal -%}
  {{ return('CASE WHEN COALESCE(q._a, 0) = 0 OR ' ~ run ~ ' = 0 THEN 0 ELSE (' ~ scaled ~ ') / (' ~ ideal_scaled ~ ') END') }}
{%- elif m.kind in ['nrbp', 'nnrbp'] -%}
  {%- set c = '(1 - ' ~ sqlndcg._number(1 - p.alpha) ~ ' * ' ~ sqlndcg._number(p.beta) ~ ') / ' ~ a -%}
  {%- set run = 'COALESCE(r._rbp, 0) * ' ~ c -%}
  {%- if m.kind == 'nrbp' -%}{{ return('CASE WHEN COALESCE(q._a, 0) = 0 THEN 0 ELSE ' ~ run ~ ' END') }}{%- endif -%}
  {{ return('CASE WHEN COALESCE(q._present, 0) = 0 THEN 0 WHEN q._a = 0 THEN ' ~ sqlndcg.null_double() ~ ' ELSE (' ~ run ~ ') / (i._rbp * ' ~ c ~ ') END') }}
{%- elif m.kind == 'p_ia' -%}
  {{ return('CASE WHEN COALESCE(q._a, 0) = 0 THEN 0 ELSE COALESCE(r._m' ~ k ~ ', 0) / (' ~ k ~ ' * ' ~ a ~ ') END') }}
{%- elif m.kind == 'strec' -%}
  {{ return('CASE WHEN COALESCE(q._a, 0) = 0 THEN 0 ELSE COALESCE(r._new' ~ k ~ ', 0) / ' ~ a ~ ' END') }}
{%- else -%}
  {{ return('CASE WHEN COALESCE(q._a, 0) = 0 THEN 0 ELSE COALESCE(m._s, 0) / ' ~ a ~ ' END') }}
{%- endif -%}
{%- endmacro -%}

{#- The plan -> one SELECT: per query both in the run and in the judgments (ndeval's topics; queries='run': every
    run query, those without judgments 0 as ndeval prints them), query_id and one column per metric, by query. -#}
{%- macro _diversity_sql(p, ordered=true) -%}
WITH {{ sqlndcg._diversity_inputs(p) }}
{%- if p.ideal %}
_s0 AS (
  SELECT _q, _i, _d, 0 AS _p FROM _relevant
),
{%- for t in range(1, p.rounds + 1) %}
{{ sqlndcg._diversity_step(p, t) }}
{%- endfor %}
{%- endif %}
{{ sqlndcg._diversity_sums(p) }}
SELECT {% for c in p.groups %}rq._g{{ loop.index0 }} AS {{ c }}, {% endfor %}rq._q AS {{ p.query_id }}
  {%- if p.queries == 'run' %},
  CASE WHEN COALESCE(q._present, 0) = 0 THEN 0 ELSE 1 END AS {{ sqlndcg._quote('judged') }}
  {%- endif %}
  {%- for m in p.metrics %},
  {{ sqlndcg._diversity_value(p, m) }} AS {{ sqlndcg._quote(m.name) }}
  {%- endfor %}
FROM (SELECT DISTINCT {{ sqlndcg._diversity_g(p) }}_q FROM _run) AS rq
{{ 'LEFT JOIN' if p.queries == 'run' else 'JOIN' }} _queries AS q ON q._q = rq._q
LEFT JOIN _sums AS r ON r._q = rq._q{{ sqlndcg._diversity_on(p, 'r', 'rq') }} AND r._side = 1
LEFT JOIN _sums AS i ON i._q = rq._q AND i._side = 2
LEFT JOIN _map AS m ON m._q = rq._q{{ sqlndcg._diversity_on(p, 'm', 'rq') }}
{%- if ordered %}
ORDER BY {{ sqlndcg._diversity_g(p, 'rq', false) }}rq._q
{%- endif %}
{%- endmacro -%}

{#- The mean of each metric over the queries of _diversity_sql (NULLs, nnrbp's 0/0, left out), and their count;
    with group_by, one row per group; `per_query`: a table holding _diversity_sql's rows, read instead. -#}
{%- macro _diversity_summary_sql(p, per_query=none) -%}
SELECT {% for c in p.groups %}{{ c }}, {% endfor %}COUNT(*) AS {{ sqlndcg._quote('queries') }}
  {%- for m in p.metrics %},
  AVG({{ sqlndcg._quote(m.name) }}) AS {{ sqlndcg._quote(m.name) }}
  {%- endfor %}
FROM {{ per_query or '(' ~ sqlndcg._diversity_sql(p, false) ~ ')' }} AS per_query
{%- if p.groups %}
GROUP BY {{ p.groups | join(', ') }}
ORDER BY {{ p.groups | join(', ') }}
{%- endif %}
{%- endmacro -%}

{#- The per-query table of _diversity_sql kept as `relation` (compare's), read back in its order. -#}
{%- macro _diversity_rows_sql(p, relation) -%}
SELECT * FROM {{ relation }} AS per_query
ORDER BY {% for c in p.groups %}{{ c }}, {% endfor %}{{ p.query_id }}
{%- endmacro -%}

{#- The per-query table of _diversity_sql described as the statements' templates read a per-query relation
    (groups, query and metric columns with their summary columns): the summary (summary.sql, its t intervals) and
    compare's paired statements (compare.sql) run on diversity's values through it. -#}
{%- macro _diversity_table_plan(p) -%}
{%- set groups, metrics = [], [] -%}
{%- for g in p.settings.group_by -%}{%- do groups.append({'name': g, 'output': sqlndcg._quote(g)}) -%}{%- endfor -%}
{%- for m in p.metrics -%}
  {%- do metrics.append({'name': m.name, 'column': sqlndcg._quote(m.name), 'count_column': sqlndcg._quote(m.name ~ '_count'),
                         'std_column': sqlndcg._quote(m.name ~ '_std'), 'ci_low_column': sqlndcg._quote(m.name ~ '_ci_low'),
                         'ci_high_column': sqlndcg._quote(m.name ~ '_ci_high')}) -%}
{%- endfor -%}
{{ return({'groups': groups, 'metrics': metrics, 'query_output': p.query_id, 'queries_output': sqlndcg._quote('queries')}) }}
{%- endmacro -%}

{#- Ad hoc judgments from judgments with intents: one row per (query, document), its largest grade over the
    intents (relevant when relevant to any intent), under the judgments' own column names: what the accuracy
    metrics of a mixed list read. A convention, not TREC's own ad hoc qrels (the Web track judged those apart:
    docs/diversity.md). -#}
{%- macro _diversity_ad_hoc_sql(judgments, query_id, doc_id, rel) -%}
{%- set q, d, r = sqlndcg._quote(query_id), sqlndcg._quote(doc_id), sqlndcg._quote(rel) -%}
SELECT _aq AS {{ q }}, _ad AS {{ d }}, _ar AS {{ r }}
FROM (
  SELECT {{ q }} AS _aq, {{ d }} AS _ad, MAX({{ r }}) AS _ar
  FROM {{ judgments.sql }} AS judgment_input
  GROUP BY {{ q }}, {{ d }}
) AS ad_hoc
ORDER BY _aq, _ad
{%- endmacro -%}

{#- dbt entry point: per query, the diversity measures of a run against judgments with an intent column. -#}
{%- macro diversity(run=none, judgments=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._diversity_sql(sqlndcg._diversity_plan(sqlndcg._input_relation('run', run), sqlndcg._input_relation('judgments', judgments), kwargs))) }}
{%- endmacro -%}
