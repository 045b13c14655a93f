-- What ranker_overlap read, per day: the queries of either system, those both have, those only one has (scored 0)
-- and the lists shorter than 10.
{{ sqlndcg.overlap_account(run=ref('rankings'), system='system', baseline='baseline',
                           metrics=['rbo@10', 'rbo_ext@10', 'jaccard@10'], group_by=['ds']) }}
