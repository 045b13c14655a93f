{#-
  p@k: precision.
    P@k = (relevant in the top k) / k          relevant: rel >= threshold
  Lists shorter than k: `short_lists` pad (divide by k, trec_eval) or truncate (divide by min(k, n)).
  trec_eval: P.k (default cutoffs 5,10,15,20,30,100,200,500,1000). ir_measures: P@k, P(rel=2)@k.
-#}
{%- macro default__measure_p() -%}
{{ return({'help': 'precision: relevant documents in the top k, divided by k', 'aliases': ['precision'],
           'k': true, 'binary': true, 'additive': true, 'needs': ['hits_at'],
           'range': [0, 1], 'trec_eval': [{'name': 'P', 'order': 11, 'nicknames': ['official', 'all_trec'], 'params': 'cutoffs', 'defaults': [5, 10, 15, 20, 30, 100, 200, 500, 1000]}],
           'ir_measures': 'P@k'}) }}
{%- endmacro -%}
{%- macro default__value_p(m, p, a) -%}{{ return(sqlndcg._ratio(a.hits, a.positions)) }}{%- endmacro -%}
