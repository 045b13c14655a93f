{#-
  Annotator agreement and aggregation, for judgments with one row per (group, query, document, annotator) and the
  label in `rel`. A unit is a (query, document); a NULL label is a missing rating and is left out; an annotator
  rating a unit twice is an error.

    {{ sqlndcg.agreement(judgments=ref('annotations'), by='query') }}        -- one row per query
    {{ sqlndcg.aggregate_labels(judgments=ref('annotations'), method='majority') }}

  Statistics (per scope: all units of a group, by='all'; the units of one query, by='query'):
  * Krippendorff's alpha, any number of annotators, missing ratings allowed. Units with fewer than two ratings are
    not pairable and are left out. With n_uc the ratings of value c in unit u and m_u its ratings (m_u >= 2):
      o_ck = sum_u (n_uc * n_uk - [c = k] * n_uc) / (m_u - 1)     (coincidences)
      n_c  = sum_u n_uc,  n = sum_c n_c
      alpha = 1 - (n - 1) * sum_ck o_ck d(c, k) / sum_ck n_c n_k d(c, k)
    with d nominal: [c != k]; interval: (c - k)^2; ordinal: (M_c - M_k)^2 where M_v = sum_{g <= v} n_g - n_v / 2
    (the ordinal distance (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 written with cumulative counts). NULL when the
    denominator is 0 (every pairable rating the same) or nothing is pairable. Equals the `krippendorff` package.
  * Fleiss' kappa, with missing ratings as Gwet (2014, irrCAC's fleiss.kappa.raw) generalizes it: units with at
    least one rating count; r_u ratings in unit u, r_uc of them value c;
      p_a = mean over units with r_u >= 2 of sum_c r_uc (r_uc - 1) / (r_u (r_u - 1))
      pi_c = mean over units of r_uc / r_u,   p_e = sum_c pi_c^2,   kappa = (p_a - p_e) / (1 - p_e)
    With the same number of ratings per unit this is Fleiss (1971) and statsmodels' fleiss_kappa. NULL when
    p_e = 1 or no unit has two ratings.
  * Cohen's kappa for two annotators A and B, over the units both rated: with the categories their labels take
    there, indexed 0, 1, ... in label order, O the confusion counts, r and c its row and column totals, N units,
      kappa_w = 1 - N * sum_ij w_ij O_ij / sum_ij w_ij r_i c_j
    w_ij = [i != j] (unweighted), |i - j| (linear), (i - j)^2 (quadratic): scikit-learn's cohen_kappa_score.
    In by='all' and by='query' tables it is given when the group has exactly two annotators (else NULL);
    by='pair' gives it for every pair of annotators.
  * observed_agreement: the share of pairable rating pairs (within a unit, between annotators) that agree.
  * mean_difference: the mean over the units both rated of (second's label - first's), where Cohen's kappa is
    given; the first is the lower annotator, or with `between` its first source.
  `between=[first, second]` (two values of the annotator column, e.g. a person and a model judge) keeps only
  those two sources' ratings on the units both rated (sources.sql, which also holds the tables by='confusion',
  'grade' and 'coverage').
-#}

{%- macro _agreement_statistics() -%}
{{ return(['cohen_kappa', 'cohen_kappa_linear', 'cohen_kappa_quadratic', 'fleiss_kappa', 'alpha_nominal',
           'alpha_ordinal', 'alpha_interval']) }}
{%- endmacro -%}

{%- macro _agreement_declared() -%}
{{ return({'by': 'all', 'group_by': [], 'query_id': 'query_id', 'doc_id': 'doc_id', 'annotator': 'annotator',
           'rel': 'rel', 'rank_by': 'alpha_ordinal', 'between': none}) }}
{%- endmacro -%}

{%- macro _aggregate_declared() -%}
{{ return({'method': 'majority', 'tie': 'lower', 'group_by': [], 'query_id': 'query_id', 'doc_id': 'doc_id',
           'annotator': 'annotator', 'rel': 'rel'}) }}
{%- endmacro -%}

{%- macro _aggregate_methods() -%}{{ return(['majority', 'mean', 'median']) }}{%- endmacro -%}
{%- macro _aggregate_ties() -%}{{ return(['lower', 'higher', 'mean']) }}{%- endmacro -%}

