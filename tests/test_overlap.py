"""Overlap between systems' rankings (sql/macros/beyond/overlap.sql; sqlndcg/verbs/overlap.py): rbo@k, rbo_ext@k and
jaccard@k equal a plain-Python reference written from Webber, Moffat & Zobel (A similarity measure for indefinite
rankings, TOIS 2010: eq. 11 for RBO@k, eq. 32 for the extrapolation of lists of uneven lengths, eq. 30 of even ones)
on random runs with tied scores, short and uneven lists, text and integer ids, groups and queries one side lacks;
the hand-computed example of docs/beyond.md; equal lists give 1 and disjoint 0; the summary is evaluate's (mean,
sample std, Student's t interval); bad input is refused by name; the command line; the other engines give DuckDB's
numbers to 1e-9."""

from __future__ import annotations

import math
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t

import sqlndcg
from sqlndcg import DataError, InputError, MetricError, SettingError

from engine_parity import assert_same, engine_tests


# --- the reference, from the paper ------------------------------------------------------------------------------

class _Desc:
    """Reverses an order (doc ids descending within a score)."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return other.v < self.v

    def __eq__(self, other):
        return self.v == other.v


def ranked(rows: pd.DataFrame, *, rank=None, lower_is_better=False, id_order="native") -> list:
    """evaluate's order: score descending (ascending when lower is better; the rank column ascending when named),
    equal keys by doc id descending: integers numerically, text in byte order (every id as text under
    id_order='text')."""
    as_text = id_order == "text" or rows.doc_id.dtype.kind not in "iu"
    doc_key = (lambda d: str(d).encode()) if as_text else (lambda d: d)
    if rank is not None:
        keys = list(rows[rank])
    else:
        keys = [s if lower_is_better else -s for s in rows.score]
    order = sorted(zip(keys, rows.doc_id), key=lambda t: (t[0], _Desc(doc_key(t[1]))))
    return [d for _, d in order]


def cut(a: list, b: list, k, short_lists: str) -> tuple[list, list, float]:
    """The lists as a measure reads them, and the depth rbo sums to: cut at k (pad; the sum runs to k, or to the
    longer list without k), or both at n = min(k, |a|, |b|) (truncate; the sum runs to n)."""
    if short_lists == "truncate":
        n = min(len(a), len(b), k if k is not None else math.inf)
        return a[:n], b[:n], n
    if k is None:
        return a, b, max(len(a), len(b))
    return a[:k], b[:k], k


def overlap_at(a: list, b: list, d: int) -> int:
    """X_d = |A_d n B_d|, A_d the first d documents of A (all of A when it is shorter)."""
    return len(set(a[:d]) & set(b[:d]))


def rbo(a, b, p, k=None, short_lists="pad") -> float:
    """Eq. 11 of the paper: RBO@k = (1 - p) sum_{d=1..k} p^(d-1) X_d / d."""
    a, b, depth = cut(a, b, k, short_lists)
    return (1 - p) * sum(p ** (d - 1) * overlap_at(a, b, d) / d for d in range(1, depth + 1))


def rbo_ext(a, b, p, k=None, short_lists="pad") -> float:
    """Eq. 32 (S the shorter list, L the longer, s <= l their lengths):
    (1 - p)/p [sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d - s)/(s d) p^d] + [(X_l - X_s)/l + X_s/s] p^l;
    with s = l it is eq. 30. 0 when a list is empty."""
    a, b, _ = cut(a, b, k, short_lists)
    short, long_ = sorted([a, b], key=len)
    s, n = len(short), len(long_)  # the paper's s and l
    if s == 0:
        return 0.0
    x = {d: overlap_at(short, long_, d) for d in range(1, n + 1)}
    first = sum(x[d] / d * p ** d for d in range(1, n + 1))
    second = sum(x[s] * (d - s) / (s * d) * p ** d for d in range(s + 1, n + 1))
    return (1 - p) / p * (first + second) + ((x[n] - x[s]) / n + x[s] / s) * p ** n


def jaccard(a, b, k=None, short_lists="pad") -> float:
    a, b, _ = cut(a, b, k, short_lists)
    union = set(a) | set(b)
    return len(set(a) & set(b)) / len(union) if union else 0.0


def reference(run: pd.DataFrame, baseline, metrics, p, *, system="system", group_by=(), short_lists="pad", **order):
    """Per (group, system, query of either side): each metric, the lengths; sorted as overlap() sorts."""
    groups = list(group_by)
    lists: dict = {}
    for key, rows in run.groupby(groups + [system, "query_id"], sort=False):
        lists[key] = ranked(rows, **order)
    out = []
    for g, by_group in (run.groupby(groups, sort=False) if groups else [((), run)]):
        g = g if isinstance(g, tuple) else (g,)
        for sys_ in sorted(set(by_group[system]) - {baseline}):
            queries = set(by_group[by_group[system].isin([sys_, baseline])].query_id)
            for q in queries:
                a = lists.get((*g, sys_, q), [])
                b = lists.get((*g, baseline, q), [])
                row = {**dict(zip(groups, g)), system: sys_, "baseline": baseline, "query_id": q}
                for m in metrics:
                    kind, _, k = m.partition("@")
                    k = int(k) if k else None
                    if kind == "rbo":
                        row[m] = rbo(a, b, p, k, short_lists)
                    elif kind == "rbo_ext":
                        row[m] = rbo_ext(a, b, p, k, short_lists)
                    else:
                        row[m] = jaccard(a, b, k, short_lists)
                row["length"], row["baseline_length"] = len(a), len(b)
                out.append(row)
    return out


def random_run(seed: int, ids: str = "text", systems=("bm25", "dense", "hybrid"), days=("mon", "tue")) -> pd.DataFrame:
    """Three systems over two days: lists of 0 to 12 documents (0: the system lacks the query) drawn from a pool of
    14 per query, so lists overlap; scores from {1, 2, 3} so ties are many; a rank column (1..n, random order)."""
    rng = random.Random(seed)
    rows = []
    for day in days:
        for q in range(8):
            pool = list(range(14))
            for system in systems:
                n = rng.choice([0, 1, 2, 3, 5, 8, 10, 12, 12])
                if (system, q) in ((systems[0], 6), (systems[1], 7)):
                    n = 0  # a query each of the first two systems lacks
                docs = rng.sample(pool, n)
                ranks = rng.sample(range(1, n + 1), n)
                for d, r in zip(docs, ranks):
                    doc = d * 7 + q if ids == "int" else f"d{d:02d}" if d % 3 else f"D{d}"
                    rows.append((day, system, q if ids == "int" else f"q{q}", doc, float(rng.choice([1, 2, 3])), r))
    return pd.DataFrame(rows, columns=["day", "system", "query_id", "doc_id", "score", "rnk"])


def assert_rows(got, want, keys, label=""):
    got = {tuple(str(r[k]) for k in keys): r for r in got}
    want = {tuple(str(r[k]) for k in keys): r for r in want}
    assert set(got) == set(want), f"{label}: {sorted(set(got) ^ set(want))[:5]}"
    for key, w in want.items():
        for column, value in w.items():
            a = got[key][column]
            if isinstance(value, float):
                assert a is not None and math.isclose(a, value, rel_tol=0, abs_tol=1e-12), (label, key, column, a, value)
            else:
                assert str(a) == str(value), (label, key, column, a, value)


# --- the worked example of docs/beyond.md -------------------------------------------------------------------------

EXAMPLE = pd.DataFrame(
    [("bm25", "q1", d, s) for d, s in zip(["d1", "d2", "d3", "d4", "d6"], [5.0, 4.0, 3.0, 2.0, 1.0])]
    + [("rerank", "q1", d, s) for d, s in zip(["d2", "d1", "d6"], [0.9, 0.8, 0.7])]
    + [("bm25", "q2", "d9", 1.0)],
    columns=["system", "query_id", "doc_id", "score"])


def test_the_worked_example_by_hand():
    """bm25 ranks d1 d2 d3 d4 d6, rerank d2 d1 d6 (q1); only bm25 answers q2. p = 0.9, k = 5.
    X_1..X_5 = 0, 2, 2, 2, 3 (d1 and d2 meet at depth 2, d6 at depth 5, where bm25 lists it).
    rbo@5 = 0.1 (1*0/1 + 0.9*2/2 + 0.81*2/3 + 0.729*2/4 + 0.6561*3/5)
          = 0.1 (0 + 0.9 + 0.54 + 0.3645 + 0.39366) = 0.219816
    jaccard@5 = |{d1, d2, d6}| / |{d1, d2, d3, d4, d6}| = 3/5 = 0.6
    rbo_ext@5, s = 3 (rerank), l = 5, X_s = 2, X_l = 3:
      (1 - p)/p sum_{d<=5} X_d/d p^d = rbo@5                                       = 0.219816
      (1 - p)/p X_s/s sum_{d=4,5} (d - 3)/d p^d = (1/9)(2/3)(0.6561/4 + 2*0.59049/5) = 0.029646
      ((X_l - X_s)/l + X_s/s) p^5 = (1/5 + 2/3) 0.59049                            = 0.511758
      total                                                                        = 0.761220
    Truncated at n = min(5, 5, 3) = 3: rbo@3 = 0.1 (0 + 0.9 + 0.54) = 0.144, rbo_ext@3 = 0.144 + (2/3) 0.729 = 0.63,
    jaccard@3 = 2/4 = 0.5. q2 scores 0 on every measure; the means are over both queries."""
    res = sqlndcg.overlap(EXAMPLE, baseline="bm25", metrics=["rbo@5", "rbo_ext@5", "jaccard@5"], p=0.9)
    q1, q2 = res.per_query.to_dicts()
    assert (q1["query_id"], q1["system"], q1["baseline"], q1["length"], q1["baseline_length"]) == ("q1", "rerank", "bm25", 3, 5)
    assert round(q1["rbo@5"], 6) == 0.219816 and q1["jaccard@5"] == pytest.approx(0.6, abs=1e-12)
    assert round(q1["rbo_ext@5"], 6) == 0.761220
    assert (q2["query_id"], q2["rbo@5"], q2["rbo_ext@5"], q2["jaccard@5"], q2["length"]) == ("q2", 0, 0, 0, 0)
    s = res.summary.to_dicts()[0]
    assert s["queries"] == 2 and s["rbo@5_count"] == 2 and s["rbo@5"] == pytest.approx(0.219816 / 2, abs=1e-6)
    assert s["rbo_ext@5"] == pytest.approx(0.761220 / 2, abs=1e-6)
    a = res.account.to_dicts()[0]
    assert (a["queries"], a["in_both"], a["only_in_baseline"], a["only_in_system"]) == (2, 1, 1, 0)
    assert (a["short_lists"], a["baseline_short_lists"]) == (1, 1)  # rerank's q1 (3 < 5) and bm25's q2 (1 < 5)
    cut3 = sqlndcg.overlap(EXAMPLE, baseline="bm25", metrics=["rbo@5", "rbo_ext@5", "jaccard@5"], p=0.9,
                           short_lists="truncate").per_query.to_dicts()[0]
    assert round(cut3["rbo@5"], 6) == 0.144 and round(cut3["rbo_ext@5"], 6) == 0.63 and cut3["jaccard@5"] == 0.5
    assert "0.1099" in str(res) and "1 only in bm25" in str(res)


def test_the_docs_show_the_worked_example_and_their_examples_run(capsys):
    """docs/beyond.md states the numbers test_the_worked_example_by_hand checks, and its Python blocks run."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "beyond.md").read_text(encoding="utf-8")
    doc = doc.split("## Beyond accuracy: catalog measures")[0]  # overlap's part; the catalog's has its own test
    for number in ("0.219816", "0.6", "0.761220", "0.144", "0.63"):
        assert f"**{number}**" in doc, number
    assert "0.219816 + 0.029646 + 0.511758 = **0.761220**" in doc and "0.761220 / 2 = 0.380610" in doc
    for block in re.findall(r"```python\n(.*?)```", doc, flags=re.S):
        exec(compile(block, "docs/beyond.md", "exec"), {})
    out = capsys.readouterr().out
    assert "0.2198" in out and "0.7612" in out and "rerank" in out


