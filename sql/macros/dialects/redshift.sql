{#- Redshift: PostgreSQL's rules (postgres.sql) except these. Its bare VARCHAR is 256 characters. -#}
{%- macro redshift__dialect_facts() -%}{{ return({'dialects': ['redshift'], 'inherits': 'postgres'}) }}{%- endmacro -%}

{%- macro redshift__text_type() -%}{{ return('VARCHAR(65535)') }}{%- endmacro -%}
{%- macro redshift__byte_order(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'case_sensitive')") }}{%- endmacro -%}
{%- macro redshift__binary_text(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'case_sensitive')") }}{%- endmacro -%}
{%- macro redshift__is_finite(expression) -%}{{ return('(' ~ expression ~ ' = ' ~ expression ~ ' AND ABS(' ~ expression ~ ") < 1.7976931348623157E308)") }}{%- endmacro -%}
