-- Team-draft interleaving (Radlinski, Kurup & Joachims 2008) of baseline (team a) and ltr_v2 (team b), five
-- positions, three impressions per query: the lists a serving system would show, the same for every build given
-- the seed (the coin of each round is MD5 of "seed:impression id:round"). seeds/interleaved_clicks.csv holds the
-- clicks users made on exactly these lists (scripts/make_seeds.py).
{{ sqlndcg.interleave(run_a=ref('last_day_baseline'), run_b=ref('last_day_ltr_v2'),
                      impressions=ref('interleaving_impressions'), k=5, seed=7) }}
