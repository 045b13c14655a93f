{#- The 97.5% quantile of Student's t with `df` degrees of freedom, as a SQL expression (t_quantile.sql). -#}
{%- macro t975(df) -%}{{ return('CAST(1.959963984540054 AS ' ~ sqlndcg.double() ~ ')') }}{%- endmacro -%}
