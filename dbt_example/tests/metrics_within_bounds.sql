-- Every normalized metric lies in [0, 1]; any row returned fails.
select system, ds, query_id
from {{ ref('per_query_metrics') }}
where "ndcg@5" not between 0 and 1
   or "ndcg@10" not between 0 and 1
   or "p@5" not between 0 and 1
   or "map" not between 0 and 1
   or "mrr@10" not between 0 and 1
