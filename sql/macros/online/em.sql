{#-
  Expectation-maximisation of the position-based model (Chuklin, Markov and de Rijke, Click Models for Web Search,
  2015, section 4.2; Wang et al., "Position bias estimation for unbiased learning to rank in personal search",
  WSDM 2018, without features). P(click) = theta(p) * gamma(q, d); a click means examined and relevant, a skip
  is explained by either. From theta and gamma of the last iteration, each row (n showings, c clicks of d for q at
  p) expects
    examined:  E = c + (n - c) * theta (1 - gamma) / (1 - theta gamma)
    relevant:  R = c + (n - c) * (1 - theta) gamma / (1 - theta gamma)
  and the next iteration is theta(p) = sum E / sum n over the rows at p, gamma(q, d) = sum R / sum n over the
  rows of (q, d). Both start at 0.5. The model fixes only the products theta gamma, so the result is reported as
  theta(p) / theta(1) (and gamma times theta(1), click_labels). Per group; every bootstrap replicate (resample.sql)
  iterates in the same statement, its rows weighted by its impressions' Poisson draws.

  The state, one row per (replicate _b, group, _q, _d, _pos): _n, _c (weighted showings and clicks), _theta,
  _gamma, _theta1 (theta(1) of the replicate and group) and _delta, how far this iteration moved theta(p) /
  theta(1) (what the result reports; theta itself drifts along the model's scale and converges slowly). `_em_start_ctes` builds it (CTEs ending in `_em0`),
  `_em_step(pp, previous)` is one iteration as one SELECT, `_em_result_ctes(pp, state)` the propensities with
  their interval (CTEs ending in `_estimates`). Python runs the steps as statements until _delta <= tolerance;
  dbt unrolls them as CTEs (`_em_unrolled_ctes`).
-#}

{%- macro _em_start_ctes(pp) -%}
{%- set g_cols %}{% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set d = sqlndcg.double() -%}
_rows AS (
  {{ sqlndcg._propensity_rows(pp) }}
),
_weighted AS (
  {%- if pp.bootstrap %}
  SELECT w._b AS _b, {% for g in pp.log.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._q AS _q, r._d AS _d, r._pos AS _pos, w._w AS _w, r._click AS _click
  FROM _rows AS r
  JOIN ({{ sqlndcg._impression_weights('_rows', (pp.log.groups | map(attribute='alias') | list) + ['_i'], pp.bootstrap, pp.seed) }}) AS w
    ON w._i = r._i{% for g in pp.log.groups %} AND w.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  {%- else %}
  SELECT 0 AS _b, {{ g_cols }}_q, _d, _pos, 1 AS _w, _click FROM _rows
  {%- endif %}
),
_em0 AS (
  SELECT _b, {{ g_cols }}_q, _d, _pos, CAST(SUM(_w) AS {{ d }}) AS _n, CAST(SUM(_w * _click) AS {{ d }}) AS _c,
    CAST(0.5 AS {{ d }}) AS _theta, CAST(0.5 AS {{ d }}) AS _gamma, CAST(0.5 AS {{ d }}) AS _theta1,
    CAST(1 AS {{ d }}) AS _delta
  FROM _weighted
  GROUP BY _b, {{ g_cols }}_q, _d, _pos
  HAVING SUM(_w) > 0
)
{%- endmacro -%}

{#- One iteration: the E step in the inner SELECT, the M step as window sums (see the header). -#}
{%- macro _em_step(pp, previous) -%}
{%- set g_cols %}{% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set at_position = 'PARTITION BY _b, ' ~ g_cols ~ '_pos' -%}
{%- set of_pair = 'PARTITION BY _b, ' ~ g_cols ~ '_q, _d' -%}
{%- set of_group = 'PARTITION BY _b' ~ (', ' ~ (pp.log.groups | map(attribute='alias') | join(', ')) if pp.log.groups else '') -%}
{%- set skipped = 'CASE WHEN _n > _c AND _theta * _gamma < 1 THEN (_n - _c) * ' -%}
SELECT _b, {{ g_cols }}_q, _d, _pos, _n, _c, _new_theta AS _theta, _new_gamma AS _gamma, _new_theta1 AS _theta1,
  CASE WHEN _new_theta1 > 0 AND _old_theta1 > 0 THEN ABS(_new_theta / _new_theta1 - _old_theta / _old_theta1) ELSE 0 END AS _delta
FROM (
  SELECT _b, {{ g_cols }}_q, _d, _pos, _n, _c, _old_theta, _old_theta1,
    SUM(_e) OVER ({{ at_position }}) / SUM(_n) OVER ({{ at_position }}) AS _new_theta,
    SUM(_r) OVER ({{ of_pair }}) / SUM(_n) OVER ({{ of_pair }}) AS _new_gamma,
    SUM(CASE WHEN _pos = 1 THEN _e ELSE 0 END) OVER ({{ of_group }})
      / SUM(CASE WHEN _pos = 1 THEN _n ELSE 0 END) OVER ({{ of_group }}) AS _new_theta1
  FROM (
    SELECT _b, {{ g_cols }}_q, _d, _pos, _n, _c, _theta AS _old_theta, _theta1 AS _old_theta1,
      _c + {{ skipped }}_theta * (1 - _gamma) / (1 - _theta * _gamma) ELSE 0 END AS _e,
      _c + {{ skipped }}(1 - _theta) * _gamma / (1 - _theta * _gamma) ELSE 0 END AS _r
    FROM {{ previous }}
  ) AS _posterior
) AS _maximised
{%- endmacro -%}

{#- The propensities theta(p) / theta(1) of replicate 0, with the 2.5% and 97.5% nearest-rank percentiles of the
    bootstrap replicates' (NULL without replicates), and the showings and clicks of the log at p. -#}
{%- macro _em_result_ctes(pp, state) -%}
{%- set g_cols %}{% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set n = sqlndcg.null_double() -%}
_thetas AS (
  SELECT _b, {{ g_cols }}_pos, MAX(_theta) AS _theta, SUM(_n) AS _shown, SUM(_c) AS _clicked
  FROM {{ state }}
  GROUP BY _b, {{ g_cols }}_pos
),
_ratios AS (
  SELECT t._b AS _b, {% for g in pp.log.groups %}t.{{ g.alias }} AS {{ g.alias }}, {% endfor %}t._pos AS _pos, t._shown AS _shown, t._clicked AS _clicked,
    CASE WHEN f._theta > 0 THEN t._theta / f._theta ELSE {{ n }} END AS _ratio
  FROM _thetas AS t
  JOIN _thetas AS f ON f._b = t._b AND f._pos = 1{% for g in pp.log.groups %} AND f.{{ g.alias }} = t.{{ g.alias }}{% endfor %}
),
_ranked AS (
  SELECT {{ g_cols }}_pos, _ratio,
    ROW_NUMBER() OVER (PARTITION BY {{ g_cols }}_pos ORDER BY _ratio) AS _rank,
    COUNT(*) OVER (PARTITION BY {{ g_cols }}_pos) AS _count
  FROM _ratios
  WHERE _b > 0 AND _ratio IS NOT NULL
),
_parts AS (
  {#- The estimate and the interval as separate rows, merged by MAX (no outer join: some engines fill its unmatched
      columns with 0). #}
  SELECT {{ g_cols }}_pos, _ratio AS _estimate, {{ n }} AS _lower, {{ n }} AS _upper, _shown, _clicked FROM _ratios WHERE _b = 0
  UNION ALL
  SELECT {{ g_cols }}_pos, {{ n }} AS _estimate,
    MIN(CASE WHEN _rank >= 0.025 * _count THEN _ratio ELSE {{ n }} END) AS _lower,
    MIN(CASE WHEN _rank >= 0.975 * _count THEN _ratio ELSE {{ n }} END) AS _upper, {{ n }} AS _shown, {{ n }} AS _clicked
  FROM _ranked
  GROUP BY {{ g_cols }}_pos
),
_estimates AS (
  SELECT {{ g_cols }}_pos, MAX(_estimate) AS _estimate, MAX(_lower) AS _lower, MAX(_upper) AS _upper,
    CAST(MAX(_shown) AS {{ sqlndcg.integer_type() }}) AS _impressions, CAST(MAX(_clicked) AS {{ sqlndcg.integer_type() }}) AS _clicks
  FROM _parts
  GROUP BY {{ g_cols }}_pos
  HAVING MAX(_shown) IS NOT NULL
)
{%- endmacro -%}

{#- dbt: the start and `pp.iterations` iterations as CTEs ending in `_em<iterations>` (no tolerance: every
    iteration runs). -#}
{%- macro _em_unrolled_ctes(pp) -%}
{{ sqlndcg._em_start_ctes(pp) }},
{%- for i in range(1, pp.iterations + 1) %}
_em{{ i }} AS (
  {{ sqlndcg._em_step(pp, '_em' ~ (i - 1)) }}
){% if not loop.last %},{% endif %}
{%- endfor %}
{%- endmacro -%}

{%- macro _em_unrolled_sql(pp) -%}
WITH {{ sqlndcg._em_unrolled_ctes(pp) }},
{{ sqlndcg._em_result_ctes(pp, '_em' ~ pp.iterations) }}
{{ sqlndcg._propensity_output(pp, '_estimates') }}
{%- endmacro -%}

{#- Python: the start state, and the result from a state table. -#}
{%- macro _em_start_sql(pp) -%}
WITH {{ sqlndcg._em_start_ctes(pp) }}
SELECT * FROM _em0
{%- endmacro -%}

{%- macro _em_result_sql(pp, state) -%}
WITH {{ sqlndcg._em_result_ctes(pp, state) }}
{{ sqlndcg._propensity_output(pp, '_estimates') }}
{%- endmacro -%}

{%- macro _em_movement_sql(state) -%}
SELECT MAX(_delta) AS _moved FROM {{ state }}
{%- endmacro -%}
