-- How far the model judge of seeds/judge_labels.csv ("llm-v2") agrees with the people ("human"), per human grade:
-- how often the judge gives the same grade (agreement = recall, precision), its mean grade there and its bias
-- (mean_difference, the judge minus the human), on the (query, document) pairs both labelled.
{{ sqlndcg.agreement(judgments=ref('judge_labels'), annotator='source', between=['human', 'llm-v2'], by='grade') }}
