"""Every metric's value is independent of the other metrics in the call, bit for bit (issue 28): each one's sums
are added in the same order whatever the statement around them computes. Seeds and metric lists below are the
cases where a metric moved by an ulp beside others (bpref and g beside ndcg@10 with ideal='retrieved', rbp beside
ndcg, infap's std beside ndcg@3)."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

import sqlndcg

CASES = [
    (104, {"ideal": "retrieved"}, "g", ["err@5", "ndcg@10", "ap@10"]),
    (108, {"ideal": "retrieved"}, "bing", ["hit@3", "rr", "ndcg@10"]),
    (115, {"ideal": "retrieved"}, "ndcg_rel", ["ndcg@3", "bpref"]),
    (121, {"gain": "linear", "ideal": "retrieved"}, "rbp", ["ndcg", "p@5"]),
    (122, {"preset": "trec_eval", "ideal": "retrieved"}, "rbp", ["ndcg", "map"]),
    (132, {"short_lists": "truncate", "ideal": "retrieved"}, "err@10", ["ndcg@10", "p@5", "rr"]),
    (136, {"short_lists": "truncate", "ideal": "retrieved"}, "infap", ["ndcg@3"]),
    (137, {"preset": "trec_eval", "ideal": "retrieved"}, "ndcg_rel", ["ap@10", "ndcg@3", "p@5", "ndcg"]),
    (7, {"ideal": "retrieved"}, "bpref", ["ndcg@10"]),
    (7, {}, "ap", ["ndcg@10", "p@5", "rr", "bpref", "ndcg"]),
]


def _inputs(seed: int):
    """Queries with ties, short lists, unjudged and unretrieved documents, labels -1..3."""
    rng = random.Random(seed)
    run, qrels = [], []
    for q in range(rng.randint(5, 200)):
        for i in range(rng.randint(1, 40)):
            run.append((f"q{q}", f"d{i}", rng.choice([0.1, 0.2, 0.3, 0.5, 0.9, rng.random()])))
        for i in rng.sample(range(60), rng.randint(1, 40)):
            qrels.append((f"q{q}", f"d{i}", rng.choice([-1, 0, 0, 1, 2, 3])))
    return (pa.table(list(zip(*run)), names=["query_id", "doc_id", "score"]),
            pa.table(list(zip(*qrels)), names=["query_id", "doc_id", "rel"]))


@pytest.mark.parametrize("seed, settings, metric, others", CASES)
def test_a_metrics_values_do_not_depend_on_the_other_metrics_of_the_call(seed, settings, metric, others):
    run, qrels = _inputs(seed)
    alone = sqlndcg.evaluate(run, qrels, [metric], **settings)
    beside = sqlndcg.evaluate(run, qrels, [metric, *others], **settings)
    first = beside.per_query.columns.index(alone.per_query.columns[-1])
    assert [r[-1] for r in alone.per_query.rows] == [r[first] for r in beside.per_query.rows]
    (summary_alone,), (summary_beside,) = alone.summary.to_dicts(), beside.summary.to_dicts()
    assert {k: v for k, v in summary_alone.items()} == {k: summary_beside[k] for k in summary_alone}
