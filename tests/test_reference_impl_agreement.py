"""sqlndcg agrees with the plain-Python reference (tests/reference_impl.py) for every combination of settings.

One parametrized test per (gain, ideal, ties, short_lists, empty, queries); each evaluates the same grouped random
data three times: every metric at cutoffs 1, 3, 10 and full depth (no pruning of the lists); cutoff metrics only
(with ideal="judgments" the SQL then only joins the top of each list); and every metric again with threshold=2.
Each includes the per-metric P(rel=2)@5. Every (system, query, metric) value is compared to the reference to 1e-9.
"""

import itertools
import random

import pytest

import sqlndcg
from reference_impl import KINDS, reference_evaluate

#: Every setting combination (98 evaluations of a few seconds): in the full run, not in the quick subset.
pytestmark = pytest.mark.slow

TOL = 1e-9
GAIN_MAP = {1: 1.0, 2: 5.0, 3: 10.0}
GAINS = {"exponential": "exponential", "linear": "linear", "map": GAIN_MAP}
CUTOFFS = (1, 3, 10)
NON_ADDITIVE = ("ap", "rr", "hit")
SYSTEMS = ("bm25", "dense")


def metric_name(kind, k, rel_threshold):
    """The sqlndcg column for a reference metric key (kind, k, rel_threshold)."""
    rel = "" if rel_threshold is None else f"(rel={rel_threshold:g})"
    cut = "" if k is None else f"@{k}"
    return f"{kind}{rel}{cut}"


def metric_keys(ties, full_depth):
    kinds = [k for k in KINDS if not (ties == "average" and k in NON_ADDITIVE)]
    cutoffs = CUTOFFS + (None,) if full_depth else CUTOFFS
    keys = [(kind, k, None) for k in cutoffs for kind in kinds]
    keys.append(("p", 5, 2.0))
    return keys


def make_data(seed, fractional):
    """Two systems over shared judgments: score ties, short and long lists, unjudged retrieved and judged
    unretrieved documents, labels -1..3 (plus 0.5, 1.5, 2.5 when ``fractional``), queries with nothing relevant,
    judged queries one system (or both) did not answer, answered queries without judgments."""
    rng = random.Random(seed)
    labels = [-1, 0, 0, 0, 1, 1, 2, 3] + ([0.5, 1.5, 2.5] if fractional else [])
    judgments, run = [], []
    for qn in range(18):
        qid = f"q{qn:02d}"
        docs = [f"d{n}" for n in rng.sample(range(1, 120), 30)]  # ids of different lengths: "d9" > "d10"
        if qn != 4:  # q04 is answered but never judged
            nothing = qn in (2, 9)  # only 0 and -1 labels
            for d in docs[:rng.randint(1, 14)]:
                judgments.append((qid, d, rng.choice([-1, 0]) if nothing else rng.choice(labels)))
        for system in SYSTEMS:
            if qn == 6 or (qn == 7 and system == "dense"):  # not answered (by anyone / by one system)
                continue
            length = rng.choice([1, 2, 3, 5, 8, 12, 16])
            start = rng.randint(0, 6)
            for d in docs[start:start + length]:
                run.append((system, qid, d, rng.choice([0.0, 0.5, 1.0, 2.0])))
    return run, judgments


def sqlndcg_values(run, judgments, keys, settings, tuples_to_frame):
    run_frame = tuples_to_frame(run, ["system", "query_id", "doc_id", "score"])
    judgments_frame = tuples_to_frame(judgments, ["query_id", "doc_id", "rel"])
    res = sqlndcg.evaluate(run_frame, judgments_frame, [metric_name(*key) for key in keys], group_by=["system"],
                           **settings)
    out = {}
    for row in res.per_query.to_dicts():
        group_query = (row["system"], row["query_id"])
        assert group_query not in out, f"two rows for {group_query}"
        out[group_query] = {key: row[metric_name(*key)] for key in keys}
    return out


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOL


