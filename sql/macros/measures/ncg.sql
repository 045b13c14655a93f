{#-
  ncg@k: normalized cumulative gain (Järvelin & Kekäläinen, TOIS 2002), NDCG without the discount.
    NCG@k = CG@k / ICG@k       CG@k = sum_{i <= k} g(rel_i),  ICG@k = the same sum over the ideal ranking
  g: the `gain` setting, as NDCG's (with gain='linear', the sum of the positive labels, cg@k); the ideal ranking,
  its length and short lists follow `ideal` and `short_lists` as NDCG's IDCG does. A query without any positive
  gain (ICG = 0) follows `empty`. trec_eval: none. ir_measures: none.
-#}
{%- macro default__measure_ncg() -%}
{{ return({'help': 'normalized cumulative gain = CG / ideal CG (NDCG without the discount)', 'k': true,
           'additive': true, 'emptyable': true, 'needs': ['gain_at', 'ideal_at', 'ideal_gain_at'], 'range': [0, 1]}) }}
{%- endmacro -%}
{%- macro default__value_ncg(m, p, a) -%}
{{ return('CASE WHEN ' ~ a.has_gain ~ ' = 0 THEN ' ~ a.empty ~ ' WHEN ' ~ a.icg ~ ' = 0 THEN 0 ELSE ' ~ a.gain_sum
          ~ ' / ' ~ a.icg ~ ' END') }}
{%- endmacro -%}
{#- The shared aggregates NCG reads (per_query.sql computes what a metric `needs`, at the cutoffs that need it):
    gain_at, the gains' running sum in rank order (CG with the `gain` setting's gains), read as a.gain_sum; and
    ideal_gain_at, the ideal ranking's gains summed in its order beside IDCG (the same ideal and short lists), read
    as a.icg. -#}
{%- macro default__shared_gain_at(p) -%}
{{ return({'rank_sums': [{'name': '_gsum', 'term': '_gain_at', 'value': 'gain_sum'}]}) }}
{%- endmacro -%}
{%- macro default__shared_ideal_gain_at(p) -%}
{{ return({'ideal_sums': [{'name': '_icg', 'term': '_gain', 'value': 'icg'}]}) }}
{%- endmacro -%}
