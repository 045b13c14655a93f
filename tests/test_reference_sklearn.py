"""preset="sklearn" equals sklearn.metrics.ndcg_score per query: ties averaged, linear gain, ideal = retrieved."""

import random

import pytest

import sqlndcg

import sklearn.metrics as sklearn_metrics
ndcg_score = sklearn_metrics.ndcg_score

TOL = 1e-9
KS = (1, 3, 5, None)
METRICS = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg"]


def _column(k):
    return "ndcg" if k is None else f"ndcg@{k}"


def make_data(seed):
    """Random run with heavy score ties (3 distinct scores), unjudged retrieved documents (label 0 for sklearn),
    judged documents that were not retrieved (ignored by ideal='retrieved'), negative labels (gain 0, i.e. 0 for
    sklearn), fractional labels, and queries whose retrieved documents have no positive label."""
    rng = random.Random(seed)
    run_rows, judgment_rows = [], []
    for qn in range(30):
        qid = f"q{qn:02d}"
        docs = [f"d{n:03d}" for n in rng.sample(range(200), 25)]
        length = rng.choice([2, 3, 4, 6, 9, 15])
        retrieved = docs[:length]
        nothing = qn % 7 == 3
        for d in docs[:20]:
            if rng.random() < 0.75:  # leave some documents unjudged
                rel = rng.choice([0, -1]) if nothing else rng.choice([-1, 0, 0, 1, 1, 1.5, 2, 3])
                judgment_rows.append((qid, d, rel))
        for d in retrieved:
            run_rows.append((qid, d, rng.choice([0.1, 0.5, 0.9])))
    return run_rows, judgment_rows


def sklearn_expected(run_rows, judgment_rows):
    labels = {(q, d): rel for q, d, rel in judgment_rows}
    per_query = {}
    for q, d, s in run_rows:
        per_query.setdefault(q, []).append((max(labels.get((q, d), 0), 0), s))
    out = {}
    for q, pairs in per_query.items():
        assert len(pairs) > 1  # sklearn needs more than one document
        y_true = [[r for r, _ in pairs]]
        y_score = [[s for _, s in pairs]]
        out[q] = {k: float(ndcg_score(y_true, y_score, k=k)) for k in KS}
    return out


def sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, **settings):
    run = tuples_to_frame(run_rows, ["query_id", "doc_id", "score"])
    judgments = tuples_to_frame(judgment_rows, ["query_id", "doc_id", "rel"])
    res = sqlndcg.evaluate(run, judgments, METRICS, preset="sklearn", **settings)
    return {r["query_id"]: r for r in res.per_query.to_dicts()}


@pytest.mark.parametrize("seed", [11, 12, 13, 14, 15, 16])
def test_matches_sklearn_ndcg_score_per_query(seed, tuples_to_frame):
    run_rows, judgment_rows = make_data(seed)
    expected = sklearn_expected(run_rows, judgment_rows)
    got = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame)
    assert set(got) == set(expected)
    # the data is not trivial: some values strictly between 0 and 1, some queries with nothing to find
    assert any(0 < e[3] < 1 for e in expected.values())
    assert any(e[None] == 0 for e in expected.values())
    mismatches = [
        (q, k, got[q][_column(k)], want[k])
        for q, want in expected.items()
        for k in KS
        if abs(got[q][_column(k)] - want[k]) > TOL
    ]
    assert not mismatches, mismatches[:20]


def test_ties_matter_in_this_data(tuples_to_frame):
    # Guard against the comparison passing for the wrong reason: breaking ties by doc_id gives other numbers.
    run_rows, judgment_rows = make_data(11)
    expected = sklearn_expected(run_rows, judgment_rows)
    by_doc_id = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, ties="doc_id")
    differing = [q for q in expected if abs(by_doc_id[q]["ndcg@3"] - expected[q][3]) > 1e-6]
    assert len(differing) >= 3


def test_hand_computed_tie_average(tuples_to_frame):
    # Three documents tied at the top with labels 3, 0, 0, one below with label 1. Tie-averaged DCG@1 is the mean
    # gain of the tie (1) times discount 1; ideal DCG@1 is 3.
    run_rows = [("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "d", 0.5)]
    judgment_rows = [("q", "a", 3), ("q", "b", 0), ("q", "c", 0), ("q", "d", 1)]
    got = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame)["q"]
    assert got["ndcg@1"] == pytest.approx(1 / 3, abs=TOL)
    assert float(ndcg_score([[3, 0, 0, 1]], [[1.0, 1.0, 1.0, 0.5]], k=1)) == pytest.approx(1 / 3, abs=TOL)


def test_all_zero_labels_score_zero_like_sklearn(tuples_to_frame):
    # sklearn returns 0 for a query whose labels are all 0; sqlndcg does too with empty="zero" (the default).
    run_rows = [("z", d, s) for d, s in [("a", 0.9), ("b", 0.5), ("c", 0.5), ("e", 0.1)]]
    run_rows += [("p", d, s) for d, s in [("a", 0.9), ("b", 0.5)]]
    judgment_rows = [("z", "a", 0), ("z", "b", -1), ("z", "c", 0), ("z", "x", 3),  # x is relevant but not retrieved
                     ("p", "a", 0), ("p", "b", 2)]
    expected = sklearn_expected(run_rows, judgment_rows)
    for k in KS:
        assert expected["z"][k] == 0.0
    for empty in (None, "zero"):
        settings = {} if empty is None else {"empty": empty}
        got = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, **settings)
        for k in KS:
            assert got["z"][_column(k)] == 0.0
            assert got["p"][_column(k)] == pytest.approx(expected["p"][k], abs=TOL)
    # with empty="skip" the query is NULL instead (and sklearn has no such option)
    skipped = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, empty="skip")
    assert all(skipped["z"][_column(k)] is None for k in KS)
