{#-
  rr@k: reciprocal rank (its mean is MRR).
    RR@k = 1 / (position of the first relevant document), if it is within k; else 0
  trec_eval: recip_rank (no k). ir_measures: RR, RR@k.
-#}
{%- macro default__measure_rr() -%}
{{ return({'help': 'reciprocal rank of the first relevant document (MRR is its mean)',
           'aliases': ['mrr', 'recip_rank'], 'k': true, 'binary': true, 'needs': ['first'],
           'range': [0, 1], 'trec_eval': [{'name': 'recip_rank', 'order': 9, 'nicknames': ['official', 'all_trec']}], 'ir_measures': 'RR@k'}) }}
{%- endmacro -%}
{%- macro default__value_rr(m, p, a) -%}
{%- set first = a.first -%}
{{ return('CASE WHEN COALESCE(' ~ first ~ ', 0) > 0' ~ ('' if m.k is none else ' AND COALESCE(' ~ first ~ ', 0) <= ' ~ m.k)
          ~ ' THEN 1 / ' ~ sqlndcg._as_double(first) ~ ' ELSE 0 END') }}
{%- endmacro -%}
