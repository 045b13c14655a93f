-- Does ltr_v2 beat the baseline once the model judge's bias is corrected? Per day and metric, the mean paired
-- difference ltr_v2 - baseline with the model's labels (naive_*) and corrected by the human audit (PPI++).
{{ sqlndcg.ppi_evaluate(run=ref('rankings'), model_labels=ref('model_labels'), audit=ref('audit_labels'),
                        metrics=['ndcg@5', 'p@5'], group_by=['ds'], system='system', baseline='baseline') }}
