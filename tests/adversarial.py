"""One adversarial dataset and the main setting combinations, shared by the engine and dbt tests."""

from __future__ import annotations

import random

# The main setting combinations, each with the metrics it allows.
ALL_METRICS = ["ndcg@3", "ndcg@10", "ndcg", "dcg@5", "idcg@5", "cg@3", "p@5", "r@10", "judged@5", "ap", "ap@5",
               "rr", "rr@10", "hit@3", "p(rel=2)@5"]
ADDITIVE = ["ndcg@3", "ndcg@10", "ndcg", "dcg@5", "idcg@5", "cg@3", "p@5", "r@10", "judged@5"]
COMBINATIONS = {
    "defaults": (ALL_METRICS, {}),
    "trec_eval": (ALL_METRICS, {"preset": "trec_eval"}),
    "retrieved_truncate_skip": (ALL_METRICS, {"ideal": "retrieved", "short_lists": "truncate", "empty": "skip"}),
    "average_both": (ADDITIVE, {"ties": "average", "queries": "both"}),
    "gain_map_threshold": (ALL_METRICS, {"gain": {0: 0, 1: 1, 2: 4, 3: 9}, "threshold": 2}),
    # every other trec_eval measure family (one file each in sql/macros/measures), as trec_eval reads labels
    "trec_eval_measures": (["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "gm_map", "rprec",
                            "rprec_mult", "bpref", "gm_bpref", "infap", "iprec_at_recall", "11pt_avg", "utility",
                            "bing", "g", "ndcg_rel", "rndcg", "relative_p@5", "set_p", "set_relative_p",
                            "set_recall", "set_map", "set_f", "rbp", "rbp_resid", "unj@5"], {"preset": "trec_eval"}),
}


def adversarial_rows(integer_ids: bool):
    """Ties, byte-order-sensitive ids (dóc/DOC/Doc/doc), labels -1..3, short lists, judged-but-unretrieved documents,
    a query with nothing to find, a judged query missing from the run, a run query without judgments."""
    rng = random.Random(7)
    names = ["dóc", "DOC", "Doc", "doc", "a", "B", "b", "Z", "ä", "e1", "e10", "e2"]
    doc = (lambda i: 100 + i) if integer_ids else (lambda i: names[i])
    query = (lambda q: q) if integer_ids else (lambda q: f"Q{q}")
    run, qrels = [], []
    for system in ("sysA", "sysB"):
        for q in range(1, 9):
            for i in range(rng.randint(1, 12) if q != 8 else 12):
                run.append((system, query(q), doc(i), rng.choice([0.5, 0.5, 0.7, 0.9, 1.25])))
    for q in range(1, 11):
        if q == 8:
            continue  # run query without judgments
        for i in rng.sample(range(12), 7):
            label = 0 if q == 6 else rng.choice([-1, 0, 0, 1, 2, 3])  # q6: nothing to find
            qrels.append((query(q), doc(i), label))
    return run, qrels


