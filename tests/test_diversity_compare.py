"""compare() with the diversity measures (sqlndcg/verbs/compare_diversity.py) and diversity(group_by=): the paired
statistics equal SciPy's paired t test and the package's own randomization test and bootstrap on the per-query
values that diversity() gives each system alone; grouped scoring equals scoring each group alone."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

import sqlndcg
from sqlndcg.errors import SettingError
from sqlndcg.stats import paired

from test_diversity import ALL_METRICS, make_data

METRICS = ["alpha_ndcg@10", "err_ia@5", "nnrbp", "strec@20"]


def systems(integer_ids=False):
    run, judged = make_data(1, integer_ids)
    other, _ = make_data(2, integer_ids)
    return run, other, judged


@pytest.mark.parametrize("integer_ids", [False, True], ids=["text ids", "integer ids"])
def test_group_by_scores_each_group_as_alone(integer_ids):
    run, other, judged = systems(integer_ids)
    both = pd.concat([run.assign(tag="a"), other.assign(tag="b")])
    got = sqlndcg.diversity(both, judged, metrics=ALL_METRICS, group_by="tag")
    for tag, alone in (("a", run), ("b", other)):
        want = sqlndcg.diversity(alone, judged, metrics=ALL_METRICS)
        rows = [{k: v for k, v in r.items() if k != "tag"} for r in got.table.to_dicts() if r["tag"] == tag]
        assert rows == want.table.to_dicts()
        mean = [{k: v for k, v in r.items() if k != "tag"} for r in got.summary.to_dicts() if r["tag"] == tag]
        assert mean == [pytest.approx(r, abs=1e-15) for r in want.summary.to_dicts()]  # AVG's order of sums
    assert got.settings["group_by"] == ["tag"]


@pytest.mark.parametrize("integer_ids", [False, True], ids=["text ids", "integer ids"])
def test_compare_equals_scipy_on_diversitys_per_query_values(integer_ids):
    run, other, judged = systems(integer_ids)
    both = pd.concat([run.assign(tag="bm25"), other.assign(tag="new")])
    c = sqlndcg.compare(both, judged, metrics=METRICS, system="tag", baseline="bm25", permutations=2000,
                        resamples=2000)
    base = {r["query_id"]: r for r in sqlndcg.diversity(run, judged, metrics=METRICS).table.to_dicts()}
    new = {r["query_id"]: r for r in sqlndcg.diversity(other, judged, metrics=METRICS).table.to_dicts()}
    rows = {r["metric"]: r for r in c}
    assert list(rows) == METRICS
    ps = []
    for m in METRICS:
        qs = sorted(q for q in set(base) & set(new) if base[q][m] is not None and new[q][m] is not None)
        a, b = [new[q][m] for q in qs], [base[q][m] for q in qs]
        d = [x - y for x, y in zip(a, b)]
        r = rows[m]
        assert r["pairs"] == len(qs) > 5
        assert r["mean"] == pytest.approx(sum(a) / len(a), abs=1e-12)
        assert r["baseline_mean"] == pytest.approx(sum(b) / len(b), abs=1e-12)
        assert r["difference"] == pytest.approx(sum(d) / len(d), abs=1e-12)
        t = stats.ttest_rel(a, b)
        assert r["t_p"] == pytest.approx(t.pvalue, rel=1e-9)
        half = stats.t.ppf(0.975, len(d) - 1) * stats.tstd(d) / math.sqrt(len(d))
        assert (r["t_low"], r["t_high"]) == pytest.approx((r["difference"] - half, r["difference"] + half), abs=1e-9)
        tie = [abs(x) <= 1e-12 * (abs(p) + abs(q)) for x, p, q in zip(d, a, b)]
        assert (r["wins"], r["ties"], r["losses"]) == (sum(x > 0 and not t for x, t in zip(d, tie)), sum(tie),
                                                        sum(x < 0 and not t for x, t in zip(d, tie)))
        assert r["randomization_p"] == pytest.approx(paired.randomization_tests([d], permutations=2000, seed=0)[0])
        ps.append(t.pvalue)
        assert c.diffs("new", m) == pytest.approx(d, abs=1e-12)
    # nnrbp is NULL for the judged query with nothing relevant: one pair fewer than the others
    assert rows["nnrbp"]["pairs"] == rows["alpha_ndcg@10"]["pairs"] - 1
    assert [rows[m]["t_p_adjusted"] for m in METRICS] == pytest.approx(paired.holm(ps), rel=1e-9)
    # a dict of runs gives the same numbers
    d2 = sqlndcg.compare({"bm25": run, "new": other}, judged, metrics=METRICS, system="tag", permutations=2000,
                         resamples=2000)
    assert d2.table.to_dicts() == c.table.to_dicts()
    assert "alpha_ndcg@10" in c.text() and c.account.column("judged_queries_missing_from_run") == [1, 1]


def test_compare_of_diversity_measures_refuses():
    run, other, judged = systems()
    both = pd.concat([run.assign(tag="bm25"), other.assign(tag="new")])
    with pytest.raises(SettingError, match="a list of their own"):
        sqlndcg.compare(both, judged, metrics=["alpha_ndcg@10", "ndcg@10"], system="tag", baseline="bm25")
    with pytest.raises(SettingError, match="query_weights"):
        sqlndcg.compare(both, judged, metrics=["nrbp"], system="tag", baseline="bm25",
                        query_weights=pd.DataFrame({"query_id": ["q1"], "weight": [1.0]}))
    with pytest.raises(SettingError, match="gain is not a setting of the diversity measures"):
        sqlndcg.compare(both, judged, metrics=["nrbp"], system="tag", baseline="bm25", gain="exponential")
    with pytest.raises(SettingError, match="baseline='x' is not a system"):
        sqlndcg.compare(both, judged, metrics=["nrbp"], system="tag", baseline="x")
