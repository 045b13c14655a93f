{#-
  infap: inferred average precision (Yilmaz & Aslam, CIKM 2006), for judgments sampled from a pool. Documents
  with a negative label are "in the pool but not judged"; documents without a label are outside the pool. For a
  relevant retrieved document at position i (1-based), with r, n, u the relevant, judged non-relevant and pooled
  unjudged documents above it:
    term_i = 1/i + ((i - 1)/i) * ((r + n + u) / (i - 1)) * ((r + eps) / (r + n + 2 eps)),   eps = 0.00001
    (term_1 = 1);   infAP = sum_i term_i / R, 0 when R = 0; computed in m_infap.c's order of operations.
  trec_eval: infAP. ir_measures: infAP.
-#}
{%- macro default__measure_infap() -%}
{{ return({'help': 'inferred AP: AP estimated from sampled judgments', 'binary': true,
           'needs': ['r', 'r_rows', 'nonrel_run', 'pool_run', 'own'], 'trec_eval': [{'name': 'infAP', 'order': 14, 'nicknames': ['all_trec']}],
           'ir_measures': 'infAP'}) }}
{%- endmacro -%}
{%- macro default__aggregates_infap(m, p) -%}
{%- set t = m.threshold_index -%}
{%- set above = '(_hits_run_t' ~ t ~ ' - 1)' -%}
{%- set n = '_nonrel_run_t' ~ t -%}
{%- set eps = sqlndcg._number(0.00001) -%}
{#- As m_infap.c computes it, j = i - 1 (the 0-based index): 1 at j = 0, else
    1/(j + 1) + (j/(j + 1)) * ((r + n + u)/j) * ((r + eps)/(r + n + 2 eps)), in that order of operations. -#}
{%- set j = sqlndcg._as_double('_pos - 1') -%}
{%- set term = 'CASE WHEN _pos = 1 THEN 1 ELSE 1 / (' ~ j ~ ' + 1) + (' ~ j ~ ' / (' ~ j ~ ' + 1)) * ('
               ~ sqlndcg._as_double(above ~ ' + ' ~ n ~ ' + _pool_run') ~ ' / ' ~ j ~ ') * (('
               ~ above ~ ' + ' ~ eps ~ ') / (' ~ above ~ ' + ' ~ n ~ ' + 2 * ' ~ eps ~ ')) END' -%}
{{ return([['sum', sqlndcg._rank_sum('CASE WHEN _rel_t' ~ t ~ ' = 1 THEN ' ~ term ~ ' ELSE 0 END')]]) }}
{%- endmacro -%}
{%- macro default__value_infap(m, p, a) -%}{{ return(sqlndcg._ratio('COALESCE(' ~ a.own ~ 'sum, 0)', a.r)) }}{%- endmacro -%}
