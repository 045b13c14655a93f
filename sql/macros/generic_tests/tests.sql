{#-
  dbt generic tests the package ships: the checks sqlndcg.evaluate() runs before computing anything (checks.sql,
  input_checks), and the two checks it runs after (queries with nothing to find under empty='error', sums that
  overflowed). Each returns the offending rows with a `problem` column saying what is wrong, so `dbt build` fails
  with a readable message where evaluate() would raise. Use them on the model's inputs and outputs:

    models:
      - name: rankings
        data_tests:
          - sqlndcg.valid_run: {arguments: {group_by: [system, ds]}}
      - name: judgments
        data_tests:
          - sqlndcg.valid_judgments: {arguments: {group_by: [ds], gain: exponential}}
      - name: per_query_metrics
        data_tests:
          - sqlndcg.no_empty_queries: {arguments: {metrics: [ndcg@10, map], group_by: [system, ds]}}

  and the judgment tools' inputs (docs/judgments.md), with the checks the Python verbs run before computing:

      - name: events
        data_tests:
          - sqlndcg.valid_events: {arguments: {rules: {click: 1, add_to_cart: 2, purchase: 3}, group_by: [ds]}}
      - name: annotations
        data_tests:
          - sqlndcg.valid_annotations                          # agreement / aggregate_labels settings, if any
      - name: query_traffic
        data_tests:
          - sqlndcg.valid_query_weights: {arguments: {per_query: "ref('per_query_metrics')", group_by: [system, ds]}}
-#}

{%- macro problem_rows(relation, declared) -%}
{%- set keys = [] -%}{%- for c in declared.identity -%}{%- do keys.append(sqlndcg.quote(c)) -%}{%- endfor -%}
{%- set key_text -%}
{%- for k in keys %}{{ sqlndcg.id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor -%}
{%- endset -%}
{%- for c in declared.problems %}
SELECT {{ "'" ~ (c.name ~ ' ' ~ c.message) | replace("'", "''") ~ "'" }} AS problem, {{ key_text }} AS row_key
FROM {{ relation }} AS input_rows
WHERE {{ sqlndcg.check_violation(c) }}
UNION ALL
{%- endfor %}
SELECT {{ "'" ~ declared.key_meaning ~ " that occur more than once" ~ declared.hint | replace("'", "''") ~ "'" }} AS problem, {{ key_text }} AS row_key
FROM {{ relation }} AS input_rows
GROUP BY {{ keys | join(', ') }}
HAVING COUNT(*) > 1
{%- if declared.unique_ranks %}
UNION ALL
{%- set rank_keys = [] -%}{%- for c in declared.unique_ranks -%}{%- do rank_keys.append(sqlndcg.quote(c)) -%}{%- endfor %}
SELECT 'ties=''rank'' needs distinct ranks within a query' AS problem,
  {% for k in rank_keys %}{{ sqlndcg.id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM {{ relation }} AS input_rows
GROUP BY {{ rank_keys | join(', ') }}
HAVING COUNT(*) > 1
{%- endif %}
{%- endmacro -%}

{%- test valid_run(model) -%}
{%- if execute -%}
{%- set spec = sqlndcg.spec(['ndcg'], kwargs) -%}
{%- set run = sqlndcg.input_relation('run', model) -%}
{%- set spec = sqlndcg.settled_spec(spec, run) -%}
{{ sqlndcg.problem_rows(model, sqlndcg.input_checks('run', spec, run.columns)) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{%- test valid_judgments(model) -%}
{%- if execute -%}
{%- set spec = sqlndcg.spec(['ndcg'], kwargs) -%}
{%- set columns = sqlndcg.relation_columns(model) -%}
{{ sqlndcg.require_columns('judgments relation ' ~ model, columns, [('query id', spec.columns.judgments_query_id), ('document id', spec.columns.judgments_doc_id), ('rel', spec.columns.rel)]) }}
{%- set shared = [] -%}
{%- for g in spec.group_by if g in sqlndcg.column_names(columns) -%}{%- do shared.append(g) -%}{%- endfor -%}
{{ sqlndcg.problem_rows(model, sqlndcg.input_checks('judgments', spec, columns, shared)) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{#- A per-query model's queries with nothing to find (NULL in a metric that `empty` leaves NULL): evaluate()
    refuses them under empty='error'; build the model with empty='skip' (or 'error') and add this test. -#}
{%- test no_empty_queries(model, metrics) -%}
{%- set spec = sqlndcg.spec(metrics, kwargs) -%}
{%- set plan = sqlndcg.plan(sqlndcg.assumed_facts(spec, model | string, model | string)) -%}
{%- set identity = [] -%}{%- for g in plan.groups -%}{%- do identity.append(g.output) -%}{%- endfor -%}{%- do identity.append(plan.query_output) -%}
{%- set emptyable = [] -%}{%- for m in plan.metrics if m.emptyable -%}{%- do emptyable.append(m.column) -%}{%- endfor -%}
{%- if emptyable %}
SELECT 'judged query with nothing to find (no document with a positive gain, or no relevant document for R and AP): empty=''error'' refuses it' AS problem, per_query.*
FROM ({{ sqlndcg.rows_where(model, identity, emptyable, 'null') }}) AS per_query
{%- else %}
SELECT 1 AS problem WHERE 1 = 0
{%- endif %}
{%- endtest -%}

{#- A per-query model's metrics that are not finite numbers: labels or gains too large for a double. -#}
{%- test finite_metrics(model, metrics) -%}
{%- set spec = sqlndcg.spec(metrics, kwargs) -%}
{%- set plan = sqlndcg.plan(sqlndcg.assumed_facts(spec, model | string, model | string)) -%}
{%- set identity = [] -%}{%- for g in plan.groups -%}{%- do identity.append(g.output) -%}{%- endfor -%}{%- do identity.append(plan.query_output) -%}
SELECT 'metric not a finite number: labels or gains too large for a double' AS problem, per_query.*
FROM ({{ sqlndcg.rows_where(model, identity, plan.metrics | map(attribute='column') | list, 'not_finite') }}) AS per_query
{%- endtest -%}


{#- An events table as sqlndcg.labels_from_events reads it under the same settings (rules=, thresholds=, rate=,
    group_by=, column names; `impressions` a relation, e.g. "ref('rankings')"): the rows it refuses (labels.sql's
    checks: NULL ids, event types the rules do not grade, NULL, negative or non-finite measured values and counts,
    rate denominators that sum to 0 for a document; NULL ids in the impressions). -#}
{%- test valid_events(model, impressions=none) -%}
{%- if execute -%}
{%- set shown = none if impressions is none else sqlndcg.input_relation('impressions', impressions) -%}
{{ sqlndcg.labels_problems_sql(sqlndcg.labels_plan(sqlndcg.input_relation('events', model), shown, kwargs)) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{#- An annotator judgments table (one row per query, document and annotator) as sqlndcg.agreement and
    sqlndcg.aggregate_labels read it (settings: group_by= and column names): NULL ids or annotators, NaN or
    infinite labels, an annotator rating a (query, document) twice. A NULL label is a missing rating, allowed. -#}
{%- test valid_annotations(model) -%}
{%- if execute -%}
{{ sqlndcg.ratings_problems_sql(sqlndcg.agreement_plan(sqlndcg.input_relation('judgments', model), kwargs)) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{#- A query weights table as sqlndcg.summary and sqlndcg.compare take it (query_weights=; weights.sql): a NULL
    query id or group column, a weight that is NULL, negative, NaN or infinite, a query weighted twice (per group
    column the weights have). With `per_query` (a per-query model, e.g. "ref('per_query_metrics')", and its
    group_by=), also the scored queries that have no weight, which evaluate() and compare() refuse. -#}
{%- test valid_query_weights(model, per_query=none, weight_column='weight') -%}
{%- if execute -%}
{%- set spec = sqlndcg.spec(['ndcg'], kwargs) -%}
{%- set plan = sqlndcg.plan(sqlndcg.assumed_facts(spec, model | string, model | string)) -%}
{%- set weights = sqlndcg.weights_plan(plan, sqlndcg.input_relation('query weights', model), weight_column) -%}
{{ sqlndcg.problem_rows(model, sqlndcg.weights_checks(weights)) }}
{%- if per_query is not none %}
{%- set identity = [] -%}{%- for g in plan.groups -%}{%- do identity.append(g.output) -%}{%- endfor -%}{%- do identity.append(plan.query_output) %}
UNION ALL
SELECT 'scored query without a weight (give every scored query one; 0 leaves it out of the mean)' AS problem,
  {% for k in identity %}{{ sqlndcg.id('missing_weights.' ~ k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM ({{ sqlndcg.missing_weights_sql(sqlndcg.input_relation('per_query', per_query).sql, plan, weights) }}) AS missing_weights
{%- endif %}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}