def test_equal_lists_give_one_and_disjoint_lists_zero():
    same = pd.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "query_id": "q", "doc_id": list("uvwxyz") * 2,
                         "score": [6.0, 5, 4, 3, 2, 1] * 2})
    metrics = ["rbo@4", "rbo_ext@4", "jaccard@4", "rbo", "rbo_ext", "jaccard", "rbo@10", "rbo_ext@10"]
    row = sqlndcg.overlap(same, baseline="a", metrics=metrics, p=0.8).per_query.to_dicts()[0]
    assert row["rbo_ext@4"] == pytest.approx(1, abs=1e-12) and row["rbo_ext"] == pytest.approx(1, abs=1e-12)
    assert row["rbo_ext@10"] == pytest.approx(1, abs=1e-12) and row["jaccard@4"] == 1 and row["jaccard"] == 1
    assert row["rbo@4"] == pytest.approx(1 - 0.8 ** 4, abs=1e-12) and row["rbo"] == pytest.approx(1 - 0.8 ** 6, abs=1e-12)
    # rbo@10 on lists of 6: X_d = 6 from depth 6 on, so the terms of depths 7..10 count 6/d each
    assert row["rbo@10"] == pytest.approx(rbo(list("zyxwvu"), list("zyxwvu"), 0.8, 10), abs=1e-12)
    apart = same.assign(doc_id=[*"uvwxyz", *"UVWXYZ"])
    row = sqlndcg.overlap(apart, baseline="a", metrics=metrics, p=0.8).per_query.to_dicts()[0]
    assert all(row[m] == 0 for m in metrics)


