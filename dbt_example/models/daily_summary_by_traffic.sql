-- The daily summary with each query weighted by its traffic (seeds/query_traffic.csv): the mean a business that
-- counts searches, not distinct queries, reports. Its interval uses the effective number of queries.
{{ sqlndcg.summary(
    per_query=ref('per_query_metrics'),
    metrics=var('metrics'),
    group_by=['system', 'ds'],
    query_weights=ref('query_traffic')
) }}
