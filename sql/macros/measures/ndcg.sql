{#-
  ndcg@k: normalized discounted cumulative gain.
    NDCG@k = DCG@k / IDCG@k
  A query without any positive gain (IDCG = 0) follows `empty`: 0 (trec_eval), NULL, or an error.
  trec_eval: ndcg_cut.k (k given; default cutoffs 5,10,15,20,30,100,200,500,1000), ndcg (no k), with the linear
  gain of preset="trec_eval". ir_measures: nDCG@k.
-#}
{%- macro default__measure_ndcg() -%}
{{ return({'help': 'normalized DCG = DCG / IDCG', 'aliases': ['ndcg_cut'], 'k': true, 'additive': true,
           'emptyable': true, 'needs': ['dcg_at', 'ideal_at'],
           'range': [0, 1], 'trec_eval': [{'name': 'ndcg', 'order': 21, 'nicknames': ['all_trec'], 'params': 'gain_pairs'},
                         {'name': 'ndcg_cut', 'order': 24, 'nicknames': ['all_trec'], 'params': 'cutoffs', 'defaults': [5, 10, 15, 20, 30, 100, 200, 500, 1000]}],
           'ir_measures': 'nDCG@k'}) }}
{%- endmacro -%}
{%- macro default__value_ndcg(m, p, a) -%}
{{ return('CASE WHEN ' ~ a.has_gain ~ ' = 0 THEN ' ~ a.empty ~ ' WHEN ' ~ a.idcg ~ ' = 0 THEN 0 ELSE ' ~ a.dcg
          ~ ' / ' ~ a.idcg ~ ' END') }}
{%- endmacro -%}
