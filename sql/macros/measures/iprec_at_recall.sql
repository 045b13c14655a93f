{#-
  iprec_at_recall(recall=x): interpolated precision at recall level x, the points of the recall-precision graph.
    c = lround(x * R)       (relevant documents to reach: x * R in doubles, rounded half away from zero; trec_eval
                             10.0, iprec_reach='round'), or floor(x * R + 0.9) (trec_eval 9.x and pytrec_eval,
                             iprec_reach='floor_plus_0.9')
    iprec(x) = max over positions i with hits(i) >= c of hits(i) / i          0 when no position qualifies
  11pt_avg: the mean of iprec at x = 0.0, 0.1, ..., 1.0.
  trec_eval: iprec_at_recall.x (defaults 0,.1,...,1; printed iprec_at_recall_0.10), 11pt_avg. ir_measures: IPrec@x,
  where @ sets the recall level, not a cutoff: IPrec@0.5 is iprec_at_recall(recall=0.5) (spec.sql, _ir_measures_readings).
-#}
{%- macro default__measure_iprec_at_recall() -%}
{{ return({'help': 'interpolated precision at a recall level', 'aliases': ['iprec'], 'binary': true,
           'params': {'recall': 0.0}, 'needs': ['r_rows', 'own'],
           'domains': {'recall': {'min': 0, 'max': 1, 'why': 'a recall level: the share of the relevant documents to reach'}},
           'range': [0, 1], 'trec_eval': [{'name': 'iprec_at_recall', 'order': 10, 'nicknames': ['official', 'all_trec'], 'params': 'levels', 'param': 'recall',
                          'defaults': [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]}],
           'ir_measures': 'IPrec@x'}) }}
{%- endmacro -%}
{#- The relevant documents to reach, c, from x * R computed in doubles as trec_eval's C does. lround(v) is
    whole(v) + 1 when v's fraction, v - whole(v) (exact in doubles), is at least 0.5: exact at half-way values on
    every engine, where ROUND of a double rounds half to even on some (PostgreSQL, ClickHouse) and whole(v + 0.5) is
    off for v = 0.49999999999999994 (so is SQLite's ROUND). A negative x gives c <= 0 either way, which every
    position reaches. -#}
{%- macro _iprec_reach(x, t, reach) -%}
{%- set v = sqlndcg._number(x) ~ ' * _r_t' ~ t -%}
{%- if reach == 'floor_plus_0.9' -%}{{ return(sqlndcg.whole(v ~ ' + ' ~ sqlndcg._number(0.9))) }}{%- endif -%}
{{ return('(' ~ sqlndcg.whole(v) ~ ' + CASE WHEN ' ~ v ~ ' - ' ~ sqlndcg.whole(v) ~ ' >= ' ~ sqlndcg._number(0.5)
          ~ ' THEN 1 ELSE 0 END)') }}
{%- endmacro -%}
{%- macro _iprec_expression(x, t, reach) -%}
{%- set c = sqlndcg._iprec_reach(x, t, reach) -%}
{{ return('MAX(CASE WHEN _hits_run_t' ~ t ~ ' >= ' ~ c ~ ' THEN ' ~ sqlndcg._as_double('_hits_run_t' ~ t) ~ ' / _pos ELSE 0 END)') }}
{%- endmacro -%}
{%- macro default__aggregates_iprec_at_recall(m, p) -%}
{{ return([['max', sqlndcg._iprec_expression(m.params.recall, m.threshold_index, p.iprec_reach)]]) }}
{%- endmacro -%}
{%- macro default__value_iprec_at_recall(m, p, a) -%}{{ return('COALESCE(' ~ a.own ~ 'max, 0)') }}{%- endmacro -%}

{%- macro default__measure_11pt_avg() -%}
{{ return({'help': 'interpolated precision averaged over the recall levels 0, 0.1, ..., 1',
           'aliases': ['pt11_avg', 'iprec_avg'], 'binary': true, 'needs': ['r_rows', 'own'],
           'range': [0, 1], 'trec_eval': [{'name': '11pt_avg', 'order': 18, 'nicknames': ['all_trec'], 'params': 'averaged_levels', 'of': 'iprec_at_recall', 'param': 'recall'}]}) }}
{%- endmacro -%}
{%- macro default__aggregates_11pt_avg(m, p) -%}
{%- set out = [] -%}
{%- for i in range(11) -%}{%- do out.append(['max' ~ i, sqlndcg._iprec_expression(i / 10, m.threshold_index, p.iprec_reach)]) -%}{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}
{#- Added from the level 1.0 down to 0.0, as m_11pt_avg.c adds them (its walk up the ranking meets the highest
    level first), then divided by 11. -#}
{%- macro default__value_11pt_avg(m, p, a) -%}
{%- set parts = [] -%}
{%- for i in range(10, -1, -1) -%}{%- do parts.append('COALESCE(' ~ a.own ~ 'max' ~ i ~ ', 0)') -%}{%- endfor -%}
{{ return('(' ~ (parts | join(' + ')) ~ ') / 11') }}
{%- endmacro -%}