# --- agreement with the reference -------------------------------------------------------------------------------

METRICS = ["rbo@1", "rbo@5", "rbo_ext@5", "jaccard@5", "rbo@10", "rbo_ext@10", "jaccard@10", "rbo", "rbo_ext", "jaccard"]


@pytest.mark.parametrize("ids", ["text", "int"])
@pytest.mark.parametrize("short_lists", ["pad", "truncate"])
@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_random_runs_equal_the_reference(ids, short_lists, p):
    run = random_run(int(p * 100) + len(short_lists), ids)
    res = sqlndcg.overlap(run, baseline="bm25", metrics=METRICS, p=p, group_by="day", short_lists=short_lists)
    want = reference(run, "bm25", METRICS, p, group_by=["day"], short_lists=short_lists)
    assert len(want) > 20 and any(r["length"] == 0 for r in want) and any(r["baseline_length"] == 0 for r in want)
    assert any(0 < r["length"] != r["baseline_length"] > 0 for r in want)  # uneven lists
    assert_rows(res.per_query.to_dicts(), want, ["day", "system", "query_id"], f"{ids} {short_lists} p={p}")
    assert res.per_query.columns == ("day", "system", "baseline", "query_id", *METRICS, "length", "baseline_length")


@pytest.mark.parametrize("order", [{"rank": "rnk"}, {"lower_is_better": True}, {"id_order": "text"},
                                   {"rank": "rnk", "ties": "rank"}])
