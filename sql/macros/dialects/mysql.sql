{#- MySQL (CAST takes SIGNED and CHAR only; no NULLS FIRST/LAST, NULLs sort lowest; its floats hold no NaN or
    infinity; default collations are case-insensitive). Run on MariaDB 10.11 in the tests (tests/servers.py). -#}
{%- macro mysql__dialect_facts() -%}{{ return({'dialects': ['mysql']}) }}{%- endmacro -%}

{%- macro mysql__integer_type() -%}{{ return('SIGNED') }}{%- endmacro -%}
{%- macro mysql__text_type() -%}{{ return('CHAR') }}{%- endmacro -%}
{%- macro mysql__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BINARY)') }}{%- endmacro -%}
{%- macro mysql__binary_text(expression) -%}{{ return(expression ~ ' COLLATE utf8mb4_bin') }}{%- endmacro -%}
{%- macro mysql__nulls(where) -%}{{ return('') }}{%- endmacro -%}
{%- macro mysql__is_finite(expression) -%}{{ return('1 = 1') }}{%- endmacro -%}
{%- macro mysql__text_literal(value) -%}{{ return(sqlndcg._backslash_text_literal(value)) }}{%- endmacro -%}

{#- Each key and then its bytes: a case-insensitive collation groups 'Doc' with 'doc', the bytes part them; an
    integer key's bytes part nothing its value does not. The key itself stays in the list, so the SELECT may name
    it under ONLY_FULL_GROUP_BY (MySQL's default), and an ORDER BY on the list still sorts integers as numbers. -#}
{%- macro mysql__distinct_keys(keys) -%}
{%- set listed = [] -%}
{%- for k in keys -%}{%- do listed.append(k) -%}{%- do listed.append('CAST(' ~ k ~ ' AS BINARY)') -%}{%- endfor -%}
{{ return(listed) }}
{%- endmacro -%}
