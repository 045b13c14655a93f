{#-
  An account of every row, per group: what went into the numbers and what was left out, so a user sees what
  they rest on. Counts:
    run_rows, run_queries            rows and distinct queries of this group's run
    run_queries_without_judgments    run queries no judgment mentions: never scored
    judgments, judged_queries        judgment rows and distinct judged queries (for this group, when the
                                     judgments are partitioned by a group column)
    judged_queries_missing_from_run  judged queries the run did not answer: scored 0 under queries="judged"
    retrieved_unjudged               retrieved documents without a judgment (rel >= 0): gain 0
    scored_queries                   the queries the summary averages over
  With duplicates=true, three more: run_duplicate_keys and judgment_duplicate_keys, the (query, document) pairs
  that occur more than once (summed over every group, on every row), and run_longest_list, the most rows any
  query of any group has. Python's input checks read them, so the account and the duplicate check cost one
  hashing pass over each input, not two; the longest list tells the per-query statement whether cutting lists
  to their top k can drop anything (per_query.sql).

  One pass: each input's rows go through one GROUP BY on their (group, query, document) key, which counts the
  copies of every pair; everything else (the per-query counts, the unjudged retrieved documents, a join of the
  two pair tables) reads those pair tables, not the inputs again. Measured at 10M run rows, one GROUP BY of the
  run and judgment pairs together (UNION ALL) was no faster and took a third more memory.
-#}

{%- macro account_sql(p, duplicates=false) -%}
{%- set groups = p.groups -%}
{%- set shared = p.groups | selectattr('shared') | list -%}
{%- set g_cols %}{% for g in groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set s_cols %}{% for g in shared %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set int = sqlndcg.integer_type() -%}
WITH run_rows AS (
  {{ sqlndcg.run_rows(p) }}
),
judgment_rows AS (
  {{ sqlndcg.judgment_rows(p) }}
),
run_pairs AS (
  SELECT {{ g_cols }}_q, _d, COUNT(*) AS _copies
  FROM run_rows
  GROUP BY {{ g_cols }}_q, _d
),
judgment_pairs AS (
  SELECT {{ s_cols }}_q, _d, COUNT(*) AS _judgment_copies, MAX(CASE WHEN _rel >= 0 THEN 1 ELSE 0 END) AS _judged
  FROM judgment_rows
  GROUP BY {{ s_cols }}_q, _d
),
pair_totals AS (
  SELECT
    {%- for g in groups %}
    rp.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    SUM(CASE WHEN COALESCE(jp._judged, 0) = 0 THEN rp._copies ELSE 0 END) AS _unjudged,
    SUM(CASE WHEN rp._copies > 1 THEN 1 ELSE 0 END) AS _run_dupes
  FROM run_pairs AS rp
  LEFT JOIN judgment_pairs AS jp
    ON jp._q = rp._q AND jp._d = rp._d{% for g in shared %} AND jp.{{ g.alias }} = rp.{{ g.alias }}{% endfor %}
  {%- if groups %}
  GROUP BY {% for g in groups %}rp.{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
),
duplicate_totals AS (
  SELECT
    (SELECT SUM(_run_dupes) FROM pair_totals) AS _run_dupes_all,
    SUM(CASE WHEN _judgment_copies > 1 THEN 1 ELSE 0 END) AS _judgment_dupes_all
  FROM judgment_pairs
),
judged_queries AS (
  SELECT {{ s_cols }}_q, SUM(_judgment_copies) AS _judgments
  FROM judgment_pairs
  GROUP BY {{ s_cols }}_q
),
run_queries AS (
  SELECT {{ g_cols }}_q, SUM(_copies) AS _rows
  FROM run_pairs
  GROUP BY {{ g_cols }}_q
),
per_group AS (
  SELECT
    {%- for g in groups %}
    rq.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    SUM(rq._rows) AS _run_rows,
    COUNT(*) AS _run_queries,
    SUM(CASE WHEN COALESCE(jq._judgments, 0) = 0 THEN 1 ELSE 0 END) AS _without_judgments
  FROM run_queries AS rq
  LEFT JOIN judged_queries AS jq
    ON jq._q = rq._q{% for g in shared %} AND jq.{{ g.alias }} = rq.{{ g.alias }}{% endfor %}
  {%- if groups %}
  GROUP BY {% for g in groups %}rq.{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
),
{%- if groups and p.get('bucket') %}
every_group AS (
  {#- Partitions: every group of the run has a row in every bucket's account (its judged side counts there too),
      so the buckets' accounts add up to the whole. #}
  SELECT
    {%- for g in groups %}
    ag.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    COALESCE(pg._run_rows, 0) AS _run_rows,
    COALESCE(pg._run_queries, 0) AS _run_queries,
    COALESCE(pg._without_judgments, 0) AS _without_judgments
  FROM ({{ sqlndcg.run_groups(p) }}) AS ag
  LEFT JOIN per_group AS pg
    ON {% for g in groups %}pg.{{ g.alias }} IS NOT DISTINCT FROM ag.{{ g.alias }}{% if not loop.last %} AND {% endif %}{% endfor %}
),
{%- endif %}
judged_totals AS (
  SELECT {{ s_cols }}COUNT(*) AS _judged_queries, SUM(_judgments) AS _judgments_all
  FROM judged_queries
  {%- if shared %}
  GROUP BY {% for g in shared %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
)
SELECT
  {%- for g in groups %}
  pg.{{ g.alias }} AS {{ g.output }},
  {%- endfor %}
  CAST(pg._run_rows AS {{ int }}) AS run_rows,
  CAST(pg._run_queries AS {{ int }}) AS run_queries,
  CAST(pg._without_judgments AS {{ int }}) AS run_queries_without_judgments,
  CAST(COALESCE(jt._judgments_all, 0) AS {{ int }}) AS judgments,
  CAST(COALESCE(jt._judged_queries, 0) AS {{ int }}) AS judged_queries,
  CAST(COALESCE(jt._judged_queries, 0) - (pg._run_queries - pg._without_judgments) AS {{ int }}) AS judged_queries_missing_from_run,
  CAST(COALESCE(pt._unjudged, 0) AS {{ int }}) AS retrieved_unjudged,
  {%- if p.queries == 'judged' %}
  CAST(COALESCE(jt._judged_queries, 0) AS {{ int }}) AS scored_queries
  {%- else %}
  CAST(pg._run_queries - pg._without_judgments AS {{ int }}) AS scored_queries
  {%- endif %}
  {%- if duplicates %},
  CAST(COALESCE(dt._run_dupes_all, 0) AS {{ int }}) AS run_duplicate_keys,
  CAST(COALESCE(dt._judgment_dupes_all, 0) AS {{ int }}) AS judgment_duplicate_keys,
  CAST(COALESCE((SELECT MAX(_rows) FROM run_queries), 0) AS {{ int }}) AS run_longest_list
  {%- endif %}
FROM {{ 'every_group' if groups and p.get('bucket') else 'per_group' }} AS pg
{%- if shared %}
LEFT JOIN judged_totals AS jt ON {% for g in shared %}jt.{{ g.alias }} = pg.{{ g.alias }}{% if not loop.last %} AND {% endif %}{% endfor %}
{%- else %}
CROSS JOIN judged_totals AS jt
{%- endif %}
{%- if groups %}
LEFT JOIN pair_totals AS pt ON {% for g in groups %}pt.{{ g.alias }} = pg.{{ g.alias }}{% if not loop.last %} AND {% endif %}{% endfor %}
{%- else %}
CROSS JOIN pair_totals AS pt
{%- endif %}
{%- if duplicates %}
CROSS JOIN duplicate_totals AS dt
{%- endif %}
{%- if groups %}
ORDER BY {% for g in groups %}pg.{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endif %}
{%- endmacro -%}
