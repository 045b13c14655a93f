-- The click log is well formed: ids present, positions 1..n once per impression, clicks 0/1 (one row per problem).
{{ sqlndcg.click_log_problems(log=ref('click_log')) }}
