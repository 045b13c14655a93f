-- The rankings as sqlndcg.overlap reads them: ids, systems, days and scores present, scores finite, each document
-- once per (day, system, query) list (one row per problem).
{{ sqlndcg.overlap_problems(run=ref('rankings'), system='system', baseline='baseline', group_by=['ds']) }}
