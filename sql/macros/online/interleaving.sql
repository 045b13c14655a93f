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

{#- The runs (a list of inputs described as {sql, label, columns}), their teams' names (a and b for interleave;
    the runs' names for multileave), the impressions (or none) and the settings -> the plan. -#}
{%- macro _interleave_plan(runs_in, teams, impressions, given) -%}
{%- set s = sqlndcg._judgment_settings('interleave', sqlndcg._interleave_declared(), given) -%}
{%- if teams is string or teams is not sequence or (teams | length) < 2 or (teams | length) > 9 or (teams | length) != (runs_in | length) or (teams | unique | list | length) != (teams | length) -%}
  {{ sqlndcg._fail('setting', 'multileave: give 2 to 9 runs with distinct names, got ' ~ sqlndcg._show(teams)) }}
{%- endif -%}
{%- for team in teams if team is not string or team == '' -%}
  {{ sqlndcg._fail('setting', 'multileave: run names must be non-empty text, got ' ~ sqlndcg._show(team)) }}
{%- endfor -%}
{%- if s.k is not integer or s.k is boolean or s.k < 1 or s.k > 100 -%}
  {{ sqlndcg._fail('setting', 'interleave: k must be a whole number from 1 to 100 (the length of an interleaved list), got ' ~ sqlndcg._show(s.k)) }}
{%- endif -%}
{%- if s.seed is not integer or s.seed is boolean or s.seed < 0 -%}
  {{ sqlndcg._fail('setting', 'interleave: seed must be a whole number 0 or more, got ' ~ sqlndcg._show(s.seed)) }}
{%- endif -%}
{%- for key in ['query_id', 'doc_id', 'score', 'impression_id'] -%}{%- do sqlndcg._column_name(key, s[key]) -%}{%- endfor -%}
{%- set needed = [('query id', s.query_id, 'query_id'), ('document id', s.doc_id, 'doc_id'), ('score', s.score, 'score')] -%}
{%- set query_inputs, doc_inputs, runs = [], [], [] -%}
{%- for run in runs_in -%}
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
{%- for run in runs_in -%}
  {%- set integer_docs = sqlndcg._column_of(run.columns, s.doc_id).class == 'integer' -%}
  {%- do runs.append({'sql': run.sql, 'team': teams[loop.index0], 'tie': sqlndcg._tie_doc({'doc_ids_as_text': as_text, 'run_doc_ids_integer': integer_docs})}) -%}
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
  'settings': {'k': s.k, 'seed': s.seed, 'impressions': impressions is not none, 'columns': columns}
              if (teams | length) == 2 and teams[0] == 'a' and teams[1] == 'b' else
              {'runs': teams | list, 'k': s.k, 'seed': s.seed, 'impressions': impressions is not none, 'columns': columns},
}) }}
{%- endmacro -%}

