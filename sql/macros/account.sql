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
-#}

{%- macro account_sql(p) -%}
{%- set groups = p.groups -%}
{%- set shared = p.groups | selectattr('shared') | list -%}
{%- set g_cols %}{% for g in groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set s_cols %}{% for g in shared %}{{ g.alias }}, {% endfor %}{% endset -%}
WITH run_rows AS (
  {{ sqlndcg.run_rows(p) }}
),
judgment_rows AS (
  {{ sqlndcg.judgment_rows(p) }}
),
judged_documents AS (
  SELECT {{ s_cols }}_q, _d, 1 AS _judged
  FROM judgment_rows
  WHERE _rel >= 0
),
judged_queries AS (
  SELECT {{ s_cols }}_q, COUNT(*) AS _judgments
  FROM judgment_rows
  GROUP BY {{ s_cols }}_q
),
run_queries AS (
  SELECT
    {%- for g in groups %}
    r.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    r._q AS _q,
    COUNT(*) AS _rows,
    SUM(1 - COALESCE(jd._judged, 0)) AS _unjudged
  FROM run_rows AS r
  LEFT JOIN judged_documents AS jd
    ON jd._q = r._q AND jd._d = r._d{% for g in shared %} AND jd.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
  GROUP BY {% for g in groups %}r.{{ g.alias }}, {% endfor %}r._q
),
per_group AS (
  SELECT
    {%- for g in groups %}
    rq.{{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    SUM(rq._rows) AS run_rows,
    COUNT(*) AS run_queries,
    SUM(CASE WHEN COALESCE(jq._judgments, 0) = 0 THEN 1 ELSE 0 END) AS run_queries_without_judgments,
    SUM(rq._unjudged) AS retrieved_unjudged
  FROM run_queries AS rq
  LEFT JOIN judged_queries AS jq
    ON jq._q = rq._q{% for g in shared %} AND jq.{{ g.alias }} = rq.{{ g.alias }}{% endfor %}
  {%- if groups %}
  GROUP BY {% for g in groups %}rq.{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
),
judged_totals AS (
  SELECT {{ s_cols }}COUNT(*) AS judged_queries, SUM(_judgments) AS judgments
  FROM judged_queries
  {%- if shared %}
  GROUP BY {% for g in shared %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
)
{%- set int = sqlndcg.integer_type() %}
SELECT
  {%- for g in groups %}
  pg.{{ g.alias }} AS {{ g.output }},
  {%- endfor %}
  CAST(pg.run_rows AS {{ int }}) AS run_rows,
  CAST(pg.run_queries AS {{ int }}) AS run_queries,
  CAST(pg.run_queries_without_judgments AS {{ int }}) AS run_queries_without_judgments,
  CAST(COALESCE(jt.judgments, 0) AS {{ int }}) AS judgments,
  CAST(COALESCE(jt.judged_queries, 0) AS {{ int }}) AS judged_queries,
  CAST(COALESCE(jt.judged_queries, 0) - (pg.run_queries - pg.run_queries_without_judgments) AS {{ int }}) AS judged_queries_missing_from_run,
  CAST(pg.retrieved_unjudged AS {{ int }}) AS retrieved_unjudged,
  {%- if p.queries == 'judged' %}
  CAST(COALESCE(jt.judged_queries, 0) AS {{ int }}) AS scored_queries
  {%- else %}
  CAST(pg.run_queries - pg.run_queries_without_judgments AS {{ int }}) AS scored_queries
  {%- endif %}
FROM per_group AS pg
{%- if shared %}
LEFT JOIN judged_totals AS jt ON {% for g in shared %}jt.{{ g.alias }} = pg.{{ g.alias }}{% if not loop.last %} AND {% endif %}{% endfor %}
{%- else %}
CROSS JOIN judged_totals AS jt
{%- endif %}
{%- if groups %}
ORDER BY {% for g in groups %}pg.{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endif %}
{%- endmacro -%}
