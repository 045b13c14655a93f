{#-
  Which queries to audit next: a stratified sample of `budget` queries for human judges, the same on every engine
  for the same seed. p: {source (relation SQL: one row per query, or evaluate's per-query table with a row per
  system and query), query (its query id column), strata (segment columns, may be empty: of the source, or of
  segments when given), segments (relation SQL, or none) and segments_query (its query id column), value (the column of
  the model-labelled metric, or none), bins (disagreement strata, or none), audited (relation SQL of already
  audited queries, or none), audited_query (its query id column), allocation ('proportional' | 'neyman'),
  budget, seed}.

  Per query: v = the model metric averaged over the systems, spread = its max - min over the systems. With bins,
  the strata are cut at numpy's linear quantiles of the spread over every query (j / bins, j = 1..bins-1): a query
  with spread in (c_{j-1}, c_j] is in stratum j (np.digitize(spread, cuts, right=True) + 1). Stratum label: the
  segment values and the bin, joined by '/'.

  Allocation over the A_h not yet audited queries of each stratum: weight w_h = A_h (proportional) or A_h sd_h
  (Neyman; sd_h the standard deviation of v over the stratum's queries, divided by their count; all sd 0: w_h =
  A_h); quota q_h = budget w_h / sum w. The stratum's queries in the order of MD5('<seed>:<query id>') are its
  slots k = 1..A_h, and the budget takes the first slots of this order (largest-remainder rounding, at least one
  per stratum while the budget lasts):
    class 0   k = 1                      by q_h descending
    class 1   2 <= k <= floor(q_h)       by q_h / k descending
    class 2   k = floor(q_h) + 1 >= 2    by the remainder q_h - floor(q_h) descending
    class 3   the others                 by q_h / k descending (reached only when a quota exceeds its stratum)
  ties by MD5 of the stratum label. Without min-one pressure or caps this is Hamilton's largest remainder exactly.
-#}

{%- macro _audit_text(x) -%}{{ return('CAST(' ~ x ~ ' AS ' ~ sqlndcg.text_type() ~ ')') }}{%- endmacro -%}

{#- The frame: one row per query (_qid, strata columns, _qt its id as text, _v, _spread, _s the label, _done). -#}
{%- macro _audit_frame_ctes(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set q = sqlndcg._quote(p.query) -%}
{%- set g = 'g' if p.segments else 's' -%}
src AS (
  SELECT s.{{ q }} AS _qid{% for c in p.strata %}, {{ g }}.{{ sqlndcg._quote(c) }}{% endfor %}, {{ sqlndcg._audit_text('s.' ~ q) }} AS _qt,
  {%- if p.value %}
         AVG(CAST(s.{{ sqlndcg._quote(p.value) }} AS {{ d }})) AS _v,
         MAX(CAST(s.{{ sqlndcg._quote(p.value) }} AS {{ d }})) - MIN(CAST(s.{{ sqlndcg._quote(p.value) }} AS {{ d }})) AS _spread
  {%- else %}
         {{ sqlndcg.null_double() }} AS _v, {{ sqlndcg.null_double() }} AS _spread
  {%- endif %}
  FROM {{ p.source }} s
  {%- if p.segments %}
  JOIN (SELECT DISTINCT {{ sqlndcg._audit_text('r.' ~ sqlndcg._quote(p.segments_query)) }} AS _rq{% for c in p.strata %}, r.{{ sqlndcg._quote(c) }}{% endfor %}
        FROM {{ p.segments }} r) g ON g._rq = {{ sqlndcg._audit_text('s.' ~ q) }}
  {%- endif %}
  GROUP BY s.{{ q }}{% for c in p.strata %}, {{ g }}.{{ sqlndcg._quote(c) }}{% endfor %}
),
{%- if p.bins %}
ranked AS (
  SELECT _spread, ROW_NUMBER() OVER (ORDER BY _spread) - 1 AS _r FROM src
),
pos AS (
  SELECT c._j, (n._n - 1) * c._j / {{ p.bins }} AS _pos
  FROM ({% for j in range(1, p.bins) %}SELECT CAST({{ j }} AS {{ d }}) AS _j{{ ' UNION ALL ' if not loop.last }}{% endfor %}) c
  CROSS JOIN (SELECT CAST(COUNT(*) AS {{ d }}) AS _n FROM src) n
),
lohi AS (
  SELECT pos._j, pos._pos - {{ sqlndcg.whole('pos._pos') }} AS _f,
         MIN(CASE WHEN r._r = {{ sqlndcg.whole('pos._pos') }} THEN r._spread END) AS _lo,
         MIN(CASE WHEN r._r = {{ sqlndcg.whole('pos._pos') }} + 1 THEN r._spread END) AS _hi
  FROM pos CROSS JOIN ranked r
  GROUP BY pos._j, pos._pos
),
cuts AS (
  SELECT _j, _lo + _f * (COALESCE(_hi, _lo) - _lo) AS _cut FROM lohi
),
binned AS (
  SELECT src._qt, COUNT(cuts._j) + 1 AS _bin FROM src LEFT JOIN cuts ON cuts._cut < src._spread GROUP BY src._qt
),
{%- endif %}
{%- set parts = [] -%}
{%- for c in p.strata %}{% do parts.append("COALESCE(" ~ sqlndcg._audit_text('src.' ~ sqlndcg._quote(c)) ~ ", '(null)')") %}{% endfor -%}
{%- if p.bins %}{% do parts.append(sqlndcg._audit_text('b._bin')) %}{% endif -%}
{%- set label = namespace(text=parts[0] if parts else "'all'") -%}
{%- for x in parts[1:] %}{% set label.text = sqlndcg.concat_text(sqlndcg.concat_text(label.text, "'/'"), x) %}{% endfor %}
done AS (
  {%- if p.audited %}
  SELECT DISTINCT {{ sqlndcg._audit_text('a.' ~ sqlndcg._quote(p.audited_query)) }} AS _qt, 1 AS _hit FROM {{ p.audited }} a
  {%- else %}
  SELECT _qt, 1 AS _hit FROM src WHERE 1 = 0
  {%- endif %}
),
f AS (
  SELECT src.*, {{ label.text }} AS _s, CASE WHEN done._hit = 1 THEN 1 ELSE 0 END AS _done
  FROM src
  {%- if p.bins %}
  JOIN binned b ON b._qt = src._qt
  {%- endif %}
  LEFT JOIN done ON done._qt = src._qt
)
{%- endmacro -%}

{#- The queries that sit in two strata (a segment column that varies within a query): a few, for an error. -#}
{%- macro _audit_repeated_sql(p) -%}
{%- set q = sqlndcg._quote(p.segments_query if p.segments else p.query) -%}
SELECT {{ q }}, COUNT(*) AS strata
FROM (SELECT DISTINCT {{ q }}{% for c in p.strata %}, {{ sqlndcg._quote(c) }}{% endfor %} FROM {{ p.segments or p.source }}) s
GROUP BY {{ q }}
HAVING COUNT(*) > 1
ORDER BY {{ q }}
{%- endmacro -%}

{#- The strata (_all queries, _a not yet audited, _sd, _w, _quota) and every slot with its _seat in the draw. -#}
{%- macro _audit_ctes(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set how = sqlndcg._choice('allocation', p.allocation, ['proportional', 'neyman']) -%}
{%- set key = sqlndcg.concat_text(sqlndcg.text_literal((p.seed | string) ~ ':'), 'f._qt') -%}
WITH {{ sqlndcg._audit_frame_ctes(p) }},
means AS (
  SELECT _s, AVG(_v) AS _m FROM f GROUP BY _s
),
strata AS (
  SELECT f._s, COUNT(*) AS _all, SUM(1 - f._done) AS _a, MIN(f._spread) AS _spread_low, MAX(f._spread) AS _spread_high,
         SQRT(SUM((f._v - means._m) * (f._v - means._m)) / COUNT(*)) AS _sd
  FROM f JOIN means ON means._s = f._s
  GROUP BY f._s
),
weighed AS (
  SELECT strata.*,
  {%- if how == 'neyman' %}
         CASE WHEN SUM(_a * COALESCE(_sd, 0)) OVER () > 0 THEN CAST(_a AS {{ d }}) * COALESCE(_sd, 0)
              ELSE CAST(_a AS {{ d }}) END AS _w
  {%- else %}
         CAST(_a AS {{ d }}) AS _w
  {%- endif %}
  FROM strata WHERE _a > 0
),
alloc AS (
  SELECT weighed.*, CAST({{ p.budget | int }} AS {{ d }}) * _w / SUM(_w) OVER () AS _quota FROM weighed
),
slots AS (
  SELECT f.*, ROW_NUMBER() OVER (PARTITION BY f._s ORDER BY {{ sqlndcg.md5_hex(key) }}, f._qt) AS _k
  FROM f WHERE f._done = 0
),
classed AS (
  SELECT slots.*, alloc._quota, alloc._a,
         CASE WHEN slots._k = 1 THEN 0 WHEN slots._k <= {{ sqlndcg.whole('alloc._quota') }} THEN 1
              WHEN slots._k = {{ sqlndcg.whole('alloc._quota') }} + 1 THEN 2 ELSE 3 END AS _class,
         CASE WHEN slots._k = 1 THEN alloc._quota
              WHEN slots._k = {{ sqlndcg.whole('alloc._quota') }} + 1 THEN alloc._quota - {{ sqlndcg.whole('alloc._quota') }}
              ELSE alloc._quota / slots._k END AS _key
  FROM slots JOIN alloc ON alloc._s = slots._s
),
seats AS (
  SELECT classed.*, ROW_NUMBER() OVER (ORDER BY _class, _key DESC, {{ sqlndcg.md5_hex('_s') }}, _k) AS _seat
  FROM classed
),
taken AS (
  SELECT _s, SUM(CASE WHEN _seat <= {{ p.budget | int }} THEN 1 ELSE 0 END) AS _n FROM seats GROUP BY _s
)
{%- endmacro -%}

{#- The sampled queries in the order they were drawn: strata columns, stratum, query id, draw (its place in its
    stratum's hash order), inclusion_probability = sampled / available in its stratum, weight = its inverse. -#}
{%- macro _audit_sample_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{{ sqlndcg._audit_ctes(p) }}
SELECT {% for c in p.strata %}s.{{ sqlndcg._quote(c) }}, {% endfor %}s._s AS stratum, s._qid AS {{ sqlndcg._quote(p.query) }},
       CAST(s._k AS {{ sqlndcg.integer_type() }}) AS draw,
       {%- if p.value %} s._v AS model_value,{% endif %}{% if p.bins %} s._spread AS spread,{% endif %}
       CAST(t._n AS {{ d }}) / s._a AS inclusion_probability, CAST(s._a AS {{ d }}) / t._n AS weight
FROM seats s JOIN taken t ON t._s = s._s
WHERE s._seat <= {{ p.budget | int }}
ORDER BY s._seat
{%- endmacro -%}

{#- Per stratum: queries, audited (before), available, sd of the model metric, the spread's range (bins), quota,
    sampled, share (of the available queries), inclusion_probability, weight. -#}
{%- macro _audit_strata_sql(p) -%}
{%- set d = sqlndcg.double() -%}
{%- set i = sqlndcg.integer_type() -%}
{{ sqlndcg._audit_ctes(p) }}
SELECT s._s AS stratum, CAST(s._all AS {{ i }}) AS queries, CAST(s._all - s._a AS {{ i }}) AS audited,
       CAST(s._a AS {{ i }}) AS available,
       {%- if p.value %} s._sd AS sd,{% endif %}{% if p.bins %} s._spread_low AS spread_low, s._spread_high AS spread_high,{% endif %}
       CASE WHEN s._a > 0 THEN a._quota END AS quota, CAST(CASE WHEN s._a > 0 THEN t._n ELSE 0 END AS {{ i }}) AS sampled,
       CAST(s._a AS {{ d }}) / SUM(s._a) OVER () AS share,
       CASE WHEN s._a > 0 THEN CAST(t._n AS {{ d }}) / s._a END AS inclusion_probability,
       CASE WHEN s._a > 0 AND t._n > 0 THEN CAST(s._a AS {{ d }}) / t._n END AS weight
FROM strata s LEFT JOIN alloc a ON a._s = s._s LEFT JOIN taken t ON t._s = s._s
ORDER BY s._s
{%- endmacro -%}

{#- dbt: the plan of audit_sample / audit_strata from relations (queries: the query id and strata columns, or
    evaluate's per-query table of a run under model labels with value= its metric column, segments= the run that
    holds the strata columns). A budget above the queries not yet audited gives them all (Python refuses it). -#}
{%- macro _audit_relation_plan(queries, budget, strata, seed, audited, allocation, value, bins, segments, query_id) -%}
{%- if budget is not number or budget is sameas true or budget < 1 or budget != budget | int -%}
  {{ sqlndcg._fail('setting', 'budget= must be a whole number of queries >= 1, got ' ~ budget) }}
{%- endif -%}
{%- if bins is not none and (bins is not number or bins < 2 or value is none) -%}
  {{ sqlndcg._fail('setting', 'bins= (strata by disagreement) needs value= the metric column of the per-query table, and bins >= 2') }}
{%- endif -%}
{%- set names = [strata] if strata is string else (strata or []) | list -%}
{%- set q = sqlndcg._input_relation('queries', queries) -%}
{%- set s = sqlndcg._input_relation('segments', segments) if segments is not none else none -%}
{%- set a = sqlndcg._input_relation('audited', audited) if audited is not none else none -%}
{%- set needs = [(q, [query_id] + ([value] if value else []) + ([] if s else names))] -%}
{%- if s %}{% do needs.append((s, [query_id] + names)) %}{% endif -%}
{%- if a %}{% do needs.append((a, [query_id])) %}{% endif -%}
{%- for rel, cols in needs -%}
  {%- set have = [] -%}{%- for c in rel.columns %}{% do have.append(c.name) %}{% endfor -%}
  {%- for c in cols if c not in have -%}
    {{ sqlndcg._fail('input', rel.label ~ ': no column ' ~ c ~ ' (its columns: ' ~ have | join(', ') ~ ')') }}
  {%- endfor -%}
{%- endfor -%}
{{ return({'source': q.sql, 'query': query_id, 'strata': names, 'value': value, 'bins': bins,
           'segments': s.sql if s else none, 'segments_query': query_id, 'audited': a.sql if a else none,
           'audited_query': query_id, 'allocation': allocation, 'budget': budget | int, 'seed': seed | int}) }}
{%- endmacro -%}

{#- dbt entry point: the sampled queries, in draw order (as sqlndcg.audit_sample's .sample). -#}
{%- macro audit_sample(queries=none, budget=none, strata=[], seed=0, audited=none, allocation='proportional', value=none,
                       bins=none, segments=none, query_id='query_id') -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._audit_sample_sql(sqlndcg._audit_relation_plan(queries, budget, strata, seed, audited, allocation, value,
                                                                  bins, segments, query_id))) }}
{%- endmacro -%}

{#- dbt entry point: per stratum its queries, quota and sampled count (as sqlndcg.audit_sample's .strata). -#}
{%- macro audit_strata(queries=none, budget=none, strata=[], seed=0, audited=none, allocation='proportional', value=none,
                       bins=none, segments=none, query_id='query_id') -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{{ return(sqlndcg._audit_strata_sql(sqlndcg._audit_relation_plan(queries, budget, strata, seed, audited, allocation, value,
                                                                  bins, segments, query_id))) }}
{%- endmacro -%}
