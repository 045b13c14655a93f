{#-
  unj@k: the share of the top k without a judgment (no label, or a negative one); a list shorter than k is
  padded with judged documents.
    unj@k = (unjudged in the top min(k, n)) / k
  trec_eval: unj.k (default cutoffs 5,10,20). ir_measures: none (1 - Judged@k for full lists).
-#}
{%- macro default__measure_unj() -%}
{{ return({'help': 'share of the top k without a judgment', 'aliases': ['unjudged'], 'k': true,
           'needs': ['judged_at'], 'trec_eval': [{'name': 'unj', 'order': 36, 'nicknames': ['all_trec'], 'since': 10, 'params': 'cutoffs',
                          'defaults': [5, 10, 20]}]}) }}
{%- endmacro -%}
{%- macro default__value_unj(m, p, a) -%}
{%- set shown = a.n if m.k is none else sqlndcg._least(a.n, m.k) -%}
{{ return(sqlndcg._ratio('(' ~ shown ~ ' - ' ~ a.judged ~ ')', a.n if m.k is none else m.k)) }}
{%- endmacro -%}
