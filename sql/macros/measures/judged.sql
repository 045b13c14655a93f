{#-
  judged@k: the share of the top k that has a judgment (a label >= 0).
    Judged@k = (judged documents in the top k) / k      (short lists as for P@k)
  trec_eval: none (see unj). ir_measures: Judged@k.
-#}
{%- macro default__measure_judged() -%}
{{ return({'help': 'share of the top k that has a judgment', 'k': true, 'additive': true, 'needs': ['judged_at'], 'range': [0, 1], 
           'ir_measures': 'Judged@k'}) }}
{%- endmacro -%}
{%- macro default__value_judged(m, p, a) -%}{{ return(sqlndcg._ratio(a.judged, a.positions)) }}{%- endmacro -%}
