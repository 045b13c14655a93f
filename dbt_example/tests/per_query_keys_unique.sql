-- One row per (system, day, query) in the per-query models; any key returned occurs twice.
select 'per_query_metrics' as model, system, ds, query_id, count(*) as copies
from {{ ref('per_query_metrics') }}
group by system, ds, query_id
having count(*) > 1
union all
select 'per_query_incremental', system, ds, query_id, count(*)
from {{ ref('per_query_incremental') }}
group by system, ds, query_id
having count(*) > 1
