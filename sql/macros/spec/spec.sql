{#-
  Metric names and settings, validated once, here, for every caller (the settings are declared in settings.sql):
  dbt models call these macros directly and the Python package renders the same ones (sqlndcg/core/render.py). A
  bad name or value is a compile error that names it and lists what is allowed; nothing is guessed.
  Error messages start with "sqlndcg <kind> error: " (metric, setting, input): Python raises the matching
  exception type, dbt shows the message as a compilation error.
-#}

{%- macro _fail(kind, message) -%}
{{ exceptions.raise_compiler_error("sqlndcg " ~ kind ~ " error: " ~ message) }}
{%- endmacro -%}

{#- A value as Python's repr would show it, for messages: text in quotes, numbers as they are (but a whole number no
    double holds in a few characters, 1e+400). -#}
{%- macro _show(value) -%}
{%- if value is string -%}{{ return("'" ~ value ~ "'") }}
{%- elif value is none -%}{{ return('None') }}
{%- elif value is integer and value is not boolean and (value | abs) > sqlndcg._max_double() -%}{{ return(sqlndcg._number_text(value)) }}
{%- elif value is sequence and value is not mapping -%}
  {%- set shown = [] -%}{%- for v in value -%}{%- do shown.append(sqlndcg._show(v)) -%}{%- endfor -%}
  {{ return('[' ~ (shown | join(', ')) ~ ']') }}
{%- else -%}{{ return(value | string) }}
{%- endif -%}
{%- endmacro -%}

{#- Per-query metric kinds, read from the measure registry (measures/registry.sql): one file per family.
    binary: labels read as relevant/not (takes a per-metric threshold, P(rel=2)@5); additive: a sum of
    per-position contributions (defined under ties='average'); emptyable: NULL under empty='skip' when there is
    nothing to find. -#}
{%- macro _metric_kinds() -%}
{{ return(sqlndcg._measures()) }}
{%- endmacro -%}

{#- Other spellings accepted on input (ir_measures, trec_eval, common usage), each declared by its measure. -#}
{%- macro _metric_aliases() -%}
{%- set out = {} -%}
{%- set measures = sqlndcg._measures() -%}
{%- for kind, about in measures.items() -%}
  {%- for alias in about.aliases -%}{%- do out.update({alias: kind}) -%}{%- endfor -%}
{%- endfor -%}
{#- ir_measures' plain names (NumRet, SetP, ...) read as it reads them; its parameterised ones (IPrec@x, RBP(p=...))
    are written here in this package's own syntax. -#}
{%- for kind, about in measures.items() -%}
  {%- set ir = (about.get('ir_measures') or '') | lower -%}
  {%- if ir and '@' not in ir and '(' not in ir and ir not in out and ir not in measures -%}{%- do out.update({ir: kind}) -%}{%- endif -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- How ir_measures' parameterised names (the measure table's ir_measures column) read where they differ from this
    package's syntax, by kind. at: the parameter @ sets (IPrec@0.5 is a recall level, not a cutoff). defaults: its
    defaults that differ from ours, so the name spelled with capitals as ir_measures spells it and without them is
    refused naming both (RBP: p = 0.8 there, 0.9 in trec_eval's rbp, which keeps lower-case rbp). rel: what its
    rel= means for a measure that takes none here. -#}
{%- macro _ir_measures_readings() -%}
{{ return({
  'iprec_at_recall': {'at': 'recall'},
  'rbp': {'defaults': {'p': 0.8},
          'rel': "ir_measures' RBP(rel=r) counts labels >= r as gain 1 and the rest 0; on labels 0 and 1 only, RBP(p=x, rel=1) equals rbp(p=x)"},
}) }}
{%- endmacro -%}

{#- Names that mean different things in two well-known tools: refused, naming both, rather than read one way. -#}
{%- macro _ambiguous_metric_names() -%}
{{ return({
  'hits': "hits@k is a hit rate in some tools (1 when any relevant document is in the top k: write hit@k or success@k) and a count in ranx (the relevant documents in the top k: write p@k, which is that count / k)",
}) }}
{%- endmacro -%}

{#- The largest cutoff: a 32-bit integer is the widest every SQL engine compares without surprises. -#}
{%- macro _max_k() -%}{{ return(2147483647) }}{%- endmacro -%}

{#- 2^rel must stay finite in a double (max ~1.8e308) with room for sums of many documents. -#}
{%- macro _max_exponential_rel() -%}{{ return(1000) }}{%- endmacro -%}

{#- Edits from a to b: insertions, deletions, substitutions and swaps of neighbours ('mpa' is one from 'map'); the
    optimal string alignment distance, written out because dbt's Jinja has no difflib. -#}
{%- macro _edit_distance(a, b) -%}
{%- set rows = [range((b | length) + 1) | list] -%}
{%- for i in range(1, (a | length) + 1) -%}
  {%- set row = [i] -%}
  {%- for j in range(1, (b | length) + 1) -%}
    {%- set best = [rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (0 if a[i - 1] == b[j - 1] else 1)] | min -%}
    {%- if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] -%}
      {%- set best = [best, rows[i - 2][j - 2] + 1] | min -%}
    {%- endif -%}
    {%- do row.append(best) -%}
  {%- endfor -%}
  {%- do rows.append(row) -%}
{%- endfor -%}
{{ return(rows[-1][-1]) }}
{%- endmacro -%}

{#- The names closest to a mistyped one, nearest first (then in the order given), at most three: those a few edits
    away (one for a name of up to 4 letters, two up to 8, else three), or that begin with it ('expo'). -#}
{%- macro _closest(given, names) -%}
{%- set given = given | string -%}
{%- set limit = 1 if (given | length) <= 4 else (2 if (given | length) <= 8 else 3) -%}
{%- set scored = [] -%}
{%- for name in names if name != given -%}
  {%- set d = sqlndcg._edit_distance(given, name) -%}
  {%- if d > limit and (given | length) >= 3 and name.startswith(given) -%}{%- set d = limit -%}{%- endif -%}
  {%- if d <= limit -%}{%- do scored.append([d, loop.index0, name]) -%}{%- endif -%}
{%- endfor -%}
{%- set out = [] -%}
{%- for s in scored | sort -%}{%- if s[2] not in out and (out | length) < 3 -%}{%- do out.append(s[2]) -%}{%- endif -%}{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- ' did you mean 'a' or 'b'?' for a message, or nothing when no name is close. -#}
{%- macro _did_you_mean(close) -%}
{%- set quoted = [] -%}{%- for c in close -%}{%- do quoted.append("'" ~ c ~ "'") -%}{%- endfor -%}
{{ return(' did you mean ' ~ (quoted | join(' or ')) ~ '?' if close else '') }}
{%- endmacro -%}

{#- Every metric name accepted on input (each kind, then the other spellings), for suggestions. -#}
{%- macro _metric_spellings() -%}
{{ return((sqlndcg._metric_kinds().keys() | list) + (sqlndcg._metric_aliases().keys() | list)) }}
{%- endmacro -%}

{%- macro _known_metrics() -%}
{%- set parts = [] -%}
{%- for kind, about in sqlndcg._metric_kinds().items() -%}
  {%- set ps = [] -%}{%- for name, value in about.params.items() -%}{%- do ps.append(name ~ '=' ~ value) -%}{%- endfor -%}
  {%- do parts.append(kind ~ (('(' ~ (ps | join(',')) ~ ')') if ps else '') ~ ('@k' if about.k else '')) -%}
{%- endfor -%}
{{ return('known metrics: ' ~ (parts | join(', ')) ~ '; also map, mrr, and P(rel=2)@5 for a per-metric threshold (definitions: docs/SEMANTICS.md)') }}
{%- endmacro -%}

{#- A number a double holds: not NaN or infinite, and no larger than the largest double (a Python int can be, and
    float() of it overflows). -#}
{%- macro _is_real(x) -%}
{{ return(x is number and x is not boolean and x * 0 == 0 and (x | abs) <= sqlndcg._max_double()) }}
{%- endmacro -%}

{%- macro _max_double() -%}{{ return(1.7976931348623157e308) }}{%- endmacro -%}

{#- A number's shortest spelling: 2 for 2.0, 1.5 for 1.5; 1e+300 (not 301 digits) from 1e16 on, and 1e+400 for a
    whole number too large for a double. -#}
{%- macro _number_text(x) -%}
{%- if x is integer and (x | abs) > sqlndcg._max_double() -%}
  {%- set digits = (x | abs | string) -%}
  {%- set mantissa = (digits[0] ~ '.' ~ digits[1:4]).rstrip('0').rstrip('.') -%}
  {{ return(('-' if x < 0 else '') ~ mantissa ~ 'e+' ~ (digits | length - 1)) }}
{%- endif -%}
{%- if (x | abs) >= 1e16 -%}{{ return(x | float | string) }}{%- endif -%}
{{ return((x | int | string) if x == (x | int) else (x | float | string)) }}
{%- endmacro -%}

{#- A measure parameter's domain (its measure's 'domains' metadata, measures/registry.sql): min and max bounds
    (closed unless min_open / max_open), integer for a whole number; a bound left out is no bound. -#}
{%- macro _in_domain(value, d) -%}
{%- set below = d.get('min') is not none and (value < d.min or (d.get('min_open') and value == d.min)) -%}
{%- set above = d.get('max') is not none and (value > d.max or (d.get('max_open') and value == d.max)) -%}
{{ return(not below and not above and (not d.get('integer') or value == (value | int))) }}
{%- endmacro -%}

{#- The domain as a reader writes it: '0 < p < 1', 'x > 0', 'n >= 0, a whole number', 'any finite number'. -#}
{%- macro _domain_text(name, d) -%}
{%- set has_min, has_max = d.get('min') is not none, d.get('max') is not none -%}
{%- set low = sqlndcg._number_text(d.min | float) if has_min else '' -%}
{%- set high = sqlndcg._number_text(d.max | float) if has_max else '' -%}
{%- set lt_min, lt_max = ('<' if d.get('min_open') else '<='), ('<' if d.get('max_open') else '<=') -%}
{%- if has_min and has_max -%}{%- set text = low ~ ' ' ~ lt_min ~ ' ' ~ name ~ ' ' ~ lt_max ~ ' ' ~ high -%}
{%- elif has_min -%}{%- set text = name ~ ' ' ~ ('>' if d.get('min_open') else '>=') ~ ' ' ~ low -%}
{%- elif has_max -%}{%- set text = name ~ ' ' ~ lt_max ~ ' ' ~ high -%}
{%- else -%}{%- set text = 'any finite number' -%}
{%- endif -%}
{{ return(text ~ (', a whole number' if d.get('integer') else '')) }}
{%- endmacro -%}

{#- One metric, parsed from a name ('nDCG@10', 'P(rel=2)@5', 'MAP', 'ndcg_cut_10', 'rbp(p=0.95)') or given as a
    mapping {kind, k, rel, params}; returns {name, kind, k, rel, params} with every declared parameter filled in.
    The canonical name lists only parameters that differ from their defaults. The one check of every field (they
    end up in SQL). -#}
{%- macro _parse_metric(item) -%}
{#- given: the parameters; written: each as the name spelled it, shown when it is refused ('1e400', not inf). -#}
{#- at: the number after @ (or _) as written: a cutoff, or the parameter a measure declares for it ('at': IPrec@0.5);
    capitals: the name is spelled with capital letters, as ir_measures writes it. -#}
{%- set given, written, at, capitals = {}, {}, none, false -%}
{%- if item is mapping -%}
  {%- set kind, k, rel, label = item.get('kind'), item.get('k'), item.get('rel'), none -%}
  {%- do given.update(item.get('params') or {}) -%}
{%- elif item is string -%}
  {%- set m = modules.re.match('^\\s*([0-9]*[a-z_]+)\\s*(?:\\(([^()]*)\\))?\\s*(?:[@_]\\s*([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)))?\\s*$', item | lower) -%}
  {%- if not m -%}
    {{ sqlndcg._fail('metric', 'cannot read metric ' ~ sqlndcg._show(item) ~ "; write it like 'ndcg@10', 'p@5', 'map', 'rbp(p=0.95)'; " ~ sqlndcg._known_metrics()) }}
  {%- endif -%}
  {%- set ambiguous = sqlndcg._ambiguous_metric_names() -%}
  {%- if m.group(1) in ambiguous -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(item) ~ ': ' ~ ambiguous[m.group(1)]) }}
  {%- endif -%}
  {%- set kind = sqlndcg._metric_aliases().get(m.group(1), m.group(1)) -%}
  {%- set rest = (item | lower)[m.end(1):] | trim -%}
  {%- set at, k, capitals = m.group(3), none, item[m.start(1):m.end(1)] != m.group(1) -%}
  {%- set rel = none -%}
  {%- if m.group(2) is not none -%}
    {%- for part in m.group(2).split(',') -%}
      {%- set pm = modules.re.match('^\\s*([a-z_]+)\\s*=\\s*([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:e[+-]?[0-9]+)?)\\s*$', part) -%}
      {%- if not pm -%}
        {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(item) ~ ': cannot read the parameter ' ~ sqlndcg._show(part.strip()) ~ "; write parameters as name=number, e.g. 'P(rel=2)@5', 'rbp(p=0.95)'") }}
      {%- endif -%}
      {%- do given.update({pm.group(1): pm.group(2) | float}) -%}{%- do written.update({pm.group(1): pm.group(2)}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set rel = given.pop('rel', none) -%}
  {%- set label = item -%}
{%- else -%}
  {{ sqlndcg._fail('metric', "a metric name must be a string like 'ndcg@10', got " ~ sqlndcg._show(item)) }}
{%- endif -%}
{%- set kinds = sqlndcg._metric_kinds() -%}
{%- if kind is not string or kind not in kinds -%}
  {%- set close = [] -%}
  {%- for name in (sqlndcg._closest(kind, sqlndcg._metric_spellings()) if kind is string else []) -%}
    {%- do close.append(name ~ (rest if label else '')) -%}
  {%- endfor -%}
  {{ sqlndcg._fail('metric', 'unknown metric ' ~ sqlndcg._show(label or kind) ~ ';' ~ sqlndcg._did_you_mean(close) ~ ' ' ~ sqlndcg._known_metrics()) }}
{%- endif -%}
{%- set about = kinds[kind] -%}
{%- set reading = sqlndcg._ir_measures_readings().get(kind, {}) -%}
{%- set label = label or kind -%}
{%- if at is not none and reading.get('at') -%}
  {%- if reading.at in given -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': ' ~ reading.at ~ ' is given twice (after @, ' ~ kind ~ "'s " ~ reading.at ~ ' as in ' ~ about.ir_measures ~ ', and as ' ~ reading.at ~ '=)') }}
  {%- endif -%}
  {%- do given.update({reading.at: at | float}) -%}{%- do written.update({reading.at: at}) -%}
{%- elif at is not none -%}
  {%- set k = (at | int) if modules.re.match('^[+-]?[0-9]+$', at) else at -%}
{%- endif -%}
{%- if k is not none and not about.k -%}
  {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': ' ~ kind ~ ' takes no cutoff @k (it is defined on the whole list)') }}
{%- endif -%}
{%- if k is not none and (k is not integer or k < 1 or k > sqlndcg._max_k()) -%}
  {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': the cutoff k must be an integer from 1 to ' ~ sqlndcg._max_k() ~ ' (or none for the full list), got ' ~ (k if k is string else sqlndcg._show(k))) }}
{%- endif -%}
{%- if rel is not none -%}
  {%- if not about.binary and reading.get('rel') -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': ' ~ kind ~ ' takes no (rel=...): it uses the graded labels, as trec_eval does, while ' ~ reading.rel) }}
  {%- elif not about.binary -%}
    {%- set binary = [] -%}{%- for name, a in kinds.items() if a.binary -%}{%- do binary.append("'" ~ name ~ "'") -%}{%- endfor -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': a (rel=...) threshold applies only to [' ~ (binary | sort | join(', ')) ~ '], whose labels are binary; ' ~ kind ~ ' uses the graded labels') }}
  {%- endif -%}
  {%- if not sqlndcg._is_real(rel) or rel <= 0 -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': the relevance threshold must be a positive finite number (' ~ sqlndcg._domain_text('rel', sqlndcg._number_domains().threshold) ~ '), got ' ~ written.get('rel', sqlndcg._show(rel))) }}
  {%- endif -%}
{%- endif -%}
{%- if capitals -%}{{ sqlndcg._refuse_ambiguous_spelling(label, kind, about, reading, given) }}{%- endif -%}
{%- set params, shown = {}, [] -%}
{%- for name in given if name not in about.params -%}
  {%- set allowed = (about.params.keys() | list) + (['rel'] if about.binary else []) -%}
  {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': ' ~ kind ~ ' has no parameter ' ~ sqlndcg._show(name) ~ '; its parameters are ' ~ sqlndcg._show(allowed)) }}
{%- endfor -%}
{%- for name, default in about.params.items() -%}
  {%- set value = given.get(name, default) -%}
  {%- set domain = about.get('domains', {}).get(name, {}) -%}
  {%- if not sqlndcg._is_real(value) -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': parameter ' ~ name ~ ' must be a finite number' ~ (' (' ~ sqlndcg._domain_text(name, domain) ~ ')' if domain else '') ~ ', got ' ~ written.get(name, sqlndcg._show(value))) }}
  {%- endif -%}
  {%- if not sqlndcg._in_domain(value | float, domain) -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ': parameter ' ~ name ~ '=' ~ sqlndcg._number_text(value | float) ~ ' is outside its domain ' ~ sqlndcg._domain_text(name, domain) ~ (' (' ~ domain.why ~ ')' if domain.get('why') else '')) }}
  {%- endif -%}
  {%- do params.update({name: value | float}) -%}
  {%- if (value | float) != (default | float) -%}{%- do shown.append(name ~ '=' ~ sqlndcg._number_text(value | float)) -%}{%- endif -%}
{%- endfor -%}
{%- if rel is not none -%}{%- do shown.insert(0, 'rel=' ~ sqlndcg._number_text(rel)) -%}{%- endif -%}
{%- set name = kind ~ (('(' ~ (shown | join(',')) ~ ')') if shown else '') ~ ('' if k is none else '@' ~ k) -%}
{{ return({'name': name, 'kind': kind, 'k': k, 'rel': none if rel is none else rel | float, 'params': params}) }}
{%- endmacro -%}


