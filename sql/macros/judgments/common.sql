{#-
  Shared pieces of the judgment tools (labels from events, annotator agreement and aggregation, positions):
  settings checks, input checks, and string literals. Every macro here renders from Python (sqlndcg/render.py)
  and from dbt alike; inputs arrive described as {sql, label, columns} (entry.sql's input_relation, or Python's
  Source.describe), columns as {name, type, class}.
-#}

{#- Settings given to a judgment tool, checked against what it declares ({name: default}); an unknown name is a
    setting error listing the known ones. Returns the declared defaults updated with what was given (None counts
    as not given). -#}
{%- macro _judgment_settings(tool, declared, given) -%}
{%- for key in given if key not in declared -%}
  {{ sqlndcg._fail('setting', tool ~ ': unknown setting ' ~ sqlndcg._show(key) ~ '; its settings are ' ~ (declared.keys() | list | join(', '))) }}
{%- endfor -%}
{%- set out = {} -%}
{%- for key, default in declared.items() -%}
  {%- do out.update({key: default if given.get(key) is none else given[key]}) -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- group_by as a list of distinct column names. -#}
{%- macro _judgment_groups(value) -%}
{%- set value = [value] if value is string else (value or []) -%}
{%- set groups = [] -%}
{%- for g in value -%}{%- do groups.append(sqlndcg._column_name('group_by column', g)) -%}{%- endfor -%}
{%- if (groups | unique | list | length) != (groups | length) -%}
  {{ sqlndcg._fail('setting', 'group_by names a column twice: ' ~ sqlndcg._show(groups)) }}
{%- endif -%}
{{ return(groups) }}
{%- endmacro -%}

{#- Every needed column present, by role: a missing one is named, with the columns the input has and the setting
    that names it. `needed` is a list of (role, name, setting). -#}
{%- macro _judgment_require_columns(input, needed) -%}
{%- set names = sqlndcg._column_names(input.columns) -%}
{%- for role, name, setting in needed if name not in names -%}
  {%- set close = [] -%}
  {%- for c in names if c | lower == name | lower -%}{%- do close.append(c) -%}{%- endfor -%}
  {%- set hint = (' (did you mean ' ~ sqlndcg._show(close[0]) ~ '? names are case-sensitive)') if close else '' -%}
  {{ sqlndcg._fail('input', input.label ~ ' has no ' ~ role ~ ' column ' ~ sqlndcg._show(name) ~ hint ~ '; its columns are ' ~ sqlndcg._show(names) ~ '. Name the right one with ' ~ setting ~ '=.') }}
{%- endfor -%}
{%- endmacro -%}

{#- Numeric columns must hold numbers, id columns text or integers. -#}
{%- macro _judgment_require_types(input, numeric, ids) -%}
{%- for name in numeric -%}
  {%- set c = sqlndcg._column_of(input.columns, name) -%}
  {%- if c.class not in ['integer', 'number'] -%}
    {{ sqlndcg._fail('input', input.label ~ ': column ' ~ sqlndcg._show(name) ~ ' holds ' ~ c.type ~ ', but must hold numbers; convert it and try again') }}
  {%- endif -%}
{%- endfor -%}
{%- for name in ids -%}
  {%- set c = sqlndcg._column_of(input.columns, name) -%}
  {%- if c.class not in ['integer', 'text'] -%}
    {{ sqlndcg._fail('input', input.label ~ ': id column ' ~ sqlndcg._show(name) ~ ' holds ' ~ c.type ~ '; ids must be text or integers (cast it, e.g. to VARCHAR)') }}
  {%- endif -%}
{%- endfor -%}
{%- endmacro -%}

{#- True unless every one of the named columns (in any of the inputs) holds integers: ids are then compared as
    text, as evaluate compares them. `pairs` is a list of (input, column name). -#}
{%- macro _judgment_ids_as_text(pairs) -%}
{%- set ns = namespace(text=false) -%}
{%- for input, name in pairs -%}
  {%- if sqlndcg._column_of(input.columns, name).class != 'integer' -%}{%- set ns.text = true -%}{%- endif -%}
{%- endfor -%}
{{ return(ns.text) }}
{%- endmacro -%}

{#- Output column names must differ from each other. -#}
{%- macro _judgment_distinct_outputs(tool, names) -%}
{%- set seen, twice = [], [] -%}
{%- for n in names -%}{%- if n in seen -%}{%- do twice.append(n) -%}{%- endif -%}{%- do seen.append(n) -%}{%- endfor -%}
{%- if twice -%}
  {{ sqlndcg._fail('setting', tool ~ ': the output would have two columns named ' ~ sqlndcg._show(twice[0]) ~ '; rename one of the settings that name it') }}
{%- endif -%}
{%- endmacro -%}

{#- A row check: {kind, column (quoted), name, message, values (for 'not_in' and 'outside')}. Kinds: null,
    not_finite, negative, not_binary (a number other than 0 and 1), outside (a number outside a range), not_in (a
    value outside a list of text literals). -#}
{%- macro _judgment_check(kind, name, message, values=none) -%}
{{ return({'kind': kind, 'column': sqlndcg._quote(name), 'name': name, 'message': message, 'values': values or []}) }}
{%- endmacro -%}

{%- macro _judgment_violation(c) -%}
{%- set value = 'CAST(' ~ c.column ~ ' AS ' ~ sqlndcg.double() ~ ')' -%}
{%- if c.kind == 'null' -%}
{{ c.column }} IS NULL
{%- elif c.kind == 'not_finite' -%}
({{ c.column }} IS NOT NULL AND NOT {{ sqlndcg.is_finite(value) }})
{%- elif c.kind == 'negative' -%}
{{ value }} < 0
{%- elif c.kind == 'not_binary' -%}
({{ c.column }} IS NOT NULL AND {{ value }} <> 0 AND {{ value }} <> 1)
{%- elif c.kind == 'outside' -%}
{#- values: [low, low included, high or none]: the value must be above low (or equal, when included) and at most high. -#}
({{ c.column }} IS NOT NULL AND NOT ({{ value }} {{ '>=' if c['values'][1] else '>' }} {{ sqlndcg._number(c['values'][0]) }}{% if c['values'][2] is not none %} AND {{ value }} <= {{ sqlndcg._number(c['values'][2]) }}{% endif %}))
{%- elif c.kind == 'not_in' -%}
({{ c.column }} IS NOT NULL AND CAST({{ c.column }} AS {{ sqlndcg.text_type() }}) NOT IN ({% for v in c['values'] %}{{ sqlndcg.text_literal(v) }}{% if not loop.last %}, {% endif %}{% endfor %}))
{%- else -%}
{{ sqlndcg._fail('setting', 'unknown input check ' ~ sqlndcg._show(c.kind)) }}
{%- endif -%}
{%- endmacro -%}

{#- One scan that counts the rows failing each check. -#}
{%- macro _judgment_profile(relation, checks) -%}
SELECT COUNT(*) AS row_count
{%- for c in checks %},
  SUM(CASE WHEN {{ sqlndcg._judgment_violation(c) }} THEN 1 ELSE 0 END) AS check_{{ loop.index0 }}
{%- endfor %}
FROM {{ relation }} AS input_rows
{%- endmacro -%}

{#- A few rows failing one check, to show the user. -#}
{%- macro _judgment_offending_rows(relation, c, columns, limit) -%}
SELECT {{ columns | join(', ') }}
FROM {{ relation }} AS input_rows
WHERE {{ sqlndcg._judgment_violation(c) }}
LIMIT {{ limit }}
{%- endmacro -%}

{#- The same checks as one query of offending rows with a `problem` column: for a dbt data test (it fails when
    any row comes back). `identity` are the quoted key columns shown in `row_key`. `keys` (quoted) also refuses
    repeated keys when given. -#}
{%- macro _judgment_problems(relation, checks, identity, keys=none, key_meaning='rows') -%}
{%- set key_text -%}
{%- for k in identity %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor -%}
{%- endset -%}
{%- for c in checks %}
SELECT {{ sqlndcg.text_literal(c.name ~ ' ' ~ c.message) }} AS problem, {{ key_text }} AS row_key
FROM {{ relation }} AS input_rows
WHERE {{ sqlndcg._judgment_violation(c) }}
{%- if not loop.last or keys %}
UNION ALL
{%- endif %}
{%- endfor %}
{%- if keys %}
SELECT {{ sqlndcg.text_literal(key_meaning ~ ' that occur more than once') }} AS problem, {% for k in keys %}{{ sqlndcg._id(k, true) }}{% if not loop.last %} || ', ' || {% endif %}{% endfor %} AS row_key
FROM {{ relation }} AS input_rows
GROUP BY {{ keys | join(', ') }}
HAVING COUNT(*) > 1
{%- endif %}
{%- if not checks and not keys %}
SELECT {{ sqlndcg.text_literal('') }} AS problem, {{ sqlndcg.text_literal('') }} AS row_key FROM {{ relation }} AS input_rows WHERE 1 = 0
{%- endif %}
{%- endmacro -%}

{#- `a.c = b.c AND ...` over a list of column names. -#}
{%- macro _judgment_on(columns, a, b) -%}
{%- for c in columns %}{{ a }}.{{ c }} = {{ b }}.{{ c }}{% if not loop.last %} AND {% endif %}{% endfor -%}
{%- endmacro -%}

{#- `a.c AS c, ...` over a list of column names (every selected column aliased). -#}
{%- macro _judgment_select(columns, a) -%}
{%- for c in columns %}{{ a }}.{{ c }} AS {{ c }}{% if not loop.last %}, {% endif %}{% endfor -%}
{%- endmacro -%}
