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
from sqlndcg.present.diversity import DiversityResult
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
    with pytest.raises(SettingError, match="query_weights"):
        sqlndcg.compare(both, judged, metrics=["alpha_ndcg@10", "ndcg@10"], system="tag", baseline="bm25",
                        query_weights=pd.DataFrame({"query_id": ["q1"], "weight": [1.0]}))
    with pytest.raises(SettingError, match="query_weights"):
        sqlndcg.compare(both, judged, metrics=["nrbp"], system="tag", baseline="bm25",
                        query_weights=pd.DataFrame({"query_id": ["q1"], "weight": [1.0]}))
    with pytest.raises(SettingError, match="gain is not a setting of the diversity measures"):
        sqlndcg.compare(both, judged, metrics=["nrbp"], system="tag", baseline="bm25", gain="exponential")
    with pytest.raises(SettingError, match="baseline='x' is not a system"):
        sqlndcg.compare(both, judged, metrics=["nrbp"], system="tag", baseline="x")


def test_mixed_list_accuracy_on_the_max_grade_over_intents_and_one_correction():
    run, other, judged = systems()
    both = pd.concat([run.assign(tag="bm25"), other.assign(tag="new")])
    metrics = ["ndcg@10", "alpha_ndcg@10", "p@5", "nnrbp"]
    keys = dict(system="tag", baseline="bm25", permutations=2000, resamples=2000)
    mixed = sqlndcg.compare(both, judged, metrics=metrics, **keys)
    ad_hoc = judged.groupby(["query_id", "doc_id"], as_index=False)["rel"].max()  # TREC 2009 Web: any intent
    accuracy = sqlndcg.compare(both, ad_hoc, metrics=["ndcg@10", "p@5"], **keys)
    div = sqlndcg.compare(both, judged, metrics=["alpha_ndcg@10", "nnrbp"], **keys)
    rows = {r["metric"]: r for r in mixed}
    assert [r["metric"] for r in mixed] == metrics
    alone = {r["metric"]: r for r in list(accuracy) + list(div)}
    for m in metrics:
        for k in ("pairs", "mean", "baseline_mean", "difference", "t_low", "t_high", "t_p", "randomization_p",
                  "bootstrap_low", "bootstrap_high", "wins", "ties", "losses"):
            assert rows[m][k] == alone[m][k], (m, k)
    ps = [alone[m]["t_p"] for m in metrics]
    assert [rows[m]["t_p_adjusted"] for m in metrics] == pytest.approx(paired.holm(ps), rel=1e-12)
    assert [rows[m]["randomization_p_adjusted"] for m in metrics] == pytest.approx(
        paired.holm([alone[m]["randomization_p"] for m in metrics]), rel=1e-12)
    # per query and summary side by side
    per_query = {(r["tag"], r["query_id"]): r for r in mixed.per_query.to_dicts()}
    for r in div.per_query.to_dicts():
        assert per_query[(r["tag"], r["query_id"])]["alpha_ndcg@10"] == r["alpha_ndcg@10"]
    for r in accuracy.per_query.to_dicts():
        assert per_query[(r["tag"], r["query_id"])]["ndcg@10"] == r["ndcg@10"]
    summary = {r["tag"]: r for r in mixed.summary.to_dicts()}
    for r in div.summary.to_dicts():
        assert summary[r["tag"]]["nnrbp_ci_low"] == r["nnrbp_ci_low"] and summary[r["tag"]]["nnrbp_count"] == 11


def test_report_shows_accuracy_and_diversity_side_by_side():
    run, other, judged = systems()
    both = pd.concat([run.assign(tag="bm25"), other.assign(tag="new")])
    page = sqlndcg.report(both, judged, ["ndcg@10", "alpha_ndcg@10", "err_ia@20"], system="tag", baseline="bm25",
                          max_k=3, permutations=500, resamples=500)
    assert page.count("data:image/png;base64,") == 2
    for text in ("alpha_ndcg@10", "err_ia@20", "ndcg@10", "Accuracy and diversity side by side",
                 "largest grade over the query's intents", "queries scored (in the run and in the judgments"):
        assert text in page, text
    only = sqlndcg.report(both, judged, ["alpha_ndcg@10"], system="tag", baseline="bm25", max_k=0,
                          permutations=500, resamples=500)
    assert "alpha_ndcg@10" in only and "12 queries scored" in only


def test_evaluate_of_a_diversity_list_reads_as_a_result():
    run, _, judged = systems()
    res = sqlndcg.evaluate(run, judged, ["alpha_ndcg@10", "nnrbp"])
    assert isinstance(res, DiversityResult)
    assert res.per_query is res.table and res.per_query.columns == ("query_id", "alpha_ndcg@10", "nnrbp")
    assert res.account.to_dicts() == [{"scored_queries": 12, "judged_queries": 13}]
    assert "12 queries scored of 13 judged" in res.account_text()
    text = res.summary_text()
    assert "alpha_ndcg@10" in text and " 11" in text  # nnrbp averages the 11 queries with a relevant intent
    assert set(res.to_dict()) >= {"per_query", "summary", "settings", "account", "sql"}


@pytest.mark.parametrize("engine", ["ClickHouse", "DataFusion"])
def test_mixed_compare_on_clickhouse_and_datafusion_equals_duckdb(engine):
    """The diversity statement grouped by system, the kept per-query table, the ad hoc judgments kept on the
    engine, compare's paired statements over them: DuckDB's numbers to 1e-9."""
    from engine_parity import load_clickhouse

    run, judged = make_data(3)
    both = pd.concat([run.assign(tag="a"), make_data(4)[0].assign(tag="b")], ignore_index=True)
    keys = dict(metrics=["alpha_ndcg@5", "nnrbp", "ndcg@5"], system="tag", baseline="a", permutations=200,
                resamples=200)
    want = sqlndcg.compare(both, judged, **keys)
    if engine == "ClickHouse":
        from chdb import dbapi

        con, load = dbapi.connect(), load_clickhouse
    else:
        import datafusion

        con, load = datafusion.SessionContext(), (lambda con, name, frame: frame)
    got = sqlndcg.compare(load(con, "mixed_runs", both), load(con, "mixed_qrels", judged), con=con, **keys)
    assert got.table.columns == want.table.columns and len(got.table) == len(want.table) == 3
    for g, w in zip(got.table.to_dicts(), want.table.to_dicts()):
        for k, b in w.items():
            a = g[k]
            assert (a is None and b is None) or str(a) == str(b) or (
                isinstance(b, float) and math.isclose(a, b, abs_tol=1e-9)), (engine, w["metric"], k, a, b)


def test_compare_command_line_takes_diversity_measures(tmp_path, capsys):
    from sqlndcg.cli import main

    run, other, judged = systems()
    for name, frame in (("bm25.csv", run), ("new.csv", other), ("qrels.csv", judged)):
        frame.to_csv(tmp_path / name, index=False)
    args = ["compare", "--run", f"bm25={tmp_path / 'bm25.csv'}", "--run", f"new={tmp_path / 'new.csv'}",
            "--judgments", str(tmp_path / "qrels.csv"), "-m", "ndcg@10", "-m", "alpha_ndcg@10", "--permutations",
            "200", "--resamples", "200", "--format", "csv"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "new,bm25,ndcg@10," in out and "new,bm25,alpha_ndcg@10," in out
    assert main(args[:-2] + ["--fail-if-worse", "ndcg@10"]) in (0, 1)