def test_each_way_of_ranking_equals_the_reference(order):
    run = random_run(11, "int")
    res = sqlndcg.overlap(run, baseline="dense", metrics=METRICS, p=0.9, group_by=["day"], **order)
    ref_order = {k: v for k, v in order.items() if k != "ties"}
    assert_rows(res.per_query.to_dicts(), reference(run, "dense", METRICS, 0.9, group_by=["day"], **ref_order),
                ["day", "system", "query_id"], str(order))
    assert res.settings["ranked_by"] == order.get("rank", "score")


def test_without_groups_and_with_integer_systems():
    run = random_run(5, "text", systems=(1, 2, 3), days=("mon",)).drop(columns="day").rename(columns={"system": "tag"})
    res = sqlndcg.overlap(run, system="tag", baseline=2, metrics=["rbo@3", "rbo_ext", "jaccard@8"], p=0.7)
    assert_rows(res.per_query.to_dicts(), reference(run, 2, ["rbo@3", "rbo_ext", "jaccard@8"], 0.7, system="tag"),
                ["tag", "query_id"])
    assert {r["tag"] for r in res.summary.to_dicts()} == {1, 3}


def test_the_summary_is_the_mean_with_evaluates_t_interval():
    run = random_run(3)
    res = sqlndcg.overlap(run, baseline="bm25", metrics=["rbo@10", "jaccard@10"], group_by="day")
    frame = pd.DataFrame(res.per_query.to_dicts())
    summary = res.summary.to_dicts()
    assert len(summary) == 4 and res.summary.columns[:4] == ("day", "system", "baseline", "queries")
    for s in summary:
        for m in ("rbo@10", "jaccard@10"):
            x = frame[(frame.day == s["day"]) & (frame.system == s["system"])][m].to_numpy()
            half = student_t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
            assert s[m] == pytest.approx(x.mean(), abs=1e-12) and s[f"{m}_count"] == len(x) == s["queries"]
            assert s[f"{m}_std"] == pytest.approx(x.std(ddof=1), abs=1e-12)
            assert (s[f"{m}_ci_low"], s[f"{m}_ci_high"]) == pytest.approx((x.mean() - half, x.mean() + half), abs=1e-9)


