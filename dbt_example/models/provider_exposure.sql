-- Exposure fairness of every day's rankings of both systems over the catalog's brands (seeds/catalog.csv): per
-- system, day and query, the brands' exposure under RBP (patience 0.8) to rank 10, the disparity of their mean
-- exposure per item and AWRF against the brands' shares of the catalog (docs/fairness.md).
{{ sqlndcg.exposure(run=ref('rankings'), items=ref('catalog'), group_column='provider', browsing='rbp', p=0.8, k=10,
                    group_by=['system', 'ds']) }}
