"""Each tool preset equals the tool's own per-query numbers on the measures it shares, on one seeded data set with
score ties, graded labels (-1..3), unjudged retrieved and judged unretrieved documents, short lists, queries with
nothing to find, judged queries missing from the run and run queries without judgments. Where a tool differs in a
way no setting reproduces, the difference is asserted exactly. docs/presets.md states the counts asserted here."""

import random
import shutil
import subprocess
from importlib import resources

import pytest

import sqlndcg

TOL = 1e-9


def make_data(seed=7, n_queries=40, fractional=False):
    """(run_rows, judgment_rows) with numeric query ids (gdeval takes only those) and doc ids of different lengths
    ("d9" > "d10" as text). ``fractional`` adds labels 1.5 and 2.5 (tools that read labels as integers)."""
    rng = random.Random(seed)
    run_rows, judgment_rows = [], []
    scores = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]
    grades = [-1, 0, 0, 1, 1, 2, 3] + ([1.5, 2.5] if fractional else [])
    for qn in range(n_queries):
        qid = str(100 + qn)
        docs = [f"d{n}" for n in rng.sample(range(1, 120), 30)]
        nothing = qn % 9 == 4  # judged, nothing relevant
        if qn % 11 != 7:  # else: a run query without judgments
            for d in docs[:rng.randint(1, 14)]:
                judgment_rows.append((qid, d, rng.choice([0, 0, -1]) if nothing else rng.choice(grades)))
        if qn % 13 != 5:  # else: a judged query missing from the run
            start = rng.randint(0, 4)
            tie_free = qn % 3 == 0
            picked = docs[start:start + rng.choice([1, 2, 3, 4, 6, 9, 12, 20])]
            values = rng.sample(range(1, 1000), len(picked)) if tie_free else [rng.choice(scores) for _ in picked]
            run_rows += [(qid, d, float(s)) for d, s in zip(picked, values)]
    return run_rows, judgment_rows


RUN, JUDGMENTS = make_data()
JUDGED = {q for q, _, _ in JUDGMENTS}
RUN_QUERIES = {q for q, _, _ in RUN}


def labels_of(judgment_rows):
    out = {}
    for q, d, rel in judgment_rows:
        out.setdefault(q, {})[d] = rel
    return out


def run_of(run_rows):
    out = {}
    for q, d, s in run_rows:
        out.setdefault(q, {})[d] = s
    return out


def ordered(docs_scores):
    """sqlndcg's order under ties='doc_id' on text ids: score descending, then id descending as bytes."""
    return [d for d, _ in sorted(docs_scores.items(), key=lambda x: (-x[1], tuple(-b for b in x[0].encode())))]


def sqlndcg_per_query(metrics, preset, run_rows=RUN, judgment_rows=JUDGMENTS, rank=False, **settings):
    import pandas as pd

    columns = ["query_id", "doc_id", "rank" if rank else "score"]
    res = sqlndcg.evaluate(pd.DataFrame(run_rows, columns=columns),
                           pd.DataFrame(judgment_rows, columns=["query_id", "doc_id", "rel"]),
                           metrics, preset=preset, **settings)
    return {r["query_id"]: r for r in res.per_query.to_dicts()}


def compare(got, want, pairs, tol=TOL):
    """(agreeing, mismatches) over every query of ``want`` and (sqlndcg column, tool measure) pair."""
    agree, bad = 0, []
    for q, values in want.items():
        for column, measure in pairs:
            if abs(got[q][column] - values[measure]) <= tol:
                agree += 1
            else:
                bad.append((q, column, got[q][column], values[measure]))
    return agree, bad


def test_the_data_exercises_what_it_claims():
    labels = labels_of(JUDGMENTS)
    assert JUDGED - RUN_QUERIES and RUN_QUERIES - JUDGED
    assert any(all(r <= 0 for r in labels[q].values()) for q in labels)
    assert any(r < 0 for _, _, r in JUDGMENTS) and any(r == 3 for _, _, r in JUDGMENTS)
    run = run_of(RUN)
    assert any(len(set(v.values())) < len(v) for v in run.values()), "ties"
    assert any(d not in labels.get(q, {}) for q, d, _ in RUN), "unjudged retrieved"
    assert any(d not in run.get(q, {}) for q, d, _ in JUDGMENTS), "judged unretrieved"


# --- ir_measures (0.4.3; pytrec_eval for these measures, its own code for Judged) ---------------------------------

IRM = {"ndcg@5": "nDCG@5", "ndcg@10": "nDCG@10", "ndcg": "nDCG", "p@5": "P@5", "p@10": "P@10", "r@10": "R@10",
       "ap": "AP", "ap@10": "AP@10", "rr": "RR", "hit@10": "Success@10"}


