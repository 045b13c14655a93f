{#-
  ndcg_rel: NDCG averaged over the relevant documents (trec_eval's experimental measure). With Npos the judged
  documents of positive gain, DCG(i)/IDCG(i) the NDCG at position i (IDCG stops growing after Npos):
    ndcg_rel = ( sum over retrieved positions i with g_i > 0 of DCG(i) / IDCG(min(i, Npos))
                 + (Npos - positive-gain documents retrieved) * DCG(n) / IDCG(Npos) ) / Npos
  0 when Npos = 0. trec_eval: ndcg_rel. ir_measures: none.
-#}
{%- macro default__measure_ndcg_rel() -%}
{{ return({'help': 'NDCG averaged at the relevant documents', 'needs': ['ideal_rows', 'ideal_totals', 'own'],
           'trec_eval': [{'name': 'ndcg_rel', 'order': 22, 'nicknames': ['all_trec'], 'params': 'gain_pairs'}]}) }}
{%- endmacro -%}
{#- With rank_folds (DuckDB), m_ndcg_rel.c's loop folded over the list in rank order: DCG and IDCG so far (the
    ideal's gain at the same position), their ratio added at each document with a gain; then its closing term, as it
    computes it. -#}
{%- macro default__aggregates_ndcg_rel(m, p) -%}
{%- if sqlndcg.rank_folds() -%}
{{ return([['fold', sqlndcg._dcg_fold('CASE WHEN _gain > 0 THEN 1 ELSE 0 END')],
           ['count', 'SUM(CASE WHEN _gain > 0 THEN 1 ELSE 0 END)']]) }}
{%- else -%}
{{ return([['sum', sqlndcg._rank_sum('CASE WHEN _gain > 0 THEN _dcg_run / _idcg_at ELSE 0 END')],
           ['count', 'SUM(CASE WHEN _gain > 0 THEN 1 ELSE 0 END)'],
           ['dcg', 'MAX(_dcg_run)']]) }}
{%- endif -%}
{%- endmacro -%}
{%- macro default__value_ndcg_rel(m, p, a) -%}
{%- if sqlndcg.rank_folds() -%}
{%- set o = a.own -%}
{{ return('CASE WHEN ' ~ a.npos ~ ' = 0 THEN 0 ELSE (COALESCE(' ~ o ~ 'fold.s, 0) + (' ~ a.npos ~ ' - COALESCE(' ~ o ~ 'count, 0)) * COALESCE('
          ~ o ~ 'fold.d, 0) / ' ~ a.idcg_total ~ ') / ' ~ a.npos ~ ' END') }}
{%- else -%}
{%- set o = a.own -%}
{{ return('CASE WHEN ' ~ a.npos ~ ' = 0 THEN 0 ELSE (COALESCE(' ~ o ~ 'sum, 0) + (' ~ a.npos ~ ' - COALESCE(' ~ o ~ 'count, 0)) * COALESCE('
          ~ o ~ 'dcg, 0) / ' ~ a.idcg_total ~ ') / ' ~ a.npos ~ ' END') }}
{%- endif -%}
{%- endmacro -%}
{#- Over the list in rank order, {d, i, s} from 0: d and i the DCG and the ideal's DCG so far (the ideal's gain at
    the same position: _igain), s the sum of d / i at the positions where `at` is 1. -#}
{%- macro _dcg_fold(at) -%}
{{ return(sqlndcg._rank_reduce([['g', sqlndcg._discounted('_gain', '_pos')], ['ig', sqlndcg._discounted('_igain', '_pos')], ['at', at]],
     [['d', '_acc.d + _x.g'], ['i', '_acc.i + _x.ig'], ['s', '_acc.s + CASE WHEN _x.at = 1 THEN (_acc.d + _x.g) / (_acc.i + _x.ig) ELSE 0 END']],
     [['d', 0], ['i', 0], ['s', 0]])) }}
{%- endmacro -%}