def test_the_account_counts_queries_one_side_lacks_and_short_lists():
    run = random_run(8)
    res = sqlndcg.overlap(run, baseline="bm25", metrics=["rbo@5", "jaccard@10"], group_by="day")
    frame = pd.DataFrame(res.per_query.to_dicts())
    for a in res.account.to_dicts():
        rows = frame[(frame.day == a["day"]) & (frame.system == a["system"])]
        assert a["queries"] == len(rows)
        assert a["in_both"] == ((rows.length > 0) & (rows.baseline_length > 0)).sum()
        assert a["only_in_baseline"] == (rows.length == 0).sum() and a["only_in_system"] == (rows.baseline_length == 0).sum()
        assert a["short_lists"] == rows.length.between(1, 9).sum()  # shorter than the deepest cutoff, 10
        assert a["baseline_short_lists"] == rows.baseline_length.between(1, 9).sum()
    assert sum(a["only_in_baseline"] + a["only_in_system"] for a in res.account.to_dicts()) > 0
    whole = sqlndcg.overlap(run, baseline="bm25", metrics=["rbo"], group_by="day").account.to_dicts()[0]
    assert whole["short_lists"] is None and whole["baseline_short_lists"] is None


def test_a_system_absent_from_a_group_has_no_rows_there():
    run = random_run(4)
    run = run[~((run.system == "hybrid") & (run.day == "tue"))]
    res = sqlndcg.overlap(run, baseline="bm25", metrics=["rbo@5"], group_by="day")
    assert {(r["day"], r["system"]) for r in res.account.to_dicts()} == {("mon", "dense"), ("mon", "hybrid"),
                                                                          ("tue", "dense")}


# --- refused --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0, 1, -0.5, 1.5, float("nan"), float("inf"), True, "0.9"])
def test_p_outside_zero_one_is_refused(p):
    with pytest.raises(SettingError, match=r"^p must be a number between 0 and 1, both excluded \(the persistence of rank-biased overlap.*expected depth"):
        sqlndcg.overlap(EXAMPLE, baseline="bm25", p=p)


