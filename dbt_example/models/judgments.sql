-- Graded judgments from behaviour, the source article's e-commerce example: click = 1, add to cart = 2,
-- purchase = 3. A document's label for a day is its strongest event that day (repeats and weaker events change
-- nothing); a document that was shown (in either system's ranking) but got no event is labelled 0.
with graded as (
    select
        ds,
        query_id,
        doc_id,
        max(case event when 'purchase' then 3 when 'add_to_cart' then 2 when 'click' then 1 else 0 end) as rel
    from {{ ref('events') }}
    group by ds, query_id, doc_id
),
shown as (
    select distinct ds, query_id, doc_id
    from {{ ref('rankings') }}
)
select
    coalesce(g.ds, s.ds) as ds,
    coalesce(g.query_id, s.query_id) as query_id,
    coalesce(g.doc_id, s.doc_id) as doc_id,
    coalesce(g.rel, 0) as rel
from graded as g
full outer join shown as s
    on g.ds = s.ds and g.query_id = s.query_id and g.doc_id = s.doc_id
