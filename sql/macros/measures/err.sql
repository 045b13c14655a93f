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
