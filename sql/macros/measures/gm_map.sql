{#-
  gm_map: geometric mean average precision. Per query the value is ln(max(AP, 0.00001)); trec_eval's summary
  is exp(mean of those), so one query near 0 weighs heavily (trec_eval prints it only in its `all` line).
    gm_map(q) = ln(max(AP(q), 1e-5))         all = exp(mean over queries)
  trec_eval: gm_map. ir_measures: none. A query with R = 0 has AP 0, so ln(1e-5).
-#}
{%- macro default__measure_gm_map() -%}
{{ return({'help': 'ln(max(AP, 1e-5)) per query; its geometric-mean summary is trec_eval gm_map',
           'aliases': ['gm_ap'], 'binary': true, 'summary': 'gm', 'needs': ['ap_at', 'r'],
           'trec_eval': [{'name': 'gm_map', 'order': 6, 'nicknames': ['official', 'all_trec'], 'summary_only': true}]}) }}
{%- endmacro -%}
{%- macro default__value_gm_map(m, p, a) -%}
{%- set ap = 'CASE WHEN ' ~ a.r ~ ' = 0 THEN 0 ELSE ' ~ a.ap_sum_all ~ ' / ' ~ a.r ~ ' END' -%}
{{ return('LN(' ~ sqlndcg._greatest('(' ~ ap ~ ')', sqlndcg._number(0.00001)) ~ ')') }}
{%- endmacro -%}
