{#-
  dbt entry point of the prediction-powered metrics (sqlndcg.ppi_evaluate / sqlndcg.ppi_compare, ppi/ppi.sql):

    {{ sqlndcg.ppi_evaluate(run=ref('rankings'), model_labels=ref('model_labels'), audit=ref('audit_labels'),
                            metrics=['ndcg@5', 'p@5'], group_by=['system'], ppi='ppi++', interval='normal') }}
    {{ sqlndcg.ppi_evaluate(run=ref('rankings'), model_labels=ref('model_labels'), audit=ref('audit_labels'),
                            metrics=['ndcg@5'], system='system', baseline='bm25') }}      -- ppi_compare's rows

  One row per (group_by..., metric) (with baseline=: per (group_by..., system other than the baseline, metric), the
  paired differences system - baseline) with the columns of ppi_evaluate's summary: mean, ci_low, ci_high (the
  corrected ones), naive_mean, naive_ci_low, naive_ci_high, human_mean, lam, audited, unaudited,
  effective_human_labels. The per-query values are per_query's, with the model labels on every query and the audit's
  on the audited ones; the settings are per_query's. As the Python verbs, the model refuses (at execution time)
  an empty audit, sources on different grade scales and audited queries the model labels lack; check_inputs=false
  skips those and the inputs' own checks.
-#}

{%- macro _ppi_refuse_bad_sources(model, audit, rel, p) -%}
{%- set scales = [] -%}
{%- for input in [model, audit] -%}
  {%- do scales.append(run_query(sqlndcg._ppi_grades_sql(input.sql, rel)).rows[0]) -%}
{%- endfor -%}
{%- if scales[1][0] is none -%}
  {{ sqlndcg._fail('input', audit.label ~ ': the audit is empty; it holds the human labels of the audited queries, at least one') }}
{%- endif -%}
{%- if scales[0][0] != scales[1][0] or scales[0][1] != scales[1][1] -%}
  {{ sqlndcg._fail('input', 'the model labels grade from ' ~ scales[0][0] ~ ' to ' ~ scales[0][1] ~ ' and the audit from '
                   ~ scales[1][0] ~ ' to ' ~ scales[1][1] ~ ': the two sources must use the same grade scale (map one onto the other first)') }}
{%- endif -%}
{%- set missing = run_query(sqlndcg._ppi_missing_sql(p)).rows -%}
{%- if missing | length -%}
  {%- set shown = [] -%}{%- for r in missing[:5] -%}{%- do shown.append(r | join('/')) -%}{%- endfor -%}
  {{ sqlndcg._fail('input', audit.label ~ ': ' ~ (missing | length) ~ ' audited queries have no model-labelled value (the model labels lack them): ' ~ (shown | join(', '))) }}
{%- endif -%}
{%- endmacro -%}

{%- macro ppi_evaluate(run=none, model_labels=none, audit=none, metrics=none, ppi='ppi++', interval='normal',
                       system=none, baseline=none, run_where=none, check_inputs=true) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- if metrics is none -%}{{ sqlndcg._fail('metric', "ppi_evaluate needs metrics=, e.g. metrics=['ndcg@10', 'p@5']") }}{%- endif -%}
{%- if audit is none or model_labels is none -%}
  {{ sqlndcg._fail('setting', 'ppi_evaluate needs model_labels= (the model judge on every query) and audit= (the human labels of the audited queries)') }}
{%- endif -%}
{%- set settings = kwargs -%}
{%- if baseline is not none -%}
  {#- ppi_compare's: the system column last among the groups (the PPI statement pairs within the others) -#}
  {%- set system = system or 'system' -%}
  {%- set settings = sqlndcg._compare_settings(kwargs, system) -%}
  {%- set others = [] -%}{%- for g in settings.group_by if g != system -%}{%- do others.append(g) -%}{%- endfor -%}
  {%- do settings.update({'group_by': others + [system]}) -%}
{%- elif system is not none -%}
  {{ sqlndcg._fail('setting', 'ppi_evaluate: system= pairs the systems with a baseline: give baseline= too (or name the system column in group_by=)') }}
{%- endif -%}
{%- set model_plan = sqlndcg._relation_plan(run, model_labels, metrics, settings, run_where, none, check_inputs) -%}
{%- set audit_plan = sqlndcg._relation_plan(run, audit, metrics, settings, run_where, none, check_inputs) -%}
{%- set outs = sqlndcg._output_columns(sqlndcg._spec(metrics, settings)) -%}
{%- set names = [] -%}{%- for m in outs.metrics -%}{%- do names.append(m.name) -%}{%- endfor -%}
{%- set p = {'model': '(' ~ sqlndcg._per_query_sql(model_plan, false) ~ ')',
             'human': '(' ~ sqlndcg._per_query_sql(audit_plan, false) ~ ')',
             'groups': outs.spec.group_by | list, 'query': outs.spec.columns.query_id, 'metrics': names,
             'ppi': ppi, 'interval': interval, 'baseline': none if baseline is none else baseline | string} -%}
{%- if check_inputs -%}
  {{ sqlndcg._ppi_refuse_bad_sources(sqlndcg._input_relation('model labels', model_labels),
                                     sqlndcg._input_relation('audit', audit), settings.get('rel', 'rel'), p) }}
{%- endif -%}
{{ return(sqlndcg._ppi_summary_sql(p)) }}
{%- endmacro -%}
