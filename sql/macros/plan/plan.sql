{#-
  From a validated spec and what the inputs look like (their columns and column classes) to the plan: plain data
  (lists, dicts, strings, validated numbers; every identifier quoted for the target engine) that the SQL
  templates read. dbt learns the columns from adapter.get_columns_in_relation (entry.sql), Python from the engine
  it runs; both call these macros, so the plan has one builder.

  A column is {name, type, class}, class one of 'integer', 'number' (any other numeric type), 'text', 'other'.
-#}

{%- macro _column_names(columns) -%}
{{ return(columns | map(attribute='name') | list) }}
{%- endmacro -%}

{#- needed: (role, column name, the setting that names it) for each column an input must have; a missing one is
    refused naming that setting (the command line shows it as its flag). -#}
{%- macro _require_columns(label, columns, needed) -%}
{%- set names = sqlndcg._column_names(columns) -%}
{%- for role, name, setting in needed if name not in names -%}
  {%- set close = [] -%}
  {%- for c in names if c | lower == name | lower -%}{%- do close.append(c) -%}{%- endfor -%}
  {%- set hint = (' (did you mean ' ~ sqlndcg._show(close[0]) ~ '? names are case-sensitive)') if close else '' -%}
  {{ sqlndcg._fail('input', label ~ ' has no ' ~ role ~ ' column ' ~ sqlndcg._show(name) ~ hint ~ '; its columns are ' ~ sqlndcg._show(names) ~ '. Name the right one with ' ~ setting ~ '=.') }}
{%- endfor -%}
{%- endmacro -%}

{%- macro _column_of(columns, name) -%}
{%- for c in columns if c.name == name -%}{{ return(c) }}{%- endfor -%}
{{ return(none) }}
{%- endmacro -%}

{%- macro _require_types(label, columns, numeric, ids) -%}
{%- for name in numeric -%}
  {%- set c = sqlndcg._column_of(columns, name) -%}
  {%- if c.class not in ['integer', 'number'] -%}
    {{ sqlndcg._fail('input', label ~ ': column ' ~ sqlndcg._show(name) ~ ' holds ' ~ c.type ~ ', but must hold numbers; convert it (or fix the rows that made it text) and try again') }}
  {%- endif -%}
{%- endfor -%}
{%- for name in ids -%}
  {%- set c = sqlndcg._column_of(columns, name) -%}
  {%- if c.class not in ['integer', 'text'] -%}
    {{ sqlndcg._fail('input', label ~ ': id column ' ~ sqlndcg._show(name) ~ ' holds ' ~ c.type ~ '; ids must be text or integers (cast it, e.g. to VARCHAR)') }}
  {%- endif -%}
{%- endfor -%}
{%- endmacro -%}

{#- What the SQL must assume about the inputs: which of score/rank orders the run, whether ids compare as text,
    which group columns the judgments share. Missing or mistyped columns fail here, by name. Returns the spec with
    the order column settled, and the facts. -#}
{%- macro _settled_spec(spec, run) -%}
{%- set cols = spec.columns -%}
{%- set run_names = sqlndcg._column_names(run.columns) -%}
{%- set has_score = cols.score is not none and cols.score in run_names -%}
{%- set has_rank = cols.rank is not none and cols.rank in run_names -%}
{%- if spec.ties == 'rank' and not has_rank -%}
  {{ sqlndcg._require_columns(run.label, run.columns, [('rank', cols.rank, 'rank')]) }}
{%- endif -%}
{%- if not has_score and not has_rank -%}
  {%- set wanted, close = [], [] -%}
  {%- for c in [cols.score, cols.rank] if c -%}
    {%- do wanted.append(sqlndcg._show(c)) -%}
    {%- for n in run_names if n | lower == c | lower -%}{%- do close.append(n) -%}{%- endfor -%}
  {%- endfor -%}
  {%- set hint = (' (did you mean ' ~ sqlndcg._show(close[0]) ~ '? names are case-sensitive)') if close else '' -%}
  {{ sqlndcg._fail('input', run.label ~ ' has neither a score column nor a rank column (' ~ (wanted | join(' or ')) ~ ')' ~ hint ~ '; its columns are ' ~ sqlndcg._show(run_names) ~ '. Name one with score= (higher is better) or rank= (1 is best).') }}
{%- endif -%}
{%- set score = cols.score if has_score else none -%}
{%- set rank = cols.rank if has_rank else none -%}
{#- With both columns in the run, the one the caller named ranks (spec.sql, order_given), or the one the input's
    format ranks by (a TREC run: the score, as trec_eval reads it); else the score ranks, and the input checks
    (checks.sql, order_conflict) refuse a run whose rank column orders any query differently. The other column is
    ignored, and the settings say so. A rank column that holds no numbers is no ranking: ignored, unchecked. -#}
{%- set ignored, check = none, none -%}
{%- set named = spec.get('order_given') or run.get('ranks_by') -%}
{%- if spec.ties == 'rank' or (score and rank and named == 'rank') -%}
  {%- set ignored, score = score, none -%}
{%- elif score and rank -%}
  {%- if named != 'score' and sqlndcg._column_of(run.columns, rank).class in ['integer', 'number'] -%}
    {%- set check = {'score': score, 'rank': rank} -%}
  {%- endif -%}
  {%- set ignored, rank = rank, none -%}
{%- endif -%}
{%- if spec.get('lower_is_better') and not score -%}
  {{ sqlndcg._fail('setting', 'lower_is_better=True ranks the score column from its lowest value, but ' ~ run.label ~ ' is ranked by its rank column ' ~ sqlndcg._show(rank) ~ ' (1 is best, whatever lower_is_better says; ' ~ ('it has no score column ' ~ sqlndcg._show(cols.score) if cols.score else 'score=None') ~ '); leave lower_is_better out') }}
{%- endif -%}
{%- set settled = {} -%}{%- do settled.update(cols) -%}{%- do settled.update({'score': score, 'rank': rank}) -%}
{%- set spec_out = {} -%}{%- do spec_out.update(spec) -%}
{%- do spec_out.update({'columns': settled, 'ignored_column': ignored, 'order_check': check}) -%}
{{ return(spec_out) }}
{%- endmacro -%}

{#- What the SQL must assume about the inputs: which of score/rank orders the run, whether ids compare as text,
    which group columns the judgments share. Missing or mistyped columns fail here, by name. Returns the spec with
    the order column settled, and the facts. -#}
{%- macro _facts(spec, run, judgments) -%}
{%- set spec_out = sqlndcg._settled_spec(spec, run) -%}
{%- set cols = spec_out.columns -%}
{%- set score, rank = cols.score, cols.rank -%}
{%- set judgment_names = sqlndcg._column_names(judgments.columns) -%}
{%- set needed_run = [('query id', cols.query_id, 'query_id'), ('document id', cols.doc_id, 'doc_id')] -%}
{%- for g in spec.group_by -%}{%- do needed_run.append(('group_by', g, 'group_by')) -%}{%- endfor -%}
{{ sqlndcg._require_columns(run.label, run.columns, needed_run) }}
{{ sqlndcg._require_columns(judgments.label, judgments.columns, [('query id', cols.judgments_query_id, 'judgments_query_id'), ('document id', cols.judgments_doc_id, 'judgments_doc_id'), ('rel', cols.rel, 'rel')]) }}
{{ sqlndcg._require_types(run.label, run.columns, [score or rank], [cols.query_id, cols.doc_id]) }}
{{ sqlndcg._require_types(judgments.label, judgments.columns, [cols.rel], [cols.judgments_query_id, cols.judgments_doc_id]) }}
{%- set shared = [] -%}
{%- for g in spec.group_by if g in judgment_names -%}{%- do shared.append(g) -%}{%- endfor -%}
{#- Query ids and document ids each compare as integers when both inputs hold integers there, else as text: each id
    column's order follows its own type (integer document ids tie in numeric order under text query ids). -#}
{%- set run_doc = sqlndcg._column_of(run.columns, cols.doc_id) -%}
{%- set query_as_text = sqlndcg._column_of(run.columns, cols.query_id).class != 'integer'
                        or sqlndcg._column_of(judgments.columns, cols.judgments_query_id).class != 'integer' -%}
{%- set doc_as_text = run_doc.class != 'integer'
                      or sqlndcg._column_of(judgments.columns, cols.judgments_doc_id).class != 'integer' -%}
{{ return({'spec': spec_out, 'run': run.sql, 'judgments': judgments.sql,
           'query_ids_as_text': query_as_text, 'doc_ids_as_text': doc_as_text,
           'run_doc_ids_integer': run_doc.class == 'integer',
           'shared_groups': shared, 'run_rereadable': run.get('rereadable', false),
           'judgments_rereadable': judgments.get('rereadable', false)}) }}
{%- endmacro -%}

{#- Facts taken on trust, for SQL written without reading the inputs: the score column (or else the rank column)
    exists, the ids hold id_type ('text': compared as text in byte order, so the statement does not depend on the
    warehouse's collation; 'integer': numerically; none: as stored, for plans that only name output columns),
    the judgments serve every group. -#}
{%- macro _assumed_facts(spec, run_sql, judgments_sql, id_type=none) -%}
{%- set settled = {} -%}{%- do settled.update(spec.columns) -%}
{%- if spec.ties == 'rank' or not spec.columns.score -%}
  {%- do settled.update({'score': none}) -%}
{%- else -%}
  {%- do settled.update({'rank': none}) -%}
{%- endif -%}
{%- set spec_out = {} -%}{%- do spec_out.update(spec) -%}{%- do spec_out.update({'columns': settled}) -%}
{{ return({'spec': spec_out, 'run': run_sql, 'judgments': judgments_sql, 'query_ids_as_text': id_type == 'text',
           'doc_ids_as_text': id_type == 'text', 'run_doc_ids_integer': id_type == 'integer', 'shared_groups': []}) }}
{%- endmacro -%}

{%- macro _suffix(k) -%}{{ return('all' if k is none else k | string) }}{%- endmacro -%}

{#- spec + facts -> the plan the per-query, summary and account templates read. -#}
{%- macro _plan(facts) -%}
{%- set spec = facts.spec -%}
{%- set cols = spec.columns -%}
{%- set kinds = sqlndcg._metric_kinds() -%}
{%- set thresholds, cutoffs = [], [] -%}
{%- for m in spec.metrics -%}
  {%- set t = spec.threshold if m.rel is none else m.rel -%}
  {%- if kinds[m.kind].binary and t not in thresholds -%}{%- do thresholds.append(t) -%}{%- endif -%}
  {%- if m.k not in cutoffs -%}{%- do cutoffs.append(m.k) -%}{%- endif -%}
{%- endfor -%}
{%- set full_depth = none in cutoffs -%}
{%- set prune = not full_depth and spec.ideal == 'judgments' -%}
{#- Output names (metric and group columns, the query id, `queries`) come from output_columns (outputs.sql); the
    plan adds what the statements need inside. -#}
{%- set outputs = sqlndcg._output_columns(spec) -%}
{%- set metrics = [] -%}
{%- for m in spec.metrics -%}
  {%- set t = spec.threshold if m.rel is none else m.rel -%}
  {%- set planned = {
    'name': m.name, 'kind': m.kind, 'k': m.k, 'suffix': sqlndcg._suffix(m.k),
    'params': m.get('params', {}), 'id': '_m' ~ loop.index0, 'summary_rule': kinds[m.kind].summary,
    'threshold_index': thresholds.index(t) if kinds[m.kind].binary else none,
  } -%}
  {%- do planned.update(outputs.metrics[loop.index0]) -%}
  {%- do metrics.append(planned) -%}
{%- endfor -%}
{#- unjudged_bounds: each metric's upper bound, a metric of its own (its own output columns) computed as the metric
    it bounds (`bound_of`, its index) on the augmented judgments (per_query.sql, _per_query_bounds). -#}
{%- set bounded = metrics | length -%}
{%- for i in range(bounded) if spec.get('unjudged_bounds') -%}
  {%- set planned = {} -%}{%- do planned.update(metrics[i]) -%}
  {%- do planned.update(outputs.metrics[bounded + i]) -%}
  {%- do planned.update({'bound_of': i}) -%}
  {%- do metrics.append(planned) -%}
{%- endfor -%}
{%- set groups = sqlndcg._planned_groups(spec, facts, outputs) -%}
{%- set needs, cutoff_plans = sqlndcg._planned_needs(spec, kinds, cutoffs) -%}
{%- set positive_k = [] -%}{%- for k in cutoffs if k is not none -%}{%- do positive_k.append(k) -%}{%- endfor -%}
{#- Where the input checks count the run's repeated pairs and unjudged documents: within each list's top
    `checked_within` (the deepest position any measure reads, where only they can change a number), or on every
    row (none: checks='full', a measure reading whole lists, or settings that read past the cutoff: tied groups
    averaged whole, an ideal from the retrieved documents, trec_eval's -M and -J). -#}
{#- many_lists (in the plan below): DuckDB, whether the run holds many lists, which evaluate() counts and sets
    (top_n, dialects/rules.sql); false wherever nobody counted. sample: {fraction, seed} when a call scores a hashed
    sample of the queries (evaluate's sample=, dbt's _sampled in entry.sql), which every statement reads.
    top_table: the ranked top a checked evaluation makes once for the account and the statement (run_top.sql). -#}
{%- set checked_within = (positive_k | max) if prune and spec.get('checks', 'depth') == 'depth' and spec.ties != 'average' and spec.ideal == 'judgments' and spec.get('depth') is none and not spec.get('judged_only', false) else none -%}
{{ return({
  'spec': spec,
  'settings': sqlndcg._recorded_settings(spec),
  'run': facts.run,
  'judgments': facts.judgments,
  'run_rereadable': facts.get('run_rereadable', false),
  'judgments_rereadable': facts.get('judgments_rereadable', false),
  'run_query_id': sqlndcg._quote(cols.query_id),
  'run_doc_id': sqlndcg._quote(cols.doc_id),
  'judgments_query_id': sqlndcg._quote(cols.judgments_query_id),
  'judgments_doc_id': sqlndcg._quote(cols.judgments_doc_id),
  'rel': sqlndcg._quote(cols.rel),
  'order_by': 'score' if cols.score else 'rank',
  'score': sqlndcg._quote(cols.score) if cols.score else none,
  'rank': sqlndcg._quote(cols.rank) if cols.rank else none,
  'query_ids_as_text': facts.query_ids_as_text,
  'doc_ids_as_text': facts.doc_ids_as_text,
  'run_doc_ids_integer': facts.run_doc_ids_integer,
  'id_order': spec.get('id_order', 'native'),
  'groups': groups,
  'gain': spec.gain,
  'gain_map': spec.gain_map,
  'ideal': spec.ideal,
  'ties': spec.ties,
  'short_lists': spec.short_lists,
  'empty': spec.empty,
  'queries': spec.queries,
  'thresholds': thresholds,
  'cutoffs': cutoff_plans,
  'needs': needs,
  'labels': spec.get('labels', 'as_given'),
  'depth': spec.get('depth'),
  'judged_only': spec.get('judged_only', false),
  'unjudged_grade': spec.get('unjudged_grade'),
  'iprec_reach': spec.get('iprec_reach', 'round'),
  'prune_k': (positive_k | max) if prune else none,
  'checked_within': checked_within,
  'many_lists': false,
  'sample': none,
  'top_table': none,
  'metrics': metrics,
  'query_output': outputs.query_output,
  'queries_output': outputs.queries_output,
}) }}
{%- endmacro -%}


{#- The plan's group columns: internal alias, the column in each input, whether the judgments share it, and its
    output names. -#}
{%- macro _planned_groups(spec, facts, outputs) -%}
{%- set groups = [] -%}
{%- for name in spec.group_by -%}
  {%- set planned = {'alias': '_g' ~ loop.index0, 'run_column': sqlndcg._quote(name),
                     'judgments_column': sqlndcg._quote(name), 'shared': name in facts.shared_groups} -%}
  {%- do planned.update(outputs.groups[loop.index0]) -%}
  {%- do groups.append(planned) -%}
{%- endfor -%}
{{ return(groups) }}
{%- endmacro -%}


{#- What the metrics read (their registry `needs`), overall and per cutoff: the SQL computes only that. The full
    depth (k = none) is always planned, since measures without a cutoff read totals there: (needs, cutoff plans). -#}
{%- macro _planned_needs(spec, kinds, cutoffs) -%}
{%- set needs = [] -%}
{%- for m in spec.metrics -%}{%- for n in kinds[m.kind].needs if n not in needs -%}{%- do needs.append(n) -%}{%- endfor -%}{%- endfor -%}
{%- set cutoff_plans = [] -%}
{%- for k in cutoffs -%}
  {%- set at_k, needs_k = [], [] -%}
  {%- for m in spec.metrics if m.k == k -%}
    {%- if m.kind not in at_k -%}{%- do at_k.append(m.kind) -%}{%- endif -%}
    {%- for n in kinds[m.kind].needs if n not in needs_k -%}{%- do needs_k.append(n) -%}{%- endfor -%}
  {%- endfor -%}
  {%- do cutoff_plans.append({'k': k, 'suffix': sqlndcg._suffix(k), 'kinds': at_k | sort, 'needs': needs_k,
                              'needs_ideal': 'ideal_at' in needs_k}) -%}
{%- endfor -%}
{{ return([needs, cutoff_plans]) }}
{%- endmacro -%}
