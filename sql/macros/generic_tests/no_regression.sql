{#-
  Regression gate on a comparison model (the relation sqlndcg.compare builds: one row per stratum, system and
  metric against the baseline, with `metric`, `difference` and its 95% t interval `t_low`, `t_high`):

    models:
      - name: system_comparison
        data_tests:
          - sqlndcg.no_regression: {arguments: {metric: ndcg@10, margin: 0.01}}

  A row fails when the system is significantly worse than the baseline by more than `margin`: the one-sided paired
  t test of H0: difference >= -margin rejects at level `alpha`, i.e. the upper end of the 95% t interval lies
  below -margin (`t_high < -margin`). It is the rule of sqlndcg.gate() and `sqlndcg compare --fail-if-worse`
  with their default alpha 0.025 and correction='none': dbt tests each row on its own (the Python gate can also
  correct over the gated rows). The model's interval is a 95% one, so `alpha` must be 0.025. Rows without an
  interval (fewer than two pairs) do not fail. Each failing row comes back whole, after a `problem` column.
  The comparison names each metric as its metrics= spelled it ('map', 'MRR@10'): the gate's metric matches that
  name in any case, or its canonical name ('NDCG@5' gates 'ndcg@5'); a comparison with no row of the metric fails
  every row, saying so, rather than pass a gate that checked nothing.
-#}
{%- test no_regression(model, metric, margin=0, alpha=0.025) -%}
{%- set name = sqlndcg._parse_metric(metric)['name'] -%}
{%- set written = (metric | trim) if metric is string else name -%}
{%- set spellings = '(' ~ sqlndcg.text_literal(written | lower) ~ ', ' ~ sqlndcg.text_literal(name) ~ ')' -%}
{%- if margin is string or margin is boolean or margin is not number or margin < 0 -%}
  {{ sqlndcg._fail('setting', 'no_regression: margin= must be a number >= 0 on the metric\'s scale, got ' ~ sqlndcg._show(margin)) }}
{%- endif -%}
{%- if alpha is string or alpha is not number or (alpha - 0.025) | abs > 1e-12 -%}
  {{ sqlndcg._fail('setting', 'no_regression: alpha= must be 0.025 in dbt (the one-sided level of the comparison model\'s 95% t interval), got ' ~ sqlndcg._show(alpha) ~ '; sqlndcg.gate() takes any alpha') }}
{%- endif -%}
SELECT
  {{ sqlndcg.text_literal(name ~ ' significantly worse than the baseline by more than ' ~ margin ~ ' (one-sided alpha 0.025): the upper end of the 95% t interval of the difference is below -' ~ margin) }} AS problem,
  comparison.*
FROM {{ model }} AS comparison
WHERE LOWER(comparison.{{ sqlndcg._quote('metric') }}) IN {{ spellings }}
  AND comparison.{{ sqlndcg._quote('t_high') }} < -CAST({{ margin }} AS {{ sqlndcg.double() }})
UNION ALL
SELECT
  {{ sqlndcg.text_literal('no_regression: the comparison has no row of the metric ' ~ sqlndcg._show(written) ~ ' (' ~ name ~ '); gate one of the metrics in its metric column, spelled as the compare model\'s metrics= spell it') }} AS problem,
  comparison.*
FROM {{ model }} AS comparison
WHERE NOT EXISTS (SELECT 1 FROM {{ model }} AS gated WHERE LOWER(gated.{{ sqlndcg._quote('metric') }}) IN {{ spellings }})
{%- endtest -%}
