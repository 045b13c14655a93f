{#-
  The run's ranked top, made once for a checked evaluation and read by both of its passes over the run: the
  account (the repeated pairs and unjudged documents it counts within the top, the rows it counts per list) and
  the per-query statement (the ranked rows it joins to the labels). Reading and ranking every run row is the
  largest cost of an evaluation with a cutoff; with this table it is paid once instead of twice.

  Made only where the checks count within a cutoff (the plan's checked_within, which is then the statement's
  prune_k) and in one pass (no partitions); the plan carries its name as top_table. Columns: the group aliases,
  _q, _d, _pos (1 = best, ranked as per_query.sql ranks: rank_order, dialects/rules.sql) and _rows (the list's length,
  on each of its rows).
-#}

{#- Whether an evaluation under plan `p` makes the shared top (Python asks before the account). -#}
{%- macro _shares_top(p) -%}
{{ return(p.get('checked_within') is not none and p.get('checked_within') == p.prune_k) }}
{%- endmacro -%}

{%- macro _run_top_sql(p) -%}
{%- set g_cols %}{% for g in p.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set within = p.checked_within -%}
WITH run_rows AS{{ sqlndcg._input_cte(p, 'run') }} (
  {{ sqlndcg._run_rows(p) }}
)
{%- if sqlndcg.top_n(p) == 'aggregate' %}
{#- The k best of each list held k at a time (per_query.sql, top_listed), numbered in that order. #}
SELECT {{ g_cols }}_q, unnest(_docs) AS _d, unnest(range(1, len(_docs) + 1)) AS _pos, _rows
FROM (
  SELECT {{ g_cols }}_q, {{ sqlndcg._top_documents(p, within) }} AS _docs, COUNT(*) AS _rows
  FROM run_rows
  GROUP BY {{ g_cols }}_q
) AS tops
{%- else %}
{#- Ranked by the window the statement would use (a per-group limit on Spark); each list's length counted apart, as
    a count over the window would keep Spark from limiting it. #}
SELECT {% for g in p.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._q AS _q, r._d AS _d, r._pos AS _pos, c._rows AS _rows
FROM (
  SELECT {{ g_cols }}_q, _d,
    ROW_NUMBER() OVER (PARTITION BY {{ g_cols }}_q ORDER BY {{ sqlndcg._rank_order('_key', sqlndcg._tie_doc(p), sqlndcg._descending(p)) }}) AS _pos
  FROM run_rows
) AS r
JOIN (SELECT {{ g_cols }}_q, COUNT(*) AS _rows FROM run_rows GROUP BY {{ g_cols }}_q) AS c
  ON c._q = r._q{% for g in p.groups %} AND c.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
WHERE r._pos <= {{ within }}
{%- endif %}
{%- endmacro -%}
