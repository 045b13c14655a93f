{#-
  explain's one-query view (sqlndcg/verbs/explain.py): each list's top `limit` positions with their document,
  label and gain, and the ideal ranking's gains, from the per-query statement's own stages (per_query.sql), so the
  order and the gains are the ones evaluate() computes with under the same settings. The numbers (DCG, IDCG, each
  metric) come from evaluate() itself.
-#}

{#- The ranked documents of every list up to `limit`: its group columns (by their output names), _q, _d, _pos, _rel
    (NULL: unjudged), _gain. -#}
{%- macro _explain_ranking(p, limit, longest_list=none) -%}
{%- set f = sqlndcg._per_query_flags(p, longest_list) -%}
WITH run_rows AS (
  {{ sqlndcg._run_rows(p) }}
),
judgment_rows AS (
  {{ sqlndcg._judgment_rows(p.get('judged_plan', p)) }}
),
{%- if f.needs_top_grade %}
{{ sqlndcg._per_query_top_grade(p, f, none) }},
{%- endif %}
{{ sqlndcg._per_query_labels(p, f) }},
{{- sqlndcg._per_query_ranking(p, f) }}
SELECT {% for g in p.groups %}t.{{ g.alias }} AS {{ g.output }}, {% endfor -%}
       t._q AS _q, t._d AS _d, t._pos AS _pos, l._rel AS _rel, COALESCE(l._gain, 0) AS _gain
FROM top_ranked AS t
LEFT JOIN labels AS l
  ON l._q = t._q AND l._d = t._d{% for g in f.shared %} AND l.{{ g.alias }} = t.{{ g.alias }}{% endfor %}
WHERE t._pos <= {{ limit | int }}
ORDER BY t._q, t._pos
{%- endmacro -%}

{#- Every judged document's label and gain (the ideal ranking under ideal='judgments'): the group columns the
    judgments share with the run (by their output names), _q, _d, _rel, _gain. -#}
{%- macro _explain_labels(p) -%}
{%- set f = sqlndcg._per_query_flags(p) -%}
WITH judgment_rows AS (
  {{ sqlndcg._judgment_rows(p.get("judged_plan", p)) }}
),
{{ sqlndcg._per_query_labels(p, f) }}
SELECT {% for g in f.shared %}{{ g.alias }} AS {{ g.output }}, {% endfor %}_q, _d, _rel, _gain
FROM labels ORDER BY _q, _gain DESC, _d
{%- endmacro -%}
