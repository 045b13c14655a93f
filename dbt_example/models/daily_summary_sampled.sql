-- daily_summary from a sample of the queries: each query is in it when a hash of its id and the seed falls below
-- the share (the same queries evaluate(sample=0.5, seed=3) chooses, on every engine); the interval is the whole
-- day's mean's, with the finite-population correction. The article's approximate computation, with a bound.
{{ sqlndcg.summary(
    run=ref('rankings'),
    judgments=ref('judgments'),
    metrics=var('metrics'),
    group_by=['system', 'ds'],
    gain='exponential',
    empty='skip',
    sample=var('sqlndcg_sample', 0.5),
    seed=3
) }}
