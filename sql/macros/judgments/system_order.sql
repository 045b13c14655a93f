{#-
  Do two label sources rank systems the same way? (sqlndcg.system_order, docs/judgments.md "Model judges: do they
  rank systems the same way?"). The per-query values are compare's (evaluate's statement, one per source); these
  macros split the judgments by source, average the per-query values into a means table, and compare each source's
  order of the systems with the reference's (the human labels):
    tau_b    Kendall's tau-b between the systems' means under the reference and under the source (scipy's
             kendalltau default): (C - D) / sqrt((n0 - n1) (n0 - n2)), n0 the pairs of systems, n1 (n2) those
             tied under the reference (the source); NULL when either order is all ties.
    tau_ap   AP correlation (Yilmaz, Aslam & Robertson, SIGIR 2008), the reference as the truth and the source's
             order as the list: 2 / (N - 1) sum_{i=2..N} C(i) / (i - 1) - 1, C(i) the systems above the i-th that
             the reference also puts above it. Ties: the systems above a system are those with a strictly higher
             mean under the source (a system tied with none above is skipped, as the first; the mean is over the
             systems that have some above); one tied with it under the reference counts 1/2. Without ties it is
             the paper's.
    flips    the pairs whose winner differs (strictly better under one, strictly worse under the other).
  Two systems tie when their means are equal up to float rounding (compare.sql's _within_rounding), so that
  engines summing in other orders find the same ties.
-#}

{#- The distinct non-NULL values of a column (the sources, the systems), in order. -#}
{%- macro _system_order_values_sql(relation, column) -%}
SELECT DISTINCT {{ sqlndcg._quote(column) }} AS v FROM {{ relation }} s WHERE {{ sqlndcg._quote(column) }} IS NOT NULL
ORDER BY v
{%- endmacro -%}

{#- The queries every source judged (the shared set), as a subquery of query ids. p: {judgments (relation SQL),
    source, query (column names), sources (how many)}. -#}
{%- macro _system_order_shared(p) -%}
(SELECT {{ sqlndcg._quote(p.query) }} FROM {{ p.judgments }} x WHERE {{ sqlndcg._quote(p.source) }} IS NOT NULL
 GROUP BY {{ sqlndcg._quote(p.query) }} HAVING COUNT(DISTINCT {{ sqlndcg._quote(p.source) }}) = {{ p.sources | int }})
{%- endmacro -%}

{#- Per source (as text, label_source): the queries it judged and how many of them every source judged. -#}
{%- macro _system_order_queries_sql(p) -%}
{%- set q = sqlndcg._quote(p.query) -%}{%- set src = sqlndcg._quote(p.source) -%}
SELECT CAST(j.{{ src }} AS {{ sqlndcg.text_type() }}) AS label_source, COUNT(DISTINCT j.{{ q }}) AS judged,
       COUNT(DISTINCT sh.{{ q }}) AS shared
FROM {{ p.judgments }} j LEFT JOIN {{ sqlndcg._system_order_shared(p) }} sh ON sh.{{ q }} = j.{{ q }}
WHERE j.{{ src }} IS NOT NULL
GROUP BY j.{{ src }}
ORDER BY label_source
{%- endmacro -%}

{#- One source's judgments (p.value, text; or a list of sources), its other columns (p.columns) as evaluate reads them; with p.shared only
    the queries every source judged. -#}
{%- macro _system_order_labels_sql(p) -%}
SELECT {% for c in p.columns %}j.{{ sqlndcg._quote(c) }}{{ ', ' if not loop.last }}{% endfor %}
FROM {{ p.judgments }} j
{%- if p.shared %}
JOIN {{ sqlndcg._system_order_shared(p) }} sh ON sh.{{ sqlndcg._quote(p.query) }} = j.{{ sqlndcg._quote(p.query) }}
{%- endif %}
{%- set values = [p.value] if p.value is string else p.value %}
WHERE CAST(j.{{ sqlndcg._quote(p.source) }} AS {{ sqlndcg.text_type() }}) IN ({% for v in values %}{{ sqlndcg.text_literal(v) }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro -%}

{#- A few rows computed in Python (the pairs' p-values) as a relation: one SELECT per row, UNION ALL (every engine
    reads it; a VALUES list names its columns differently in each). columns: names; rows: tuples of texts,
    numbers (as doubles) and None (NULL, a double when the column is named p). -#}
{%- macro _system_order_rows_sql(columns, rows) -%}
{%- for row in rows %}
SELECT {% for c in columns %}{% set v = row[loop.index0] -%}
{%- if v is none %}{{ sqlndcg.null_double() if c == 'p' else 'NULL' }}
{%- elif v is string %}{{ sqlndcg.text_literal(v) }}
{%- elif v is sameas true or v is sameas false %}{{ sqlndcg.text_literal(v) }}
{%- elif v is integer %}{{ v }}
{%- else %}{{ sqlndcg._number(v) }}{% endif %} AS {{ sqlndcg._quote(c) }}{{ ', ' if not loop.last }}
{%- endfor %}
{%- if not loop.last %}
UNION ALL
{%- endif %}
{%- endfor %}
{%- endmacro -%}

{#- The groups of a means table and the engine's text of each (keys of the p-values, which come from Python). -#}
{%- macro _system_order_groups_sql(means, groups) -%}
SELECT DISTINCT {% for k in groups %}m.{{ sqlndcg._quote(k) }} AS {{ sqlndcg._quote(k) }}, {% endfor %}
{%- for k in groups %}CAST(m.{{ sqlndcg._quote(k) }} AS {{ sqlndcg.text_type() }}) AS {{ sqlndcg._quote('text_' ~ loop.index0) }}{{ ', ' if not loop.last }}{% endfor %}
FROM {{ means }} m
{%- endmacro -%}

{#- The means table: per (group, metric, source, system) the queries with a value, their mean and the system's rank
    under that source (1 = the highest mean; means equal up to float rounding, compare.sql's _within_rounding,
    share the best rank). p: {per_query: [{source, sql}]
    (compare's per-query tables), groups, system, metrics, source (the output's source column)}. -#}
{%- macro _system_order_means_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set keys = p.groups + [p.system] -%}
{%- set by = [] -%}{%- for k in p.groups %}{% do by.append(sqlndcg._quote(k)) %}{% endfor -%}
{%- set src = sqlndcg._quote(p.source) -%}
WITH vals AS (
{%- for t in p.per_query %}{% set outer = loop %}{% for m in p.metrics %}
  SELECT {% for k in keys %}s.{{ sqlndcg._quote(k) }}, {% endfor %}{{ sqlndcg.text_literal(m) }} AS metric,
         {{ sqlndcg.text_literal(t.source) }} AS {{ src }}, CAST(s.{{ sqlndcg._quote(m) }} AS {{ d }}) AS value
  FROM {{ t.sql }} s
  {%- if not (outer.last and loop.last) %}
  UNION ALL
  {%- endif %}
{%- endfor %}{% endfor %}
), m AS (
  SELECT {% for k in keys %}{{ sqlndcg._quote(k) }}, {% endfor %}metric, {{ src }}, COUNT(value) AS queries,
         AVG(value) AS {{ sqlndcg._quote('mean') }}
  FROM vals GROUP BY {% for k in keys %}{{ sqlndcg._quote(k) }}, {% endfor %}metric, {{ src }}
)
{%- set mean = sqlndcg._quote('mean') %}
SELECT {% for k in by %}m.{{ k }} AS {{ k }}, {% endfor %}m.metric AS metric, m.{{ src }} AS {{ src }},
       m.{{ sqlndcg._quote(p.system) }} AS {{ sqlndcg._quote(p.system) }}, MAX(m.queries) AS queries, MAX(m.{{ mean }}) AS {{ mean }},
       1 + SUM(CASE WHEN o.{{ mean }} IS NULL THEN 0 WHEN m.{{ mean }} IS NULL THEN 1
                    WHEN o.{{ mean }} > m.{{ mean }} AND NOT ({{ sqlndcg._within_rounding('o.' ~ mean ~ ' - m.' ~ mean, 'o.' ~ mean, 'm.' ~ mean) }})
                    THEN 1 ELSE 0 END) AS {{ sqlndcg._quote('rank') }}
FROM m JOIN m o ON o.metric = m.metric AND o.{{ src }} = m.{{ src }}{% for k in by %} AND o.{{ k }} = m.{{ k }}{% endfor %}
GROUP BY {% for k in by %}m.{{ k }}, {% endfor %}m.metric, m.{{ src }}, m.{{ sqlndcg._quote(p.system) }}
ORDER BY {% for k in by %}{{ k }}, {% endfor %}metric, {{ src }}, {{ sqlndcg._quote('rank') }}, {{ sqlndcg._quote(p.system) }}
{%- endmacro -%}

{#- Every ordered pair of systems (a, b) with a mean under the reference and under another source: the means
    table's relation p.means, p.reference (text). CTEs r, s, pairs(groups, metric, source, system_a, system_b,
    ref_a, ref_b, src_a, src_b, ref_sign, src_sign: the sign of a - b, 0 when equal up to float rounding). -#}
{#- 1, 0 or -1: the sign of a - b, 0 when a and b are equal up to float rounding (compare.sql's ties), so that
    means summed in another order on another engine tie alike. -#}
{%- macro _system_order_sign(a, b) -%}
CASE WHEN {{ sqlndcg._within_rounding(a ~ ' - ' ~ b, a, b) }} THEN 0 WHEN {{ a }} > {{ b }} THEN 1 ELSE -1 END
{%- endmacro -%}

{%- macro _system_order_pairs_ctes(p) -%}
{%- set src = sqlndcg._quote(p.source) -%}{%- set sys = sqlndcg._quote(p.system) -%}{%- set mean = sqlndcg._quote('mean') -%}
{%- set ref = 'CAST(' ~ src ~ ' AS ' ~ sqlndcg.text_type() ~ ') = ' ~ sqlndcg.text_literal(p.reference) -%}
r AS (SELECT * FROM {{ p.means }} x WHERE {{ ref }} AND {{ mean }} IS NOT NULL),
s AS (SELECT * FROM {{ p.means }} x WHERE NOT ({{ ref }}) AND {{ mean }} IS NOT NULL),
pairs AS (
  SELECT {% for k in p.groups %}s1.{{ sqlndcg._quote(k) }} AS {{ sqlndcg._quote(k) }}, {% endfor %}s1.metric AS metric,
         s1.{{ src }} AS {{ src }}, s1.{{ sys }} AS system_a, s2.{{ sys }} AS system_b, r1.{{ mean }} AS ref_a, r2.{{ mean }} AS ref_b,
         s1.{{ mean }} AS src_a, s2.{{ mean }} AS src_b,
         {{ sqlndcg._system_order_sign('r1.' ~ mean, 'r2.' ~ mean) }} AS ref_sign,
         {{ sqlndcg._system_order_sign('s1.' ~ mean, 's2.' ~ mean) }} AS src_sign
  FROM s s1
  JOIN s s2 ON s2.metric = s1.metric AND s2.{{ src }} = s1.{{ src }} AND s2.{{ sys }} <> s1.{{ sys }}
  JOIN r r1 ON r1.metric = s1.metric AND r1.{{ sys }} = s1.{{ sys }}
  JOIN r r2 ON r2.metric = s1.metric AND r2.{{ sys }} = s2.{{ sys }}
  {%- for k in p.groups %}{% set g = sqlndcg._quote(k) %}
    AND s2.{{ g }} = s1.{{ g }} AND r1.{{ g }} = s1.{{ g }} AND r2.{{ g }} = s1.{{ g }}
  {%- endfor %}
)
{%- endmacro -%}

{#- Per (group, metric, source other than the reference): the systems both rank, concordant and discordant pairs,
    tau_b, tau_ap and the flipped pairs (= discordant). p as for _system_order_pairs_ctes. -#}
{%- macro _system_order_correlation_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set src = sqlndcg._quote(p.source) -%}{%- set sys = sqlndcg._quote(p.system) -%}
{%- set by = [] -%}{%- for k in p.groups %}{% do by.append(sqlndcg._quote(k)) %}{% endfor -%}
{%- set keys = (by + ['metric', src]) | join(', ') -%}
{%- set on_c = [] -%}{%- set on_ap = [] -%}
{%- for k in by + ['metric', src] %}{% do on_c.append('c.' ~ k ~ ' = n.' ~ k) %}{% do on_ap.append('ap.' ~ k ~ ' = n.' ~ k) %}{% endfor -%}
WITH {{ sqlndcg._system_order_pairs_ctes(p) }},
n AS (
  SELECT {% for k in by %}s.{{ k }} AS {{ k }}, {% endfor %}s.metric AS metric, s.{{ src }} AS {{ src }}, COUNT(*) AS systems
  FROM s JOIN r ON r.metric = s.metric AND r.{{ sys }} = s.{{ sys }}
  {%- for k in by %} AND r.{{ k }} = s.{{ k }}{% endfor %}
  GROUP BY {% for k in by %}s.{{ k }}, {% endfor %}s.metric, s.{{ src }}
), c AS (
  SELECT {{ keys }},
         SUM(CASE WHEN ref_sign = 1 AND src_sign = 1 THEN 1 ELSE 0 END) AS concordant,
         SUM(CASE WHEN ref_sign = 1 AND src_sign = -1 THEN 1 ELSE 0 END) AS discordant,
         CAST(COUNT(*) AS {{ d }}) / 2 AS n0,
         CAST(SUM(CASE WHEN ref_sign = 0 THEN 1 ELSE 0 END) AS {{ d }}) / 2 AS n1,
         CAST(SUM(CASE WHEN src_sign = 0 THEN 1 ELSE 0 END) AS {{ d }}) / 2 AS n2
  FROM pairs GROUP BY {{ keys }}
), above AS (
  SELECT {{ keys }}, system_a,
         SUM(CASE WHEN ref_sign = -1 THEN CAST(1 AS {{ d }}) WHEN ref_sign = 0 THEN CAST(0.5 AS {{ d }})
                  ELSE CAST(0 AS {{ d }}) END) / COUNT(*) AS share
  FROM pairs WHERE src_sign = -1 GROUP BY {{ keys }}, system_a
), ap AS (
  SELECT {{ keys }}, 2 * AVG(share) - 1 AS tau_ap, 1 AS ap_found FROM above GROUP BY {{ keys }}
)
SELECT {% for k in by + ['metric', src] %}n.{{ k }} AS {{ k }}, {% endfor %}n.systems AS systems,
       CASE WHEN (c.n0 - c.n1) * (c.n0 - c.n2) > 0
            THEN (CAST(c.concordant AS {{ d }}) - c.discordant) / SQRT((c.n0 - c.n1) * (c.n0 - c.n2)) END AS tau_b,
       CASE WHEN ap.ap_found = 1 THEN ap.tau_ap END AS tau_ap, COALESCE(c.concordant, 0) AS concordant, COALESCE(c.discordant, 0) AS flipped
FROM n
LEFT JOIN c ON {{ on_c | join(' AND ') }}
LEFT JOIN ap ON {{ on_ap | join(' AND ') }}
ORDER BY {% for k in by + ['metric', src] %}n.{{ k }}{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro -%}

{#- Per (group, metric, source): every pair of systems whose winner flips, system_a the reference's winner, the
    mean differences a - b under each and the p-values of the paired test under each (p.pvalues: a relation of
    (groups, source, metric, system_a, system_b, p), the groups and systems as text (the engine's text of them:
    _system_order_groups_sql), both orders of a pair; none: NULL). -#}
{%- macro _system_order_flips_sql(p) -%}
{%- set t = sqlndcg.text_type() -%}
{%- set src = sqlndcg._quote(p.source) -%}
{%- set by = [] -%}{%- for k in p.groups %}{% do by.append(sqlndcg._quote(k)) %}{% endfor -%}
WITH {{ sqlndcg._system_order_pairs_ctes(p) }}
SELECT {% for k in by %}x.{{ k }} AS {{ k }}, {% endfor %}x.metric AS metric, x.{{ src }} AS {{ src }}, x.system_a AS system_a,
       x.system_b AS system_b,
       x.ref_a - x.ref_b AS reference_difference, x.src_a - x.src_b AS source_difference,
       {% if p.pvalues is none %}{{ sqlndcg.null_double() }} AS reference_p, {{ sqlndcg.null_double() }} AS source_p
       {%- else %}pr.p AS reference_p, ps.p AS source_p{% endif %}
FROM pairs x
{%- if p.pvalues is not none %}{%- for alias, value in [('pr', sqlndcg.text_literal(p.reference)), ('ps', 'CAST(x.' ~ src ~ ' AS ' ~ t ~ ')')] %}
LEFT JOIN {{ p.pvalues }} {{ alias }} ON {{ alias }}.metric = x.metric AND {{ alias }}.source = {{ value }}
  AND {{ alias }}.system_a = CAST(x.system_a AS {{ t }}) AND {{ alias }}.system_b = CAST(x.system_b AS {{ t }})
  {%- for k in by %} AND {{ alias }}.{{ k }} = CAST(x.{{ k }} AS {{ t }}){% endfor %}
{%- endfor %}{% endif %}
WHERE x.ref_sign = 1 AND x.src_sign = -1
ORDER BY {% for k in by %}x.{{ k }}, {% endfor %}x.metric, x.{{ src }}, x.system_a, x.system_b
{%- endmacro -%}


{#- dbt entry points (docs/judgments.md, "In dbt"): the means table from one per-query model per source
    (per_query={'human': ref('per_query_human'), 'gpt': ref('per_query_gpt')}, each sqlndcg.per_query with the
    system among its group_by), and the correlation and flips over a means model. The flips' p-values are Python's
    (compare): NULL here. -#}
{%- macro _system_order_dbt(means, reference, source, system, group_by, pvalues=none) -%}
{{ return({'means': sqlndcg._input_relation('means', means).sql, 'reference': reference | string, 'source': source,
           'system': system, 'groups': [group_by] if group_by is string else (group_by or []), 'pvalues': pvalues}) }}
{%- endmacro -%}

{%- macro system_order_means(per_query=none, metrics=none, source='source', system='system', group_by=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- if per_query is none or per_query is string or per_query is not mapping or not per_query -%}
  {{ sqlndcg._fail('setting', 'per_query= must map each label source to its per-query model, e.g. {"human": '
                   ~ 'ref("per_query_human"), "model": ref("per_query_model")}') }}
{%- endif -%}
{%- if not metrics or metrics is string -%}{{ sqlndcg._fail('setting', 'metrics= must list the per-query models\' metric columns') }}{%- endif -%}
{%- set tables = [] -%}
{%- for name, relation in per_query.items() %}{% do tables.append({'source': name, 'sql': sqlndcg._input_relation('per_query', relation).sql}) %}{% endfor -%}
{{ return(sqlndcg._system_order_means_sql({'per_query': tables, 'metrics': metrics, 'source': source, 'system': system,
                                           'groups': [group_by] if group_by is string else (group_by or [])})) }}
{%- endmacro -%}

{%- macro system_order_correlation(means=none, reference='human', source='source', system='system', group_by=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._system_order_correlation_sql(sqlndcg._system_order_dbt(means, reference, source, system, group_by))) }}
{%- endmacro -%}

{%- macro system_order_flips(means=none, reference='human', source='source', system='system', group_by=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._system_order_flips_sql(sqlndcg._system_order_dbt(means, reference, source, system, group_by))) }}
{%- endmacro -%}