COMBINATIONS = list(itertools.product(GAINS, ("judgments", "retrieved"), ("doc_id", "average"), ("pad", "truncate"),
                                      ("zero", "skip"), ("judged", "both")))


@pytest.mark.parametrize("gain,ideal,ties,short_lists,empty,queries", COMBINATIONS)
def test_agrees_with_reference(gain, ideal, ties, short_lists, empty, queries, tuples_to_frame):
    seed = COMBINATIONS.index((gain, ideal, ties, short_lists, empty, queries))
    run, judgments = make_data(seed, fractional=gain != "map")
    compared = 0
    for threshold, full_depth in ((None, True), (None, False), (2, True)):
        settings = dict(gain=GAINS[gain], ideal=ideal, ties=ties, short_lists=short_lists, empty=empty,
                        queries=queries)
        if threshold is not None:
            settings["threshold"] = threshold
        keys = metric_keys(ties, full_depth)
        want = reference_evaluate(run, judgments, keys, **{**settings, "threshold": threshold or 1.0})
        got = sqlndcg_values(run, judgments, keys, settings, tuples_to_frame)
        assert set(got) == set(want), (sorted(set(got) ^ set(want)), settings)
        mismatches = [
            (group_query, metric_name(*key), got[group_query][key], value)
            for group_query, values in want.items()
            for key, value in values.items()
            if not _close(got[group_query][key], value)
        ]
        assert not mismatches, (settings, full_depth, mismatches[:15])
        compared += sum(len(v) for v in want.values())
    assert compared > 1000


def test_data_covers_the_awkward_cases():
    run, judgments = make_data(0, fractional=True)
    judged = {q for q, _, _ in judgments}
    answered = {(s, q) for s, q, _, _ in run}
    assert ("bm25", "q07") in answered and ("dense", "q07") not in answered
    assert "q06" in judged and not any(q == "q06" for _, q in answered)
    assert "q04" not in judged and ("bm25", "q04") in answered
    assert any(r < 0 for _, _, r in judgments) and any(r != int(r) for _, _, r in judgments)
    pairs = {(q, d) for q, d, _ in judgments}
    assert any((q, d) not in pairs for _, q, d, _ in run), "unjudged retrieved documents"
    retrieved = {(q, d) for _, q, d, _ in run}
    assert any(p not in retrieved for p in pairs), "judged documents never retrieved"
    lengths = {}
    for s, q, _, _ in run:
        lengths[(s, q)] = lengths.get((s, q), 0) + 1
    assert min(lengths.values()) < 3 and max(lengths.values()) > 10
    # the settings make a difference on this data (so agreement is not vacuous)
    keys = metric_keys("doc_id", True)
    base = reference_evaluate(run, judgments, keys)
    for change in (dict(gain="linear"), dict(ideal="retrieved"), dict(ties="average"), dict(short_lists="truncate"),
                   dict(empty="skip"), dict(queries="both"), dict(threshold=2.0)):
        kept = [k for k in keys if not (change.get("ties") == "average" and k[0] in NON_ADDITIVE)]
        other = reference_evaluate(run, judgments, kept, **change)
        assert any(
            gq not in other or any(not _close(other[gq][k], base[gq][k]) for k in kept) for gq in base
        ), change


def test_reference_refuses_what_sqlndcg_refuses(tuples_to_frame):
    # ap/rr/hit are skipped above under ties="average" because both implementations refuse them
    run, judgments = make_data(0, fractional=False)
    run_frame = tuples_to_frame(run, ["system", "query_id", "doc_id", "score"])
    judgments_frame = tuples_to_frame(judgments, ["query_id", "doc_id", "rel"])
    for kind in NON_ADDITIVE:
        with pytest.raises(ValueError):
            reference_evaluate(run, judgments, [(kind, 3, None)], ties="average")
        with pytest.raises(sqlndcg.MetricError, match="average"):
            sqlndcg.evaluate(run_frame, judgments_frame, [f"{kind}@3"], ties="average", group_by=["system"])
