-- The incremental model holds the same numbers as the full per-query model; any row returned differs.
select f.system, f.ds, f.query_id
from {{ ref('per_query_metrics') }} as f
full outer join {{ ref('per_query_incremental') }} as i
    on i.system = f.system and i.ds = f.ds and i.query_id = f.query_id
where i.query_id is null or f.query_id is null
   or abs(coalesce(f."ndcg@10", -1) - coalesce(i."ndcg@10", -1)) > 1e-12
   or abs(coalesce(f."map", -1) - coalesce(i."map", -1)) > 1e-12
