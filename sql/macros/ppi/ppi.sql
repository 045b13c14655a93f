{#-
  Prediction-powered metrics (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, Prediction-powered inference,
  Science 2023; PPI++: Angelopoulos, Duchi & Zrnic, arXiv:2311.01453, 2023), from two per-query tables that
  evaluate computed: `model` (the metric with model labels, on every query) and `human` (the metric with human
  labels, on the audited queries only). Per (group, metric), with the audited queries as the labelled set
  (n queries: Y the human value, Yh the model value) and the others as the unlabelled set (N queries: Yu the model
  value), as ppi_py's ppi_mean_ci takes them (unweighted, alpha = 0.05, two-sided):
    lam    'ppi': 1; 'ppi++': clip(cov_n(Y, Yh) / ((1 + n/N) var_{n+N-1}(Yh u Yu)), 0, 1)   (ppi_py _calc_lam_glm)
    mean   lam mean(Yu) + mean(Y - lam Yh)
    se^2   lam^2 var_N(Yu) / N + var_n(Y - lam Yh) / n     (var_n: divided by n, as numpy's std)
    ci     mean -+ z_0.975 se   (interval 'normal', ppi_py's); interval 't': mean -+ t_0.975(n - 1) se, Student's t
           with the audited queries less one as degrees of freedom: a conservative small-audit convention of
           sqlndcg's, not ppi_py's (NULL when n = 1)
  effective_human_labels = var_n(Y) / se^2: the audited queries a human-only mean would need for the same
  interval width (n when lam = 0). naive_*: the model labels' mean over every query and its t interval, as
  evaluate's summary has it. A group without unaudited queries (N = 0) has NULL lam and interval.
-#}

{#- The pairs as common table expressions (model_long, human_long, pairs): per (group, query, metric) the model
    value and, on audited queries, the human one. p: {model, human (relation SQL), groups, query (column names),
    metrics (names)}. -#}
{%- macro _ppi_pairs_ctes(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set keys = p.groups + [p.query] -%}
{%- for side in ['model', 'human'] %}
{{ side }}_long AS (
{%- for m in p.metrics %}
  SELECT {% for k in keys %}s.{{ sqlndcg._quote(k) }}, {% endfor %}{{ sqlndcg.text_literal(m) }} AS metric,
         CAST(s.{{ sqlndcg._quote(m) }} AS {{ d }}) AS value
  FROM {{ p[side] }} s
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
{%- endfor %}
),
{%- endfor %}
{#- A union and a GROUP BY rather than a LEFT JOIN: ClickHouse fills the unmatched side of a LEFT JOIN with
    its types' defaults, not NULL, so `audited` is the flag a human row brings. #}
ppi_sides AS (
  SELECT {% for k in keys %}m.{{ sqlndcg._quote(k) }}, {% endfor %}m.metric, m.value AS model_value,
         {{ sqlndcg.null_double() }} AS human_value, 1 AS in_model, 0 AS audited
  FROM model_long m
  UNION ALL
  SELECT {% for k in keys %}h.{{ sqlndcg._quote(k) }}, {% endfor %}h.metric, {{ sqlndcg.null_double() }} AS model_value,
         h.value AS human_value, 0 AS in_model, 1 AS audited
  FROM human_long h
),
pairs AS (
  SELECT {% for k in keys %}b.{{ sqlndcg._quote(k) }}, {% endfor %}b.metric, MAX(b.model_value) AS model_value,
         MAX(b.human_value) AS human_value, MAX(b.audited) AS audited
  FROM ppi_sides b
  GROUP BY {% for k in keys %}b.{{ sqlndcg._quote(k) }}, {% endfor %}b.metric
  HAVING MAX(b.in_model) = 1
)
{%- endmacro -%}

{#- The per-query pairs: per (group, query, metric) model_value, human_value (NULL when not audited), audited. -#}
{%- macro _ppi_pairs_sql(p) -%}
WITH {{ sqlndcg._ppi_pairs_ctes(p) }}
SELECT * FROM pairs
ORDER BY {% for k in p.groups + [p.query] %}{{ sqlndcg._quote(k) }}, {% endfor %}metric
{%- endmacro -%}

{#- compare's paired differences: per (other groups, system, query, metric) each system's values minus the
    baseline's on the same query (model and human), for the queries both have; the last of p.groups names
    the systems, p.baseline the baseline's value (text). -#}
{%- macro _ppi_diffs_cte(p) -%}
{%- set others = p.groups[:-1] + [p.query] -%}
{%- set sys = sqlndcg._quote(p.groups[-1]) -%}
diffs AS (
  SELECT {% for k in p.groups + [p.query] %}s.{{ sqlndcg._quote(k) }}, {% endfor %}s.metric,
         s.model_value - b.model_value AS model_value, s.human_value - b.human_value AS human_value, s.audited
  FROM pairs s
  JOIN pairs b ON b.metric = s.metric AND CAST(b.{{ sys }} AS {{ sqlndcg.text_type() }}) = {{ sqlndcg.text_literal(p.baseline) }}
  {%- for k in others %} AND b.{{ sqlndcg._quote(k) }} = s.{{ sqlndcg._quote(k) }}{% endfor %}
  WHERE CAST(s.{{ sys }} AS {{ sqlndcg.text_type() }}) <> {{ sqlndcg.text_literal(p.baseline) }}
)
{%- endmacro -%}

{#- The audited queries (group, query) that the model's table lacks: a few of them, to name in an error. -#}
{%- macro _ppi_missing_sql(p) -%}
{%- set keys = p.groups + [p.query] -%}
SELECT {% for k in keys %}h.{{ sqlndcg._quote(k) }}{{ ', ' if not loop.last }}{% endfor %}
FROM {{ p.human }} h
WHERE NOT EXISTS (SELECT 1 FROM {{ p.model }} m WHERE
{%- for k in keys %} {{ 'AND ' if not loop.first }}m.{{ sqlndcg._quote(k) }} = h.{{ sqlndcg._quote(k) }}{% endfor %})
ORDER BY {% for k in keys %}h.{{ sqlndcg._quote(k) }}{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro -%}

{#- The summary: per (group, metric) the corrected mean and interval, the naive ones beside them (see above).
    p as for _ppi_pairs_sql, plus ppi ('ppi' or 'ppi++') and interval ('normal' or 't'). -#}
{%- macro _ppi_summary_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set mode = sqlndcg._choice('ppi', p.ppi, ['ppi', 'ppi++']) -%}
{%- set g = [] -%}{%- for k in p.groups %}{% do g.append('j.' ~ sqlndcg._quote(k)) %}{% endfor -%}
{%- set by = (g + ['j.metric']) | join(', ') -%}
{%- set on = ['a.metric = j.metric'] -%}{%- for k in p.groups %}{% do on.append('a.' ~ sqlndcg._quote(k) ~ ' = j.' ~ sqlndcg._quote(k)) %}{% endfor -%}
{%- set z = 'CAST(1.959963984540054 AS ' ~ d ~ ')' if sqlndcg._choice('interval', p.interval or 'normal', ['normal', 't']) == 'normal' else sqlndcg._t975('e.n - 1') -%}
WITH {{ sqlndcg._ppi_pairs_ctes(p) }},{% if p.baseline is not none %} {{ sqlndcg._ppi_diffs_cte(p) }},{% endif %} j AS (
  SELECT * FROM {{ 'diffs' if p.baseline is not none else 'pairs' }} WHERE model_value IS NOT NULL AND (audited = 0 OR human_value IS NOT NULL)
), a AS (
  SELECT {{ by }},
         CAST(SUM(j.audited) AS {{ d }}) AS n, CAST(SUM(1 - j.audited) AS {{ d }}) AS nu,
         AVG(CASE WHEN j.audited = 1 THEN j.human_value END) AS my,
         AVG(CASE WHEN j.audited = 1 THEN j.model_value END) AS mh,
         AVG(CASE WHEN j.audited = 0 THEN j.model_value END) AS mu,
         AVG(j.model_value) AS ma
  FROM j GROUP BY {{ by }}
), v AS (
  SELECT {% for k in g %}{{ k }}, {% endfor %}j.metric, a.n, a.nu, a.my, a.mh, a.mu, a.ma,
         SUM(CASE WHEN j.audited = 1 THEN (j.human_value - a.my) * (j.model_value - a.mh) ELSE 0 END) / a.n AS cov,
         SUM(CASE WHEN j.audited = 1 THEN (j.human_value - a.my) * (j.human_value - a.my) ELSE 0 END) / a.n AS vy,
         SUM(CASE WHEN j.audited = 1 THEN (j.model_value - a.mh) * (j.model_value - a.mh) ELSE 0 END) / a.n AS vh,
         SUM(CASE WHEN j.audited = 0 THEN (j.model_value - a.mu) * (j.model_value - a.mu) ELSE 0 END)
           / NULLIF(a.nu, 0) AS vu,
         SUM((j.model_value - a.ma) * (j.model_value - a.ma)) / NULLIF(a.n + a.nu - 1, 0) AS va
  FROM j JOIN a ON {{ on | join(' AND ') }}
  GROUP BY {{ by }}, a.n, a.nu, a.my, a.mh, a.mu, a.ma
), l AS (
  SELECT v.*,
  {%- if mode == 'ppi' %}
         CASE WHEN v.nu > 0 THEN CAST(1 AS {{ d }}) END AS lam
  {%- else %}
         CASE WHEN v.nu = 0 THEN NULL WHEN v.va IS NULL OR v.va = 0 OR v.cov <= 0 THEN CAST(0 AS {{ d }})
              WHEN v.cov / ((1 + v.n / v.nu) * v.va) > 1 THEN CAST(1 AS {{ d }})
              ELSE v.cov / ((1 + v.n / v.nu) * v.va) END AS lam
  {%- endif %}
  FROM v
), e AS (
  SELECT l.*, l.lam * l.mu + l.my - l.lam * l.mh AS est,
         l.lam * l.lam * l.vu / l.nu + (l.vy - 2 * l.lam * l.cov + l.lam * l.lam * l.vh) / l.n AS se2
  FROM l
)
SELECT {% for k in p.groups %}e.{{ sqlndcg._quote(k) }}, {% endfor %}
       {%- if p.baseline is not none %}{{ sqlndcg.text_literal(p.baseline) }} AS baseline, {% endif %}e.metric,
       e.est AS mean, e.est - {{ z }} * SQRT(e.se2) AS ci_low, e.est + {{ z }} * SQRT(e.se2) AS ci_high,
       e.ma AS naive_mean,
       e.ma - {{ sqlndcg._t975('e.n + e.nu - 1') }} * SQRT(e.va / (e.n + e.nu)) AS naive_ci_low,
       e.ma + {{ sqlndcg._t975('e.n + e.nu - 1') }} * SQRT(e.va / (e.n + e.nu)) AS naive_ci_high,
       e.my AS human_mean, e.lam AS lam, CAST(e.n AS {{ sqlndcg.integer_type() }}) AS audited,
       CAST(e.nu AS {{ sqlndcg.integer_type() }}) AS unaudited,
       CASE WHEN e.se2 > 0 THEN e.vy / e.se2 END AS effective_human_labels
FROM e
ORDER BY {% for k in p.groups %}e.{{ sqlndcg._quote(k) }}, {% endfor %}e.metric
{%- endmacro -%}

{#- The lowest and highest grade of a judgments relation (its `rel` column): the grade scale two sources must share. -#}
{%- macro _ppi_grades_sql(labels, rel) -%}
SELECT MIN(j.{{ sqlndcg._quote(rel) }}), MAX(j.{{ sqlndcg._quote(rel) }}) FROM {{ labels }} j
{%- endmacro -%}
