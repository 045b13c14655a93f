{#- MySQL's (and MariaDB's) variants of dispatched macros, found by sqlndcg's renderer and by dbt in any file of
    the macro path. Tested on MariaDB 10.11 (tests/servers.py). -#}

{#- Each key and then its bytes: a case-insensitive collation groups 'Doc' with 'doc', the bytes part them; an
    integer key's bytes part nothing its value does not. The key itself stays in the list, so the SELECT may name
    it under ONLY_FULL_GROUP_BY (MySQL's default), and an ORDER BY on the list still sorts integers as numbers. -#}
{%- macro mysql__distinct_keys(keys) -%}
{%- set listed = [] -%}
{%- for k in keys -%}{%- do listed.append(k) -%}{%- do listed.append('CAST(' ~ k ~ ' AS BINARY)') -%}{%- endfor -%}
{{ return(listed) }}
{%- endmacro -%}

{#- Data frames copied into temporary tables (sql/local/frames.sql): MySQL casts to SIGNED but declares columns
    BIGINT; and DROP TEMPORARY TABLE, which neither commits the caller's transaction (DROP TABLE does) nor ever
    drops a permanent table of the same name. -#}
{%- macro mysql__sqlndcg_frame_type(kind) -%}
{{ return({'integer': 'BIGINT', 'float': 'DOUBLE', 'text': 'TEXT', 'boolean': 'BOOLEAN'}[kind]) }}
{%- endmacro -%}
{%- macro mysql__sqlndcg_frame_drop(name) -%}
{{ return('DROP TEMPORARY TABLE IF EXISTS ' ~ sqlndcg.sqlndcg_frame_table(name)) }}
{%- endmacro -%}
