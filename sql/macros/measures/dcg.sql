{#-
  dcg@k: discounted cumulative gain.
    DCG@k = sum_{i <= k} g(rel_i) / log2(i + 1)       g: the `gain` setting (trec_eval: linear)
  trec_eval: dcg (newer versions, full depth). ir_measures: none.
-#}
{%- macro default__measure_dcg() -%}
{{ return({'help': 'discounted cumulative gain', 'k': true, 'additive': true, 'needs': ['dcg_at']}) }}
{%- endmacro -%}
{%- macro default__value_dcg(m, p, a) -%}{{ return(a.dcg) }}{%- endmacro -%}
