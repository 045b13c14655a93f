-- The same propensities fitted by expectation-maximisation of the position-based model over every impression
-- (randomized or not): 20 iterations unrolled as CTEs, with a 20-replicate Poisson bootstrap for the interval.
{{ sqlndcg.propensities(log=ref('click_log'), method='em', iterations=20, bootstrap=20, seed=7) }}
