{#-
  Label sources side by side: the `annotator` column names where a label came from (a person, a model judge and
  its prompt version), and agreement(..., between=[first, second]) compares two of them on the units (query,
  document) both labelled. These macros add three tables to agreement's (by='all', 'query', 'pair'):

    by='coverage'   per group and source: units it labelled, how many of them the other source labelled too
                    (shared_units; without `between`: any other source), only_units, and its grade scale (grade_min,
                    grade_max, mean_grade). With `between`, the two sources only.
    by='confusion'  per group and pair of sources (first, second): grade_a (the first's), grade_b (the second's),
                    units, share (of the pair's units). Cells with no unit are not listed.
    by='grade'      per group, pair and grade g of the first source: units (the first gave g), share (of the pair's
                    units), agreement (share of them the second gave g too: the recall of g), units_b (the second
                    gave g), precision (share of those the first gave g; NULL when the second never gave g), mean_b
                    (the second's mean grade where the first gave g) and mean_difference = mean_b - g (the bias at g).

  Pairs are oriented as in by='pair': with `between`, (first, second) as given; else the lower annotator first.
  `between` also restricts by='all', 'query' and 'pair' to the two sources' shared units (_agreement_compared).

    {{ sqlndcg.agreement(judgments=ref('judge_labels'), annotator='source', between=['human', 'llm'], by='grade') }}
-#}

{%- macro _agreement_source_tables() -%}{{ return(['confusion', 'grade', 'coverage']) }}{%- endmacro -%}

{#- The columns after the group columns of each table (none for agreement's own tables). -#}
{%- macro _agreement_source_outputs(by) -%}
{{ return({'confusion': ['annotator_a', 'annotator_b', 'grade_a', 'grade_b', 'units', 'share'],
           'grade': ['annotator_a', 'annotator_b', 'grade', 'units', 'share', 'agreement', 'units_b', 'precision',
                     'mean_b', 'mean_difference'],
           'coverage': ['annotator', 'units', 'shared_units', 'only_units', 'grade_min', 'grade_max', 'mean_grade']}.get(by, [])) }}
{%- endmacro -%}

{#- `between`: none, or two different sources -> their SQL literals (texts quoted; an integer column's integers). -#}
{%- macro _agreement_between(value, is_text) -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- if value is string or value is mapping or value is not iterable or (value | list | length) != 2 -%}
  {{ sqlndcg._fail('setting', 'between=' ~ sqlndcg._show(value) ~ ' must name two sources (values of the annotator column), e.g. between=(' ~ "'human', 'llm'" ~ ')') }}
{%- endif -%}
{%- set values = value | list -%}
{%- if values[0] | string == values[1] | string -%}
  {{ sqlndcg._fail('setting', 'between names ' ~ sqlndcg._show(values[0]) ~ ' twice; name two different sources') }}
{%- endif -%}
{%- set out = [] -%}
{%- for v in values -%}
  {%- if is_text -%}
    {%- do out.append(sqlndcg.text_literal(v | string)) -%}
  {%- elif v is number and v | int == v or v is string and (v | trim).lstrip('-').isdigit() -%}
    {%- do out.append((v | trim | int) | string) -%}
  {%- else -%}
    {{ sqlndcg._fail('setting', 'between=' ~ sqlndcg._show(value) ~ ': the annotator column holds integers, so name two integers') }}
  {%- endif -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- The ratings of the two `between` sources on the units both labelled (a rating per source and unit: repeats are
    refused before). -#}
{%- macro _agreement_compared(p) -%}
{%- set unit = ['_all'] + (p.groups | map(attribute='alias') | list) + ['_q', '_d'] -%}
SELECT {{ unit | join(', ') }}, _a, _v
  FROM (
    SELECT {{ unit | join(', ') }}, _a, _v, COUNT(*) OVER (PARTITION BY {{ unit | join(', ') }}) AS _m
    FROM (
      {{ sqlndcg._agreement_ratings(p) }}
    ) AS all_ratings
    WHERE _a IN ({{ p.between | join(', ') }})
  ) AS compared
  WHERE _m = 2
{%- endmacro -%}

{#- by='confusion', 'grade' or 'coverage': one SELECT. -#}
{%- macro _agreement_sources_sql(p) -%}
{%- set n = sqlndcg._agreement_names(p) -%}
{%- set a1 = sqlndcg.byte_order('c._a1') if p.annotator_is_text else 'c._a1' -%}
{%- set a2 = sqlndcg.byte_order('c._a2') if p.annotator_is_text else 'c._a2' -%}
WITH _ratings AS (
  {%- if p.by == 'coverage' %}
  SELECT * FROM (
    {{ sqlndcg._agreement_ratings(p) }}
  ) AS all_ratings
  {%- if p.between %}
  WHERE _a IN ({{ p.between | join(', ') }})
  {%- endif %}
  {%- else %}
  {{ sqlndcg._agreement_compared(p) if p.between else sqlndcg._agreement_ratings(p) }}
  {%- endif %}
),
{%- if p.by == 'coverage' %}
{{ sqlndcg._agreement_coverage(p, n) }}
{%- else %}
_pairs AS (
  SELECT {{ sqlndcg._judgment_select(n.scope, 'x') }}, x._a AS _a1, y._a AS _a2, x._v AS _x, y._v AS _y
  FROM _ratings AS x
  JOIN _ratings AS y ON {{ sqlndcg._judgment_on(n.unit, 'x', 'y') }}
  WHERE {{ n.order }}
),
_pair_totals AS (
  SELECT {{ n.cscope | join(', ') }}, CAST(COUNT(*) AS {{ n.d }}) AS _total FROM _pairs GROUP BY {{ n.cscope | join(', ') }}
),
{%- if p.by == 'confusion' %}
_cells AS (
  SELECT {{ n.cscope | join(', ') }}, _x, _y, COUNT(*) AS _n FROM _pairs GROUP BY {{ n.cscope | join(', ') }}, _x, _y
)
SELECT
  {%- for g in p.groups %}
  c.{{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  c._a1 AS {{ sqlndcg._quote('annotator_a') }},
  c._a2 AS {{ sqlndcg._quote('annotator_b') }},
  CAST(c._x AS {{ n.d }}) AS {{ sqlndcg._quote('grade_a') }},
  CAST(c._y AS {{ n.d }}) AS {{ sqlndcg._quote('grade_b') }},
  CAST(c._n AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('units') }},
  CAST(c._n / t._total AS {{ n.d }}) AS {{ sqlndcg._quote('share') }}
FROM _cells AS c
JOIN _pair_totals AS t ON {{ sqlndcg._judgment_on(n.cscope, 'c', 't') }}
ORDER BY {% for g in n.grp %}c.{{ g }}, {% endfor %}{{ a1 }}, {{ a2 }}, c._x, c._y
{%- else %}
{{ sqlndcg._agreement_per_grade(p, n) }}
{%- endif %}
{%- endif %}
{%- endmacro -%}

{#- by='grade': a row per group, pair and grade of the first source (from the CTEs _pairs and _pair_totals). One
    row per grade from the first's and the second's counts by a UNION and a GROUP BY, not an outer join. -#}
{%- macro _agreement_per_grade(p, n) -%}
{%- set cs = n.cscope | join(', ') -%}
{%- set d, nul = n.d, n.nul -%}
_first AS (
  SELECT {{ cs }}, _x AS _g, COUNT(*) AS _n, SUM(CASE WHEN _y = _x THEN 1 ELSE 0 END) AS _hit, AVG(_y) AS _mean_b
  FROM _pairs
  GROUP BY {{ cs }}, _x
),
_second AS (
  SELECT {{ cs }}, _y AS _g, COUNT(*) AS _nb FROM _pairs GROUP BY {{ cs }}, _y
),
_grade_pieces AS (
  SELECT {{ cs }}, _g, CAST(_n AS {{ d }}) AS _n, CAST(_hit AS {{ d }}) AS _hit, CAST(_mean_b AS {{ d }}) AS _mean_b, {{ nul }} AS _nb FROM _first
  UNION ALL
  SELECT {{ cs }}, _g, {{ nul }}, {{ nul }}, {{ nul }}, CAST(_nb AS {{ d }}) FROM _second
),
_grades AS (
  SELECT {{ cs }}, _g, MAX(_n) AS _n, MAX(_hit) AS _hit, MAX(_mean_b) AS _mean_b, MAX(_nb) AS _nb
  FROM _grade_pieces
  GROUP BY {{ cs }}, _g
)
SELECT
  {%- for g in p.groups %}
  c.{{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  c._a1 AS {{ sqlndcg._quote('annotator_a') }},
  c._a2 AS {{ sqlndcg._quote('annotator_b') }},
  CAST(c._g AS {{ d }}) AS {{ sqlndcg._quote('grade') }},
  CAST(c._n AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('units') }},
  CAST(c._n / t._total AS {{ d }}) AS {{ sqlndcg._quote('share') }},
  CAST(c._hit / c._n AS {{ d }}) AS {{ sqlndcg._quote('agreement') }},
  CAST(COALESCE(c._nb, 0) AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('units_b') }},
  CAST(CASE WHEN c._nb > 0 THEN c._hit / c._nb ELSE {{ nul }} END AS {{ d }}) AS {{ sqlndcg._quote('precision') }},
  CAST(c._mean_b AS {{ d }}) AS {{ sqlndcg._quote('mean_b') }},
  CAST(c._mean_b - c._g AS {{ d }}) AS {{ sqlndcg._quote('mean_difference') }}
FROM _grades AS c
JOIN _pair_totals AS t ON {{ sqlndcg._judgment_on(n.cscope, 'c', 't') }}
WHERE c._n IS NOT NULL
ORDER BY {% for g in n.grp %}c.{{ g }}, {% endfor %}{{ sqlndcg.byte_order('c._a1') if p.annotator_is_text else 'c._a1' }}, {{ sqlndcg.byte_order('c._a2') if p.annotator_is_text else 'c._a2' }}, c._g
{%- endmacro -%}

{#- by='coverage': a row per group and source, from all its ratings (with `between`, of the two sources). -#}
{%- macro _agreement_coverage(p, n) -%}
{%- set gs = n.group_scope | join(', ') -%}
_unit_counts AS (
  SELECT {{ n.unit | join(', ') }}, COUNT(*) AS _m FROM _ratings GROUP BY {{ n.unit | join(', ') }}
),
_coverage AS (
  SELECT {{ sqlndcg._judgment_select(n.group_scope, 'r') }}, r._a AS _a, COUNT(*) AS _units,
    SUM(CASE WHEN u._m >= 2 THEN 1 ELSE 0 END) AS _shared,
    MIN(r._v) AS _low, MAX(r._v) AS _high, AVG(r._v) AS _mean
  FROM _ratings AS r
  JOIN _unit_counts AS u ON {{ sqlndcg._judgment_on(n.unit, 'r', 'u') }}
  GROUP BY {% for c in n.group_scope %}r.{{ c }}, {% endfor %}r._a
)
SELECT
  {%- for g in p.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _a AS {{ sqlndcg._quote('annotator') }},
  CAST(_units AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('units') }},
  CAST(_shared AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('shared_units') }},
  CAST(_units - _shared AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('only_units') }},
  CAST(_low AS {{ n.d }}) AS {{ sqlndcg._quote('grade_min') }},
  CAST(_high AS {{ n.d }}) AS {{ sqlndcg._quote('grade_max') }},
  CAST(_mean AS {{ n.d }}) AS {{ sqlndcg._quote('mean_grade') }}
FROM _coverage
ORDER BY {% for g in n.grp %}{{ g }}, {% endfor %}{{ sqlndcg.byte_order('_a') if p.annotator_is_text else '_a' }}
{%- endmacro -%}
