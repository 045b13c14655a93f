{#- SQL Server (and, through inheritance, Fabric). Its bare VARCHAR is 30 characters; its floats hold no NaN or
    infinity, so the finite check is trivially true; NVARCHAR ids compare in UTF-16 code-unit order under the
    binary collation (byte order except beyond U+FFFF). -#}
{%- macro sqlserver__dialect_facts() -%}{{ return({'dialects': ['tsql']}) }}{%- endmacro -%}

{%- macro sqlserver__double() -%}{{ return('FLOAT') }}{%- endmacro -%}
{%- macro sqlserver__text_type() -%}{{ return('NVARCHAR(4000)') }}{%- endmacro -%}
{%- macro sqlserver__byte_order(expression) -%}{{ return(expression ~ ' COLLATE Latin1_General_100_BIN2_UTF8') }}{%- endmacro -%}
{%- macro sqlserver__binary_text(expression) -%}{{ return(expression ~ ' COLLATE Latin1_General_100_BIN2_UTF8') }}{%- endmacro -%}
{%- macro sqlserver__nulls(where) -%}{{ return('') }}{%- endmacro -%}
{%- macro sqlserver__is_finite(expression) -%}{{ return('1 = 1') }}{%- endmacro -%}
{%- macro sqlserver__md5_hex(text) -%}{{ return("LOWER(CONVERT(VARCHAR(32), HASHBYTES('MD5', " ~ text ~ '), 2))') }}{%- endmacro -%}
