{#-
  relative_p@k: precision relative to the best possible at k.
    relative_P@k = (relevant in the top k) / min(k, R)        0 when R = 0
  trec_eval: relative_P.k (default cutoffs 5,10,15,20,30,100,200,500,1000). ir_measures: none.
-#}
{%- macro default__measure_relative_p() -%}
{{ return({'help': 'precision at k divided by the best possible precision at k', 'k': true, 'binary': true,
           'needs': ['hits_at', 'r'],
           'range': [0, 1], 'trec_eval': [{'name': 'relative_P', 'order': 26, 'nicknames': ['all_trec'], 'params': 'cutoffs', 'defaults': [5, 10, 15, 20, 30, 100, 200, 500, 1000]}]}) }}
{%- endmacro -%}
{%- macro default__value_relative_p(m, p, a) -%}
{%- set best = a.r if m.k is none else sqlndcg._least(m.k, a.r) -%}
{{ return(sqlndcg._ratio(a.hits, best)) }}
{%- endmacro -%}
