-- The human grade against the model judge's grade on the pairs both labelled (seeds/judge_labels.csv): units and
-- share per cell; by='pair' gives the kappas and the mean signed difference, by='coverage' each source's counts.
{{ sqlndcg.agreement(judgments=ref('judge_labels'), annotator='source', between=['human', 'llm-v2'], by='confusion') }}
