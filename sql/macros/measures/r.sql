{#-
  r@k: recall.
    R@k = (relevant in the top k) / R          R: judged documents with rel >= threshold
  R = 0 follows `empty`.
  trec_eval: recall.k (default cutoffs 5,10,15,20,30,100,200,500,1000). ir_measures: R@k.
-#}
{%- macro default__measure_r() -%}
{{ return({'help': 'recall: relevant documents in the top k, divided by all relevant', 'aliases': ['recall'],
           'k': true, 'binary': true, 'additive': true, 'emptyable': true, 'needs': ['hits_at', 'r'],
           'range': [0, 1], 'trec_eval': [{'name': 'recall', 'order': 13, 'nicknames': ['all_trec'], 'params': 'cutoffs', 'defaults': [5, 10, 15, 20, 30, 100, 200, 500, 1000]}],
           'ir_measures': 'R@k'}) }}
{%- endmacro -%}
{%- macro default__value_r(m, p, a) -%}
{{ return('CASE WHEN ' ~ a.r ~ ' = 0 THEN ' ~ a.empty ~ ' ELSE ' ~ sqlndcg._as_double(a.hits) ~ ' / ' ~ a.r ~ ' END') }}
{%- endmacro -%}
