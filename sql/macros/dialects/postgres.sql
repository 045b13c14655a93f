{#- PostgreSQL (and, through inheritance, Redshift where redshift.sql says nothing). -#}
{%- macro postgres__dialect_facts() -%}{{ return({'dialects': ['postgres']}) }}{%- endmacro -%}

{%- macro postgres__double() -%}{{ return('DOUBLE PRECISION') }}{%- endmacro -%}
{%- macro postgres__byte_order(expression) -%}{{ return(expression ~ ' COLLATE "C"') }}{%- endmacro -%}
{%- macro postgres__binary_text(expression) -%}{{ return(expression ~ ' COLLATE "C"') }}{%- endmacro -%}
{%- macro postgres__is_finite(expression) -%}{{ return('(' ~ expression ~ " NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8))") }}{%- endmacro -%}
{#- PostgreSQL has no TRY_CAST: a number's text by pattern (1.0 for one, NULL otherwise). -#}
{%- macro postgres__try_double(expression) -%}
{{ return("CASE WHEN " ~ expression ~ " ~ '^\\s*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?\\s*$' OR lower(trim(" ~ expression ~ ")) IN ('nan', 'inf', '-inf', 'infinity', '-infinity', '+inf', '+infinity') THEN 1.0 END") }}
{%- endmacro -%}
