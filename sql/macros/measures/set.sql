{#-
  Set measures: the retrieved list as an unranked set (n retrieved, rel_ret relevant among them, R relevant).
    set_p            rel_ret / n                       (0 when n = 0)
    set_recall       rel_ret / R                       (0 when R = 0)
    set_relative_p   rel_ret / min(n, R)               (0 when either is 0)
    set_map          rel_ret^2 / (n * R)               (0 when either is 0)
    set_f(beta=1)    (beta^2 + 1) * P * R' / (beta^2 * P + R'),  P = set_p, R' = set_recall   (0 when rel_ret = 0)
  trec_eval: set_P, set_recall, set_relative_P, set_map, set_F. trec_eval's set_F.x computes
  (x + 1) * P * R / (x * P + R) (m_set_F.c): its x is beta^2 here, so `sqlndcg trec_eval -m set_F.0.5` is
  set_f(beta=sqrt(0.5)). ir_measures: SetP, SetR, SetF.
-#}
{%- macro default__measure_set_p() -%}
{{ return({'help': 'precision of the retrieved set', 'binary': true, 'needs': ['totals'], 'range': [0, 1], 'trec_eval': [{'name': 'set_P', 'order': 28, 'nicknames': ['all_trec', 'set']}],
           'ir_measures': 'SetP'}) }}
{%- endmacro -%}
{%- macro default__value_set_p(m, p, a) -%}{{ return(sqlndcg._ratio(a.hits_all, a.n)) }}{%- endmacro -%}

{%- macro default__measure_set_recall() -%}
{{ return({'help': 'recall of the retrieved set', 'binary': true, 'needs': ['totals', 'r'],
           'range': [0, 1], 'trec_eval': [{'name': 'set_recall', 'order': 30, 'nicknames': ['all_trec', 'set']}], 'ir_measures': 'SetR'}) }}
{%- endmacro -%}
{%- macro default__value_set_recall(m, p, a) -%}{{ return(sqlndcg._ratio(a.hits_all, a.r)) }}{%- endmacro -%}

{%- macro default__measure_set_relative_p() -%}
{{ return({'help': 'precision of the retrieved set relative to the best possible', 'binary': true,
           'needs': ['totals', 'r'], 'range': [0, 1], 'trec_eval': [{'name': 'set_relative_P', 'order': 29, 'nicknames': ['all_trec', 'set']}]}) }}
{%- endmacro -%}
{%- macro default__value_set_relative_p(m, p, a) -%}{{ return(sqlndcg._ratio(a.hits_all, sqlndcg._least(a.n, a.r))) }}{%- endmacro -%}

{%- macro default__measure_set_map() -%}
{{ return({'help': 'unranked set MAP: relevant retrieved squared over (retrieved * relevant)', 'binary': true,
           'needs': ['totals', 'r'], 'range': [0, 1], 'trec_eval': [{'name': 'set_map', 'order': 31, 'nicknames': ['all_trec', 'set']}]}) }}
{%- endmacro -%}
{%- macro default__value_set_map(m, p, a) -%}
{{ return(sqlndcg._ratio(sqlndcg._as_double(a.hits_all) ~ ' * ' ~ a.hits_all, '(' ~ a.n ~ ' * ' ~ a.r ~ ')')) }}
{%- endmacro -%}

{%- macro default__measure_set_f() -%}
{{ return({'help': 'F measure of the retrieved set (beta weighs recall)', 'binary': true, 'params': {'beta': 1.0},
           'domains': {'beta': {'min': 0, 'why': 'the weight of recall against precision: 0 gives set_p, larger weighs recall more; a negative beta would act as -beta'}},
           'needs': ['totals', 'r'], 'range': [0, 1], 'trec_eval': [{'name': 'set_F', 'order': 32, 'nicknames': ['all_trec', 'set'], 'params': 'beta_squared', 'param': 'beta',
                                          'defaults': [1]}], 'ir_measures': 'SetF'}) }}
{%- endmacro -%}
{%- macro default__value_set_f(m, p, a) -%}
{#- beta^2 as the number of at most 15 digits it is (trec_eval's set_F.x gives x, and its beta is sqrt(x): squared
    back, sqrt(0.5)^2 is 0.5000000000000001, which would move the value's last bit off m_set_F.c's). -#}
{%- set b2 = sqlndcg._number(("%.15g" | format(m.params.beta * m.params.beta)) | float) -%}
{%- set sp = '(' ~ sqlndcg._ratio(a.hits_all, a.n) ~ ')' -%}
{%- set sr = '(' ~ sqlndcg._ratio(a.hits_all, a.r) ~ ')' -%}
{{ return('CASE WHEN ' ~ a.hits_all ~ ' = 0 THEN 0 ELSE (' ~ b2 ~ ' + 1) * ' ~ sp ~ ' * ' ~ sr ~ ' / (' ~ b2 ~ ' * ' ~ sp ~ ' + ' ~ sr ~ ') END') }}
{%- endmacro -%}
