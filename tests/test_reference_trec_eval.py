"""preset="trec_eval-9" equals pytrec_eval (trec_eval 9.x's own C code) per query, to 1e-9, on awkward random data;
preset="trec_eval" (10.0) differs from it only in iprec_at_recall and 11pt_avg, where 10.0 reaches lround(x * R)
relevant documents instead of floor(x * R + 0.9)."""

import math
import random
from decimal import ROUND_HALF_UP, Decimal

import pytest

import sqlndcg

import pytrec_eval

TOL = 1e-9

#: sqlndcg column -> pytrec_eval measure
MEASURES = {
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "ndcg": "ndcg",
    "p@5": "P_5",
    "p@10": "P_10",
    "ap@5": "map_cut_5",
    "ap@10": "map_cut_10",
    "ap": "map",
    "rr": "recip_rank",
    "iprec_at_recall(recall=0.1)": "iprec_at_recall_0.10",
    "iprec_at_recall(recall=0.7)": "iprec_at_recall_0.70",
    "11pt_avg": "11pt_avg",
}
PYTREC_MEASURES = {"ndcg_cut.5,10", "ndcg", "P.5,10", "map_cut.5,10", "map", "recip_rank", "iprec_at_recall.0.1,0.7",
                   "11pt_avg"}
#: the measures whose relevant documents to reach differ between trec_eval 10.0 and 9.x
REACHING = ("iprec_at_recall(recall=0.1)", "iprec_at_recall(recall=0.7)", "11pt_avg")


def _doc_name(n, id_style):
    if id_style == "padded":
        return f"d{n:03d}"
    # different lengths: "d9" > "d10" > "d1" as strings, unlike numerically
    return f"d{n}"


def make_data(seed, id_style):
    """Random qrels/run with score ties, short lists, unjudged retrieved and judged unretrieved documents,
    graded labels 0..3 plus -1, queries with nothing relevant, judged queries missing from the run and run queries
    without judgments. Returns (run_rows, judgment_rows, judged_not_run, run_not_judged)."""
    rng = random.Random(seed)
    run_rows, judgment_rows = [], []
    judged_not_run, run_not_judged = [], []
    pool = list(range(1, 140)) if id_style == "unpadded" else list(range(1, 1000, 7))
    score_values = [0.0, 0.25, 0.5, 1.0, 1.5, 3.0]
    for qn in range(40):
        qid = f"q{qn:02d}"
        kind = rng.random()
        has_run = not (qn % 13 == 5)  # a few judged queries the system did not answer
        has_judgments = not (qn % 11 == 7)  # a few answered queries without any judgment
        docs = rng.sample(pool, 30)
        if has_judgments:
            n_judged = rng.randint(1, 15)
            for d in docs[:n_judged]:
                if kind < 0.15:  # nothing relevant: only 0 and -1
                    rel = rng.choice([0, 0, -1])
                else:
                    rel = rng.choice([-1, 0, 0, 1, 1, 2, 3])
                judgment_rows.append((qid, _doc_name(d, id_style), rel))
        if has_run:
            # short lists (1..4 < 5, 5..9 < 10) as well as long ones; starts part-way into the judged documents,
            # so some judged documents are never retrieved and some retrieved ones are unjudged
            length = rng.choice([1, 2, 3, 4, 6, 8, 12, 20, 25])
            start = rng.randint(0, 5)
            for d in docs[start:start + length]:
                run_rows.append((qid, _doc_name(d, id_style), rng.choice(score_values)))
        if has_judgments and not has_run:
            judged_not_run.append(qid)
        if has_run and not has_judgments:
            run_not_judged.append(qid)
    assert judged_not_run and run_not_judged
    return run_rows, judgment_rows, judged_not_run, run_not_judged


def pytrec_scores(run_rows, judgment_rows):
    qrels, run = {}, {}
    for q, d, rel in judgment_rows:
        qrels.setdefault(q, {})[d] = int(rel)
    for q, d, s in run_rows:
        run.setdefault(q, {})[d] = float(s)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES)
    return evaluator.evaluate(run)


def sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, preset="trec_eval-9", **settings):
    run = tuples_to_frame(run_rows, ["query_id", "doc_id", "score"])
    judgments = tuples_to_frame(judgment_rows, ["query_id", "doc_id", "rel"])
    res = sqlndcg.evaluate(run, judgments, list(MEASURES), preset=preset, **settings)
    rows = res.per_query.to_dicts()
    by_query = {r["query_id"]: r for r in rows}
    assert len(by_query) == len(rows), "one row per query"
    return by_query


