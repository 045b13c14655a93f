-- How different ltr_v2's rankings are from the baseline's, per day and query, before anyone labels anything:
-- rank-biased overlap of the top 10 (p = 0.9: a reader who goes on with probability 0.9, about 10 positions deep),
-- its extrapolation (1 for equal lists) and the Jaccard overlap of the top 10 sets. A query one system lacks
-- scores 0 (ranker_overlap_account counts those).
{{ sqlndcg.overlap(run=ref('rankings'), system='system', baseline='baseline',
                   metrics=['rbo@10', 'rbo_ext@10', 'jaccard@10'], p=0.9, group_by=['ds']) }}
