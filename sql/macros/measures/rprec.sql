{#-
  rprec: R-precision, the precision after R documents (R = number of relevant documents).
    Rprec = (relevant in the top R) / R        0 when R = 0; a list shorter than R is padded
  trec_eval: Rprec. ir_measures: Rprec.
-#}
{%- macro default__measure_rprec() -%}
{{ return({'help': 'precision at R, the number of relevant documents', 'aliases': ['r_prec', 'r_precision'],
           'binary': true, 'needs': ['r', 'r_rows', 'own'], 'range': [0, 1], 'trec_eval': [{'name': 'Rprec', 'order': 7, 'nicknames': ['official', 'all_trec']}], 'ir_measures': 'Rprec'}) }}
{%- endmacro -%}
{%- macro default__aggregates_rprec(m, p) -%}
{%- set t = m.threshold_index -%}
{{ return([['hits', 'MAX(CASE WHEN _pos <= _r_t' ~ t ~ ' THEN _hits_run_t' ~ t ~ ' ELSE 0 END)']]) }}
{%- endmacro -%}
{%- macro default__value_rprec(m, p, a) -%}{{ return(sqlndcg._ratio('COALESCE(' ~ a.own ~ 'hits, 0)', a.r)) }}{%- endmacro -%}
