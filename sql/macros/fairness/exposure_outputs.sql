{#- The tables of exposure fairness: per query, per group, the summary, the account, and the facts Python checks
    before (run documents the items lack, the target's sum). -#}

{#- The group_by columns of a row of _pq (or another alias) under their own names. -#}
{%- macro _exposure_key_columns(p, alias) -%}
{%- set out = [] -%}{%- for k in p.key_columns -%}{%- do out.append(alias ~ '.' ~ k.alias ~ ' AS ' ~ k.column) -%}{%- endfor -%}
{{ return((out | join(', ')) ~ (', ' if out else '')) }}
{%- endmacro -%}

{#- One row per list: group_by..., query_id, samples, documents, groups and the measures, in key order. -#}
{%- macro _exposure_sql(p) -%}
{%- set i = sqlndcg.integer_type() -%}
{{ sqlndcg._exposure_ctes(p) }}
SELECT {{ sqlndcg._exposure_key_columns(p, 'pq') }}pq._q AS {{ p.query_id }},
  CAST(pq._ns AS {{ i }}) AS {{ sqlndcg._quote('samples') }}, CAST(pq._docs AS {{ i }}) AS {{ sqlndcg._quote('documents') }},
  CAST(pq._ngroups AS {{ i }}) AS {{ sqlndcg._quote('groups') }},
  {%- if p.judgments %}
  CAST(pq._rel AS {{ i }}) AS {{ sqlndcg._quote('relevant') }},
  {%- endif %}
  {%- for name, column in sqlndcg._exposure_measures(p) %}
  pq.{{ column }} AS {{ sqlndcg._quote(name) }}{% if not loop.last %},{% endif %}
  {%- endfor %}
FROM _pq AS pq
ORDER BY {{ sqlndcg._exposure_keys(p, 'pq.') }}pq._q
{%- endmacro -%}

{#- One row per list and group: group_by..., query_id, the group (under the items' column name), its documents,
    exposure, share of the list's, mean exposure per document and target share. -#}
{%- macro _exposure_groups_sql(p) -%}
{%- set i = sqlndcg.integer_type() -%}
WITH {{ sqlndcg._exposure_inputs(p) }}
_out AS (SELECT 1 AS _one)
SELECT {{ sqlndcg._exposure_key_columns(p, 's') }}s._q AS {{ p.query_id }}, s._grp AS {{ p.group }},
  CAST(s._n AS {{ i }}) AS {{ sqlndcg._quote('documents') }}, s._eg AS {{ sqlndcg._quote('exposure') }},
  s._share AS {{ sqlndcg._quote('share') }}, s._mean AS {{ sqlndcg._quote('mean_exposure') }},
  COALESCE(t._t, 0) AS {{ sqlndcg._quote('target_share') }}
FROM _shares AS s
LEFT JOIN _target AS t ON t._grp = s._grp
ORDER BY {{ sqlndcg._exposure_keys(p, 's.') }}s._q, s._grp
{%- endmacro -%}

{#- Per group_by and measure: the queries with a value, the mean, the standard deviation and the 95% t interval of
    the mean (mean -+ t(0.975, n - 1) s / sqrt(n), as evaluate's summary; NULL below 2 queries). -#}
{%- macro _exposure_summary_sql(p) -%}
{%- set keys = sqlndcg._exposure_keys(p) -%}
{%- set i, d, n = sqlndcg.integer_type(), sqlndcg.double(), sqlndcg.null_double() -%}
{%- set half = '(' ~ sqlndcg._t975('_df') ~ ' * _std / SQRT(CAST(_n AS ' ~ d ~ ')))' -%}
{{ sqlndcg._exposure_ctes(p) }},
_long AS (
  {%- for name, column in sqlndcg._exposure_measures(p) %}
  SELECT {{ keys }}{{ loop.index }} AS _o, {{ sqlndcg.text_literal(name) }} AS _m, CAST({{ column }} AS {{ d }}) AS _v FROM _pq{% if not loop.last %}
  UNION ALL{% endif %}
  {%- endfor %}
),
_means AS (
  SELECT {{ keys }}_o, MAX(_m) AS _m, COUNT(_v) AS _n, AVG(_v) AS _mean FROM _long GROUP BY {{ keys }}_o
),
_spread AS (
  SELECT {{ sqlndcg._exposure_keys(p, 'mn.', named=true) }}mn._o AS _o, MAX(mn._m) AS _m, MAX(mn._n) AS _n, MAX(mn._mean) AS _mean, MAX(mn._n) - 1 AS _df,
    CASE WHEN MAX(mn._n) >= 2 THEN SQRT(SUM(CASE WHEN l._v IS NULL THEN 0 ELSE (l._v - mn._mean) * (l._v - mn._mean) END) / (MAX(mn._n) - 1)) ELSE {{ n }} END AS _std
  FROM _means AS mn JOIN _long AS l ON l._o = mn._o{{ sqlndcg._exposure_on(p, 'l', 'mn') }}
  GROUP BY {{ sqlndcg._exposure_keys(p, 'mn.') }}mn._o
)
SELECT {{ sqlndcg._exposure_key_columns(p, 's') }}s._m AS {{ sqlndcg._quote('measure') }}, CAST(s._n AS {{ i }}) AS {{ sqlndcg._quote('queries') }},
  s._mean AS {{ sqlndcg._quote('mean') }}, s._std AS {{ sqlndcg._quote('std') }},
  CASE WHEN s._n >= 2 THEN s._mean - {{ half }} ELSE {{ n }} END AS {{ sqlndcg._quote('ci_low') }},
  CASE WHEN s._n >= 2 THEN s._mean + {{ half }} ELSE {{ n }} END AS {{ sqlndcg._quote('ci_high') }}
FROM _spread AS s
ORDER BY {{ sqlndcg._exposure_keys(p, 's.') }}s._o
{%- endmacro -%}

{#- What was read: the lists (group_by, query), the rankings (samples), the run's rows, its documents without an
    item row (counted in '(unknown)', or refused), and with judgments, the judged queries with a relevant document
    the run lacks (not scored). -#}
{%- macro _exposure_account_sql(p) -%}
{%- set i = sqlndcg.integer_type() -%}
WITH {{ sqlndcg._exposure_inputs(p) }}
_counts AS (
  SELECT COUNT(*) AS _lists, SUM(_ns) AS _rankings, SUM(_rows) AS _rows FROM _lists
)
SELECT CAST(c._lists AS {{ i }}) AS {{ sqlndcg._quote('lists') }}, CAST(c._rankings AS {{ i }}) AS {{ sqlndcg._quote('rankings') }},
  CAST(c._rows AS {{ i }}) AS {{ sqlndcg._quote('run_rows') }},
  CAST((SELECT COUNT(*) FROM _docs WHERE _missing = 1) AS {{ i }}) AS {{ sqlndcg._quote('documents_without_item') }}
  {%- if p.judgments %},
  CAST((SELECT COUNT(DISTINCT j._q) FROM (
    SELECT {{ sqlndcg._id(p.query_id, p.query_ids_as_text) }} AS _q FROM {{ p.judgments }} AS judgment_input WHERE {{ p.rel }} > 0
  ) AS j WHERE NOT EXISTS (SELECT 1 FROM _lists AS l WHERE l._q = j._q)) AS {{ i }}) AS {{ sqlndcg._quote('judged_queries_not_in_run') }}
  {%- endif %}
FROM _counts AS c
{%- endmacro -%}

{#- The facts checked before the statements run: run documents without an item row (how many, and one of them),
    and the target's sum of shares (1 when there is no target table). -#}
{%- macro _exposure_facts_sql(p) -%}
WITH {{ sqlndcg._exposure_inputs(p) }}
_out AS (SELECT 1 AS _one)
SELECT (SELECT COUNT(*) FROM _docs WHERE _missing = 1) AS {{ sqlndcg._quote('missing') }},
  (SELECT MIN(_d) FROM _docs WHERE _missing = 1) AS {{ sqlndcg._quote('example') }},
  (SELECT SUM(_t) FROM _target) AS {{ sqlndcg._quote('target_sum') }},
  (SELECT MIN(_t) FROM _target) AS {{ sqlndcg._quote('target_min') }}
{%- endmacro -%}

{#- dbt entry point: per query, exposure fairness of a run over the items' groups (per_query=false: the groups'
    table; summary=true: the means with their intervals). -#}
{%- macro exposure(run=none, items=none, judgments=none, target=none, table='per_query') -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set given = dict(kwargs) -%}
{%- if target is not none and 'target' not in given -%}{%- do given.update({'target': 'table'}) -%}{%- endif -%}
{%- set p = sqlndcg._exposure_plan(sqlndcg._input_relation('run', run), sqlndcg._input_relation('items', items),
      none if judgments is none else sqlndcg._input_relation('judgments', judgments),
      none if target is none else sqlndcg._input_relation('target', target), given) -%}
{%- if table == 'groups' -%}{{ return(sqlndcg._exposure_groups_sql(p)) }}
{%- elif table == 'summary' -%}{{ return(sqlndcg._exposure_summary_sql(p)) }}
{%- elif table == 'per_query' -%}{{ return(sqlndcg._exposure_sql(p)) }}
{%- else -%}{{ sqlndcg._fail('setting', "exposure: table must be 'per_query', 'groups' or 'summary', got " ~ sqlndcg._show(table)) }}
{%- endif -%}
{%- endmacro -%}