{#- What both tools need of the ratings: columns checked, groups, row checks, keys. -#}
{%- macro _ratings_plan(tool, judgments, s) -%}
{%- set groups = sqlndcg._judgment_groups(s.group_by) -%}
{%- for key in ['query_id', 'doc_id', 'annotator', 'rel'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set needed = [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'),
                  ('annotator', s.annotator, 'annotator'), ('rel', s.rel, 'rel')] -%}
{%- for g in groups -%}{%- do needed.append(('group_by', g, 'group_by')) -%}{%- endfor -%}
{{ sqlndcg._judgment_require_columns(judgments, needed) }}
{{ sqlndcg._judgment_require_types(judgments, [s.rel], [s.query_id, s.doc_id, s.annotator]) }}
{%- set checks = [] -%}
{%- for g in groups + [s.query_id, s.doc_id, s.annotator] -%}{%- do checks.append(sqlndcg._judgment_check('null', g, 'is NULL')) -%}{%- endfor -%}
{%- do checks.append(sqlndcg._judgment_check('not_finite', s.rel, 'is NaN or infinite (a missing rating is NULL, or no row)')) -%}
{%- set group_plans = [] -%}
{%- for g in groups -%}{%- do group_plans.append({'alias': '_g' ~ loop.index0, 'column': sqlndcg._quote(g), 'name': g}) -%}{%- endfor -%}
{%- set keys = groups + [s.query_id, s.doc_id, s.annotator] -%}
{%- set annotator = sqlndcg._column_of(judgments.columns, s.annotator) -%}
{{ return({
  'judgments': judgments.sql,
  'groups': group_plans,
  'query_id': sqlndcg._quote(s.query_id),
  'doc_id': sqlndcg._quote(s.doc_id),
  'annotator': sqlndcg._quote(s.annotator),
  'annotator_is_text': annotator.class == 'text',
  'rel': sqlndcg._quote(s.rel),
  'checks': checks,
  'identity': keys,
  'keys': keys,
  'key_meaning': '(query, document, annotator) ratings',
}) }}
{%- endmacro -%}

{%- macro _agreement_plan(judgments, given) -%}
{%- set tool = 'agreement' -%}
{%- set s = sqlndcg._judgment_settings(tool, sqlndcg._agreement_declared(), given) -%}
{%- set p = sqlndcg._ratings_plan(tool, judgments, s) -%}
{%- do p.update({'by': sqlndcg._choice('by', s.by, ['all', 'query', 'pair'] + sqlndcg._agreement_source_tables()),
                 'between': sqlndcg._agreement_between(s.between, p.annotator_is_text),
                 'rank_by': sqlndcg._choice('rank_by', s.rank_by, sqlndcg._agreement_statistics()),
                 'query_output': sqlndcg._quote(s.query_id)}) -%}
{%- set outputs = sqlndcg._judgment_groups(s.group_by) + ([s.query_id] if p.by == 'query' else []) + (['annotator_a', 'annotator_b'] if p.by == 'pair' else []) -%}
{{ sqlndcg._judgment_distinct_outputs(tool, outputs + ['units', 'ratings', 'annotators', 'observed_agreement', 'mean_difference', 'least_consistent_rank'] + sqlndcg._agreement_statistics()) }}
{{ sqlndcg._judgment_distinct_outputs(tool, sqlndcg._judgment_groups(s.group_by) + sqlndcg._agreement_source_outputs(p.by)) }}
{%- do p.update({'settings': {'by': p.by, 'rank_by': p.rank_by, 'group_by': sqlndcg._judgment_groups(s.group_by),
                              'between': s.between | list if s.between is not none else none,
                              'missing': 'NULL labels are missing ratings, left out',
                              'columns': {'query_id': s.query_id, 'doc_id': s.doc_id, 'annotator': s.annotator, 'rel': s.rel}}}) -%}
{{ return(p) }}
{%- endmacro -%}

{%- macro _aggregate_plan(judgments, given) -%}
{%- set tool = 'aggregate_labels' -%}
{%- set s = sqlndcg._judgment_settings(tool, sqlndcg._aggregate_declared(), given) -%}
{%- set p = sqlndcg._ratings_plan(tool, judgments, s) -%}
{%- do p.update({'method': sqlndcg._choice('method', s.method, sqlndcg._aggregate_methods()),
                 'tie': sqlndcg._choice('tie', s.tie, sqlndcg._aggregate_ties()),
                 'rel_output': sqlndcg._quote(s.rel)}) -%}
{{ sqlndcg._judgment_distinct_outputs(tool, sqlndcg._judgment_groups(s.group_by) + [s.query_id, s.doc_id, s.rel, 'ratings', 'spread']) }}
{%- do p.update({'settings': {'method': p.method, 'tie': p.tie if p.method != 'mean' else none,
                              'group_by': sqlndcg._judgment_groups(s.group_by),
                              'missing': 'NULL labels are missing ratings, left out',
                              'columns': {'query_id': s.query_id, 'doc_id': s.doc_id, 'annotator': s.annotator, 'rel': s.rel}}}) -%}
{{ return(p) }}
{%- endmacro -%}

{#- The ratings with internal names: _all (a constant, so a scope is never empty), groups _g0.., _q, _d, the
    annotator _a and the label _v; missing ratings (NULL) left out. -#}
{%- macro _agreement_ratings(p) -%}
SELECT
    1 AS _all,
    {%- for g in p.groups %}
    {{ g.column }} AS {{ g.alias }},
    {%- endfor %}
    {{ p.query_id }} AS _q,
    {{ p.doc_id }} AS _d,
    {{ p.annotator }} AS _a,
    CAST({{ p.rel }} AS {{ sqlndcg.double() }}) AS _v
  FROM {{ p.judgments }} AS judgments_input
  WHERE {{ p.rel }} IS NOT NULL
{%- endmacro -%}

{#- The plan -> one SELECT: a row per scope (by='all': per group; 'query': per group and query; 'pair': per group
    and pair of annotators). -#}
{%- macro _agreement_sql(p) -%}
{%- if p.by in sqlndcg._agreement_source_tables() -%}
{{ sqlndcg._agreement_sources_sql(p) }}
{%- else -%}
WITH _ratings AS (
  {{ sqlndcg._agreement_compared(p) if p.between else sqlndcg._agreement_ratings(p) }}
),
{{ sqlndcg._agreement_cohen(p) }}
{%- if p.by == 'pair' %}
{{ sqlndcg._agreement_by_pair(p) }}
{%- else %}
{{ sqlndcg._agreement_alpha(p) }}
{{ sqlndcg._agreement_fleiss(p) }}
{{ sqlndcg._agreement_merged(p) }}
{%- endif %}
{%- endif -%}
{%- endmacro -%}



{#- The names every stage of the agreement statement uses: the scopes it groups by, types, NULL placement. -#}
{%- macro _agreement_names(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set nul = sqlndcg.null_double() -%}
{%- set first, last = sqlndcg.nulls('FIRST'), sqlndcg.nulls('LAST') -%}
{%- set grp = p.groups | map(attribute='alias') | list -%}
{%- set unit = ['_all'] + grp + ['_q', '_d'] -%}
{%- set scope = ['_all'] + grp + (['_q'] if p.by == 'query' else []) -%}
{%- set cscope = scope + ['_a1', '_a2'] -%}
{%- set group_scope = ['_all'] + grp -%}
{%- set out = cscope if p.by == 'pair' else scope -%}
{%- set x_a = sqlndcg.byte_order('x._a') if p.annotator_is_text else 'x._a' -%}
{%- set y_a = sqlndcg.byte_order('y._a') if p.annotator_is_text else 'y._a' -%}
{%- set stats = ['_units', '_ratings', '_annotators', '_observed', '_cohen', '_cohen_linear', '_cohen_quadratic', '_fleiss', '_alpha_nominal', '_alpha_ordinal', '_alpha_interval', '_difference'] -%}
{#- Which of a unit's two ratings is the first: with `between`, its first source; else the lower annotator. #}
{%- set order = ('x._a = ' ~ p.between[0] ~ ' AND y._a = ' ~ p.between[1]) if p.between else (x_a ~ ' < ' ~ y_a) -%}
{{ return({'d': d, 'nul': nul, 'first': first, 'last': last, 'grp': grp, 'unit': unit, 'scope': scope, 'cscope': cscope,
           'group_scope': group_scope, 'out': out, 'x_a': x_a, 'y_a': y_a, 'stats': stats, 'order': order}) }}
{%- endmacro -%}



{#- Cohen's kappa (plain, linear and quadratic weights) per pair of annotators over the units both rated. -#}
{%- macro _agreement_cohen(p) -%}
{%- set n = sqlndcg._agreement_names(p) -%}
{%- set d, nul, first, last, grp, unit, scope = n.d, n.nul, n.first, n.last, n.grp, n.unit, n.scope -%}
{%- set cscope, group_scope, out, x_a, y_a, stats = n.cscope, n.group_scope, n.out, n.x_a, n.y_a, n.stats -%}
{#- ---- Cohen's kappa: pairs of annotators over the units both rated ---- #}
_group_annotators AS (
  SELECT {{ group_scope | join(', ') }}, COUNT(DISTINCT _a) AS _k
  FROM _ratings
  GROUP BY {{ group_scope | join(', ') }}
),
_pair_ratings AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'x') }}, x._a AS _a1, y._a AS _a2, x._v AS _x, y._v AS _y
  FROM _ratings AS x
  JOIN _ratings AS y
    ON {{ sqlndcg._judgment_on(unit, 'x', 'y') }}
  {%- if p.by != 'pair' %}
  JOIN _group_annotators AS k
    ON {{ sqlndcg._judgment_on(group_scope, 'k', 'x') }}
  WHERE {{ n.order }} AND k._k = 2
  {%- else %}
  WHERE {{ n.order }}
  {%- endif %}
),
_cohen_values AS (
  SELECT {{ cscope | join(', ') }}, _x AS _v FROM _pair_ratings
  UNION ALL
  SELECT {{ cscope | join(', ') }}, _y AS _v FROM _pair_ratings
),
_cohen_distinct AS (
  SELECT DISTINCT {{ cscope | join(', ') }}, _v FROM _cohen_values
),
_cohen_categories AS (
  {#- Categories indexed 0, 1, ... in label order among the labels the two annotators gave (scikit-learn). #}
  SELECT {{ cscope | join(', ') }}, _v, ROW_NUMBER() OVER (PARTITION BY {{ cscope | join(', ') }} ORDER BY _v{{ first }}) - 1 AS _i
  FROM _cohen_distinct
),
_cohen_pairs AS (
  SELECT {{ sqlndcg._judgment_select(cscope, 'p') }}, cx._i AS _ix, cy._i AS _iy, p._y - p._x AS _dv
  FROM _pair_ratings AS p
  JOIN _cohen_categories AS cx ON {{ sqlndcg._judgment_on(cscope, 'cx', 'p') }} AND cx._v = p._x
  JOIN _cohen_categories AS cy ON {{ sqlndcg._judgment_on(cscope, 'cy', 'p') }} AND cy._v = p._y
),
_cohen_observed AS (
  SELECT {{ cscope | join(', ') }},
    COUNT(*) AS _n,
    SUM(CASE WHEN _ix = _iy THEN 0 ELSE 1 END) AS _w0,
    SUM(ABS(_ix - _iy)) AS _w1,
    SUM((_ix - _iy) * (_ix - _iy)) AS _w2,
    SUM(_dv) AS _dsum
  FROM _cohen_pairs
  GROUP BY {{ cscope | join(', ') }}
),
_cohen_rows AS (
  SELECT {{ cscope | join(', ') }}, _ix AS _i, COUNT(*) AS _r FROM _cohen_pairs GROUP BY {{ cscope | join(', ') }}, _ix
),
_cohen_columns AS (
  SELECT {{ cscope | join(', ') }}, _iy AS _i, COUNT(*) AS _c FROM _cohen_pairs GROUP BY {{ cscope | join(', ') }}, _iy
),
_cohen_expected AS (
  {#- sum_ij w_ij r_i c_j: the disagreement expected from the two annotators' own label frequencies. #}
  SELECT {{ sqlndcg._judgment_select(cscope, 'r') }},
    SUM(CASE WHEN r._i = c._i THEN 0 ELSE CAST(r._r AS {{ d }}) * c._c END) AS _e0,
    SUM(CAST(r._r AS {{ d }}) * c._c * ABS(r._i - c._i)) AS _e1,
    SUM(CAST(r._r AS {{ d }}) * c._c * (r._i - c._i) * (r._i - c._i)) AS _e2
  FROM _cohen_rows AS r
  JOIN _cohen_columns AS c ON {{ sqlndcg._judgment_on(cscope, 'r', 'c') }}
  GROUP BY {% for c in cscope %}r.{{ c }}{% if not loop.last %}, {% endif %}{% endfor %}
),
_cohen AS (
  SELECT {{ sqlndcg._judgment_select(cscope, 'o') }},
    o._n AS _n,
    CAST(o._n - o._w0 AS {{ d }}) / o._n AS _agree,
    CASE WHEN e._e0 > 0 THEN 1 - CAST(o._n AS {{ d }}) * o._w0 / e._e0 ELSE {{ nul }} END AS _cohen,
    CASE WHEN e._e1 > 0 THEN 1 - CAST(o._n AS {{ d }}) * o._w1 / e._e1 ELSE {{ nul }} END AS _cohen_linear,
    CASE WHEN e._e2 > 0 THEN 1 - CAST(o._n AS {{ d }}) * o._w2 / e._e2 ELSE {{ nul }} END AS _cohen_quadratic,
    o._dsum / o._n AS _difference
  FROM _cohen_observed AS o
  JOIN _cohen_expected AS e ON {{ sqlndcg._judgment_on(cscope, 'o', 'e') }}
),
{%- endmacro -%}



{#- by='pair': one row per group and pair of annotators. -#}
{%- macro _agreement_by_pair(p) -%}
{%- set n = sqlndcg._agreement_names(p) -%}
{%- set d, nul, first, last, grp, unit, scope = n.d, n.nul, n.first, n.last, n.grp, n.unit, n.scope -%}
{%- set cscope, group_scope, out, x_a, y_a, stats = n.cscope, n.group_scope, n.out, n.x_a, n.y_a, n.stats -%}
_merged AS (
  SELECT {{ cscope | join(', ') }}, _n AS _units, _agree AS _observed, _cohen, _cohen_linear, _cohen_quadratic, _difference
  FROM _cohen
)
SELECT
  {%- for g in p.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _a1 AS {{ sqlndcg._quote('annotator_a') }},
  _a2 AS {{ sqlndcg._quote('annotator_b') }},
  _units AS {{ sqlndcg._quote('units') }},
  CAST(_observed AS {{ d }}) AS {{ sqlndcg._quote('observed_agreement') }},
  CAST(_difference AS {{ d }}) AS {{ sqlndcg._quote('mean_difference') }},
  CAST(_cohen AS {{ d }}) AS {{ sqlndcg._quote('cohen_kappa') }},
  CAST(_cohen_linear AS {{ d }}) AS {{ sqlndcg._quote('cohen_kappa_linear') }},
  CAST(_cohen_quadratic AS {{ d }}) AS {{ sqlndcg._quote('cohen_kappa_quadratic') }}
FROM _merged
ORDER BY {% for g in grp %}{{ g }}, {% endfor %}{{ sqlndcg.byte_order('_a1') if p.annotator_is_text else '_a1' }}, {{ sqlndcg.byte_order('_a2') if p.annotator_is_text else '_a2' }}
{%- endmacro -%}



{#- Krippendorff's alpha (nominal, ordinal, interval) from the coincidences of values within units. -#}
{%- macro _agreement_alpha(p) -%}
{%- set n = sqlndcg._agreement_names(p) -%}
{%- set d, nul, first, last, grp, unit, scope = n.d, n.nul, n.first, n.last, n.grp, n.unit, n.scope -%}
{%- set cscope, group_scope, out, x_a, y_a, stats = n.cscope, n.group_scope, n.out, n.x_a, n.y_a, n.stats -%}
{#- ---- Krippendorff's alpha ---- #}
_unit_values AS (
  SELECT {{ unit | join(', ') }}, _v, COUNT(*) AS _n
  FROM _ratings
  GROUP BY {{ unit | join(', ') }}, _v
),
_unit_sized AS (
  SELECT {{ unit | join(', ') }}, _v, _n, SUM(_n) OVER (PARTITION BY {{ unit | join(', ') }}) AS _m
  FROM _unit_values
),
_pairable AS (
  SELECT {{ unit | join(', ') }}, _v, _n, _m FROM _unit_sized WHERE _m >= 2
),
_coincidences AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'a') }}, a._v AS _c, b._v AS _k,
    SUM((CAST(a._n AS {{ d }}) * b._n - CASE WHEN a._v = b._v THEN a._n ELSE 0 END) / (a._m - 1)) AS _o
  FROM _pairable AS a
  JOIN _pairable AS b ON {{ sqlndcg._judgment_on(unit, 'a', 'b') }}
  GROUP BY {% for c in scope %}a.{{ c }}, {% endfor %}a._v, b._v
),
_value_totals AS (
  SELECT {{ scope | join(', ') }}, _v, CAST(SUM(_n) AS {{ d }}) AS _nc
  FROM _pairable
  GROUP BY {{ scope | join(', ') }}, _v
),
_value_ranked AS (
  {#- M_v = sum_{g <= v} n_g - n_v / 2: the ordinal distance is (M_c - M_k)^2. #}
  SELECT {{ scope | join(', ') }}, _v, _nc,
    SUM(_nc) OVER (PARTITION BY {{ scope | join(', ') }} ORDER BY _v{{ first }} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - _nc / 2 AS _mid
  FROM _value_totals
),
_alpha_observed AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'o') }},
    SUM(CASE WHEN o._c = o._k THEN o._o ELSE 0 END) AS _agreeing,
    SUM(o._o) AS _pairable,
    SUM(CASE WHEN o._c = o._k THEN 0 ELSE o._o END) AS _do_nominal,
    SUM(o._o * (rc._mid - rk._mid) * (rc._mid - rk._mid)) AS _do_ordinal,
    SUM(o._o * (o._c - o._k) * (o._c - o._k)) AS _do_interval
  FROM _coincidences AS o
  JOIN _value_ranked AS rc ON {{ sqlndcg._judgment_on(scope, 'rc', 'o') }} AND rc._v = o._c
  JOIN _value_ranked AS rk ON {{ sqlndcg._judgment_on(scope, 'rk', 'o') }} AND rk._v = o._k
  GROUP BY {% for c in scope %}o.{{ c }}{% if not loop.last %}, {% endif %}{% endfor %}
),
_alpha_expected AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'a') }},
    SUM(CASE WHEN a._v = b._v THEN 0 ELSE a._nc * b._nc END) AS _de_nominal,
    SUM(a._nc * b._nc * (a._mid - b._mid) * (a._mid - b._mid)) AS _de_ordinal,
    SUM(a._nc * b._nc * (a._v - b._v) * (a._v - b._v)) AS _de_interval
  FROM _value_ranked AS a
  JOIN _value_ranked AS b ON {{ sqlndcg._judgment_on(scope, 'a', 'b') }}
  GROUP BY {% for c in scope %}a.{{ c }}{% if not loop.last %}, {% endif %}{% endfor %}
),
_alpha AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'o') }},
    o._agreeing / o._pairable AS _observed,
    {%- for level in ['nominal', 'ordinal', 'interval'] %}
    CASE WHEN e._de_{{ level }} > 0 THEN 1 - (o._pairable - 1) * o._do_{{ level }} / e._de_{{ level }} ELSE {{ nul }} END AS _alpha_{{ level }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM _alpha_observed AS o
  JOIN _alpha_expected AS e ON {{ sqlndcg._judgment_on(scope, 'o', 'e') }}
),
{%- endmacro -%}



