"""Query weights: the summary's mean weighted the way the business counts (traffic, revenue), with the weighted
interval summary.sql defines; unweighted stays the default, equal weights give the unweighted numbers."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

import sqlndcg

METRICS = ["ndcg@5", "p@3", "ap", "rr@10"]


def data(seed=3, systems=("a", "b")):
    rng = np.random.default_rng(seed)
    run, qrels, weights = [], [], []
    for q in range(40):
        for d in range(rng.integers(1, 12)):
            for s in systems:
                run.append((s, f"q{q}", f"d{d}", float(rng.integers(0, 5))))
        for d in rng.choice(15, 6, replace=False):
            qrels.append((f"q{q}", f"d{d}", float(rng.choice([0, 0, 1, 2, 3]))))
        weights.append((f"q{q}", float(rng.integers(0, 100))))
    return (pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]),
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]),
            pd.DataFrame(weights, columns=["query_id", "weight"]))


def weighted_reference(x: np.ndarray, w: np.ndarray):
    """The definitions stated in summary.sql, in numpy: weighted mean, reliability-weighted std, Kish n_eff."""
    from scipy import stats

    mean = np.average(x, weights=w)
    v1, v2 = w.sum(), (w ** 2).sum()
    std = math.sqrt((w * (x - mean) ** 2).sum() / (v1 - v2 / v1))
    n_eff = math.floor(v1 * v1 / v2 + 1e-6)
    half = stats.t.ppf(0.975, n_eff - 1) * std / math.sqrt(n_eff)
    return mean, std, mean - half, mean + half


def test_weighted_means_equal_numpys_weighted_average_and_the_stated_interval():
    run, qrels, weights = data()
    res = sqlndcg.evaluate(run, qrels, METRICS, group_by="system", query_weights=weights)
    per_query = res.per_query.to_pandas().merge(weights, on="query_id")
    for row in res.summary:
        rows = per_query[per_query.system == row["system"]]
        for m in METRICS:
            mean, std, low, high = weighted_reference(rows[m].to_numpy(), rows["weight"].to_numpy())
            assert row[m] == pytest.approx(mean, abs=1e-12)
            assert row[f"{m}_std"] == pytest.approx(std, abs=1e-12)
            assert row[f"{m}_ci_low"] == pytest.approx(low, abs=1e-9)
            assert row[f"{m}_ci_high"] == pytest.approx(high, abs=1e-9)
    assert res.settings["query_weights"] == {"input": "query weights (DataFrame)", "weight": "weight"}


@pytest.mark.parametrize("weight", [1.0, 2.0, 0.25, 0.7, 1e-170, 1e160, 5e-324, 1.7e308])
def test_equal_weights_give_the_unweighted_summary_exactly(weight):
    run, qrels, weights = data()
    plain = sqlndcg.evaluate(run, qrels, METRICS, group_by="system")
    weighted = sqlndcg.evaluate(run, qrels, METRICS, group_by="system", query_weights=weights.assign(weight=weight))
    assert weighted.summary.rows == plain.summary.rows


@pytest.mark.parametrize("scale", [1e-170, 1e160])
def test_weights_far_from_one_give_the_numbers_of_the_same_weights_near_one(scale):
    """Issue 28: weights near 1e-170 underflowed when squared (the interval vanished, the std changed) and 1e160
    raised a bare ValueError. The weights are rescaled: the same numbers as the weights themselves (to rounding)."""
    run, qrels, weights = data()
    weights = weights.assign(weight=weights.weight + 1.0)
    near = sqlndcg.evaluate(run, qrels, METRICS, group_by="system", query_weights=weights).summary
    far = sqlndcg.evaluate(run, qrels, METRICS, group_by="system",
                           query_weights=weights.assign(weight=weights.weight * scale)).summary
    per_query = sqlndcg.evaluate(run, qrels, METRICS, group_by="system").per_query.to_pandas().merge(weights,
                                                                                                    on="query_id")
    for a, b in zip(far.to_dicts(), near.to_dicts()):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] is not None and a[key] == (
                pytest.approx(b[key], rel=1e-12) if isinstance(b[key], float) else b[key]), key
        rows = per_query[per_query.system == a["system"]]
        for m in METRICS:
            mean, std, low, high = weighted_reference(rows[m].to_numpy(), rows["weight"].to_numpy())
            assert (a[m], a[f"{m}_std"], a[f"{m}_ci_low"], a[f"{m}_ci_high"]) == pytest.approx((mean, std, low, high),
                                                                                              abs=1e-9)
    far_pairs = sqlndcg.compare(run, qrels, ["ndcg@5"], baseline="a", permutations=200, resamples=200,
                                query_weights=weights.assign(weight=weights.weight * scale))
    near_pairs = sqlndcg.compare(run, qrels, ["ndcg@5"], baseline="a", permutations=200, resamples=200,
                                 query_weights=weights)
    for a, b in zip(far_pairs.table.to_dicts(), near_pairs.table.to_dicts()):
        for key in a:
            assert a[key] == (pytest.approx(b[key], rel=1e-12) if isinstance(b[key], float) else b[key]), key
    # the differences show the weights as given
    assert [r["weight"] for r in far_pairs.differences.to_dicts()] == pytest.approx(
        [r["weight"] * scale for r in near_pairs.differences.to_dicts()], rel=1e-15)


def test_equal_weights_of_any_size_agree_to_rounding():
    run, qrels, weights = data()
    plain = sqlndcg.evaluate(run, qrels, METRICS, group_by="system").summary
    weighted = sqlndcg.evaluate(run, qrels, METRICS, group_by="system",
                                query_weights=weights.assign(weight=0.7)).summary
    for a, b in zip(weighted.rows, plain.rows):
        assert a[:2] == b[:2]
        assert a[2:] == pytest.approx(b[2:], abs=1e-12)


def test_unweighted_summary_is_the_sample_mean_std_and_t_interval():
    from scipy import stats

    run, qrels, _ = data()
    res = sqlndcg.evaluate(run, qrels, METRICS, group_by="system")
    per_query = res.per_query.to_pandas()
    for row in res.summary:
        for m in METRICS:
            x = per_query[per_query.system == row["system"]][m].to_numpy()
            low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
            assert row[m] == pytest.approx(x.mean(), abs=1e-12)
            assert row[f"{m}_std"] == pytest.approx(x.std(ddof=1), abs=1e-12)
            assert (row[f"{m}_ci_low"], row[f"{m}_ci_high"]) == pytest.approx((low, high), abs=1e-9)


def test_weights_per_group_column():
    run, qrels, weights = data()
    per_system = pd.concat([weights.assign(system="a"), weights.assign(system="b", weight=1.0)])
    res = sqlndcg.evaluate(run, qrels, ["ndcg@5"], group_by="system", query_weights=per_system)
    per_query = res.per_query.to_pandas().merge(weights, on="query_id")
    a = per_query[per_query.system == "a"]
    b = per_query[per_query.system == "b"]
    got = {r["system"]: r["ndcg@5"] for r in res.summary}
    assert got["a"] == pytest.approx(np.average(a["ndcg@5"], weights=a["weight"]), abs=1e-12)
    assert got["b"] == pytest.approx(b["ndcg@5"].mean(), abs=1e-12)


def test_weights_run_in_other_engines_too():
    run, qrels, weights = data()
    con = sqlite3.connect(":memory:")
    run.to_sql("run", con, index=False)
    qrels.to_sql("qrels", con, index=False)
    weights.to_sql("weights", con, index=False)
    got = sqlndcg.evaluate("run", "qrels", METRICS, group_by="system", con=con, query_weights="weights").summary
    want = sqlndcg.evaluate(run, qrels, METRICS, group_by="system", query_weights=weights).summary
    for a, b in zip(got.rows, want.rows):
        assert a[:2] == b[:2]
        assert a[2:] == pytest.approx(b[2:], abs=1e-9)


@pytest.mark.parametrize("change, message", [
    (lambda w: w.iloc[1:], r"2 scored quer\(ies\) have no weight, e\.g\. \('a', 'q0'\), \('b', 'q0'\)"),
    (lambda w: w.assign(weight=w.weight.where(w.query_id != "q3", -2.0)), r"column 'weight' is negative .*query_id='q3'"),
    (lambda w: w.assign(weight=w.weight.where(w.query_id != "q3", float("nan"))), r"column 'weight' is missing"),
    (lambda w: w.assign(weight=w.weight.where(w.query_id != "q3", float("inf"))), r"column 'weight' is NaN or infinite"),
    (lambda w: pd.concat([w, w.head(1)]), r"1 queries occur more than once \(query_id\), e\.g\. \(query_id='q0'"),
    (lambda w: w.rename(columns={"weight": "w"}), r"has no weight column 'weight'.*its columns are \['query_id', 'w'\]"),
    (lambda w: w.assign(weight="heavy"), r"column 'weight' holds VARCHAR, but must hold numbers"),
])
def test_bad_weights_are_refused_by_name(change, message):
    run, qrels, weights = data()
    with pytest.raises(sqlndcg.SqlndcgError, match=message):
        sqlndcg.evaluate(run, qrels, ["ndcg@5"], group_by="system", query_weights=change(weights))


def test_a_bootstrap_beside_a_weighted_summary_is_refused_not_left_unweighted():
    run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
    with pytest.raises(sqlndcg.SettingError, match=r"bootstrap= with query_weights= is not available"):
        sqlndcg.evaluate(run, qrels, ["ndcg@5"], query_weights="weights.csv", bootstrap="percentile")
