{#-
  idcg@k: DCG@k of the ideal ranking (the `ideal` setting: every judged document, or only the retrieved ones,
  by gain descending).
  trec_eval: ideal_dcg (newer versions). ir_measures: none.
-#}
{%- macro default__measure_idcg() -%}
{{ return({'help': 'DCG of the ideal ranking', 'k': true, 'additive': true, 'needs': ['ideal_at']}) }}
{%- endmacro -%}
{%- macro default__value_idcg(m, p, a) -%}{{ return(a.idcg) }}{%- endmacro -%}
