{#-
  dbt entry points, with the keywords of sqlndcg.compare() (and every setting of sqlndcg.per_query):

    {{ sqlndcg.compare(run=ref('rankings'), judgments=ref('judgments'), metrics=['ndcg@10', 'p@5'],
                       system='system', baseline='bm25', group_by=['ds']) }}
    {{ sqlndcg.compare(per_query=ref('my_per_query_model'), metrics=[...], system='system', baseline='bm25') }}
    {{ sqlndcg.compare_differences(run=ref('rankings'), judgments=ref('judgments'), metrics=[...],
                                   system='system', baseline='bm25') }}
    {{ sqlndcg.compare(per_query=ref('my_per_query_model'), metrics=[...], system='system', baseline='bm25',
                       query_weights=ref('query_traffic')) }}

  compare gives one row per (group_by..., system, metric) with the columns listed at the top of
  statements/compare.sql (the statements these entry points render); compare_differences one row per
  (group_by..., system, metric, query). `group_by` names strata within which queries are paired (a day, a
  segment); the system column is added to it. A per_query model must have been
  built by sqlndcg.per_query with the same metrics and with group_by including the system column.
  `query_weights` (a relation of query id, `weight_column` and optionally stratum columns, as for sqlndcg.summary)
  weighs the means, the difference and its interval; a query without a weight is left out of those sums here,
  so add the generic test sqlndcg.valid_query_weights (with per_query=) to refuse it, as compare() does.
-#}

{%- macro _compare_settings(settings, system) -%}
{%- if system is not string or system == '' -%}
  {{ sqlndcg._fail('setting', 'system= must name the column that tells the systems apart, got ' ~ sqlndcg._show(system)) }}
{%- endif -%}
{%- set out = {} -%}{%- do out.update(settings) -%}
{%- set group_by = settings.get('group_by', []) -%}
{%- set group_by = ([group_by] if group_by is string else (group_by or [])) | list -%}
{%- if system not in group_by -%}{%- set group_by = group_by + [system] -%}{%- endif -%}
{%- do out.update({'group_by': group_by}) -%}
{{ return(out) }}
{%- endmacro -%}

{%- macro _compare_relation_sql(statement, run, judgments, metrics, system, baseline, per_query, run_where,
                               judgments_where, settings, query_weights=none, weight_column='weight') -%}
{%- if metrics is none -%}{{ sqlndcg._fail('metric', "compare needs metrics=, e.g. metrics=['ndcg@10', 'p@5', 'map']") }}{%- endif -%}
{%- if baseline is none -%}{{ sqlndcg._fail('setting', "compare needs baseline=, the system the others are compared with, e.g. baseline='bm25'") }}{%- endif -%}
{%- set settings = sqlndcg._compare_settings(settings, system) -%}
{%- if per_query is not none -%}
  {#- A per-query model: the statements read only its columns, which the spec names. -#}
  {%- set plan = sqlndcg._output_columns(sqlndcg._spec(metrics, settings), system) -%}
  {%- set relation = per_query -%}
{%- else -%}
  {%- set plan = sqlndcg._relation_plan(run, judgments, metrics, settings, run_where, judgments_where) -%}
  {%- set relation = '(' ~ sqlndcg._per_query_sql(plan, false) ~ ')' -%}
{%- endif -%}
{%- set weights = none -%}
{%- if query_weights is not none -%}
  {%- set weights = sqlndcg._weights_plan(plan, sqlndcg._input_relation('query weights', query_weights), weight_column) -%}
  {{ sqlndcg._refuse_bad_weights(weights, settings) }}
{%- endif -%}
{%- if statement == 'differences' -%}
  {{ return(sqlndcg._paired_differences_sql(relation, plan, system, baseline, weights)) }}
{%- endif -%}
{{ return(sqlndcg._paired_sql(relation, plan, system, baseline, weights)) }}
{%- endmacro -%}

{%- macro compare(run=none, judgments=none, metrics=none, system='system', baseline=none, per_query=none,
                  run_where=none, judgments_where=none, query_weights=none, weight_column='weight') -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._compare_relation_sql('tests', run, judgments, metrics, system, baseline, per_query, run_where,
                                       judgments_where, kwargs, query_weights, weight_column)) }}
{%- endmacro -%}

{%- macro compare_differences(run=none, judgments=none, metrics=none, system='system', baseline=none,
                              per_query=none, run_where=none, judgments_where=none, query_weights=none,
                              weight_column='weight') -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._compare_relation_sql('differences', run, judgments, metrics, system, baseline, per_query,
                                       run_where, judgments_where, kwargs, query_weights, weight_column)) }}
{%- endmacro -%}