def ir_measures_per_query(names, run_rows=RUN, judgment_rows=JUDGMENTS):
    import ir_measures
    qrels = {q: {d: int(r) for d, r in docs.items()} for q, docs in labels_of(judgment_rows).items()}
    out = {}
    for m in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run_of(run_rows)):
        out.setdefault(m.query_id, {})[str(m.measure)] = m.value
    return out


def test_ir_measures_preset_equals_ir_measures():
    want = ir_measures_per_query(IRM.values())
    got = sqlndcg_per_query(list(IRM), "ir_measures")
    assert set(want) == set(got) == JUDGED  # ir_measures scores judged queries missing from the run as 0
    agree, bad = compare(got, want, IRM.items())
    assert not bad, bad[:10]
    assert agree == len(JUDGED) * len(IRM) == 370


def test_ir_measures_judged_at_k_is_its_own_code():
    # Judged@k is ir_measures' own Python, not pytrec_eval: ties by doc id ascending (not trec_eval's descending),
    # every label counts as judged, and judged documents in the top k over min(k, list length), i.e. sqlndcg's
    # judged@k on that order under short_lists="truncate"; the preset pads and breaks ties as trec_eval (as P@k in
    # the same tool does).
    want = ir_measures_per_query(["Judged@5", "Judged@10"])
    ascending = [(q, d, i + 1) for q, docs in run_of(RUN).items()
                 for i, (d, _) in enumerate(sorted(docs.items(), key=lambda x: (-x[1], x[0])))]
    pairs = [("judged@5", "Judged@5"), ("judged@10", "Judged@10")]
    # and a negative label counts as judged there (sqlndcg reads it as unjudged: SEMANTICS.md, gains): as 0 here
    zeroed = [(q, d, max(r, 0)) for q, d, r in JUDGMENTS]
    same = sqlndcg_per_query(["judged@5", "judged@10"], "ir_measures", ascending, zeroed, rank=True, ties="rank",
                             short_lists="truncate")
    agree, bad = compare(same, want, pairs)
    assert not bad and agree == 2 * len(JUDGED) == 74
    _, differ = compare(sqlndcg_per_query(["judged@5", "judged@10"], "ir_measures"), want, pairs)
    assert len(differ) == 51


# --- ranx (0.3.21): equal up to the order of tied documents, which ranx leaves to its sort -------------------------

RANX = {"ndcg@5": "ndcg@5", "ndcg@10": "ndcg@10", "ndcg": "ndcg", "p@5": "precision@5", "p@10": "precision@10",
        "r@10": "recall@10", "ap": "map", "ap@10": "map@10", "rr": "mrr", "hit@10": "hit_rate@10"}
RANX_RUN, RANX_JUDGMENTS = make_data(seed=8, fractional=True)


def ranx_per_query():
    import ranx
    qrels = ranx.Qrels(labels_of(RANX_JUDGMENTS))
    run = ranx.Run(run_of(RANX_RUN))
    ranx.evaluate(qrels, run, list(RANX.values()), make_comparable=True)
    want = {}
    for measure, per_query in run.scores.items():
        for q, v in per_query.items():
            want.setdefault(q, {})[measure] = float(v)
    # ranx's own order of each list (after its sort), as ranks
    order = [(q, d, i + 1) for q, docs in run.to_dict().items() for i, d in enumerate(docs)]
    return want, order


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_ranx_preset_equals_ranx_on_its_own_order_of_ties():
    want, ranx_order = ranx_per_query()
    assert set(want) == {q for q, _, _ in RANX_JUDGMENTS}  # make_comparable: every judged query, 0 if not run
    # ranx reads labels as integers (1.5 -> 1): labels="integer_part" in the preset
    assert any(r == 1.5 for _, _, r in RANX_JUDGMENTS)
    given_order = sqlndcg_per_query(list(RANX), "ranx", ranx_order, RANX_JUDGMENTS, rank=True, ties="rank")
    agree, bad = compare(given_order, want, RANX.items())
    assert not bad, bad[:10]
    assert agree == len(want) * len(RANX)


