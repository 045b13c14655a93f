{#-
  iprec_at_recall(recall=x): interpolated precision at recall level x, the points of the recall-precision graph.
    c = floor(x * R + 0.9)  (relevant documents to reach; trec_eval 9's rounding, which pytrec_eval has; trec_eval
                             after 9.0.8 rounds half away from zero instead)
    iprec(x) = max over positions i with hits(i) >= c of hits(i) / i          0 when no position qualifies
  11pt_avg: the mean of iprec at x = 0.0, 0.1, ..., 1.0.
  trec_eval: iprec_at_recall.x (defaults 0,.1,...,1; printed iprec_at_recall_0.10), 11pt_avg. ir_measures: IPrec@x.
-#}
{%- macro default__measure_iprec_at_recall() -%}
{{ return({'help': 'interpolated precision at a recall level', 'aliases': ['iprec'], 'binary': true,
           'params': {'recall': 0.0}, 'needs': ['r_rows', 'own'],
           'domains': {'recall': {'min': 0, 'max': 1, 'why': 'a recall level: the share of the relevant documents to reach'}},
           'trec_eval': {'name': 'iprec_at_recall', 'param': 'recall',
                         'values': [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], 'format': '%.2f'},
           'ir_measures': 'IPrec@x'}) }}
{%- endmacro -%}
{%- macro iprec_expression(x, t) -%}
{%- set c = sqlndcg.whole(sqlndcg.number(x) ~ ' * _r_t' ~ t ~ ' + ' ~ sqlndcg.number(0.9)) -%}
{{ return('MAX(CASE WHEN _hits_run_t' ~ t ~ ' >= ' ~ c ~ ' THEN ' ~ sqlndcg.as_double('_hits_run_t' ~ t) ~ ' / _pos ELSE 0 END)') }}
{%- endmacro -%}
{%- macro default__aggregates_iprec_at_recall(m, p) -%}
{{ return([['max', sqlndcg.iprec_expression(m.params.recall, m.threshold_index)]]) }}
{%- endmacro -%}
{%- macro default__value_iprec_at_recall(m, p, a) -%}{{ return('COALESCE(' ~ a.own ~ 'max, 0)') }}{%- endmacro -%}

{%- macro default__measure_11pt_avg() -%}
{{ return({'help': 'interpolated precision averaged over the recall levels 0, 0.1, ..., 1',
           'aliases': ['pt11_avg', 'iprec_avg'], 'binary': true, 'needs': ['r_rows', 'own'],
           'trec_eval': {'name': '11pt_avg'}}) }}
{%- endmacro -%}
{%- macro default__aggregates_11pt_avg(m, p) -%}
{%- set out = [] -%}
{%- for i in range(11) -%}{%- do out.append(['max' ~ i, sqlndcg.iprec_expression(i / 10, m.threshold_index)]) -%}{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}
{%- macro default__value_11pt_avg(m, p, a) -%}
{%- set parts = [] -%}
{%- for i in range(11) -%}{%- do parts.append('COALESCE(' ~ a.own ~ 'max' ~ i ~ ', 0)') -%}{%- endfor -%}
{{ return('(' ~ (parts | join(' + ')) ~ ') / 11') }}
{%- endmacro -%}
