{#-
  g: normalized gain G (trec_eval's experimental measure, combining MAP and NDCG). With g_i the gain at
  position i, ig_j the gain of the j-th document of the ideal ranking (judged documents by gain, 0 beyond them):
    cost(i) = sum_{j <= i} max(ig_j, 1)          got(i) = sum_{j <= i} g_j
    G = sum over positions with g_i > 0 of g_i / log2(2 + cost(i) - got(i)),  divided by the total ideal gain
  0 when no judged document has a positive gain. Gains: the `gain` setting (trec_eval: linear); the ideal comes
  from the judgments whatever `ideal` says. trec_eval: G. ir_measures: none.
-#}
{%- macro default__measure_g() -%}
{{ return({'help': 'normalized gain G: each gain discounted by how far the list is behind the ideal',
           'needs': ['ideal_rows', 'ideal_totals', 'own'], 'trec_eval': [{'name': 'G', 'order': 20, 'nicknames': ['all_trec'], 'params': 'gain_pairs'}]}) }}
{%- endmacro -%}
{#- With rank_folds (DuckDB), m_G.c's loop folded over the list in rank order (cost and got as its running sums). -#}
{%- macro default__aggregates_g(m, p) -%}
{%- if sqlndcg.rank_folds() -%}
{%- set cost = '(_acc.c + CASE WHEN _x.ig > 1 THEN _x.ig ELSE 1 END)' -%}
{%- set got = '(_acc.t + _x.g)' -%}
{%- set fold = sqlndcg._rank_reduce([['g', '_gain'], ['ig', '_igain']],
      [['c', cost], ['t', got], ['s', '_acc.s + CASE WHEN _x.g > 0 THEN _x.g / ' ~ sqlndcg._log2('2 + ' ~ cost ~ ' - ' ~ got) ~ ' ELSE 0 END']],
      [['c', 0], ['t', 0], ['s', 0]]) -%}
{{ return([['sum', fold ~ '.s']]) }}
{%- else -%}
{{ return([['sum', sqlndcg._rank_sum('CASE WHEN _gain > 0 THEN _gain / ' ~ sqlndcg._log2('2 + _cost_run - _got_run') ~ ' ELSE 0 END')]]) }}
{%- endif -%}
{%- endmacro -%}
{%- macro default__value_g(m, p, a) -%}{{ return(sqlndcg._ratio('COALESCE(' ~ a.own ~ 'sum, 0)', a.ideal_gain)) }}{%- endmacro -%}
