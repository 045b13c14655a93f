{#-
  Input checks, in SQL so they run in every engine and as dbt tests (tests.sql). One scan counts every kind of bad
  value; only when a count is not zero are a few offending rows fetched to show the user.
  A check is {kind, column (quoted), ...}: kinds below.
-#}

{%- macro _check_violation(c) -%}
{%- set value = 'CAST(' ~ c.column ~ ' AS ' ~ sqlndcg.double() ~ ')' -%}
{%- if c.kind == 'null' -%}
{{ c.column }} IS NULL
{%- elif c.kind == 'not_finite' -%}
NOT {{ sqlndcg.is_finite(value) }}
{%- elif c.kind == 'bad_rank' -%}
{#- NaN and infinities are not_finite's: FLOOR of them overflows on Spark (a BIGINT there), so they reach it as 1. -#}
{%- set safe = '(CASE WHEN ' ~ sqlndcg.is_finite(value) ~ ' THEN ' ~ value ~ ' ELSE 1 END)' -%}
({{ safe }} < 1 OR {{ safe }} <> FLOOR({{ safe }}))
{%- elif c.kind == 'negative' -%}
{{ value }} < 0
{%- elif c.kind == 'above' -%}
{{ value }} > {{ sqlndcg._number(c.limit) }}
{%- elif c.kind == 'changed_by_double' -%}
{#- A decimal label is compared as a double: refused where that double is another number in the label's own type
    (0.999...9 with 30 decimals reads as 1.0, relevant at threshold 1). -#}
CAST({{ value }} AS {{ c.type }}) <> {{ c.column }}
{%- elif c.kind == 'unmapped' -%}
{#- Under labels='integer_part' the gain is looked up by the label's integer part, so that is what must be mapped. -#}
{%- if c.get('integer_part') %}{% set value = sqlndcg.integer_part(value) %}{% endif -%}
({{ value }} > 0 AND {{ value }} NOT IN ({% for g in c.grades %}{{ sqlndcg._number(g) }}{% if not loop.last %}, {% endif %}{% endfor %}))
{%- else -%}
{{ sqlndcg._fail('setting', 'unknown input check ' ~ sqlndcg._show(c.kind)) }}
{%- endif -%}
{%- endmacro -%}

{%- macro _profile(relation, checks) -%}
SELECT COUNT(*) AS row_count
{%- for c in checks %},
  SUM(CASE WHEN {{ sqlndcg._check_violation(c) }} THEN 1 ELSE 0 END) AS check_{{ loop.index0 }}
{%- endfor %}
FROM {{ relation }} AS input_rows
{%- endmacro -%}

{%- macro _offending_rows(relation, c, columns, limit) -%}
SELECT {{ columns | join(', ') }}
FROM {{ relation }} AS input_rows
WHERE {{ sqlndcg._check_violation(c) }}
LIMIT {{ limit }}
{%- endmacro -%}

{#- Keys that occur more than once, with how many times, and how many such keys there are in all. -#}
{%- macro _duplicates(relation, keys, limit=none) -%}
SELECT {{ keys | join(', ') }}, COUNT(*) AS copies, COUNT(*) OVER () AS duplicated_keys
FROM {{ relation }} AS input_rows
GROUP BY {{ sqlndcg.distinct_keys(keys) | join(', ') }}
HAVING COUNT(*) > 1
{%- if limit is not none %}
ORDER BY {{ sqlndcg.distinct_keys(keys) | join(', ') }}
LIMIT {{ limit }}
{%- endif %}
{%- endmacro -%}

{#- A run whose score and rank columns order some query differently (`c`: input_checks' order_conflict): per such
    (group, query), its first rank r at which a document scores better than a document at the rank just above
    (equal scores or equal ranks are ties, not a disagreement), as _g0.., _q, _rank, _score (the best score at r)
    and _score_above (the worst score at the rank above). When each rank's worst score is at least the next
    rank's best, every rank's is (the scores fall along the ranks), so neighbours suffice: the rows in rank order,
    each rank's from its best score to its worst, each compared with the row before it where the rank changes.
    One sort, no self-join, no grouping. `c.keys` are the group and query columns as compared (text in binary
    collation, integers as they are). Nested subqueries, no CTE, so a generic test can put it in a UNION ALL. -#}
{%- macro _order_conflict_rows(relation, c) -%}
{%- set aliases = [] -%}
{%- for name in c.identity -%}{%- do aliases.append('_g' ~ loop.index0 if not loop.last else '_q') -%}{%- endfor -%}
{%- set score, rank = sqlndcg._quote(c.score), sqlndcg._quote(c.rank) -%}
{%- set by = 'PARTITION BY ' ~ (aliases | join(', ')) ~ ' ORDER BY _rank' ~ sqlndcg.nulls('FIRST') -%}
{%- set within = (' ASC' ~ sqlndcg.nulls('FIRST')) if c.lower_is_better else (' DESC' ~ sqlndcg.nulls('LAST')) -%}
{%- set previous = 'OVER (' ~ by ~ ', _score' ~ within ~ ' ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING)' -%}
SELECT {{ aliases | join(', ') }}, _rank, _score, _score_above
FROM (
  SELECT {{ aliases | join(', ') }}, _rank, _score, _score_above,
    ROW_NUMBER() OVER ({{ by }}) AS _nth
  FROM (
    {#- _row: the first row has no row before it, where ClickHouse's MIN over the empty frame gives 0. #}
    SELECT {{ aliases | join(', ') }}, _rank, _score,
      MIN(_score) {{ previous }} AS _score_above,
      MIN(_rank) {{ previous }} AS _rank_above,
      ROW_NUMBER() OVER ({{ by }}, _score{{ within }}) AS _row
    FROM (
      SELECT {% for e in c['keys'] %}{{ e }} AS {{ aliases[loop.index0] }}, {% endfor %}{{ rank }} AS _rank, {{ score }} AS _score
      FROM {{ relation }} AS input_rows
      WHERE {{ score }} IS NOT NULL AND {{ rank }} IS NOT NULL
        {%- for f in c.finite %} AND {{ sqlndcg.is_finite('CAST(' ~ f ~ ' AS ' ~ sqlndcg.double() ~ ')') }}{% endfor %}
    ) AS ranked_rows
  ) AS with_previous
  WHERE _row > 1 AND _rank_above < _rank AND _score {{ '<' if c.lower_is_better else '>' }} _score_above
) AS first_disagreements
WHERE _nth = 1
{%- endmacro -%}

{#- A few (group, query) where the score and rank columns disagree (_order_conflict_rows), in key order, with how
    many there are in all. -#}
{%- macro _order_conflicts(relation, c, limit) -%}
{%- set aliases = [] -%}
{%- for name in c.identity -%}{%- do aliases.append('_g' ~ loop.index0 if not loop.last else '_q') -%}{%- endfor -%}
SELECT {{ aliases | join(', ') }}, _rank, _score, _score_above, COUNT(*) OVER () AS disagreeing_queries
FROM ({{ sqlndcg._order_conflict_rows(relation, c) }}) AS disagreements
ORDER BY {{ aliases | join(', ') }}
LIMIT {{ limit }}
{%- endmacro -%}

{#- Per-query rows where any of `columns` is NULL (test='null': the queries empty="error" refuses) or not a finite
    number (test='not_finite': sums too large for a double). -#}
{%- macro _rows_where(relation, identity, columns, test, limit=none) -%}
SELECT {{ identity | join(', ') }}, COUNT(*) OVER () AS matching_rows
FROM {{ relation }} AS per_query
WHERE {% for c in columns %}{% if test == 'null' %}{{ c }} IS NULL{% else %}NOT {{ sqlndcg.is_finite(c) }}{% endif %}{% if not loop.last %} OR {% endif %}{% endfor %}
{%- if limit is not none %}
ORDER BY {{ identity | join(', ') }}
LIMIT {{ limit }}
{%- endif %}
{%- endmacro -%}

{#- Which checks an input gets, and what each failure means: one declaration for Python's checks (refusing bad
    input before any number) and for the dbt tests (tests.sql). `columns` are the input's classed columns (plan.sql),
    `shared` the group columns the judgments share. -#}
{%- macro _check(kind, name, message, extra={}) -%}
{%- set c = {'kind': kind, 'column': sqlndcg._quote(name), 'name': name, 'message': message} -%}
{%- do c.update(extra) -%}
{{ return(c) }}
{%- endmacro -%}

{#- The type of a decimal column as SQL can name it (DECIMAL(38,30), numeric(10, 2), numeric), or none for any other
    type: only digits, parentheses, commas and blanks may follow the type's name. -#}
{%- macro _decimal_type(type_name) -%}
{%- set t = (type_name or '') | trim -%}
{%- set upper = t | upper -%}
{%- for prefix in ['DECIMAL', 'NUMERIC'] if upper.startswith(prefix) -%}
  {%- set rest = t[prefix | length:] -%}
  {%- set ns = namespace(ok=true) -%}
  {%- for ch in rest if ch not in '0123456789(), ' -%}{%- set ns.ok = false -%}{%- endfor -%}
  {%- if ns.ok -%}{{ return(t) }}{%- endif -%}
{%- endfor -%}
{{ return(none) }}
{%- endmacro -%}

{%- macro _input_checks(role, spec, columns, shared=[]) -%}
{%- set cols = spec.columns -%}
{%- set problems = [] -%}
{%- if role == 'run' -%}
  {%- set identity = spec.group_by + [cols.query_id, cols.doc_id] -%}
  {%- for c in identity -%}{%- do problems.append(sqlndcg._check('null', c, 'is NULL')) -%}{%- endfor -%}
  {%- if cols.score -%}
    {%- do problems.append(sqlndcg._check('null', cols.score, 'is missing (NULL, or NaN in a pandas frame; every retrieved document needs a score)')) -%}
    {%- if sqlndcg._column_of(columns, cols.score).class != 'integer' -%}
      {%- do problems.append(sqlndcg._check('not_finite', cols.score, 'is NaN or infinite')) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if cols.rank -%}
    {%- do problems.append(sqlndcg._check('null', cols.rank, 'is NULL (every retrieved document needs a rank)')) -%}
    {#- NaN and +inf pass bad_rank's comparisons (NaN compares false; FLOOR(inf) = inf): refused first, by name. -#}
    {%- if sqlndcg._column_of(columns, cols.rank).class != 'integer' -%}
      {%- do problems.append(sqlndcg._check('not_finite', cols.rank, 'is NaN or infinite (ranks are whole numbers from 1)')) -%}
    {%- endif -%}
    {%- do problems.append(sqlndcg._check('bad_rank', cols.rank, 'is not a positive whole number (ranks start at 1)')) -%}
  {%- endif -%}
  {%- set hint = '. If the run holds several systems, days or segments, name that column with group_by'
                 ~ ('' if spec.group_by else ' (its columns: ' ~ sqlndcg._show(sqlndcg._column_names(columns)) ~ ')')
                 ~ '; otherwise keep one row per document (e.g. its best score)' -%}
  {%- set unique_ranks = spec.group_by + [cols.query_id, cols.rank] if (cols.rank and spec.ties == 'rank') else none -%}
  {#- Both a score and a rank column, neither named by the caller (plan.sql, _settled_spec): they must agree. -#}
  {%- set order = spec.get('order_check') -%}
  {%- set order_conflict = none -%}
  {%- if order -%}
    {%- set finite = [] -%}
    {%- for name in [order.score, order.rank] if sqlndcg._column_of(columns, name).class != 'integer' -%}
      {%- do finite.append(sqlndcg._quote(name)) -%}
    {%- endfor -%}
    {%- set keys = [] -%}
    {%- for name in spec.group_by + [cols.query_id] -%}
      {%- do keys.append(sqlndcg._id(sqlndcg._quote(name), sqlndcg._column_of(columns, name).class == 'text')) -%}
    {%- endfor -%}
    {%- set order_conflict = {'identity': spec.group_by + [cols.query_id], 'keys': keys, 'score': order.score,
                              'rank': order.rank, 'lower_is_better': spec.get('lower_is_better', false),
                              'finite': finite} -%}
  {%- endif -%}
  {{ return({'identity': identity, 'problems': problems, 'key_meaning': '(query, document) pairs', 'hint': hint,
             'unique_ranks': unique_ranks, 'order_conflict': order_conflict}) }}
{%- else -%}
  {%- set identity = shared + [cols.judgments_query_id, cols.judgments_doc_id] -%}
  {%- for c in identity -%}{%- do problems.append(sqlndcg._check('null', c, 'is NULL')) -%}{%- endfor -%}
  {%- do problems.append(sqlndcg._check('null', cols.rel, 'is missing (NULL, or NaN in a pandas frame; every judgment needs a relevance label)')) -%}
  {%- set rel_column = sqlndcg._column_of(columns, cols.rel) -%}
  {%- if rel_column.class != 'integer' -%}
    {%- do problems.append(sqlndcg._check('not_finite', cols.rel, 'is NaN or infinite')) -%}
  {%- endif -%}
  {%- set decimal = sqlndcg._decimal_type(rel_column.type) -%}
  {%- if decimal -%}
    {%- do problems.append(sqlndcg._check('changed_by_double', cols.rel, 'is a ' ~ decimal ~ ' that a double rounds to another number (labels are compared as doubles, so a threshold would see the rounded value: round the labels to fewer digits, or cast the column to DOUBLE to accept the rounding)', {'type': decimal})) -%}
  {%- endif -%}
  {%- if spec.gain == 'exponential' -%}
    {%- set limit = sqlndcg._max_exponential_rel() -%}
    {%- do problems.append(sqlndcg._check('above', cols.rel, 'is above ' ~ limit ~ ', where the exponential gain 2^rel - 1 overflows a double (use gain=\'linear\' or a gain map)', {'limit': limit | float})) -%}
  {%- endif -%}
  {%- if spec.gain == 'map' -%}
    {%- set grades, shown = [], [] -%}
    {%- for pair in spec.gain_map -%}{%- do grades.append(pair[0]) -%}{%- do shown.append(sqlndcg._number_text(pair[0])) -%}{%- endfor -%}
    {%- set integer_part = spec.labels == 'integer_part' -%}
    {%- do problems.append(sqlndcg._check('unmapped', cols.rel, 'has a positive grade' ~ (' (by its integer part, labels=\'integer_part\')' if integer_part else '') ~ ' that the gain map does not cover (it maps ' ~ sqlndcg._show(shown) ~ ')', {'grades': grades, 'integer_part': integer_part})) -%}
  {%- endif -%}
  {%- set hint = '. If judgments differ per group (say per day), add that column to both inputs and to group_by' -%}
  {{ return({'identity': identity, 'problems': problems, 'key_meaning': '(query, document) judgments', 'hint': hint,
             'unique_ranks': none, 'order_conflict': none}) }}
{%- endif -%}
{%- endmacro -%}

{#- A number column that reads as text (plan.sql refuses it by its type): its first rows whose value is not a number,
    with how many there are, so the message shows what made the column text (try_double, dialects/rules.sql). -#}
{%- macro _not_numbers(relation, column, columns, limit) -%}
SELECT {{ columns | join(', ') }}, COUNT(*) OVER () AS bad_rows
FROM {{ relation }} AS input_rows
WHERE {{ column }} IS NOT NULL AND {{ sqlndcg.try_double(column) }} IS NULL
LIMIT {{ limit }}
{%- endmacro -%}

{#- A few distinct values of one column, smallest first: what a message shows of an input's ids. -#}
{%- macro _some_values(relation, column, limit) -%}
SELECT DISTINCT {{ column }} AS shown_value
FROM {{ relation }} AS input_rows
ORDER BY shown_value
LIMIT {{ limit }}
{%- endmacro -%}
