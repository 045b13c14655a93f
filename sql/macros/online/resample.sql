{#-
  A seeded Poisson bootstrap over impressions (Hanley and MacGibbon 2006; Chamandy et al., "Estimating uncertainty
  for massive data streams", Google 2012): replicate b weights every impression by an independent Poisson(1) draw,
  so the replicates of one statement resample whole impressions without a second pass. The draw is the MD5 of
  'seed/b/impression key' read as a uniform number by comparing its hex digits with Poisson(1)'s cumulative
  probabilities; it is the same on every engine, and the same for the same seed. Replicate 0 is the log itself
  (every weight 1); replicates 1..B are the resamples.
-#}

{#- Poisson(1)'s cumulative probabilities P(X <= k), k = 0..7, as the first 8 hex digits of a uniform draw. -#}
{%- macro _poisson_thresholds() -%}
{{ return(['5e2d58d8', 'bc5ab1b1', 'eb715e1d', 'fb239797', 'ff1025f5', 'ffd90f3b', 'fffa8b71', 'ffff540c']) }}
{%- endmacro -%}

{#- The replicate numbers 0..count, from a cross join of digits (portable: no series function, no recursion). -#}
{%- macro _replicate_numbers(count) -%}
{%- set digits = [] -%}{%- for i in range(10) -%}{%- do digits.append('SELECT ' ~ i ~ ' AS _digit') -%}{%- endfor -%}
{%- set places = (count | string | length) -%}
SELECT {% for k in range(places) %}d{{ k }}._digit * {{ 10 ** k }}{% if not loop.last %} + {% endif %}{% endfor %} AS _b
FROM {% for k in range(places) %}({{ digits | join(' UNION ALL ') }}) AS d{{ k }}{% if not loop.last %} CROSS JOIN {% endif %}{% endfor %}
WHERE {% for k in range(places) %}d{{ k }}._digit * {{ 10 ** k }}{% if not loop.last %} + {% endif %}{% endfor %} <= {{ count }}
{%- endmacro -%}

{#- Per replicate and impression (`keys`: the impression key columns of `relation`, internal names), the Poisson(1)
    weight _w; replicate 0 weighs 1. -#}
{%- macro _impression_weights(relation, keys, count, seed) -%}
{%- set key = namespace(text=sqlndcg.text_literal(seed | string)) -%}
{%- set key.text = sqlndcg.concat_text(key.text, sqlndcg.text_literal('/')) -%}
{%- set key.text = sqlndcg.concat_text(key.text, 'CAST(rep._b AS ' ~ sqlndcg.text_type() ~ ')') -%}
{%- for k in keys -%}
  {%- set t = 'CAST(imp.' ~ k ~ ' AS ' ~ sqlndcg.text_type() ~ ')' -%}
  {%- set key.text = sqlndcg.concat_text(sqlndcg.concat_text(key.text, sqlndcg.text_literal('/')), t) -%}
{%- endfor -%}
SELECT rep._b AS _b, {% for k in keys %}imp.{{ k }} AS {{ k }}, {% endfor %}
  CASE WHEN rep._b = 0 THEN 1
  {%- for t in sqlndcg._poisson_thresholds() %}
    WHEN {{ sqlndcg.md5_hex(key.text) }} < '{{ t }}' THEN {{ loop.index0 }}
  {%- endfor %}
    ELSE 8 END AS _w
FROM (SELECT DISTINCT {{ keys | join(', ') }} FROM {{ relation }}) AS imp
CROSS JOIN ({{ sqlndcg._replicate_numbers(count) }}) AS rep
{%- endmacro -%}