{#- Fleiss' kappa, in Gwet's form for units with missing ratings. -#}
{%- macro _agreement_fleiss(p) -%}
{%- set n = sqlndcg._agreement_names(p) -%}
{%- set d, nul, first, last, grp, unit, scope = n.d, n.nul, n.first, n.last, n.grp, n.unit, n.scope -%}
{%- set cscope, group_scope, out, x_a, y_a, stats = n.cscope, n.group_scope, n.out, n.x_a, n.y_a, n.stats -%}
{#- ---- Fleiss' kappa (Gwet's form for missing ratings) ---- #}
_fleiss_units AS (
  SELECT {{ unit | join(', ') }},
    CASE WHEN MAX(_m) >= 2 THEN SUM(CAST(_n AS {{ d }}) * (_n - 1)) / (CAST(MAX(_m) AS {{ d }}) * (MAX(_m) - 1)) ELSE {{ nul }} END AS _pu
  FROM _unit_sized
  GROUP BY {{ unit | join(', ') }}
),
_fleiss_agreement AS (
  SELECT {{ scope | join(', ') }}, COUNT(*) AS _units, AVG(_pu) AS _pa
  FROM _fleiss_units
  GROUP BY {{ scope | join(', ') }}
),
_fleiss_shares AS (
  SELECT {{ scope | join(', ') }}, _v, SUM(CAST(_n AS {{ d }}) / _m) AS _share
  FROM _unit_sized
  GROUP BY {{ scope | join(', ') }}, _v
),
_fleiss_chance AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'f') }},
    SUM((s._share / f._units) * (s._share / f._units)) AS _pe
  FROM _fleiss_shares AS s
  JOIN _fleiss_agreement AS f ON {{ sqlndcg._judgment_on(scope, 'f', 's') }}
  GROUP BY {% for c in scope %}f.{{ c }}{% if not loop.last %}, {% endif %}{% endfor %}
),
_fleiss AS (
  SELECT {{ sqlndcg._judgment_select(scope, 'f') }}, f._units AS _units,
    CASE WHEN c._pe < 1 THEN (f._pa - c._pe) / (1 - c._pe) ELSE {{ nul }} END AS _fleiss
  FROM _fleiss_agreement AS f
  JOIN _fleiss_chance AS c ON {{ sqlndcg._judgment_on(scope, 'f', 'c') }}
),
{%- endmacro -%}



