{#-
  Metric names and settings, declared once and validated once, here, for every caller: dbt models call these
  macros directly and the Python package renders the same ones (sqlndcg/render.py). A bad name or value is a
  compile error that names it and lists what is allowed; nothing is guessed.
  Error messages start with "sqlndcg <kind> error: " (metric, setting, input): Python raises the matching
  exception type, dbt shows the message as a compilation error.
-#}

{%- macro fail(kind, message) -%}
{{ exceptions.raise_compiler_error("sqlndcg " ~ kind ~ " error: " ~ message) }}
{%- endmacro -%}

{#- A value as Python's repr would show it, for messages: text in quotes, numbers as they are. -#}
{%- macro show(value) -%}
{%- if value is string -%}{{ return("'" ~ value ~ "'") }}
{%- elif value is none -%}{{ return('None') }}
{%- elif value is sequence and value is not mapping -%}
  {%- set shown = [] -%}{%- for v in value -%}{%- do shown.append(sqlndcg.show(v)) -%}{%- endfor -%}
  {{ return('[' ~ (shown | join(', ')) ~ ']') }}
{%- else -%}{{ return(value | string) }}
{%- endif -%}
{%- endmacro -%}

{#- Settings: name -> allowed values (first is the default) or kind, and what it decides. The Python API, the CLI
    and the docs read this declaration too. -#}
{%- macro settings_declared() -%}
{{ return({
  'preset': {'values': ['trec_eval', 'sklearn'], 'default': none,
             'help': 'fill the settings not given so the numbers equal a known tool'},
  'gain': {'values': ['exponential', 'linear'], 'map': true, 'default': 'exponential',
           'help': 'exponential: 2^rel - 1; linear: rel; or a map {grade: gain}'},
  'ideal': {'values': ['judgments', 'retrieved'], 'default': 'judgments',
            'help': 'where IDCG comes from: every judged document, or only the retrieved ones'},
  'ties': {'values': ['doc_id', 'average', 'rank'], 'default': 'doc_id',
           'help': 'equal scores: ordered by doc id descending, averaged, or the run\'s rank as given'},
  'short_lists': {'values': ['pad', 'truncate'], 'default': 'pad',
                  'help': 'lists shorter than k: padded with non-relevant positions, or evaluated at their length'},
  'empty': {'values': ['zero', 'skip', 'error'], 'default': 'zero',
            'help': 'queries with nothing to find: score 0, leave out of the mean (NULL), or refuse'},
  'queries': {'values': ['judged', 'both'], 'default': 'judged',
              'help': 'which queries are averaged: every judged query, or only those in run and judgments'},
  'threshold': {'number': true, 'default': 1.0,
                'help': 'the label from which a document is relevant (binary metrics, R)'},
  'group_by': {'columns': true, 'default': [],
               'help': 'columns that split the run into rankings evaluated separately (system, day, segment)'},
  'query_id': {'column': true, 'default': 'query_id', 'help': 'query id column'},
  'doc_id': {'column': true, 'default': 'doc_id', 'help': 'document id column'},
  'score': {'column': true, 'optional': true, 'default': 'score', 'help': 'score column (higher is better)'},
  'rank': {'column': true, 'optional': true, 'default': 'rank', 'help': 'rank column (1 is best)'},
  'rel': {'column': true, 'default': 'rel', 'help': 'relevance label column of the judgments'},
  'judgments_query_id': {'column': true, 'optional': true, 'default': none,
                         'help': 'query id column of the judgments, when it differs'},
  'judgments_doc_id': {'column': true, 'optional': true, 'default': none,
                       'help': 'document id column of the judgments, when it differs'},
}) }}
{%- endmacro -%}

{#- Named bundles of settings that reproduce a well-known tool exactly (SEMANTICS.md, "Presets"). -#}
{%- macro presets() -%}
{{ return({
  'trec_eval': {'gain': 'linear', 'ideal': 'judgments', 'ties': 'doc_id', 'short_lists': 'pad', 'empty': 'zero',
                'queries': 'judged'},
  'sklearn': {'gain': 'linear', 'ideal': 'retrieved', 'ties': 'average'},
}) }}
{%- endmacro -%}

{#- Per-query metric kinds. binary: labels read as relevant/not (takes a per-metric threshold, P(rel=2)@5);
    additive: a sum of per-position contributions (defined under ties='average'); emptyable: NULL under
    empty='skip' when there is nothing to find. -#}
{%- macro metric_kinds() -%}
{{ return({
  'cg': {'help': 'cumulative gain: sum of relevance labels in the top k', 'binary': false, 'additive': true, 'emptyable': false},
  'dcg': {'help': 'discounted cumulative gain', 'binary': false, 'additive': true, 'emptyable': false},
  'idcg': {'help': 'DCG of the ideal ranking', 'binary': false, 'additive': true, 'emptyable': false},
  'ndcg': {'help': 'normalized DCG = DCG / IDCG', 'binary': false, 'additive': true, 'emptyable': true},
  'p': {'help': 'precision: relevant documents in the top k, divided by k', 'binary': true, 'additive': true, 'emptyable': false},
  'r': {'help': 'recall: relevant documents in the top k, divided by all relevant', 'binary': true, 'additive': true, 'emptyable': true},
  'ap': {'help': 'average precision (MAP is its mean)', 'binary': true, 'additive': false, 'emptyable': true},
  'rr': {'help': 'reciprocal rank of the first relevant document (MRR is its mean)', 'binary': true, 'additive': false, 'emptyable': false},
  'hit': {'help': '1 if any relevant document is in the top k', 'binary': true, 'additive': false, 'emptyable': false},
  'judged': {'help': 'share of the top k that has a judgment', 'binary': false, 'additive': true, 'emptyable': false},
}) }}
{%- endmacro -%}

{#- Other spellings accepted on input (ir_measures, trec_eval, common usage). -#}
{%- macro metric_aliases() -%}
{{ return({'map': 'ap', 'mrr': 'rr', 'recip_rank': 'rr', 'precision': 'p', 'recall': 'r', 'ndcg_cut': 'ndcg',
           'map_cut': 'ap', 'hits': 'hit', 'hitrate': 'hit', 'hit_rate': 'hit', 'success': 'hit'}) }}
{%- endmacro -%}

{#- The largest cutoff: a 32-bit integer is the widest every SQL engine compares without surprises. -#}
{%- macro max_k() -%}{{ return(2147483647) }}{%- endmacro -%}

{#- 2^rel must stay finite in a double (max ~1.8e308) with room for sums of many documents. -#}
{%- macro max_exponential_rel() -%}{{ return(1000) }}{%- endmacro -%}

{%- macro known_metrics() -%}
{%- set parts = [] -%}
{%- for kind, about in sqlndcg.metric_kinds().items() -%}{%- do parts.append(kind ~ '@k (' ~ about.help ~ ')') -%}{%- endfor -%}
{{ return('known metrics: ' ~ (parts | join(', ')) ~ '; also map, mrr, and P(rel=2)@5 for a per-metric threshold') }}
{%- endmacro -%}

{%- macro is_real(x) -%}
{{ return(x is number and x is not boolean and x * 0 == 0) }}
{%- endmacro -%}

{#- A number's shortest spelling: 2 for 2.0, 1.5 for 1.5. -#}
{%- macro number_text(x) -%}
{{ return((x | int | string) if x == (x | int) else (x | float | string)) }}
{%- endmacro -%}

{#- One metric, parsed from a name ('nDCG@10', 'P(rel=2)@5', 'MAP', 'ndcg_cut_10') or given as a mapping
    {kind, k, rel}; returns {name, kind, k, rel}. The one check of every field (they end up in SQL). -#}
{%- macro parse_metric(item) -%}
{%- if item is mapping -%}
  {%- set kind, k, rel, label = item.get('kind'), item.get('k'), item.get('rel'), none -%}
{%- elif item is string -%}
  {%- set m = modules.re.match('^\\s*([a-z_]+)\\s*(?:\\(\\s*rel\\s*=\\s*([0-9]+(?:\\.[0-9]+)?)\\s*\\))?\\s*(?:[@_]\\s*([+-]?[0-9]+))?\\s*$', item | lower) -%}
  {%- if not m -%}
    {{ sqlndcg.fail('metric', 'cannot read metric ' ~ sqlndcg.show(item) ~ "; write it like 'ndcg@10', 'p@5', 'map'; " ~ sqlndcg.known_metrics()) }}
  {%- endif -%}
  {%- set kind = sqlndcg.metric_aliases().get(m.group(1), m.group(1)) -%}
  {%- set k = none if m.group(3) is none else (m.group(3) | int) -%}
  {%- set rel = none if m.group(2) is none else (m.group(2) | float) -%}
  {%- set label = item -%}
{%- else -%}
  {{ sqlndcg.fail('metric', "a metric name must be a string like 'ndcg@10', got " ~ sqlndcg.show(item)) }}
{%- endif -%}
{%- set kinds = sqlndcg.metric_kinds() -%}
{%- if kind is not string or kind not in kinds -%}
  {{ sqlndcg.fail('metric', 'unknown metric ' ~ sqlndcg.show(label or kind) ~ '; ' ~ sqlndcg.known_metrics()) }}
{%- endif -%}
{%- set label = label or kind -%}
{%- if k is not none and (k is not integer or k < 1 or k > sqlndcg.max_k()) -%}
  {{ sqlndcg.fail('metric', 'metric ' ~ sqlndcg.show(label) ~ ': the cutoff k must be an integer from 1 to ' ~ sqlndcg.max_k() ~ ' (or none for the full list), got ' ~ sqlndcg.show(k)) }}
{%- endif -%}
{%- if rel is not none -%}
  {%- if not kinds[kind].binary -%}
    {%- set binary = [] -%}{%- for name, about in kinds.items() if about.binary -%}{%- do binary.append("'" ~ name ~ "'") -%}{%- endfor -%}
    {{ sqlndcg.fail('metric', 'metric ' ~ sqlndcg.show(label) ~ ': a (rel=...) threshold applies only to [' ~ (binary | sort | join(', ')) ~ '], whose labels are binary; ' ~ kind ~ ' uses the graded labels') }}
  {%- endif -%}
  {%- if not sqlndcg.is_real(rel) or rel <= 0 -%}
    {{ sqlndcg.fail('metric', 'metric ' ~ sqlndcg.show(label) ~ ': the relevance threshold must be a positive number, got ' ~ sqlndcg.show(rel)) }}
  {%- endif -%}
{%- endif -%}
{%- set name = kind ~ ('' if rel is none else '(rel=' ~ sqlndcg.number_text(rel) ~ ')') ~ ('' if k is none else '@' ~ k) -%}
{{ return({'name': name, 'kind': kind, 'k': k, 'rel': none if rel is none else rel | float}) }}
{%- endmacro -%}

{#- A list of names (or one comma-separated string): parsed, repeats dropped (the first kept), in order. -#}
{%- macro parse_metrics(names) -%}
{%- if names is string -%}
  {%- set items = [] -%}{%- for part in names.split(',') if part.strip() -%}{%- do items.append(part) -%}{%- endfor -%}
{%- elif names is mapping -%}
  {%- set items = [names] -%}
{%- elif names is sequence -%}
  {%- set items = names -%}
{%- else -%}
  {%- set items = [names] -%}
{%- endif -%}
{%- set parsed, seen = [], [] -%}
{%- for item in items -%}
  {%- set metric = sqlndcg.parse_metric(item) -%}
  {%- if metric.name not in seen -%}{%- do seen.append(metric.name) -%}{%- do parsed.append(metric) -%}{%- endif -%}
{%- endfor -%}
{%- if not parsed -%}
  {{ sqlndcg.fail('metric', 'no metrics requested; ' ~ sqlndcg.known_metrics()) }}
{%- endif -%}
{{ return(parsed) }}
{%- endmacro -%}

{%- macro choice(name, value, allowed) -%}
{%- if value is not string or value not in allowed -%}
  {%- set quoted = [] -%}{%- for a in allowed -%}{%- do quoted.append("'" ~ a ~ "'") -%}{%- endfor -%}
  {{ sqlndcg.fail('setting', name ~ '=' ~ sqlndcg.show(value) ~ ' is not allowed; choose one of ' ~ (quoted | join(', '))) }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{%- macro finite_number(name, value) -%}
{%- if not sqlndcg.is_real(value) -%}
  {{ sqlndcg.fail('setting', name ~ ' must be a finite number, got ' ~ sqlndcg.show(value)) }}
{%- endif -%}
{{ return(value | float) }}
{%- endmacro -%}

{#- gain: 'exponential', 'linear', or a map {grade: gain}. A whole grade table may list grades <= 0 with gain 0
    (it changes nothing: such grades always have gain 0); a non-zero gain for one is refused. Returns the kind and
    the positive grades' gains as sorted [grade, gain] pairs. -#}
{%- macro parse_gain(value) -%}
{%- if value is mapping -%}
  {%- if not value -%}
    {{ sqlndcg.fail('setting', 'gain={} is empty; map each relevance grade to its gain, e.g. {1: 1, 2: 3, 3: 7}') }}
  {%- endif -%}
  {%- set pairs = [] -%}
  {%- for grade, g in value.items() -%}
    {%- set grade = sqlndcg.finite_number('gain map grade ' ~ sqlndcg.show(grade), grade) -%}
    {%- set g = sqlndcg.finite_number('gain map value for grade ' ~ sqlndcg.number_text(grade), g) -%}
    {%- if g < 0 or (grade <= 0 and g != 0) -%}
      {{ sqlndcg.fail('setting', 'gain map {' ~ sqlndcg.number_text(grade) ~ ': ' ~ sqlndcg.number_text(g) ~ '}: gains must be non-negative, and grades <= 0 always have gain 0 (list them with gain 0 or leave them out)') }}
    {%- endif -%}
    {%- if grade > 0 -%}{%- do pairs.append([grade, g]) -%}{%- endif -%}
  {%- endfor -%}
  {{ return({'gain': 'map', 'gain_map': pairs | sort(attribute='0')}) }}
{%- endif -%}
{{ return({'gain': sqlndcg.choice('gain', value, sqlndcg.settings_declared().gain['values']), 'gain_map': []}) }}
{%- endmacro -%}

{%- macro column_name(name, value, optional=false) -%}
{%- if value is none and optional -%}{{ return(none) }}{%- endif -%}
{%- if value is not string or value == '' -%}
  {{ sqlndcg.fail('setting', name ~ ' must be a non-empty column name, got ' ~ sqlndcg.show(value)) }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{#- metrics + settings -> the validated spec: plain data that every later step trusts. `settings` holds any of the
    declared names; explicit settings override the preset, the preset overrides the defaults. -#}
{%- macro spec(metrics, settings) -%}
{%- set declared = sqlndcg.settings_declared() -%}
{%- for key in settings if key not in declared -%}
  {{ sqlndcg.fail('setting', 'unknown setting ' ~ sqlndcg.show(key) ~ '; the settings are ' ~ (declared.keys() | list | join(', '))) }}
{%- endfor -%}
{%- set preset = settings.get('preset') -%}
{%- set chosen = {} -%}
{%- if preset is not none -%}
  {%- if preset not in sqlndcg.presets() -%}
    {{ sqlndcg.fail('setting', 'preset=' ~ sqlndcg.show(preset) ~ " is not known; choose one of 'trec_eval', 'sklearn'") }}
  {%- endif -%}
  {%- do chosen.update(sqlndcg.presets()[preset]) -%}
{%- endif -%}
{%- for key in ['gain', 'ideal', 'ties', 'short_lists', 'empty', 'queries', 'threshold'] -%}
  {%- if settings.get(key) is not none -%}{%- do chosen.update({key: settings[key]}) -%}{%- endif -%}
{%- endfor -%}
{%- set gain = sqlndcg.parse_gain(chosen.get('gain', declared.gain.default)) -%}
{%- set group_by = settings.get('group_by', []) -%}
{%- set group_by = [group_by] if group_by is string else (group_by or []) -%}
{%- set groups = [] -%}
{%- for g in group_by -%}
  {%- do groups.append(sqlndcg.column_name('group_by column', g)) -%}
{%- endfor -%}
{%- if (groups | unique | list | length) != (groups | length) -%}
  {{ sqlndcg.fail('setting', 'group_by names a column twice: ' ~ sqlndcg.show(groups)) }}
{%- endif -%}
{%- set columns = {} -%}
{%- for key, about in declared.items() if about.get('column') -%}
  {%- do columns.update({key: sqlndcg.column_name(key, settings.get(key, about.default), about.get('optional', false))}) -%}
{%- endfor -%}
{%- do columns.update({'judgments_query_id': columns.judgments_query_id or columns.query_id,
                       'judgments_doc_id': columns.judgments_doc_id or columns.doc_id}) -%}
{%- set clash = [] -%}
{%- for g in groups if g in [columns.query_id, columns.doc_id, columns.score, columns.rank] -%}{%- do clash.append(g) -%}{%- endfor -%}
{%- if clash -%}
  {{ sqlndcg.fail('setting', 'group_by column(s) ' ~ sqlndcg.show(clash | sort) ~ ' are also the query, document, score or rank column') }}
{%- endif -%}
{%- set spec = {
  'metrics': sqlndcg.parse_metrics(metrics),
  'preset': preset,
  'gain': gain.gain,
  'gain_map': gain.gain_map,
  'ideal': sqlndcg.choice('ideal', chosen.get('ideal', declared.ideal.default), declared.ideal['values']),
  'ties': sqlndcg.choice('ties', chosen.get('ties', declared.ties.default), declared.ties['values']),
  'short_lists': sqlndcg.choice('short_lists', chosen.get('short_lists', declared.short_lists.default), declared.short_lists['values']),
  'empty': sqlndcg.choice('empty', chosen.get('empty', declared.empty.default), declared.empty['values']),
  'queries': sqlndcg.choice('queries', chosen.get('queries', declared.queries.default), declared.queries['values']),
  'threshold': sqlndcg.finite_number('threshold', chosen.get('threshold', declared.threshold.default)),
  'group_by': groups,
  'columns': columns,
} -%}
{%- if spec.threshold <= 0 -%}
  {{ sqlndcg.fail('setting', 'threshold=' ~ sqlndcg.number_text(spec.threshold) ~ ': must be positive (a document is relevant when rel >= threshold; unjudged documents count as rel 0, so threshold 0 would make them relevant)') }}
{%- endif -%}
{%- set kinds = sqlndcg.metric_kinds() -%}
{%- if spec.ties == 'average' -%}
  {%- set bad, additive = [], [] -%}
  {%- for m in spec.metrics if not kinds[m.kind].additive -%}{%- do bad.append(m.name) -%}{%- endfor -%}
  {%- for name, about in kinds.items() if about.additive -%}{%- do additive.append(name) -%}{%- endfor -%}
  {%- if bad -%}
    {{ sqlndcg.fail('metric', "ties='average' is defined only for metrics that add up per-position contributions (" ~ (additive | sort | join(', ')) ~ '); ' ~ (bad | join(', ')) ~ " cannot use it. Use ties='doc_id' for those, or evaluate them in a separate call.") }}
  {%- endif -%}
{%- endif -%}
{%- if spec.ties == 'rank' and not columns.rank -%}
  {{ sqlndcg.fail('setting', "ties='rank' orders by the run's rank column, but rank=None was given") }}
{%- endif -%}
{%- if spec.ties != 'rank' and not columns.score and not columns.rank -%}
  {{ sqlndcg.fail('setting', 'the run needs a score column (higher is better) or a rank column (1 is best)') }}
{%- endif -%}
{{ return(spec) }}
{%- endmacro -%}

{#- Every setting that changes a number, as plain values: recorded next to every result. -#}
{%- macro recorded_settings(spec) -%}
{%- set gain = spec.gain -%}
{%- if spec.gain == 'map' -%}
  {%- set gain = {} -%}{%- for pair in spec.gain_map -%}{%- do gain.update({pair[0]: pair[1]}) -%}{%- endfor -%}
{%- endif -%}
{%- set columns = {} -%}
{%- for key, value in spec.columns.items() if value is not none -%}{%- do columns.update({key: value}) -%}{%- endfor -%}
{%- set out = {'gain': gain, 'ideal': spec.ideal, 'ties': spec.ties, 'short_lists': spec.short_lists,
               'empty': spec.empty, 'queries': spec.queries, 'threshold': spec.threshold,
               'group_by': spec.group_by, 'metrics': spec.metrics | map(attribute='name') | list,
               'columns': columns} -%}
{%- if spec.preset -%}{%- do out.update({'preset': spec.preset}) -%}{%- endif -%}
{{ return(out) }}
{%- endmacro -%}
