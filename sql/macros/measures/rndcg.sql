{#-
  rndcg: NDCG averaged at the R levels (trec_eval's experimental Rndcg). The ideal ranking changes gain at
  boundaries b: the last position of each distinct positive gain among the judged documents (e.g. 5 documents of
  gain 3, 3 of gain 2, 10 of gain 1: b = 5, 8, 18). With n the list length and Npos the last boundary:
    Rndcg = mean over b of DCG(min(b, n)) / IDCG(b), plus one more term DCG(n) / IDCG(Npos) when n > Npos + 1
  (trec_eval's walk ends its ranked loop one position after the last boundary; only a longer list adds the term)
  0 when R = 0. trec_eval: Rndcg. ir_measures: none.
-#}
{%- macro default__measure_rndcg() -%}
{{ return({'help': 'NDCG averaged at the boundaries between gain levels of the ideal ranking', 'binary': true,
           'needs': ['r', 'ideal_rows', 'ideal_totals', 'ideal_tail', 'in_run', 'own'], 'trec_eval': [{'name': 'Rndcg', 'order': 23, 'nicknames': ['all_trec'], 'params': 'gain_pairs'}]}) }}
{%- endmacro -%}
{#- With rank_folds (DuckDB), m_Rndcg.c's walk: the ratio DCG / IDCG so far added at each boundary within the list
    (_dcg_fold), then, folded on over the ideal ranking past the list's end (ideal_tail), DCG(n) / IDCG(b) at each
    boundary b there, or the closing DCG(n) / IDCG(Npos) when n > Npos + 1; in its order of additions. -#}
{%- macro default__aggregates_rndcg(m, p) -%}
{%- if sqlndcg.rank_folds() -%}
{{ return([['fold', sqlndcg._dcg_fold('_boundary')], ['count', 'SUM(_boundary)']]) }}
{%- else -%}
{{ return([['sum', sqlndcg._rank_sum('CASE WHEN _boundary = 1 THEN _dcg_run / _idcg_at ELSE 0 END')],
           ['count', 'SUM(_boundary)'],
           ['dcg', 'MAX(_dcg_run)']]) }}
{%- endif -%}
{%- endmacro -%}
{%- macro default__value_rndcg(m, p, a) -%}
{%- if sqlndcg.rank_folds() -%}
{%- set o = a.own -%}
{%- set d, i, s = 'COALESCE(' ~ o ~ 'fold.d, 0)', 'COALESCE(' ~ o ~ 'fold.i, 0)', 'COALESCE(' ~ o ~ 'fold.s, 0)' -%}
{%- set beyond = 'CASE WHEN ' ~ a.n ~ ' > ' ~ a.npos ~ ' + 1 THEN 1 ELSE 0 END' -%}
{%- set tail = 'list_reduce(' ~ a.tail_terms ~ ', lambda _acc, _x: {\'i\': _acc.i + _x.t, \'s\': _acc.s + CASE WHEN _x.b = 1 THEN '
               ~ d ~ ' / (_acc.i + _x.t) ELSE 0 END}, {\'i\': ' ~ i ~ ', \'s\': ' ~ s ~ '}).s' -%}
{%- set total = '(CASE WHEN ' ~ beyond ~ ' = 1 THEN ' ~ s ~ ' + ' ~ d ~ ' / ' ~ i ~ ' ELSE COALESCE(' ~ tail ~ ', ' ~ s ~ ') END)' -%}
{%- set count = '(COALESCE(' ~ o ~ 'count, 0) + ' ~ a.tail_count ~ ' + (' ~ beyond ~ '))' -%}
{{ return('CASE WHEN ' ~ a.r ~ ' = 0 OR ' ~ a.npos ~ ' = 0 OR ' ~ a.in_run ~ ' = 0 OR ' ~ count ~ ' = 0 THEN 0 ELSE ' ~ total ~ ' / ' ~ count ~ ' END') }}
{%- else -%}
{%- set o = a.own -%}
{%- set beyond = 'CASE WHEN ' ~ a.n ~ ' > ' ~ a.npos ~ ' + 1 THEN 1 ELSE 0 END' -%}
{%- set total = '(COALESCE(' ~ o ~ 'sum, 0) + COALESCE(' ~ o ~ 'dcg, 0) * (' ~ a.tail_inverse ~ ' + (' ~ beyond ~ ') / ' ~ a.idcg_total ~ '))' -%}
{%- set count = '(COALESCE(' ~ o ~ 'count, 0) + ' ~ a.tail_count ~ ' + (' ~ beyond ~ '))' -%}
{#- A list emptied by judged_only has DCG 0 at every boundary: 0. -#}
{{ return('CASE WHEN ' ~ a.r ~ ' = 0 OR ' ~ a.npos ~ ' = 0 OR ' ~ a.in_run ~ ' = 0 OR ' ~ count ~ ' = 0 THEN 0 ELSE ' ~ total ~ ' / ' ~ count ~ ' END') }}
{%- endif -%}
{%- endmacro -%}
