-- Judgments from clicks: each click weighed by 1 / theta(its position) from position_bias, summed per (query,
-- document) over its impressions; `evaluate` and `per_query` take the table as judgments (gain='linear').
{{ sqlndcg.click_labels(log=ref('click_log'), propensities=ref('position_bias')) }}
