{#-
  err(max_grade=g)@k: expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009), the expected
  1/r of the position r where a cascade user stops, stopping at position i with probability R_i:
    ERR@k = sum_{r <= k} (1 / r) * R_r * prod_{i < r} (1 - R_i)        R_i = (2^g_i - 1) / 2^g_max
  g_i: the label at position i, with unjudged and negative labels 0 and labels above g_max read as g_max (clamped;
  gdeval.pl refuses a qrels file with a label above its maximum, 4, instead). g_max: max_grade, or, for
  max_grade=0 (the default), the largest label of the whole judgments table (every query, every group: one scale
  for all queries, so their values are comparable; 0 when no label is positive). Gains are always 2^g - 1
  whatever the `gain` setting: R_i is a probability. Not normalized (no ideal ranking): ERR of the best possible
  list is below 1. Short lists add nothing past their end (pad and truncate agree). Not additive, so no
  ties='average'. trec_eval: none. ir_measures: ERR@k (computed by gdeval, max grade 4: err(max_grade=4)@k).
-#}
{%- macro default__measure_err() -%}
{{ return({'help': 'expected reciprocal rank (cascade model), grades scaled by max_grade (0: the judgments\' largest)',
           'k': true, 'params': {'max_grade': 0}, 'needs': ['cascade', 'own'], 'range': [0, 1],
           'domains': {'max_grade': {'min': 0, 'max': 1000,
                                     'why': 'the top grade g_max, R = (2^g - 1) / 2^g_max; 0 takes the largest label of the judgments'}},
           'ir_measures': 'ERR@k'}) }}
{%- endmacro -%}
{#- With rank_folds (DuckDB), the cascade folded over the list in rank order: the log of prod_{i<r} (1 - R_i) and
    the count of R_i = 1 so far as running values, the same bits whatever the input's size or the thread count. -#}
{%- macro default__aggregates_err(m, p) -%}
{%- if sqlndcg.rank_folds() -%}
{%- set c = sqlndcg._cascade_columns(m, p) -%}
{%- set within = '1' if m.k is none else 'CASE WHEN _pos <= ' ~ m.k ~ ' THEN 1 ELSE 0 END' -%}
{%- set fold = sqlndcg._rank_reduce([['r', c.stop], ['w', within], ['pos', '_pos']],
      [['l', '_acc.l + CASE WHEN _x.r < 1 THEN LN(1 - _x.r) ELSE 0 END'], ['b', '_acc.b + CASE WHEN _x.r < 1 THEN 0 ELSE 1 END'],
       ['s', '_acc.s + CASE WHEN _x.w = 1 AND _acc.b = 0 THEN _x.r * EXP(_acc.l) / _x.pos ELSE 0 END']],
      [['l', 0], ['b', 0], ['s', 0]]) -%}
{{ return([['sum', fold ~ '.s']]) }}
{%- else -%}
{%- set c = sqlndcg._cascade_columns(m, p) -%}
{%- set within = '1 = 1' if m.k is none else '_pos <= ' ~ m.k -%}
{{ return([['sum', sqlndcg._rank_sum('CASE WHEN ' ~ within ~ ' AND ' ~ c.blocked ~ ' = 0 THEN ' ~ c.stop ~ ' * EXP(' ~ c.reach_ln ~ ') / _pos ELSE 0 END')]]) }}
{%- endif -%}
{%- endmacro -%}
{%- macro default__value_err(m, p, a) -%}{{ return('COALESCE(' ~ a.own ~ 'sum, 0)') }}{%- endmacro -%}

{#- The cascade's top grades: each distinct max_grade of the metrics that need it (0: the judgments' largest label),
    one set of columns each. -#}
{%- macro _cascade_tops(p) -%}
{%- set kinds = sqlndcg._measures() -%}
{%- set tops = [] -%}
{%- for m in p.metrics if 'cascade' in kinds[m.kind].needs and m.params.max_grade not in tops -%}
  {%- do tops.append(m.params.max_grade) -%}
{%- endfor -%}
{{ return(tops) }}
{%- endmacro -%}

{#- The cascade's columns for one metric, as its own aggregates read them in `accumulated` (above). -#}
{%- macro _cascade_columns(m, p) -%}
{%- set i = sqlndcg._cascade_tops(p).index(m.params.max_grade) -%}
{{ return({'stop': '_stop_c' ~ i, 'reach_ln': 'COALESCE(_reach_ln_c' ~ i ~ ', 0)', 'blocked': 'COALESCE(_blocked_c' ~ i ~ ', 0)'}) }}
{%- endmacro -%}

{#- R = (2^g - 1) / 2^top, the probability of stopping at a document of label `rel`: g is the label clamped into
    [0, top] (negative and unjudged: 0). -#}
{%- macro _cascade_stop(rel, top) -%}
{{ return('(' ~ sqlndcg._exp2_minus_1('CASE WHEN ' ~ rel ~ ' > ' ~ top ~ ' THEN ' ~ top ~ ' WHEN ' ~ rel ~ ' > 0 THEN ' ~ rel ~ ' ELSE 0 END')
          ~ ' / POWER(CAST(2 AS ' ~ sqlndcg.double() ~ '), ' ~ top ~ '))') }}
{%- endmacro -%}

{#- The cascade, a shared aggregate (per_query.sql computes what a metric `needs`; every err metric of one
    max_grade reads the same columns): per position R_i (_stop_c<i>) and, as running values before it, the log of
    prod_{i<r} (1 - R_i) (_reach_ln_c<i>) and the count of R_i = 1 (_blocked_c<i>), one set per distinct top grade
    (_cascade_tops). It carries the labels (_rel) to the ranked rows and reads the judgments' top grade (tg._top)
    when a metric takes max_grade=0. -#}
{%- macro default__shared_cascade(p) -%}
{{ return({'labels': ['_rel'], 'top_grade': 0 in sqlndcg._cascade_tops(p), 'stages': ['scored', 'positioned', 'accumulated']}) }}
{%- endmacro -%}
{%- macro default__shared_cascade_columns(stage, p, f) -%}
{%- set columns = [] -%}
{%- for top in sqlndcg._cascade_tops(p) -%}
  {%- set c = '_c' ~ loop.index0 -%}
  {%- if stage == 'scored' -%}
    {%- do columns.append(sqlndcg._cascade_stop('r._rel' if f.join_first else 'COALESCE(l._rel, 0)', 'tg._top' if top == 0 else sqlndcg._number(top)) ~ ' AS _stop' ~ c) -%}
  {%- else -%}
    {%- do columns.append('_stop' ~ c) -%}
  {%- endif -%}
  {#- prod_{i<r} (1 - R_i) as the sum of its logs over the positions before (NULL at the first), R_i = 1 counted
      apart: its LN(1 - R_i) does not exist and it makes the product 0. With sums from lists (list_sums) the
      duckdb__ aggregates fold the cascade over the list instead. -#}
  {%- if stage == 'accumulated' and not f.list_sums -%}
    {%- do columns.append('SUM(CASE WHEN _stop' ~ c ~ ' < 1 THEN LN(1 - _stop' ~ c ~ ') ELSE 0 END) OVER (' ~ f.before ~ ') AS _reach_ln' ~ c) -%}
    {%- do columns.append('SUM(CASE WHEN _stop' ~ c ~ ' < 1 THEN 0 ELSE 1 END) OVER (' ~ f.before ~ ') AS _blocked' ~ c) -%}
  {%- endif -%}
{%- endfor -%}
{{ return(columns) }}
{%- endmacro -%}
