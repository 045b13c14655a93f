{#- The statements of exposure fairness (the definitions are in exposure.sql's header). -#}

{#- `prefix`._k0, `prefix`._k1, ... followed by `sep`: the group_by columns. -#}
{%- macro _exposure_keys(p, prefix='', sep=', ', named=false) -%}
{%- set out = [] -%}{%- for k in p.key_columns -%}{%- do out.append(prefix ~ k.alias ~ (' AS ' ~ k.alias if named else '')) -%}{%- endfor -%}
{{ return((out | join(', ')) ~ (sep if out else '')) }}
{%- endmacro -%}

{#- ` AND a._k0 = b._k0 ...` -#}
{%- macro _exposure_on(p, a, b) -%}
{%- set out = [] -%}{%- for k in p.key_columns -%}{%- do out.append(' AND ' ~ a ~ '.' ~ k.alias ~ ' = ' ~ b ~ '.' ~ k.alias) -%}{%- endfor -%}
{{ return(out | join('')) }}
{%- endmacro -%}

{#- The ranked run (_s: the sample, '' without; _pos; _weighted: _w the weight, averaged over ties with ties='average'), each document's expected exposure (_docs: _e,
    its group _grp, '(unknown)' with _missing 1 when the items lack it), the groups' exposure (_groups) and the target (_target). -#}
{%- macro _exposure_inputs(p) -%}
{%- set keys = sqlndcg._exposure_keys(p) -%}
{%- set d = sqlndcg.double() -%}
_ranked AS (
  SELECT {{ keys }}_q, _s, _d, _key, ROW_NUMBER() OVER (PARTITION BY {{ keys }}_q, _s ORDER BY {{ sqlndcg._rank_order('_key', p.tie, p.descending) }}) AS _pos
  FROM (
    SELECT {% for k in p.key_columns %}{{ k.column }} AS {{ k.alias }}, {% endfor %}{{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q,
      {{ sqlndcg._id(p.sample, true) if p.sample else sqlndcg.text_literal('') }} AS _s,
      {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ p.score }} AS _key
    FROM {{ p.run }} AS run_input
  ) AS run_rows
),
_weighted AS (
  SELECT {{ keys }}_q, _s, _d,
    {%- if p.ties == 'average' %}
    AVG({{ sqlndcg._exposure_weight(p, '_pos') }}) OVER (PARTITION BY {{ keys }}_q, _s, _key) AS _w
    {%- else %}
    {{ sqlndcg._exposure_weight(p, '_pos') }} AS _w
    {%- endif %}
  FROM _ranked
),
_lists AS (
  SELECT {{ keys }}_q, COUNT(DISTINCT _s) AS _ns, COUNT(*) AS _rows FROM _ranked GROUP BY {{ keys }}_q
),
_items AS (
  SELECT {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ sqlndcg._id(p.group, true) }} AS _grp FROM {{ p.items_sql }} AS item_input
),
_docs AS (
  SELECT e.*, COALESCE(i._grp, {{ sqlndcg.text_literal('(unknown)') }}) AS _grp, CASE WHEN i._d IS NULL THEN 1 ELSE 0 END AS _missing
  FROM (
    SELECT {{ sqlndcg._exposure_keys(p, 'r.', named=true) }}r._q AS _q, r._d AS _d,
      {{ sqlndcg.ordered('SUM', 'r._w', 'r._s') }} / CAST(MAX(l._ns) AS {{ d }}) AS _e
    FROM _weighted AS r JOIN _lists AS l ON l._q = r._q{{ sqlndcg._exposure_on(p, 'l', 'r') }}
    GROUP BY {{ sqlndcg._exposure_keys(p, 'r.') }}r._q, r._d
  ) AS e
  LEFT JOIN _items AS i ON i._d = e._d
),
_groups AS (
  SELECT {{ keys }}_q, _grp, COUNT(*) AS _n, {{ sqlndcg.ordered('SUM', '_e', '_d') }} AS _eg
  FROM _docs GROUP BY {{ keys }}_q, _grp
),
_shares AS (
  SELECT g.*, g._eg / t._total AS _share, g._eg / g._n AS _mean
  FROM _groups AS g
  JOIN (SELECT {{ keys }}_q, {{ sqlndcg.ordered('SUM', '_eg', '_grp') }} AS _total FROM _groups GROUP BY {{ keys }}_q) AS t
    ON t._q = g._q{{ sqlndcg._exposure_on(p, 't', 'g') }}
),
_target AS (
  {%- if p.target == 'table' %}
  SELECT {{ sqlndcg._id(p.group, true) }} AS _grp, CAST({{ p.share }} AS {{ d }}) AS _t FROM {{ p.target_table }} AS target_input
  {%- else %}
  SELECT _grp, {{ 'CAST(1 AS ' ~ d ~ ')' if p.target == 'uniform' else 'CAST(COUNT(*) AS ' ~ d ~ ')' }} / CAST((SELECT {{ 'COUNT(DISTINCT _grp)' if p.target == 'uniform' else 'COUNT(*)' }} FROM _items) AS {{ d }}) AS _t
  FROM _items GROUP BY _grp
  {%- endif %}
),
{%- endmacro -%}

{#- AWRF per list (_awrf), from the groups' shares and the target: JSD over the groups of either, base 2. -#}
{%- macro _exposure_awrf(p) -%}
{%- set keys = sqlndcg._exposure_keys(p) -%}
_dist AS (
  SELECT {{ keys }}_q, _grp, SUM(_a) AS _a, SUM(_t) AS _t
  FROM (
    SELECT {{ keys }}_q, _grp, _share AS _a, 0 AS _t FROM _shares
    UNION ALL
    SELECT {{ sqlndcg._exposure_keys(p, 'l.', named=true) }}l._q AS _q, t._grp AS _grp, 0 AS _a, t._t AS _t FROM _lists AS l CROSS JOIN _target AS t
  ) AS both_sides
  GROUP BY {{ keys }}_q, _grp
),
_awrf AS (
  SELECT {{ keys }}_q, 1 - {{ sqlndcg.ordered('SUM', '(CASE WHEN _a > 0 THEN _a * ' ~ sqlndcg._log2('2 * _a / (_a + _t)') ~ ' ELSE 0 END + CASE WHEN _t > 0 THEN _t * ' ~ sqlndcg._log2('2 * _t / (_a + _t)') ~ ' ELSE 0 END) / 2', '_grp') }} AS _awrf
  FROM _dist GROUP BY {{ keys }}_q
),
{%- endmacro -%}

{#- Expected exposure against the judgments' target (_ee: _ee_d, _ee_r, _ee_l, _rel: the relevant documents). -#}
{%- macro _exposure_ee(p) -%}
{%- set keys = sqlndcg._exposure_keys(p) -%}
_relevant AS (
  SELECT _q, _d, AVG({{ sqlndcg._exposure_weight(p, '_ipos') }}) OVER (PARTITION BY _q, _rel) AS _t
  FROM (
    SELECT _q, _d, _rel, ROW_NUMBER() OVER (PARTITION BY _q ORDER BY _rel DESC, _d) AS _ipos
    FROM (
      SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ p.rel }} AS _rel
      FROM {{ p.judgments }} AS judgment_input
    ) AS judged
    WHERE _rel > 0
  ) AS ideal
),
_pairs AS (
  SELECT {{ keys }}_q, _d, SUM(_e) AS _e, SUM(_t) AS _t, MAX(_j) AS _j
  FROM (
    SELECT {{ keys }}_q, _d, _e, 0 AS _t, 0 AS _j FROM _docs
    UNION ALL
    SELECT {{ sqlndcg._exposure_keys(p, 'l.', named=true) }}l._q AS _q, r._d AS _d, 0 AS _e, r._t AS _t, 1 AS _j FROM _lists AS l JOIN _relevant AS r ON r._q = l._q
  ) AS both_sides
  GROUP BY {{ keys }}_q, _d
),
_ee AS (
  SELECT {{ keys }}_q, SUM(_j) AS _rel,
    {{ sqlndcg.ordered('SUM', '_e * _e', '_d') }} AS _ee_d, {{ sqlndcg.ordered('SUM', '_e * _t', '_d') }} AS _ee_r,
    {{ sqlndcg.ordered('SUM', '(_e - _t) * (_e - _t)', '_d') }} AS _ee_l
  FROM _pairs GROUP BY {{ keys }}_q
),
{%- endmacro -%}

{#- Every CTE, ending with _pq: one row per list (group_by..., query) with the measures. -#}
{%- macro _exposure_ctes(p) -%}
{%- set keys = sqlndcg._exposure_keys(p) -%}
{%- set n = sqlndcg.null_double() -%}
WITH {{ sqlndcg._exposure_inputs(p) }}
{{ sqlndcg._exposure_awrf(p) }}
{%- if p.judgments %}
{{ sqlndcg._exposure_ee(p) }}
{%- endif %}
_pq AS (
  SELECT {{ sqlndcg._exposure_keys(p, 'l.', named=true) }}l._q AS _q, l._ns AS _ns, m._docs AS _docs, m._groups AS _ngroups, m._total AS _total,
    m._max - m._min AS _diff, CASE WHEN m._max > 0 THEN m._min / m._max ELSE {{ n }} END AS _ratio, a._awrf AS _awrf
    {%- if p.judgments %},
    e._rel AS _rel, CASE WHEN e._rel > 0 THEN e._ee_l ELSE {{ n }} END AS _ee_l,
    CASE WHEN e._rel > 0 THEN e._ee_d ELSE {{ n }} END AS _ee_d, CASE WHEN e._rel > 0 THEN e._ee_r ELSE {{ n }} END AS _ee_r
    {%- endif %}
  FROM _lists AS l
  JOIN (
    SELECT {{ keys }}_q, SUM(_n) AS _docs, COUNT(*) AS _groups, {{ sqlndcg.ordered('SUM', '_eg', '_grp') }} AS _total, MAX(_mean) AS _max, MIN(_mean) AS _min
    FROM _shares GROUP BY {{ keys }}_q
  ) AS m ON m._q = l._q{{ sqlndcg._exposure_on(p, 'm', 'l') }}
  JOIN _awrf AS a ON a._q = l._q{{ sqlndcg._exposure_on(p, 'a', 'l') }}
  {%- if p.judgments %}
  JOIN _ee AS e ON e._q = l._q{{ sqlndcg._exposure_on(p, 'e', 'l') }}
  {%- endif %}
)
{%- endmacro -%}

{#- The per-query measures' output names, in order, with the _pq column of each. -#}
{%- macro _exposure_measures(p) -%}
{%- set out = [('exposure', '_total'), ('disparity_difference', '_diff'), ('disparity_ratio', '_ratio'), ('awrf', '_awrf')] -%}
{%- if p.judgments %}{% do out.extend([('ee_l', '_ee_l'), ('ee_d', '_ee_d'), ('ee_r', '_ee_r')]) %}{% endif -%}
{{ return(out) }}
{%- endmacro -%}