def test_ranx_preset_equals_ranx_on_tie_free_queries_and_differs_only_by_tie_order():
    want, _ = ranx_per_query()
    got = sqlndcg_per_query(list(RANX), "ranx", RANX_RUN, RANX_JUDGMENTS)
    run = run_of(RANX_RUN)
    tie_free = {q for q in want if q not in run or len(set(run[q].values())) == len(run[q])}
    agree, bad = compare(got, {q: want[q] for q in tie_free}, RANX.items())
    assert not bad and agree == len(tie_free) * len(RANX) == 170
    agree_tied, differ = compare(got, {q: want[q] for q in set(want) - tie_free}, RANX.items())
    assert (agree_tied, len(differ), len({q for q, *_ in differ})) == (154, 46, 8)  # docs/presets.md
    assert {q for q, *_ in differ} <= set(want) - tie_free


# --- scikit-learn and pytrec_eval on the same data (their own files test them more) ---------------------------------

def test_sklearn_preset_equals_ndcg_score_on_this_data():
    from sklearn.metrics import ndcg_score
    labels, run = labels_of(JUDGMENTS), run_of(RUN)
    got = sqlndcg_per_query(["ndcg@5", "ndcg"], "sklearn")
    checked = 0
    for q, docs in run.items():
        if q not in labels or len(docs) < 2:  # sklearn needs two documents; unjudged queries are not scored
            continue
        y_true = [[max(labels[q].get(d, 0), 0) for d in docs]]
        y_score = [list(docs.values())]
        assert got[q]["ndcg@5"] == pytest.approx(float(ndcg_score(y_true, y_score, k=5)), abs=TOL)
        assert got[q]["ndcg"] == pytest.approx(float(ndcg_score(y_true, y_score)), abs=TOL)
        checked += 2
    assert checked == 62


def test_trec_eval_9_preset_equals_pytrec_eval_on_this_data():
    import pytrec_eval
    qrels = {q: {d: int(r) for d, r in docs.items()} for q, docs in labels_of(JUDGMENTS).items()}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10", "P.5", "map", "recip_rank"}).evaluate(run_of(RUN))
    got = sqlndcg_per_query(["ndcg@5", "ndcg@10", "p@5", "ap", "rr"], "trec_eval-9")
    agree, bad = compare(got, want, [("ndcg@5", "ndcg_cut_5"), ("ndcg@10", "ndcg_cut_10"), ("p@5", "P_5"),
                                     ("ap", "map"), ("rr", "recip_rank")])
    assert not bad and agree == 5 * len(JUDGED & RUN_QUERIES)


# --- torchmetrics 1.9.0: torch is not installed here (its PyPI wheel pulls CUDA, several GB) -------------------------

def torchmetrics_ndcg(preds, target, top_k):
    """RetrievalNormalizedDCG of torchmetrics 1.9.0 for one query, written from its source
    (functional/retrieval/ndcg.py, retrieval/base.py) in float64 where torch uses float32: sklearn's tie-averaged DCG
    over the retrieved documents, the ideal from their targets, and a query whose targets sum to 0 scoring 0
    (empty_target_action="neg", the default)."""
    import numpy as np

    preds, target = np.asarray(preds, float), np.asarray(target, float)
    if target.sum() == 0:
        return 0.0
    n = len(preds)
    top_k = n if top_k is None else top_k
    discount = 1.0 / np.log2(np.arange(n) + 2.0)
    discount[top_k:] = 0.0
    cumsum = discount.cumsum()
    uniq, inv, counts = np.unique(-preds, return_inverse=True, return_counts=True)
    ranked = np.zeros(len(uniq))
    np.add.at(ranked, inv, target)
    ranked = ranked / counts
    groups = counts.cumsum() - 1
    sums = np.diff(np.concatenate([[0.0], cumsum[groups]]))
    gain = (ranked * sums).sum()
    ideal = (discount * target[np.argsort(-target, kind="stable")]).sum()
    return 0.0 if ideal == 0 else gain / ideal


def test_torchmetrics_preset_equals_its_reference_implementation():
    labels, run = labels_of(JUDGMENTS), run_of(RUN)
    got = sqlndcg_per_query(["ndcg@3", "ndcg@10", "ndcg"], "torchmetrics")
    # torchmetrics sees only what is retrieved, and is given only judged queries (a run query without judgments
    # would score 0 there under empty_target_action="neg"; sqlndcg never scores it)
    scored = {q for q in run if q in labels}
    assert set(got) == scored
    agree = 0
    for q in scored:
        preds = list(run[q].values())
        target = [max(int(labels[q].get(d, 0)), 0) for d in run[q]]
        for column, k in (("ndcg@3", 3), ("ndcg@10", 10), ("ndcg", None)):
            assert got[q][column] == pytest.approx(torchmetrics_ndcg(preds, target, k), abs=TOL), (q, column)
            agree += 1
    assert agree == 3 * len(scored) == 105


# --- gdeval.pl (version 1.2a, as shipped inside ir_measures 0.4.3), run with perl ----------------------------------

