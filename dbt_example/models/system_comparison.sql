-- The two systems side by side, per day: ltr_v2 against the baseline on NDCG@10.
select
    b.ds,
    b."ndcg@10" as baseline_ndcg_10,
    c."ndcg@10" as ltr_v2_ndcg_10,
    c."ndcg@10" - b."ndcg@10" as difference,
    b."ndcg@10_ci_low" as baseline_ci_low,
    b."ndcg@10_ci_high" as baseline_ci_high,
    c."ndcg@10_ci_low" as ltr_v2_ci_low,
    c."ndcg@10_ci_high" as ltr_v2_ci_high
from {{ ref('daily_summary') }} as b
join {{ ref('daily_summary') }} as c
    on c.ds = b.ds and c.system = 'ltr_v2'
where b.system = 'baseline'
