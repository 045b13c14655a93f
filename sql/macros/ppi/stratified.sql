{#-
  Stratified prediction-powered inference (Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen, Stratified
  prediction-powered inference for hybrid language model evaluation, NeurIPS 2024): an audit drawn with unequal
  inclusion probabilities across strata (Neyman allocation, strata by disagreement) is uniform within each
  stratum, so PPI holds per stratum, and the strata combine with their shares of the queries. From ppi_evaluate's
  per-stratum summary (`summary`: the strata as groups; per stratum h and metric its mean m_h, interval
  m_h -+ z se_h, audited n_h and unaudited N_h), per metric, with w_h = (n_h + N_h) / sum (n + N):
    mean = sum w_h m_h,  se^2 = sum w_h^2 se_h^2 (se_h = (ci_high - ci_low) / (2 z)),  ci = mean -+ z se
  and beside them the naive (model-only) mean sum w_h naive_h and the stratified human-only mean sum w_h human_h.
-#}

{#- p: {summary (relation SQL of ppi_evaluate's summary with the strata as groups)}. -#}
{%- macro _ppi_stratified_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set z = 'CAST(1.959963984540054 AS ' ~ d ~ ')' -%}
WITH s AS (
  SELECT metric, CAST(audited + unaudited AS {{ d }}) AS nh, CAST(audited AS {{ d }}) AS n, mean, naive_mean, human_mean,
         (ci_high - ci_low) / (2 * {{ z }}) AS se
  FROM {{ p.summary }}
), t AS (
  SELECT metric, SUM(nh) AS total FROM s GROUP BY metric
), c AS (
  SELECT s.metric AS metric, SUM(s.nh / t.total * s.mean) AS mean, SQRT(SUM((s.nh / t.total) * (s.nh / t.total) * s.se * s.se)) AS se,
         SUM(s.nh / t.total * s.naive_mean) AS naive_mean, SUM(s.nh / t.total * s.human_mean) AS human_mean,
         SUM(s.n) AS audited, SUM(s.nh - s.n) AS unaudited, COUNT(*) AS strata
  FROM s JOIN t ON t.metric = s.metric
  GROUP BY s.metric
)
SELECT metric, mean, mean - {{ z }} * se AS ci_low, mean + {{ z }} * se AS ci_high, naive_mean, human_mean,
       CAST(audited AS {{ sqlndcg.integer_type() }}) AS audited, CAST(unaudited AS {{ sqlndcg.integer_type() }}) AS unaudited,
       CAST(strata AS {{ sqlndcg.integer_type() }}) AS strata
FROM c
ORDER BY metric
{%- endmacro -%}
