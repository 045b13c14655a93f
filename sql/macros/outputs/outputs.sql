{#-
  The columns sqlndcg's tables have, from a spec alone (no input is read), stated once here:
    per_query   the group columns, the query id, one column per metric
    summary     the group columns, `queries`, and per metric its mean (under its name) and the summary suffixes
    added       the columns Python adds to the summary: per metric the bootstrap interval (sqlndcg.stats.intervals)
    account     the group columns and the account's counts (account.sql)
    compare     with `system`: the strata (the other group columns), the system column and the paired statement's
                own columns (compare.sql), else none
  Beside the names, the shape the statements over a per-query table read (summary.sql, compare.sql, weights.sql,
  the generic tests): `groups` ({name, output}), `metrics` (name, emptyable, and each output column quoted),
  `query_output`, `queries_output`, and `spec`. The plan (plan.sql) carries the same shape, built here, so those
  statements take a plan or these outputs alike; dbt's per_query= callers have only a spec, and need no more.
-#}

{#- A metric's summary columns, as [plan key, suffix] pairs: its mean under its own name, then the spread. -#}
{%- macro _summary_suffixes() -%}
{{ return([['column', ''], ['count_column', '_count'], ['std_column', '_std'], ['ci_low_column', '_ci_low'],
           ['ci_high_column', '_ci_high']]) }}
{%- endmacro -%}

{#- unjudged_bounds: each metric's upper bound (per_query.sql, _per_query_bounds) is a metric column of its own,
    named with this suffix, after every metric; the summary treats it as one more metric. -#}
{%- macro _upper_suffix() -%}{{ return('_upper') }}{%- endmacro -%}

{#- The account's columns after the group columns, in order: what each counts is in account_sql's header
    (statements/account.sql). Group columns may not take these names (spec.sql refuses them, so no output column
    shadows another). -#}
{%- macro _account_columns() -%}
{{ return(['run_rows', 'run_queries', 'run_queries_without_judgments', 'judgments', 'judged_queries',
           'judged_queries_missing_from_run', 'retrieved_unjudged', 'scored_queries']) }}
{%- endmacro -%}

{#- paired_sql's columns (statements/compare.sql) after the strata and the system column, in order (output_columns
    below names them). -#}
{%- macro _compare_columns() -%}
{{ return(['baseline', 'metric', 'metric_index', 'pairs', 'effective_pairs', 'baseline_mean', 'mean', 'difference',
           'difference_std', 't_low', 't_high', 'relative_change', 'effect_size', 'wins', 'ties', 'losses', 'only_baseline',
           'only_system']) }}
{%- endmacro -%}

{#- The bootstrap interval's suffixes: Python adds these columns to the summary (evaluate(bootstrap=...)). -#}
{%- macro _bootstrap_suffixes() -%}
{{ return(['_bootstrap_low', '_bootstrap_high']) }}
{%- endmacro -%}

{#- The result column of a parsed metric: named as the caller spelled it (spec.sql, _parse_metrics), else its
    canonical name. -#}
{%- macro _metric_column(m) -%}{{ return(m.get('output') or m.name) }}{%- endmacro -%}

{%- macro _output_columns(spec, system=none) -%}
{%- set kinds = sqlndcg._measures() -%}
{%- set groups, metrics = [], [] -%}
{%- set per_query, summary, added, account = [], [], [], [] -%}
{%- for name in spec.group_by -%}
  {%- do groups.append({'name': name, 'output': sqlndcg._quote(name)}) -%}
  {%- do per_query.append(name) -%}{%- do summary.append(name) -%}{%- do account.append(name) -%}
{%- endfor -%}
{%- do per_query.append(spec.columns.query_id) -%}
{%- do summary.append('queries') -%}
{%- do account.extend(sqlndcg._account_columns()) -%}
{%- set named = [] -%}
{%- for m in spec.metrics -%}{%- do named.append(sqlndcg._metric_column(m)) -%}{%- endfor -%}
{%- if spec.get('unjudged_bounds') -%}
  {%- for m in spec.metrics -%}{%- do named.append(sqlndcg._metric_column(m) ~ sqlndcg._upper_suffix()) -%}{%- endfor -%}
{%- endif -%}
{%- for name in named -%}
  {%- set m = spec.metrics[loop.index0 % (spec.metrics | length)] -%}
  {%- set columns = {'name': name, 'emptyable': kinds[m.kind].emptyable} -%}
  {%- for key, suffix in sqlndcg._summary_suffixes() -%}
    {%- do columns.update({key: sqlndcg._quote(name ~ suffix)}) -%}
    {%- do summary.append(name ~ suffix) -%}
  {%- endfor -%}
  {%- do metrics.append(columns) -%}
  {%- do per_query.append(name) -%}
  {%- for suffix in sqlndcg._bootstrap_suffixes() -%}{%- do added.append(name ~ suffix) -%}{%- endfor -%}
{%- endfor -%}
{%- set compare = none -%}
{%- if system is not none -%}
  {%- set compare = [] -%}
  {%- for name in spec.group_by if name != system -%}{%- do compare.append(name) -%}{%- endfor -%}
  {%- do compare.append(system) -%}
  {%- do compare.extend(sqlndcg._compare_columns()) -%}
{%- endif -%}
{{ return({'spec': spec, 'groups': groups, 'metrics': metrics, 'query_output': sqlndcg._quote(spec.columns.query_id),
           'queries_output': sqlndcg._quote('queries'), 'per_query': per_query, 'summary': summary, 'added': added,
           'account': account, 'compare': compare}) }}
{%- endmacro -%}
