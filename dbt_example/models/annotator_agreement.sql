-- How well the annotators of seeds/annotations.csv agree, per query (Cohen's and Fleiss' kappa, Krippendorff's
-- alpha), least consistent queries first: the guideline to look at before trusting their labels.
{{ sqlndcg.agreement(judgments=ref('annotations'), by='query') }}