@pytest.mark.parametrize("metrics, message", [
    (["rbo@10", "ndcg@10"], r"unknown metric 'ndcg@10'; the overlap measures are rbo@k, rbo_ext@k and jaccard@k"),
    (["rbo_exp@5"], r"unknown metric 'rbo_exp@5'; did you mean 'rbo_ext'\?"),
    (["rbo@0"], r"metric 'rbo@0': k must be a whole number from 1 to 1000"),
    (["jaccard@1001"], r"metric 'jaccard@1001': k must be a whole number from 1 to 1000"),
    (["rbo@x"], r"unknown metric 'rbo@x'"),
    (["rbo@10", "RBO@10"], r"metric 'rbo@10' is asked for twice"),
    ([], r"metrics= lists the measures"),
])
def test_bad_metric_names_are_refused(metrics, message):
    with pytest.raises(MetricError, match=message):
        sqlndcg.overlap(EXAMPLE, baseline="bm25", metrics=metrics)


def test_bad_inputs_and_settings_are_refused_by_name():
    with pytest.raises(InputError, match=r"has no system column 'system'.*Name the right one with system=\.$"):
        sqlndcg.overlap(EXAMPLE.rename(columns={"system": "tag"}), baseline="bm25")
    with pytest.raises(SettingError, match=r"baseline='bm2' is not among the systems in the column 'system' of .*: "
                                           r"'bm25', 'rerank'; name one of them with baseline="):
        sqlndcg.overlap(EXAMPLE, baseline="bm2")
    with pytest.raises(SettingError, match=r"holds only the baseline 'bm25': there is no other system"):
        sqlndcg.overlap(EXAMPLE[EXAMPLE.system == "bm25"], baseline="bm25")
    with pytest.raises(SettingError, match=r"holds integers, so baseline= must be one, got 'bm25'"):
        sqlndcg.overlap(EXAMPLE.assign(system=[1] * 5 + [2] * 3 + [1]), baseline="bm25")
    with pytest.raises(DataError, match=r"column 'score' is NULL"):
        sqlndcg.overlap(EXAMPLE.assign(score=[None] + [1.0] * 8), baseline="bm25")
    with pytest.raises(DataError, match=r"column 'score' is NaN or infinite"):
        sqlndcg.overlap(EXAMPLE.assign(score=[float("inf")] + [1.0] * 8), baseline="bm25")
    with pytest.raises(DataError, match=r"column 'system' is NULL"):
        sqlndcg.overlap(EXAMPLE.assign(system=[None] + list(EXAMPLE.system[1:])), baseline="bm25")
    twice = pd.concat([EXAMPLE, EXAMPLE.iloc[[6]]])
    with pytest.raises(DataError, match=r"1 documents of a list occur more than once \(system, query_id, doc_id\), "
                                        r"e\.g\. .*'rerank'.*'q1'.*'d1'.*a system's list holds each document once"):
        sqlndcg.overlap(twice, baseline="bm25")
    with pytest.raises(SettingError, match=r"ties='average' averages gains .* use ties='doc_id'"):
        sqlndcg.overlap(EXAMPLE, baseline="bm25", ties="average")
    with pytest.raises(SettingError, match=r"ties='rank' ranks each list by the run's rank column: name it with rank="):
        sqlndcg.overlap(EXAMPLE, baseline="bm25", ties="rank")
    shared = EXAMPLE.assign(rnk=[1, 2, 3, 4, 5, 1, 1, 2, 1])
    with pytest.raises(DataError, match=r"1 ranks occur more than once .*ties='rank' needs distinct ranks"):
        sqlndcg.overlap(shared, baseline="bm25", rank="rnk", ties="rank")
    assert sqlndcg.overlap(shared, baseline="bm25", rank="rnk").per_query  # ties='doc_id' orders equal ranks
    with pytest.raises(DataError, match=r"column 'rnk' is below 1"):
        sqlndcg.overlap(shared.assign(rnk=0), baseline="bm25", rank="rnk")
    with pytest.raises(SettingError, match=r"group_by=\['system'\] names the system, query or document column"):
        sqlndcg.overlap(EXAMPLE, baseline="bm25", group_by="system")
    with pytest.raises(SettingError, match=r"short_lists='cut' is not allowed"):
        sqlndcg.overlap(EXAMPLE, baseline="bm25", short_lists="cut")
    with pytest.raises(SettingError, match=r"lower_is_better=True ranks the score .* rank='rnk'"):
        sqlndcg.overlap(shared, baseline="bm25", rank="rnk", lower_is_better=True)
    with pytest.raises(InputError, match=r"has no score column 'score'.*Name the right one with score="):
        sqlndcg.overlap(EXAMPLE.rename(columns={"score": "s"}), baseline="bm25")
    with pytest.raises(SettingError, match=r"output would have two columns named 'length'"):
        sqlndcg.overlap(EXAMPLE.assign(length=1), baseline="bm25", group_by="length")


