{#-
  Readers for local files, run by DuckDB only (a warehouse reads its own tables). `path` arrives as a quoted
  string literal. TREC files are whitespace-separated, which no CSV sniffer reads reliably, so each line is read
  whole and split on runs of blanks.
-#}

{%- macro sqlndcg_read_parquet(path) -%}
read_parquet({{ path }})
{%- endmacro -%}

{%- macro sqlndcg_read_csv(path, delimiter) -%}
read_csv({{ path }}, header = true, delim = {{ delimiter }})
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
 FROM read_csv({{ path }}, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '',
               auto_detect = false))
{%- endmacro -%}

{#- Blanks at either end (spaces, tabs, a Windows carriage return) are not fields. -#}
{%- macro sqlndcg_trec_fields(path) -%}
(SELECT line_number, line, string_split_regex(stripped, '\s+') AS fields
 FROM (SELECT line_number, line, regexp_replace(COALESCE(line, ''), '^\s+|\s+$', '', 'g') AS stripped
       FROM {{ sqlndcg_read_lines(path) }} AS lines) AS stripped_lines
 WHERE stripped <> '')
{%- endmacro -%}

{#- TREC run: `query_id Q0 doc_id rank score tag`. -#}
{%- macro sqlndcg_read_trec_run(path) -%}
(SELECT fields[1] AS query_id, fields[3] AS doc_id, CAST(fields[4] AS BIGINT) AS rank,
        CAST(fields[5] AS DOUBLE) AS score, fields[6] AS tag
 FROM {{ sqlndcg_trec_fields(path) }} AS trec_lines)
{%- endmacro -%}

{#- TREC qrels: `query_id iteration doc_id rel`. -#}
{%- macro sqlndcg_read_trec_qrels(path) -%}
(SELECT fields[1] AS query_id, fields[3] AS doc_id, CAST(fields[4] AS DOUBLE) AS rel
 FROM {{ sqlndcg_trec_fields(path) }} AS trec_lines)
{%- endmacro -%}

{#- Lines of a TREC file that the readers above would misread: wrong field count or a field that is not a number.
    `integers` and `numbers` are 1-based field positions. -#}
{%- macro sqlndcg_trec_bad_lines(path, field_count, integers, numbers, limit) -%}
SELECT line_number, line, COUNT(*) OVER () AS bad_lines
FROM {{ sqlndcg_trec_fields(path) }} AS trec_lines
WHERE len(fields) <> {{ field_count }}
{%- for i in integers %} OR TRY_CAST(fields[{{ i }}] AS BIGINT) IS NULL{% endfor %}
{%- for i in numbers %} OR TRY_CAST(fields[{{ i }}] AS DOUBLE) IS NULL{% endfor %}
ORDER BY line_number
LIMIT {{ limit }}
{%- endmacro -%}

{#- The first non-blank line, to tell a TREC file from a delimited one. -#}
{%- macro sqlndcg_first_fields(path) -%}
SELECT len(fields) AS field_count FROM {{ sqlndcg_trec_fields(path) }} AS trec_lines ORDER BY line_number LIMIT 1
{%- endmacro -%}
