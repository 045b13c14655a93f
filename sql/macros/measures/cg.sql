{#-
  cg@k: cumulative gain, the sum of the (positive) labels in the top k.
    CG@k = sum_{i <= k} max(rel_i, 0)
  trec_eval: none. ir_measures: none. Unjudged and negative labels add 0.
-#}
{%- macro default__measure_cg() -%}
{{ return({'help': 'cumulative gain: sum of relevance labels in the top k', 'k': true, 'additive': true,
           'needs': ['cg_at']}) }}
{%- endmacro -%}
{%- macro default__value_cg(m, p, a) -%}{{ return(a.cg) }}{%- endmacro -%}
