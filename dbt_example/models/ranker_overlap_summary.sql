-- ranker_overlap per day: each measure's mean, count, standard deviation and 95% interval (Student's t, in SQL),
-- the weekly report's line "how far has ltr_v2 moved from the baseline".
{{ sqlndcg.overlap_summary(run=ref('rankings'), system='system', baseline='baseline',
                           metrics=['rbo@10', 'rbo_ext@10', 'jaccard@10'], p=0.9, group_by=['ds']) }}
