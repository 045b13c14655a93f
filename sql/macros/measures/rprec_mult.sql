{#-
  rprec_mult(x=...): precision at a multiple x of R.
    c = floor(x * R + 0.9)     (trec_eval's rounding)
    Rprec_mult(x) = (relevant in the top c) / c      0 when c = 0; a list shorter than c is padded
  trec_eval: Rprec_mult.x (defaults 0.2,0.4,...,2.0; printed Rprec_mult_0.20). ir_measures: none.
-#}
{%- macro default__measure_rprec_mult() -%}
{{ return({'help': 'precision at x times R', 'binary': true, 'params': {'x': 1.0}, 'needs': ['r_rows', 'r', 'own'],
           'domains': {'x': {'min': 0, 'min_open': true, 'why': 'a multiple of R, the cutoff floor(x * R + 0.9); at x = 0 there is no document to measure'}},
           'trec_eval': [{'name': 'Rprec_mult', 'order': 16, 'nicknames': ['all_trec'], 'params': 'levels', 'param': 'x',
                          'defaults': [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]}]}) }}
{%- endmacro -%}
{%- macro _rprec_mult_cut(m, r) -%}
{{ return(sqlndcg.whole(sqlndcg._number(m.params.x) ~ ' * ' ~ r ~ ' + ' ~ sqlndcg._number(0.9))) }}
{%- endmacro -%}
{%- macro default__aggregates_rprec_mult(m, p) -%}
{%- set t = m.threshold_index -%}
{{ return([['hits', 'MAX(CASE WHEN _pos <= ' ~ sqlndcg._rprec_mult_cut(m, '_r_t' ~ t) ~ ' THEN _hits_run_t' ~ t ~ ' ELSE 0 END)']]) }}
{%- endmacro -%}
{%- macro default__value_rprec_mult(m, p, a) -%}
{{ return(sqlndcg._ratio('COALESCE(' ~ a.own ~ 'hits, 0)', sqlndcg._rprec_mult_cut(m, a.r))) }}
{%- endmacro -%}
