-- The daily pattern: each run evaluates only the days not yet in this table. Correct because the judgments are
-- per day (group_by includes ds, which the judgments share), so a day's numbers never change once computed.
-- A full refresh (dbt build --full-refresh) recomputes every day.
{{ config(materialized='incremental', unique_key=['system', 'ds', 'query_id']) }}

{% set new_days = none %}
{% if is_incremental() %}
  {% set new_days = "ds > (select max(ds) from " ~ this ~ ")" %}
{% endif %}

{{ sqlndcg.per_query(
    run=ref('rankings'),
    judgments=ref('judgments'),
    metrics=var('metrics'),
    group_by=['system', 'ds'],
    gain='exponential',
    empty='skip',
    run_where=new_days,
    judgments_where=new_days
) }}
