{#-
  An account of every row, per group: what went into the numbers and what was left out, so a user sees what
  they rest on. Counts:
    run_rows, run_queries            rows and distinct queries of this group's run
    run_queries_without_judgments    run queries no judgment mentions: never scored
    judgments, judged_queries        judgment rows and distinct judged queries (for this group, when the
                                     judgments are partitioned by a group column)
    judged_queries_missing_from_run  judged queries the run did not answer: scored 0 under queries="judged"
    retrieved_unjudged               retrieved documents without a judgment (rel >= 0): gain 0; in the input
                                     checks' pass, within each list's top p.checked_within when the plan sets it
    scored_queries                   the queries the summary averages over
  With duplicates=true, three more: run_duplicate_keys and judgment_duplicate_keys, the (query, document) pairs
  that occur more than once (summed over every group, on every row; the run's within each list's top
  p.checked_within, ranked as per_query.sql ranks it, when the plan sets it: below it they change no number), and
  run_longest_list, the most rows any
  query of any group has. Python's input checks read them, so the account and the duplicate check share one
  pass over each input; the longest list tells the per-query statement whether cutting lists to their top k can
  drop anything (per_query.sql).

  What it costs: one GROUP BY per input on its (group, query) key, small next to the inputs; retrieved_unjudged
  is an anti-join of the run against the judged pairs (a hash table of the judgments, probed by every run row). The
  repeated pairs (duplicates=true) are the one per-pair pass over each input: a window over each query's rows
  sorted by document puts the copies of a pair side by side (cheaper than hashing every pair: the sort is within
  each query, and its rows are counted on the way). Where the plan carries top_table (run_top.sql), the run side
  reads that table, the ranked top the per-query statement reads too, instead of ranking the run again.
-#}

{#- `bucket` ({index, count}): one pass of partitions, only its queries' rows (per_query.sql). `unique`: the inputs
    ('run', 'judgments') whose keys a constraint the engine enforces makes unique: their repeated pairs are 0,
    without the window. -#}
{%- macro _account_sql(p, duplicates=false, bucket=none, unique=[]) -%}
{%- set groups = p.groups -%}
{%- set shared = p.groups | selectattr('shared') | list -%}
{%- set g_cols %}{% for g in groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set s_cols %}{% for g in shared %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set only = groups | rejectattr('shared') | list -%}
{%- set a = {'groups': groups, 'shared': shared, 'only': only, 'g_cols': g_cols, 's_cols': s_cols,
             'within': p.get('checked_within'), 'top': p.get('top_table'), 'duplicates': duplicates,
             'bucket': bucket, 'unique': unique, 'gridded': groups and (shared or bucket)} %}
WITH
{{- sqlndcg._account_inputs(p, a) }}
{{ sqlndcg._account_counts(p, a) }}
{{ sqlndcg._account_totals(p, a) }}
{{ sqlndcg._account_select(p, a) }}
{%- endmacro -%}


{#- The account's inputs: each input's rows, the run's ranked top the checks count within, and (duplicates) the
    second copies of repeated pairs marked by a window. -#}
{%- macro _account_inputs(p, a) -%}
{%- set groups, shared, g_cols, s_cols = a.groups, a.shared, a.g_cols, a.s_cols -%}
{%- set within, top, duplicates, bucket, unique = a.within, a.top, a.duplicates, a.bucket, a.unique -%}
{%- set first = sqlndcg.nulls('FIRST') -%}
{%- if not top %} run_rows AS{{ sqlndcg._input_cte(p, 'run', bucket) }} (
  {{ sqlndcg._run_rows(p, bucket) }}
),
{%- endif %}
judgment_rows AS{{ sqlndcg._input_cte(p, 'judgments', bucket) }} (
  {{ sqlndcg._judgment_rows(p, bucket) }}
),
{%- if within %}
run_top AS (
  {#- Each list's top `within` rows, ranked as the per-query statement ranks them: the rows the checks count. #}
  {%- if top %}
  SELECT {{ g_cols }}_q, _d FROM {{ top }}
  {%- elif sqlndcg.top_n(p) == 'aggregate' %}
  SELECT {{ g_cols }}_q, unnest(_docs) AS _d
  FROM (SELECT {{ g_cols }}_q, {{ sqlndcg._top_documents(p, within) }} AS _docs FROM run_rows GROUP BY {{ g_cols }}_q) AS tops
  {%- else %}
  SELECT {{ g_cols }}_q, _d
  FROM (
    SELECT {{ g_cols }}_q, _d, ROW_NUMBER() OVER (PARTITION BY {{ g_cols }}_q ORDER BY {{ sqlndcg._rank_order('_key', sqlndcg._tie_doc(p), sqlndcg._descending(p)) }}) AS _pos
    FROM run_rows
  ) AS ranked
  WHERE _pos <= {{ within }}
  {%- endif %}
),
{%- endif %}
{%- if duplicates %}
{#- The second copy of a repeated pair is marked: its document equals the one before it and not the one two before. #}
run_marked AS (
  SELECT {{ g_cols }}_q, {{ '0' if 'run' in unique else sqlndcg._second_copy('_d', 'PARTITION BY ' ~ g_cols ~ '_q ORDER BY _d' ~ first) }} AS _repeated
  FROM {{ 'run_top' if within else 'run_rows' }}
),
judgment_marked AS (
  SELECT {{ s_cols }}_q, {{ '0' if 'judgments' in unique else sqlndcg._second_copy('_d', 'PARTITION BY ' ~ s_cols ~ '_q ORDER BY _d' ~ first) }} AS _repeated
  FROM judgment_rows
),
{%- endif %}
{%- endmacro -%}


{#- Counts per (group, query) of each input, the unjudged retrieved documents, and the run's counts per group. -#}
{%- macro _account_counts(p, a) -%}
{%- set groups, shared, g_cols, s_cols = a.groups, a.shared, a.g_cols, a.s_cols -%}
{%- set within, top, duplicates, bucket, unique = a.within, a.top, a.duplicates, a.bucket, a.unique -%}
run_queries AS (
  {%- if top %}
  SELECT {{ g_cols }}_q, _rows FROM {{ top }} WHERE _pos = 1
  {%- else %}
  SELECT {{ g_cols }}_q, COUNT(*) AS _rows{% if duplicates and not within %}, SUM(_repeated) AS _repeated{% endif %}
  FROM {{ 'run_marked' if duplicates and not within else 'run_rows' }}
  GROUP BY {{ g_cols }}_q
  {%- endif %}
),
judged_queries AS (
  SELECT {{ s_cols }}_q, COUNT(*) AS _judgments{% if duplicates %}, SUM(_repeated) AS _repeated{% endif %}
  FROM {{ 'judgment_marked' if duplicates else 'judgment_rows' }}
  GROUP BY {{ s_cols }}_q
),
pair_totals AS (
  {#- Retrieved documents no judgment with rel >= 0 covers; every copy of a repeated run pair counts. #}
  {%- set same_pair %}j._q = r._q AND j._d = r._d{% for g in shared %} AND j.{{ g.alias }} = r.{{ g.alias }}{% endfor %}{% endset %}
  SELECT {% for g in groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}COUNT(*) AS _unjudged
  FROM {{ sqlndcg.unmatched_rows('run_top' if within else 'run_rows', 'r', '(SELECT * FROM judgment_rows WHERE _rel >= 0)', 'j', same_pair) }}
  {%- if groups %}
  GROUP BY {% for g in groups %}r.{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
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
{%- endmacro -%}


{#- Every group's row (the grid of shared and run-only group values), the repeated pairs and the judged totals. -#}
{%- macro _account_totals(p, a) -%}
{%- set groups, shared, g_cols, s_cols = a.groups, a.shared, a.g_cols, a.s_cols -%}
{%- set within, top, duplicates, bucket, unique = a.within, a.top, a.duplicates, a.bucket, a.unique -%}
{%- set only, gridded = a.only, a.gridded -%}
{%- if gridded %}
every_group AS (
  {#- A judged group the run lacks is never absent: every judged value of the shared group columns (a day), for
      every value of the run-only ones in the run (each system), has a row, with run_rows 0 and its judged queries
      missing from the run when the run has none there (a system absent on a day, a day no system ran).
      Partitions: every group of the whole run has a row in every bucket too, so the buckets' accounts add up to
      the whole. Rows of zeros are added and summed per group, so groups match as GROUP BY matches them. #}
  SELECT
    {%- for g in groups %}
    {{ g.alias }} AS {{ g.alias }},
    {%- endfor %}
    SUM(_run_rows) AS _run_rows,
    SUM(_run_queries) AS _run_queries,
    SUM(_without_judgments) AS _without_judgments
  FROM (
    SELECT {{ g_cols }}_run_rows, _run_queries, _without_judgments
    FROM per_group
    {%- if shared %}
    UNION ALL
    SELECT {% for g in groups %}{{ 'jg' if g.shared else 'og' }}.{{ g.alias }} AS {{ g.alias }}, {% endfor %}0 AS _run_rows, 0 AS _run_queries, 0 AS _without_judgments
    FROM (SELECT DISTINCT {% for g in shared %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %} FROM judged_queries) AS jg
    {%- if only %}
    CROSS JOIN ({% if bucket %}{{ sqlndcg._run_groups(p, only) }}{% else %}SELECT DISTINCT {% for g in only %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %} FROM run_queries{% endif %}) AS og
    {%- endif %}
    {%- endif %}
    {%- if bucket %}
    UNION ALL
    SELECT {% for g in groups %}ag.{{ g.alias }} AS {{ g.alias }}, {% endfor %}0 AS _run_rows, 0 AS _run_queries, 0 AS _without_judgments
    FROM ({{ sqlndcg._run_groups(p) }}) AS ag
    {%- endif %}
  ) AS grid
  GROUP BY {% for g in groups %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
),
{%- endif %}
{%- if duplicates %}
duplicate_totals AS (
  SELECT
    (SELECT SUM(_repeated) FROM {{ 'run_marked' if within else 'run_queries' }}) AS _run_dupes_all,
    (SELECT SUM(_repeated) FROM judged_queries) AS _judgment_dupes_all,
    (SELECT MAX(_rows) FROM run_queries) AS _longest
),
{%- endif %}
judged_totals AS (
  SELECT {{ s_cols }}COUNT(*) AS _judged_queries, SUM(_judgments) AS _judgments_all
  FROM judged_queries
  {%- if shared %}
  GROUP BY {% for g in shared %}{{ g.alias }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
)
{%- endmacro -%}


{#- The account's columns per group, in the order _account_columns gives. -#}
{%- macro _account_select(p, a) -%}
{%- set groups, shared, g_cols, s_cols = a.groups, a.shared, a.g_cols, a.s_cols -%}
{%- set within, top, duplicates, bucket, unique = a.within, a.top, a.duplicates, a.bucket, a.unique -%}
{%- set int = sqlndcg.integer_type() -%}
{%- set gridded = a.gridded -%}
SELECT
  {%- for g in groups %}
  pg.{{ g.alias }} AS {{ g.output }},
  {%- endfor %}
  {#- COALESCE: an empty run without groups has one row of NULL sums. #}
  CAST(COALESCE(pg._run_rows, 0) AS {{ int }}) AS run_rows,
  CAST(pg._run_queries AS {{ int }}) AS run_queries,
  CAST(COALESCE(pg._without_judgments, 0) AS {{ int }}) AS run_queries_without_judgments,
  CAST(COALESCE(jt._judgments_all, 0) AS {{ int }}) AS judgments,
  CAST(COALESCE(jt._judged_queries, 0) AS {{ int }}) AS judged_queries,
  CAST(COALESCE(jt._judged_queries, 0) - (pg._run_queries - COALESCE(pg._without_judgments, 0)) AS {{ int }}) AS judged_queries_missing_from_run,
  CAST(COALESCE(pt._unjudged, 0) AS {{ int }}) AS retrieved_unjudged,
  {%- if p.queries == 'judged' %}
  CAST(COALESCE(jt._judged_queries, 0) AS {{ int }}) AS scored_queries
  {%- else %}
  CAST(pg._run_queries - COALESCE(pg._without_judgments, 0) AS {{ int }}) AS scored_queries
  {%- endif %}
  {%- if duplicates %},
  CAST(COALESCE(dt._run_dupes_all, 0) AS {{ int }}) AS run_duplicate_keys,
  CAST(COALESCE(dt._judgment_dupes_all, 0) AS {{ int }}) AS judgment_duplicate_keys,
  CAST(COALESCE(dt._longest, 0) AS {{ int }}) AS run_longest_list
  {%- endif %}
FROM {{ 'every_group' if gridded else 'per_group' }} AS pg
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


{#- 1 on the second copy of a repeated value in a window sorted by it (equal to the row before, not to the one two
    before), else 0: summed, the number of values that occur more than once. -#}
{%- macro _second_copy(column, window) -%}
CASE WHEN {{ column }} = LAG({{ column }}) OVER ({{ window }})
      AND ({{ column }} <> LAG({{ column }}, 2) OVER ({{ window }}) OR LAG({{ column }}, 2) OVER ({{ window }}) IS NULL)
     THEN 1 ELSE 0 END
{%- endmacro -%}
