-- What each system shows of the catalog, per day: coverage of catalog_items in any top 5, the Gini index of the
-- items' exposure, novelty (mean -log2 popularity share), intra-list diversity of categories and the long tail's
-- share of the top 5; no judgments needed.
{{ sqlndcg.beyond_accuracy(run=ref('rankings'), items=ref('catalog_items'), group_by=['system', 'ds'],
                           metrics=['coverage@5', 'gini@5', 'novelty@5', 'ild@5', 'long_tail@5']) }}
