{#-
  Team-draft interleaving (Radlinski, Kurup & Joachims, CIKM 2008) of two runs, A and B (evaluate's run format:
  query_id, doc_id, score; each ranked as evaluate ranks it: score descending, equal scores by doc id descending).
  One interleaved list per query, or per impression of an impressions table (impression_id, query_id):

    {{ sqlndcg.interleave(run_a=ref('ranker_a'), run_b=ref('ranker_b'), k=10, seed=0) }}

  The algorithm, round r = 1, 2, ...: a coin decides which team picks first; each team in turn appends its run's
  highest-ranked document not yet in the list, labelled with its team. The list ends at k documents, or as soon as
  either run has no document left that is not in the list (the paper's loop condition), so in every prefix the
  teams' sizes differ by at most one. Coin: team A picks first in round r when the MD5 of the text
  "<seed>:<id>:<r>" (id: the impression id, or the query id; integers in decimal), as 32 hex digits, begins with
  0-7 (its first bit is 0). A serving system reproduces the lists from the same text.

  In SQL, the rounds are unrolled (k steps, k at most 100): every engine runs it, WITH RECURSIVE is not needed (Spark
  has none). The state of a list after a step is two numbers, ia and ib: the deepest rank of A and of B that its
  team has taken. The list holds exactly A[1..ia] and B[1..ib] (a team takes its run's first document not yet
  listed, so every document above it is listed), so A's next pick is the first A[i], i > ia, whose rank in B is
  above ib (or which B lacks): one aggregate per step over the list's documents, the top k of each run.
-#}

{%- macro _interleave_declared() -%}
{{ return({'k': 10, 'seed': 0, 'query_id': 'query_id', 'doc_id': 'doc_id', 'score': 'score',
           'impression_id': 'impression_id'}) }}
{%- endmacro -%}

{#- run_a, run_b (and impressions), described as {sql, label, columns}, and the settings -> the plan. -#}
{%- macro _interleave_plan(run_a, run_b, impressions, given) -%}
{%- set s = sqlndcg._judgment_settings('interleave', sqlndcg._interleave_declared(), given) -%}
{%- if s.k is not integer or s.k is boolean or s.k < 1 or s.k > 100 -%}
  {{ sqlndcg._fail('setting', 'interleave: k must be a whole number from 1 to 100 (the length of an interleaved list), got ' ~ sqlndcg._show(s.k)) }}
{%- endif -%}
{%- if s.seed is not integer or s.seed is boolean or s.seed < 0 -%}
  {{ sqlndcg._fail('setting', 'interleave: seed must be a whole number 0 or more, got ' ~ sqlndcg._show(s.seed)) }}
{%- endif -%}
{%- for key in ['query_id', 'doc_id', 'score', 'impression_id'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set needed = [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'), ('score', s.score, 'score')] -%}
{%- set query_inputs, doc_inputs, runs = [], [], [] -%}
{%- for run in [run_a, run_b] -%}
  {{ sqlndcg._judgment_require_columns(run, needed) }}
  {{ sqlndcg._judgment_require_types(run, [s.score], [s.query_id, s.doc_id]) }}
  {%- do query_inputs.append((run, s.query_id)) -%}{%- do doc_inputs.append((run, s.doc_id)) -%}
{%- endfor -%}
{%- if impressions is not none -%}
  {{ sqlndcg._judgment_require_columns(impressions, [('impression id', s.impression_id, 'impression_id'), ('query id', s.query_id, 'query_id')]) }}
  {{ sqlndcg._judgment_require_types(impressions, [], [s.impression_id, s.query_id]) }}
  {%- do query_inputs.append((impressions, s.query_id)) -%}
{%- endif -%}
{%- set as_text = sqlndcg._judgment_ids_as_text(doc_inputs) -%}
{%- for run in [run_a, run_b] -%}
  {%- set integer_docs = sqlndcg._column_of(run.columns, s.doc_id).class == 'integer' -%}
  {%- do runs.append({'sql': run.sql, 'tie': sqlndcg._tie_doc({'doc_ids_as_text': as_text, 'run_doc_ids_integer': integer_docs})}) -%}
{%- endfor -%}
{%- set run_checks = [] -%}
{%- for name in [s.query_id, s.doc_id, s.score] -%}{%- do run_checks.append(sqlndcg._judgment_check('null', name, 'is NULL')) -%}{%- endfor -%}
{%- set columns = {'query_id': s.query_id, 'doc_id': s.doc_id, 'score': s.score} -%}
{%- if impressions is not none -%}{%- do columns.update({'impression_id': s.impression_id}) -%}{%- endif -%}
{%- set impression_checks = [] -%}
{%- for name in [s.impression_id, s.query_id] -%}{%- do impression_checks.append(sqlndcg._judgment_check('null', name, 'is NULL')) -%}{%- endfor -%}
{{ return({
  'runs': runs,
  'impressions': none if impressions is none else impressions.sql,
  'k': s.k,
  'seed': s.seed,
  'query_id': sqlndcg._quote(s.query_id),
  'doc_id': sqlndcg._quote(s.doc_id),
  'score': sqlndcg._quote(s.score),
  'impression_id': sqlndcg._quote(s.impression_id),
  'query_ids_as_text': sqlndcg._judgment_ids_as_text(query_inputs),
  'doc_ids_as_text': as_text,
  'run_checks': run_checks,
  'run_identity': [s.query_id, s.doc_id],
  'impression_checks': impression_checks,
  'impression_identity': [s.impression_id, s.query_id],
  'settings': {'k': s.k, 'seed': s.seed, 'impressions': impressions is not none, 'columns': columns},
}) }}
{%- endmacro -%}

{#- Both runs' top k ranked (_a = 1 for run A, 0 for B; _r the rank), and each document of a query with its rank in
    A and in B (0 where a run's top k lacks it). -#}
{%- macro _interleave_ranked(p) -%}
{%- set i = sqlndcg.integer_type() -%}
_ranked AS (
  {%- for run in p.runs %}
  SELECT _q, _d, CAST({{ loop.first | int }} AS {{ i }}) AS _a, CAST(_r AS {{ i }}) AS _r FROM (
    SELECT _q, _d, ROW_NUMBER() OVER (PARTITION BY _q ORDER BY {{ sqlndcg._rank_order('_key', run.tie, true) }}) AS _r
    FROM (
      SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ p.score }} AS _key
      FROM {{ run.sql }} AS run_input
    ) AS run_rows
  ) AS run_ranked
  WHERE _r <= {{ p.k }}
  {%- if loop.first %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
),
_docs AS (
  SELECT _q, _d, MAX(_a * _r) AS _ra, MAX((1 - _a) * _r) AS _rb
  FROM _ranked
  GROUP BY _q, _d
),
{%- endmacro -%}

{#- The lists to interleave: _q, _i (the impression id; 0 per query) and _id, the id's text the coins hash. Without
    impressions, every query of either run. -#}
{%- macro _interleave_lists(p) -%}
{%- set t = sqlndcg.text_type() -%}
_lists AS (
  {%- if p.impressions %}
  SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, {{ p.impression_id }} AS _i, CAST({{ p.impression_id }} AS {{ t }}) AS _id
  FROM {{ p.impressions }} AS impression_input
  {%- else %}
  SELECT DISTINCT _q, 0 AS _i, CAST(_q AS {{ t }}) AS _id FROM _docs AS query_input
  {%- endif %}
),
{%- endmacro -%}

{#- 1 when team A picks first in round `round` (an expression): MD5("<seed>:<id>:<round>") begins with 0-7. -#}
{%- macro _interleave_coin(p, round) -%}
{%- set text = sqlndcg.concat_text(sqlndcg.concat_text("'" ~ p.seed ~ ":'", '_id'), sqlndcg.concat_text("':'", 'CAST(' ~ round ~ ' AS ' ~ sqlndcg.text_type() ~ ')')) -%}
{{ return('(CASE WHEN ' ~ sqlndcg.md5_hex(text) ~ " < '8' THEN 1 ELSE 0 END)") }}
{%- endmacro -%}

{#- Step t: from the state after step t - 1 (_ia, _ib: the deepest ranks of A and B listed), each team's next
    candidate (_na, _nb; k + 1: none left); when both have one, the team whose turn it is (round (t + 1) / 2's
    coin's team at odd steps, the other at even ones) takes its own. _path<t> appends the rank taken plus 100 (0:
    the list has ended) as three digits, so the state keeps one width whatever k. -#}
{%- macro _interleave_step(p, t) -%}
{%- set u = t - 1 -%}
{%- set both = '_na <= ' ~ p.k ~ ' AND _nb <= ' ~ p.k -%}
{%- set a_picks = '_coin = ' ~ (t % 2) -%}
_s{{ t }} AS (
  SELECT _q, _i, _id,
    {{ sqlndcg.concat_text('_path' ~ u, 'CAST(100 + (CASE WHEN ' ~ both ~ ' THEN (CASE WHEN ' ~ a_picks ~ ' THEN _na ELSE _nb END) ELSE 0 END) AS ' ~ sqlndcg.text_type() ~ ')') }} AS _path{{ t }},
    CASE WHEN {{ both }} AND {{ a_picks }} THEN _na ELSE _ia{{ u }} END AS _ia{{ t }},
    CASE WHEN {{ both }} AND NOT ({{ a_picks }}) THEN _nb ELSE _ib{{ u }} END AS _ib{{ t }}
  FROM (
    SELECT s._q AS _q, s._i AS _i, s._id AS _id, s._path{{ u }} AS _path{{ u }}, s._ia{{ u }} AS _ia{{ u }}, s._ib{{ u }} AS _ib{{ u }},
      {{ sqlndcg._interleave_coin(p, (t + 1) // 2) }} AS _coin,
      MIN(CASE WHEN d._ra > s._ia{{ u }} AND (d._rb = 0 OR d._rb > s._ib{{ u }}) THEN d._ra ELSE {{ p.k + 1 }} END) AS _na,
      MIN(CASE WHEN d._rb > s._ib{{ u }} AND (d._ra = 0 OR d._ra > s._ia{{ u }}) THEN d._rb ELSE {{ p.k + 1 }} END) AS _nb
    FROM _s{{ u }} AS s
    JOIN _docs AS d ON d._q = s._q
    GROUP BY s._q, s._i, s._id, s._path{{ u }}, s._ia{{ u }}, s._ib{{ u }}
  ) AS step_{{ t }}
),
{%- endmacro -%}

{#- The plan -> one SELECT of the interleaved lists: query_id, [impression_id,] position, doc_id, team. The path's
    three digits of each step become rows by one cross join with the steps 1..k (_odd: the round's first pick). -#}
{%- macro _interleave_sql(p) -%}
{%- set i = sqlndcg.integer_type() -%}
WITH {{ sqlndcg._interleave_ranked(p) }}
{{ sqlndcg._interleave_lists(p) }}
_s0 AS (
  SELECT _q, _i, _id, {{ sqlndcg.text_literal('') }} AS _path0, CAST(0 AS {{ i }}) AS _ia0, CAST(0 AS {{ i }}) AS _ib0 FROM _lists
),
{%- for t in range(1, p.k + 1) %}
{{ sqlndcg._interleave_step(p, t) }}
{%- endfor %}
_steps AS (
  {%- for t in range(1, p.k + 1) %}
  SELECT {{ t }} AS _step, {{ (t + 1) // 2 }} AS _round, {{ t % 2 }} AS _odd{% if not loop.last %} UNION ALL{% endif %}
  {%- endfor %}
),
_picks AS (
  SELECT s._q AS _q, s._i AS _i, st._step AS _step,
    CAST(SUBSTR(s._path{{ p.k }}, 3 * st._step - 2, 3) AS {{ i }}) - 100 AS _p,
    CASE WHEN {{ sqlndcg._interleave_coin(p, 'st._round') }} = 1 THEN st._odd ELSE 1 - st._odd END AS _from_a
  FROM _s{{ p.k }} AS s
  CROSS JOIN _steps AS st
)
SELECT
  pk._q AS {{ p.query_id }},
  {%- if p.impressions %}
  pk._i AS {{ p.impression_id }},
  {%- endif %}
  pk._step AS {{ sqlndcg._quote('position') }},
  r._d AS {{ p.doc_id }},
  CASE WHEN pk._from_a = 1 THEN {{ sqlndcg.text_literal('a') }} ELSE {{ sqlndcg.text_literal('b') }} END AS {{ sqlndcg._quote('team') }}
FROM _picks AS pk
JOIN _ranked AS r ON r._q = pk._q AND r._a = pk._from_a AND r._r = pk._p
WHERE pk._p > 0
ORDER BY pk._q, {% if p.impressions %}pk._i, {% endif %}pk._step
{%- endmacro -%}

{#- Queries a list cannot be built for: in one run only (an interleaved list needs both), per run; with
    impressions, how many there are and how many of them get no list (their query is not in both runs). A UNION
    and a GROUP BY rather than an outer join, whose unmatched columns some engines fill with 0 or ''. -#}
{%- macro _interleave_account_sql(p) -%}
WITH {{ sqlndcg._interleave_ranked(p) }}
_per_query AS (
  SELECT _q, MAX(_a) AS _in_a, MAX(1 - _a) AS _in_b FROM _ranked GROUP BY _q
),
_queries AS (
  SELECT COUNT(*) AS _n,
    SUM(CASE WHEN _in_b = 0 THEN 1 ELSE 0 END) AS _only_a,
    SUM(CASE WHEN _in_a = 0 THEN 1 ELSE 0 END) AS _only_b
  FROM _per_query
)
{%- if p.impressions %},
_marks AS (
  SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, 1 AS _shown, 0 AS _listed FROM {{ p.impressions }} AS impression_input
  UNION ALL
  SELECT _q, 0 AS _shown, 1 AS _listed FROM _per_query WHERE _in_a = 1 AND _in_b = 1
),
_per_shown_query AS (
  SELECT _q, SUM(_shown) AS _shown_n, MAX(_listed) AS _listed_q FROM _marks GROUP BY _q
),
_shown_counts AS (
  SELECT SUM(_shown_n) AS _impressions, SUM(CASE WHEN _listed_q = 0 THEN _shown_n ELSE 0 END) AS _without
  FROM _per_shown_query
)
{%- endif %}
SELECT q._n AS {{ sqlndcg._quote('queries') }}, q._only_a AS {{ sqlndcg._quote('only_in_run_a') }}, q._only_b AS {{ sqlndcg._quote('only_in_run_b') }}
  {%- if p.impressions %},
  CAST(i._impressions AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('impressions') }},
  CAST(i._without AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('impressions_without_list') }}
  {%- endif %}
FROM _queries AS q
{%- if p.impressions %}
CROSS JOIN _shown_counts AS i
{%- endif %}
{%- endmacro -%}

{#- dbt entry point. -#}
{%- macro interleave(run_a=none, run_b=none, impressions=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set shown = none if impressions is none else sqlndcg._input_relation('impressions', impressions) -%}
{{ return(sqlndcg._interleave_sql(sqlndcg._interleave_plan(sqlndcg._input_relation('run_a', run_a), sqlndcg._input_relation('run_b', run_b), shown, kwargs))) }}
{%- endmacro -%}
