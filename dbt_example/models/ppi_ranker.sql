-- What would the systems score with human labels everywhere? A model judge labelled every shown document
-- (model_labels); people audited every third query (audit_labels). Per system and day, NDCG@5 and P@5 with the
-- model's labels (naive_*) and corrected by the audit (PPI++: mean, ci_low, ci_high), lam and the human labels the
-- correction is worth.
{{ sqlndcg.ppi_evaluate(run=ref('rankings'), model_labels=ref('model_labels'), audit=ref('audit_labels'),
                        metrics=['ndcg@5', 'p@5'], group_by=['system', 'ds'], ppi='ppi++') }}
