{#-
  The settings, declared once. The spec (spec.sql) checks them by their kind, recorded_settings records them, and
  the Python API's keywords, every command-line verb's flags and the docs follow this declaration. A file of its
  own, so reading it (the command line's --help) compiles only this file.
-#}

{#- Settings: name -> allowed values (first is the default) or kind, and what it decides. The kinds: values
    (one of a list), map (also a {grade: gain} mapping), number, integer, flag, columns (a list of column names),
    column (one column name; optional: may be None). recorded: 'when_changed' for a setting recorded next to the
    results only when it differs from its default (those that exist to reproduce trec_eval). -#}
{%- macro _settings_declared() -%}
{{ return({
  'preset': {'values': ['trec_eval', 'trec_eval-9', 'sklearn', 'ir_measures', 'ranx', 'spark', 'torchmetrics',
                        'gdeval'], 'default': none, 'recorded': 'when_changed',
             'help': 'fill the settings not given so the numbers equal a known tool'},
  'gain': {'values': ['exponential', 'linear'], 'map': true, 'default': 'exponential',
           'help': 'exponential: 2^rel - 1; linear: rel; or a map {grade: gain}'},
  'ideal': {'values': ['judgments', 'retrieved'], 'default': 'judgments',
            'help': 'where IDCG comes from: every judged document, or only the retrieved ones'},
  'lower_is_better': {'flag': true, 'default': false, 'recorded': 'when_changed',
                      'help': 'the score is a distance: the lowest score ranks first (equal scores still by doc id)'},
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
  'labels': {'values': ['as_given', 'integer_part'], 'default': 'as_given', 'recorded': 'when_changed',
             'help': "how labels are read: as given, or their integer part as trec_eval reads them (2.7 -> 2)"},
  'depth': {'integer': true, 'default': none, 'recorded': 'when_changed',
            'help': 'evaluate only the top depth documents of each list (trec_eval -M)'},
  'judged_only': {'flag': true, 'default': false, 'recorded': 'when_changed',
                  'help': 'drop unjudged documents from the lists before ranking (trec_eval -J)'},
  'unjudged_bounds': {'flag': true, 'default': false, 'recorded': 'when_changed',
                      'help': "add each metric's upper bound, <metric>_upper: its value were every retrieved unjudged document judged at the judgments' largest label (the metric itself is the lower bound)"},
  'unjudged_grade': {'integer': true, 'default': none, 'recorded': 'when_changed',
                     'help': "with unjudged_bounds: the label the upper bound gives each retrieved unjudged document (default: the judgments' largest label)"},
  'id_order': {'values': ['native', 'text'], 'default': 'native', 'recorded': 'when_changed',
               'help': 'how ties=doc_id compares ids: integers numerically and text in byte order, or every id as text in byte order (trec_eval)'},
  'iprec_reach': {'values': ['round', 'floor_plus_0.9'], 'default': 'round', 'recorded': 'when_changed',
                  'help': 'relevant documents to reach at recall level x (iprec_at_recall, 11pt_avg): round(x * R) as trec_eval 10, or floor(x * R + 0.9) as trec_eval 9.x and pytrec_eval'},
  'checks': {'values': ['depth', 'full'], 'default': 'depth', 'recorded': 'when_changed',
             'help': "where the input checks count repeated (query, document) pairs and unjudged documents of the run: within the deepest position a measure reads, where they can change a number (depth), or on every row (full)"},
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

{#- How input files are read: not settings of the metrics (nothing recorded next to the results, the numbers do not
    depend on them once the rows are read), but declared once too: the verbs that evaluate files (evaluate,
    to_sql, compare, report, explain) take them as keywords and flags (cli/common.py, add_file_flags; docs/files.md).
    Kinds as above; text: a string. -#}
{%- macro _file_options_declared() -%}
{{ return({
  'run_format': {'values': ['parquet', 'csv', 'tsv', 'trec_run', 'trec_qrels'], 'default': none,
                 'help': 'read the run in this format whatever its suffix'},
  'judgments_format': {'values': ['parquet', 'csv', 'tsv', 'trec_run', 'trec_qrels'], 'default': none,
                       'help': 'read the judgments in this format whatever its suffix'},
  'delimiter': {'text': true, 'default': none,
                'help': "the field delimiter of CSV and TSV files, e.g. ';' or '\\t' (default: ',' for CSV, a tab for TSV)"},
  'decimal': {'values': ['.', ','], 'default': none,
              'help': "the decimal separator of numbers in CSV and TSV files: ',' for numbers written 0,5 (default: '.')"},
}) }}
{%- endmacro -%}

{#- Named bundles of settings that reproduce a well-known tool exactly (SEMANTICS.md, "Presets"). -#}
{%- macro _presets() -%}
{{ return({
  'trec_eval': {'gain': 'linear', 'ideal': 'judgments', 'ties': 'doc_id', 'id_order': 'text', 'short_lists': 'pad',
                'empty': 'zero', 'queries': 'judged', 'labels': 'integer_part', 'iprec_reach': 'round'},
  'trec_eval-9': {'gain': 'linear', 'ideal': 'judgments', 'ties': 'doc_id', 'id_order': 'text', 'short_lists': 'pad',
                  'empty': 'zero', 'queries': 'judged', 'labels': 'integer_part', 'iprec_reach': 'floor_plus_0.9'},
  'sklearn': {'gain': 'linear', 'ideal': 'retrieved', 'ties': 'average'},
  'ir_measures': {'gain': 'linear', 'ideal': 'judgments', 'ties': 'doc_id', 'id_order': 'text', 'short_lists': 'pad',
                  'empty': 'zero', 'queries': 'judged', 'labels': 'integer_part', 'iprec_reach': 'floor_plus_0.9'},
  'ranx': {'gain': 'linear', 'ideal': 'judgments', 'ties': 'doc_id', 'short_lists': 'pad', 'empty': 'zero',
           'queries': 'judged', 'labels': 'integer_part'},
  'spark': {'gain': 'exponential', 'ideal': 'judgments', 'ties': 'doc_id', 'short_lists': 'pad', 'empty': 'zero',
            'queries': 'judged'},
  'torchmetrics': {'gain': 'linear', 'ideal': 'retrieved', 'ties': 'average', 'empty': 'zero', 'queries': 'both'},
  'gdeval': {'gain': 'exponential', 'ideal': 'judgments', 'ties': 'doc_id', 'id_order': 'text', 'short_lists': 'pad',
             'empty': 'skip', 'queries': 'both'},
}) }}
{%- endmacro -%}
