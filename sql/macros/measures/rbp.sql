{#-
  rbp(p=0.9): rank-biased precision (Moffat & Zobel, TOIS 2008), the expected gain of a user who goes on to the
  next document with probability p.
    rbp = (1 - p) * sum_i g_i * p^(i - 1)
  g_i: the label scaled into [0, 1] as trec_eval does (rel / the query's largest judged label, when that exceeds
  1; labels <= 0 and unjudged documents give 0).
  rbp_resid: the residual, what unjudged documents could still add: p^n + (1 - p) * sum over unjudged (unlabelled
  or negative) positions i of p^(i - 1), with p = 0.9; 0 when every retrieved document is judged.
  trec_eval: rbp (p = 0.9; rbp.p=0.95), rbp_resid. ir_measures: RBP(p=...) is rbp(p=...); its own default is p = 0.8,
  so RBP written without p is refused as ambiguous (lower-case rbp is trec_eval's spelling, p = 0.9), and so is
  RBP(rel=r), ir_measures' binary RBP (spec.sql, _ir_measures_readings).
-#}
{%- macro default__measure_rbp() -%}
{{ return({'help': 'rank-biased precision with persistence p', 'params': {'p': 0.9}, 'needs': ['max_rel_rows', 'own'],
           'domains': {'p': {'min': 0, 'min_open': true, 'max': 1, 'max_open': true,
                             'why': 'the persistence, a probability of reading on: p = 1 scores every list 0 and p = 0 reads only the first document'}},
           'trec_eval': [{'name': 'rbp', 'order': 34, 'nicknames': ['all_trec'], 'since': 10, 'params': 'named', 'param': 'p'}], 'ir_measures': 'RBP(p=...)'}) }}
{%- endmacro -%}
{#- With rank_folds (DuckDB), m_rbp.c's loop itself, folded over the list's gains in rank order: sum += g * cur_p,
    then cur_p *= p (cur_p a running product, which can differ from POWER(p, i) in the last bit). -#}
{%- macro default__aggregates_rbp(m, p) -%}
{%- if sqlndcg.rank_folds() -%}
{%- set g = 'CASE WHEN _max_rel > 1 THEN _rel / _max_rel ELSE _rel END' -%}
{{ return([['sum', sqlndcg._rbp_fold('CASE WHEN _rel > 0 THEN ' ~ g ~ ' ELSE 0 END', sqlndcg._number(m.params.p)) ~ '.s']]) }}
{%- else -%}
{%- set g = 'CASE WHEN _max_rel > 1 THEN _rel / _max_rel ELSE _rel END' -%}
{{ return([['sum', 'SUM(CASE WHEN _rel > 0 THEN (' ~ g ~ ') * POWER(' ~ sqlndcg._number(m.params.p) ~ ', _pos - 1) ELSE 0 END)']]) }}
{%- endif -%}
{%- endmacro -%}
{#- {c, s} from {1, 0} over the terms x in rank order: s += x * c, then c *= p; s is the sum of x_i p^(i-1) and c is
    p^n, each p^i a running product of p (POWER(p, i) can differ from it in the last bit). -#}
{%- macro _rbp_fold(x, p) -%}
{{ return(sqlndcg._rank_reduce([['x', x]], [['c', '_acc.c * ' ~ p], ['s', '_acc.s + _x.x * _acc.c']], [['c', 1], ['s', 0]])) }}
{%- endmacro -%}
{%- macro default__value_rbp(m, p, a) -%}
{{ return('(1 - ' ~ sqlndcg._number(m.params.p) ~ ') * COALESCE(' ~ a.own ~ 'sum, 0)') }}
{%- endmacro -%}

{%- macro default__measure_rbp_resid() -%}
{{ return({'help': 'the RBP residual left by unjudged documents (p = 0.9)', 'needs': ['own'],
           'trec_eval': [{'name': 'rbp_resid', 'order': 35, 'nicknames': ['all_trec'], 'since': 10}]}) }}
{%- endmacro -%}
{#- With rank_folds (DuckDB), m_rbp_resid.c's loop, folded over the list in rank order: sum += cur_p at an unjudged
    document, cur_p *= p; then cur_p (p^n as that running product) + (1 - p) * sum. -#}
{%- macro default__aggregates_rbp_resid(m, p) -%}
{%- if sqlndcg.rank_folds() -%}
{{ return([['fold', sqlndcg._rbp_fold('1 - _judged', sqlndcg._number(0.9))], ['unjudged', 'SUM(1 - _judged)']]) }}
{%- else -%}
{%- set p9 = sqlndcg._number(0.9) -%}
{{ return([['sum', 'SUM(CASE WHEN _judged = 0 THEN POWER(' ~ p9 ~ ', _pos - 1) ELSE 0 END)'],
           ['unjudged', 'SUM(1 - _judged)']]) }}
{%- endif -%}
{%- endmacro -%}
{%- macro default__value_rbp_resid(m, p, a) -%}
{%- if sqlndcg.rank_folds() -%}
{%- set o = a.own -%}
{{ return('CASE WHEN COALESCE(' ~ o ~ 'unjudged, 0) = 0 THEN 0 ELSE ' ~ o ~ 'fold.c + (1 - ' ~ sqlndcg._number(0.9) ~ ') * ' ~ o ~ 'fold.s END') }}
{%- else -%}
{%- set o = a.own -%}
{%- set p9 = sqlndcg._number(0.9) -%}
{{ return('CASE WHEN COALESCE(' ~ o ~ 'unjudged, 0) = 0 THEN 0 ELSE POWER(' ~ p9 ~ ', ' ~ a.n ~ ') + (1 - ' ~ p9 ~ ') * ' ~ o ~ 'sum END') }}
{%- endif -%}
{%- endmacro -%}