{#- by='all' or 'query': the statistics merged into one row per scope, the least consistent queries ranked. -#}
{%- macro _agreement_merged(p) -%}
{%- set n = sqlndcg._agreement_names(p) -%}
{%- set d, nul, first, last, grp, unit, scope = n.d, n.nul, n.first, n.last, n.grp, n.unit, n.scope -%}
{%- set cscope, group_scope, out, x_a, y_a, stats = n.cscope, n.group_scope, n.out, n.x_a, n.y_a, n.stats -%}
_counts AS (
  SELECT {{ scope | join(', ') }}, COUNT(*) AS _ratings, COUNT(DISTINCT _a) AS _annotators
  FROM _ratings
  GROUP BY {{ scope | join(', ') }}
),
{#- One row per scope from pieces that exist for different scopes: a UNION and a GROUP BY rather than outer joins
    (whose unmatched columns some engines fill with 0 instead of NULL). #}
_pieces AS (
  SELECT {{ scope | join(', ') }}, CAST(_ratings AS {{ d }}) AS _ratings, CAST(_annotators AS {{ d }}) AS _annotators, {{ nul }} AS _units, {{ nul }} AS _observed, {{ nul }} AS _cohen, {{ nul }} AS _cohen_linear, {{ nul }} AS _cohen_quadratic, {{ nul }} AS _fleiss, {{ nul }} AS _alpha_nominal, {{ nul }} AS _alpha_ordinal, {{ nul }} AS _alpha_interval, {{ nul }} AS _difference FROM _counts
  UNION ALL
  SELECT {{ scope | join(', ') }}, {{ nul }}, {{ nul }}, CAST(_units AS {{ d }}), {{ nul }}, {{ nul }}, {{ nul }}, {{ nul }}, _fleiss, {{ nul }}, {{ nul }}, {{ nul }}, {{ nul }} FROM _fleiss
  UNION ALL
  SELECT {{ scope | join(', ') }}, {{ nul }}, {{ nul }}, {{ nul }}, _observed, {{ nul }}, {{ nul }}, {{ nul }}, {{ nul }}, _alpha_nominal, _alpha_ordinal, _alpha_interval, {{ nul }} FROM _alpha
  UNION ALL
  SELECT {{ scope | join(', ') }}, {{ nul }}, {{ nul }}, {{ nul }}, {{ nul }}, _cohen, _cohen_linear, _cohen_quadratic, {{ nul }}, {{ nul }}, {{ nul }}, {{ nul }}, _difference FROM _cohen
),
_merged AS (
  SELECT {{ scope | join(', ') }},
    {%- for s in stats %}
    MAX({{ s }}) AS {{ s }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  FROM _pieces
  GROUP BY {{ scope | join(', ') }}
)
{%- set rank_column = {'cohen_kappa': '_cohen', 'cohen_kappa_linear': '_cohen_linear', 'cohen_kappa_quadratic': '_cohen_quadratic', 'fleiss_kappa': '_fleiss', 'alpha_nominal': '_alpha_nominal', 'alpha_ordinal': '_alpha_ordinal', 'alpha_interval': '_alpha_interval'}[p.rank_by] %}
SELECT
  {%- for g in p.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  {%- if p.by == 'query' %}
  _q AS {{ p.query_output }},
  {%- endif %}
  CAST(_units AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('units') }},
  CAST(_ratings AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('ratings') }},
  CAST(_annotators AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('annotators') }},
  CAST(_observed AS {{ d }}) AS {{ sqlndcg._quote('observed_agreement') }},
  CAST(_difference AS {{ d }}) AS {{ sqlndcg._quote('mean_difference') }},
  CAST(_cohen AS {{ d }}) AS {{ sqlndcg._quote('cohen_kappa') }},
  CAST(_cohen_linear AS {{ d }}) AS {{ sqlndcg._quote('cohen_kappa_linear') }},
  CAST(_cohen_quadratic AS {{ d }}) AS {{ sqlndcg._quote('cohen_kappa_quadratic') }},
  CAST(_fleiss AS {{ d }}) AS {{ sqlndcg._quote('fleiss_kappa') }},
  CAST(_alpha_nominal AS {{ d }}) AS {{ sqlndcg._quote('alpha_nominal') }},
  CAST(_alpha_ordinal AS {{ d }}) AS {{ sqlndcg._quote('alpha_ordinal') }},
  CAST(_alpha_interval AS {{ d }}) AS {{ sqlndcg._quote('alpha_interval') }}
  {%- if p.by == 'query' %},
  {#- 1 = the least consistent query of its group: lowest rank_by first (undefined last), then the lowest
      observed agreement, then the query id. #}
  ROW_NUMBER() OVER (PARTITION BY {{ group_scope | join(', ') }} ORDER BY {{ rank_column }} ASC{{ last }}, _observed ASC{{ last }}, _q ASC{{ first }}) AS {{ sqlndcg._quote('least_consistent_rank') }}
  {%- endif %}
FROM _merged
ORDER BY {% for g in grp %}{{ g }}, {% endfor %}{% if p.by == 'query' %}_q, {% endif %}_all
{%- endmacro -%}

{#- The plan -> one label per (group, query, document). -#}
{%- macro _aggregate_labels_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set first, last = sqlndcg.nulls('FIRST'), sqlndcg.nulls('LAST') -%}
{%- set grp = p.groups | map(attribute='alias') | list -%}
{%- set unit = grp + ['_q', '_d'] -%}
{%- set u = unit | join(', ') -%}
WITH _ratings AS (
  {{ sqlndcg._agreement_ratings(p) }}
),
_unit_stats AS (
  SELECT {{ u }}, COUNT(*) AS _ratings, MAX(_v) - MIN(_v) AS _spread
  FROM _ratings
  GROUP BY {{ u }}
),
{%- if p.method == 'mean' %}
_chosen AS (
  SELECT {{ u }}, AVG(_v) AS _label FROM _ratings GROUP BY {{ u }}
),
{%- elif p.method == 'majority' %}
_counted AS (
  SELECT {{ u }}, _v, COUNT(*) AS _n FROM _ratings GROUP BY {{ u }}, _v
),
{%- if p.tie == 'mean' %}
_modes AS (
  SELECT {{ u }}, _v, _n, MAX(_n) OVER (PARTITION BY {{ u }}) AS _top FROM _counted
),
_chosen AS (
  {#- Equally frequent labels: their mean. #}
  SELECT {{ u }}, AVG(_v) AS _label FROM _modes WHERE _n = _top GROUP BY {{ u }}
),
{%- else %}
_picked AS (
  {#- Equally frequent labels: the {{ p.tie }} one. #}
  SELECT {{ u }}, _v,
    ROW_NUMBER() OVER (PARTITION BY {{ u }} ORDER BY _n DESC{{ last }}, _v {{ 'ASC' ~ first if p.tie == 'lower' else 'DESC' ~ last }}) AS _pick
  FROM _counted
),
_chosen AS (
  SELECT {{ u }}, _v AS _label FROM _picked WHERE _pick = 1
),
{%- endif %}
{%- else %}
_ordered AS (
  SELECT {{ u }}, _v,
    ROW_NUMBER() OVER (PARTITION BY {{ u }} ORDER BY _v{{ first }}) AS _i,
    COUNT(*) OVER (PARTITION BY {{ u }}) AS _m
  FROM _ratings
),
_chosen AS (
  {#- The median: the middle label; with an even count the {{ p.tie }} of the two middle ones. #}
  SELECT {{ u }}, AVG(_v) AS _label
  FROM _ordered
  {%- if p.tie == 'lower' %}
  WHERE 2 * _i = _m OR 2 * _i = _m + 1
  {%- elif p.tie == 'higher' %}
  WHERE 2 * _i = _m + 2 OR 2 * _i = _m + 1
  {%- else %}
  WHERE 2 * _i = _m OR 2 * _i = _m + 1 OR 2 * _i = _m + 2
  {%- endif %}
  GROUP BY {{ u }}
),
{%- endif %}
_final AS (
  SELECT {{ sqlndcg._judgment_select(unit, 'c') }}, c._label AS _label, s._ratings AS _ratings, s._spread AS _spread
  FROM _chosen AS c
  JOIN _unit_stats AS s ON {{ sqlndcg._judgment_on(unit, 'c', 's') }}
)
SELECT
  {%- for g in p.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _q AS {{ p.query_id }},
  _d AS {{ p.doc_id }},
  CAST(_label AS {{ d }}) AS {{ p.rel_output }},
  _ratings AS {{ sqlndcg._quote('ratings') }},
  CAST(_spread AS {{ d }}) AS {{ sqlndcg._quote('spread') }}
FROM _final
ORDER BY {{ u }}
{%- endmacro -%}

{#- dbt entry points. -#}
{%- macro agreement(judgments=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._agreement_sql(sqlndcg._agreement_plan(sqlndcg._input_relation('judgments', judgments), kwargs))) }}
{%- endmacro -%}

{%- macro aggregate_labels(judgments=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._aggregate_labels_sql(sqlndcg._aggregate_plan(sqlndcg._input_relation('judgments', judgments), kwargs))) }}
{%- endmacro -%}

{#- The input problems agreement and aggregate_labels refuse in Python, as rows for a dbt data test (the generic
    test `sqlndcg.valid_annotations`, or a singular test calling `ratings_problems`): NULL ids or annotators, NaN
    or infinite labels, an annotator rating a unit twice. -#}
{%- macro _ratings_problems_sql(p) -%}
{%- set keys = [] -%}{%- for k in p['keys'] -%}{%- do keys.append(sqlndcg._quote(k)) -%}{%- endfor -%}
{{ return(sqlndcg._judgment_problems(p.judgments, p.checks, keys, keys, p.key_meaning)) }}
{%- endmacro -%}

{%- macro ratings_problems(judgments=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._ratings_problems_sql(sqlndcg._agreement_plan(sqlndcg._input_relation('judgments', judgments), kwargs))) }}
{%- endmacro -%}
