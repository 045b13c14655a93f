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
{%- macro default__aggregates_ndcg_rel(m, p) -%}
{{ return([['sum', 'SUM(CASE WHEN _gain > 0 THEN _dcg_run / _idcg_at ELSE 0 END)'],
           ['count', 'SUM(CASE WHEN _gain > 0 THEN 1 ELSE 0 END)'],
           ['dcg', 'MAX(_dcg_run)']]) }}
{%- endmacro -%}
{%- macro default__value_ndcg_rel(m, p, a) -%}
{%- set o = a.own -%}
{{ return('CASE WHEN ' ~ a.npos ~ ' = 0 THEN 0 ELSE (COALESCE(' ~ o ~ 'sum, 0) + (' ~ a.npos ~ ' - COALESCE(' ~ o ~ 'count, 0)) * COALESCE('
          ~ o ~ 'dcg, 0) / ' ~ a.idcg_total ~ ') / ' ~ a.npos ~ ' END') }}
{%- endmacro -%}
