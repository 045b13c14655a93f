{#-
  utility(a=1, b=-1, c=0, d=0, n=0): a linear utility over the retrieved set's contingency table.
    utility = a * rel_ret + b * (ret - rel_ret) + c * (R - rel_ret) + d * (n + rel_ret - ret - R)
  n: documents in the collection (trec_eval -N). A judged query missing from the run scores 0 (as trec_eval -c).
  trec_eval: utility.a,b,c,d (default 1,-1,0,0). ir_measures: none.
-#}
{%- macro default__measure_utility() -%}
{{ return({'help': 'set utility: a*relevant retrieved + b*non-relevant retrieved + c*relevant missed + d*rest',
           'binary': true, 'params': {'a': 1.0, 'b': -1.0, 'c': 0.0, 'd': 0.0, 'n': 0.0},
           'domains': {'a': {}, 'b': {}, 'c': {}, 'd': {},
                       'n': {'min': 0, 'integer': true, 'why': 'the number of documents in the collection, trec_eval -N'}},
           'needs': ['r', 'totals', 'in_run'], 'trec_eval': [{'name': 'utility', 'order': 17, 'nicknames': ['all_trec', 'set'], 'params': 'coefficients',
                                          'param': ['a', 'b', 'c', 'd'], 'defaults': [1, -1, 0, 0], 'collection_size': 'n'}]}) }}
{%- endmacro -%}
{%- macro default__value_utility(m, p, a) -%}
{%- set x = m.params -%}
{%- set rr, ret, r = a.hits_all, a.n, a.r -%}
{{ return('CASE WHEN ' ~ a.in_run ~ ' = 0 THEN 0 ELSE ' ~ sqlndcg._number(x.a) ~ ' * ' ~ rr ~ ' + ' ~ sqlndcg._number(x.b) ~ ' * ('
          ~ ret ~ ' - ' ~ rr ~ ') + ' ~ sqlndcg._number(x.c) ~ ' * (' ~ r ~ ' - ' ~ rr ~ ') + ' ~ sqlndcg._number(x.d) ~ ' * ('
          ~ sqlndcg._number(x.n) ~ ' + ' ~ rr ~ ' - ' ~ ret ~ ' - ' ~ r ~ ') END') }}
{%- endmacro -%}
