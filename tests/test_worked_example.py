"""SEMANTICS.md's worked example, reproduced to 6 decimals.

One query, judgments A=3, B=2, C=0, D=1, E=2, run order A, B, C, D, E.
"""

import math

import pytest

import sqlndcg

JUDGMENTS = [("q", "A", 3), ("q", "B", 2), ("q", "C", 0), ("q", "D", 1), ("q", "E", 2)]

#: k: (CG@k, DCG@k, IDCG@k, NDCG@k), exponential gain, default settings (SEMANTICS.md's table).
EXPECTED = {
    1: (3, 7.000000, 7.000000, 1.000000),
    2: (5, 8.892789, 8.892789, 1.000000),
    3: (5, 8.892789, 10.392789, 0.855669),
    4: (6, 9.323466, 10.823466, 0.861412),
    5: (8, 10.484024, 10.823466, 0.968638),
}

KS = range(1, 6)
ALL_METRICS = [f"{kind}@{k}" for k in KS for kind in ("cg", "dcg", "idcg", "ndcg")]


def _frames(tuples_to_frame, order):
    scores = [5.0, 4.0, 3.0, 2.0, 1.0]
    run = tuples_to_frame([("q", d, s) for d, s in zip(order, scores)], ["query_id", "doc_id", "score"])
    judgments = tuples_to_frame(JUDGMENTS, ["query_id", "doc_id", "rel"])
    return run, judgments


def _one_row(res):
    rows = res.per_query.to_dicts()
    assert len(rows) == 1
    assert rows[0]["query_id"] == "q"
    return rows[0]


@pytest.fixture
def example_row(tuples_to_frame):
    run, judgments = _frames(tuples_to_frame, "ABCDE")
    return _one_row(sqlndcg.evaluate(run, judgments, ALL_METRICS))


@pytest.mark.parametrize("k", KS)
def test_exponential_table(example_row, k):
    cg, dcg, idcg, ndcg = EXPECTED[k]
    assert round(example_row[f"cg@{k}"], 6) == cg
    assert round(example_row[f"dcg@{k}"], 6) == dcg
    assert round(example_row[f"idcg@{k}"], 6) == idcg
    assert round(example_row[f"ndcg@{k}"], 6) == ndcg


def test_exponential_is_the_default_and_explicit_gives_the_same(tuples_to_frame, example_row):
    run, judgments = _frames(tuples_to_frame, "ABCDE")
    explicit = _one_row(sqlndcg.evaluate(run, judgments, ALL_METRICS, gain="exponential"))
    assert explicit == example_row


def test_summary_of_one_query_is_the_query(example_row, tuples_to_frame):
    run, judgments = _frames(tuples_to_frame, "ABCDE")
    res = sqlndcg.evaluate(run, judgments, ["ndcg@3", "ndcg@5"])
    summary = res.summary.to_dicts()
    assert len(summary) == 1
    assert summary[0]["queries"] == 1
    assert round(summary[0]["ndcg@3"], 6) == 0.855669
    assert round(summary[0]["ndcg@5"], 6) == 0.968638
    assert summary[0]["ndcg@5_count"] == 1


def test_linear_gain(tuples_to_frame):
    run, judgments = _frames(tuples_to_frame, "ABCDE")
    row = _one_row(sqlndcg.evaluate(run, judgments, ["ndcg@3", "ndcg@5"], gain="linear"))
    assert round(row["ndcg@3"], 6) == 0.809953
    assert round(row["ndcg@5"], 6) == 0.960247


def test_swapping_b_and_e_leaves_cg_unchanged(tuples_to_frame, example_row):
    # B and E are both judged 2, so swapping them changes no gain at any position: CG, and also DCG and NDCG,
    # are identical to the original order.
    run, judgments = _frames(tuples_to_frame, "AECDB")
    swapped = _one_row(sqlndcg.evaluate(run, judgments, ALL_METRICS))
    for k in KS:
        assert swapped[f"cg@{k}"] == example_row[f"cg@{k}"]
        assert swapped[f"ndcg@{k}"] == pytest.approx(example_row[f"ndcg@{k}"], abs=1e-12)


def test_reordering_leaves_cg_at_full_length_unchanged_but_lowers_ndcg(tuples_to_frame, example_row):
    # The source's point: CG ignores order. Moving the best document (A=3) to the bottom and E (2) to the top keeps
    # CG@5 at 8, while NDCG@5 drops.
    run, judgments = _frames(tuples_to_frame, "EBCDA")
    swapped = _one_row(sqlndcg.evaluate(run, judgments, ALL_METRICS))
    assert swapped["cg@5"] == example_row["cg@5"] == 8
    assert swapped["idcg@5"] == pytest.approx(example_row["idcg@5"], abs=1e-12)
    assert swapped["ndcg@5"] < example_row["ndcg@5"] - 1e-3
    # gains 3, 3, 0, 1, 7 -> DCG@5 = 3 + 3/log2(3) + 1/log2(5) + 7/log2(6)
    assert swapped["dcg@5"] == pytest.approx(3 + 3 / math.log2(3) + 1 / math.log2(5) + 7 / math.log2(6), abs=1e-9)
