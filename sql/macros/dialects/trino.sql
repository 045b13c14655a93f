{#- Trino (and Presto; through inheritance, Athena). -#}
{%- macro trino__dialect_facts() -%}{{ return({'dialects': ['trino', 'presto']}) }}{%- endmacro -%}

{%- macro trino__is_finite(expression) -%}{{ return('is_finite(' ~ expression ~ ')') }}{%- endmacro -%}
{%- macro trino__md5_hex(text) -%}{{ return('lower(to_hex(md5(to_utf8(' ~ text ~ '))))') }}{%- endmacro -%}
