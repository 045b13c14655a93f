-- One row per (system, day, judged query), one column per metric. The judgments are per day (they share the
-- `ds` column with the rankings), so each day is judged by that day's behaviour.
{{ sqlndcg.per_query(
    run=ref('rankings'),
    judgments=ref('judgments'),
    metrics=var('metrics'),
    group_by=['system', 'ds'],
    gain='exponential',
    empty='skip'
) }}
