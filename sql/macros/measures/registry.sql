{#-
  The measure registry: one file per measure family in this folder, each opening with its definition (formula,
  trec_eval and ir_measures names, conventions), as trec_eval's m_*.c files do. A family is two macros:

    default__measure_<kind>()        what it is: help, aliases, parameters, and how the rest of the SQL treats it
    default__value_<kind>(m, p, a)   its per-query value, an SQL expression over the per-query aggregates

  and optionally default__aggregates_<kind>(m, p): its own per-query aggregates, [suffix, expression] pairs
  computed over the ranked rows (the `accumulated` CTE of per_query.sql) and read back as rm.<m.id>_<suffix>.
  They are called through adapter.dispatch, so dbt resolves them by name and an engine may override one.
  Adding a measure: a new file here and its kind in measure_families() below.

  Metadata keys (defaults in measure_defaults()):
    help            one line, for errors and docs
    aliases         other spellings (lower case) accepted for the kind
    k               whether the measure takes a cutoff @k
    binary          labels read as relevant/not at `threshold` (takes a per-metric rel=..., P(rel=2)@5)
    additive        a sum of per-position contributions (defined under ties='average')
    emptyable       NULL under empty='skip' when there is nothing to find
    params          extra parameters {name: default}, written kind(name=value)
    domains         each parameter's allowed values {name: {min, max, min_open, max_open, integer, why}}, checked
                    where names are parsed (spec.sql); a bound left out is no bound, {} any finite number
    needs           shared aggregates it reads (per_query.sql computes only what some metric needs)
    summary         trec_eval's rule for the `all` line: mean, gm (geometric mean), sum
    trec_eval       trec_eval's name of the family (its -m name), with its default parameters
    ir_measures     the ir_measures spelling
-#}

{%- macro measure_families() -%}
{{ return([
  'cg', 'dcg', 'idcg', 'ndcg', 'p', 'r', 'ap', 'rr', 'hit', 'judged',
  'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'num_nonrel_judged_ret',
  'gm_map', 'rprec', 'rprec_mult', 'bpref', 'gm_bpref', 'infap', 'iprec_at_recall', '11pt_avg',
  'utility', 'bing', 'g', 'ndcg_rel', 'rndcg', 'relative_p',
  'set_p', 'set_relative_p', 'set_recall', 'set_map', 'set_f',
  'rbp', 'rbp_resid', 'unj',
]) }}
{%- endmacro -%}

{%- macro measure_defaults() -%}
{{ return({'aliases': [], 'k': false, 'binary': false, 'additive': false, 'emptyable': false, 'params': {},
           'domains': {}, 'needs': [], 'summary': 'mean', 'trec_eval': none, 'ir_measures': none}) }}
{%- endmacro -%}

{#- Every family's metadata, defaults filled in, in registry order. -#}
{%- macro measures() -%}
{%- set out = {} -%}
{%- for kind in sqlndcg.measure_families() -%}
  {%- set about = {} -%}
  {%- do about.update(sqlndcg.measure_defaults()) -%}
  {%- do about.update(sqlndcg.dispatched('measure_' ~ kind)()) -%}
  {%- do out.update({kind: about}) -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- One metric's per-query value: the family's value macro. -#}
{%- macro measure_value(m, p, a) -%}
{{ return(sqlndcg.dispatched('value_' ~ m.kind)(m, p, a)) }}
{%- endmacro -%}

{#- One metric's own per-query aggregates ([suffix, expression] pairs); none unless its family defines them. -#}
{%- macro measure_aggregates(m, p) -%}
{%- if 'own' not in sqlndcg.measures()[m.kind].needs -%}{{ return([]) }}{%- endif -%}
{{ return(sqlndcg.dispatched('aggregates_' ~ m.kind)(m, p)) }}
{%- endmacro -%}

{#- Shared helpers for the measure files. -#}
{%- macro least(a, b) -%}{{ return('(CASE WHEN ' ~ a ~ ' < ' ~ b ~ ' THEN ' ~ a ~ ' ELSE ' ~ b ~ ' END)') }}{%- endmacro -%}
{%- macro greatest(a, b) -%}{{ return('(CASE WHEN ' ~ a ~ ' > ' ~ b ~ ' THEN ' ~ a ~ ' ELSE ' ~ b ~ ' END)') }}{%- endmacro -%}
{%- macro as_double(x) -%}{{ return('CAST(' ~ x ~ ' AS ' ~ sqlndcg.double() ~ ')') }}{%- endmacro -%}
{#- x / y as a double, 0 when y is 0. -#}
{%- macro ratio(x, y) -%}{{ return('CASE WHEN ' ~ y ~ ' = 0 THEN 0 ELSE ' ~ sqlndcg.as_double(x) ~ ' / ' ~ y ~ ' END') }}{%- endmacro -%}
{#- log2(x) for a positive double. -#}
{%- macro log2(x) -%}{{ return('(LN(' ~ sqlndcg.as_double(x) ~ ') / LN(CAST(2 AS ' ~ sqlndcg.double() ~ ')))') }}{%- endmacro -%}

{#- The whole-number part of a non-negative double (C's (long) cast). SQLite has no FLOOR without its math
    extension, and its CAST to INTEGER truncates; DuckDB's and Postgres's CAST round, so they use FLOOR. -#}
{%- macro whole(x) -%}{{ return(adapter.dispatch('whole', 'sqlndcg')(x)) }}{%- endmacro -%}
{%- macro default__whole(x) -%}{{ return('FLOOR(' ~ x ~ ')') }}{%- endmacro -%}
{%- macro sqlite__whole(x) -%}{{ return('CAST(' ~ x ~ ' AS INTEGER)') }}{%- endmacro -%}

{#- The integer part of a label, as trec_eval reads one (C's atol: 2.7 -> 2, -1.5 -> -1). -#}
{%- macro integer_part(x) -%}{{ return(adapter.dispatch('integer_part', 'sqlndcg')(x)) }}{%- endmacro -%}
{%- macro default__integer_part(x) -%}{{ return('(CASE WHEN ' ~ x ~ ' >= 0 THEN FLOOR(' ~ x ~ ') ELSE CEIL(' ~ x ~ ') END)') }}{%- endmacro -%}
{%- macro sqlite__integer_part(x) -%}{{ return('CAST(CAST(' ~ x ~ ' AS INTEGER) AS REAL)') }}{%- endmacro -%}