CASES = [(seed, style) for seed in (1, 2, 3, 4, 5) for style in ("padded", "unpadded")]


@pytest.mark.parametrize("seed,id_style", CASES)
def test_matches_pytrec_eval_per_query(seed, id_style, tuples_to_frame):
    run_rows, judgment_rows, judged_not_run, run_not_judged = make_data(seed, id_style)
    expected = pytrec_scores(run_rows, judgment_rows)
    got = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame)

    # the data exercises what it claims to
    assert len(expected) >= 25
    assert any(all(v == 0 for v in e.values()) for e in expected.values()), "a query with nothing relevant"
    assert any(0 < e["ndcg_cut_10"] < 1 for e in expected.values())

    # pytrec_eval only reports queries both answered and judged; sqlndcg (queries="judged") reports every judged one
    judged = {q for q, _, _ in judgment_rows}
    assert set(got) == judged
    assert set(expected) == judged - set(judged_not_run)
    assert not set(got) & set(run_not_judged)

    mismatches = []
    for q, want in expected.items():
        for column, measure in MEASURES.items():
            if abs(got[q][column] - want[measure]) > TOL:
                mismatches.append((q, column, got[q][column], want[measure]))
    assert not mismatches, mismatches[:20]


@pytest.mark.parametrize("seed,id_style", CASES[:4])
def test_judged_queries_missing_from_the_run_score_zero(seed, id_style, tuples_to_frame):
    run_rows, judgment_rows, judged_not_run, _ = make_data(seed, id_style)
    got = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame)
    for q in judged_not_run:
        for column in MEASURES:
            assert got[q][column] == 0, (q, column, got[q][column])
    # ... and they are left out with queries="both", which then reports exactly pytrec_eval's queries
    both = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, queries="both")
    assert set(both) == set(pytrec_scores(run_rows, judgment_rows))


def test_tie_break_is_doc_id_descending_as_strings(tuples_to_frame):
    # Four tied documents; "d9" > "d2" > "d10" > "d1" as strings. Only d10 is relevant, so its position (3) shows
    # the order: numeric order would put it first.
    run_rows = [("q", d, 1.0) for d in ("d1", "d2", "d9", "d10")]
    judgment_rows = [("q", "d10", 1), ("q", "d1", 0)]
    want = pytrec_scores(run_rows, judgment_rows)["q"]
    got = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame)["q"]
    assert want["recip_rank"] == pytest.approx(1 / 3)
    assert got["rr"] == pytest.approx(1 / 3, abs=TOL)
    for column, measure in MEASURES.items():
        assert got[column] == pytest.approx(want[measure], abs=TOL), column


def test_the_trec_eval_preset_is_10_and_differs_from_9_only_where_the_reach_does(tuples_to_frame):
    """preset="trec_eval" (10.0) equals "trec_eval-9" (pytrec_eval) in every measure but iprec_at_recall and
    11pt_avg, and in those exactly for the queries whose R makes lround(x * R) and floor(x * R + 0.9) differ (at
    0.1 or 0.7 for iprec; at any of 0, .1, ..., 1 for 11pt_avg), and it differs somewhere."""
    differing = 0
    for seed, id_style in CASES:
        run_rows, judgment_rows, _, _ = make_data(seed, id_style)
        nine = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame)
        ten = sqlndcg_rows(run_rows, judgment_rows, tuples_to_frame, preset="trec_eval")
        assert set(ten) == set(nine)
        relevant = {}
        for q, _, rel in judgment_rows:
            relevant[q] = relevant.get(q, 0) + (rel >= 1)
        for q in ten:
            r = relevant[q]

            def reach_differs(xs, r=r):
                return any(math.floor(x * r + 0.9) != int(Decimal(x * r).quantize(1, ROUND_HALF_UP)) for x in xs)

            for column in MEASURES:
                if column not in REACHING:
                    assert ten[q][column] == nine[q][column], (q, column)
            for column, xs in (("iprec_at_recall(recall=0.1)", [0.1]), ("iprec_at_recall(recall=0.7)", [0.7]),
                               ("11pt_avg", [i / 10 for i in range(11)])):
                if ten[q][column] != nine[q][column]:
                    assert reach_differs(xs), (q, column, r)
                    differing += 1
    assert differing > 10