{#- Each run's top k ranked (_a: the run's number, from 1; _r the rank), and each document of a query with its rank
    in every run (_r1, _r2, ...; 0 where a run's top k lacks it). -#}
{%- macro _interleave_ranked(p) -%}
{%- set i = sqlndcg.integer_type() -%}
_ranked AS (
  {%- for run in p.runs %}
  SELECT _q, _d, CAST({{ loop.index }} AS {{ i }}) AS _a, CAST(_r AS {{ i }}) AS _r FROM (
    SELECT _q, _d, ROW_NUMBER() OVER (PARTITION BY _q ORDER BY {{ sqlndcg._rank_order('_key', run.tie, true) }}) AS _r
    FROM (
      SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, {{ sqlndcg._id(p.doc_id, p.doc_ids_as_text) }} AS _d, {{ p.score }} AS _key
      FROM {{ run.sql }} AS run_input
    ) AS run_rows
  ) AS run_ranked
  WHERE _r <= {{ p.k }}
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
),
_docs AS (
  SELECT _q, _d{% for run in p.runs %}, MAX(CASE WHEN _a = {{ loop.index }} THEN _r ELSE 0 END) AS _r{{ loop.index }}{% endfor %}
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

{#- The hash of round `round` (an expression) of a list: MD5("<seed>:<id>:<round>"), or with `team` (a run's
    number, for multileaving) MD5("<seed>:<id>:<round>:<team>"), as 32 hex digits. -#}
{%- macro _interleave_hash(p, round, team=none) -%}
{%- set text = sqlndcg.concat_text(sqlndcg.concat_text("'" ~ p.seed ~ ":'", '_id'), sqlndcg.concat_text("':'", 'CAST(' ~ round ~ ' AS ' ~ sqlndcg.text_type() ~ ')')) -%}
{{ return(sqlndcg.md5_hex(text if team is none else sqlndcg.concat_text(text, "':" ~ team ~ "'"))) }}
{%- endmacro -%}

{#- The run whose turn it is at step t, from the hashes of the step's round (_h, or _h1.._hm). Two runs: the first
    picks first in round r when its hash begins with 0-7 (its first bit is 0), then the other. More runs (team-draft
    multileaving, Schuth et al., CIKM 2014): the runs pick in the order of their hashes, then of their numbers. -#}
{%- macro _interleave_turn(p, t) -%}
{%- set m = p.runs | length -%}
{%- set slot = (t - 1) % m -%}
{%- if m == 2 -%}
{{ return("CASE WHEN _h < '8' THEN " ~ ('1 ELSE 2' if slot == 0 else '2 ELSE 1') ~ ' END') }}
{%- endif -%}
{%- set cases = [] -%}
{%- for j in range(1, m + 1) -%}
  {%- set ahead = [] -%}
  {%- for l in range(1, m + 1) if l != j -%}
    {%- do ahead.append('CASE WHEN _h' ~ l ~ (' <= ' if l < j else ' < ') ~ '_h' ~ j ~ ' THEN 1 ELSE 0 END') -%}
  {%- endfor -%}
  {%- do cases.append('WHEN ' ~ (ahead | join(' + ')) ~ ' = ' ~ slot ~ ' THEN ' ~ j) -%}
{%- endfor -%}
{{ return('CASE ' ~ (cases | join(' ')) ~ ' END') }}
{%- endmacro -%}

{#- Step t: from the state after step t - 1 (_x<j>: the deepest rank of run j listed), each run's next candidate
    (_n<j>: its first document below _x<j> that no run has listed; k + 1: none left); when every run has one, the
    run whose turn it is takes its own. _path<t> appends the run's number and its rank taken plus 100 (0: the list
    has ended) as four digits, so the state keeps one width whatever k. -#}
{%- macro _interleave_step(p, t) -%}
{%- set u, m = t - 1, p.runs | length -%}
{%- set state %}{% for j in range(1, m + 1) %}, s._x{{ j }}_{{ u }} AS _x{{ j }}_{{ u }}{% endfor %}{% endset -%}
{%- set every = [] -%}{%- for j in range(1, m + 1) -%}{%- do every.append('_n' ~ j ~ ' <= ' ~ p.k) -%}{%- endfor -%}
{%- set every = every | join(' AND ') -%}
_s{{ t }} AS (
  SELECT _q, _i, _id,
    {{ sqlndcg.concat_text('_path' ~ u, 'CAST(_who * 1000 + 100 + (CASE WHEN ' ~ every ~ ' THEN (CASE _who' ~ sqlndcg._interleave_whens(m, '_n') ~ ' END) ELSE 0 END) AS ' ~ sqlndcg.text_type() ~ ')') }} AS _path{{ t }}
    {%- for j in range(1, m + 1) %},
    CASE WHEN {{ every }} AND _who = {{ j }} THEN _n{{ j }} ELSE _x{{ j }}_{{ u }} END AS _x{{ j }}_{{ t }}
    {%- endfor %}
  FROM (
    SELECT _q, _i, _id, _path{{ u }}{% for j in range(1, m + 1) %}, _x{{ j }}_{{ u }}, _n{{ j }}{% endfor %}, {{ sqlndcg._interleave_turn(p, t) }} AS _who
    FROM (
      SELECT s._q AS _q, s._i AS _i, s._id AS _id, s._path{{ u }} AS _path{{ u }}{{ state }},
        {%- if m == 2 %}
        {{ sqlndcg._interleave_hash(p, (t + 1) // 2) }} AS _h,
        {%- else %}
        {%- for j in range(1, m + 1) %}
        {{ sqlndcg._interleave_hash(p, (t - 1) // m + 1, j) }} AS _h{{ j }},
        {%- endfor %}
        {%- endif %}
        {%- for j in range(1, m + 1) %}
        MIN(CASE WHEN d._r{{ j }} > s._x{{ j }}_{{ u }}{% for l in range(1, m + 1) if l != j %} AND (d._r{{ l }} = 0 OR d._r{{ l }} > s._x{{ l }}_{{ u }}){% endfor %} THEN d._r{{ j }} ELSE {{ p.k + 1 }} END) AS _n{{ j }}{% if not loop.last %},{% endif %}
        {%- endfor %}
      FROM _s{{ u }} AS s
      JOIN _docs AS d ON d._q = s._q
      GROUP BY s._q, s._i, s._id, s._path{{ u }}{% for j in range(1, m + 1) %}, s._x{{ j }}_{{ u }}{% endfor %}
    ) AS step_{{ t }}
  ) AS turn_{{ t }}
),
{%- endmacro -%}

{#- ` WHEN 1 THEN <prefix>1 WHEN 2 THEN <prefix>2 ...` over m runs. -#}
{%- macro _interleave_whens(m, prefix) -%}
{%- set out = [] -%}{%- for j in range(1, m + 1) -%}{%- do out.append(' WHEN ' ~ j ~ ' THEN ' ~ prefix ~ j) -%}{%- endfor -%}
{{ return(out | join('')) }}
{%- endmacro -%}

{#- The plan -> one SELECT of the interleaved lists: query_id, [impression_id,] position, doc_id, team. The path's
    four digits of each step become rows by one cross join with the steps 1..k. -#}
{%- macro _interleave_sql(p) -%}
{%- set i = sqlndcg.integer_type() -%}
WITH {{ sqlndcg._interleave_ranked(p) }}
{{ sqlndcg._interleave_lists(p) }}
_s0 AS (
  SELECT _q, _i, _id, {{ sqlndcg.text_literal('') }} AS _path0{% for run in p.runs %}, CAST(0 AS {{ i }}) AS _x{{ loop.index }}_0{% endfor %} FROM _lists
),
{%- for t in range(1, p.k + 1) %}
{{ sqlndcg._interleave_step(p, t) }}
{%- endfor %}
_steps AS (
  {%- for t in range(1, p.k + 1) %}
  SELECT {{ t }} AS _step{% if not loop.last %} UNION ALL{% endif %}
  {%- endfor %}
),
_picks AS (
  SELECT s._q AS _q, s._i AS _i, st._step AS _step,
    CAST(SUBSTR(s._path{{ p.k }}, 4 * st._step - 3, 1) AS {{ i }}) AS _who,
    CAST(SUBSTR(s._path{{ p.k }}, 4 * st._step - 2, 3) AS {{ i }}) - 100 AS _p
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
  CASE pk._who{% for run in p.runs %} WHEN {{ loop.index }} THEN {{ sqlndcg.text_literal(run.team) }}{% endfor %} END AS {{ sqlndcg._quote('team') }}
FROM _picks AS pk
JOIN _ranked AS r ON r._q = pk._q AND r._a = pk._who AND r._r = pk._p
WHERE pk._p > 0
ORDER BY pk._q, {% if p.impressions %}pk._i, {% endif %}pk._step
{%- endmacro -%}

{#- Queries a list cannot be built for (an interleaved list needs every run): two runs, those in one run only
    (only_in_run_a, only_in_run_b); more, those each run lacks (not_in_<run>); with impressions, how many there are
    and how many get no list. A UNION and a GROUP BY rather than an outer join, whose unmatched columns some engines
    fill with 0 or ''. -#}
{%- macro _interleave_account_sql(p) -%}
{%- set m = p.runs | length -%}
{%- set pair = m == 2 and p.runs[0].team == 'a' and p.runs[1].team == 'b' -%}
WITH {{ sqlndcg._interleave_ranked(p) }}
_per_query AS (
  SELECT _q{% for run in p.runs %}, MAX(CASE WHEN _a = {{ loop.index }} THEN 1 ELSE 0 END) AS _in{{ loop.index }}{% endfor %}
  FROM _ranked GROUP BY _q
),
_queries AS (
  SELECT COUNT(*) AS _n{% for run in p.runs %}, SUM(1 - _in{{ loop.index }}) AS _not_in{{ loop.index }}{% endfor %}
  FROM _per_query
)
{%- if p.impressions %},
_marks AS (
  SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q, 1 AS _shown, 0 AS _listed FROM {{ p.impressions }} AS impression_input
  UNION ALL
  SELECT _q, 0 AS _shown, 1 AS _listed FROM _per_query WHERE {% for run in p.runs %}_in{{ loop.index }} = 1{% if not loop.last %} AND {% endif %}{% endfor %}
),
_per_shown_query AS (
  SELECT _q, SUM(_shown) AS _shown_n, MAX(_listed) AS _listed_q FROM _marks GROUP BY _q
),
_shown_counts AS (
  SELECT SUM(_shown_n) AS _impressions, SUM(CASE WHEN _listed_q = 0 THEN _shown_n ELSE 0 END) AS _without
  FROM _per_shown_query
)
{%- endif %}
SELECT q._n AS {{ sqlndcg._quote('queries') }}
  {%- for run in p.runs %},
  q._not_in{{ loop.index }} AS {{ sqlndcg._quote(('only_in_run_' ~ ('b' if loop.first else 'a')) if pair else ('not_in_' ~ run.team)) }}
  {%- endfor %}
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
{{ return(sqlndcg._interleave_sql(sqlndcg._interleave_plan([sqlndcg._input_relation('run_a', run_a), sqlndcg._input_relation('run_b', run_b)], ['a', 'b'], shown, kwargs))) }}
{%- endmacro -%}

{#- dbt entry point: runs={'name': ref(...), ...}, 2 to 9 of them. -#}
{%- macro multileave(runs=none, impressions=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- if runs is not mapping -%}
  {{ sqlndcg._fail('setting', "multileave: runs= must map run names to relations, e.g. {'bm25': ref('bm25'), 'dense': ref('dense'), 'hybrid': ref('hybrid')}") }}
{%- endif -%}
{%- set inputs = [] -%}
{%- for name, relation in runs.items() -%}{%- do inputs.append(sqlndcg._input_relation('run ' ~ name, relation)) -%}{%- endfor -%}
{%- set shown = none if impressions is none else sqlndcg._input_relation('impressions', impressions) -%}
{{ return(sqlndcg._interleave_sql(sqlndcg._interleave_plan(inputs, runs.keys() | list, shown, kwargs))) }}
{%- endmacro -%}
