-- Would the new ranker beat production? Its DCG@5 and clicks@5 estimated from production's clicks by IPS, each
-- click weighed by 1 / theta from position_bias, paired with production's own ranking on the same logs, with a
-- 200-replicate bootstrap over queries; `unknown` counts the documents it places that no impression showed.
{{ sqlndcg.counterfactual(log=ref('click_log'), run=ref('click_ranker'), baseline=ref('click_production'),
                          propensities=ref('position_bias'), metrics=['dcg@5', 'clicks@5'], bootstrap=200) }}
