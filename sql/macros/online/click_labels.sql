{#-
  Debiased labels from an impression log, as judgments: one row per (group, query, document) shown, with the
  label `rel` and its support, `impressions` (showings of the document for the query) and `clicks`. `evaluate` and
  `compare` take the table as judgments (with gain='linear': the labels are fractions).

    method='em'   the position-based model's gamma(q, d), fitted with the propensities by EM over every row
                  (em.sql), scaled to theta(1) = 1: the probability of a click on d at the top;
    method='ips'  clicks weighted by 1 / theta(position): sum(click / theta(p)) / impressions of the pair, an
                  unbiased estimate of the same gamma when theta is right (it can exceed 1); theta from a table of
                  (group columns,) position, propensity (`propensities=`, e.g. the result of
                  sqlndcg.propensities) or, with propensities='logged', from the log's propensity column.
  Rows deeper than max_position are left out. A shown position without a propensity is refused (ips).

    {{ sqlndcg.click_labels(log=ref('impressions'), method='ips', propensities=ref('theta')) }}
-#}

{%- macro _click_labels_declared() -%}
{{ return({'method': 'em', 'propensities': none, 'max_position': none, 'iterations': 200, 'tolerance': 1e-4,
           'rel': 'rel', 'propensity_position': 'position', 'propensity_column': 'propensity'}) }}
{%- endmacro -%}

{#- The log's plan, the propensity table described (or none) and the settings -> the labels' plan. `given`
    propensities is 'table' (the table `props`), 'logged' or none (em). -#}
{%- macro _click_labels_plan(log, props, given) -%}
{%- set tool = 'click_labels' -%}
{%- set s = sqlndcg._judgment_settings(tool, sqlndcg._click_labels_declared(), given) -%}
{%- set method = sqlndcg._choice('method', s.method, ['em', 'ips']) -%}
{%- set source = s.propensities -%}
{%- if method == 'ips' and source not in ['table', 'logged'] -%}
  {{ sqlndcg._fail('setting', tool ~ ": method='ips' weighs clicks by 1 / theta(position): give propensities= (a table of position, propensity, e.g. sqlndcg.propensities(...)) or propensities='logged'") }}
{%- endif -%}
{%- if method == 'em' and source is not none -%}
  {{ sqlndcg._fail('setting', tool ~ ": method='em' fits its own propensities; propensities= goes with method='ips'") }}
{%- endif -%}
{%- if source == 'logged' and log.propensity is none -%}
  {{ sqlndcg._fail('input', log.label ~ " has no propensity column for propensities='logged'; name it with propensity=") }}
{%- endif -%}
{%- set pp = sqlndcg._propensities_plan(log, {'method': 'em', 'max_position': s.max_position, 'iterations': s.iterations,
                                               'tolerance': s.tolerance, 'bootstrap': 0}) -%}
{%- set names = log.settings.columns -%}
{{ sqlndcg._judgment_distinct_outputs(tool, log.settings.group_by + [names.query_id, names.doc_id, s.rel, 'impressions', 'clicks']) }}
{%- set table = none -%}
{%- if source == 'table' -%}
  {%- set table = sqlndcg._click_labels_table(log, props, s) -%}
{%- endif -%}
{%- set recorded = {'method': method, 'max_position': pp.max_position} -%}
{%- if method == 'em' -%}
  {%- do recorded.update({'iterations': pp.iterations, 'tolerance': pp.tolerance, 'label': 'gamma(q, d) * theta(1) of the PBM fitted by EM'}) -%}
{%- else -%}
  {%- do recorded.update({'propensities': source, 'label': 'sum(click / theta(position)) / impressions'}) -%}
{%- endif -%}
{%- do recorded.update(log.settings) -%}
{%- do recorded.columns.update({'rel': s.rel}) -%}
{{ return({'log': log, 'em': pp, 'method': method, 'source': source, 'table': table, 'max_position': pp.max_position,
           'rel': sqlndcg._quote(s.rel), 'settings': recorded}) }}
{%- endmacro -%}

{#- The propensity table's plan: its columns, the log's groups it has (joined on), its checks and keys. -#}
{%- macro _click_labels_table(log, props, s) -%}
{%- set needed = [('position', s.propensity_position, 'propensity_position'), ('propensity', s.propensity_column, 'propensity_column')] -%}
{{ sqlndcg._judgment_require_columns(props, needed) }}
{{ sqlndcg._judgment_require_types(props, [s.propensity_position, s.propensity_column], []) }}
{%- set names = sqlndcg._column_names(props.columns) -%}
{%- set groups = [] -%}
{%- for g in log.groups if g.name in names -%}{%- do groups.append(g) -%}{%- endfor -%}
{%- set checks = [] -%}
{%- for c in (groups | map(attribute='name') | list) + [s.propensity_position, s.propensity_column] -%}
  {%- do checks.append(sqlndcg._judgment_check('null', c, 'is NULL')) -%}
{%- endfor -%}
{%- do checks.append(sqlndcg._judgment_check('outside', s.propensity_column, 'is outside (0, 1] (a propensity is the probability that the position was examined)', [0, false, 1])) -%}
{%- set keys = (groups | map(attribute='name') | list) + [s.propensity_position] -%}
{{ return({'sql': props.sql, 'label': props.label, 'groups': groups, 'position': sqlndcg._quote(s.propensity_position),
           'propensity': sqlndcg._quote(s.propensity_column), 'checks': checks, 'keys': keys, 'shown': keys + [s.propensity_column]}) }}
{%- endmacro -%}

{#- method='ips' (and counterfactual.sql): the log's rows with theta of their position, from the table or the
    logged column. -#}
{%- macro _click_labels_weighted(cp) -%}
_rows AS (
  {{ sqlndcg._propensity_rows(cp.em) }}
),
{%- if cp.source == 'table' %}
_thetas AS (
  SELECT {% for g in cp.table.groups %}{{ g.column }} AS {{ g.alias }}, {% endfor %}{{ cp.table.position }} AS _tpos, CAST({{ cp.table.propensity }} AS {{ sqlndcg.double() }}) AS _theta
  FROM {{ cp.table.sql }} AS propensities_input
),
_weighted AS (
  SELECT {% for g in cp.log.groups %}r.{{ g.alias }} AS {{ g.alias }}, {% endfor %}r._i AS _i, r._q AS _q, r._d AS _d, r._pos AS _pos, r._click AS _click, t._theta AS _theta
  FROM _rows AS r
  JOIN _thetas AS t ON t._tpos = r._pos{% for g in cp.table.groups %} AND t.{{ g.alias }} = r.{{ g.alias }}{% endfor %}
)
{%- else %}
_weighted AS (
  SELECT {% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}_i, _q, _d, _pos, _click, _prop AS _theta FROM _rows
)
{%- endif %}
{%- endmacro -%}

{%- macro _click_labels_output(cp, source) -%}
{%- set names = cp.log.settings.columns -%}
SELECT
  {%- for g in cp.log.groups %}
  {{ g.alias }} AS {{ g.column }},
  {%- endfor %}
  _q AS {{ sqlndcg._quote(names.query_id) }},
  _d AS {{ sqlndcg._quote(names.doc_id) }},
  _rel AS {{ cp.rel }},
  CAST(_shown AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('impressions') }},
  CAST(_clicked AS {{ sqlndcg.integer_type() }}) AS {{ sqlndcg._quote('clicks') }}
FROM {{ source }}
ORDER BY {% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}_q, _d
{%- endmacro -%}

{%- macro _click_labels_ips_sql(cp) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
WITH {{ sqlndcg._click_labels_weighted(cp) }},
_labels AS (
  SELECT {{ g_cols }}_q, _d, SUM(_click / _theta) / COUNT(*) AS _rel, COUNT(*) AS _shown, SUM(_click) AS _clicked
  FROM _weighted
  GROUP BY {{ g_cols }}_q, _d
)
{{ sqlndcg._click_labels_output(cp, '_labels') }}
{%- endmacro -%}

{#- Shown positions (within max_position) that the propensity table lacks: position, rows (refused in Python). -#}
{%- macro _click_labels_unmatched(cp, limit=none) -%}
{%- set g_cols %}{% for g in cp.table.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
WITH _rows AS (
  {{ sqlndcg._propensity_rows(cp.em) }}
),
_have AS (
  SELECT DISTINCT {% for g in cp.table.groups %}{{ g.column }} AS {{ g.alias }}, {% endfor %}{{ cp.table.position }} AS _tpos
  FROM {{ cp.table.sql }} AS propensities_input
),
_both AS (
  SELECT {{ g_cols }}_pos AS _key, 1 AS _shown, 0 AS _known FROM _rows
  UNION ALL
  SELECT {{ g_cols }}_tpos AS _key, 0 AS _shown, 1 AS _known FROM _have
)
SELECT {% for g in cp.table.groups %}{{ g.alias }} AS {{ g.column }}, {% endfor %}_key AS {{ sqlndcg._quote('position') }}, SUM(_shown) AS _rows
FROM _both
GROUP BY {{ g_cols }}_key
HAVING MAX(_known) = 0
ORDER BY {{ g_cols }}_key
{%- if limit is not none %}
LIMIT {{ limit }}
{%- endif %}
{%- endmacro -%}

{#- method='em': the labels from the last EM state (replicate 0). -#}
{%- macro _click_labels_em_ctes(cp, state) -%}
{%- set g_cols %}{% for g in cp.log.groups %}{{ g.alias }}, {% endfor %}{% endset -%}
_labels AS (
  SELECT {{ g_cols }}_q, _d, MAX(_gamma * _theta1) AS _rel, SUM(_n) AS _shown, SUM(_c) AS _clicked
  FROM {{ state }}
  WHERE _b = 0
  GROUP BY {{ g_cols }}_q, _d
)
{%- endmacro -%}

{%- macro _click_labels_em_sql(cp, state) -%}
WITH {{ sqlndcg._click_labels_em_ctes(cp, state) }}
{{ sqlndcg._click_labels_output(cp, '_labels') }}
{%- endmacro -%}

{#- method='em' as one statement, its `cp.em.iterations` iterations unrolled (em.sql): dbt's, and the statement Python
    shows for the iterations it ran. -#}
{%- macro _click_labels_em_unrolled_sql(cp) -%}
WITH {{ sqlndcg._em_unrolled_ctes(cp.em) }},
{{ sqlndcg._click_labels_em_ctes(cp, '_em' ~ cp.em.iterations) }}
{{ sqlndcg._click_labels_output(cp, '_labels') }}
{%- endmacro -%}

{#- dbt entry point; method='em' unrolls its iterations (em.sql). -#}
{%- macro click_labels(log=none, propensities=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set parts = sqlndcg._click_log_split(kwargs) -%}
{%- set lp = sqlndcg._click_log_plan('click_labels', sqlndcg._input_relation('log', log), parts[0]) -%}
{%- set props = none if propensities is none or propensities is string else sqlndcg._input_relation('propensities', propensities) -%}
{%- set own = parts[1] -%}
{%- do own.update({'propensities': propensities if propensities is string else ('table' if props is not none else none)}) -%}
{%- do own.update({'method': own.get('method') or ('em' if propensities is none else 'ips')}) -%}
{%- set cp = sqlndcg._click_labels_plan(lp, props, own) -%}
{{ return(sqlndcg._click_labels_ips_sql(cp) if cp.method == 'ips' else sqlndcg._click_labels_em_unrolled_sql(cp)) }}
{%- endmacro -%}
