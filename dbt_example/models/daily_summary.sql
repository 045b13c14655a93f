-- Per system and day: each metric's mean over the judged queries, the count, the standard deviation and the 95%
-- confidence interval of the mean (Student's t, computed in SQL). A dashboard's daily NDCG line.
{{ sqlndcg.summary(
    per_query=ref('per_query_metrics'),
    metrics=var('metrics'),
    group_by=['system', 'ds']
) }}
