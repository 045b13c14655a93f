{#-
  ap@k: average precision (its mean over queries is MAP).
    AP@k = sum over relevant positions i <= k of P@i, divided by R
  R = 0 follows `empty`.
  trec_eval: map (no k), map_cut.k (default cutoffs 5,10,15,20,30,100,200,500,1000). ir_measures: AP, AP@k.
-#}
{%- macro default__measure_ap() -%}
{{ return({'help': 'average precision (MAP is its mean)', 'aliases': ['map', 'map_cut'], 'k': true, 'binary': true,
           'emptyable': true, 'needs': ['ap_at', 'r'],
           'range': [0, 1], 'trec_eval': [{'name': 'map', 'order': 5, 'nicknames': ['official', 'all_trec']},
                         {'name': 'map_cut', 'order': 25, 'nicknames': ['all_trec'], 'params': 'cutoffs', 'defaults': [5, 10, 15, 20, 30, 100, 200, 500, 1000]}],
           'ir_measures': 'AP@k'}) }}
{%- endmacro -%}
{%- macro default__value_ap(m, p, a) -%}
{{ return('CASE WHEN ' ~ a.r ~ ' = 0 THEN ' ~ a.empty ~ ' ELSE ' ~ a.ap_sum ~ ' / ' ~ a.r ~ ' END') }}
{%- endmacro -%}
