-- The baseline system's rankings of the last day, one list per query: the run that interleaved_lists interleaves.
select query_id, doc_id, score
from {{ ref('rankings') }}
where system = 'baseline' and cast(ds as varchar) = '2026-11-04'
