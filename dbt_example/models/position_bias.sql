-- Position bias from the click log: the examination propensity of each position, theta(p) = CTR(p) / CTR(1) over
-- the impressions whose top positions were shuffled (randomized = 1), with its 95% delta-method interval.
{{ sqlndcg.propensities(log=ref('click_log'), method='randomized') }}
