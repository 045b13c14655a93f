{#-
  The entry points a dbt model calls, taking relations and the same keywords as sqlndcg.evaluate():

    {{ sqlndcg.per_query(run=ref('rankings'), judgments=ref('judgments'), metrics=['ndcg@10', 'p@5', 'map'],
                         group_by=['system', 'ds'], gain='exponential') }}
    {{ sqlndcg.summary(run=ref('rankings'), judgments=ref('judgments'), metrics=[...], group_by=[...]) }}
    {{ sqlndcg.summary(per_query=ref('my_per_query_model'), metrics=[...], group_by=[...]) }}
    {{ sqlndcg.summary(per_query=ref('my_per_query_model'), metrics=[...], query_weights=ref('query_traffic')) }}
    {{ sqlndcg.account(run=ref('rankings'), judgments=ref('judgments'), group_by=[...]) }}

  Settings are those of settings_declared() (spec.sql); a misspelled or unknown one is a compilation error naming
  it. Column facts (integer or text ids, which group columns the judgments share) come from
  adapter.get_columns_in_relation. `run_where` / `judgments_where` are SQL predicates written by the model's
  author (as dbt-utils' `where`), for incremental models that evaluate only new partitions.
-#}

{#- A relation's columns classed as the plan expects: integer, number, text or other. -#}
{%- macro relation_columns(relation) -%}
{%- set columns = [] -%}
{%- for c in adapter.get_columns_in_relation(relation) -%}
  {%- if c.is_integer() -%}{%- set cls = 'integer' -%}
  {%- elif c.is_number() or c.is_float() or c.is_numeric() -%}{%- set cls = 'number' -%}
  {%- elif c.is_string() -%}{%- set cls = 'text' -%}
  {%- else -%}{%- set cls = 'other' -%}
  {%- endif -%}
  {%- do columns.append({'name': c.name, 'type': c.dtype, 'class': cls}) -%}
{%- endfor -%}
{{ return(columns) }}
{%- endmacro -%}

{#- An input relation as the plan takes it; `where` narrows its rows. -#}
{%- macro input_relation(role, relation, where=none) -%}
{%- if relation is none or relation is string -%}
  {{ sqlndcg.fail('setting', role ~ '= must be a relation (ref(...) or source(...)), got ' ~ sqlndcg.show(relation)) }}
{%- endif -%}
{%- set columns = sqlndcg.relation_columns(relation) -%}
{%- if not columns -%}
  {{ sqlndcg.fail('input', role ~ ' relation ' ~ relation ~ ' does not exist or has no columns') }}
{%- endif -%}
{%- set sql = relation | string if where is none else '(SELECT * FROM ' ~ relation ~ ' WHERE ' ~ where ~ ')' -%}
{{ return({'sql': sql, 'label': role ~ ' relation ' ~ relation, 'columns': columns}) }}
{%- endmacro -%}

{#- relations + metric names + settings -> the plan (validated; a bad argument is a compilation error). -#}
{%- macro relation_plan(run, judgments, metrics, settings, run_where=none, judgments_where=none) -%}
{%- set spec = sqlndcg.spec(metrics, settings) -%}
{%- set facts = sqlndcg.facts(spec, sqlndcg.input_relation('run', run, run_where),
                              sqlndcg.input_relation('judgments', judgments, judgments_where)) -%}
{{ return(sqlndcg.plan(facts)) }}
{%- endmacro -%}

{%- macro parse_time_placeholder() -%}
{{ return('SELECT 1 AS sqlndcg_parse_placeholder') }}
{%- endmacro -%}

{%- macro per_query(run=none, judgments=none, metrics=none, run_where=none, judgments_where=none) -%}
{%- if not execute -%}{{ return(sqlndcg.parse_time_placeholder()) }}{%- endif -%}
{%- if metrics is none -%}{{ sqlndcg.fail('metric', "per_query needs metrics=, e.g. metrics=['ndcg@10', 'p@5', 'map']") }}{%- endif -%}
{%- set plan = sqlndcg.relation_plan(run, judgments, metrics, kwargs, run_where, judgments_where) -%}
{{ return(sqlndcg.per_query_sql(plan)) }}
{%- endmacro -%}

{%- macro summary(run=none, judgments=none, metrics=none, per_query=none, run_where=none, judgments_where=none,
                  query_weights=none, weight_column='weight') -%}
{%- if not execute -%}{{ return(sqlndcg.parse_time_placeholder()) }}{%- endif -%}
{%- if metrics is none -%}{{ sqlndcg.fail('metric', "summary needs metrics=, e.g. metrics=['ndcg@10', 'p@5', 'map']") }}{%- endif -%}
{%- if per_query is not none -%}
  {#- Summarize a per-query model built by sqlndcg.per_query with the same metrics and group_by. -#}
  {%- set spec = sqlndcg.spec(metrics, kwargs) -%}
  {%- set plan = sqlndcg.plan(sqlndcg.assumed_facts(spec, per_query | string, per_query | string)) -%}
  {%- set source = per_query -%}
{%- else -%}
  {%- set plan = sqlndcg.relation_plan(run, judgments, metrics, kwargs, run_where, judgments_where) -%}
  {%- set source = '(' ~ sqlndcg.per_query_sql(plan, false) ~ ')' -%}
{%- endif -%}
{%- set weights = none -%}
{%- if query_weights is not none -%}
  {%- set weights = sqlndcg.weights_plan(plan, sqlndcg.input_relation('query weights', query_weights), weight_column) -%}
{%- endif -%}
{{ return(sqlndcg.summary_sql(source, plan, weights)) }}
{%- endmacro -%}

{%- macro account(run=none, judgments=none, metrics=['ndcg'], run_where=none, judgments_where=none) -%}
{%- if not execute -%}{{ return(sqlndcg.parse_time_placeholder()) }}{%- endif -%}
{%- set plan = sqlndcg.relation_plan(run, judgments, metrics, kwargs, run_where, judgments_where) -%}
{{ return(sqlndcg.account_sql(plan)) }}
{%- endmacro -%}