# --- the command line ---------------------------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, text=True, timeout=300)


def test_the_command_line_prints_the_summary_and_the_per_query_rows(tmp_path):
    path = tmp_path / "run.csv"
    EXAMPLE.to_csv(path, index=False)
    done = _cli("overlap", "--run", str(path), "--system-column", "system", "--baseline", "bm25",
                "-m", "rbo@5,rbo_ext@5", "-m", "jaccard@5", "--p", "0.9")
    assert done.returncode == 0, done.stderr
    assert "rbo_ext@5" in done.stdout and "0.3806" in done.stdout and "1 only in bm25" in done.stdout
    done = _cli("overlap", "--run", str(path), "--baseline", "bm25", "-m", "rbo@5", "--per-query", "--format", "csv")
    lines = done.stdout.splitlines()
    assert lines[0] == "system,baseline,query_id,rbo@5,length,baseline_length" and lines[1].startswith("rerank,bm25,q1,0.2198")
    done = _cli("overlap", "--run", str(path), "--baseline", "bm25", "--p", "1")
    assert done.returncode == 2 and done.stderr.startswith("sqlndcg: error: --p must be a number between 0 and 1")
    done = _cli("overlap", "--run", str(path), "--baseline", "nope")
    assert done.returncode == 2 and "name one of them with --baseline" in done.stderr


# --- every engine gives DuckDB's numbers ----------------------------------------------------------------------------

def engine_calls(run, **kw):
    metrics = ["rbo@5", "rbo_ext@5", "jaccard@5", "rbo", "rbo_ext", "jaccard", "rbo@12"]
    return {
        "pad": sqlndcg.overlap(run, baseline="bm25", metrics=metrics, p=0.9, group_by="day", **kw),
        "truncate": sqlndcg.overlap(run, baseline="dense", metrics=metrics, p=0.8, short_lists="truncate",
                                    group_by="day", **kw),
        "rank": sqlndcg.overlap(run, baseline="bm25", metrics=["rbo_ext@4", "jaccard@3"], rank="rnk", ties="rank",
                                group_by=["day"], **kw),
    }


def check_engine(con, load, label: str) -> None:
    for ids in ("text", "int"):
        frame = random_run(21, ids)
        want = engine_calls(frame)
        got = engine_calls(load(con, f"overlap_run_{ids}", frame), con=con)
        for name in want:
            for part in ("per_query", "summary", "account"):
                assert_same(getattr(got[name], part), getattr(want[name], part), f"{label} {ids} ids, {name} {part}",
                            sort_by=lambda r: tuple(str(v) for v in r[: len(r) // 2]))  # by the leading (key) columns
    frame = random_run(21)
    bad = pd.concat([frame, frame.iloc[[5]]], ignore_index=True)  # a document twice in one list
    with pytest.raises(DataError) as there:
        sqlndcg.overlap(load(con, "overlap_bad", bad), baseline="bm25", group_by="day", con=con)
    with pytest.raises(DataError) as here:
        sqlndcg.overlap(bad, baseline="bm25", group_by="day")
    assert str(there.value).split(":", 1)[1] == str(here.value).split(":", 1)[1]


globals().update(engine_tests(check_engine))
