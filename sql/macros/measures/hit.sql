{#-
  hit@k: 1 if any relevant document is in the top k, else 0.
  trec_eval: success.k (default cutoffs 1,5,10). ir_measures: Success@k.
-#}
{%- macro default__measure_hit() -%}
{{ return({'help': '1 if any relevant document is in the top k', 'aliases': ['hitrate', 'hit_rate', 'success'],
           'k': true, 'binary': true, 'needs': ['hits_at'],
           'range': [0, 1], 'trec_eval': [{'name': 'success', 'order': 27, 'nicknames': ['all_trec'], 'params': 'cutoffs', 'defaults': [1, 5, 10]}], 'ir_measures': 'Success@k'}) }}
{%- endmacro -%}
{%- macro default__value_hit(m, p, a) -%}{{ return('CASE WHEN ' ~ a.hits ~ ' > 0 THEN 1 ELSE 0 END') }}{%- endmacro -%}
