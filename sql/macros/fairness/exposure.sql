{#-
  Exposure fairness (docs/fairness.md): how a ranker shares the user's attention among the providers (any
  attribute of the documents: an items table doc_id -> group), per query and per system (group_by).

  A run lists per query (and per `sample` of a stochastic ranker: each sample one ranking) documents with scores,
  ranked as evaluate ranks them: score descending (ascending with lower_is_better), equal scores by document id
  descending (id_order as evaluate's), or with ties='average' sharing the mean weight of their positions (the
  tied documents are indistinguishable to the ranker, so they get equal exposure). The browsing model
  gives position r the weight w(r): 'rbp' p^(r-1) (Moffat & Zobel, TOIS 2008; Diaz et al., CIKM 2020, exposure
  e = gamma^(r-1), not times 1 - gamma), 'dcg' 1/log2(r+1) (Singh & Joachims, KDD 2018, their position bias),
  'trec_fair' 1/log2(max(r, 2)) (TREC Fair Ranking 2021-2022's discount); 0 below the cutoff k.
    e_d        = (1/S) sum over the query's S samples of w(rank of d in the sample) (0 where it is absent)
    E_g        = sum of e_d over the query's documents d of group g (the candidates: every document of the run's
                 lists for the query, ranked at or below k); share_g = E_g / sum_g E_g
    mean_g     = E_g / n_g, n_g the group's candidates (Singh & Joachims' Exposure(G) / |G|)
    disparity_difference = max_g mean_g - min_g mean_g; disparity_ratio = min_g mean_g / max_g mean_g
                 (demographic parity of exposure: 0 and 1 at parity; over the groups among the query's candidates)
    awrf       = 1 - JSD(share, target), the Jensen-Shannon divergence in base 2 (0 log 0 = 0), so 0..1
                 (Sapiezynski et al., WWW 2019 companion; TREC Fair 2021-2022, whose scripts take scipy's natural
                 log: their value is 1 - ln 2 * (1 - awrf)); target: a table (group, share), the groups' shares
                 among the items ('items', default) or equal shares ('uniform')
  With judgments (query_id, doc_id, rel), expected exposure (Diaz et al., CIKM 2020; their expeval program):
    target e*_d for each d with rel > 0: the mean weight of the positions its grade occupies in an ideal ranking
                 (grades descending): m_g documents after b above them share sum_{i=b+1}^{b+m_g} w(i) / m_g
                 (RBP without cutoff: (p^b - p^(b+m_g)) / (m_g (1 - p))); other documents 0
    ee_d = sum_d e_d^2 (disparity), ee_r = sum_d e_d e*_d (relevance), ee_l = sum_d (e_d - e*_d)^2
         = ee_d - 2 ee_r + |e*|^2 (loss); NULL for a query without relevant documents.
-#}

{%- macro _exposure_declared() -%}
{{ return({'group_column': 'provider', 'browsing': 'rbp', 'p': 0.5, 'k': none, 'group_by': [], 'sample': none,
           'missing': 'error', 'target': 'items', 'ties': 'doc_id', 'id_order': 'native', 'lower_is_better': false, 'query_id': 'query_id', 'doc_id': 'doc_id', 'score': 'score',
           'rel': 'rel', 'share': 'share'}) }}
{%- endmacro -%}

{#- The settings checked: browsing, p, k, missing and target. -#}
{%- macro _exposure_settings(given) -%}
{%- set s = sqlndcg._judgment_settings('exposure', sqlndcg._exposure_declared(), given) -%}
{%- if s.browsing not in ['rbp', 'dcg', 'trec_fair'] -%}
  {{ sqlndcg._fail('setting', "exposure: browsing must be 'rbp' (p^(rank-1)), 'dcg' (1/log2(rank+1)) or 'trec_fair' (1/log2(max(rank,2))), got " ~ sqlndcg._show(s.browsing)) }}
{%- endif -%}
{%- if s.p is boolean or s.p is not number or s.p <= 0 or s.p >= 1 -%}
  {{ sqlndcg._fail('setting', 'exposure: p (the RBP patience) must be a number strictly between 0 and 1, got ' ~ sqlndcg._show(s.p)) }}
{%- endif -%}
{%- if s.k is not none and (s.k is boolean or s.k is not integer or s.k < 1) -%}
  {{ sqlndcg._fail('setting', 'exposure: k (the cutoff) must be a whole number 1 or more, or None for the whole list, got ' ~ sqlndcg._show(s.k)) }}
{%- endif -%}
{%- if s.ties not in ['doc_id', 'average'] -%}
  {{ sqlndcg._fail('setting', "exposure: ties must be 'doc_id' (equal scores ordered by doc id descending) or 'average' (equal scores share their positions' mean weight), got " ~ sqlndcg._show(s.ties)) }}
{%- endif -%}
{%- if s.id_order not in ['native', 'text'] or s.lower_is_better not in [true, false] -%}
  {{ sqlndcg._fail('setting', "exposure: id_order must be 'native' or 'text' and lower_is_better True or False, got " ~ sqlndcg._show([s.id_order, s.lower_is_better])) }}
{%- endif -%}
{%- if s.missing not in ['error', 'unknown'] -%}
  {{ sqlndcg._fail('setting', "exposure: missing must be 'error' (a run document without an item row is an error) or 'unknown' (it counts in a group named '(unknown)'), got " ~ sqlndcg._show(s.missing)) }}
{%- endif -%}
{%- if s.target not in ['items', 'uniform', 'table'] -%}
  {{ sqlndcg._fail('setting', "exposure: target must be a table (group, share), 'items' (the groups' shares among the items) or 'uniform', got " ~ sqlndcg._show(s.target)) }}
{%- endif -%}
{%- for key in ['group_column', 'query_id', 'doc_id', 'score', 'rel', 'share'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- if s.sample is not none -%}{%- do sqlndcg._column_name('sample', s.sample) -%}{%- endif -%}
{%- do s.update({'group_by': sqlndcg._judgment_groups(s.group_by)}) -%}
{{ return(s) }}
{%- endmacro -%}

{#- Checks of NULL (and of non-finite numbers) in the named columns. -#}
{%- macro _exposure_checks(nulls, numbers=[]) -%}
{%- set out = [] -%}
{%- for name in nulls %}{% do out.append(sqlndcg._judgment_check('null', name, 'is NULL')) %}{% endfor -%}
{%- for name in numbers %}{% do out.append(sqlndcg._judgment_check('not_finite', name, 'is not a finite number')) %}{% endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- The run, the items, the judgments and the target (inputs described as {sql, label, columns}; judgments and
    target may be none) and the settings -> the plan. -#}
{%- macro _exposure_plan(run, items, judgments, target, given) -%}
{%- set s = sqlndcg._exposure_settings(given) -%}
{%- if (target is none) != (s.target != 'table') -%}
  {{ sqlndcg._fail('setting', "exposure: give a target table with target='table', or target='items' or 'uniform' without one") }}
{%- endif -%}
{%- set run_keys = s.group_by + ([s.sample] if s.sample else []) -%}
{%- set needed = [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'), ('score', s.score, 'score')] -%}
{%- for g in s.group_by %}{% do needed.append(('group_by', g, 'group_by')) %}{% endfor -%}
{%- if s.sample %}{% do needed.append(('sample', s.sample, 'sample')) %}{% endif -%}
{{ sqlndcg._judgment_require_columns(run, needed) }}
{{ sqlndcg._judgment_require_types(run, [s.score], [s.query_id, s.doc_id]) }}
{{ sqlndcg._judgment_require_columns(items, [('document id', s.doc_id, 'doc_id'), ('group', s.group_column, 'group_column')]) }}
{{ sqlndcg._judgment_require_types(items, [], [s.doc_id]) }}
{%- set query_inputs, doc_inputs = [(run, s.query_id)], [(run, s.doc_id), (items, s.doc_id)] -%}
{%- if judgments is not none -%}
  {{ sqlndcg._judgment_require_columns(judgments, [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'), ('label', s.rel, 'rel')]) }}
  {{ sqlndcg._judgment_require_types(judgments, [s.rel], [s.query_id, s.doc_id]) }}
  {%- do query_inputs.append((judgments, s.query_id)) -%}{%- do doc_inputs.append((judgments, s.doc_id)) -%}
{%- endif -%}
{%- if target is not none -%}
  {{ sqlndcg._judgment_require_columns(target, [('group', s.group_column, 'group_column'), ('share', s.share, 'share')]) }}
  {{ sqlndcg._judgment_require_types(target, [s.share], []) }}
{%- endif -%}
{%- set as_text = sqlndcg._judgment_ids_as_text(doc_inputs) -%}
{%- set keys = [] -%}
{%- for g in s.group_by %}{% do keys.append({'column': sqlndcg._quote(g), 'alias': '_k' ~ loop.index0}) %}{% endfor -%}
{%- set columns = {'query_id': s.query_id, 'doc_id': s.doc_id, 'score': s.score, 'group_column': s.group_column} -%}
{%- if s.sample %}{% do columns.update({'sample': s.sample}) %}{% endif -%}
{%- if judgments is not none %}{% do columns.update({'rel': s.rel}) %}{% endif -%}
{{ return({
  'run': run.sql, 'items_sql': items.sql, 'judgments': none if judgments is none else judgments.sql,
  'target_table': none if target is none else target.sql, 'target': s.target,
  'browsing': s.browsing, 'p': s.p, 'k': s.k, 'missing': s.missing, 'key_columns': keys, 'group_by': s.group_by,
  'sample': sqlndcg._quote(s.sample) if s.sample else none,
  'query_id': sqlndcg._quote(s.query_id), 'doc_id': sqlndcg._quote(s.doc_id), 'score': sqlndcg._quote(s.score),
  'group': sqlndcg._quote(s.group_column), 'rel': sqlndcg._quote(s.rel), 'share': sqlndcg._quote(s.share),
  'query_ids_as_text': sqlndcg._judgment_ids_as_text(query_inputs), 'doc_ids_as_text': as_text,
  'ties': s.ties, 'descending': not s.lower_is_better,
  'tie': sqlndcg._tie_doc({'id_order': s.id_order, 'doc_ids_as_text': as_text, 'run_doc_ids_integer': sqlndcg._column_of(run.columns, s.doc_id).class == 'integer'}),
  'run_checks': sqlndcg._exposure_checks(run_keys + [s.query_id, s.doc_id, s.score], [s.score]),
  'run_identity': run_keys + [s.query_id, s.doc_id],
  'item_checks': sqlndcg._exposure_checks([s.doc_id, s.group_column]), 'item_identity': [s.doc_id],
  'judgment_checks': sqlndcg._exposure_checks([s.query_id, s.doc_id, s.rel], [s.rel]),
  'judgment_identity': [s.query_id, s.doc_id],
  'target_checks': sqlndcg._exposure_checks([s.group_column, s.share], [s.share]), 'target_identity': [s.group_column],
  'settings': {'browsing': s.browsing, 'p': s.p, 'k': s.k, 'ties': s.ties, 'id_order': s.id_order,
               'lower_is_better': s.lower_is_better, 'group_by': s.group_by, 'missing': s.missing,
               'target': s.target, 'judged': judgments is not none, 'columns': columns},
}) }}
{%- endmacro -%}

{#- The weight of position `pos` under the plan's browsing model, 0 below the cutoff. -#}
{%- macro _exposure_weight(p, pos) -%}
{%- if p.browsing == 'rbp' -%}{%- set w = 'POWER(' ~ sqlndcg._number(p.p) ~ ', ' ~ pos ~ ' - 1)' -%}
{%- elif p.browsing == 'dcg' -%}{%- set w = sqlndcg._discount(pos) -%}
{%- else -%}{%- set w = sqlndcg._discount('CASE WHEN ' ~ pos ~ ' < 2 THEN 1 ELSE ' ~ pos ~ ' - 1 END') -%}
{%- endif -%}
{{ return(w if p.k is none else 'CASE WHEN ' ~ pos ~ ' <= ' ~ p.k ~ ' THEN ' ~ w ~ ' ELSE 0 END') }}
{%- endmacro -%}
