{#-
  Readers for local files, run by DuckDB only (a warehouse reads its own tables). `path` arrives as a quoted
  string literal. TREC files are whitespace-separated, which no CSV sniffer reads reliably, so each line is read
  whole and split on runs of blanks.
-#}

{#- A path DuckDB reads as that one file. Its readers take `*`, `?` and `[...]` as a glob (r[1].run would read
    r1.run, r*.run every matching file, merged); each of those characters is put in a one-character class (`[[]`,
    `[*]`, `[?]`, `[]]`), which matches only itself. `path` is the quoted literal of an absolute path (callers make
    it so, sources.file_literal): DuckDB reads a leading `~` as the home directory. -#}
{%- macro sqlndcg_literal_path(path) -%}
{{ modules.re.sub('([\\[\\]*?])', '[\\1]', path) }}
{%- endmacro -%}

{#- The compression a text file's suffix names, given explicitly: DuckDB's own detection takes a `?` in a name for
    a URL's query string and misses the `.gz` after it. -#}
{%- macro sqlndcg_compression(path) -%}
{%- set name = path | lower -%}
{{ "'gzip'" if name.endswith(".gz'") else ("'zstd'" if name.endswith(".zst'") else "'auto'") }}
{%- endmacro -%}

{%- macro sqlndcg_read_parquet(path) -%}
read_parquet({{ sqlndcg_literal_path(path) }})
{%- endmacro -%}

{#- A CSV or TSV file. `quoted`: CSV's quoting as DuckDB sniffs it (a quoted field may hold the delimiter); a TSV
    has none, so a `"` in an id is a character (quote = '', escape = ''), never the start of a field that would run
    on over the next lines. `decimal`: the decimal separator's literal (',' for numbers written 0,5), else '.'. -#}
{%- macro sqlndcg_read_csv(path, delimiter, quoted=true, decimal=none) -%}
read_csv({{ sqlndcg_csv_options(path, delimiter, quoted, decimal) }})
{%- endmacro -%}

{%- macro sqlndcg_csv_options(path, delimiter, quoted=true, decimal=none) -%}
{{ sqlndcg_literal_path(path) }}, header = true, delim = {{ delimiter }},
{%- if not quoted %} quote = '', escape = '',{% endif %}
{%- if decimal %} decimal_separator = {{ decimal }},{% endif %}
         compression = {{ sqlndcg_compression(path) }}
{%- endmacro -%}

{#- What DuckDB's sniffer decided for a delimited file read as sqlndcg_read_csv reads it: the lines it skips before
    the header, its comment character and its quote character (NULL: none). -#}
{%- macro sqlndcg_delimited_sniffed(path, delimiter, quoted=true, decimal=none) -%}
SELECT SkipRows AS skip, NULLIF(Comment, '(empty)') AS comment, NULLIF(Quote, '(empty)') AS quote
FROM sniff_csv({{ sqlndcg_csv_options(path, delimiter, quoted, decimal) }})
{%- endmacro -%}

{#- A delimited file's rows counted against its lines. DuckDB's reader (called as sqlndcg_read_csv calls it) makes
    one row of each line after the `skip` lines it sniffed to skip and the header, except blank lines and comment
    lines (`comment`, the quoted comment character it sniffed, after any spaces; none: no comments); a quote left
    open joins the lines up to the next quote into one row, and the two counts differ. One pass over the lines,
    one over the rows; `rows` false (no quote character was sniffed, so no field can run over lines): the lines
    only, which is what tells a file mixing CRLF and LF line ends (DuckDB refuses it) past the sniffer's sample. -#}
{%- macro sqlndcg_delimited_counts(path, delimiter, quoted, decimal, skip, comment, rows=true) -%}
{%- set kept -%}
COALESCE(line, '') <> ''{% if comment %} AND NOT starts_with(ltrim(line, ' '), {{ comment }}){% endif %}
{%- endset -%}
{%- set counted -%}
(SELECT COUNT(*) FROM read_csv({{ sqlndcg_csv_options(path, delimiter, quoted, decimal) }}))
{%- endset %}
SELECT {{ counted if rows else 'NULL' }} AS rows_read,
       GREATEST((SELECT COUNT(*) FROM {{ sqlndcg_line_reader(path) }} AS l WHERE {{ kept }})
{%- if skip %}
                - (SELECT COUNT(*) FROM (SELECT line FROM {{ sqlndcg_line_reader(path) }} AS l LIMIT {{ skip }}) AS head
                   WHERE {{ kept }})
{%- endif %} - 1, 0) AS lines_read
{%- endmacro -%}

{#- The lines that hold the header and the rows (sqlndcg_delimited_counts), with the quote character sniffed. -#}
{%- macro _sqlndcg_kept_lines(path, delimiter, quoted, decimal) -%}
sniffed AS (
  SELECT SkipRows AS skip, NULLIF(Comment, '(empty)') AS comment, NULLIF(Quote, '(empty)') AS quote
  FROM sniff_csv({{ sqlndcg_csv_options(path, delimiter, quoted, decimal) }})
),
kept AS (
  SELECT l.line_number, l.line, s.quote
  FROM {{ sqlndcg_read_lines(path) }} AS l CROSS JOIN sniffed AS s
  WHERE l.line_number > s.skip AND COALESCE(l.line, '') <> ''
    AND NOT COALESCE(starts_with(ltrim(l.line, ' '), s.comment), false)
)
{%- endmacro -%}

{#- Where a quoted field opens and where it closes, for a file whose rows are not its lines: the first two lines
    after the header holding an odd number of the sniffed quote character. -#}
{%- macro sqlndcg_delimited_open_quote(path, delimiter, quoted=true, decimal=none) -%}
WITH {{ _sqlndcg_kept_lines(path, delimiter, quoted, decimal) }},
opened AS (
  SELECT line_number, line FROM kept
  WHERE quote IS NOT NULL AND (length(line) - length(replace(line, quote, ''))) % 2 = 1
    AND line_number > (SELECT MIN(line_number) FROM kept)
  ORDER BY line_number LIMIT 2
)
SELECT MIN(line_number) AS opened_at, arg_min(line, line_number) AS opening_line,
       CASE WHEN COUNT(*) = 2 THEN MAX(line_number) END AS closed_at
FROM opened
{%- endmacro -%}

{#- The first few lines that are not blank (the header, and the rows under it), to say how a file was split. -#}
{%- macro sqlndcg_first_lines(path, limit, within=1000) -%}
SELECT line
FROM (SELECT * FROM {{ sqlndcg_read_lines(path) }} AS all_lines LIMIT {{ within }}) AS l
WHERE COALESCE(line, '') <> ''
ORDER BY line_number LIMIT {{ limit }}
{%- endmacro -%}

{#- Lines whose field count differs from the header's: the usual reason a delimited file cannot be read.
    (Counted naively, so a quoted delimiter can miscount; this only explains a failure, it decides nothing.) -#}
{%- macro sqlndcg_delimited_bad_lines(path, delimiter, limit) -%}
WITH counted AS (
  SELECT line_number, line, len(string_split(line, {{ delimiter }})) AS field_count
  FROM {{ sqlndcg_read_lines(path) }} AS lines
  WHERE COALESCE(line, '') <> ''
),
header AS (
  SELECT field_count FROM counted ORDER BY line_number LIMIT 1
)
SELECT c.line_number, c.line, c.field_count, h.field_count AS header_fields, COUNT(*) OVER () AS bad_lines
FROM counted AS c CROSS JOIN header AS h
WHERE c.field_count <> h.field_count
ORDER BY c.line_number
LIMIT {{ limit }}
{%- endmacro -%}

{%- macro sqlndcg_read_lines(path) -%}
(SELECT ROW_NUMBER() OVER () AS line_number, line
 FROM {{ sqlndcg_line_reader(path) }})
{%- endmacro -%}

{#- A file's lines, unnumbered (a blank line is NULL): what sqlndcg_read_lines numbers. -#}
{%- macro sqlndcg_line_reader(path) -%}
read_csv({{ sqlndcg_literal_path(path) }}, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1),
               quote = '', escape = '', auto_detect = false, compression = {{ sqlndcg_compression(path) }})
{%- endmacro -%}

{#- Blanks at either end (spaces, tabs, a Windows carriage return) are not fields, and fields are separated by any
    run of blanks. Most lines have single spaces between fields and none at the ends: those are split on the space
    (several times faster than the regular expressions, which take the others). `lines`: a relation of the file's
    (line_number, line) already read (sqlndcg_trec_eval_lines_table). -#}
{%- macro sqlndcg_trec_fields(path, lines=none) -%}
(SELECT line_number, line, fields
 FROM (SELECT line_number, line,
              CASE WHEN NOT (contains(line, '  ') OR starts_with(line, ' ') OR ends_with(line, ' ')
                             OR regexp_matches(line, '[\t\n\r\v\f]'))
                   THEN string_split(line, ' ')
                   ELSE string_split_regex(regexp_replace(COALESCE(line, ''), '^\s+|\s+$', '', 'g'), '\s+')
              END AS fields
       FROM {{ lines or sqlndcg_read_lines(path) }} AS lines) AS split_lines
 WHERE fields[1] <> '')
{%- endmacro -%}

{#- TREC run: `query_id Q0 doc_id rank score tag`; as trec_eval reads it, '#' lines are skipped and fields after
    the tag are ignored. TREC qrels: `query_id iteration doc_id rel`. -#}
{%- macro sqlndcg_read_trec_run(path) -%}
(SELECT {{ sqlndcg_trec_columns('trec_run') }}
 FROM {{ sqlndcg_trec_eval_fields(path) }} AS trec_lines)
{%- endmacro -%}

{%- macro sqlndcg_read_trec_qrels(path) -%}
(SELECT {{ sqlndcg_trec_columns('trec_qrels') }}
 FROM {{ sqlndcg_trec_eval_fields(path) }} AS trec_lines)
{%- endmacro -%}

{#- TREC diversity qrels (the TREC Web track's, ndeval's): `query_id intent doc_id rel`. -#}
{%- macro sqlndcg_read_trec_diversity(path) -%}
(SELECT {{ sqlndcg_trec_columns('trec_diversity') }}
 FROM {{ sqlndcg_trec_eval_fields(path) }} AS trec_lines)
{%- endmacro -%}

{#- A TREC file's columns from its fields; `cast` TRY_CAST reads a field that is not a number as NULL. `kind`:
    trec_run, trec_qrels, trec_diversity, or trec_eval_run (the trec_eval command's run: no rank, the line number for the run id). -#}
{%- macro sqlndcg_trec_columns(kind, cast='CAST') -%}
{%- if kind == 'trec_run' -%}
fields[1] AS query_id, fields[3] AS doc_id, {{ cast }}(fields[4] AS BIGINT) AS rank,
        {{ cast }}(fields[5] AS DOUBLE) AS score, fields[6] AS tag
{%- elif kind == 'trec_diversity' -%}
fields[1] AS query_id, fields[2] AS intent, fields[3] AS doc_id, {{ cast }}(fields[4] AS DOUBLE) AS rel
{%- elif kind == 'trec_eval_run' -%}
fields[1] AS query_id, fields[3] AS doc_id, {{ cast }}(fields[5] AS DOUBLE) AS score, fields[6] AS tag, line_number
{%- else -%}
fields[1] AS query_id, fields[3] AS doc_id, {{ cast }}(fields[4] AS DOUBLE) AS rel
{%- endif -%}
{%- endmacro -%}

{#- True for a line the readers above would misread: wrong field count or a field that is not a number.
    `integers` and `numbers` are 1-based field positions. -#}
{%- macro sqlndcg_trec_misread(field_count, integers, numbers, trailing=false) -%}
len(fields) {{ '<' if trailing else '<>' }} {{ field_count }}
{%- for i in integers %} OR TRY_CAST(fields[{{ i }}] AS BIGINT) IS NULL{% endfor %}
{%- for i in numbers %} OR TRY_CAST(fields[{{ i }}] AS DOUBLE) IS NULL{% endfor %}
{%- endmacro -%}

{#- Lines of a TREC file that the readers above would misread. -#}
{%- macro sqlndcg_trec_bad_lines(path, field_count, integers, numbers, limit, trailing=false) -%}
SELECT line_number, line, COUNT(*) OVER () AS bad_lines
FROM {{ sqlndcg_trec_eval_fields(path) }} AS trec_lines
WHERE {{ sqlndcg_trec_misread(field_count, integers, numbers, trailing) }}
ORDER BY line_number
LIMIT {{ limit }}
{%- endmacro -%}

{#- A TREC file read once (evaluate's inputs, evaluation.prepare; the trec_eval command's files,
    sqlndcg_trec_eval_lines_table): its lines numbered into a table (sqlndcg_read_lines), then its rows, from that
    table, into another: `columns` (sqlndcg_trec_columns, read with TRY_CAST) and `misread`, the test of a line the
    reader refuses. Splitting every line is most of the work of reading a large file, and every statement of an
    evaluation would do it again; and lines split as they are numbered (one ordered stream) are split on one
    thread, where lines read from a table are split on every core. -#}
{%- macro sqlndcg_trec_rows_marked(lines, columns, misread) -%}
SELECT {{ columns }},
       {{ misread }} AS misread
FROM {{ sqlndcg_trec_eval_fields(none, lines) }} AS trec_lines
{%- endmacro -%}

{%- macro sqlndcg_trec_table(lines, kind, field_count, integers, numbers, trailing=false) -%}
{{ sqlndcg_trec_rows_marked(lines, sqlndcg_trec_columns(kind, 'TRY_CAST'),
                            sqlndcg_trec_misread(field_count, integers, numbers, trailing)) }}
{%- endmacro -%}

{%- macro sqlndcg_trec_misread_count(name) -%}
SELECT COUNT(*) FROM {{ name }} AS trec_rows WHERE misread
{%- endmacro -%}

{#- The rows of a table made by sqlndcg_trec_rows_marked, as the file readers give them (once none is misread). -#}
{%- macro sqlndcg_trec_table_rows(name) -%}
(SELECT * EXCLUDE (misread) FROM {{ name }} AS trec_rows)
{%- endmacro -%}

{#- The first line that is not blank or a comment, to tell a TREC file from a delimited one; `within`: among the
    file's first lines only (read in the file's order, a LIMIT stops the reading), not the whole file. -#}
{%- macro sqlndcg_first_fields(path, within=none) -%}
{%- set lines %}(SELECT * FROM {{ sqlndcg_read_lines(path) }} AS all_lines LIMIT {{ within }}){% endset -%}
SELECT len(fields) AS field_count
FROM {{ sqlndcg_trec_eval_fields(path, lines if within else none) }} AS trec_lines
ORDER BY line_number LIMIT 1
{%- endmacro -%}

{#-
  trec_eval's own reading rules (the `sqlndcg trec_eval` command): whitespace-separated fields; blank lines and
  lines starting with '#' skipped; a run line has at least 6 fields (query Q0 doc rank score tag; the rank is
  ignored, fields after the tag are ignored, the run id is the last line's tag); a qrels line has exactly 4
  (query iteration doc label; the label is read as its integer part, as C's atol does).
-#}
{%- macro sqlndcg_trec_eval_fields(path, lines=none) -%}
(SELECT line_number, line, fields
 FROM {{ sqlndcg_trec_fields(path, lines) }} AS trec_lines
 WHERE NOT starts_with(fields[1], '#'))
{%- endmacro -%}

{#- trec_eval -c: a judged query the run lacks is evaluated on one unjudged document, as trec_eval.c's bogus
    ranking ("ceci_nest_pas_un_docno", score 1); line number 0 keeps it out of the run id. -#}
{%- macro sqlndcg_trec_eval_complete_run(run, qrels) -%}
(SELECT query_id, doc_id, score, tag, line_number FROM {{ run }} AS run_rows
 UNION ALL
 SELECT DISTINCT query_id, 'ceci_nest_pas_un_docno' AS doc_id, CAST(1 AS DOUBLE) AS score, NULL AS tag,
        0 AS line_number
 FROM {{ qrels }} AS q
 WHERE NOT EXISTS (SELECT 1 FROM {{ run }} AS r WHERE r.query_id = q.query_id))
{%- endmacro -%}

{#-
  trec_eval 10.0's own reading of its two files, for the `sqlndcg trec_eval` command (get_qrels.c,
  get_trec_results.c), where it differs from the readers above (evaluate's TREC files, which refuse what is not a
  plain number):
  - fields are separated by C's isspace (blank, tab, \v, \f, \r);
  - a run skips blank lines and lines whose first field starts with '#'; a qrels file skips a line with '#' in its
    first column, one at a time: get_qrels.c reads the line after a skipped one as a judgment whatever it holds, so
    of consecutive '#' lines every other one is read as a judgment, and so is an indented '#' line; a blank qrels
    line is malformed (trec_eval stops there);
  - numbers as C reads them: a label by atol (its leading integer: 3abc is 3, 1e2 is 1, 1_0 is 1, -0.5 is 0, abc
    is 0), a score by atof (its leading decimal number: 1e2 is 100, 3abc is 3, abc is 0; inf); `loose` holds the
    text of a field not written as a plain number, for the command's warning. A score atof would read as nan, as
    infinite or as a hexadecimal number is refused (malformed): sqlndcg ranks finite decimal scores.
  `lines`: the file's numbered lines (sqlndcg_read_lines); every line with its fields and whether it is skipped.
-#}
{#- C's isspace, as a regular expression class. -#}
{%- macro sqlndcg_c_space() -%}[ \t\n\v\f\r]{%- endmacro -%}
{%- macro sqlndcg_trec_eval_lines(lines, kind) -%}
(SELECT line_number, line, fields,
        {%- if kind == 'run' %}
        fields[1] = '' OR starts_with(fields[1], '#') AS skipped
        {%- else %}
        starts_with(COALESCE(line, ''), '#')
        AND (line_number - MAX(CASE WHEN starts_with(COALESCE(line, ''), '#') THEN 0 ELSE line_number END)
             OVER (ORDER BY line_number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) % 2 = 1 AS skipped
        {%- endif %}
 FROM (SELECT line_number, line,
              CASE WHEN NOT (contains(line, '  ') OR starts_with(line, ' ') OR ends_with(line, ' ')
                             OR regexp_matches(line, '[\t\n\r\v\f]'))
                   THEN string_split(line, ' ')
                   ELSE string_split_regex(regexp_replace(COALESCE(line, ''), '^{{ sqlndcg_c_space() }}+|{{ sqlndcg_c_space() }}+$', '', 'g'),
                                           '{{ sqlndcg_c_space() }}+')
              END AS fields
       FROM {{ lines }} AS lines) AS split_lines)
{%- endmacro -%}

{#- The lines trec_eval reads (not skipped), each with trec_eval's count of it ("Malformed line N" counts these). -#}
{%- macro sqlndcg_trec_eval_kept(lines, kind) -%}
(SELECT line_number, line, fields FROM {{ sqlndcg_trec_eval_lines(lines, kind) }} AS all_lines WHERE NOT skipped)
{%- endmacro -%}

{#- A number written plainly, as a regular expression: a decimal (what atol reads as its integer part), and with an
    exponent (what atof reads whole). -#}
{%- macro sqlndcg_plain_decimal() -%}[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+){%- endmacro -%}
{%- macro sqlndcg_plain_float() -%}{{ sqlndcg_plain_decimal() }}([eE][+-]?[0-9]+)?{%- endmacro -%}

{#- C's atol of a field, as a double: its leading integer, 0 if none (clamped to a long, as strtol does). -#}
{%- macro sqlndcg_c_atol(x) -%}
GREATEST(LEAST(COALESCE(TRY_CAST(NULLIF(regexp_extract({{ x }}, '^[+-]?[0-9]+'), '') AS DOUBLE), 0),
               CAST(9223372036854775807 AS DOUBLE)), CAST(-9223372036854775808 AS DOUBLE))
{%- endmacro -%}

{#- C's atof of a field: its leading decimal number (an exponent with digits), inf or infinity, 0 if none. -#}
{%- macro sqlndcg_c_atof(x) -%}
CASE WHEN regexp_matches({{ x }}, '^[+-]?(?i:inf)') THEN CAST(CASE WHEN starts_with({{ x }}, '-') THEN '-inf' ELSE 'inf' END AS DOUBLE)
     ELSE COALESCE(TRY_CAST(NULLIF(regexp_extract({{ x }}, '^{{ sqlndcg_plain_float() }}'), '') AS DOUBLE), 0) END
{%- endmacro -%}

{#- The command's rows of a file's lines table `text`: the run's (query, doc, score by atof, tag) or the qrels'
    (query, doc, label by atol), the line number and text, and `loose`, the number's text where it is not a plain
    number, and `misread`: a kept line trec_eval refuses (a run line with fewer than 6 fields, a qrels line without
    exactly 4: a blank one has one, empty), or that sqlndcg refuses where trec_eval reads it: a score atof reads as
    nan, as infinite or in hexadecimal (scores are finite decimal numbers in sqlndcg). A plain number (one regular
    expression) is cast; the others are read by C's rules. -#}
{%- macro sqlndcg_trec_eval_marked(text, kind) -%}
{%- set at = 'fields[5]' if kind == 'run' else 'fields[4]' -%}
(SELECT *,
        {%- if kind == 'run' %}
        len(fields) < 6 OR NOT isfinite(score)
        OR (loose IS NOT NULL AND regexp_matches(loose, '^[+-]?((?i:nan)|0[xX]([0-9a-fA-F]|[.][0-9a-fA-F]))')) AS misread
        {%- else %}
        len(fields) <> 4 AS misread
        {%- endif %}
 FROM (SELECT line_number, line, fields, fields[1] AS query_id, fields[3] AS doc_id,
              {%- if kind == 'run' %}
              CASE WHEN plain THEN CAST({{ at }} AS DOUBLE) ELSE {{ sqlndcg_c_atof(at) }} END AS score, fields[6] AS tag,
              {%- else %}
              CASE WHEN plain THEN GREATEST(LEAST(trunc(CAST({{ at }} AS DOUBLE)), CAST(9223372036854775807 AS DOUBLE)),
                                            CAST(-9223372036854775808 AS DOUBLE))
                   ELSE {{ sqlndcg_c_atol(at) }} END AS rel,
              {%- endif %}
              CASE WHEN NOT plain THEN {{ at }} END AS loose
       FROM (SELECT line_number, line, fields,
                    regexp_full_match({{ at }}, '{{ sqlndcg_plain_float() if kind == 'run' else sqlndcg_plain_decimal() }}') AS plain
             FROM {{ sqlndcg_trec_eval_kept(text, kind) }} AS kept) AS checked) AS read_rows)
{%- endmacro -%}

{#- The first `limit` malformed lines of the command's file (its lines table `text`), by line number, with trec_eval's
    count of the line ("Malformed line N" counts the lines it reads, not the comments and blanks it skips) and the
    number of malformed lines. -#}
{%- macro sqlndcg_trec_eval_bad_lines(text, kind, limit) -%}
SELECT line_number, line, bad_lines, counted
FROM (SELECT line_number, line, misread, ROW_NUMBER() OVER (ORDER BY line_number) AS counted,
             COUNT(*) FILTER (WHERE misread) OVER () AS bad_lines
      FROM {{ sqlndcg_trec_eval_marked(text, kind) }} AS marked) AS counted_lines
WHERE misread
ORDER BY line_number
LIMIT {{ limit }}
{%- endmacro -%}

{#- The last lines of the command's qrels file (its lines table `text`), last first, and whether each starts with '#':
    trec_eval 10.0 reads past the end of a qrels file whose last line is a skipped comment (and crashes). -#}
{%- macro sqlndcg_trec_eval_last_lines(text, count) -%}
SELECT line_number, starts_with(COALESCE(line, ''), '#') AS hashed FROM {{ text }} ORDER BY line_number DESC LIMIT {{ count }}
{%- endmacro -%}

{#- The fields read loosely (`loose`, sqlndcg_trec_eval_marked): how many, and the first `limit` with the value read. -#}
{%- macro sqlndcg_trec_eval_loose(name, kind, limit) -%}
SELECT line_number, loose, {{ 'score' if kind == 'run' else 'rel' }} AS value,
       COUNT(*) OVER () AS loose_count
FROM {{ name }} AS rows_read
WHERE loose IS NOT NULL AND NOT misread
ORDER BY line_number
LIMIT {{ limit }}
{%- endmacro -%}

{#- The trec_eval command's file read once: its numbered lines into `name`_text (kept while the command checks them,
    then dropped), its rows (sqlndcg_trec_eval_marked) into `name`, on the
    command's own DuckDB connection; the checks and the views below read the table, not the file. -#}
{%- macro sqlndcg_trec_eval_lines_table(name, path, kind) -%}
{%- set text = name ~ '_text' -%}
CREATE OR REPLACE TEMPORARY TABLE {{ text }} AS SELECT * FROM {{ sqlndcg_read_lines(path) }} AS lines;
CREATE OR REPLACE TEMPORARY TABLE {{ name }} AS
SELECT * EXCLUDE (line, fields) FROM {{ sqlndcg_trec_eval_marked(text, kind) }} AS marked
{%- endmacro -%}

{#- The rows of a table made by sqlndcg_trec_eval_lines_table, once none is misread (the run's keep their line number,
    for the run id). -#}
{%- macro sqlndcg_trec_eval_table_rows(name, kind) -%}
(SELECT * EXCLUDE (misread, loose{{ '' if kind == 'run' else ', line_number' }}) FROM {{ name }} AS trec_rows)
{%- endmacro -%}

{#- The rows the measures read, as another engine gets them (trec_eval --database): the ids as text, the score
    (run) or the label (qrels). -#}
{%- macro sqlndcg_trec_eval_rows(view, kind) -%}
SELECT query_id, doc_id, {{ 'score' if kind == 'run' else 'rel' }} FROM {{ view }} AS {{ kind }}_rows
{%- endmacro -%}

{#- The run id: the tag of the last run line (trec_eval keeps only that one). -#}
{%- macro sqlndcg_trec_eval_runid(run) -%}
SELECT tag FROM {{ run }} AS run_rows ORDER BY line_number DESC LIMIT 1
{%- endmacro -%}

{#- trec_eval's relstring: the labels of the first `length` documents of each list, in rank order (score
    descending, doc id descending; after depth and judged_only): the digit, '>' above 9, '-' unjudged, '.' a
    negative label. Per query only; a string, so it is made here rather than by the measures. -#}
{%- macro sqlndcg_trec_eval_relstring(run, qrels, length, depth, judged_only) -%}
WITH ranked AS (
  SELECT r.query_id, r.doc_id, q.rel,
         ROW_NUMBER() OVER (PARTITION BY r.query_id ORDER BY r.score DESC, r.doc_id DESC) AS pos
  FROM {{ run }} AS r
  LEFT JOIN {{ qrels }} AS q ON q.query_id = r.query_id AND q.doc_id = r.doc_id
),
kept AS (
  SELECT query_id, rel, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY pos) AS pos
  FROM ranked
  WHERE 1 = 1{% if depth %} AND pos <= {{ depth }}{% endif %}{% if judged_only %} AND rel >= 0{% endif %}
)
SELECT query_id,
       string_agg(CASE WHEN rel IS NULL THEN '-' WHEN rel < 0 THEN '.' WHEN rel > 9 THEN '>'
                       ELSE CAST(CAST(trunc(rel) AS BIGINT) AS VARCHAR) END, '' ORDER BY pos) AS relstring
FROM kept
WHERE pos <= {{ length }}
GROUP BY query_id
{%- endmacro -%}


{#- trec_eval's files as the views te_qrels and te_run (a DuckDB session's own, over the tables the files were read
    into: nothing copied), and what the command reads of them besides the measures: row counts, the labels a gain
    map must cover, the queries of each file. -#}
{%- macro sqlndcg_trec_eval_view(name, reader) -%}
CREATE OR REPLACE TEMPORARY VIEW {{ name }} AS SELECT * FROM {{ reader }} AS trec_rows
{%- endmacro -%}

{#- What `read` made on a connection the caller keeps, dropped when the command is done: views before tables. -#}
{%- macro sqlndcg_trec_eval_forget(views, tables) -%}
{%- for v in views %}DROP VIEW IF EXISTS {{ v }};
{% endfor -%}
{%- for t in tables %}DROP TABLE IF EXISTS {{ t }};
{% endfor -%}
{%- endmacro -%}

{%- macro sqlndcg_trec_eval_counts(qrels, run) -%}
SELECT (SELECT COUNT(*) FROM {{ qrels }}) AS qrels_rows, (SELECT COUNT(*) FROM {{ run }}) AS run_rows
{%- endmacro -%}

{%- macro sqlndcg_trec_eval_positive_labels(qrels) -%}
SELECT DISTINCT rel FROM {{ qrels }} WHERE rel > 0
{%- endmacro -%}

{#- The queries of one file's view: the judged ones (te_qrels), or those the run answered (te_run). -#}
{%- macro sqlndcg_trec_eval_queries(view) -%}
SELECT DISTINCT query_id FROM {{ view }}
{%- endmacro -%}
