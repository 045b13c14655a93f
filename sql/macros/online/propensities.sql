{#-
  Examination propensities under the position-based model (PBM): P(click on d at position p for query q) =
  theta(p) * gamma(q, d), theta(1) = 1. One row per (group, position): propensity theta(p), a 95% interval
  (lower, upper), and the impressions and clicks at that position the estimate rests on.

    method='randomized'  over the rows flagged `randomized` (positions shuffled uniformly within their impression),
                         theta(p) = CTR(p) / CTR(1), both over randomized rows, position 1's of the same
                         impressions; interval: the delta method for the ratio of the two means, with their
                         covariance over the impressions that show both (a Wald interval, lower floored at 0);
    method='em'          expectation-maximisation of the PBM over every row (em.sql), theta(p) / theta(1);
                         interval: a seeded Poisson bootstrap over impressions (resample.sql), the 2.5% and 97.5%
                         nearest-rank percentiles of the replicates' theta(p) / theta(1);
    method='logged'      the logged `propensity` column: per position, its mean; lower and upper are the smallest
                         and largest logged value (no estimate, so no interval), not rescaled to theta(1) = 1.
  Positions deeper than max_position are left out (every method). The dbt entry point is
  `{{ sqlndcg.propensities(log=ref('impressions'), method='em', iterations=50) }}`; em runs its iterations
  unrolled as CTEs there, and in Python one statement per iteration until no theta(p) / theta(1) moves more
  than `tolerance`.
-#}

{%- macro _propensities_declared() -%}
{{ return({'method': 'randomized', 'max_position': none, 'iterations': 200, 'tolerance': 1e-4, 'bootstrap': 100,
           'seed': 0}) }}
{%- endmacro -%}

{%- macro _propensities_methods() -%}{{ return(['randomized', 'em', 'logged']) }}{%- endmacro -%}

{%- macro _propensities_outputs() -%}
{{ return(['position', 'propensity', 'lower', 'upper', 'impressions', 'clicks']) }}
{%- endmacro -%}

{#- A whole number setting from `low` to `high`. -#}
{%- macro _online_whole(tool, name, value, low, high) -%}
{%- if value is not integer or value is sameas true or value is sameas false or value < low or value > high -%}
  {{ sqlndcg._fail('setting', tool ~ ': ' ~ name ~ ' must be a whole number from ' ~ low ~ ' to ' ~ high ~ ', got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{#- The log's plan (log.sql) and the settings -> the plan of the propensities. -#}
{%- macro _propensities_plan(log, given) -%}
{%- set tool = 'propensities' -%}
{%- set s = sqlndcg._judgment_settings(tool, sqlndcg._propensities_declared(), given) -%}
{%- set method = sqlndcg._choice('method', s.method, sqlndcg._propensities_methods()) -%}
{%- set needs = {'randomized': 'randomized', 'logged': 'propensity'} -%}
{%- if method in needs and log[needs[method]] is none -%}
  {{ sqlndcg._fail('input', log.label ~ ": method='" ~ method ~ "' needs the " ~ needs[method] ~ ' column, which the log does not have; name it with ' ~ needs[method] ~ '=') }}
{%- endif -%}
{%- set max_position = none if s.max_position is none else sqlndcg._online_whole(tool, 'max_position', s.max_position, 1, 100000) -%}
{%- set iterations = sqlndcg._online_whole(tool, 'iterations', s.iterations, 1, 10000) -%}
{%- set bootstrap = sqlndcg._online_whole(tool, 'bootstrap', s.bootstrap, 0, 9999) -%}
{%- set seed = sqlndcg._online_whole(tool, 'seed', s.seed, 0, 2147483647) -%}
{%- set tolerance = sqlndcg._finite_number('tolerance', s.tolerance) -%}
{%- if tolerance < 0 -%}{{ sqlndcg._fail('setting', tool ~ ': tolerance must be 0 or more, got ' ~ sqlndcg._show(s.tolerance)) }}{%- endif -%}
{{ sqlndcg._judgment_distinct_outputs(tool, log.settings.group_by + sqlndcg._propensities_outputs()) }}
{%- set recorded = {'method': method, 'max_position': max_position} -%}
{%- if method == 'em' -%}
  {%- do recorded.update({'iterations': iterations, 'tolerance': tolerance, 'bootstrap': bootstrap, 'seed': seed,
                          'start': 'theta = gamma = 0.5', 'interval': 'Poisson bootstrap over impressions, 2.5% and 97.5% percentiles' if bootstrap else 'none (bootstrap=0)'}) -%}
{%- elif method == 'randomized' -%}
  {%- do recorded.update({'interval': 'delta method for CTR(p) / CTR(1), 95% Wald'}) -%}
{%- else -%}
  {%- do recorded.update({'propensity': 'mean of the logged values per position', 'interval': 'smallest and largest logged value'}) -%}
{%- endif -%}
{%- do recorded.update(log.settings) -%}
{{ return({'log': log, 'method': method, 'max_position': max_position, 'iterations': iterations,
           'tolerance': tolerance, 'bootstrap': bootstrap if method == 'em' else 0, 'seed': seed, 'settings': recorded}) }}
{%- endmacro -%}

{#- The rows an estimate reads: the log's rows down to max_position; for 'randomized' the randomized ones, for
    'logged' those with a propensity. -#}
{%- macro _propensity_rows(pp) -%}
SELECT * FROM ({{ sqlndcg._click_log_rows(pp.log) }}) AS log_rows
WHERE 1 = 1
{%- if pp.max_position is not none %} AND _pos <= {{ pp.max_position }}{% endif %}
{%- if pp.method == 'randomized' %} AND _rnd = 1{% endif %}
{%- if pp.method == 'logged' %} AND _prop IS NOT NULL{% endif %}
{%- endmacro -%}

{%- macro _propensity_output(pp, source) -%}
SELECT
  {%- for g in pp.log.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _pos AS {{ sqlndcg._quote('position') }},
  _estimate AS {{ sqlndcg._quote('propensity') }},
  _lower AS {{ sqlndcg._quote('lower') }},
  _upper AS {{ sqlndcg._quote('upper') }},
  _impressions AS {{ sqlndcg._quote('impressions') }},
  _clicks AS {{ sqlndcg._quote('clicks') }}
FROM {{ source }}
ORDER BY {% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}_pos
{%- endmacro -%}

{#- method='randomized': CTR(p) / CTR(1) over randomized rows and its delta-method interval (see the header). -#}
{%- macro _propensities_randomized_sql(pp) -%}
{%- set g_cols %}{% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set d = sqlndcg.double() -%}
{%- set z = '1.959963984540054' -%}
WITH _rows AS (
  {{ sqlndcg._propensity_rows(pp) }}
),
_top AS (
  SELECT {{ g_cols }}_i, _click AS _c1 FROM _rows WHERE _pos = 1
),
_sums AS (
  {#- Per position over the randomized impressions whose position 1 is randomized too: n, clicks, the sum of
      squares and the cross product with position 1's click. #}
  SELECT {% for g in pp.log.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._pos AS _pos,
    CAST(COUNT(*) AS {{ d }}) AS _n, SUM(r._click) AS _s, SUM(r._click * r._click) AS _ss, SUM(r._click * t._c1) AS _sp,
    SUM(t._c1) AS _s1
  FROM _rows AS r
  JOIN _top AS t ON t._i = r._i{% for g in pp.log.groups %} AND t.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  GROUP BY {% for g in pp.log.groups %}r.{{ g.alias }}, {% endfor %}r._pos
),
_moments AS (
  SELECT {% for g in pp.log.groups %}s.{{ g.alias }} AS {{ g.alias }}, {% endfor %}s._pos AS _pos, s._n AS _n, s._s AS _sc,
    s._s / s._n AS _m, f._s / f._n AS _m1, f._n AS _n1,
    CASE WHEN s._n > 1 THEN (s._ss - s._s * s._s / s._n) / (s._n - 1) ELSE {{ sqlndcg.null_double() }} END AS _var,
    CASE WHEN f._n > 1 THEN (f._ss - f._s * f._s / f._n) / (f._n - 1) ELSE {{ sqlndcg.null_double() }} END AS _var1,
    CASE WHEN s._n > 1 THEN (s._sp - s._s * s._s1 / s._n) / (s._n - 1) ELSE {{ sqlndcg.null_double() }} END AS _cov
  FROM _sums AS s
  JOIN _sums AS f ON f._pos = 1{% for g in pp.log.groups %} AND f.{{ g.alias }} = s.{{ g.alias }}{% endfor %}
),
_ratios AS (
  {#- Var(m/m1) ~ Var(m)/m1^2 + m^2 Var(m1)/m1^4 - 2 m Cov(m, m1)/m1^3, with Var(m) = var/n, Var(m1) = var1/n1 and
      Cov(m, m1) = cov/n1 (position 1 is shown in every impression that reaches p). #}
  SELECT {{ g_cols }}_pos, _n, _sc,
    CASE WHEN _m1 > 0 THEN _m / _m1 ELSE {{ sqlndcg.null_double() }} END AS _ratio,
    CASE WHEN _m1 > 0 THEN _var / (_n * _m1 * _m1) + _m * _m * _var1 / (_n1 * _m1 * _m1 * _m1 * _m1)
      - 2 * _m * _cov / (_n1 * _m1 * _m1 * _m1) ELSE {{ sqlndcg.null_double() }} END AS _v
  FROM _moments
),
_halves AS (
  {#- Half the interval's width; NULL (no interval) where a variance has fewer than two impressions. #}
  SELECT {{ g_cols }}_pos, _ratio, _n, _sc,
    CASE WHEN _v IS NULL THEN {{ sqlndcg.null_double() }} ELSE {{ z }} * SQRT(CASE WHEN _v > 0 THEN _v ELSE 0 END) END AS _half
  FROM _ratios
),
_estimates AS (
  SELECT {{ g_cols }}_pos, _ratio AS _estimate, CAST(_n AS {{ sqlndcg.integer_type() }}) AS _impressions, CAST(_sc AS {{ sqlndcg.integer_type() }}) AS _clicks,
    CASE WHEN _half IS NULL THEN {{ sqlndcg.null_double() }} WHEN _ratio - _half > 0 THEN _ratio - _half ELSE 0 END AS _lower,
    _ratio + _half AS _upper
  FROM _halves
)
{{ sqlndcg._propensity_output(pp, '_estimates') }}
{%- endmacro -%}

{#- method='logged': the mean logged propensity per position, with the smallest and largest value. -#}
{%- macro _propensities_logged_sql(pp) -%}
{%- set g_cols %}{% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
WITH _rows AS (
  {{ sqlndcg._propensity_rows(pp) }}
),
_estimates AS (
  SELECT {{ g_cols }}_pos, AVG(_prop) AS _estimate, MIN(_prop) AS _lower, MAX(_prop) AS _upper,
    COUNT(*) AS _impressions, CAST(SUM(_click) AS {{ sqlndcg.integer_type() }}) AS _clicks
  FROM _rows
  GROUP BY {{ g_cols }}_pos
)
{{ sqlndcg._propensity_output(pp, '_estimates') }}
{%- endmacro -%}

{#- What the estimate read and left out: rows and impressions read, rows deeper than max_position, and per method
    rows not randomized (and randomized rows whose impression's position 1 was not) or without a propensity. -#}
{%- macro _propensities_account_sql(pp) -%}
{%- set g_cols %}{% for g in pp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set kept = ('_pos <= ' ~ pp.max_position) if pp.max_position is not none else '1 = 1' -%}
SELECT COUNT(*) AS rows_read,
  COUNT(DISTINCT {% if pp.log.groups %}{{ sqlndcg._click_log_impression_text(pp.log) }}{% else %}_i{% endif %}) AS impressions_read,
  SUM(CASE WHEN {{ kept }} THEN 0 ELSE 1 END) AS deeper_than_max_position
  {%- if pp.method == 'randomized' %},
  SUM(CASE WHEN {{ kept }} AND _rnd = 0 THEN 1 ELSE 0 END) AS not_randomized,
  SUM(CASE WHEN {{ kept }} AND _rnd = 1 AND _top_rnd = 0 THEN 1 ELSE 0 END) AS randomized_below_an_unshuffled_top
  {%- elif pp.method == 'logged' %},
  SUM(CASE WHEN {{ kept }} AND _prop IS NULL THEN 1 ELSE 0 END) AS without_propensity
  {%- endif %}
FROM (
  SELECT log_rows.*{% if pp.method == 'randomized' %},
    MAX(CASE WHEN _pos = 1 THEN _rnd ELSE 0 END) OVER (PARTITION BY {{ g_cols }}_i) AS _top_rnd{% endif %}
  FROM ({{ sqlndcg._click_log_rows(pp.log) }}) AS log_rows
) AS counted
{%- endmacro -%}

{#- dbt entry point: the log's settings and the propensities' settings, in one call. -#}
{%- macro propensities(log=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set parts = sqlndcg._click_log_split(kwargs) -%}
{%- set lp = sqlndcg._click_log_plan('propensities', sqlndcg._input_relation('log', log), parts[0]) -%}
{%- set pp = sqlndcg._propensities_plan(lp, parts[1]) -%}
{%- if pp.method == 'em' -%}{{ return(sqlndcg._em_unrolled_sql(pp)) }}{%- endif -%}
{{ return(sqlndcg._propensities_randomized_sql(pp) if pp.method == 'randomized' else sqlndcg._propensities_logged_sql(pp)) }}
{%- endmacro -%}
