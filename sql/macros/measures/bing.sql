{#-
  bing: binary G. Over the relevant retrieved documents d at position i, with hits(i) the relevant documents in
  the top i (d included):
    binG = (1/R) * sum_d 1 / log2(2 + i - hits(i))          (i - hits(i): non-relevant documents above d)
  0 when no relevant document is retrieved. trec_eval: binG. ir_measures: none.
-#}
{%- macro default__measure_bing() -%}
{{ return({'help': 'binary G: relevant documents discounted by the non-relevant ones above them', 'binary': true,
           'needs': ['r', 'own'], 'range': [0, 1], 'trec_eval': [{'name': 'binG', 'order': 19, 'nicknames': ['all_trec']}]}) }}
{%- endmacro -%}
{%- macro default__aggregates_bing(m, p) -%}
{%- set t = m.threshold_index -%}
{{ return([['sum', sqlndcg._rank_sum('CASE WHEN _rel_t' ~ t ~ ' = 1 THEN 1 / ' ~ sqlndcg._log2('2 + _pos - _hits_run_t' ~ t) ~ ' ELSE 0 END')]]) }}
{%- endmacro -%}
{%- macro default__value_bing(m, p, a) -%}{{ return(sqlndcg._ratio('COALESCE(' ~ a.own ~ 'sum, 0)', a.r)) }}{%- endmacro -%}
