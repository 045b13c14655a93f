-- SEMANTICS.md's worked example: one query, judgments A=3, B=2, C=0, D=1, E=2, run order A..E.
{{ sqlndcg.per_query(
    run=ref('worked_example_run'),
    judgments=ref('worked_example_judgments'),
    metrics=['cg@1', 'cg@2', 'cg@3', 'cg@4', 'cg@5', 'dcg@1', 'dcg@2', 'dcg@3', 'dcg@4', 'dcg@5',
             'idcg@1', 'idcg@2', 'idcg@3', 'idcg@4', 'idcg@5', 'ndcg@1', 'ndcg@2', 'ndcg@3', 'ndcg@4', 'ndcg@5'],
    gain='exponential'
) }}
