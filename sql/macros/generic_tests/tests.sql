{#-
  dbt generic tests the package ships: the checks sqlndcg.evaluate() runs before computing anything (checks.sql,
  input_checks), and the two checks it runs after (queries with nothing to find under empty='error', sums that
  overflowed). Each returns one row per problem with a `problem` column saying what is wrong, in which relation and
  for which key (e.g. "repeated (query_id, doc_id) in run relation ...: ('q1', 'd3') appears 2 times"), so
  `dbt test --store-failures` keeps a table that shows it, where evaluate() would raise. Use them on the model's
  inputs and outputs:

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

{#- A key's values as SQL text, for a problem's description: ('q1', 'd3'), NULL shown as NULL. -#}
{%- macro _key_shown(keys) -%}
'(' || {% for k in keys %}COALESCE('''' || {{ sqlndcg._id(k, true) }} || '''', 'NULL'){% if not loop.last %} || ', ' || {% endif %}{% endfor %} || ')'
{%- endmacro -%}

{#- One row per problem: `problem` says what is wrong, where (`label`: the input relation) and for which key, e.g.
    "repeated (query_id, doc_id) in run relation "db"."main"."rankings": ('q1', 'd3') appears 2 times. ...";
    `row_key` holds the key values alone. -#}
{%- macro _problem_rows(relation, declared, label) -%}
{%- set keys = [] -%}{%- for c in declared.identity -%}{%- do keys.append(sqlndcg._quote(c)) -%}{%- endfor -%}
{%- set key_text -%}
{%- for k in keys %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor -%}
{%- endset -%}
{%- set names = '(' ~ (declared.identity | join(', ')) ~ ')' -%}
{%- for c in declared.problems %}
SELECT {{ sqlndcg.text_literal('column ' ~ sqlndcg._show(c.name) ~ ' ' ~ c.message ~ ' in ' ~ label ~ ': ' ~ names ~ ' = ') }}
    || {{ sqlndcg._key_shown(keys) }}
    {%- if c.name not in declared.identity %} || {{ sqlndcg.text_literal(', ' ~ c.name ~ ' = ') }} || COALESCE({{ sqlndcg._id(c.column, true) }}, 'NULL'){% endif %} AS problem,
  {{ key_text }} AS row_key
FROM {{ relation }} AS input_rows
WHERE {{ sqlndcg._check_violation(c) }}
UNION ALL
{%- endfor %}
SELECT {{ sqlndcg.text_literal('repeated ' ~ names ~ ' in ' ~ label ~ ': ') }} || {{ sqlndcg._key_shown(keys) }}
    || ' appears ' || {{ sqlndcg._id('COUNT(*)', true) }} || {{ sqlndcg.text_literal(' times. Each must appear once' ~ declared.hint) }} AS problem,
  {{ key_text }} AS row_key
FROM {{ relation }} AS input_rows
GROUP BY {{ keys | join(', ') }}
HAVING COUNT(*) > 1
{%- if declared.unique_ranks %}
UNION ALL
{%- set rank_keys = [] -%}{%- for c in declared.unique_ranks -%}{%- do rank_keys.append(sqlndcg._quote(c)) -%}{%- endfor %}
SELECT {{ sqlndcg.text_literal("shared rank in " ~ label ~ " (ties='rank' needs distinct ranks within a query): (" ~ (declared.unique_ranks | join(', ')) ~ ') = ') }}
    || {{ sqlndcg._key_shown(rank_keys) }} || ' appears ' || {{ sqlndcg._id('COUNT(*)', true) }} || ' times' AS problem,
  {% for k in rank_keys %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM {{ relation }} AS input_rows
GROUP BY {{ rank_keys | join(', ') }}
HAVING COUNT(*) > 1
{%- endif %}
{%- set conflict = declared.get('order_conflict') %}
{%- if conflict %}
UNION ALL
{%- set aliases = [] -%}{%- for c in conflict.identity -%}{%- do aliases.append('_g' ~ loop.index0 if not loop.last else '_q') -%}{%- endfor %}
SELECT {{ sqlndcg.text_literal('score column ' ~ sqlndcg._show(conflict.score) ~ ' and rank column ' ~ sqlndcg._show(conflict.rank) ~ ' order the documents differently in ' ~ label ~ ' (name the one that ranks with score= or rank=): (' ~ (conflict.identity | join(', ')) ~ ') = ') }}
    || {{ sqlndcg._key_shown(aliases) }} || ', a document at rank ' || {{ sqlndcg._id('_rank', true) }} || {{ sqlndcg.text_literal(' scores ' ~ ('lower' if conflict.lower_is_better else 'higher') ~ ' than one ranked above it') }} AS problem,
  {% for k in aliases %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM ({{ sqlndcg._order_conflict_rows(relation, conflict) }}) AS disagreements
{%- endif %}
{%- endmacro -%}

{%- test valid_run(model) -%}
{%- if execute -%}
{%- set spec = sqlndcg._spec(['ndcg'], kwargs) -%}
{%- set run = sqlndcg._input_relation('run', model) -%}
{%- set spec = sqlndcg._settled_spec(spec, run) -%}
{{ sqlndcg._problem_rows(model, sqlndcg._input_checks('run', spec, run.columns), run.label) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{%- test valid_judgments(model) -%}
{%- if execute -%}
{%- set spec = sqlndcg._spec(['ndcg'], kwargs) -%}
{%- set columns = sqlndcg._relation_columns(model) -%}
{{ sqlndcg._require_columns('judgments relation ' ~ model, columns, [('query id', spec.columns.judgments_query_id, 'judgments_query_id'), ('document id', spec.columns.judgments_doc_id, 'judgments_doc_id'), ('rel', spec.columns.rel, 'rel')]) }}
{%- set shared = [] -%}
{%- for g in spec.group_by if g in sqlndcg._column_names(columns) -%}{%- do shared.append(g) -%}{%- endfor -%}
{{ sqlndcg._problem_rows(model, sqlndcg._input_checks('judgments', spec, columns, shared), 'judgments relation ' ~ model) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{#- A per-query model's queries with nothing to find (NULL in a metric that `empty` leaves NULL): evaluate()
    refuses them under empty='error'; build the model with empty='skip' (or 'error') and add this test. -#}
{%- test no_empty_queries(model, metrics) -%}
{%- set out = sqlndcg._output_columns(sqlndcg._spec(metrics, kwargs)) -%}
{%- set identity = [] -%}{%- for g in out.groups -%}{%- do identity.append(g.output) -%}{%- endfor -%}{%- do identity.append(out.query_output) -%}
{%- set emptyable = [] -%}{%- for m in out.metrics if m.emptyable -%}{%- do emptyable.append(m.column) -%}{%- endfor -%}
{%- if emptyable %}
SELECT 'judged query with nothing to find (no document with a positive gain, or no relevant document for R and AP): empty=''error'' refuses it' AS problem, per_query.*
FROM ({{ sqlndcg._rows_where(model, identity, emptyable, 'null') }}) AS per_query
{%- else %}
SELECT 1 AS problem WHERE 1 = 0
{%- endif %}
{%- endtest -%}

{#- A per-query model's metrics that are not finite numbers: labels or gains too large for a double. -#}
{%- test finite_metrics(model, metrics) -%}
{%- set out = sqlndcg._output_columns(sqlndcg._spec(metrics, kwargs)) -%}
{%- set identity = [] -%}{%- for g in out.groups -%}{%- do identity.append(g.output) -%}{%- endfor -%}{%- do identity.append(out.query_output) -%}
SELECT 'metric not a finite number: labels or gains too large for a double' AS problem, per_query.*
FROM ({{ sqlndcg._rows_where(model, identity, out.metrics | map(attribute='column') | list, 'not_finite') }}) AS per_query
{%- endtest -%}


{#- An events table as sqlndcg.labels_from_events reads it under the same settings (rules=, thresholds=, rate=,
    group_by=, column names; `impressions` a relation, e.g. "ref('rankings')"): the rows it refuses (labels.sql's
    checks: NULL ids, event types the rules do not grade, NULL, negative or non-finite measured values and counts,
    rate denominators that sum to 0 for a document; NULL ids in the impressions). -#}
{%- test valid_events(model, impressions=none) -%}
{%- if execute -%}
{%- set shown = none if impressions is none else sqlndcg._input_relation('impressions', impressions) -%}
{{ sqlndcg._labels_problems_sql(sqlndcg._labels_plan(sqlndcg._input_relation('events', model), shown, kwargs)) }}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}

{#- An annotator judgments table (one row per query, document and annotator) as sqlndcg.agreement and
    sqlndcg.aggregate_labels read it (settings: group_by= and column names): NULL ids or annotators, NaN or
    infinite labels, an annotator rating a (query, document) twice. A NULL label is a missing rating, allowed. -#}
{%- test valid_annotations(model) -%}
{%- if execute -%}
{{ sqlndcg._ratings_problems_sql(sqlndcg._agreement_plan(sqlndcg._input_relation('judgments', model), kwargs)) }}
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
{#- Only the per-query table's query and group columns are read: any metric names them. -#}
{%- set plan = sqlndcg._output_columns(sqlndcg._spec(['ndcg'], kwargs)) -%}
{%- set weights = sqlndcg._weights_plan(plan, sqlndcg._input_relation('query weights', model), weight_column) -%}
{{ sqlndcg._problem_rows(model, sqlndcg._weights_checks(weights), 'query weights relation ' ~ model) }}
{%- if per_query is not none %}
{%- set identity = [] -%}{%- for g in plan.groups -%}{%- do identity.append(g.output) -%}{%- endfor -%}{%- do identity.append(plan.query_output) %}
UNION ALL
{%- set missing = [] -%}{%- for k in identity -%}{%- do missing.append('missing_weights.' ~ k) -%}{%- endfor %}
SELECT {{ sqlndcg.text_literal('scored query without a weight in query weights relation ' ~ model ~ ' (give every scored query one; 0 leaves it out of the mean): ' ~ per_query ~ ' has (' ~ (identity | join(', ')) ~ ') = ') }}
    || {{ sqlndcg._key_shown(missing) }} AS problem,
  {% for k in identity %}{{ sqlndcg._id('missing_weights.' ~ k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM ({{ sqlndcg._missing_weights_sql(sqlndcg._input_relation('per_query', per_query).sql, plan, weights) }}) AS missing_weights
{%- endif %}
{%- else -%}
SELECT 1 AS problem WHERE 1 = 0
{%- endif -%}
{%- endtest -%}
