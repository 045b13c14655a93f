{#-
  bpref: binary preference (Buckley & Voorhees, SIGIR 2004). Over the relevant retrieved documents d:
    bpref = (1/R) * sum_d ( 1 - min(N_d, R) / min(N, R) )
  N_d: judged non-relevant documents (0 <= rel < threshold) ranked above d; N: judged non-relevant documents of
  the query; a d with N_d = 0 adds 1. Unjudged documents are skipped (neither relevant nor non-relevant).
  0 when R = 0. trec_eval: bpref. ir_measures: Bpref.
-#}
{%- macro default__measure_bpref() -%}
{{ return({'help': 'binary preference: relevant documents ranked above judged non-relevant ones',
           'binary': true, 'needs': ['r', 'r_rows', 'nonrel_run', 'own'], 'range': [0, 1], 'trec_eval': [{'name': 'bpref', 'order': 8, 'nicknames': ['official', 'all_trec']}],
           'ir_measures': 'Bpref'}) }}
{%- endmacro -%}
{%- macro _bpref_term(t) -%}
{%- set nd, r, n = '_nonrel_run_t' ~ t, '_r_t' ~ t, '_nr_t' ~ t -%}
{{ return('CASE WHEN _rel_t' ~ t ~ ' = 1 THEN (CASE WHEN ' ~ nd ~ ' > 0 THEN 1 - ' ~ sqlndcg._as_double(sqlndcg._least(nd, r))
          ~ ' / ' ~ sqlndcg._least(n, r) ~ ' ELSE 1 END) ELSE 0 END') }}
{%- endmacro -%}
{%- macro default__aggregates_bpref(m, p) -%}
{{ return([['sum', sqlndcg._rank_sum(sqlndcg._bpref_term(m.threshold_index))]]) }}
{%- endmacro -%}
{%- macro default__value_bpref(m, p, a) -%}{{ return(sqlndcg._ratio('COALESCE(' ~ a.own ~ 'sum, 0)', a.r)) }}{%- endmacro -%}

{#-
  gm_bpref: ln(max(bpref, 0.00001)) per query; trec_eval's summary is exp(mean). trec_eval: gm_bpref.
-#}
{%- macro default__measure_gm_bpref() -%}
{{ return({'help': 'ln(max(bpref, 1e-5)) per query; its geometric-mean summary is trec_eval gm_bpref',
           'binary': true, 'summary': 'gm', 'needs': ['r', 'r_rows', 'nonrel_run', 'own'],
           'trec_eval': [{'name': 'gm_bpref', 'order': 15, 'nicknames': ['all_trec'], 'summary_only': true}]}) }}
{%- endmacro -%}
{%- macro default__aggregates_gm_bpref(m, p) -%}{{ return(sqlndcg.default__aggregates_bpref(m, p)) }}{%- endmacro -%}
{%- macro default__value_gm_bpref(m, p, a) -%}
{{ return('LN(' ~ sqlndcg._greatest('(' ~ sqlndcg.default__value_bpref(m, p, a) ~ ')', sqlndcg._number(0.00001)) ~ ')') }}
{%- endmacro -%}
