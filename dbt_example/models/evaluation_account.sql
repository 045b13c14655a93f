-- What the numbers rest on, per system and day: rows and queries in, queries not scored, unjudged documents.
{{ sqlndcg.account(
    run=ref('rankings'),
    judgments=ref('judgments'),
    group_by=['system', 'ds']
) }}
