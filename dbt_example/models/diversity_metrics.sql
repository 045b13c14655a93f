-- Intent-aware measures as ndeval computes them, per (system, day, query) of the logged rankings against the
-- diversity judgments (one row per query, intent and document): each system's list scored apart (group_by), the
-- queries both ranked and judged. sqlndcg.diversity(..., group_by=["system", "ds"]) gives the same rows.
{{ sqlndcg.diversity(run=ref('rankings'), judgments=ref('intent_judgments'),
                     metrics=['alpha_ndcg@5', 'err_ia@5', 'strec@10', 'nrbp'], group_by=['system', 'ds']) }}
