{#-
  The measure registry: one file per measure family in this folder, each opening with its definition (formula,
  trec_eval and ir_measures names, conventions), as trec_eval's m_*.c files do. A family is two macros:

    default__measure_<kind>()        what it is: help, aliases, parameters, and how the rest of the SQL treats it
    default__value_<kind>(m, p, a)   its per-query value, an SQL expression over the per-query aggregates

  and optionally default__aggregates_<kind>(m, p): its own per-query aggregates, [suffix, expression] pairs
  computed over the ranked rows (the `accumulated` CTE of per_query.sql) and read back as rm.<m.id>_<suffix>.
  They are called through adapter.dispatch, so dbt resolves them by name and an engine may override one.
  Adding a measure: a new file here and its kind in _measure_families() below (Jinja cannot list a folder). Python
  reads everything else from the declaration: the trec_eval command's tables (sqlndcg/verbs/trec_eval.py),
  metric_range (sqlndcg/core/metrics.py) and the measure table of docs/SEMANTICS.md (tools/measure_docs.py).

  Metadata keys (defaults in _measure_defaults()):
    help            one line, for errors and docs
    aliases         other spellings (lower case) accepted for the kind
    k               whether the measure takes a cutoff @k
    binary          labels read as relevant/not at `threshold` (takes a per-metric rel=..., P(rel=2)@5)
    additive        a sum of per-position contributions (defined under ties='average')
    emptyable       NULL under empty='skip' when there is nothing to find
    params          extra parameters {name: default}, written kind(name=value)
    domains         each parameter's allowed values {name: {min, max, min_open, max_open, integer, why}}, checked
                    where names are parsed (spec.sql); a bound left out is no bound, {} any finite number
    needs           shared aggregates it reads (per_query.sql computes only what some metric needs); a name
                    per_query.sql does not compute itself is declared by a measure file, default__shared_<need>
                    (its hooks: per_query.sql's header; ERR's cascade in err.sql, NCG's gain sums in ncg.sql)
    range           [lo, hi] every per-query value lies in (for non-negative gains, whatever the settings); none:
                    no fixed range. Confidence intervals and plots keep to it.
    summary         trec_eval's rule for the `all` line: mean, gm (geometric mean), sum
    trec_eval       the trec_eval families computed by this measure, a list (empty: none), each with the keys of
                    _trec_eval_defaults() below
    ir_measures     the ir_measures spelling (none: ir_measures lacks it)

  A trec_eval family ({'name': ..., 'order': ..., ...}, defaults in _trec_eval_defaults()):
    name            trec_eval's -m name (P, map_cut, ...)
    order           its place in trec_eval's measure table (measures.c), the order it is printed in
    nicknames       the trec_eval nicknames that include it (official, all_trec, set)
    since           the trec_eval version whose all_trec first includes it (9 for the families 9.x has)
    params          how trec_eval reads `-m name.params`: 'none'; 'cutoffs' (P.5,10: one line per cutoff, the
                    metric's @k); 'levels' (iprec_at_recall.0.1,0.5: one line per level, setting `param`);
                    'gain_pairs' (ndcg.1=3,2=9: per-grade gains); 'named' (rbp.p=0.95: name=value pairs for
                    `param`); 'coefficients' (utility.1,-1,0,0: the numbers for the parameters `param` lists, and
                    the parameter `collection_size` takes trec_eval -N); 'beta_squared' (set_F.x: `param` is
                    sqrt(x)); 'averaged_levels' (11pt_avg..25,.5: the mean of the measure `of` at those levels
                    of its `param`)
    defaults        what trec_eval prints without params: its cutoffs, levels or coefficients
    param           the sqlndcg parameter (or list of them) the params set
    integer         printed as an integer (%ld) rather than %.4f
    summary_only    printed only in the `all` line
-#}

{%- macro _measure_families() -%}
{{ return([
  'cg', 'dcg', 'idcg', 'ndcg', 'p', 'r', 'ap', 'rr', 'hit', 'judged',
  'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'num_nonrel_judged_ret',
  'gm_map', 'rprec', 'rprec_mult', 'bpref', 'gm_bpref', 'infap', 'iprec_at_recall', '11pt_avg',
  'utility', 'bing', 'g', 'ndcg_rel', 'rndcg', 'relative_p',
  'set_p', 'set_relative_p', 'set_recall', 'set_map', 'set_f',
  'rbp', 'rbp_resid', 'unj',
  'err', 'ncg',
]) }}
{%- endmacro -%}

{%- macro _measure_defaults() -%}
{{ return({'aliases': [], 'k': false, 'binary': false, 'additive': false, 'emptyable': false, 'params': {},
           'domains': {}, 'needs': [], 'range': none, 'summary': 'mean', 'trec_eval': [], 'ir_measures': none}) }}
{%- endmacro -%}

{%- macro _trec_eval_defaults() -%}
{{ return({'nicknames': ['all_trec'], 'since': 9, 'params': 'none', 'defaults': [], 'param': none, 'of': none,
           'collection_size': none, 'integer': false, 'summary_only': false}) }}
{%- endmacro -%}

{#- Every family's metadata, defaults filled in, in registry order. -#}
{%- macro _measures() -%}
{%- set out = {} -%}
{%- for kind in sqlndcg._measure_families() -%}
  {%- set about = {} -%}
  {%- do about.update(sqlndcg._measure_defaults()) -%}
  {%- do about.update(sqlndcg._dispatched('measure_' ~ kind)()) -%}
  {%- set families = [] -%}
  {%- for given in about.trec_eval -%}
    {%- set family = {} -%}
    {%- do family.update(sqlndcg._trec_eval_defaults()) -%}
    {%- do family.update(given) -%}
    {%- do families.append(family) -%}
  {%- endfor -%}
  {%- do about.update({'trec_eval': families}) -%}
  {%- do out.update({kind: about}) -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- One metric's per-query value: the family's value macro, given `a`, the per-query aggregates as SQL expressions
    (per_query.sql's metric_value builds it): a value macro reads only `a`, never the statement's columns. -#}
{%- macro _measure_value(m, p, a) -%}
{{ return(sqlndcg._dispatched('value_' ~ m.kind)(m, p, a)) }}
{%- endmacro -%}

{#- One metric's own per-query aggregates ([suffix, expression] pairs); none unless its family defines them. -#}
{%- macro _measure_aggregates(m, p) -%}
{%- if 'own' not in sqlndcg._measures()[m.kind].needs -%}{{ return([]) }}{%- endif -%}
{{ return(sqlndcg._dispatched('aggregates_' ~ m.kind)(m, p)) }}
{%- endmacro -%}

{#- Shared helpers for the measure files. -#}
{%- macro _least(a, b) -%}{{ return('(CASE WHEN ' ~ a ~ ' < ' ~ b ~ ' THEN ' ~ a ~ ' ELSE ' ~ b ~ ' END)') }}{%- endmacro -%}
{%- macro _greatest(a, b) -%}{{ return('(CASE WHEN ' ~ a ~ ' > ' ~ b ~ ' THEN ' ~ a ~ ' ELSE ' ~ b ~ ' END)') }}{%- endmacro -%}
{#- SUM(x) over a list's rows (an own aggregate of run_metrics), added in rank order where the engine orders an
    aggregate's input (DuckDB: ordered, dialects/rules.sql), as trec_eval's loop over the ranking adds: the same bits
    whatever the input's size or the thread count. -#}
{%- macro _rank_sum(x) -%}{{ return(sqlndcg.ordered('SUM', x, '_pos')) }}{%- endmacro -%}
{#- A measure's loop over the ranking, as trec_eval's m_*.c writes it, where the running values are doubles (DCG so
    far, p^i as a running product, ...) and only that loop's order of additions gives trec_eval's bits. Where the
    engine has rank_folds (dialects/rules.sql; DuckDB's list_reduce and lambdas; a measure's other branch is the portable
    SQL): the list's rows in rank order, each a struct of `fields` ([name, expression] pairs, as doubles, read as
    _x.name), folded from the state `init` by `step` ([name, expression] pairs over _acc, the state so far, and _x);
    gives the final state. -#}
{%- macro _rank_reduce(fields, step, init) -%}
{{ return('list_reduce(list(' ~ sqlndcg._struct(fields) ~ ' ORDER BY _pos), lambda _acc, _x: ' ~ sqlndcg._struct(step) ~ ', '
          ~ sqlndcg._struct(init) ~ ')') }}
{%- endmacro -%}
{%- macro _struct(pairs) -%}
{%- set parts = [] -%}
{%- for pair in pairs %}{% do parts.append("'" ~ pair[0] ~ "': " ~ sqlndcg._as_double(pair[1])) %}{% endfor -%}
{{ return('{' ~ parts | join(', ') ~ '}') }}
{%- endmacro -%}
{#- x / y as a double, 0 when y is 0. -#}
{%- macro _ratio(x, y) -%}{{ return('CASE WHEN ' ~ y ~ ' = 0 THEN 0 ELSE ' ~ sqlndcg._as_double(x) ~ ' / ' ~ y ~ ' END') }}{%- endmacro -%}
