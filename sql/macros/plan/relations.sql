{#-
  The inputs a dbt model names, as the plan takes them: a relation's columns classed as Python classes them, the
  relation with its label and optional `where` (every dbt entry point and generic test reads its inputs through
  _input_relation), and the statement dbt parses before anything runs (execute is false then).
-#}

{#- A relation's columns classed as the plan expects: integer, number, text or other, as Python classes them
    (checks.py, column_class). dbt's Column methods compare the bare type name, so they miss DuckDB's DECIMAL(p,s)
    (and its TINYINT, HUGEINT and unsigned integers): the type name before any parenthesis is compared too. -#}
{%- macro _relation_columns(relation) -%}
{%- set columns = [] -%}
{%- set integers = ['tinyint', 'smallint', 'integer', 'bigint', 'hugeint', 'utinyint', 'usmallint', 'uinteger',
                    'ubigint', 'uhugeint', 'int', 'int1', 'int2', 'int4', 'int8', 'int16', 'int32', 'int64'] -%}
{%- set numbers = ['decimal', 'numeric', 'number', 'real', 'float', 'float4', 'float8', 'float32', 'float64',
                   'double', 'double precision'] -%}
{%- for c in adapter.get_columns_in_relation(relation) -%}
  {%- set base = (c.dtype | lower).split('(')[0] | trim -%}
  {%- if c.is_integer() or base in integers -%}{%- set cls = 'integer' -%}
  {%- elif c.is_number() or c.is_float() or c.is_numeric() or base in numbers -%}{%- set cls = 'number' -%}
  {%- elif c.is_string() -%}{%- set cls = 'text' -%}
  {%- else -%}{%- set cls = 'other' -%}
  {%- endif -%}
  {%- do columns.append({'name': c.name, 'type': c.dtype, 'class': cls}) -%}
{%- endfor -%}
{{ return(columns) }}
{%- endmacro -%}

{#- An input relation as the plan takes it; `where` narrows its rows. -#}
{%- macro _input_relation(role, relation, where=none) -%}
{%- if relation is none or relation is string -%}
  {{ sqlndcg._fail('setting', role ~ '= must be a relation (ref(...) or source(...)), got ' ~ sqlndcg._show(relation)) }}
{%- endif -%}
{%- set columns = sqlndcg._relation_columns(relation) -%}
{%- if not columns -%}
  {{ sqlndcg._fail('input', role ~ ' relation ' ~ relation ~ ' does not exist or has no columns') }}
{%- endif -%}
{%- set sql = relation | string if where is none else '(SELECT * FROM ' ~ relation ~ ' WHERE ' ~ where ~ ')' -%}
{{ return({'sql': sql, 'label': role ~ ' relation ' ~ relation, 'columns': columns}) }}
{%- endmacro -%}

{#- What an entry point renders while dbt parses the project (execute is false): no input is read then. -#}
{%- macro _parse_time_placeholder() -%}
{{ return('SELECT 1 AS sqlndcg_parse_placeholder') }}
{%- endmacro -%}