def gdeval(k, run_rows=RUN, judgment_rows=JUDGMENTS, tmp_path=None):
    assert shutil.which("perl"), "perl is not installed (.ci/run installs it): gdeval.pl is the reference here"
    script = resources.files("ir_measures") / "bin" / "gdeval.pl"
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in judgment_rows))
    run.write_text("".join(f"{q} Q0 {d} {i} {s!r} r\n" for i, (q, d, s) in enumerate(run_rows)))
    out = subprocess.run(["perl", str(script), str(qrels), str(run), str(k)], check=True, capture_output=True,
                         text=True).stdout
    rows = [line.split(",") for line in out.splitlines()[1:] if line]
    return {topic: {"ndcg": float(ndcg), "err": float(err)} for _, topic, ndcg, err in rows}


@pytest.mark.parametrize("k", [5, 10, 20])
def test_gdeval_preset_equals_gdeval(k, tmp_path):
    want = gdeval(k, tmp_path=tmp_path)
    err = f"err(max_grade=4)@{k}"  # gdeval's ERR scales grades by its MAX_JUDGMENT, 4
    got = sqlndcg_per_query([f"ndcg@{k}", err], "gdeval")
    # gdeval reports the run's topics with something relevant: sqlndcg's non-NULL rows under empty="skip",
    # queries="both"
    assert set(want) == {q for q, r in got.items() if r[f"ndcg@{k}"] is not None}
    agree, bad = compare(got, want, [(f"ndcg@{k}", "ndcg"), (err, "err")], tol=5e-6)  # gdeval prints 5 decimals
    assert not bad, bad[:10]
    assert agree == 2 * len(want) == 60


# --- Spark MLlib RankingMetrics (pyspark 4.3) ------------------------------------------------------------------------

@pytest.mark.engine
def test_spark_preset_equals_ranking_metrics(spark):
    """Per query, through one-row RDDs: RankingMetrics only returns means. Each judged query is one row: the
    predictions in sqlndcg's order, the documents with a positive label as ground truth sorted by label (Spark takes
    the ideal in the order given), and their labels as relevance values. pyspark 4.3 passes the relevance values
    on but its NDCG comes out binary (every ground-truth document gain 1): it equals the preset on the labels made
    binary; the preset's exponential gain is the Scala API's graded formula (2^rel - 1), which these rows do not
    reach."""
    from pyspark.mllib.evaluation import RankingMetrics

    labels, run = labels_of(JUDGMENTS), run_of(RUN)
    # each value is its own Spark job; pyspark cannot infer the type of an empty list, so queries with no
    # predictions or no relevant document (0 in Spark as in the preset) are left to the other presets' tests
    queries = [q for q in sorted(JUDGED) if run.get(q) and any(r > 0 for r in labels[q].values())][:6]
    got = sqlndcg_per_query(["p@5", "r@10", "ap", "ap@10"], "spark")
    binary = sqlndcg_per_query(["ndcg@5", "ndcg@10"], "spark", judgment_rows=[(q, d, min(r, 1))
                                                                              for q, d, r in JUDGMENTS])
    graded = sqlndcg_per_query(["ndcg@5"], "spark")
    agree = graded_differ = 0
    for q in queries:
        truth = sorted(((d, r) for d, r in labels[q].items() if r > 0), key=lambda x: -x[1])
        row = (ordered(run.get(q, {})), [d for d, _ in truth], [float(r) for _, r in truth])
        metrics = RankingMetrics(spark.sparkContext.parallelize([row], 1))
        want = {"p@5": metrics.precisionAt(5), "r@10": metrics.recallAt(10), "ap": metrics.meanAveragePrecision}
        for column, value in want.items():
            assert got[q][column] == pytest.approx(value, abs=TOL), (q, column)
            agree += 1
        for k in (5, 10):
            assert binary[q][f"ndcg@{k}"] == pytest.approx(metrics.ndcgAt(k), abs=TOL), (q, k)
            agree += 1
        graded_differ += abs(graded[q]["ndcg@5"] - binary[q]["ndcg@5"]) > 1e-6
        # Spark's meanAveragePrecisionAt(k) divides by min(k, R) where sqlndcg's ap@k (trec_eval map_cut) divides
        # by R: no setting, the difference asserted exactly
        r = len(row[1])
        assert metrics.meanAveragePrecisionAt(10) == pytest.approx(
            got[q]["ap@10"] * r / min(10, r) if r else 0.0, abs=TOL)
    assert agree == 5 * len(queries) == 30
    assert graded_differ >= 3  # grades above 1 do change the preset's NDCG
