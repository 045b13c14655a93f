-- The worked example's values (SEMANTICS.md) to the six decimals they are given with: any row returned fails.
{% set metrics = ['cg@1', 'cg@2', 'cg@3', 'cg@4', 'cg@5', 'dcg@1', 'dcg@2', 'dcg@3', 'dcg@4', 'dcg@5',
                  'idcg@1', 'idcg@2', 'idcg@3', 'idcg@4', 'idcg@5', 'ndcg@1', 'ndcg@2', 'ndcg@3', 'ndcg@4', 'ndcg@5'] %}
with computed as (
    {% for m in metrics %}
    select '{{ m }}' as metric, "{{ m }}" as value from {{ ref('worked_example_metrics') }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)
select c.metric, c.value, e.expected
from computed as c
join {{ ref('worked_example_expected') }} as e on e.metric = c.metric
where abs(c.value - e.expected) > 0.0000005
union all
select e.metric, null, e.expected
from {{ ref('worked_example_expected') }} as e
where e.metric not in (select metric from computed)
