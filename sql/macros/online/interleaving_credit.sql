{#-
  Credit of team-draft interleaving from a log of interleaved impressions with clicks (the impression log of
  online/log.sql, with its `team` column: 'a' or 'b' per shown document; NULL for a document neither team placed,
  whose clicks credit no one). Per impression: A wins when more of its clicks fell on team A's documents than on
  team B's, B wins in the opposite case, else a tie (Radlinski, Kurup & Joachims, CIKM 2008). An impression without
  clicks is a tie (no_clicks='tie', the default), or left out (no_clicks='drop'). Per group:

    impressions, wins_a, wins_b, ties, preference = (wins_a + ties / 2) / impressions - 1/2

  (Chapelle, Joachims, Radlinski & Yue, TOIS 2012: above 0 when A is preferred). Python adds the sign test's
  p-value and the bootstrap interval (stats/interleaving.py). Impressions without any row of either team are left
  out and counted.

    {{ sqlndcg.interleaving_credit(log=ref('interleaved_impressions'), group_by=['ds']) }}
-#}

{#- The log (described as {sql, label, columns}), its plan (online/log.sql, with the team column) and no_clicks -> the credit's plan: the log's plan
    (`log`), the team check, and what the credit counts. -#}
{%- macro _interleaving_credit_plan(log, lp, no_clicks, teams=none) -%}
{%- set no_clicks = sqlndcg._choice('no_clicks', no_clicks, ['tie', 'drop']) -%}
{%- set named = teams is not none -%}
{%- set teams = ['a', 'b'] if teams is none else teams -%}
{%- if teams is string or teams is not sequence or (teams | length) < 2 or (teams | unique | list | length) != (teams | length) -%}
  {{ sqlndcg._fail('setting', 'interleaving_credit: teams= names 2 or more distinct teams (the runs of a multileaved log), got ' ~ sqlndcg._show(teams)) }}
{%- endif -%}
{%- for t in teams if t is not string or t == '' -%}
  {{ sqlndcg._fail('setting', 'interleaving_credit: team names must be non-empty text, got ' ~ sqlndcg._show(t)) }}
{%- endfor -%}
{%- set pairs = [] -%}
{%- for a in range(teams | length) -%}{%- for b in range(a + 1, teams | length) -%}{%- do pairs.append([a + 1, b + 1]) -%}{%- endfor -%}{%- endfor -%}
{%- set team = lp.settings.columns.team -%}
{%- if sqlndcg._column_of(log.columns, team).class != 'text' -%}
  {{ sqlndcg._fail('input', lp.label ~ ': the team column ' ~ sqlndcg._show(team) ~ ' holds ' ~ sqlndcg._column_of(log.columns, team).type ~ ", but must hold text: 'a', 'b' (or NULL for neither team)") }}
{%- endif -%}
{#- The rows read with the team as text, '' for neither (NULL would not cast on ClickHouse). -#}
{%- set rows_plan = {} -%}
{%- do rows_plan.update(lp) -%}
{%- do rows_plan.update({'team': 'COALESCE(' ~ lp.team ~ ', ' ~ sqlndcg.text_literal('') ~ ')'}) -%}
{%- set shown = "'a' nor 'b'" if not named else 'one of ' ~ sqlndcg._show(teams | list) -%}
{%- set team_check = sqlndcg._judgment_check('not_in', team, 'is neither ' ~ shown ~ ' (the team that placed the document; NULL for neither)', teams | list) -%}
{%- set settings = {'no_clicks': no_clicks} -%}
{%- if named -%}{%- do settings.update({'teams': teams | list}) -%}{%- endif -%}
{%- do settings.update(lp.settings) -%}
{{ return({'log': lp, 'rows': rows_plan, 'no_clicks': no_clicks, 'teams': teams | list, 'named': named, 'pairs': pairs,
           'team_checks': [team_check], 'settings': settings}) }}
{%- endmacro -%}

{#- The plan -> per group: the counts of the credit and of the account. -#}
{%- macro _interleaving_credit_sql(p) -%}
{%- set lp = p.log -%}
{%- set g_cols %}{% for g in lp.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
{%- set d = sqlndcg.double() -%}
{%- set counted = '_teamed > 0' ~ (' AND _clicks > 0' if p.no_clicks == 'drop' else '') -%}
WITH _rows AS (
  {{ sqlndcg._click_log_rows(p.rows) }}
),
_impressions AS (
  SELECT {{ g_cols }}_i,
    {%- for t in p.teams %}
    SUM(CASE WHEN _team = {{ sqlndcg.text_literal(t) }} THEN _click ELSE 0 END) AS _c{{ loop.index }},
    {%- endfor %}
    SUM(_click) AS _clicks,
    SUM(CASE WHEN _team IN ({% for t in p.teams %}{{ sqlndcg.text_literal(t) }}{% if not loop.last %}, {% endif %}{% endfor %}) THEN 1 ELSE 0 END) AS _teamed
  FROM _rows
  GROUP BY {{ g_cols }}_i
),
_counts AS (
  {%- for a, b in p.pairs %}
  SELECT {{ g_cols }}{{ loop.index }} AS _pair,
    SUM(CASE WHEN {{ counted }} THEN 1 ELSE 0 END) AS _n,
    SUM(CASE WHEN {{ counted }} AND _c{{ a }} > _c{{ b }} THEN 1 ELSE 0 END) AS _wins_a,
    SUM(CASE WHEN {{ counted }} AND _c{{ b }} > _c{{ a }} THEN 1 ELSE 0 END) AS _wins_b,
    SUM(CASE WHEN {{ counted }} AND _c{{ a }} = _c{{ b }} THEN 1 ELSE 0 END) AS _ties,
    COUNT(*) AS _read,
    SUM(CASE WHEN _teamed = 0 THEN 1 ELSE 0 END) AS _without_team,
    SUM(CASE WHEN _teamed > 0 AND _clicks = 0 THEN 1 ELSE 0 END) AS _without_clicks,
    SUM(_clicks{% for t in p.teams %} - _c{{ loop.index }}{% endfor %}) AS _clicks_outside
  FROM _impressions
  {%- if lp.groups %}
  GROUP BY {{ g_cols[:-2] }}
  {%- endif %}
  {%- if not loop.last %}
  UNION ALL
  {%- endif %}
  {%- endfor %}
)
SELECT
  {%- for g in lp.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  {%- if p.named %}
  CASE _pair{% for a, b in p.pairs %} WHEN {{ loop.index }} THEN {{ sqlndcg.text_literal(p.teams[a - 1]) }}{% endfor %} END AS {{ sqlndcg._quote('team_a') }},
  CASE _pair{% for a, b in p.pairs %} WHEN {{ loop.index }} THEN {{ sqlndcg.text_literal(p.teams[b - 1]) }}{% endfor %} END AS {{ sqlndcg._quote('team_b') }},
  {%- endif %}
  {#- counts as integers everywhere (MySQL's SUM is a DECIMAL) #}
  CAST(_n AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('impressions') }},
  CAST(_wins_a AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('wins_a') }},
  CAST(_wins_b AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('wins_b') }},
  CAST(_ties AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('ties') }},
  CASE WHEN _n > 0 THEN (CAST(_wins_a AS {{ d }}) + CAST(_ties AS {{ d }}) / 2) / _n - 0.5 ELSE {{ sqlndcg.null_double() }} END AS {{ sqlndcg._quote('preference') }},
  CAST(_read AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('impressions_read') }},
  CAST(_without_team AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('without_team') }},
  CAST(_without_clicks AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('without_clicks') }},
  CAST(_clicks_outside AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('clicks_outside_teams') }}
FROM _counts
ORDER BY {{ g_cols }}_pair
{%- endmacro -%}

{#- dbt entry point: the counts and the preference per group (the p-value and the interval are Python's). -#}
{%- macro interleaving_credit(log=none, no_clicks='tie', teams=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set s = sqlndcg._judgment_settings('interleaving_credit', sqlndcg._click_log_declared(), kwargs) -%}
{%- set relation = sqlndcg._input_relation('log', log) -%}
{%- set lp = sqlndcg._click_log_plan('interleaving_credit', relation, s, ['team']) -%}
{{ return(sqlndcg._interleaving_credit_sql(sqlndcg._interleaving_credit_plan(relation, lp, no_clicks, teams))) }}
{%- endmacro -%}
