{#-
  Readers for local files, run by DuckDB only (a warehouse reads its own tables). `path` arrives as a quoted
  string literal. TREC files are whitespace-separated, which no CSV sniffer reads reliably, so each line is read
  whole and split on runs of blanks.
-#}

{%- macro sqlndcg_read_parquet(path) -%}
read_parquet({{ path }})
{%- endmacro -%}

{%- macro sqlndcg_read_csv(path, delimiter) -%}
read_csv({{ path }}, header = true{% if delimiter %}, delim = {{ delimiter }}{% endif %})
{%- endmacro -%}

{%- macro sqlndcg_read_lines(path) -%}
(SELECT ROW_NUMBER() OVER () AS line_number, line
 FROM read_csv({{ path }}, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '',
               auto_detect = false))
{%- endmacro -%}

{%- macro sqlndcg_trec_fields(path) -%}
(SELECT line_number, line, string_split_regex(trim(line), '\s+') AS fields
 FROM {{ sqlndcg_read_lines(path) }} AS lines
 WHERE trim(COALESCE(line, '')) <> '')
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
