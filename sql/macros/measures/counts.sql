{#-
  The counts trec_eval prints first, per query and summed over queries in its `all` line.
    num_q                   1 per evaluated query (all: how many)
    num_ret                 n, the documents retrieved (after -M / depth and -J / judged_only)
    num_rel                 R, judged documents with rel >= threshold (retrieved or not)
    num_rel_ret             relevant documents retrieved
    num_nonrel_judged_ret   retrieved documents judged non-relevant (0 <= rel < threshold)
  trec_eval: the same names (summary: sum). ir_measures: NumQ, NumRet, NumRel, NumRelRet (rel=threshold).
  Under queries='judged' (trec_eval -c) a judged query the run missed counts num_q 1, num_rel R, and 0 elsewhere.
-#}
{%- macro default__measure_num_q() -%}
{{ return({'help': 'number of queries (1 per query; the summary sums it)', 'summary': 'sum',
           'trec_eval': [{'name': 'num_q', 'order': 1, 'nicknames': ['official', 'all_trec', 'set'], 'integer': true, 'summary_only': true}], 'ir_measures': 'NumQ'}) }}
{%- endmacro -%}
{%- macro default__value_num_q(m, p, a) -%}{{ return('1') }}{%- endmacro -%}

{%- macro default__measure_num_ret() -%}
{{ return({'help': 'number of documents retrieved', 'summary': 'sum',
           'trec_eval': [{'name': 'num_ret', 'order': 2, 'nicknames': ['official', 'all_trec', 'set'], 'integer': true}], 'ir_measures': 'NumRet'}) }}
{%- endmacro -%}
{%- macro default__value_num_ret(m, p, a) -%}{{ return(a.n) }}{%- endmacro -%}

{%- macro default__measure_num_rel() -%}
{{ return({'help': 'number of relevant documents (judged, rel >= threshold)', 'binary': true, 'summary': 'sum',
           'needs': ['r'], 'trec_eval': [{'name': 'num_rel', 'order': 3, 'nicknames': ['official', 'all_trec', 'set'], 'integer': true}], 'ir_measures': 'NumRel'}) }}
{%- endmacro -%}
{%- macro default__value_num_rel(m, p, a) -%}{{ return(a.r) }}{%- endmacro -%}

{%- macro default__measure_num_rel_ret() -%}
{{ return({'help': 'number of relevant documents retrieved', 'binary': true, 'summary': 'sum', 'needs': ['totals'],
           'trec_eval': [{'name': 'num_rel_ret', 'order': 4, 'nicknames': ['official', 'all_trec', 'set'], 'integer': true}], 'ir_measures': 'NumRelRet'}) }}
{%- endmacro -%}
{%- macro default__value_num_rel_ret(m, p, a) -%}{{ return(a.hits_all) }}{%- endmacro -%}

{%- macro default__measure_num_nonrel_judged_ret() -%}
{{ return({'help': 'number of retrieved documents judged non-relevant', 'binary': true, 'summary': 'sum',
           'needs': ['totals'], 'trec_eval': [{'name': 'num_nonrel_judged_ret', 'order': 33, 'nicknames': ['all_trec'], 'integer': true}]}) }}
{%- endmacro -%}
{%- macro default__value_num_nonrel_judged_ret(m, p, a) -%}{{ return('(' ~ a.judged_all ~ ' - ' ~ a.hits_all ~ ')') }}{%- endmacro -%}
