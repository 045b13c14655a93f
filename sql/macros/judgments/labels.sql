{#-
  Labels from behaviour: an event log becomes a judgments table, one row per (group, query, document), with the
  label in `rel` and the number of event rows it rests on in `events`.

    {{ sqlndcg.labels_from_events(events=ref('events'), impressions=ref('rankings'),
                                  rules={'click': 1, 'add_to_cart': 2, 'purchase': 3}, group_by=['ds']) }}

  Three ways to grade (SEMANTICS of issue 11, docs/judgments.md):
    rules={event: grade}       each event row's grade is its event type's grade (column `event`);
    thresholds={t: grade}      each row's grade is the grade of the largest threshold its measured value
                               (column `value`) is strictly above, else 0 (watch time > 60 s -> 1, > 180 s -> 2);
                               with rules too, a row's grade is the larger of the two (a 'complete' event -> 3);
    rate=[numerator, denominator]  the label is SUM(numerator) / SUM(denominator) over the document's rows
                               (conversions / impressions): a fractional label (evaluate it with gain='linear').
  Repeated and conflicting events of one (group, query, document) are resolved by `resolve`:
    strongest (default)  the largest grade among its rows (repeats and weaker events change nothing);
    most_frequent        the grade carried by the most rows; a tie goes to the larger grade;
    latest               the grade of the row with the latest `time`; rows at the same time: the larger grade.
  An event type missing from `rules` is an error naming it (unknown_events='error', the default), or its rows
  are left out (unknown_events='ignore'). With `impressions` (a table of shown documents: query, document and
  the group columns), a shown document without any event is labelled 0 (events = 0).
-#}

{%- macro _labels_declared() -%}
{{ return({'rules': none, 'thresholds': none, 'rate': none, 'resolve': 'strongest', 'unknown_events': 'error',
           'group_by': [], 'query_id': 'query_id', 'doc_id': 'doc_id', 'event': 'event', 'value': 'value',
           'time': none, 'rel': 'rel'}) }}
{%- endmacro -%}

{%- macro _labels_resolutions() -%}{{ return(['strongest', 'most_frequent', 'latest']) }}{%- endmacro -%}

{#- A {key: grade} mapping checked: grades finite and >= 0. -#}
{%- macro _labels_grades(name, mapping, keys_are) -%}
{%- if mapping is not mapping or not mapping -%}
  {{ sqlndcg._fail('setting', name ~ ' must be a non-empty mapping {' ~ keys_are ~ ': grade}, got ' ~ sqlndcg._show(mapping)) }}
{%- endif -%}
{%- set pairs = [] -%}
{%- for key, grade in mapping.items() -%}
  {%- set g = sqlndcg._finite_number(name ~ ' grade of ' ~ sqlndcg._show(key), grade) -%}
  {%- if g < 0 -%}
    {{ sqlndcg._fail('setting', name ~ ': the grade of ' ~ sqlndcg._show(key) ~ ' is ' ~ sqlndcg._number_text(g) ~ '; grades must be 0 or more') }}
  {%- endif -%}
  {%- do pairs.append([key, g]) -%}
{%- endfor -%}
{{ return(pairs) }}
{%- endmacro -%}

{#- events (and impressions), described as {sql, label, columns}, and the settings -> the plan. -#}
{%- macro _labels_plan(events, impressions, given) -%}
{%- set tool = 'labels_from_events' -%}
{%- set s = sqlndcg._judgment_settings(tool, sqlndcg._labels_declared(), given) -%}
{%- set groups = sqlndcg._judgment_groups(s.group_by) -%}
{%- for key in ['query_id', 'doc_id', 'event', 'value', 'rel'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set time = sqlndcg._column_name('time', s.time, true) -%}
{%- if s.rules is none and s.thresholds is none and s.rate is none -%}
  {{ sqlndcg._fail('setting', tool ~ " needs rules={event: grade} (e.g. {'click': 1, 'add_to_cart': 2, 'purchase': 3}), thresholds={value: grade} (e.g. {60: 1, 180: 2}) or rate=[numerator column, denominator column]") }}
{%- endif -%}
{%- if s.rate is not none and (s.rules is not none or s.thresholds is not none) -%}
  {{ sqlndcg._fail('setting', tool ~ ': rate= gives the label by itself; it cannot be combined with rules= or thresholds=') }}
{%- endif -%}
{%- set resolve = sqlndcg._choice('resolve', s.resolve, sqlndcg._labels_resolutions()) -%}
{%- set unknown = sqlndcg._choice('unknown_events', s.unknown_events, ['error', 'ignore']) -%}
{%- if s.rate is not none and resolve != 'strongest' -%}
  {{ sqlndcg._fail('setting', tool ~ ": resolve=" ~ sqlndcg._show(resolve) ~ ' applies to graded events; a rate sums every row of a document') }}
{%- endif -%}
{%- if resolve == 'latest' and time is none -%}
  {{ sqlndcg._fail('setting', tool ~ ": resolve='latest' needs time= (the column that orders the events)") }}
{%- endif -%}
{%- set rules = none if s.rules is none else sqlndcg._labels_grades('rules', s.rules, 'event') -%}
{%- for key, g in (rules or []) if key is not string or key == '' -%}
  {{ sqlndcg._fail('setting', 'rules: event names must be non-empty text, got ' ~ sqlndcg._show(key)) }}
{%- endfor -%}
{%- set thresholds = [] -%}
{%- if s.thresholds is not none -%}
  {%- for t, g in sqlndcg._labels_grades('thresholds', s.thresholds, 'value') -%}
    {%- set t = sqlndcg._finite_number('thresholds: the threshold ' ~ sqlndcg._show(t), t) -%}
    {%- if t < 0 -%}
      {{ sqlndcg._fail('setting', 'thresholds: the threshold ' ~ sqlndcg._number_text(t) ~ ' is negative; measured values are 0 or more') }}
    {%- endif -%}
    {%- do thresholds.append([t, g]) -%}
  {%- endfor -%}
{%- endif -%}
{%- set rate = none -%}
{%- if s.rate is not none -%}
  {%- if s.rate is string or s.rate is mapping or s.rate is not sequence or (s.rate | length) != 2 -%}
    {{ sqlndcg._fail('setting', "rate must name two columns, [numerator, denominator] (e.g. ['conversions', 'impressions']), got " ~ sqlndcg._show(s.rate)) }}
  {%- endif -%}
  {%- set rate = [sqlndcg._column_name('rate numerator', s.rate[0]), sqlndcg._column_name('rate denominator', s.rate[1])] -%}
  {%- if rate[0] == rate[1] -%}
    {{ sqlndcg._fail('setting', 'rate names the column ' ~ sqlndcg._show(rate[0]) ~ ' twice') }}
  {%- endif -%}
{%- endif -%}
{#- The columns each input must have. -#}
{%- set needed = [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id')] -%}
{%- for g in groups -%}{%- do needed.append(('group_by', g, 'group_by')) -%}{%- endfor -%}
{%- set shown_needed = needed | list -%}
{%- if rules is not none -%}{%- do needed.append(('event', s.event, 'event')) -%}{%- endif -%}
{%- if thresholds -%}{%- do needed.append(('measured value', s.value, 'value')) -%}{%- endif -%}
{%- if rate -%}{%- do needed.append(('rate numerator', rate[0], 'rate')) -%}{%- do needed.append(('rate denominator', rate[1], 'rate')) -%}{%- endif -%}
{%- if resolve == 'latest' -%}{%- do needed.append(('time', time, 'time')) -%}{%- endif -%}
{{ sqlndcg._judgment_require_columns(events, needed) }}
{%- set numeric = ([s.value] if thresholds else []) + (rate or []) -%}
{{ sqlndcg._judgment_require_types(events, numeric, [s.query_id, s.doc_id]) }}
{%- set id_inputs = [(events, s.query_id), (events, s.doc_id)] -%}
{%- if impressions is not none -%}
  {{ sqlndcg._judgment_require_columns(impressions, shown_needed) }}
  {{ sqlndcg._judgment_require_types(impressions, [], [s.query_id, s.doc_id]) }}
  {%- do id_inputs.extend([(impressions, s.query_id), (impressions, s.doc_id)]) -%}
{%- endif -%}
{%- set outputs = groups + [s.query_id, s.doc_id, s.rel, 'events'] + (rate or []) -%}
{{ sqlndcg._judgment_distinct_outputs(tool, outputs) }}
{#- Row checks, declared once for Python (refused before labelling) and dbt (labels_from_events_problems). -#}
{%- set checks = sqlndcg._labels_row_checks(s, groups, rules, thresholds, rate, resolve, time, unknown) -%}
{%- set impression_checks = [] -%}
{%- for g in groups + [s.query_id, s.doc_id] -%}{%- do impression_checks.append(sqlndcg._judgment_check('null', g, 'is NULL')) -%}{%- endfor -%}
{%- set group_plans = [] -%}
{%- for g in groups -%}{%- do group_plans.append({'alias': '_g' ~ loop.index0, 'column': sqlndcg._quote(g), 'name': g}) -%}{%- endfor -%}
{%- set identity = [] -%}{%- for g in groups + [s.query_id, s.doc_id] -%}{%- do identity.append(sqlndcg._quote(g)) -%}{%- endfor -%}
{%- set event_column = sqlndcg._column_of(events.columns, s.event) -%}
{%- set rule_literals = [] -%}
{%- for key, g in (rules or []) -%}{%- do rule_literals.append([sqlndcg.text_literal(key), g]) -%}{%- endfor -%}
{%- set recorded = sqlndcg._labels_recorded(s, groups, rules, thresholds, rate, resolve, time, unknown, impressions) -%}
{{ return({
  'events': events.sql,
  'impressions': none if impressions is none else impressions.sql,
  'groups': group_plans,
  'query_id': sqlndcg._quote(s.query_id),
  'doc_id': sqlndcg._quote(s.doc_id),
  'ids_as_text': sqlndcg._judgment_ids_as_text(id_inputs),
  'rules': rule_literals if rules is not none else none,
  'event': sqlndcg._quote(s.event),
  'event_is_text': event_column is not none and event_column.class == 'text',
  'thresholds': thresholds | sort(attribute='0', reverse=true),
  'value': sqlndcg._quote(s.value),
  'rate': none if rate is none else {'numerator': sqlndcg._quote(rate[0]), 'denominator': sqlndcg._quote(rate[1])},
  'resolve': resolve,
  'time': none if time is none else sqlndcg._quote(time),
  'rel_output': sqlndcg._quote(s.rel),
  'events_output': sqlndcg._quote('events'),
  'checks': checks,
  'impression_checks': impression_checks,
  'identity': identity,
  'settings': recorded,
}) }}
{%- endmacro -%}

{#- The plan -> one SELECT of the labels. -#}
{%- macro _labels_sql(p) -%}
{%- set g_cols %}{% for g in p.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set keys = g_cols ~ '_q, _d' -%}
{%- set d = sqlndcg.double() -%}
{%- set graded = p.rules is not none or p.thresholds -%}
WITH {{ sqlndcg._labels_event_rows(p) }}
{{- sqlndcg._labels_graded(p) }}
{{- sqlndcg._labels_impressions(p) }}
_final AS (
  SELECT {{ keys }},
    {%- if p.impressions %}
    CASE WHEN _has_event = 1 THEN _rel ELSE CAST(0 AS {{ d }}) END AS _rel,
    {%- else %}
    _rel,
    {%- endif %}
    _events{% if p.rate %}, _num, _den{% endif %}
  FROM {{ '_merged' if p.impressions else '_labelled' }}
)
SELECT
  {%- for g in p.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _q AS {{ p.query_id }},
  _d AS {{ p.doc_id }},
  CAST(_rel AS {{ d }}) AS {{ p.rel_output }},
  _events AS {{ p.events_output }}
  {%- if p.rate %},
  _num AS {{ p.rate.numerator }},
  _den AS {{ p.rate.denominator }}
  {%- endif %}
FROM _final
ORDER BY {% for g in p.groups %}{{ g.alias }}, {% endfor %}_q, _d
{%- endmacro -%}


{#- The row checks of the events input, declared once for Python (refused before labelling) and dbt
    (labels_from_events_problems). -#}
{%- macro _labels_row_checks(s, groups, rules, thresholds, rate, resolve, time, unknown) -%}
{%- set checks = [] -%}
{%- for g in groups + [s.query_id, s.doc_id] -%}{%- do checks.append(sqlndcg._judgment_check('null', g, 'is NULL')) -%}{%- endfor -%}
{%- if rules is not none and unknown == 'error' -%}
  {%- set names = rules | map(attribute='0') | list -%}
  {%- do checks.append(sqlndcg._judgment_check('null', s.event, "is NULL (every event needs a type; unknown_events='ignore' leaves such rows out)")) -%}
  {%- do checks.append(sqlndcg._judgment_check('not_in', s.event, 'holds an event type that rules= does not grade (it grades ' ~ sqlndcg._show(names) ~ "); add it to rules (with grade 0 to count it as seen but not relevant) or pass unknown_events='ignore'", names)) -%}
{%- endif -%}
{%- if thresholds -%}
  {%- if rules is none -%}
    {%- do checks.append(sqlndcg._judgment_check('null', s.value, 'is NULL (every row needs its measured value)')) -%}
  {%- endif -%}
  {%- do checks.append(sqlndcg._judgment_check('not_finite', s.value, 'is NaN or infinite')) -%}
  {%- do checks.append(sqlndcg._judgment_check('negative', s.value, 'is negative (a measured value such as a watch time is 0 or more)')) -%}
{%- endif -%}
{%- for c in (rate or []) -%}
  {%- do checks.append(sqlndcg._judgment_check('null', c, 'is NULL')) -%}
  {%- do checks.append(sqlndcg._judgment_check('not_finite', c, 'is NaN or infinite')) -%}
  {%- do checks.append(sqlndcg._judgment_check('negative', c, 'is negative (counts are 0 or more)')) -%}
{%- endfor -%}
{%- if resolve == 'latest' -%}
  {%- do checks.append(sqlndcg._judgment_check('null', time, "is NULL (resolve='latest' orders events by time)")) -%}
{%- endif -%}
{{ return(checks) }}
{%- endmacro -%}


{#- The settings as the result records them (what was resolved, from which columns). -#}
{%- macro _labels_recorded(s, groups, rules, thresholds, rate, resolve, time, unknown, impressions) -%}
{%- set recorded = {'resolve': resolve if rate is none else 'sum', 'group_by': groups,
                    'columns': {'query_id': s.query_id, 'doc_id': s.doc_id, 'rel': s.rel}} -%}
{%- if rules is not none -%}
  {%- set shown_rules = {} -%}{%- for key, g in rules -%}{%- do shown_rules.update({key: g}) -%}{%- endfor -%}
  {%- do recorded.update({'rules': shown_rules, 'unknown_events': unknown}) -%}
  {%- do recorded.columns.update({'event': s.event}) -%}
{%- endif -%}
{%- if thresholds -%}
  {%- set shown_thresholds = {} -%}{%- for t, g in thresholds -%}{%- do shown_thresholds.update({t: g}) -%}{%- endfor -%}
  {%- do recorded.update({'thresholds': shown_thresholds}) -%}
  {%- do recorded.columns.update({'value': s.value}) -%}
{%- endif -%}
{%- if rate -%}{%- do recorded.update({'rate': rate}) -%}{%- endif -%}
{%- if time -%}{%- do recorded.columns.update({'time': time}) -%}{%- endif -%}
{%- do recorded.update({'impressions': impressions is not none}) -%}
{{ return(recorded) }}
{%- endmacro -%}


{#- Each event row with internal names: its grade by the event mapping (rules) or by the value's thresholds, and
    the rate's numerator and denominator. -#}
{%- macro _labels_event_rows(p) -%}
{%- set g_cols %}{% for g in p.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set keys = g_cols ~ '_q, _d' -%}
{%- set d = sqlndcg.double() -%}
{%- set graded = p.rules is not none or p.thresholds -%}
_event_rows AS (
  SELECT
    {%- for g in p.groups %}
    {{ g.column }} AS {{ g.alias }},
    {%- endfor %}
    {{ sqlndcg._id(p.query_id, p.ids_as_text) }} AS _q,
    {{ sqlndcg._id(p.doc_id, p.ids_as_text) }} AS _d,
    {%- if p.time %}
    {{ p.time }} AS _t,
    {%- endif %}
    {%- if p.rules is not none %}
    CASE {{ p.event if p.event_is_text else 'CAST(' ~ p.event ~ ' AS ' ~ sqlndcg.text_type() ~ ')' }}{% for name, grade in p.rules %} WHEN {{ name }} THEN {{ sqlndcg._number(grade) }}{% endfor %} ELSE NULL END AS _event_grade,
    {%- endif %}
    {%- if p.thresholds %}
    CASE{% for t, grade in p.thresholds %} WHEN CAST({{ p.value }} AS {{ d }}) > {{ sqlndcg._number(t) }} THEN {{ sqlndcg._number(grade) }}{% endfor %} ELSE CAST(0 AS {{ d }}) END AS _value_grade,
    {%- endif %}
    {%- if p.rate %}
    CAST({{ p.rate.numerator }} AS {{ d }}) AS _num,
    CAST({{ p.rate.denominator }} AS {{ d }}) AS _den,
    {%- endif %}
    1 AS _one
  FROM {{ p.events }} AS events_input
),
{%- endmacro -%}


{#- Graded events resolved per (group, query, document) into one label: the strongest event, the most frequent
    grade, or the latest; or, without grades, the counts. -#}
{%- macro _labels_graded(p) -%}
{%- set g_cols %}{% for g in p.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set keys = g_cols ~ '_q, _d' -%}
{%- set d = sqlndcg.double() -%}
{%- set graded = p.rules is not none or p.thresholds -%}
{%- if graded %}
_graded AS (
  {#- One grade per event row: its type's grade, its measured value's grade, or the larger of the two. #}
  SELECT {{ keys }},{% if p.time %} _t,{% endif %}
    {%- if p.rules is not none and p.thresholds %}
    CASE WHEN COALESCE(_event_grade, 0) >= _value_grade THEN COALESCE(_event_grade, 0) ELSE _value_grade END AS _grade
    {%- elif p.rules is not none %}
    _event_grade AS _grade
    {%- else %}
    _value_grade AS _grade
    {%- endif %}
  FROM _event_rows
  {%- if p.rules is not none %}
  WHERE _event_grade IS NOT NULL
  {%- endif %}
),
{%- if p.resolve == 'strongest' %}
_labelled AS (
  {#- The strongest event wins: repeats and weaker events change nothing. #}
  SELECT {{ keys }}, MAX(_grade) AS _rel, COUNT(*) AS _events
  FROM _graded
  GROUP BY {{ keys }}
),
{%- elif p.resolve == 'most_frequent' %}
_grade_counts AS (
  SELECT {{ keys }}, _grade, COUNT(*) AS _n
  FROM _graded
  GROUP BY {{ keys }}, _grade
),
_picked AS (
  {#- The grade carried by the most rows; equally frequent grades: the larger one. #}
  SELECT {{ keys }}, _grade,
    ROW_NUMBER() OVER (PARTITION BY {{ keys }} ORDER BY _n DESC{{ sqlndcg.nulls('LAST') }}, _grade DESC{{ sqlndcg.nulls('LAST') }}) AS _pick,
    SUM(_n) OVER (PARTITION BY {{ keys }}) AS _events
  FROM _grade_counts
),
_labelled AS (
  SELECT {{ keys }}, _grade AS _rel, _events FROM _picked WHERE _pick = 1
),
{%- else %}
_picked AS (
  {#- The latest event's grade; events at the same time: the larger grade. #}
  SELECT {{ keys }}, _grade,
    ROW_NUMBER() OVER (PARTITION BY {{ keys }} ORDER BY _t DESC{{ sqlndcg.nulls('LAST') }}, _grade DESC{{ sqlndcg.nulls('LAST') }}) AS _pick,
    COUNT(*) OVER (PARTITION BY {{ keys }}) AS _events
  FROM _graded
),
_labelled AS (
  SELECT {{ keys }}, _grade AS _rel, _events FROM _picked WHERE _pick = 1
),
{%- endif %}
{%- else %}
_labelled AS (
  {#- A rate: the document's numerators summed over its denominators summed (NULL when they sum to 0). #}
  SELECT {{ keys }},
    CASE WHEN SUM(_den) > 0 THEN SUM(_num) / SUM(_den) ELSE NULL END AS _rel,
    COUNT(*) AS _events,
    SUM(_num) AS _num,
    SUM(_den) AS _den
  FROM _event_rows
  GROUP BY {{ keys }}
),
{%- endif %}
{%- endmacro -%}


{#- With impressions: shown documents without an event get label 0, merged with the labelled ones. -#}
{%- macro _labels_impressions(p) -%}
{%- set g_cols %}{% for g in p.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set keys = g_cols ~ '_q, _d' -%}
{%- set d = sqlndcg.double() -%}
{%- set graded = p.rules is not none or p.thresholds -%}
{%- if p.impressions %}
_shown AS (
  SELECT DISTINCT
    {%- for g in p.groups %}
    {{ g.column }} AS {{ g.alias }},
    {%- endfor %}
    {{ sqlndcg._id(p.query_id, p.ids_as_text) }} AS _q,
    {{ sqlndcg._id(p.doc_id, p.ids_as_text) }} AS _d
  FROM {{ p.impressions }} AS impressions_input
),
_combined AS (
  {#- Shown documents without an event are labelled 0. A UNION and a GROUP BY rather than an outer join, whose
      unmatched columns some engines fill with 0 or '' instead of NULL. #}
  SELECT {{ keys }}, CAST(_rel AS {{ d }}) AS _rel_in, _events AS _events_in{% if p.rate %}, _num AS _num_in, _den AS _den_in{% endif %}, 1 AS _event_in FROM _labelled
  UNION ALL
  SELECT {{ keys }}, CAST(0 AS {{ d }}) AS _rel_in, 0 AS _events_in{% if p.rate %}, CAST(0 AS {{ d }}) AS _num_in, CAST(0 AS {{ d }}) AS _den_in{% endif %}, 0 AS _event_in FROM _shown
),
_merged AS (
  {#- New names for the aggregates: ClickHouse lets a SELECT's aliases shadow its columns. #}
  SELECT {{ keys }},
    MAX(CASE WHEN _event_in = 1 THEN _rel_in ELSE NULL END) AS _rel,
    MAX(_event_in) AS _has_event,
    MAX(_events_in) AS _events{% if p.rate %}, SUM(_num_in) AS _num, SUM(_den_in) AS _den{% endif %}
  FROM _combined
  GROUP BY {{ keys }}
),
{%- endif %}
{%- endmacro -%}

{#- Documents whose denominators sum to 0 (a rate without a base): refused by Python, listed for dbt. -#}
{%- macro _labels_zero_denominators(p, limit=none) -%}
SELECT {% for g in p.groups %}{{ g.column }} AS {{ g.column }}, {% endfor %}{{ p.query_id }} AS {{ p.query_id }}, {{ p.doc_id }} AS {{ p.doc_id }}, COUNT(*) OVER () AS _bad
FROM {{ p.events }} AS events_input
GROUP BY {% for g in p.groups %}{{ g.column }}, {% endfor %}{{ p.query_id }}, {{ p.doc_id }}
HAVING SUM(CAST({{ p.rate.denominator }} AS {{ sqlndcg.double() }})) <= 0
{%- if limit is not none %}
ORDER BY {% for g in p.groups %}{{ g.column }}, {% endfor %}{{ p.query_id }}, {{ p.doc_id }}
LIMIT {{ limit }}
{%- endif %}
{%- endmacro -%}

{#- dbt entry points. -#}
{%- macro labels_from_events(events=none, impressions=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set ev = sqlndcg._input_relation('events', events) -%}
{%- set shown = none if impressions is none else sqlndcg._input_relation('impressions', impressions) -%}
{{ return(sqlndcg._labels_sql(sqlndcg._labels_plan(ev, shown, kwargs))) }}
{%- endmacro -%}

{#- The input problems labels_from_events refuses in Python, as rows (`problem`, `row_key`), from the plan's own
    checks: events (and impressions) rows, and rate denominators that sum to 0. The dbt data test
    `sqlndcg.valid_events` (generic_tests/tests.sql) runs it, or a singular test calls
    `{{ sqlndcg.labels_from_events_problems(events=ref('events'), rules={...}) }}`; either fails when rows come back. -#}
{%- macro _labels_problems_sql(p) -%}
{%- set sql -%}
{{ sqlndcg._judgment_problems(p.events, p.checks, p.identity) }}
{%- if p.impressions is not none %}
UNION ALL
SELECT {{ sqlndcg.text_literal('impressions: ') }} || impression_problems.problem AS problem, impression_problems.row_key AS row_key
FROM ({{ sqlndcg._judgment_problems(p.impressions, p.impression_checks, p.identity) }}) AS impression_problems
{%- endif %}
{%- if p.rate %}
UNION ALL
SELECT {{ sqlndcg.text_literal('rate denominators that sum to 0 for a document') }} AS problem, {% for k in p.identity %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM ({{ sqlndcg._labels_zero_denominators(p) }}) AS zero_denominators
{%- endif %}
{%- endset -%}
{{ return(sql) }}
{%- endmacro -%}

{%- macro labels_from_events_problems(events=none, impressions=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set ev = sqlndcg._input_relation('events', events) -%}
{%- set shown = none if impressions is none else sqlndcg._input_relation('impressions', impressions) -%}
{{ return(sqlndcg._labels_problems_sql(sqlndcg._labels_plan(ev, shown, kwargs))) }}
{%- endmacro -%}
