{#- MySQL (CAST takes SIGNED and CHAR only; no NULLS FIRST/LAST, NULLs sort lowest; its floats hold no NaN or
    infinity). -#}
{%- macro mysql__dialect_facts() -%}{{ return({'dialects': ['mysql']}) }}{%- endmacro -%}

{%- macro mysql__integer_type() -%}{{ return('SIGNED') }}{%- endmacro -%}
{%- macro mysql__text_type() -%}{{ return('CHAR') }}{%- endmacro -%}
{%- macro mysql__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BINARY)') }}{%- endmacro -%}
{%- macro mysql__binary_text(expression) -%}{{ return(expression ~ ' COLLATE utf8mb4_bin') }}{%- endmacro -%}
{%- macro mysql__nulls(where) -%}{{ return('') }}{%- endmacro -%}
{%- macro mysql__is_finite(expression) -%}{{ return('1 = 1') }}{%- endmacro -%}
{%- macro mysql__text_literal(value) -%}{{ return(sqlndcg._backslash_text_literal(value)) }}{%- endmacro -%}
