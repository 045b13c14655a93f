{#- BigQuery. -#}
{%- macro bigquery__dialect_facts() -%}{{ return({'dialects': ['bigquery']}) }}{%- endmacro -%}

{%- macro bigquery__double() -%}{{ return('FLOAT64') }}{%- endmacro -%}
{%- macro bigquery__integer_type() -%}{{ return('INT64') }}{%- endmacro -%}
{%- macro bigquery__text_type() -%}{{ return('STRING') }}{%- endmacro -%}
{%- macro bigquery__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BYTES)') }}{%- endmacro -%}
{%- macro bigquery__binary_text(expression) -%}{{ return("COLLATE(" ~ expression ~ ", '')") }}{%- endmacro -%}
{%- macro bigquery__is_finite(expression) -%}{{ return('NOT (IS_NAN(' ~ expression ~ ') OR IS_INF(' ~ expression ~ '))') }}{%- endmacro -%}
{#- BigQuery's quoted identifiers take the escape sequences of its string literals, which hold no raw line break. -#}
{%- macro bigquery__escape_identifier(name, q) -%}
{{ return(name | replace('\\', '\\\\') | replace(q, '\\' ~ q) | replace('\n', '\\n') | replace('\r', '\\r')) }}
{%- endmacro -%}
{%- macro bigquery__md5_hex(text) -%}{{ return('TO_HEX(MD5(' ~ text ~ '))') }}{%- endmacro -%}
{%- macro bigquery__text_literal(value) -%}{{ return(sqlndcg._backslash_text_literal(value)) }}{%- endmacro -%}
