{#-
  sqlndcg: every requested metric, at every cutoff, for every (group, query), in one statement.

  Definitions (SEMANTICS.md), with rel_i the label at position i (0 if unjudged) and g() the gain:
    CG@k   = sum_{i<=k} max(rel_i, 0)
    DCG@k  = sum_{i<=k} g(rel_i) / log2(i + 1)
    IDCG@k = DCG@k of the ideal ranking (all judged documents, or only the retrieved ones, by gain descending)
    NDCG@k = DCG@k / IDCG@k                      (IDCG = 0 for lack of any gain: the `empty` setting)
    P@k    = relevant in top k / k               (`short_lists`: pad divides by k, truncate by min(k, n))
    R@k    = relevant in top k / R               (R = judged documents with rel >= threshold)
    AP@k   = sum_{relevant i<=k} P@i / R         (trec_eval map_cut; AP = full depth)
    RR@k   = 1 / first relevant position <= k, else 0
    Hit@k  = 1 if any relevant document in top k
    Judged@k = judged documents in top k / k     (a judgment with rel >= 0)
  Ranking: score descending (ascending under lower_is_better: distances), ties by doc_id descending in byte order
  (trec_eval), or tie-averaged (McSherry & Najork), or the run's own rank. Each query's documents are ranked once (one ROW_NUMBER) and every metric reads that ranking.

  Every measure lives in its own file under measures/ (definition on top, its SQL below, registered in
  measures/registry.sql). This statement computes the shared part once: the ranking, the labels joined to it, the
  running sums in rank order and the per-query totals, but only those some requested measure `needs`:
    hits_at, judged_at, dcg_at, cg_at, ap_at, ideal_at   per cutoff: running sums read at the cutoff
    first        first relevant position              totals     relevant and judged documents retrieved
    r            R per threshold (per query)          r_rows     R and judged non-relevant counts on every row
    nonrel_run   running judged non-relevant count     pool_run   running count of negative (pooled unjudged) labels
    max_rel_rows the query's largest label on every row
    ideal_rows   the ideal ranking's gain and IDCG at each run position, G's running cost, boundary flags
    ideal_totals positive-gain documents, their total gain and IDCG     ideal_tail  Rndcg's boundaries past the list
    in_run       whether the run answered the query   own        the measure's own aggregates (registry.sql)
  Any other name a measure needs is a shared aggregate that a measure file declares (ERR's cascade: err.sql), with
  two macros found by name (adapter.dispatch, as the registry finds a measure's), so a new one is no edit here:
    default__shared_<need>(p)                    {labels, top_grade, stages, rank_sums, ideal_sums}: the label
                                                 columns the ranked rows carry, whether it reads the judgments'
                                                 top grade (tg._top), the stages it adds columns to (scored,
                                                 positioned, accumulated; then the macro below gives them), and
                                                 the sums read at each cutoff of a metric that needs it, each
                                                 {name, term, value}: rank_sums add `term` (over positioned's
                                                 columns: _gain_at, ...) in rank order, ideal_sums add `term` (over
                                                 _gain and _ideal_pos) in the ideal ranking's order, beside IDCG
                                                 and under the same `ideal` and `short_lists` (so the measure
                                                 needs ideal_at as well); a value macro reads
                                                 the sum at its cutoff as a.<value> (NCG's gain_at, ideal_gain_at:
                                                 ncg.sql)
    default__shared_<need>_columns(stage, p, f)  that stage's columns, as SQL ('expression AS name'): in scored
                                                 over r (top_ranked; its label columns when f.join_first), l
                                                 (labels) and tg; in positioned and accumulated over the stage
                                                 before, with the windows f.running and f.before

  Reading it: per_query_sql lists the statement's stages (its CTEs) in order; each stage is a macro of its own
  below (per_query_<stage>, with a line saying what it computes), and per_query_flags derives once, at the top,
  what the stages compute and how (`f`).

  The plan `p` is plain data (lists, dicts, strings, validated numbers; identifiers already quoted), so the same
  macro renders from Python and from dbt. Written in DuckDB SQL restricted to a portable subset; what differs
  between engines is in dialects/rules.sql.
-#}

{#- ordered=false leaves out the final ORDER BY, for a relation read further (a table Python fetches in order,
    a comparison's input): one sort of the result fewer. Per call, not in the plan: `bucket` ({index, count}, one
    pass of partitions: only its queries' rows) and `longest_list` (the account's longest run list, when the input
    checks counted it). -#}
{%- macro _per_query_sql(p, ordered=true, bucket=none, longest_list=none) -%}
{%- set uppers = [] -%}{%- for m in p.metrics if 'bound_of' in m -%}{%- do uppers.append(m) -%}{%- endfor -%}
{%- if uppers -%}
{{ sqlndcg._per_query_bounds(p, uppers, ordered, bucket, longest_list) }}
{%- else -%}
{%- set f = sqlndcg._per_query_flags(p, longest_list) -%}
WITH run_rows AS{{ sqlndcg._input_cte(p, 'run', bucket) }} (
  {{ sqlndcg._run_rows(p, bucket) }}
),
judgment_rows AS{{ sqlndcg._input_cte(p, 'judgments', bucket) }} (
  {{ sqlndcg._judgment_rows(p.get('judged_plan', p), bucket) }}
),
{%- if f.needs_top_grade %}
{{ sqlndcg._per_query_top_grade(p, f, bucket) }},
{%- endif %}
{%- if p.get('upper') %}
{{ sqlndcg._per_query_upper_rows(p, f, bucket) }},
{%- endif %}
{{ sqlndcg._per_query_labels(p, f) }},
{{ sqlndcg._per_query_judged_queries(p, f) }},
{{ sqlndcg._per_query_run_queries(p, f) }},
{{- sqlndcg._per_query_ranking(p, f) }},
{%- if f.needs_ideal %}
{{ sqlndcg._per_query_ideal(p, f) }},
{%- endif %}
{%- if f.needs_ideal_totals %}
{{ sqlndcg._per_query_ideal_totals(p, f) }},
{%- endif %}
{{ sqlndcg._per_query_scored(p, f) }},
{{ sqlndcg._per_query_positioned(p, f) }},
{{ sqlndcg._per_query_accumulated(p, f) }},
{{ sqlndcg._per_query_run_metrics(p, f) }},
{%- if f.needs_tail %}
{{ sqlndcg._per_query_ideal_tail(p, f) }},
{%- endif %}
{%- if f.needs_idcg and p.ideal == 'judgments' %}
{{ sqlndcg._per_query_ideal_dcg(p, f) }},
{%- endif %}
{{ sqlndcg._per_query_scored_queries(p, f, bucket) }}
{{ sqlndcg._per_query_result(p, f, ordered) }}
{%- endif -%}
{%- endmacro -%}


{#- The ranking stages, from the labels to each list's ranked top (labelled, cut, ranked, refiltered,
    top_ranked): one chain, which explain.sql reads too, so its positions are the statement's. -#}
{%- macro _per_query_ranking(p, f) -%}
{%- if f.top_n == 'shared' %}
top_ranked AS (
  {#- The ranked top the checks made (run_top.sql). #}
  SELECT {{ f.g_cols }}_q, _d, _pos
  FROM {{ p.top_table }}
)
{%- elif f.top_n == 'aggregate' %}
{{ sqlndcg._per_query_top_listed(p, f) }}
{%- else %}
{%- if f.join_first %}
{{ sqlndcg._per_query_labelled(p, f) }},
{%- endif %}
{%- if f.cut %}
{{ sqlndcg._per_query_cut(p, f) }},
{%- endif %}
{{ sqlndcg._per_query_ranked(p, f) }},
{%- if f.refilter %}
{{ sqlndcg._per_query_refiltered(p, f) }},
{%- endif %}
{{ sqlndcg._per_query_top_ranked(p, f) }}
{%- endif %}
{%- endmacro -%}


{#- What the statement computes, derived once from the plan (what the metrics `need`, the settings) and the call's
    longest_list: every stage macro below reads these flags (`f`) and names instead of deriving its own. -#}
{%- macro _per_query_flags(p, longest_list=none) -%}
{%- set needs = p.needs -%}
{%- set needs_dcg = 'dcg_at' in needs or 'ideal_rows' in needs -%}
{%- set needs_idcg = 'ideal_at' in needs -%}
{%- set needs_hits = 'hits_at' in needs or 'totals' in needs or 'own' in needs -%}
{%- set needs_ap = 'ap_at' in needs -%}
{%- set needs_rr = 'first' in needs -%}
{%- set needs_cg = 'cg_at' in needs -%}
{%- set needs_judged = 'judged_at' in needs or 'totals' in needs -%}
{%- set needs_rows = 'r_rows' in needs or 'nonrel_run' in needs -%}
{%- set needs_ideal_rows = 'ideal_rows' in needs -%}
{%- set needs_ideal_totals = 'ideal_totals' in needs or needs_ideal_rows -%}
{%- set needs_max_rel = 'max_rel_rows' in needs -%}
{%- set needs_tail = 'ideal_tail' in needs -%}
{#- Where sums come from lists and only the ideal's top k is read (its DCG at cutoffs), each query's k best gains
    are one top-N aggregate over its judgments (ideal_listed), in the order the ideal ranking would number them. -#}
{%- set ideal_listed = sqlndcg.list_sums() and p.prune_k and needs_idcg and p.ideal == 'judgments'
    and not needs_ideal_rows and not needs_ideal_totals and not needs_tail and not p.get('many_lists') -%}
{%- set needs_ideal = ((needs_idcg and p.ideal == 'judgments') or needs_ideal_rows or needs_ideal_totals) and not ideal_listed -%}
{%- set hooks = sqlndcg._per_query_hooks(p) -%}
{%- set rank_sums, ideal_sums = sqlndcg._per_query_hook_sums(hooks, 'rank_sums'), sqlndcg._per_query_hook_sums(hooks, 'ideal_sums') -%}
{%- set average = p.ties == 'average' -%}
{#- Relevant and judged counts within a cutoff are sums of 0/1 values, exact in any order, so they are plain sums in
    run_metrics, not running sums in rank order (a window's sort fewer), unless ties are averaged (fractions) or
    a measure's own aggregates read the running count. -#}
{%- set counted_hits = not average and 'own' not in needs -%}
{%- set counted_judged = not average -%}
{%- set refilter = p.judged_only or p.depth is not none -%}
{#- When every retrieved document is read (no cutoff prunes the lists), the labels are joined before the ranking,
    so the running counts that need only the labels (AP's relevant-so-far) share the ranking's sort: one sort of
    the whole run fewer. With a cutoff, only the top of each list is joined, after the ranking. -#}
{%- set join_first = not p.prune_k and not refilter -%}
{#- The cut is skipped when the input checks found no list longer than k (longest_list, from the account's
    pass): every row is a candidate then, and ranking them directly is faster and holds less. -#}
{#- How each list's top k is found where every metric has a cutoff (top_n, dialects/rules.sql): a top-N aggregate, a
    ROW_NUMBER the engine plans as a per-group limit, or the cut below. Tie-averaged and refiltered lists rank
    every candidate (the cut). -#}
{#- 'shared': the checks made the ranked top once, for the account and this statement (run_top.sql). -#}
{%- set top_n = 'shared' if p.get('top_table') else (sqlndcg.top_n(p) if p.prune_k and not refilter and not average else 'cut') -%}
{%- set cut = p.prune_k and not refilter and top_n == 'cut' and not (longest_list and longest_list <= p.prune_k) -%}
{#- The label columns (joined to the run before or after the ranking), the running relevant counts AP reads, and
    which of them the ranking carries when the labels are joined first. -#}
{%- set carried_labels = ['_rel'] if needs_max_rel else [] -%}
{%- for h in hooks %}{% for c in h.labels if c not in carried_labels %}{% do carried_labels.append(c) %}{% endfor %}{% endfor -%}
{%- set label_cols = ['_gain', '_cg'] + carried_labels -%}
{%- for t in p.thresholds %}{% do label_cols.append('_rel_t' ~ loop.index0) %}{% if needs_rows %}{% do label_cols.append('_nonrel_t' ~ loop.index0) %}{% endif %}{% endfor -%}
{%- do label_cols.extend(['_pool', '_judged']) -%}
{%- set seen_cols = [] -%}
{%- if needs_ap %}{% for t in p.thresholds %}{% do seen_cols.append('_seen_t' ~ loop.index0) %}{% endfor %}{% endif -%}
{%- set carried = label_cols + seen_cols if join_first else [] -%}
{#- Window orders spell out their NULL placement (no value here is NULL) as each engine's default for that direction
    is most common: descending with NULLS LAST, ascending with NULLS FIRST; so transpiled SQL needs no emulation. -#}
{%- set first, last = sqlndcg.nulls('FIRST'), sqlndcg.nulls('LAST') -%}
{%- set descending = sqlndcg._descending(p) -%}
{%- set direction = ('DESC' ~ last) if descending else ('ASC' ~ first) -%}
{%- set shared = p.groups | selectattr('shared') | list -%}
{#- The group columns' internal names as a prefix of a key list (all groups; the judgments' shared ones). -#}
{%- set g_cols %}{% for g in p.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set s_cols %}{% for g in shared %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set running %}PARTITION BY {{ g_cols }}_q ORDER BY _pos{{ first }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW{% endset -%}
{%- set before %}PARTITION BY {{ g_cols }}_q ORDER BY _pos{{ first }} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING{% endset -%}
{#- The per-position values that ties='average' averages over each tied group. -#}
{%- set ns = namespace(values=['_gain', '_cg', '_judged']) -%}
{%- for t in p.thresholds %}{% set ns.values = ns.values + ['_rel_t' ~ loop.index0] %}{% endfor -%}
{#- The sums that metrics read at a cutoff, as [name, term, order], where they are summed from the list of their
    terms in rank order (list_sums, dialects/rules.sql; empty elsewhere: running window sums read at the cutoff): the
    additions trec_eval's loops make, in their order, whatever the input's size or the thread count. -#}
{%- set listed = [] -%}
{%- if sqlndcg.list_sums() -%}
  {%- if 'dcg_at' in needs %}{% do listed.append(['_dcg', sqlndcg._discounted('_gain_at', '_pos'), '_pos']) %}{% endif -%}
  {%- if needs_cg %}{% do listed.append(['_cg', '_cg_at', '_pos']) %}{% endif -%}
  {%- for s in rank_sums %}{% do listed.append([s.name, s.term, '_pos']) %}{% endfor -%}
  {%- if needs_ap %}{% for t in p.thresholds -%}
    {%- do listed.append(['_ap_t' ~ loop.index0, 'CASE WHEN _rel_t' ~ loop.index0 ~ ' = 1 THEN CAST(_seen_t' ~ loop.index0 ~ ' AS ' ~ sqlndcg.double() ~ ') / _pos ELSE 0 END', '_pos']) -%}
  {%- endfor %}{% endif -%}
  {%- if needs_idcg and p.ideal == 'retrieved' -%}
    {%- do listed.append(['_idcg', sqlndcg._discounted('_gain', '_ideal_pos'), '_ideal_pos']) -%}
    {%- for s in ideal_sums %}{% do listed.append([s.name, s.term, '_ideal_pos']) %}{% endfor -%}
  {%- endif -%}
{%- endif -%}
{%- set listed_names = [] -%}{%- for x in listed %}{% do listed_names.append(x[0]) %}{% endfor -%}
{#- Each measure's own aggregates (measures/<family>.sql), as [alias, expression] pairs. -#}
{%- set own = [] -%}
{%- for m in p.metrics -%}
  {%- for pair in sqlndcg._measure_aggregates(m, p) -%}{%- do own.append([m.id ~ '_' ~ pair[0], pair[1]]) -%}{%- endfor -%}
{%- endfor -%}
{{ return({
  'needs_dcg': needs_dcg, 'needs_idcg': needs_idcg, 'needs_hits': needs_hits, 'needs_ap': needs_ap,
  'needs_rr': needs_rr, 'needs_cg': needs_cg, 'needs_judged': needs_judged, 'needs_rows': needs_rows,
  'needs_ideal_rows': needs_ideal_rows, 'needs_ideal_totals': needs_ideal_totals, 'needs_ideal': needs_ideal,
  'needs_max_rel': needs_max_rel, 'needs_tail': needs_tail, 'average': average, 'counted_hits': counted_hits,
  'counted_judged': counted_judged, 'refilter': refilter, 'join_first': join_first, 'cut': cut,
  'label_cols': label_cols, 'seen_cols': seen_cols, 'carried': carried, 'first': first, 'last': last,
  'direction': direction, 'shared': shared, 'g_cols': g_cols, 's_cols': s_cols, 'running': running, 'before': before,
  'averaged': ns.values, 'own': own, 'hooks': hooks, 'rank_sums': rank_sums, 'ideal_sums': ideal_sums,
  'needs_top_grade': hooks | selectattr('top_grade') | list | length > 0 or (p.get('upper', false) and p.get('unjudged_grade') is none),
  'rank_order': sqlndcg._rank_order('_key', sqlndcg._tie_doc(p), descending), 'descending': descending,
  'listed': listed, 'listed_names': listed_names, 'list_sums': sqlndcg.list_sums(), 'top_n': top_n, 'ideal_listed': ideal_listed,
}) }}
{%- endmacro -%}



{#- The aggregates this statement computes itself (the header's list). Any other name in the plan's `needs` is a
    shared aggregate declared by a measure file (default__shared_<need>, the header says how). -#}
{%- macro _per_query_builtin_needs() -%}
{{ return(['hits_at', 'judged_at', 'dcg_at', 'cg_at', 'ap_at', 'ideal_at', 'first', 'totals', 'r', 'r_rows',
           'nonrel_run', 'pool_run', 'max_rel_rows', 'ideal_rows', 'ideal_totals', 'ideal_tail', 'in_run',
           'own']) }}
{%- endmacro -%}

{#- The shared aggregates the metrics need that measure files declare, each as the header says, with its `need`. -#}
{%- macro _per_query_hooks(p) -%}
{%- set hooks = [] -%}
{%- for need in p.needs if need not in sqlndcg._per_query_builtin_needs() -%}
  {%- set about = {'need': need, 'labels': [], 'top_grade': false, 'stages': [], 'rank_sums': [], 'ideal_sums': []} -%}
  {%- do about.update(sqlndcg._dispatched('shared_' ~ need)(p)) -%}
  {%- do hooks.append(about) -%}
{%- endfor -%}
{{ return(hooks) }}
{%- endmacro -%}

{#- The hooks' sums of one kind (rank_sums, ideal_sums), each {name, term, value, need}. -#}
{%- macro _per_query_hook_sums(hooks, kind) -%}
{%- set sums = [] -%}
{%- for h in hooks -%}
  {%- for s in h[kind] %}{% set x = {'need': h.need} %}{% do x.update(s) %}{% do sums.append(x) %}{% endfor -%}
{%- endfor -%}
{{ return(sums) }}
{%- endmacro -%}

{#- The columns the shared aggregates add to one stage (scored, positioned, accumulated), in the order of `needs`. -#}
{%- macro _per_query_hook_columns(stage, p, f) -%}
{%- set columns = [] -%}
{%- for h in f.hooks if stage in h.stages -%}
  {%- do columns.extend(sqlndcg._dispatched('shared_' ~ h.need ~ '_columns')(stage, p, f)) -%}
{%- endfor -%}
{{ return(columns) }}
{%- endmacro -%}

{#- The statement's stages, in the order they appear in it. -#}

{#- Each judgment's label, gain and 0/1 columns per relevance threshold. -#}
{%- macro _per_query_labels(p, f) -%}
labels AS (
  SELECT
    {{ f.s_cols }}_q, _d, _rel,
    {{ sqlndcg._gain('_rel', p) }} AS _gain,
    CASE WHEN _rel > 0 THEN _rel ELSE 0 END AS _cg,
    {%- for t in p.thresholds %}
    CASE WHEN _rel >= {{ sqlndcg._number(t) }} THEN 1 ELSE 0 END AS _rel_t{{ loop.index0 }},
    CASE WHEN _rel >= 0 AND _rel < {{ sqlndcg._number(t) }} THEN 1 ELSE 0 END AS _nonrel_t{{ loop.index0 }},
    {%- endfor %}
    CASE WHEN _rel < 0 THEN 1 ELSE 0 END AS _pool,
    CASE WHEN _rel >= 0 THEN 1 ELSE 0 END AS _judged
  FROM {{ 'upper_rows' if p.get('upper') else 'judgment_rows' }}
)
{%- endmacro -%}

{#- Per judged (shared group, query): R and judged non-relevant per threshold, the largest label, any gain. -#}
{%- macro _per_query_judged_queries(p, f) -%}
judged_queries AS (
  SELECT
    {{ f.s_cols }}_q,
    {%- for t in p.thresholds %}
    SUM(_rel_t{{ loop.index0 }}) AS _r_t{{ loop.index0 }},
    SUM(_nonrel_t{{ loop.index0 }}) AS _nr_t{{ loop.index0 }},
    {%- endfor %}
    MAX(_cg) AS _max_rel,
    MAX(CASE WHEN _gain > 0 THEN 1 ELSE 0 END) AS _has_gain
  FROM labels
  GROUP BY {{ f.s_cols }}_q
)
{%- endmacro -%}

{#- The (group, query) pairs of the run, marked as answered. -#}
{%- macro _per_query_run_queries(p, f) -%}
run_queries AS (
  {#- Every (group, query) the run answered, before any document is cut by depth or judged_only. #}
  {%- if f.top_n == 'shared' %}
  SELECT {{ f.g_cols }}_q, 1 AS _in_run
  FROM {{ p.top_table }}
  WHERE _pos = 1
  {%- else %}
  SELECT DISTINCT {{ f.g_cols }}_q, 1 AS _in_run
  FROM run_rows
  {%- endif %}
)
{%- endmacro -%}

{#- The run's rows with their labels, when the labels are joined before the ranking (no cutoff prunes). -#}
{%- macro _per_query_labelled(p, f) -%}
labelled AS (
  {#- ClickHouse fills unmatched LEFT JOIN columns with 0/'' instead of NULL, so every joined value is read
      through COALESCE and never tested with IS NULL. #}
  SELECT
    {%- for g in p.groups %}
    r.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    r._q AS _q, r._d AS _d, r._key AS _key
    {%- for c in f.label_cols %},
    COALESCE(l.{{ c }}, 0) AS {{ c }}
    {%- endfor %}
  FROM run_rows AS r
  LEFT JOIN labels AS l
    ON l._q = r._q AND l._d = r._d{% for g in f.shared %} AND l.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
)
{%- endmacro -%}

{#- Each list's k-th best key and the rows that can reach the top k (list_cut, candidates). -#}
{%- macro _per_query_cut(p, f) -%}
list_cut AS (
  {#- The k-th best key of each list (its last, if the list is shorter): every document that can reach the top k
      has a key at least as good, so ranking only those gives every position the same document. A one-key
      ROW_NUMBER filtered to k is a per-group top-k that engines run in little memory, where ranking by (key, doc)
      needs more. #}
  SELECT {{ f.g_cols }}_q, {{ 'MIN' if f.descending else 'MAX' }}(_key) AS _cut
  FROM (
    SELECT {{ f.g_cols }}_q, _key, ROW_NUMBER() OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY _key {{ f.direction }}) AS _n
    FROM run_rows
  ) AS by_key
  WHERE _n <= {{ p.prune_k }}
  GROUP BY {{ f.g_cols }}_q
),
candidates AS (
  SELECT {% for g in p.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._q AS _q, r._d AS _d, r._key AS _key
  FROM run_rows AS r
  JOIN list_cut AS c
    ON c._q = r._q{% for g in p.groups %} AND c.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  {#- A NULL key (refused by the input checks; possible in an unchecked dbt model) ranks last, as before the cut. #}
  WHERE r._key {{ '>=' if f.descending else '<=' }} c._cut OR r._key IS NULL
)
{%- endmacro -%}

{#- Each list ranked once: positions (and tie groups, running relevant counts when joined first). -#}
{%- macro _per_query_ranked(p, f) -%}
ranked AS (
  SELECT
    {{ f.g_cols }}_q, _d, _key,
    {%- for c in f.label_cols if f.join_first %}
    {{ c }},
    {%- endfor %}
    {%- for t in f.seen_cols if f.join_first %}
    SUM(_rel_t{{ loop.index0 }}) OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY {{ f.rank_order }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS {{ t }},
    {%- endfor %}
    ROW_NUMBER() OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY {{ f.rank_order }}) AS _pos
    {%- if f.average %},
    RANK() OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY _key {{ f.direction }}) AS _tie_start
    {%- endif %}
  FROM {{ 'labelled' if f.join_first else ('candidates' if f.cut else 'run_rows') }}
)
{%- endmacro -%}

{#- Each list's top k by a top-N aggregate (top_n = 'aggregate'): the k best documents by one order-preserving
    key (key, then document, as rank_order orders them), held k at a time per list instead of sorting the list,
    then numbered in that order. -#}
{%- macro _per_query_top_listed(p, f) -%}
top_lists AS (
  SELECT {{ f.g_cols }}_q, {{ sqlndcg._top_documents(p, p.prune_k) }} AS _docs
  FROM run_rows
  GROUP BY {{ f.g_cols }}_q
),
top_ranked AS (
  SELECT {{ f.g_cols }}_q, unnest(_docs) AS _d, unnest(range(1, len(_docs) + 1)) AS _pos
  FROM top_lists
)
{%- endmacro -%}

{#- The list (DuckDB) of a group's k best documents in rank order, by one sort key: the key, then the document
    as rank_order orders them (an aggregate over run_rows grouped by list). -#}
{%- macro _top_documents(p, k) -%}
{%- set key_order = 'DESC NULLS LAST' if sqlndcg._descending(p) else 'ASC NULLS FIRST' -%}
{{ return("min_by(_d, create_sort_key(_key, '" ~ key_order ~ "', " ~ sqlndcg._tie_doc(p) ~ ", 'DESC NULLS LAST'), " ~ k ~ ")") }}
{%- endmacro -%}

{#- trec_eval -M/-J: the kept rows ranked again (kept, reranked). -#}
{%- macro _per_query_refiltered(p, f) -%}
kept AS (
  {#- trec_eval -M (depth): the top `depth` of each list; -J (judged_only): then only judged documents, ranked again
      in the same order. #}
  SELECT {% for g in p.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._q AS _q, r._d AS _d, r._key AS _key, r._pos AS _pos0{% if f.average %}, r._tie_start AS _tie_start{% endif %}
  FROM ranked AS r
  {%- if p.judged_only %}
  JOIN labels AS l
    ON l._q = r._q AND l._d = r._d{% for g in f.shared %} AND l.{{ g.alias }} = r.{{ g.alias }}{% endfor %} AND l._judged = 1
  {%- endif %}
  {%- if p.depth is not none %}
  WHERE r._pos <= {{ p.depth }}
  {%- endif %}
),
reranked AS (
  SELECT {{ f.g_cols }}_q, _d, _key, ROW_NUMBER() OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY _pos0{{ f.first }}) AS _pos{% if f.average %}, _tie_start{% endif %}
  FROM kept
)
{%- endmacro -%}

{#- The top of each list that any metric reads. -#}
{%- macro _per_query_top_ranked(p, f) -%}
top_ranked AS (
  {#- Only the top of each list is joined to the judgments when every metric has a cutoff; tied groups that
      start inside the cutoff are kept whole, because their average needs every member. #}
  SELECT {{ f.g_cols }}_q, _d, _key, _pos{% if f.average %}, _tie_start{% endif %}{% for c in f.carried %}, {{ c }}{% endfor %}
  FROM {{ 'reranked' if f.refilter else 'ranked' }}
  {%- if p.prune_k %}
  WHERE {% if f.average %}_tie_start{% else %}_pos{% endif %} <= {{ p.prune_k }}
  {%- endif %}
)
{%- endmacro -%}

{#- The ideal ranking of the judged gains and its running IDCG (ideal_order, ideal_ranking). -#}
{%- macro _per_query_ideal(p, f) -%}
ideal_order AS (
  SELECT {{ f.s_cols }}_q, _gain,
    ROW_NUMBER() OVER (PARTITION BY {{ f.s_cols }}_q ORDER BY _gain DESC) AS _ideal_pos
  FROM labels
  WHERE _gain > 0
),
ideal_ranking AS (
  SELECT {{ f.s_cols }}_q, _ideal_pos, _gain
    {%- if not f.list_sums %},
    SUM({{ sqlndcg._discounted('_gain', '_ideal_pos') }}) OVER (PARTITION BY {{ f.s_cols }}_q ORDER BY _ideal_pos{{ f.first }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _idcg_run
    {%- endif %}
    {%- for s in f.ideal_sums if not f.list_sums %},
    SUM({{ s.term }}) OVER (PARTITION BY {{ f.s_cols }}_q ORDER BY _ideal_pos{{ f.first }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS {{ s.name }}_run
    {%- endfor %}
    {%- if f.needs_ideal_rows %},
    {#- The last position of each gain level of the ideal ranking (Rndcg's boundaries). #}
    CASE WHEN _gain <> COALESCE(LEAD(_gain) OVER (PARTITION BY {{ f.s_cols }}_q ORDER BY _ideal_pos{{ f.first }}), 0) THEN 1 ELSE 0 END AS _boundary
    {%- endif %}
  FROM ideal_order
  {%- if p.prune_k and not f.needs_ideal_totals %}
  {#- Only the top of the ideal ranking is read: a filtered ROW_NUMBER lets an engine keep the top k per query
      (DuckDB's per-group top-k) instead of sorting every relevant judgment. #}
  WHERE _ideal_pos <= {{ p.prune_k }}
  {%- endif %}
)
{%- endmacro -%}

{#- Per query: positive-gain documents, their total gain and the full IDCG. -#}
{%- macro _per_query_ideal_totals(p, f) -%}
ideal_totals AS (
  SELECT {{ f.s_cols }}_q, COUNT(*) AS _npos,
    {%- if f.list_sums %}
    {{ sqlndcg._list_prefix_sum('list(_gain ORDER BY _ideal_pos)', none) }} AS _ideal_gain,
    {{ sqlndcg._list_prefix_sum('list(' ~ sqlndcg._discounted('_gain', '_ideal_pos') ~ ' ORDER BY _ideal_pos)', none) }} AS _idcg_total
    {%- else %}
    SUM(_gain) AS _ideal_gain, MAX(_idcg_run) AS _idcg_total
    {%- endif %}
  FROM ideal_ranking
  GROUP BY {{ f.s_cols }}_q
)
{%- endmacro -%}

{#- The largest label of the whole judgments table (every query and group; all of it even in a pass over one
    bucket of queries), 0 if none is positive: ERR's default top grade. -#}
{%- macro _per_query_top_grade(p, f, bucket) -%}
top_grade AS (
  SELECT CASE WHEN MAX(_rel) > 0 THEN MAX(_rel) ELSE 0 END AS _top
  FROM {% if bucket %}(
  {{ sqlndcg._judgment_rows(p.get('judged_plan', p)) }}
  ) AS all_judgments{% else %}judgment_rows{% endif %}
)
{%- endmacro -%}

{#- The ranked rows with their labels, R counts and ideal values joined. -#}
{%- macro _per_query_scored(p, f) -%}
scored AS (
  {#- ClickHouse fills unmatched LEFT JOIN columns with 0/'' instead of NULL, so every joined value is read
      through COALESCE and never tested with IS NULL. #}
  SELECT
    {%- for g in p.groups %}
    r.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    {%- for c in f.carried %}
    r.{{ c }} AS {{ c }},
    {%- endfor %}
    {%- if not f.join_first %}
    COALESCE(l._gain, 0) AS _gain,
    COALESCE(l._cg, 0) AS _cg,
    {%- endif %}
    {%- if f.needs_max_rel %}
    {%- if not f.join_first %}
    COALESCE(l._rel, 0) AS _rel,
    {%- endif %}
    COALESCE(jq._max_rel, 0) AS _max_rel,
    {%- endif %}
    {%- for t in p.thresholds %}
    {%- if not f.join_first %}
    COALESCE(l._rel_t{{ loop.index0 }}, 0) AS _rel_t{{ loop.index0 }},
    {%- endif %}
    {%- if f.needs_rows %}
    {%- if not f.join_first %}
    COALESCE(l._nonrel_t{{ loop.index0 }}, 0) AS _nonrel_t{{ loop.index0 }},
    {%- endif %}
    COALESCE(jq._r_t{{ loop.index0 }}, 0) AS _r_t{{ loop.index0 }},
    COALESCE(jq._nr_t{{ loop.index0 }}, 0) AS _nr_t{{ loop.index0 }},
    {%- endif %}
    {%- endfor %}
    {%- if f.needs_ideal_rows %}
    COALESCE(i._gain, 0) AS _igain,
    COALESCE(i._boundary, 0) AS _boundary,
    {%- if not f.list_sums %}
    {#- IDCG stops growing after the last positive-gain document of the ideal ranking. #}
    CASE WHEN COALESCE(i._ideal_pos, 0) > 0 THEN i._idcg_run ELSE COALESCE(it._idcg_total, 0) END AS _idcg_at,
    {%- endif %}
    {%- endif %}
    {%- if not f.join_first %}
    COALESCE(l._pool, 0) AS _pool,
    COALESCE(l._judged, 0) AS _judged,
    {%- endif %}
    {%- for c in sqlndcg._per_query_hook_columns('scored', p, f) %}
    {{ c }},
    {%- endfor %}
    r._q AS _q, r._d AS _d,{% if f.top_n not in ('aggregate', 'shared') %} r._key AS _key,{% endif %} r._pos AS _pos
  FROM top_ranked AS r
  {%- if not f.join_first %}
  LEFT JOIN labels AS l
    ON l._q = r._q AND l._d = r._d{% for g in f.shared %} AND l.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  {%- endif %}
  {%- if f.needs_rows or f.needs_max_rel %}
  LEFT JOIN judged_queries AS jq
    ON jq._q = r._q{% for g in f.shared %} AND jq.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  {%- endif %}
  {%- if f.needs_ideal_rows %}
  LEFT JOIN ideal_ranking AS i
    ON i._q = r._q AND i._ideal_pos = r._pos{% for g in f.shared %} AND i.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  LEFT JOIN ideal_totals AS it
    ON it._q = r._q{% for g in f.shared %} AND it.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  {%- endif %}
  {%- if f.needs_top_grade %}
  CROSS JOIN top_grade AS tg
  {%- endif %}
)
{%- endmacro -%}

{#- Per position: the values the running sums read (tie-averaged under ties='average'). -#}
{%- macro _per_query_positioned(p, f) -%}
positioned AS (
  SELECT
    {{ f.g_cols }}_q, _pos, _judged, _pool,
    {%- for t in p.thresholds %}
    _rel_t{{ loop.index0 }},
    {%- if f.needs_rows %}
    _nonrel_t{{ loop.index0 }}, _r_t{{ loop.index0 }}, _nr_t{{ loop.index0 }},
    {%- endif %}
    {%- endfor %}
    {%- if f.needs_max_rel %}
    _rel, _max_rel,
    {%- endif %}
    {%- if f.needs_ideal_rows %}
    _igain, _boundary,{% if not f.list_sums %} _idcg_at,{% endif %}
    {%- endif %}
    {%- for c in sqlndcg._per_query_hook_columns('positioned', p, f) %}
    {{ c }},
    {%- endfor %}
    {#- Tie-averaged values: each position gets the mean over the tied documents it belongs to (the ORDER BY only
        fixes the order of summation, so the mean is the same bits on every run). #}
    {%- for v in f.averaged %}
    {% if f.average %}AVG(CAST({{ v }} AS {{ sqlndcg.double() }})) OVER (PARTITION BY {{ f.g_cols }}_q, _key ORDER BY _pos{{ f.first }} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING){% else %}{{ v }}{% endif %} AS {{ v }}_at,
    {%- endfor %}
    {%- for t in f.seen_cols %}
    {% if f.join_first %}{{ t }}{% else %}SUM(_rel_t{{ loop.index0 }}) OVER ({{ f.running }}){% endif %} AS {{ t }},
    {%- endfor %}
    {%- if f.needs_idcg and p.ideal == 'retrieved' %}
    ROW_NUMBER() OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY _gain DESC) AS _ideal_pos,
    {%- endif %}
    _gain
  FROM scored
)
{%- endmacro -%}

{#- Running sums in rank order. -#}
{%- macro _per_query_accumulated(p, f) -%}
accumulated AS (
  {#- Running sums in rank order: a metric at cutoff k is the running sum at position min(k, n), which is the
      largest running sum within k since no contribution is negative. Summing in one fixed order keeps every
      number bit-identical whatever the engine's thread count. Where sums are taken from lists (list_sums), the
      terms of those read at a cutoff (f.listed), summed in run_metrics. #}
  SELECT
    {{ f.g_cols }}_q, _pos, _judged, _pool,
    {%- for t in p.thresholds %}
    _rel_t{{ loop.index0 }},
    {%- if f.needs_rows %}
    _r_t{{ loop.index0 }}, _nr_t{{ loop.index0 }},
    SUM(_nonrel_t{{ loop.index0 }}) OVER ({{ f.running }}) AS _nonrel_run_t{{ loop.index0 }},
    {%- endif %}
    {%- endfor %}
    {%- if f.needs_max_rel %}
    _rel, _max_rel,
    {%- endif %}
    {%- if 'pool_run' in p.needs %}
    SUM(_pool) OVER ({{ f.running }}) AS _pool_run,
    {%- endif %}
    {%- for c in sqlndcg._per_query_hook_columns('accumulated', p, f) %}
    {{ c }},
    {%- endfor %}
    {%- if f.needs_ideal_rows %}
    _igain, _boundary,
    {%- if not f.list_sums %}
    _idcg_at,
    SUM(CASE WHEN _igain > 1 THEN _igain ELSE 1 END) OVER ({{ f.running }}) AS _cost_run,
    SUM(_gain) OVER ({{ f.running }}) AS _got_run,
    {%- endif %}
    {%- endif %}
    {#- With sums from lists (list_sums) no running sum of doubles is a window: the measures that read one per row
        (ERR, G, ndcg_rel, Rndcg) fold their loop over the list in their duckdb__ aggregates instead. #}
    {%- if f.needs_dcg and not f.list_sums %}
    SUM({{ sqlndcg._discounted('_gain_at', '_pos') }}) OVER ({{ f.running }}) AS _dcg_run,
    {%- endif %}
    {%- if f.needs_cg and '_cg' not in f.listed_names %}
    SUM(_cg_at) OVER ({{ f.running }}) AS _cg_run,
    {%- endif %}
    {%- if f.needs_judged and not f.counted_judged %}
    SUM(_judged_at) OVER ({{ f.running }}) AS _judged_run,
    {%- endif %}
    {%- for t in p.thresholds %}
    {%- if f.needs_hits and not f.counted_hits %}
    SUM(_rel_t{{ loop.index0 }}_at) OVER ({{ f.running }}) AS _hits_run_t{{ loop.index0 }},
    {%- endif %}
    {%- if f.needs_ap and not f.listed %}
    SUM(CASE WHEN _rel_t{{ loop.index0 }} = 1 THEN CAST(_seen_t{{ loop.index0 }} AS {{ sqlndcg.double() }}) / _pos ELSE 0 END) OVER ({{ f.running }}) AS _ap_run_t{{ loop.index0 }},
    {%- endif %}
    {%- endfor %}
    {%- if f.needs_idcg and p.ideal == 'retrieved' %}
    _ideal_pos,
    {%- if '_idcg' not in f.listed_names %}
    SUM({{ sqlndcg._discounted('_gain', '_ideal_pos') }}) OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY _ideal_pos{{ f.first }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _idcg_run,
    {%- for s in f.ideal_sums %}
    SUM({{ s.term }}) OVER (PARTITION BY {{ f.g_cols }}_q ORDER BY _ideal_pos{{ f.first }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS {{ s.name }}_run,
    {%- endfor %}
    {%- endif %}
    {%- endif %}
    {%- for s in f.rank_sums if s.name not in f.listed_names %}
    SUM({{ s.term }}) OVER ({{ f.running }}) AS {{ s.name }}_run,
    {%- endfor %}
    {%- for x in f.listed %}
    {{ x[1] }} AS {{ x[0] }}_term,
    {%- endfor %}
    _gain
  FROM positioned
)
{%- endmacro -%}

{#- Per (group, query): the running sums read at each cutoff, totals, first relevant position, own aggregates.
    With sums from lists (f.listed): each listed sum's terms in rank order (run_lists), then their sums at each
    cutoff. -#}
{%- macro _per_query_run_metrics(p, f) -%}
{{ 'run_lists' if f.listed else 'run_metrics' }} AS (
  SELECT
    {{ f.g_cols }}_q,
    MAX(_pos) AS _n,
    {#- Per cutoff, only the values that the metrics at that cutoff read. #}
    {%- for c in p.cutoffs %}
    {%- set within %}{% if c.k is none %}1 = 1{% else %}_pos <= {{ c.k }}{% endif %}{% endset %}
    {%- if 'dcg_at' in c.needs and '_dcg' not in f.listed_names %}
    MAX(CASE WHEN {{ within }} THEN _dcg_run ELSE 0 END) AS _dcg_{{ c.suffix }},
    {%- endif %}
    {%- if c.needs_ideal and p.ideal == 'retrieved' and '_idcg' not in f.listed_names %}
    MAX(CASE WHEN {% if c.k is none %}1 = 1{% else %}_ideal_pos <= {{ c.k }}{% endif %} THEN _idcg_run ELSE 0 END) AS _idcg_{{ c.suffix }},
    {%- for s in f.ideal_sums if s.need in c.needs %}
    MAX(CASE WHEN {% if c.k is none %}1 = 1{% else %}_ideal_pos <= {{ c.k }}{% endif %} THEN {{ s.name }}_run ELSE 0 END) AS {{ s.name }}_{{ c.suffix }},
    {%- endfor %}
    {%- endif %}
    {%- for s in f.rank_sums if s.need in c.needs and s.name not in f.listed_names %}
    MAX(CASE WHEN {{ within }} THEN {{ s.name }}_run ELSE 0 END) AS {{ s.name }}_{{ c.suffix }},
    {%- endfor %}
    {%- if 'cg_at' in c.needs and '_cg' not in f.listed_names %}
    MAX(CASE WHEN {{ within }} THEN _cg_run ELSE 0 END) AS _cg_{{ c.suffix }},
    {%- endif %}
    {%- if 'judged_at' in c.needs %}
    {% if f.counted_judged %}SUM(CASE WHEN {{ within }} THEN _judged ELSE 0 END){% else %}MAX(CASE WHEN {{ within }} THEN _judged_run ELSE 0 END){% endif %} AS _judged_{{ c.suffix }},
    {%- endif %}
    {%- for t in p.thresholds %}
    {%- if 'hits_at' in c.needs %}
    {% if f.counted_hits %}SUM(CASE WHEN {{ within }} THEN _rel_t{{ loop.index0 }} ELSE 0 END){% else %}MAX(CASE WHEN {{ within }} THEN _hits_run_t{{ loop.index0 }} ELSE 0 END){% endif %} AS _hits_{{ c.suffix }}_t{{ loop.index0 }},
    {%- endif %}
    {%- if 'ap_at' in c.needs and not f.listed %}
    MAX(CASE WHEN {{ within }} THEN _ap_run_t{{ loop.index0 }} ELSE 0 END) AS _ap_{{ c.suffix }}_t{{ loop.index0 }},
    {%- endif %}
    {%- endfor %}
    {%- endfor %}
    {%- if 'totals' in p.needs %}
    {%- for t in p.thresholds %}
    {% if f.counted_hits %}SUM(_rel_t{{ loop.index0 }}){% else %}MAX(_hits_run_t{{ loop.index0 }}){% endif %} AS _hits_total_t{{ loop.index0 }},
    {%- endfor %}
    {% if f.counted_judged %}SUM(_judged){% else %}MAX(_judged_run){% endif %} AS _judged_total,
    {%- endif %}
    {%- if f.needs_rr %}
    {%- for t in p.thresholds %}
    MIN(CASE WHEN _rel_t{{ loop.index0 }} = 1 THEN _pos ELSE NULL END) AS _first_t{{ loop.index0 }},
    {%- endfor %}
    {%- endif %}
    {#- Each measure's own aggregates (measures/<family>.sql). #}
    {%- for pair in f.own %}
    {{ pair[1] }} AS {{ pair[0] }},
    {%- endfor %}
    {%- for x in f.listed %}
    list({{ x[0] }}_term ORDER BY {{ x[2] }}) AS {{ x[0] }}_list,
    {%- endfor %}
    MAX(CASE WHEN _gain > 0 THEN 1 ELSE 0 END) AS _has_gain
  FROM accumulated
  GROUP BY {{ f.g_cols }}_q
)
{%- if f.listed %},
run_metrics AS (
  SELECT
    {%- for c in p.cutoffs %}
    {%- if 'dcg_at' in c.needs and '_dcg' in f.listed_names %}
    {{ sqlndcg._list_prefix_sum('_dcg_list', c.k) }} AS _dcg_{{ c.suffix }},
    {%- endif %}
    {%- if c.needs_ideal and '_idcg' in f.listed_names %}
    {{ sqlndcg._list_prefix_sum('_idcg_list', c.k) }} AS _idcg_{{ c.suffix }},
    {%- for s in f.ideal_sums if s.need in c.needs %}
    {{ sqlndcg._list_prefix_sum(s.name ~ '_list', c.k) }} AS {{ s.name }}_{{ c.suffix }},
    {%- endfor %}
    {%- endif %}
    {%- for s in f.rank_sums if s.need in c.needs and s.name in f.listed_names %}
    {{ sqlndcg._list_prefix_sum(s.name ~ '_list', c.k) }} AS {{ s.name }}_{{ c.suffix }},
    {%- endfor %}
    {%- if 'cg_at' in c.needs and '_cg' in f.listed_names %}
    {{ sqlndcg._list_prefix_sum('_cg_list', c.k) }} AS _cg_{{ c.suffix }},
    {%- endif %}
    {%- for t in p.thresholds if 'ap_at' in c.needs %}
    {{ sqlndcg._list_prefix_sum('_ap_t' ~ loop.index0 ~ '_list', c.k) }} AS _ap_{{ c.suffix }}_t{{ loop.index0 }},
    {%- endfor %}
    {%- endfor %}
    * EXCLUDE ({% for x in f.listed %}{{ x[0] }}_list{% if not loop.last %}, {% endif %}{% endfor %})
  FROM run_lists
)
{%- endif %}
{%- endmacro -%}

{#- Rndcg's ideal boundaries past the end of the run's list. -#}
{%- macro _per_query_ideal_tail(p, f) -%}
{%- if f.list_sums -%}
ideal_tail AS (
  {#- Rndcg's ideal ranking past the end of the run's list, in ideal order: each position's IDCG term and whether it
      ends a gain level (its duckdb__value folds on from the run's list), and how many end one. #}
  SELECT
    {%- for g in p.groups %}
    rm.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    rm._q AS _q,
    list({'t': {{ sqlndcg._discounted('i._gain', 'i._ideal_pos') }}, 'b': {{ sqlndcg._as_double('i._boundary') }}} ORDER BY i._ideal_pos) AS _tail_terms,
    SUM(i._boundary) AS _tail_count
  FROM run_metrics AS rm
  JOIN ideal_ranking AS i
    ON i._q = rm._q{% for g in f.shared %} AND i.{{ g.alias }} = rm.{{ g.alias }}{% endfor %}
  WHERE i._ideal_pos > rm._n
  GROUP BY {% for g in p.groups %}rm.{{ g.alias }}, {% endfor %}rm._q
)
{%- else -%}
ideal_tail AS (
  {#- Rndcg's boundaries past the end of the run's list: sum of 1 / IDCG(b) and how many. #}
  SELECT
    {%- for g in p.groups %}
    rm.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    rm._q AS _q,
    SUM(CASE WHEN i._ideal_pos > rm._n THEN 1 / i._idcg_run ELSE 0 END) AS _tail_inverse,
    SUM(CASE WHEN i._ideal_pos > rm._n THEN 1 ELSE 0 END) AS _tail_count
  FROM run_metrics AS rm
  JOIN ideal_ranking AS i
    ON i._q = rm._q{% for g in f.shared %} AND i.{{ g.alias }} = rm.{{ g.alias }}{% endfor %}
  WHERE i._boundary = 1
  GROUP BY {% for g in p.groups %}rm.{{ g.alias }}, {% endfor %}rm._q
)
{%- endif -%}
{%- endmacro -%}

{#- The ideal DCG at each cutoff (padded lists: k positions; truncated: min(k, n)). -#}
{%- macro _per_query_ideal_dcg(p, f) -%}
{%- if f.list_sums -%}
{{ sqlndcg._per_query_ideal_dcg_listed(p, f) }}
{%- elif p.short_lists == 'pad' -%}
ideal_dcg AS (
  {#- Padded lists: the ideal takes k positions whatever the length of the run's list (trec_eval). #}
  SELECT {{ f.s_cols }}_q,
    {%- for c in p.cutoffs | selectattr('needs_ideal') %}
    MAX(CASE WHEN {% if c.k is none %}1 = 1{% else %}_ideal_pos <= {{ c.k }}{% endif %} THEN _idcg_run ELSE 0 END) AS _idcg_{{ c.suffix }}
    {%- for s in f.ideal_sums if s.need in c.needs %},
    MAX(CASE WHEN {% if c.k is none %}1 = 1{% else %}_ideal_pos <= {{ c.k }}{% endif %} THEN {{ s.name }}_run ELSE 0 END) AS {{ s.name }}_{{ c.suffix }}
    {%- endfor %}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM ideal_ranking
  GROUP BY {{ f.s_cols }}_q
)
{%- else -%}
ideal_dcg AS (
  {#- Truncated lists: the ideal takes min(k, n) positions, n being the length of this group's list. #}
  SELECT
    {%- for g in p.groups %}
    rm.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    rm._q AS _q,
    {%- for c in p.cutoffs | selectattr('needs_ideal') %}
    MAX(CASE WHEN {% if c.k is not none %}i._ideal_pos <= {{ c.k }} AND {% endif %}i._ideal_pos <= rm._n THEN i._idcg_run ELSE 0 END) AS _idcg_{{ c.suffix }}
    {%- for s in f.ideal_sums if s.need in c.needs %},
    MAX(CASE WHEN {% if c.k is not none %}i._ideal_pos <= {{ c.k }} AND {% endif %}i._ideal_pos <= rm._n THEN i.{{ s.name }}_run ELSE 0 END) AS {{ s.name }}_{{ c.suffix }}
    {%- endfor %}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM run_metrics AS rm
  JOIN ideal_ranking AS i
    ON i._q = rm._q{% for g in f.shared %} AND i.{{ g.alias }} = rm.{{ g.alias }}{% endfor %}
  GROUP BY {% for g in p.groups %}rm.{{ g.alias }}, {% endfor %}rm._q
)
{%- endif -%}
{%- endmacro -%}

{#- ideal_dcg from the ideal's terms listed in ideal order (list_sums): the first k of them (pad), or min(k, n) (truncate).
    Each query's lists: the IDCG terms (_idcg_list), the gains (_icg_list: their prefix sums are the ideal's
    cumulative gain, which an ideal sum named _icg reads, NCG's) and each other ideal sum's terms. -#}
{%- macro _per_query_ideal_dcg_listed(p, f) -%}
{%- set pad = p.short_lists == 'pad' -%}
{%- set ideals = p.cutoffs | selectattr('needs_ideal') | list -%}
ideal_dcg AS (
  SELECT
    {%- for g in (f.shared if pad else p.groups) %}
    {{ 'il' if pad else 'rm' }}.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    {{ 'il' if pad else 'rm' }}._q AS _q,
    {%- for c in ideals %}
    {%- set k = c.k if pad else (('rm._n' if c.k is none else sqlndcg._least(c.k, 'rm._n'))) %}
    {{ sqlndcg._list_prefix_sum('il._idcg_list', k) }} AS _idcg_{{ c.suffix }}
    {%- for s in f.ideal_sums if s.need in c.needs %},
    {{ sqlndcg._list_prefix_sum('il.' ~ s.name ~ '_list', k) }} AS {{ s.name }}_{{ c.suffix }}
    {%- endfor %}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM (
    {%- if f.ideal_listed %}
    SELECT {{ f.s_cols }}_q,
      list_transform(_top, lambda _g, _i: {{ sqlndcg._discounted('_g', '_i') }}) AS _idcg_list,
      _top AS _icg_list
      {%- for s in f.ideal_sums if s.name not in ('_idcg', '_icg') %},
      list_transform(_top, lambda _gain, _ideal_pos: {{ s.term }}) AS {{ s.name }}_list
      {%- endfor %}
    FROM (
      SELECT {{ f.s_cols }}_q, max(_gain, {{ p.prune_k }}) FILTER (WHERE _gain > 0) AS _top
      FROM labels
      GROUP BY {{ f.s_cols }}_q
    ) AS tops
    {%- else %}
    SELECT {{ f.s_cols }}_q,
      list({{ sqlndcg._discounted('_gain', '_ideal_pos') }} ORDER BY _ideal_pos) AS _idcg_list,
      list(_gain ORDER BY _ideal_pos) AS _icg_list
      {%- for s in f.ideal_sums if s.name not in ('_idcg', '_icg') %},
      list({{ s.term }} ORDER BY _ideal_pos) AS {{ s.name }}_list
      {%- endfor %}
    FROM ideal_ranking
    GROUP BY {{ f.s_cols }}_q
    {%- endif %}
  ) AS il
  {%- if not pad %}
  JOIN run_metrics AS rm
    ON rm._q = il._q{% for g in f.shared %} AND rm.{{ g.alias }} = il.{{ g.alias }}{% endfor %}
  {%- endif %}
)
{%- endmacro -%}

{#- The (group, query) pairs that get a row, by the `queries` setting. -#}
{%- macro _per_query_scored_queries(p, f, bucket) -%}
scored_queries AS (
  {%- if p.queries == 'judged' %}
  {#- Every judged (shared group, query) for every value of the run-only group columns in the run (each system):
      a query, or a whole day, that a system did not answer scores 0, even a day no system ran (it is judged and
      nobody answered it; the account lists it). Without run-only groups, every judged (shared group, query). #}
  {%- set only = p.groups | rejectattr('shared') | list %}
  {%- if only %}
  SELECT {% for g in p.groups %}{{ 'jq' if g.shared else 'rg' }}.{{ g.alias }} AS {{ g.alias }}, {% endfor %}jq._q AS _q
  FROM ({% if bucket %}{{ sqlndcg._run_groups(p, only) }}{% else %}SELECT DISTINCT {% for g in only %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %} FROM run_queries{% endif %}) AS rg
  CROSS JOIN judged_queries AS jq
  {%- else %}
  SELECT {% for g in f.shared %}jq.{{ g.alias }} AS {{ g.alias }}, {% endfor %}jq._q AS _q FROM judged_queries AS jq
  {%- endif %}
  {%- else %}
  {#- Only queries both answered and judged (trec_eval without -c). #}
  SELECT {% for g in p.groups %}rq.{{ g.alias }} AS {{ g.alias }}, {% endfor %}rq._q AS _q
  FROM run_queries AS rq
  JOIN judged_queries AS jq
    ON jq._q = rq._q{% for g in f.shared %} AND jq.{{ g.alias }} = rq.{{ g.alias }}{% endfor %}
  {%- endif %}
)
{%- endmacro -%}

{#- One row per scored (group, query): every metric's value from the shared aggregates. -#}
{%- macro _per_query_result(p, f, ordered) -%}
SELECT
  {%- for g in p.groups %}
  sq.{{ g.alias }} AS {{ g.output }},
  {%- endfor %}
  sq._q AS {{ p.query_output }},
  {%- for m in p.metrics %}
  CAST({{ sqlndcg._metric_value(m, p, f) }} AS {{ sqlndcg.double() }}) AS {{ m.column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM scored_queries AS sq
LEFT JOIN run_metrics AS rm
  ON rm._q = sq._q{% for g in p.groups %} AND rm.{{ g.alias }} = sq.{{ g.alias }}{% endfor %}
LEFT JOIN judged_queries AS jq
  ON jq._q = sq._q{% for g in f.shared %} AND jq.{{ g.alias }} = sq.{{ g.alias }}{% endfor %}
{%- if 'in_run' in p.needs %}
LEFT JOIN run_queries AS rq
  ON rq._q = sq._q{% for g in p.groups %} AND rq.{{ g.alias }} = sq.{{ g.alias }}{% endfor %}
{%- endif %}
{%- if f.needs_ideal_totals %}
LEFT JOIN ideal_totals AS it
  ON it._q = sq._q{% for g in f.shared %} AND it.{{ g.alias }} = sq.{{ g.alias }}{% endfor %}
{%- endif %}
{%- if f.needs_tail %}
LEFT JOIN ideal_tail AS rt
  ON rt._q = sq._q{% for g in p.groups %} AND rt.{{ g.alias }} = sq.{{ g.alias }}{% endfor %}
{%- endif %}
{%- if f.needs_idcg and p.ideal == 'judgments' %}
LEFT JOIN ideal_dcg AS idl
  ON idl._q = sq._q{% for g in (f.shared if p.short_lists == 'pad' else p.groups) %} AND idl.{{ g.alias }} = sq.{{ g.alias }}{% endfor %}
{%- endif %}
{%- if ordered %}
ORDER BY {% for g in p.groups %}sq.{{ g.alias }}, {% endfor %}sq._q
{%- endif %}
{%- endmacro -%}


{#- The run's rows with internal names: group columns _g0.., query _q, document _d, and _key: the score (higher
    is better, or lower under lower_is_better) or the rank (lower is better), by which the documents are ordered
    (_descending, dialects/rules.sql). Internal names cannot collide
    with whatever the user's columns are called. -#}
{%- macro _run_rows(p, bucket=none) -%}
SELECT
    {%- for g in p.groups %}
    {{ g.run_column }} AS {{ g.alias }},
    {%- endfor %}
    {{ sqlndcg._id(p.run_query_id, p.query_ids_as_text) }} AS _q,
    {{ sqlndcg._id(p.run_doc_id, p.doc_ids_as_text) }} AS _d,
    {#- Kept in its own type: a cast of large integer scores to DOUBLE would turn distinct scores into ties. #}
    {{ p.score if p.order_by == 'score' else p.rank }} AS _key
  FROM {{ p.run }} AS run_input
  {{- sqlndcg._in_bucket(p, p.run_query_id, bucket) }}
{%- endmacro -%}


{#- How a statement holds the CTE over an input (`role`: 'run' or 'judgments'): read again per use where that is
    cheap (dialects/rules.sql, reread), except in a pass over one bucket of queries (partitions) or over a sample: that
    pass keeps only its bucket's or sample's rows, and holding them costs less than reading (and hashing) the whole
    input again for each use. -#}
{%- macro _input_cte(p, role, bucket=none) -%}
{{- sqlndcg.held() if p.get('sample') else sqlndcg.reread(p[role ~ '_rereadable'] and not bucket) -}}
{%- endmacro -%}


{#- Partitions: only the rows whose query id falls in this pass's bucket (nothing without partitions). -#}
{%- macro _in_bucket(p, query_id, bucket=none) -%}
{%- set sample = p.get('sample') -%}
{%- if bucket %}
  WHERE {{ sqlndcg._bucket_of(sqlndcg._id(query_id, p.query_ids_as_text), bucket.count) }} = {{ bucket.index }}
{%- endif %}
{%- if sample %}
  {{ 'AND' if bucket else 'WHERE' }} {{ sqlndcg._in_sample(query_id, sample) }}
{%- endif %}
{%- endmacro -%}

{#- Whether a query is in the plan's sample ({fraction, seed}, sample=): the MD5 of "<seed>:<query id as text>"
    read as a number in [0, 1) below the fraction, i.e. its hex digits below those of floor(fraction * 16^8), so
    every engine, every day, chooses the same queries in the run and in the judgments. -#}
{%- macro _in_sample(query_id, sample) -%}
{%- set below = '%08x' | format((sample.fraction * 4294967296) | round(0, 'floor') | int) -%}
{%- set text = sqlndcg.concat_text("'" ~ (sample.seed | int) ~ ":'", 'CAST(' ~ query_id ~ ' AS ' ~ sqlndcg.text_type() ~ ')') -%}
{{ return('1 = 1' if sample.fraction >= 1 else sqlndcg.md5_hex(text) ~ " < '" ~ below ~ "'") }}
{%- endmacro -%}


{#- Every group of the run (or the values of the group columns `groups` only), whatever bucket its queries fall
    in (partitions: a group that answered no query of this bucket is still scored on the bucket's judged queries,
    and still has an account row). -#}
{%- macro _run_groups(p, groups=none) -%}
SELECT DISTINCT {% for g in (p.groups if groups is none else groups) %}{{ g.run_column }} AS {{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  FROM {{ p.run }} AS run_input
{%- endmacro -%}


{#- The judgments' rows: shared group columns, _q, _d, and the label _rel as a DOUBLE. -#}
{%- macro _judgment_rows(p, bucket=none) -%}
{%- set shared = p.groups | selectattr('shared') | list -%}
SELECT
    {%- for g in shared %}
    {{ g.judgments_column }} AS {{ g.alias }},
    {%- endfor %}
    {{ sqlndcg._id(p.judgments_query_id, p.query_ids_as_text) }} AS _q,
    {{ sqlndcg._id(p.judgments_doc_id, p.doc_ids_as_text) }} AS _d,
    {% if p.get('labels') == 'integer_part' %}{{ sqlndcg.integer_part('CAST(' ~ p.rel ~ ' AS ' ~ sqlndcg.double() ~ ')') }}{% else %}CAST({{ p.rel }} AS {{ sqlndcg.double() }}){% endif %} AS _rel
  FROM {{ p.judgments }} AS judgments_input
  {{- sqlndcg._in_bucket(p, p.judgments_query_id, bucket) }}
{%- endmacro -%}


{#- gain(rel): 0 for rel <= 0 (unjudged, non-relevant, or judged unusable); else 2^rel - 1, rel, or the map. -#}
{%- macro _gain(rel, p) -%}
{%- if p.gain == 'exponential' -%}
CASE WHEN {{ rel }} > 0 THEN {{ sqlndcg._exp2_minus_1(rel) }} ELSE 0 END
{%- elif p.gain == 'linear' -%}
CASE WHEN {{ rel }} > 0 THEN {{ rel }} ELSE 0 END
{%- else -%}
CASE{% for grade, value in p.gain_map %} WHEN {{ rel }} = {{ sqlndcg._number(grade) }} THEN {{ sqlndcg._number(value) }}{% endfor %} ELSE 0 END
{%- endif -%}
{%- endmacro -%}


{#- One metric's value: its measure file's value macro (measures/), given the shared per-query aggregates as SQL
    expressions (rm: run side, jq: judged side, idl: ideal side, it: ideal totals, rq: whether the run has it). -#}
{%- macro _metric_value(m, p, f) -%}
{%- set s = m.suffix -%}
{%- set t = m.threshold_index -%}
{%- set n = 'COALESCE(rm._n, 0)' -%}
{%- if m.k is none -%}
{%- set positions = n -%}
{%- elif p.short_lists == 'truncate' -%}
{%- set positions -%}CASE WHEN {{ n }} < {{ m.k }} THEN {{ n }} ELSE {{ m.k }} END{%- endset -%}
{%- else -%}
{%- set positions = m.k -%}
{%- endif -%}
{%- if p.ideal == 'retrieved' -%}
{%- set idcg %}COALESCE(rm._idcg_{{ s }}, 0){% endset -%}
{%- set has_gain = 'COALESCE(rm._has_gain, 0)' -%}
{%- else -%}
{%- set idcg %}COALESCE(idl._idcg_{{ s }}, 0){% endset -%}
{%- set has_gain = 'COALESCE(jq._has_gain, 0)' -%}
{%- endif -%}
{%- set a = {
  'n': n, 'positions': positions, 'idcg': idcg, 'has_gain': has_gain,
  'empty': '0' if p.empty == 'zero' else 'NULL',
  'r': 'COALESCE(jq._r_t' ~ t ~ ', 0)', 'nr': 'COALESCE(jq._nr_t' ~ t ~ ', 0)',
  'hits': 'COALESCE(rm._hits_' ~ s ~ '_t' ~ t ~ ', 0)', 'hits_all': 'COALESCE(rm._hits_total_t' ~ t ~ ', 0)',
  'judged': 'COALESCE(rm._judged_' ~ s ~ ', 0)', 'judged_all': 'COALESCE(rm._judged_total, 0)',
  'max_rel': 'COALESCE(jq._max_rel, 0)', 'in_run': 'COALESCE(rq._in_run, 0)',
  'npos': 'COALESCE(it._npos, 0)', 'ideal_gain': 'COALESCE(it._ideal_gain, 0)', 'idcg_total': 'it._idcg_total',
  'cg': 'COALESCE(rm._cg_' ~ s ~ ', 0)', 'dcg': 'COALESCE(rm._dcg_' ~ s ~ ', 0)',
  'ap_sum': 'COALESCE(rm._ap_' ~ s ~ '_t' ~ t ~ ', 0)', 'ap_sum_all': 'COALESCE(rm._ap_all_t' ~ t ~ ', 0)',
  'first': 'rm._first_t' ~ t,
  'tail_inverse': 'COALESCE(rt._tail_inverse, 0)', 'tail_count': 'COALESCE(rt._tail_count, 0)', 'tail_terms': 'rt._tail_terms',
  'own': 'rm.' ~ m.id ~ '_',
} -%}
{#- The shared aggregates' sums at this metric's cutoff (the ideal's beside IDCG). -#}
{%- for x in f.rank_sums %}{% do a.update({x.value: 'COALESCE(rm.' ~ x.name ~ '_' ~ s ~ ', 0)'}) %}{% endfor -%}
{%- for x in f.ideal_sums %}{% do a.update({x.value: 'COALESCE(' ~ ('rm.' if p.ideal == 'retrieved' else 'idl.') ~ x.name ~ '_' ~ s ~ ', 0)'}) %}{% endfor -%}
{{ sqlndcg._measure_value(m, p, a) }}
{%- endmacro -%}


{#-
  unjudged_bounds: each metric's lower bound is its value (an unjudged document is not relevant); its upper bound
  is its value on judgments augmented, per group of the run, with every document the run retrieved for the query
  that has no judgment (or a negative label: unjudged, as judged@k counts it), judged at the judgments' largest
  label. The ideal ranking (ideal='judgments') then holds those documents too: the upper bound is the value the
  list would get if the assessors had found them all relevant, not a maximum over every labelling (for NDCG,
  an unjudged document found relevant below the cutoff raises IDCG). Under judged_only the unjudged documents leave
  the lists before ranking: upper = lower. Two passes of the one statement (lower, upper), joined per query.
-#}
{%- macro _per_query_bounds(p, uppers, ordered, bucket, longest_list) -%}
{%- set base = [] -%}{%- for m in p.metrics if 'bound_of' not in m -%}{%- do base.append(m) -%}{%- endfor -%}
{%- set lower = {} -%}{%- do lower.update(p) -%}{%- do lower.update({'metrics': base}) -%}
{%- set groups = [] -%}
{%- for g in p.groups -%}{%- set h = {} -%}{%- do h.update(g) -%}{%- do h.update({'shared': true}) -%}{%- do groups.append(h) -%}{%- endfor -%}
{%- set upper = {} -%}{%- do upper.update(lower) -%}{%- do upper.update({'upper': true, 'groups': groups, 'judged_plan': lower}) -%}
{%- set keys = [] -%}{%- for g in p.groups -%}{%- do keys.append(g.output) -%}{%- endfor -%}{%- do keys.append(p.query_output) -%}
SELECT
  {%- for k in keys %}
  lo.{{ k }} AS {{ k }},
  {%- endfor %}
  {%- for m in base %}
  lo.{{ m.column }} AS {{ m.column }},
  {%- endfor %}
  {%- for m in uppers %}
  up.{{ base[m.bound_of].column }} AS {{ m.column }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM (
{{ sqlndcg._per_query_sql(lower, false, bucket, longest_list) }}
) AS lo
LEFT JOIN (
{{ sqlndcg._per_query_sql(upper, false, bucket, longest_list) }}
) AS up
  ON {% for k in keys %}up.{{ k }} = lo.{{ k }}{% if not loop.last %} AND {% endif %}{% endfor %}
{%- if ordered %}
ORDER BY {% for k in keys %}lo.{{ k }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endif %}
{%- endmacro -%}

{#- The upper bound's judgments (internal names, every group a judgments column): each judgment for each group of
    the run, but a negative label the group retrieved, and each retrieved document without a label >= 0 at the
    largest label (top_grade), or at unjudged_grade when it is given. -#}
{%- macro _per_query_upper_rows(p, f, bucket) -%}
{%- set only = p.judged_plan.groups | rejectattr('shared') | list -%}
retrieved AS (
  SELECT DISTINCT {{ f.g_cols }}_q, _d, 1 AS _hit
  FROM run_rows
),
judged_everywhere AS (
  SELECT {% for g in p.judged_plan.groups %}{{ 'j' if g.shared else 'rg' }}.{{ g.alias }} AS {{ g.alias }}, {% endfor %}j._q AS _q, j._d AS _d, j._rel AS _rel, 1 AS _hit
  FROM judgment_rows AS j
  {%- if only %}
  CROSS JOIN ({% if bucket %}{{ sqlndcg._run_groups(p, only) }}{% else %}SELECT DISTINCT {% for g in only %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %} FROM run_rows{% endif %}) AS rg
  {%- endif %}
),
upper_rows AS (
  SELECT {% for g in p.groups %}e.{{ g.alias }} AS {{ g.alias }}, {% endfor %}e._q AS _q, e._d AS _d, e._rel AS _rel
  FROM judged_everywhere AS e
  {%- if not p.judged_only %}
  LEFT JOIN retrieved AS r
    ON r._q = e._q AND r._d = e._d{% for g in p.groups %} AND r.{{ g.alias }} = e.{{ g.alias }}{% endfor %}
  WHERE e._rel >= 0 OR COALESCE(r._hit, 0) = 0
  UNION ALL
  SELECT {% for g in p.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._q AS _q, r._d AS _d, {{ 'tg._top' if p.get('unjudged_grade') is none else 'CAST(' ~ sqlndcg._number(p.unjudged_grade) ~ ' AS ' ~ sqlndcg.double() ~ ')' }} AS _rel
  FROM retrieved AS r
  LEFT JOIN (SELECT {{ f.g_cols }}_q, _d, _hit FROM judged_everywhere WHERE _rel >= 0) AS e
    ON e._q = r._q AND e._d = r._d{% for g in p.groups %} AND e.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  {%- if p.get('unjudged_grade') is none %}
  CROSS JOIN top_grade AS tg
  {%- endif %}
  WHERE COALESCE(e._hit, 0) = 0
  {%- endif %}
)
{%- endmacro -%}
