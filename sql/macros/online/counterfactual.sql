{#-
  Counterfactual (off-policy) metrics of a new ranking on old click logs: what a metric that adds up a relevance
  times a position weight would be if the new ranking had been shown, estimated from the clicks the logged
  rankings got (docs/online.md, "Counterfactual metrics").

    metric(q) = sum over documents d of weight(rank of d in the new ranking) * gamma(q, d)

  gamma(q, d) the position-based model's attractiveness (the click probability at an examined position), and the
  weights: dcg@k 1 / log2(r + 1) for r <= k; p@k 1 / k for r <= k; clicks@k 1 for r <= k (no k: the whole list);
  rbp(p=...) (1 - p) p^(r - 1) (p = 0.9 by default).

  Estimators, per (group, query), with C(d) the clicks on d over the query's n impressions and E(d) the sum of
  theta(logged position) over the rows that showed d (its expected examinations):
    ips      sum_d weight(d) * C(d) / E(d): every click on d weighs 1 / rho(d), rho(d) = E(d) / n the mean
             examination probability of d over the impressions (the policy-aware propensity of Oosterhuis and de
             Rijke, CIKM 2020); when d is shown in every impression this is the IPS estimator of Joachims,
             Swaminathan and Schnabel (WSDM 2017), each click weighing 1 / theta(its position);
    clipped  ips with theta floored at `clip` (Strehl et al., NeurIPS 2010; Joachims et al. 2017): less variance, a
             downward bias where theta < clip;
    snips    the self-normalised ratio (Swaminathan and Joachims, NeurIPS 2015; Wang et al., SIGIR 2016): ips divided
             by sum_d C(d) / E(d), the estimated relevance shown, so it is the mean weight the new ranking gives a
             unit of relevance shown (in [0, the largest weight]); it compares rankings, not ips's scale.
  Summaries weigh each query by its impressions (the metric per impression of the logged traffic); snips is the
  ratio of the two weighted sums. Documents the new ranking places that no impression of the query showed are
  unknown: they add nothing, and the result counts them (`unknown`) and the share of the position weight they hold
  (`unknown_weight`). A logged query the new ranking lacks scores 0. Intervals: a Poisson bootstrap (resample.sql)
  over queries or impressions, nearest-rank percentiles.

    {{ sqlndcg.counterfactual(log=ref('impressions'), run=ref('ranker_v2'), propensities=ref('theta'),
                              metrics=['dcg@10', 'clicks@5'], estimator='snips') }}
-#}

{%- macro _counterfactual_declared() -%}
{{ return({'metrics': ['dcg@10'], 'estimator': 'ips', 'clip': none, 'propensities': none, 'resample': 'queries',
           'bootstrap': 1000, 'seed': 0, 'level': 0.95, 'max_position': none, 'score': 'score',
           'propensity_position': 'position', 'propensity_column': 'propensity'}) }}
{%- endmacro -%}

{%- macro _counterfactual_estimators() -%}{{ return(['ips', 'clipped', 'snips']) }}{%- endmacro -%}

{#- A metric name -> {name, kind, k, p}: dcg@k (or dcg), p@k, clicks@k (or clicks), rbp or rbp(p=x). -#}
{%- macro _counterfactual_metric(text) -%}
{%- set forms = "'dcg@10', 'dcg', 'p@10', 'clicks@10', 'clicks', 'rbp', 'rbp(p=0.8)'" -%}
{%- set m = modules.re.match('^\\s*([a-z_]+)\\s*(?:\\(\\s*p\\s*=\\s*([0-9]*\\.?[0-9]+(?:e[+-]?[0-9]+)?)\\s*\\))?\\s*(?:@\\s*([0-9]+))?\\s*$', text | lower) if text is string else none -%}
{%- if not m or m.group(1) not in ['dcg', 'p', 'clicks', 'rbp'] -%}
  {{ sqlndcg._fail('metric', 'counterfactual: cannot estimate ' ~ sqlndcg._show(text) ~ ' from clicks; these add up a relevance times a position weight, which IPS estimates: ' ~ forms ~ ' (NDCG, AP and RR also need the ideal ranking or the first relevant document, which clicks do not give)') }}
{%- endif -%}
{%- set kind, k = m.group(1), (m.group(3) | int if m.group(3) is not none else none) -%}
{%- if m.group(2) is not none and kind != 'rbp' -%}
  {{ sqlndcg._fail('metric', 'counterfactual: ' ~ sqlndcg._show(text) ~ ': only rbp takes a parameter, p') }}
{%- elif kind == 'rbp' and k is not none -%}
  {{ sqlndcg._fail('metric', 'counterfactual: ' ~ sqlndcg._show(text) ~ ': rbp has no cutoff (its weights shrink by p); write rbp or rbp(p=0.8)') }}
{%- elif kind == 'p' and k is none -%}
  {{ sqlndcg._fail('metric', 'counterfactual: ' ~ sqlndcg._show(text) ~ ': precision needs a cutoff, e.g. p@10') }}
{%- elif k is not none and (k < 1 or k > 100000) -%}
  {{ sqlndcg._fail('metric', 'counterfactual: ' ~ sqlndcg._show(text) ~ ': the cutoff must be from 1 to 100000') }}
{%- endif -%}
{%- set p = (m.group(2) | float) if m.group(2) is not none else 0.9 -%}
{%- if kind == 'rbp' and not (0 < p < 1) -%}
  {{ sqlndcg._fail('metric', 'counterfactual: ' ~ sqlndcg._show(text) ~ ': p, the persistence, must be between 0 and 1 (exclusive)') }}
{%- endif -%}
{%- set name = ('rbp' if m.group(2) is none else 'rbp(p=' ~ m.group(2) ~ ')') if kind == 'rbp' else kind ~ ('@' ~ k if k is not none else '') -%}
{{ return({'name': name, 'kind': kind, 'k': k, 'p': p}) }}
{%- endmacro -%}

{#- The position weight of metric `m` at rank `r` (a column, NULL where the ranking lacks the document: weight 0;
    ClickHouse's outer joins fill 0 instead of NULL, so 0 counts as not ranked too). -#}
{%- macro _counterfactual_weight(m, r) -%}
{%- set d = sqlndcg.double() -%}
{%- set within = r ~ ' >= 1' ~ ((' AND ' ~ r ~ ' <= ' ~ m.k) if m.k is not none else '') -%}
{%- if m.kind == 'dcg' -%}{%- set w = sqlndcg._discount(r) -%}
{%- elif m.kind == 'p' -%}{%- set w = 'CAST(1 AS ' ~ d ~ ') / ' ~ m.k -%}
{%- elif m.kind == 'clicks' -%}{%- set w = 'CAST(1 AS ' ~ d ~ ')' -%}
{%- else -%}{%- set w = '(1 - ' ~ sqlndcg._number(m.p) ~ ') * POWER(' ~ sqlndcg._number(m.p) ~ ', ' ~ r ~ ' - 1)' -%}
{%- endif -%}
{{ return('CASE WHEN ' ~ within ~ ' THEN ' ~ w ~ ' ELSE 0 END') }}
{%- endmacro -%}

{#- The runs' plan: each run (and the baseline) described as {sql, label, columns}, checked for its columns. -#}
{%- macro _counterfactual_runs(runs_in, s, log_columns, ids_as_text) -%}
{%- set needed = [('query id', log_columns.query_id, 'query_id'), ('document id', log_columns.doc_id, 'doc_id'), ('score', s.score, 'score')] -%}
{%- set ns = namespace(text=ids_as_text) -%}
{%- for run in runs_in -%}
  {{ sqlndcg._judgment_require_columns(run, needed) }}
  {{ sqlndcg._judgment_require_types(run, [s.score], [log_columns.query_id, log_columns.doc_id]) }}
  {%- if sqlndcg._judgment_ids_as_text([(run, log_columns.query_id), (run, log_columns.doc_id)]) -%}{%- set ns.text = true -%}{%- endif -%}
{%- endfor -%}
{%- set runs = [] -%}
{%- for run in runs_in -%}
  {%- set integer_docs = sqlndcg._column_of(run.columns, log_columns.doc_id).class == 'integer' -%}
  {%- do runs.append({'sql': run.sql, 'label': run.label, 'tie': sqlndcg._tie_doc({'doc_ids_as_text': ns.text, 'run_doc_ids_integer': integer_docs})}) -%}
{%- endfor -%}
{%- set checks = [] -%}
{%- for name in [log_columns.query_id, log_columns.doc_id, s.score] -%}{%- do checks.append(sqlndcg._judgment_check('null', name, 'is NULL')) -%}{%- endfor -%}
{{ return({'runs': runs, 'ids_as_text': ns.text, 'checks': checks, 'identity': [log_columns.query_id, log_columns.doc_id]}) }}
{%- endmacro -%}

{#- The log's plan (log.sql), the run and the baseline (none) and the propensity table (none) described, and the
    settings -> the plan. `given.propensities` is 'table' (the table `props`) or 'logged'. -#}
{%- macro _counterfactual_plan(log, run, baseline, props, given) -%}
{%- set tool = 'counterfactual' -%}
{%- set s = sqlndcg._judgment_settings(tool, sqlndcg._counterfactual_declared(), given) -%}
{%- set estimator = sqlndcg._choice('estimator', s.estimator, sqlndcg._counterfactual_estimators()) -%}
{%- set resample = sqlndcg._choice('resample', s.resample, ['queries', 'impressions']) -%}
{%- if s.propensities not in ['table', 'logged'] -%}
  {{ sqlndcg._fail('setting', tool ~ ": give propensities=, theta per position (a table of position, propensity, e.g. the result of sqlndcg.propensities), or propensities='logged' for the log's propensity column") }}
{%- endif -%}
{%- if s.propensities == 'logged' and log.propensity is none -%}
  {{ sqlndcg._fail('input', log.label ~ " has no propensity column for propensities='logged'; name it with propensity=") }}
{%- endif -%}
{%- set clip = none if s.clip is none else sqlndcg._finite_number('clip', s.clip) -%}
{%- if estimator == 'clipped' and clip is none -%}
  {{ sqlndcg._fail('setting', tool ~ ": estimator='clipped' floors theta at clip=: give it, e.g. clip=0.1") }}
{%- elif estimator == 'ips' and clip is not none -%}
  {{ sqlndcg._fail('setting', tool ~ ": estimator='ips' is unclipped; clip= goes with estimator='clipped' (or 'snips')") }}
{%- elif clip is not none and not (0 < clip <= 1) -%}
  {{ sqlndcg._fail('setting', tool ~ ': clip, the floor of theta, must be in (0, 1], got ' ~ sqlndcg._show(s.clip)) }}
{%- endif -%}
{%- set level = sqlndcg._finite_number('level', s.level) -%}
{%- if not (0 < level < 1) -%}{{ sqlndcg._fail('setting', tool ~ ': level must be between 0 and 1, got ' ~ sqlndcg._show(s.level)) }}{%- endif -%}
{%- set metrics = [] -%}
{%- for text in ([s.metrics] if s.metrics is string else s.metrics) -%}{%- do metrics.append(sqlndcg._counterfactual_metric(text)) -%}{%- endfor -%}
{%- if not metrics or (metrics | map(attribute='name') | unique | list | length) != (metrics | length) -%}
  {{ sqlndcg._fail('metric', tool ~ ': give one or more distinct metrics, got ' ~ sqlndcg._show(s.metrics)) }}
{%- endif -%}
{{ return(sqlndcg._counterfactual_plan_parts(tool, log, run, baseline, props, s, estimator, resample, clip, level, metrics)) }}
{%- endmacro -%}

{%- macro _counterfactual_plan_parts(tool, log, run, baseline, props, s, estimator, resample, clip, level, metrics) -%}
{%- set pp = sqlndcg._propensities_plan(log, {'method': 'em', 'max_position': s.max_position, 'bootstrap': 0}) -%}
{%- set bootstrap = sqlndcg._online_whole(tool, 'bootstrap', s.bootstrap, 0, 9999) -%}
{%- set seed = sqlndcg._online_whole(tool, 'seed', s.seed, 0, 2147483647) -%}
{%- set rp = sqlndcg._counterfactual_runs([run] + ([baseline] if baseline is not none else []), s, log.settings.columns, log.ids_as_text) -%}
{%- set joined = {} -%}{%- do joined.update(log) -%}{%- do joined.update({'ids_as_text': rp.ids_as_text}) -%}
{%- set em = {} -%}{%- do em.update(pp) -%}{%- do em.update({'log': joined}) -%}
{%- set table = sqlndcg._click_labels_table(log, props, s) if s.propensities == 'table' else none -%}
{%- set cutoffs = metrics | map(attribute='k') | list -%}
{%- set recorded = {'metrics': metrics | map(attribute='name') | list, 'estimator': estimator, 'clip': clip,
                    'propensities': s.propensities, 'resample': resample, 'bootstrap': bootstrap, 'seed': seed,
                    'level': level, 'max_position': pp.max_position, 'baseline': baseline is not none} -%}
{%- do recorded.update(log.settings) -%}
{%- do recorded.columns.update({'score': s.score}) -%}
{{ return({'log': joined, 'em': em, 'source': s.propensities, 'table': table, 'runs': rp.runs, 'run_checks': rp.checks,
           'run_identity': rp.identity, 'metrics': metrics, 'estimator': estimator, 'clip': clip, 'resample': resample,
           'bootstrap': bootstrap, 'seed': seed, 'level': level, 'baseline': baseline is not none,
           'depth': none if none in cutoffs else cutoffs | max, 'score': sqlndcg._quote(s.score), 'settings': recorded}) }}
{%- endmacro -%}