{#- A name spelled with capitals is read as ir_measures writes it: refused where ir_measures' defaults for the
    parameters not given differ from trec_eval's (and sqlndcg's), naming both readings. -#}
{%- macro _refuse_ambiguous_spelling(label, kind, about, reading, given) -%}
{%- set defaults = reading.get('defaults') or {} -%}
  {%- set differ = [] -%}
  {%- for name, value in defaults.items() if name not in given and (value | float) != (about.params[name] | float) -%}
    {%- do differ.append(name) -%}
  {%- endfor -%}
  {%- if differ -%}
    {%- set ours, theirs = [], [] -%}
    {%- for name in differ -%}
      {%- do ours.append(name ~ '=' ~ sqlndcg._number_text(about.params[name] | float)) -%}
      {%- do theirs.append(name ~ '=' ~ sqlndcg._number_text(defaults[name] | float)) -%}
    {%- endfor -%}
    {{ sqlndcg._fail('metric', 'metric ' ~ sqlndcg._show(label) ~ ' is ambiguous: without ' ~ (differ | join(', ')) ~ '=, ir_measures reads it as ' ~ kind ~ '(' ~ (theirs | join(',')) ~ ') and trec_eval and sqlndcg as ' ~ kind ~ '(' ~ (ours | join(',')) ~ '); write the one you mean: ' ~ kind ~ '(' ~ (theirs | join(',')) ~ ') (ir_measures) or ' ~ kind ~ '(' ~ (ours | join(',')) ~ ') (trec_eval)') }}
  {%- endif -%}
{%- endmacro -%}

