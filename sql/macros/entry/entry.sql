{#-
  The entry points a dbt model calls, taking relations and the same keywords as sqlndcg.evaluate():

    {{ sqlndcg.per_query(run=ref('rankings'), judgments=ref('judgments'), metrics=['ndcg@10', 'p@5', 'map'],
                         group_by=['system', 'ds'], gain='exponential') }}
    {{ sqlndcg.summary(run=ref('rankings'), judgments=ref('judgments'), metrics=[...], group_by=[...]) }}
    {{ sqlndcg.summary(per_query=ref('my_per_query_model'), metrics=[...], group_by=[...]) }}
    {{ sqlndcg.summary(per_query=ref('my_per_query_model'), metrics=[...], query_weights=ref('query_traffic')) }}
    {{ sqlndcg.account(run=ref('rankings'), judgments=ref('judgments'), group_by=[...]) }}

  Settings are those of _settings_declared() (spec.sql); a misspelled or unknown one is a compilation error naming
  it. Column facts (integer or text ids, which group columns the judgments share) come from
  adapter.get_columns_in_relation. `run_where` / `judgments_where` are SQL predicates written by the model's
  author (as dbt-utils' `where`), for incremental models that evaluate only new partitions.

  Every model computed from the inputs (per_query, summary and compare from run/judgments, account; the
  query_weights of summary and compare) first checks them, at execution time, with the checks evaluate() runs (checks.sql, input_checks): a repeated (query, document)
  pair, a NULL id or score, a NaN score, ties='rank' with shared ranks, ... fails the build (`dbt run` as well as
  `dbt build`, tests or no tests) with one line naming the relation, the column(s) and a few offending rows. A
  repeated pair would otherwise count twice and give NDCG or AP above 1. check_inputs=false skips these queries
  (one scan and one GROUP BY of the key per input); pass it only when your own tests on the inputs
  (sqlndcg.valid_run / valid_judgments) run before the model and refuse the same rows.
-#}

{#- relations + metric names + settings -> the plan (validated; a bad argument is a compilation error). The inputs
    are checked first unless check_inputs is false (it may also arrive among the settings: compare passes its
    keywords on). -#}
{%- macro _relation_plan(run, judgments, metrics, settings, run_where=none, judgments_where=none, check_inputs=true) -%}
{%- set check_inputs = settings.get('check_inputs', check_inputs) -%}
{%- set rest = {} -%}
{%- for name, value in settings.items() if name != 'check_inputs' -%}{%- do rest.update({name: value}) -%}{%- endfor -%}
{%- if check_inputs is not sameas true and check_inputs is not sameas false -%}
  {{ sqlndcg._fail('setting', 'check_inputs= must be true or false, got ' ~ sqlndcg._show(check_inputs)) }}
{%- endif -%}
{%- set spec = sqlndcg._spec(metrics, rest) -%}
{%- set run_input = sqlndcg._input_relation('run', run, run_where) -%}
{%- set judgments_input = sqlndcg._input_relation('judgments', judgments, judgments_where) -%}
{%- set facts = sqlndcg._facts(spec, run_input, judgments_input) -%}
{%- if check_inputs -%}
  {{ sqlndcg._refuse_bad_input('run', facts.spec, run_input, []) }}
  {{ sqlndcg._refuse_bad_input('judgments', facts.spec, judgments_input, facts.shared_groups) }}
{%- endif -%}
{{ return(sqlndcg._plan(facts)) }}
{%- endmacro -%}

{#- One row as Python's checks show it: (query_id='q1', doc_id='d2', copies=2). -#}
{%- macro _shown_row(names, row) -%}
{%- set parts = [] -%}
{%- for name in names -%}{%- do parts.append(name ~ '=' ~ sqlndcg._show(row[loop.index0])) -%}{%- endfor -%}
{{ return('(' ~ (parts | join(', ')) ~ ')') }}
{%- endmacro -%}

{#- The checks evaluate() runs on an input before computing (checks.sql; sqlndcg/checks.py runs the same
    declarations), run here with run_query: one scan counts every kind of bad value, one GROUP BY finds repeated
    keys, and only on a failure are a few offending rows fetched for the message. Fails the model with one line. -#}
{%- macro _refuse_bad_input(role, spec, input, shared) -%}
{{ sqlndcg._refuse_declared(input, sqlndcg._input_checks(role, spec, input.columns, shared),
                           'sqlndcg.valid_run' if role == 'run' else 'sqlndcg.valid_judgments') }}
{%- endmacro -%}

{#- A query weights input (weights_plan's result) checked as evaluate(query_weights=) checks it: a query weighted
    twice would count twice (more queries than there are) and a negative or NaN weight has no meaning. Skipped
    when `settings` (compare's keywords) hold check_inputs=false. -#}
{%- macro _refuse_bad_weights(weights, settings={}) -%}
{%- if settings.get('check_inputs', true) -%}
  {{ sqlndcg._refuse_declared(weights, sqlndcg._weights_checks(weights), 'sqlndcg.valid_query_weights') }}
{%- endif -%}
{%- endmacro -%}

{#- `declared` as checks.sql's input_checks declares it (identity, problems, key_meaning, hint, unique_ranks);
    `input` is {sql, label}; `test` the generic test that lists every offending row. -#}
{%- macro _refuse_declared(input, declared, test) -%}
{%- set shown_limit = 5 -%}
{%- set advice = '. The generic test ' ~ test ~ ' lists every such row (dbt test --store-failures).' -%}
{%- set identity = declared.identity -%}
{%- set quoted = [] -%}{%- for c in identity -%}{%- do quoted.append(sqlndcg._quote(c)) -%}{%- endfor -%}
{%- if declared.problems -%}
  {%- set counts = run_query(sqlndcg._profile(input.sql, declared.problems)).rows[0] -%}
  {%- for c in declared.problems -%}
    {%- set count = counts[loop.index0 + 1] -%}
    {%- if count -%}
    {%- set names = identity + ([c.name] if c.name not in identity else []) -%}
    {%- set columns = quoted + ([c.column] if c.name not in identity else []) -%}
    {%- set rows = run_query(sqlndcg._offending_rows(input.sql, c, columns, shown_limit)).rows -%}
    {%- set shown = [] -%}{%- for r in rows -%}{%- do shown.append(sqlndcg._shown_row(names, r)) -%}{%- endfor -%}
    {{ sqlndcg._fail('input', input.label ~ ': column ' ~ sqlndcg._show(c.name) ~ ' ' ~ c.message ~ ' in '
                    ~ count ~ ' row(s), e.g. ' ~ (shown | join(', ')) ~ advice) }}
    {%- endif -%}
  {%- endfor -%}
{%- endif -%}
{%- set dupes = run_query(sqlndcg._duplicates(input.sql, quoted, shown_limit)).rows -%}
{%- if dupes | length -%}
  {%- set shown = [] -%}{%- for r in dupes -%}{%- do shown.append(sqlndcg._shown_row(identity + ['copies'], r)) -%}{%- endfor -%}
  {{ sqlndcg._fail('input', input.label ~ ': ' ~ dupes[0][-1] ~ ' ' ~ declared.key_meaning ~ ' occur more than once ('
                  ~ (identity | join(', ')) ~ '), e.g. ' ~ (shown | join(', ')) ~ '. Each must appear once'
                  ~ declared.hint ~ '; nothing is dropped or chosen silently' ~ advice) }}
{%- endif -%}
{%- set conflict = declared.get('order_conflict') -%}
{%- if conflict -%}
  {%- set rows = run_query(sqlndcg._order_conflicts(input.sql, conflict, 1)).rows -%}
  {%- if rows | length -%}
    {%- set r = rows[0] -%}
    {%- set n = conflict.identity | length -%}
    {{ sqlndcg._fail('input', input.label ~ ': its score column ' ~ sqlndcg._show(conflict.score) ~ ' and rank column '
                    ~ sqlndcg._show(conflict.rank) ~ ' order the documents differently in ' ~ r[n + 3] ~ ' quer(ies), e.g. '
                    ~ sqlndcg._shown_row(conflict.identity, r) ~ ': the document at rank ' ~ r[n] ~ ' has score ' ~ r[n + 1] ~ ', '
                    ~ ('lower (lower_is_better=True)' if conflict.lower_is_better else 'higher') ~ ' than the score '
                    ~ r[n + 2] ~ ' of a document ranked above it. Say which column ranks: give score='
                    ~ sqlndcg._show(conflict.score) ~ ' (the rank column is then ignored) or rank=' ~ sqlndcg._show(conflict.rank)
                    ~ ' (the score column is ignored)') }}
  {%- endif -%}
{%- endif -%}
{%- if declared.unique_ranks -%}
  {%- set rank_keys = [] -%}{%- for c in declared.unique_ranks -%}{%- do rank_keys.append(sqlndcg._quote(c)) -%}{%- endfor -%}
  {%- set shared_ranks = run_query(sqlndcg._duplicates(input.sql, rank_keys, shown_limit)).rows -%}
  {%- if shared_ranks | length -%}
    {%- set shown = [] -%}{%- for r in shared_ranks -%}{%- do shown.append(sqlndcg._shown_row(declared.unique_ranks + ['copies'], r)) -%}{%- endfor -%}
    {{ sqlndcg._fail('input', input.label ~ ": ties='rank' needs distinct ranks within a query, but " ~ shared_ranks[0][-1]
                    ~ " rank(s) are shared, e.g. " ~ (shown | join(', ')) ~ "; use ties='doc_id' or 'average' to break or average ties by score" ~ advice) }}
  {%- endif -%}
{%- endif -%}
{%- endmacro -%}

{#- summary(per_query=...) reads one column per metric: a metric the per-query model lacks fails here, at compile
    time, naming the model, the missing column(s) and those it has, not as the engine's Binder Error at run time. A
    column matches in any case (DuckDB and Snowflake fold names; the per-query model's names are the metrics'). -#}
{%- macro _refuse_missing_metrics(relation, plan) -%}
{%- set have = [] -%}
{%- for c in sqlndcg._relation_columns(relation) -%}{%- do have.append(c.name) -%}{%- endfor -%}
{%- if not have -%}
  {{ sqlndcg._fail('input', 'per_query relation ' ~ relation ~ ' does not exist or has no columns') }}
{%- endif -%}
{%- set lowered = have | map('lower') | list -%}
{%- set missing = [] -%}
{%- for m in plan.metrics if m.name | lower not in lowered -%}{%- do missing.append(m.name) -%}{%- endfor -%}
{%- if missing -%}
  {{ sqlndcg._fail('input', 'per_query relation ' ~ relation ~ ' has no column for the metric(s) ' ~ sqlndcg._show(missing)
                  ~ ' (its columns: ' ~ sqlndcg._show(have) ~ '); build it with sqlndcg.per_query(metrics=...) listing them, or ask summary only for the metrics it has') }}
{%- endif -%}
{%- endmacro -%}

{#- sample= (or the variable sqlndcg_sample) and seed= (sqlndcg_seed): a share of the queries chosen by a hash of
    their id, the same as evaluate(sample=, seed=) chooses (per_query.sql, _in_sample); the summary's interval then
    carries the finite-population correction and the account counts the sampled queries. The one check of both
    values, for dbt and for Python (sqlndcg/stats/sample.py). -#}
{%- macro _sampled(plan, sample, seed) -%}
{%- set fraction = sample if sample is not none else (var('sqlndcg_sample', none) if var is defined else none) -%}
{%- set seed = seed if seed is not none else (var('sqlndcg_seed', 0) if var is defined else 0) -%}
{%- if fraction is none -%}{{ return(plan) }}{%- endif -%}
{%- if fraction is not number or fraction is boolean or fraction <= 0 or fraction > 1 -%}
  {{ sqlndcg._fail('setting', 'sample=' ~ sqlndcg._show(fraction) ~ ': give the share of queries to evaluate, a number with 0 < sample <= 1 (0.01: one query in a hundred)') }}
{%- endif -%}
{%- if seed is not integer or seed is boolean or seed < 0 or seed >= 9223372036854775808 -%}
  {{ sqlndcg._fail('setting', 'seed=' ~ sqlndcg._show(seed) ~ ": the sample's seed is a whole number from 0 to 2**63 - 1") }}
{%- endif -%}
{%- set sampled = dict(plan) -%}{%- do sampled.update({'sample': {'fraction': fraction | float, 'seed': seed}}) -%}
{{ return(sampled) }}
{%- endmacro -%}

{%- macro per_query(run=none, judgments=none, metrics=none, run_where=none, judgments_where=none, check_inputs=true,
                    sample=none, seed=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- if metrics is none -%}{{ sqlndcg._fail('metric', "per_query needs metrics=, e.g. metrics=['ndcg@10', 'p@5', 'map']") }}{%- endif -%}
{%- set plan = sqlndcg._sampled(sqlndcg._relation_plan(run, judgments, metrics, kwargs, run_where, judgments_where, check_inputs), sample, seed) -%}
{{ return(sqlndcg._per_query_sql(plan)) }}
{%- endmacro -%}

{%- macro summary(run=none, judgments=none, metrics=none, per_query=none, run_where=none, judgments_where=none,
                  query_weights=none, weight_column='weight', check_inputs=true, sample=none, seed=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- if metrics is none -%}{{ sqlndcg._fail('metric', "summary needs metrics=, e.g. metrics=['ndcg@10', 'p@5', 'map']") }}{%- endif -%}
{%- if per_query is not none -%}
  {#- Summarize a per-query model built by sqlndcg.per_query with the same metrics and group_by. -#}
  {%- set plan = sqlndcg._sampled(sqlndcg._output_columns(sqlndcg._spec(metrics, kwargs)), sample, seed) -%}
  {{ sqlndcg._refuse_missing_metrics(per_query, plan) }}
  {%- set source = per_query -%}
{%- else -%}
  {%- set plan = sqlndcg._sampled(sqlndcg._relation_plan(run, judgments, metrics, kwargs, run_where, judgments_where, check_inputs), sample, seed) -%}
  {%- set source = '(' ~ sqlndcg._per_query_sql(plan, false) ~ ')' -%}
{%- endif -%}
{%- set weights = none -%}
{%- if query_weights is not none -%}
  {%- set weights = sqlndcg._weights_plan(plan, sqlndcg._input_relation('query weights', query_weights), weight_column) -%}
  {%- if check_inputs -%}{{ sqlndcg._refuse_bad_weights(weights) }}{%- endif -%}
{%- endif -%}
{{ return(sqlndcg._summary_sql(source, plan, weights)) }}
{%- endmacro -%}

{%- macro account(run=none, judgments=none, metrics=['ndcg'], run_where=none, judgments_where=none, check_inputs=true,
                  sample=none, seed=none) -%}
{%- if not execute -%}{{ return(sqlndcg._parse_time_placeholder()) }}{%- endif -%}
{%- set plan = sqlndcg._sampled(sqlndcg._relation_plan(run, judgments, metrics, kwargs, run_where, judgments_where, check_inputs), sample, seed) -%}
{{ return(sqlndcg._account_sql(plan)) }}
{%- endmacro -%}
