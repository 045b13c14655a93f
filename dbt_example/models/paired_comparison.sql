-- ltr_v2 against the baseline, per day, paired by query (sqlndcg.compare, in SQL): each metric's mean difference
-- with its 95% t interval, the paired t test's p-value and the effect size. `dbt build` fails on a day where ltr_v2
-- is significantly worse than the baseline by more than the margin: the sqlndcg.no_regression test (schema.yml).
{{ sqlndcg.compare(
    run=ref('rankings'),
    judgments=ref('judgments'),
    metrics=var('metrics'),
    system='system',
    baseline='baseline',
    group_by=['ds'],
    gain='exponential',
    empty='skip'
) }}
