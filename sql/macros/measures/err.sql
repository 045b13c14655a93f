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
{%- macro default__aggregates_err(m, p) -%}
{%- set c = sqlndcg._cascade_columns(m, p) -%}
{%- set within = '1 = 1' if m.k is none else '_pos <= ' ~ m.k -%}
{{ return([['sum', 'SUM(CASE WHEN ' ~ within ~ ' AND ' ~ c.blocked ~ ' = 0 THEN ' ~ c.stop ~ ' * EXP(' ~ c.reach_ln ~ ') / _pos ELSE 0 END)']]) }}
{%- endmacro -%}
{%- macro default__value_err(m, p, a) -%}{{ return('COALESCE(' ~ a.own ~ 'sum, 0)') }}{%- endmacro -%}
