{#-
  The impression log, the input of the click tools (propensities, click_labels, and the counterfactual and
  interleaving tools built on it): one row per (impression, shown document).

  Columns (names configurable; the defaults):
    impression_id  one showing of one ranked list (text or integer)
    query_id       the impression's query (one per impression)
    doc_id         the document shown
    position       where it was shown, 1 = top: an impression's positions are 1..n, each once
    click          1 when the user clicked it, else 0 (0/1 numbers, or a boolean)
    propensity     optional: the examination probability the serving system logged, in (0, 1]
    randomized     optional: 1 (or true) on the rows whose positions were shuffled uniformly within their impression
                   (an impression whose top n were shuffled: 1 on positions 1..n, 0 below)
    team           optional: the interleaving team of the document ('a' / 'b')
    group_by       optional: columns an impression belongs to (a day, a segment); results are per group

  A tool's plan macro resolves its settings with the log's (`_click_log_declared()`) and calls
  `_click_log_plan(tool, log, s, needs)`, the log described as {sql, label, columns}; `needs` names the optional
  columns the tool cannot do without. The plan holds the quoted columns, the row checks (`checks`: refused by
  Python's Runner.check, listed for dbt by `click_log_problems`), the keys that must be unique within an
  impression (`position_keys`, `document_keys`: names; `*_quoted`: quoted) and, for
  `_click_log_impressions`, what makes an impression malformed. `_click_log_rows(p)` reads the log with internal
  names: the group aliases, _i, _q, _d, _pos, _click (0/1, a double) and, where the log has them, _prop, _rnd (0/1)
  and _team.
-#}

{%- macro _click_log_declared() -%}
{{ return({'impression_id': 'impression_id', 'query_id': 'query_id', 'doc_id': 'doc_id', 'position': 'position',
           'click': 'click', 'propensity': 'propensity', 'randomized': 'randomized', 'team': 'team', 'group_by': []}) }}
{%- endmacro -%}

{%- macro _click_log_optional() -%}{{ return(['propensity', 'randomized', 'team']) }}{%- endmacro -%}

{#- A 0/1 column (numbers or a boolean) is numeric when it holds numbers; `_click_flag` reads either as 0/1. -#}
{%- macro _click_log_flag_type(log, role, name) -%}
{%- set c = sqlndcg._column_of(log.columns, name) -%}
{%- if c.class in ['integer', 'number'] -%}{{ return(true) }}{%- endif -%}
{%- if 'bool' in (c.type | string | lower) -%}{{ return(false) }}{%- endif -%}
{{ sqlndcg._fail('input', log.label ~ ': the ' ~ role ~ ' column ' ~ sqlndcg._show(name) ~ ' holds ' ~ c.type ~ ', but must hold 0/1 numbers or booleans') }}
{%- endmacro -%}

{%- macro _click_flag(column, numeric) -%}
{{ return('CASE WHEN ' ~ (sqlndcg._number(column) ~ ' = 1' if numeric else column) ~ ' THEN 1 ELSE 0 END') }}
{%- endmacro -%}

{#- The log described as {sql, label, columns}, the resolved settings `s` and the optional columns the tool needs
    -> the log's plan. -#}
{%- macro _click_log_plan(tool, log, s, needs=[]) -%}
{%- set groups = sqlndcg._judgment_groups(s.group_by) -%}
{%- set required = ['impression_id', 'query_id', 'doc_id', 'position', 'click'] -%}
{%- set optional = sqlndcg._click_log_optional() -%}
{%- for key in required + optional -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set needed = [] -%}
{%- for key in required + needs -%}{%- do needed.append((key | replace('_', ' '), s[key], key)) -%}{%- endfor -%}
{%- for g in groups -%}{%- do needed.append(('group_by', g, 'group_by')) -%}{%- endfor -%}
{{ sqlndcg._judgment_require_columns(log, needed) }}
{{ sqlndcg._judgment_require_types(log, [], [s.impression_id, s.query_id, s.doc_id]) }}
{%- set names = sqlndcg._column_names(log.columns) -%}
{%- set has = {} -%}
{%- for key in optional -%}{%- do has.update({key: s[key] in names}) -%}{%- endfor -%}
{%- if has.propensity -%}{{ sqlndcg._judgment_require_types(log, [s.propensity], []) }}{%- endif -%}
{%- if sqlndcg._column_of(log.columns, s.position).class != 'integer' -%}
  {{ sqlndcg._fail('input', log.label ~ ': the position column ' ~ sqlndcg._show(s.position) ~ ' holds ' ~ sqlndcg._column_of(log.columns, s.position).type ~ ', but must hold whole numbers (1 = top)') }}
{%- endif -%}
{%- set click_numeric = sqlndcg._click_log_flag_type(log, 'click', s.click) -%}
{%- set randomized_numeric = sqlndcg._click_log_flag_type(log, 'randomized', s.randomized) if has.randomized else false -%}
{%- set checks = sqlndcg._click_log_checks(s, groups, needs, has, click_numeric, randomized_numeric) -%}
{%- set group_plans, shown = [], [] -%}
{%- for g in groups -%}{%- do group_plans.append({'alias': '_g' ~ loop.index0, 'column': sqlndcg._quote(g), 'name': g}) -%}{%- endfor -%}
{%- set position_keys = groups + [s.impression_id, s.position] -%}
{%- set document_keys = groups + [s.impression_id, s.doc_id] -%}
{%- set columns = {} -%}
{%- for key in required + optional if key in required or has[key] -%}{%- do columns.update({key: s[key]}) -%}{%- endfor -%}
{{ return({
  'tool': tool,
  'log': log.sql,
  'label': log.label,
  'groups': group_plans,
  'impression_id': sqlndcg._quote(s.impression_id),
  'query_id': sqlndcg._quote(s.query_id),
  'doc_id': sqlndcg._quote(s.doc_id),
  'position': sqlndcg._quote(s.position),
  'click': sqlndcg._quote(s.click),
  'click_numeric': click_numeric,
  'propensity': sqlndcg._quote(s.propensity) if has.propensity else none,
  'randomized': sqlndcg._quote(s.randomized) if has.randomized else none,
  'randomized_numeric': randomized_numeric,
  'team': sqlndcg._quote(s.team) if has.team else none,
  'ids_as_text': sqlndcg._judgment_ids_as_text([(log, s.query_id), (log, s.doc_id)]),
  'checks': checks,
  'shown': groups + [s.impression_id, s.position, s.doc_id],
  'identity': sqlndcg._click_log_quoted(groups + [s.impression_id, s.position, s.doc_id]),
  'impression_key': groups + [s.impression_id],
  'position_keys': position_keys,
  'position_keys_quoted': sqlndcg._click_log_quoted(position_keys),
  'document_keys': document_keys,
  'document_keys_quoted': sqlndcg._click_log_quoted(document_keys),
  'settings': {'group_by': groups, 'columns': columns},
}) }}
{%- endmacro -%}

{#- A tool's settings (dbt's kwargs) split into the log's (`_click_log_declared`) and the tool's own. -#}
{%- macro _click_log_split(given) -%}
{%- set log, own = {}, {} -%}
{%- set declared = sqlndcg._click_log_declared() -%}
{%- for key, value in given.items() -%}{%- do (log if key in declared else own).update({key: value}) -%}{%- endfor -%}
{{ return([sqlndcg._judgment_settings('impression log', declared, log), own]) }}
{%- endmacro -%}

{#- An impression's key as one text expression over _click_log_rows' names (the group aliases and _i). -#}
{%- macro _click_log_impression_text(p) -%}
{%- set ns = namespace(text='CAST(_i AS ' ~ sqlndcg.text_type() ~ ')') -%}
{%- for g in p.groups -%}
  {%- set ns.text = sqlndcg.concat_text(sqlndcg.concat_text('CAST(' ~ g.alias ~ ' AS ' ~ sqlndcg.text_type() ~ ')', sqlndcg.text_literal('/')), ns.text) -%}
{%- endfor -%}
{{ return(ns.text) }}
{%- endmacro -%}

{%- macro _click_log_quoted(names) -%}
{%- set out = [] -%}{%- for n in names -%}{%- do out.append(sqlndcg._quote(n)) -%}{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- The row checks of the log: NULL ids, positions below 1, clicks and flags other than 0/1, propensities outside
    (0, 1]. A NULL propensity or flag is refused only by the tools that need the column. -#}
{%- macro _click_log_checks(s, groups, needs, has, click_numeric, randomized_numeric) -%}
{%- set checks = [] -%}
{%- for g in groups + [s.impression_id, s.query_id, s.doc_id, s.position, s.click] -%}
  {%- do checks.append(sqlndcg._judgment_check('null', g, 'is NULL')) -%}
{%- endfor -%}
{%- do checks.append(sqlndcg._judgment_check('outside', s.position, 'is below 1 (positions count from 1, the top)', [1, true, none])) -%}
{%- if click_numeric -%}
  {%- do checks.append(sqlndcg._judgment_check('not_binary', s.click, 'is neither 0 nor 1 (a click is 1, no click 0)')) -%}
{%- endif -%}
{%- for key in ['propensity', 'randomized'] if has[key] and key in needs -%}
  {%- do checks.append(sqlndcg._judgment_check('null', s[key], 'is NULL')) -%}
{%- endfor -%}
{%- if has.propensity -%}
  {%- do checks.append(sqlndcg._judgment_check('outside', s.propensity, 'is outside (0, 1] (a propensity is the probability that the position was examined)', [0, false, 1])) -%}
{%- endif -%}
{%- if has.randomized and randomized_numeric -%}
  {%- do checks.append(sqlndcg._judgment_check('not_binary', s.randomized, 'is neither 0 nor 1 (1 marks an impression whose top was shuffled)')) -%}
{%- endif -%}
{{ return(checks) }}
{%- endmacro -%}

{#- Impressions whose positions are not 1..n (given distinct positions of 1 or more: the deepest position is not
    the number of rows) or that carry more than one query: their key, rows, deepest position, queries, and how
    many such impressions there are (_bad). -#}
{%- macro _click_log_impressions(p, limit=none) -%}
{%- set key = p.groups | map(attribute='column') | list + [p.impression_id] -%}
SELECT {{ key | join(', ') }}, COUNT(*) AS _rows, MAX({{ p.position }}) AS _deepest,
  COUNT(DISTINCT {{ sqlndcg._id(p.query_id, true) }}) AS _queries, COUNT(*) OVER () AS _bad
FROM {{ p.log }} AS log_input
GROUP BY {{ key | join(', ') }}
HAVING MAX({{ p.position }}) <> COUNT(*) OR COUNT(DISTINCT {{ sqlndcg._id(p.query_id, true) }}) > 1
{%- if limit is not none %}
ORDER BY {{ key | join(', ') }}
LIMIT {{ limit }}
{%- endif %}
{%- endmacro -%}

{#- The log's rows with internal names (see the header). -#}
{%- macro _click_log_rows(p) -%}
{%- set d = sqlndcg.double() -%}
SELECT
  {%- for g in p.groups %}
  {{ g.column }} AS {{ g.alias }},
  {%- endfor %}
  {{ p.impression_id }} AS _i,
  {{ sqlndcg._id(p.query_id, p.ids_as_text) }} AS _q,
  {{ sqlndcg._id(p.doc_id, p.ids_as_text) }} AS _d,
  {{ p.position }} AS _pos,
  CAST({{ sqlndcg._click_flag(p.click, p.click_numeric) }} AS {{ d }}) AS _click
  {%- if p.propensity %},
  CAST({{ p.propensity }} AS {{ d }}) AS _prop
  {%- endif %}
  {%- if p.randomized %},
  {{ sqlndcg._click_flag(p.randomized, p.randomized_numeric) }} AS _rnd
  {%- endif %}
  {%- if p.team %},
  CAST({{ p.team }} AS {{ sqlndcg.text_type() }}) AS _team
  {%- endif %}
FROM {{ p.log }} AS log_input
{%- endmacro -%}

{#- Every problem the click tools refuse in Python, as rows (`problem`, `row_key`): for a dbt data test, e.g.
    `{{ sqlndcg.click_log_problems(log=ref('impressions')) }}`, which fails when rows come back. -#}
{%- macro _click_log_problems_sql(p) -%}
{%- set key = p.groups | map(attribute='column') | list + [p.impression_id] -%}
{{ sqlndcg._judgment_problems(p.log, p.checks, p.identity, p.position_keys_quoted, 'positions within an impression') }}
UNION ALL
{{ sqlndcg._judgment_problems(p.log, [], p.identity, p.document_keys_quoted, 'documents within an impression') }}
UNION ALL
SELECT {{ sqlndcg.text_literal('impressions whose positions are not 1..n, or with more than one query') }} AS problem,
  {% for k in key %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM ({{ sqlndcg._click_log_impressions(p) }}) AS impression_problems
{%- endmacro -%}

{%- macro click_log_problems(log=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set s = sqlndcg._judgment_settings('click_log_problems', sqlndcg._click_log_declared(), kwargs) -%}
{{ return(sqlndcg._click_log_problems_sql(sqlndcg._click_log_plan('click_log_problems', sqlndcg._input_relation('log', log), s))) }}
{%- endmacro -%}
