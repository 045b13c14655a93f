{#-
  Input checks, run in DuckDB before any number is computed. One scan counts every kind of bad value; only when a
  count is not zero are a few offending rows fetched to show the user.
  A check is {kind, column (quoted), ...}: kinds below.
-#}

{%- macro sqlndcg_violation(c) -%}
{%- if c.kind == 'null' -%}
{{ c.column }} IS NULL
{%- elif c.kind == 'not_finite' -%}
NOT isfinite(CAST({{ c.column }} AS DOUBLE))
{%- elif c.kind == 'bad_rank' -%}
(CAST({{ c.column }} AS DOUBLE) < 1 OR CAST({{ c.column }} AS DOUBLE) <> FLOOR(CAST({{ c.column }} AS DOUBLE)))
{%- elif c.kind == 'above' -%}
CAST({{ c.column }} AS DOUBLE) > {{ sqlndcg_number(c.limit) }}
{%- elif c.kind == 'unmapped' -%}
(CAST({{ c.column }} AS DOUBLE) > 0 AND CAST({{ c.column }} AS DOUBLE) NOT IN ({% for g in c.grades %}{{ sqlndcg_number(g) }}{% if not loop.last %}, {% endif %}{% endfor %}))
{%- endif -%}
{%- endmacro -%}

{%- macro sqlndcg_profile(relation, checks) -%}
SELECT COUNT(*) AS row_count
{%- for c in checks %},
  SUM(CASE WHEN {{ sqlndcg_violation(c) }} THEN 1 ELSE 0 END) AS check_{{ loop.index0 }}
{%- endfor %}
FROM {{ relation }} AS input_rows
{%- endmacro -%}

{%- macro sqlndcg_offending_rows(relation, c, columns, limit) -%}
SELECT {{ columns | join(', ') }}
FROM {{ relation }} AS input_rows
WHERE {{ sqlndcg_violation(c) }}
LIMIT {{ limit }}
{%- endmacro -%}

{#- Keys that occur more than once, with how many times, and how many such keys there are in all. -#}
{%- macro sqlndcg_duplicates(relation, keys, limit) -%}
SELECT {{ keys | join(', ') }}, COUNT(*) AS copies, COUNT(*) OVER () AS duplicated_keys
FROM {{ relation }} AS input_rows
GROUP BY {{ keys | join(', ') }}
HAVING COUNT(*) > 1
ORDER BY {{ keys | join(', ') }}
LIMIT {{ limit }}
{%- endmacro -%}
