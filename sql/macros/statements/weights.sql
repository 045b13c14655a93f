{#-
  Query weights: how much each query counts in the summary's mean (the business's own weighting: traffic, revenue,
  a personalised importance). An input of query id, weight, and optionally group columns (any group_by column it
  has: weights per day, per segment). Unweighted is the default; a scored query without a weight, or a weight that
  is NULL, negative or not finite, is refused by name. summary.sql states the weighted mean and interval.
-#}

{#- The weights input as the summary takes it; `weights` is {sql, label, columns} (classed columns, plan.sql); `p` a
    plan, or a per-query model's output_columns (its ids compared as stored). -#}
{%- macro _weights_plan(p, weights, weight_column='weight') -%}
{%- set spec = p.spec -%}
{%- set query_column = spec.columns.query_id -%}
{%- set names = sqlndcg._column_names(weights.columns) -%}
{%- if weight_column not in names -%}
  {%- set close = [] -%}
  {%- for c in names if c | lower == weight_column | lower -%}{%- do close.append(c) -%}{%- endfor -%}
  {%- set hint = (' (did you mean ' ~ sqlndcg._show(close[0]) ~ '? names are case-sensitive)') if close else '' -%}
  {{ sqlndcg._fail('input', weights.label ~ ' has no weight column ' ~ sqlndcg._show(weight_column) ~ hint ~ '; its columns are ' ~ sqlndcg._show(names) ~ '. Name the right one with weight_column= (sqlndcg compare: --weight-column)') }}
{%- endif -%}
{{ sqlndcg._require_columns(weights.label, weights.columns, [('query id', query_column, 'query_id'), ('weight', weight_column, 'weight_column')]) }}
{{ sqlndcg._require_types(weights.label, weights.columns, [weight_column], [query_column]) }}
{%- set groups = [] -%}
{%- for g in p.groups if g.name in names -%}
  {%- do groups.append({'name': g.name, 'column': sqlndcg._quote(g.name), 'output': g.output}) -%}
{%- endfor -%}
{%- set as_text = p.get('query_ids_as_text', false) or sqlndcg._column_of(weights.columns, query_column).class != 'integer' -%}
{{ return({'sql': weights.sql, 'label': weights.label, 'query_column': sqlndcg._quote(query_column),
           'weight_column': sqlndcg._quote(weight_column), 'weight_name': weight_column, 'query_name': query_column,
           'groups': groups, 'ids_as_text': as_text}) }}
{%- endmacro -%}

{#- The checks of a weights input: what identifies a row, and what each bad value means (checks.sql shape). -#}
{%- macro _weights_checks(w) -%}
{%- set identity = (w.groups | map(attribute='name') | list) + [w.query_name] -%}
{%- set problems = [] -%}
{%- for c in identity -%}{%- do problems.append(sqlndcg._check('null', c, 'is NULL')) -%}{%- endfor -%}
{%- do problems.append(sqlndcg._check('null', w.weight_name, 'is missing (NULL, or NaN in a pandas frame; every weighted query needs a weight)')) -%}
{%- do problems.append(sqlndcg._check('not_finite', w.weight_name, 'is NaN or infinite')) -%}
{%- do problems.append(sqlndcg._check('negative', w.weight_name, 'is negative (a weight says how much a query counts: 0 or more)')) -%}
{{ return({'identity': identity, 'problems': problems, 'key_meaning': 'queries', 'hint': '. Give each query (per group column the weights have) one weight', 'unique_ranks': none}) }}
{%- endmacro -%}

{#- The input's rows as the summary joins them: ids compared as the per-query table holds them; `_has_weight` marks
    a joined row (ClickHouse fills a missing join row with defaults, not NULLs). `_scaled_weight` is the weight
    divided by the largest one, what the statistics weigh by: every weighted statistic is the same for weights
    scaled by a constant, and scaled to at most 1 their squares (V2) neither underflow (weights near 1e-170) nor
    overflow (near 1e160), and equal weights become exactly 1, so they give the unweighted numbers to the bit. The
    weight as given stays beside it, for the rows that show it. -#}
{%- macro _weights_relation(w) -%}
{%- set d = sqlndcg.double() -%}
{%- set weight = 'CAST(' ~ w.weight_column ~ ' AS ' ~ d ~ ')' -%}
{%- set sql -%}
(SELECT {% for g in w.groups %}{{ g.column }} AS {{ g.column }}, {% endfor %}{{ sqlndcg._id(w.query_column, w.ids_as_text) }} AS {{ w.query_column }}, {{ w.weight_column }} AS {{ w.weight_column }}, CASE WHEN MAX({{ weight }}) OVER () > 0 THEN {{ weight }} / MAX({{ weight }}) OVER () ELSE {{ weight }} END AS _scaled_weight, 1 AS _has_weight FROM {{ w.sql }} AS weights_input)
{%- endset -%}
{{ return(sql) }}
{%- endmacro -%}

{#- Every statement that weighs per-query rows joins the weights the same way, with these two macros (summary.sql,
    compare.sql, missing_weights_sql): `query_weights_join` joins the weights (as `alias`) onto the per-query rows
    `rows` (a per-query table's alias: its query and group columns as the plan names them), `query_weight` is the
    weight of the joined row as a double, or 1 without weights (so one template serves both). -#}
{%- macro _query_weights_join(weights, p, rows, alias='w') -%}
{%- if weights %}
LEFT JOIN {{ sqlndcg._weights_relation(weights) }} AS {{ alias }}
  ON {{ alias }}.{{ weights.query_column }} = {{ rows }}.{{ p.query_output }}{% for g in weights.groups %} AND {{ alias }}.{{ g.column }} = {{ rows }}.{{ g.output }}{% endfor %}
{%- endif %}
{%- endmacro -%}

{%- macro _query_weight(weights, alias='w', given=false) -%}
{%- if weights -%}
{{ return('CAST(' ~ alias ~ '.' ~ (weights.weight_column if given else '_scaled_weight') ~ ' AS ' ~ sqlndcg.double() ~ ')') }}
{%- endif -%}
{{ return('CAST(1 AS ' ~ sqlndcg.double() ~ ')') }}
{%- endmacro -%}

{#- Scored queries (rows of the per-query table) that have no weight. -#}
{%- macro _missing_weights_sql(per_query, p, w, limit=none) -%}
SELECT {% for g in p.groups %}pq.{{ g.output }} AS {{ g.output }}, {% endfor %}pq.{{ p.query_output }} AS {{ p.query_output }}, COUNT(*) OVER () AS matching_rows
FROM {{ per_query }} AS pq
{{- sqlndcg._query_weights_join(w, p, 'pq') }}
WHERE COALESCE(w._has_weight, 0) = 0
ORDER BY {% for g in p.groups %}pq.{{ g.output }}, {% endfor %}pq.{{ p.query_output }}
{%- if limit is not none %}
LIMIT {{ limit }}
{%- endif %}
{%- endmacro -%}