{#- A list of names (or one comma-separated string): parsed, in order, each with its `output`: the result column
    that holds it, named as the caller spelled it ('MRR@10', 'map'; a metric given as a mapping: its canonical
    name). A repeated spelling is dropped (the first kept); two spellings of one metric ('map' and 'ap') are two
    columns, unless they differ only in case, which SQL engines read as one name: refused, naming both. -#}
{%- macro _parse_metrics(names) -%}
{%- if names is string -%}
  {%- set items = [] -%}{%- for part in names.split(',') if part.strip() -%}{%- do items.append(part) -%}{%- endfor -%}
{%- elif names is mapping -%}
  {%- set items = [names] -%}
{%- elif names is sequence -%}
  {%- set items = names -%}
{%- else -%}
  {%- set items = [names] -%}
{%- endif -%}
{%- set parsed, seen = [], {} -%}
{%- for item in items -%}
  {%- set metric = sqlndcg._parse_metric(item) -%}
  {%- set output = (item | trim) if item is string else ((item.get('output') if item is mapping else none) or metric.name) -%}
  {%- set first = seen.get(output | lower) -%}
  {%- if first is none -%}
    {%- do seen.update({output | lower: output}) -%}
    {%- do metric.update({'output': output}) -%}
    {%- do parsed.append(metric) -%}
  {%- elif first != output -%}
    {{ sqlndcg._fail('metric', 'metrics ' ~ sqlndcg._show(first) ~ ' and ' ~ sqlndcg._show(output) ~ ' are one metric (' ~ metric.name ~ ') spelled twice, and their result columns would differ only in case, which SQL engines read as one name; ask for it once') }}
  {%- endif -%}
{%- endfor -%}
{%- if not parsed -%}
  {{ sqlndcg._fail('metric', 'no metrics requested; ' ~ sqlndcg._known_metrics()) }}
{%- endif -%}
{{ return(parsed) }}
{%- endmacro -%}

{%- macro _choice(name, value, allowed) -%}
{%- if value is not string or value not in allowed -%}
  {%- set quoted = [] -%}{%- for a in allowed -%}{%- do quoted.append("'" ~ a ~ "'") -%}{%- endfor -%}
  {%- set close = sqlndcg._closest(value, allowed) if value is string else [] -%}
  {{ sqlndcg._fail('setting', name ~ '=' ~ sqlndcg._show(value) ~ ' is not allowed;' ~ sqlndcg._did_you_mean(close) ~ ' choose one of ' ~ (quoted | join(', '))) }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{#- The number settings' allowed values, as measure parameters declare theirs (_in_domain); threshold > 0 is checked
    in _spec, with its reason. -#}
{%- macro _number_domains() -%}
{{ return({'threshold': {'min': 0, 'min_open': true}}) }}
{%- endmacro -%}

{#- A number setting's rule as its flag or keyword `shown` reads: 'threshold > 0', 'any finite number'. -#}
{%- macro _number_rule(key, shown) -%}
{{ return(sqlndcg._domain_text(shown, sqlndcg._number_domains().get(key, {}))) }}
{%- endmacro -%}

{%- macro _finite_number(name, value) -%}
{%- if not sqlndcg._is_real(value) -%}
  {%- set rule = sqlndcg._number_rule(name, name) -%}
  {{ sqlndcg._fail('setting', name ~ ' must be a finite number' ~ (' (' ~ rule ~ ')' if name in sqlndcg._number_domains() else '') ~ ', got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{{ return(value | float) }}
{%- endmacro -%}

{#- gain: 'exponential', 'linear', or a map {grade: gain}. A whole grade table may list grades <= 0 with gain 0
    (it changes nothing: such grades always have gain 0); a non-zero gain for one is refused. Returns the kind and
    the positive grades' gains as sorted [grade, gain] pairs. -#}
{%- macro _parse_gain(value) -%}
{%- if value is mapping -%}
  {%- if not value -%}
    {{ sqlndcg._fail('setting', 'gain={} is empty; map each relevance grade to its gain, e.g. {1: 1, 2: 3, 3: 7}') }}
  {%- endif -%}
  {%- set pairs = [] -%}
  {%- for grade, g in value.items() -%}
    {%- set grade = sqlndcg._finite_number('gain map grade ' ~ sqlndcg._show(grade), grade) -%}
    {%- set g = sqlndcg._finite_number('gain map value for grade ' ~ sqlndcg._number_text(grade), g) -%}
    {%- if g < 0 or (grade <= 0 and g != 0) -%}
      {{ sqlndcg._fail('setting', 'gain map {' ~ sqlndcg._number_text(grade) ~ ': ' ~ sqlndcg._number_text(g) ~ '}: gains must be non-negative, and grades <= 0 always have gain 0 (list them with gain 0 or leave them out)') }}
    {%- endif -%}
    {%- if grade > 0 -%}{%- do pairs.append([grade, g]) -%}{%- endif -%}
  {%- endfor -%}
  {{ return({'gain': 'map', 'gain_map': pairs | sort(attribute='0')}) }}
{%- endif -%}
{{ return({'gain': sqlndcg._choice('gain', value, sqlndcg._settings_declared().gain['values']), 'gain_map': []}) }}
{%- endmacro -%}

{%- macro _positive_integer(name, value) -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- if value is not integer or value is boolean or value < 1 or value > sqlndcg._max_k() -%}
  {{ sqlndcg._fail('setting', name ~ ' must be a positive whole number from 1 to ' ~ sqlndcg._max_k() ~ ' (or None), got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{%- macro _flag(name, value) -%}
{%- if value is not boolean -%}
  {{ sqlndcg._fail('setting', name ~ ' must be True or False, got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{%- macro _column_name(name, value, optional=false) -%}
{%- if value is none and optional -%}{{ return(none) }}{%- endif -%}
{%- if value is not string or value == '' -%}
  {{ sqlndcg._fail('setting', name ~ ' must be a non-empty column name, got ' ~ sqlndcg._show(value)) }}
{%- endif -%}
{%- if '\x00' in value -%}
  {{ sqlndcg._fail('setting', name ~ ' ' ~ sqlndcg._show(value | replace('\x00', '\\x00')) ~ ' holds a NUL character, which no SQL engine keeps in a name; rename the column') }}
{%- endif -%}
{{ return(value) }}
{%- endmacro -%}

{#- metrics + settings -> the validated spec: plain data that every later step trusts. `settings` holds any of the
    declared names; explicit settings override the preset, the preset overrides the defaults. -#}
{%- macro _spec(metrics, settings) -%}
{%- set declared = sqlndcg._settings_declared() -%}
{%- for key in settings if key not in declared -%}
  {%- set close = sqlndcg._closest(key, declared.keys() | list) if key is string else [] -%}
  {{ sqlndcg._fail('setting', 'unknown setting ' ~ sqlndcg._show(key) ~ ';' ~ sqlndcg._did_you_mean(close) ~ ' the settings are ' ~ (declared.keys() | list | join(', '))) }}
{%- endfor -%}
{%- set preset = settings.get('preset') -%}
{%- set chosen = {} -%}
{%- if preset is not none -%}
  {%- if preset not in sqlndcg._presets() -%}
    {%- set close = sqlndcg._closest(preset, sqlndcg._presets().keys() | list) if preset is string else [] -%}
    {{ sqlndcg._fail('setting', 'preset=' ~ sqlndcg._show(preset) ~ ' is not known;' ~ sqlndcg._did_you_mean(close) ~ ' choose one of ' ~ sqlndcg._show(sqlndcg._presets().keys() | list)) }}
  {%- endif -%}
  {%- do chosen.update(sqlndcg._presets()[preset]) -%}
{%- endif -%}
{#- The value settings: every declared one but the preset and the column names. -#}
{%- set valued = [] -%}
{%- for key, about in declared.items() if key != 'preset' and not about.get('column') and not about.get('columns') -%}
  {%- do valued.append(key) -%}
  {%- if settings.get(key) is not none -%}{%- do chosen.update({key: settings[key]}) -%}{%- endif -%}
{%- endfor -%}
{#- A map setting (gain) is read first: its mistakes are reported before those of columns and metrics. -#}
{%- set mapped = {} -%}
{%- for key in valued if declared[key].get('map') -%}
  {%- do mapped.update(sqlndcg._parse_gain(chosen.get(key, declared[key].default))) -%}
{%- endfor -%}
{%- set group_by = settings.get('group_by', []) -%}
{%- set group_by = [group_by] if group_by is string else (group_by or []) -%}
{%- set groups = [] -%}
{%- for g in group_by -%}
  {%- do groups.append(sqlndcg._column_name('group_by column', g)) -%}
{%- endfor -%}
{%- if (groups | unique | list | length) != (groups | length) -%}
  {{ sqlndcg._fail('setting', 'group_by names a column twice: ' ~ sqlndcg._show(groups)) }}
{%- endif -%}
{%- set columns = {} -%}
{%- for key, about in declared.items() if about.get('column') -%}
  {%- do columns.update({key: sqlndcg._column_name(key, settings.get(key, about.default), about.get('optional', false))}) -%}
{%- endfor -%}
{%- do columns.update({'judgments_query_id': columns.judgments_query_id or columns.query_id,
                       'judgments_doc_id': columns.judgments_doc_id or columns.doc_id}) -%}
{%- set clash = [] -%}
{%- for g in groups if g in [columns.query_id, columns.doc_id, columns.score, columns.rank] -%}{%- do clash.append(g) -%}{%- endfor -%}
{%- if clash -%}
  {{ sqlndcg._fail('setting', 'group_by column(s) ' ~ sqlndcg._show(clash | sort) ~ ' are also the query, document, score or rank column') }}
{%- endif -%}
{%- set spec = {'metrics': sqlndcg._parse_metrics(metrics), 'preset': preset} -%}
{#- Each value setting checked by its declared kind, in the declaration's order. -#}
{%- for key in valued -%}
  {%- set about, value = declared[key], chosen.get(key, declared[key].default) -%}
  {%- if about.get('map') -%}{%- do spec.update(mapped) -%}
  {%- elif about.get('number') -%}{%- do spec.update({key: sqlndcg._finite_number(key, value)}) -%}
  {%- elif about.get('integer') -%}{%- do spec.update({key: sqlndcg._positive_integer(key, value)}) -%}
  {%- elif about.get('flag') -%}{%- do spec.update({key: sqlndcg._flag(key, value)}) -%}
  {%- else -%}{%- do spec.update({key: sqlndcg._choice(key, value, about['values'])}) -%}
  {%- endif -%}
{%- endfor -%}
{%- do spec.update({'group_by': groups, 'columns': columns}) -%}
{%- if spec.threshold <= 0 -%}
  {{ sqlndcg._fail('setting', 'threshold=' ~ sqlndcg._number_text(spec.threshold) ~ ': must be positive (a document is relevant when rel >= threshold; unjudged documents count as rel 0, so threshold 0 would make them relevant)') }}
{%- endif -%}
{%- if spec.unjudged_grade is not none and not spec.unjudged_bounds -%}
  {{ sqlndcg._fail('setting', 'unjudged_grade=' ~ spec.unjudged_grade ~ ' is the label of the upper bounds: it applies with unjudged_bounds=True') }}
{%- endif -%}
{{ sqlndcg._refuse_shadowed_outputs(spec) }}
{%- set kinds = sqlndcg._metric_kinds() -%}
{%- if spec.ties == 'average' -%}
  {%- set bad, additive = [], [] -%}
  {%- for m in spec.metrics if not kinds[m.kind].additive -%}{%- do bad.append(m.name) -%}{%- endfor -%}
  {%- for name, about in kinds.items() if about.additive -%}{%- do additive.append(name) -%}{%- endfor -%}
  {%- if bad -%}
    {{ sqlndcg._fail('metric', "ties='average' is defined only for metrics that add up per-position contributions (" ~ (additive | sort | join(', ')) ~ '); ' ~ (bad | join(', ')) ~ " cannot use it. Use ties='doc_id' for those, or evaluate them in a separate call.") }}
  {%- endif -%}
{%- endif -%}
{%- if spec.ties == 'rank' and not columns.rank -%}
  {{ sqlndcg._fail('setting', "ties='rank' orders by the run's rank column, but rank=None was given") }}
{%- endif -%}
{%- if spec.ties != 'rank' and not columns.score and not columns.rank -%}
  {{ sqlndcg._fail('setting', 'the run needs a score column (higher is better) or a rank column (1 is best)') }}
{%- endif -%}
{%- if spec.lower_is_better and (spec.ties == 'rank' or not columns.score) -%}
  {{ sqlndcg._fail('setting', "lower_is_better=True ranks the score column from its lowest value, but the run is ranked by its rank column (" ~ ("ties='rank'" if spec.ties == 'rank' else 'score=None') ~ '), where 1 is best whatever lower_is_better says; leave lower_is_better out') }}
{%- endif -%}
{#- Which of the score and rank columns the caller named (given, and not None), when only one: with both in the
    run, that one ranks and the other is ignored (plan.sql, _settled_spec); otherwise the two must agree. -#}
{%- set named = [] -%}
{%- for key in ['score', 'rank'] if settings.get(key) is not none -%}{%- do named.append(key) -%}{%- endfor -%}
{%- do spec.update({'order_given': named[0] if (named | length) == 1 else none}) -%}
{{ return(spec) }}
{%- endmacro -%}

{#- Every setting that changes a number, as plain values: recorded next to every result. -#}
{%- macro _recorded_settings(spec) -%}
{%- set gain = spec.gain -%}
{%- if spec.gain == 'map' -%}
  {%- set gain = {} -%}{%- for pair in spec.gain_map -%}{%- do gain.update({pair[0]: pair[1]}) -%}{%- endfor -%}
{%- endif -%}
{%- set columns = {} -%}
{%- for key, value in spec.columns.items() if value is not none -%}{%- do columns.update({key: value}) -%}{%- endfor -%}
{%- set declared = sqlndcg._settings_declared() -%}
{%- set out = {} -%}
{%- for key, about in declared.items() if not about.get('column') and not about.get('columns') and not about.get('recorded') -%}
  {%- do out.update({key: gain if about.get('map') else spec[key]}) -%}
{%- endfor -%}
{#- metrics: the result columns, as the caller spelled them; canonical_metrics: each one's canonical name. -#}
{%- set outputs, canonical = [], {} -%}
{%- for m in spec.metrics -%}
  {%- do outputs.append(sqlndcg._metric_column(m)) -%}{%- do canonical.update({sqlndcg._metric_column(m): m.name}) -%}
{%- endfor -%}
{%- do out.update({'group_by': spec.group_by, 'metrics': outputs, 'canonical_metrics': canonical, 'columns': columns}) -%}
{#- The column that ranked each list (the score, or the rank: plan.sql, _settled_spec), and the other one when the
    run has it too. -#}
{%- set by_rank = spec.ties == 'rank' or not spec.columns.score -%}
{%- do out.update({'ranked_by': spec.columns.rank if by_rank else spec.columns.score}) -%}
{%- if spec.get('ignored_column') -%}{%- do out.update({'ignored_column': spec.ignored_column}) -%}{%- endif -%}
{#- Recorded when they differ from their defaults (the preset, and those that exist for trec_eval's -M, -J and label
    reading). -#}
{%- for key, about in declared.items() if about.get('recorded') == 'when_changed' -%}
  {%- if spec.get(key, about.default) != about.default -%}{%- do out.update({key: spec[key]}) -%}{%- endif -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro -%}

{#- The per-query, summary and account tables put the group columns beside columns of their own (the query id,
    each metric and its summary columns, `queries`, the account's counts): a group column, or a query id column,
    with one of those names would give a table two columns of one name, so it is refused, never shadowed. -#}
{%- macro _refuse_shadowed_outputs(spec) -%}
{%- set out, n = sqlndcg._output_columns(spec), spec.group_by | length -%}
{%- set own = out.summary[n:] + out.added + out.account[n:] -%}
{%- for g in spec.group_by + [spec.columns.query_id] if g in own -%}
  {%- set role = 'the query id column' if g == spec.columns.query_id else 'group_by column' -%}
  {{ sqlndcg._fail('setting', role ~ ' ' ~ sqlndcg._show(g) ~ ' has the name of a column sqlndcg adds to its results (' ~ ('a metric or its summary' if g not in ['queries'] + sqlndcg._account_columns() else 'the summary or the account') ~ '); rename the input column (e.g. to ' ~ sqlndcg._show(g ~ '_') ~ ') so no output column shadows another') }}
{%- endfor -%}
{%- endmacro -%}
