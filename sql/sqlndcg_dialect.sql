{#-
  The few SQL fragments that differ between engines, one macro each, dispatched like dbt-utils:
  adapter.dispatch('name', 'sqlndcg') picks `<adapter>__name` and falls back to `default__name`.
  Python renders the defaults (DuckDB SQL) and lets sqlglot translate; dbt renders per adapter.
-#}

{%- macro sqlndcg_double() -%}{{ adapter.dispatch('sqlndcg_double', 'sqlndcg')() }}{%- endmacro -%}
{%- macro default__sqlndcg_double() -%}DOUBLE{%- endmacro -%}

{#- A number we validated in Python, as a DOUBLE (bare float literals are DECIMAL in DuckDB and Postgres). -#}
{%- macro sqlndcg_number(x) -%}CAST({{ x }} AS {{ sqlndcg_double() }}){%- endmacro -%}

{#- 1 / log2(position + 1), written as LN(2) / LN(position + 1): one-argument LOG is base 10 in some engines and
    natural in others, and LOG(a, b) swaps its arguments between engines. -#}
{%- macro sqlndcg_discount(position) -%}{{ adapter.dispatch('sqlndcg_discount', 'sqlndcg')(position) }}{%- endmacro -%}
{%- macro default__sqlndcg_discount(position) -%}
(LN(CAST(2 AS {{ sqlndcg_double() }})) / LN(CAST({{ position }} AS {{ sqlndcg_double() }}) + 1))
{%- endmacro -%}

{#- 2^rel - 1 on DOUBLEs (SQL Server's POWER(2, int) is an INT and overflows). -#}
{%- macro sqlndcg_exp2_minus_1(x) -%}{{ adapter.dispatch('sqlndcg_exp2_minus_1', 'sqlndcg')(x) }}{%- endmacro -%}
{%- macro default__sqlndcg_exp2_minus_1(x) -%}
(POWER(CAST(2 AS {{ sqlndcg_double() }}), {{ x }}) - 1)
{%- endmacro -%}

{#- Ids are compared as given when both inputs hold integers, else as strings (binary order). -#}
{%- macro sqlndcg_id(expression, cast_to_text) -%}
{%- if cast_to_text -%}CAST({{ expression }} AS VARCHAR){%- else -%}{{ expression }}{%- endif -%}
{%- endmacro -%}

{#- An aggregate over rows summed in a fixed order, so the result is the same bits whatever the thread count.
    DuckDB (the engine sqlndcg runs) orders the input; elsewhere the plain aggregate is the portable choice. -#}
{%- macro sqlndcg_ordered(function, column, order_by) -%}{{ adapter.dispatch('sqlndcg_ordered', 'sqlndcg')(function, column, order_by) }}{%- endmacro -%}
{%- macro default__sqlndcg_ordered(function, column, order_by) -%}{{ function }}({{ column }}){%- endmacro -%}
{%- macro duckdb__sqlndcg_ordered(function, column, order_by) -%}{{ function }}({{ column }} ORDER BY {{ order_by }}){%- endmacro -%}
