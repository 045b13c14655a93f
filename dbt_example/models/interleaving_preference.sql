-- Which ranker users prefer, from their clicks on the interleaved lists: per impression the team with more clicks
-- wins (no clicks: a tie); preference = (wins_a + ties / 2) / impressions - 1/2, below 0 when ltr_v2 (team b) wins.
-- The sign test and the bootstrap interval are Python's (sqlndcg.interleaving_credit).
{{ sqlndcg.interleaving_credit(log=ref('interleaved_clicks')) }}
