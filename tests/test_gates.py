"""Regression gates (sqlndcg.gate, sqlndcg compare --fail-if-worse): the one-sided paired t test of
H0: difference >= -margin, adjusted over the gated rows, against scipy (ttest_1samp, alternative='less') and
statsmodels' multipletests; per stratum with group_by; the command line's exit status (1 = a gate failed, 2 =
usage) and its one-line reason."""

from __future__ import annotations

import numpy as np
import pytest

import sqlndcg
from sqlndcg.cli.compare import main as cli_main
from sqlndcg.errors import SettingError
from sqlndcg.verbs.gate import parse_gate

from test_compare import synthetic

import scipy.stats as scipy_stats
from statsmodels.stats.multitest import multipletests

RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
METHOD = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


@pytest.fixture(scope="module")
def worse():
    """hybrid > dense > bm25: with hybrid as the baseline, both others are worse."""
    runs, qrels = synthetic(queries=30, days=["d1", "d2"], effect=0.08)
    return sqlndcg.compare(runs, qrels, ["ndcg@5", "p@5"], baseline="hybrid", group_by="ds", permutations=20,
                           resamples=20)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "none"])
def test_gate_equals_scipy_one_sided_t_and_statsmodels_correction(worse, correction):
    gates = ["ndcg@5:0.02", "p@5"]
    g = sqlndcg.gate(worse, *gates, correction=correction)
    assert len(g.rows) == 8  # 2 gates x 2 days x 2 systems
    want = []
    for r in g.rows:
        d = np.array(worse.diffs(r["system"], r["metric"], ds=r["ds"]))
        want.append(scipy_stats.ttest_1samp(d + r["margin"], 0.0, alternative="less").pvalue)
    assert [r["worse_p"] for r in g.rows] == pytest.approx(want, rel=1e-9, abs=1e-15)
    adjusted = want if correction == "none" else list(multipletests(want, method=METHOD[correction])[1])
    assert [r["worse_p_adjusted"] for r in g.rows] == pytest.approx(adjusted, rel=1e-9, abs=1e-15)
    assert [r["failed"] for r in g.rows] == [a < 0.025 for a in adjusted]
    assert any(r["failed"] for r in g.rows) and not g.passed
    assert all((r["reason"] is not None) == r["failed"] for r in g.rows)


def test_uncorrected_gate_is_the_95_interval_below_minus_margin(worse):
    for margin in (0.0, 0.01, 0.05, 0.1):
        g = sqlndcg.gate(worse, f"ndcg@5:{margin}", correction="none")
        assert [r["failed"] for r in g.rows] == [r["t_high"] < -margin for r in g.rows]


def test_a_large_margin_passes(worse):
    g = sqlndcg.gate(worse, "ndcg@5:0.5", "p@5:0.5")
    assert g.passed and bool(g) and g.failures == [] and len(g.rows) == 8


def test_parse_gate_and_mistakes(worse):
    assert parse_gate("NDCG@10:0.01") == ("ndcg@10", 0.01)
    assert parse_gate("mrr@10") == ("rr@10", 0.0)
    for bad in ("ndcg@10:-1", "ndcg@10:x", ""):
        with pytest.raises(SettingError):
            parse_gate(bad)
    with pytest.raises(SettingError, match="not among the compared metrics"):
        sqlndcg.gate(worse, "map")
    with pytest.raises(SettingError, match="alpha"):
        sqlndcg.gate(worse, "ndcg@5", alpha=1.5)


def test_cli_exit_status_and_reason(capsys):
    base = ["compare", "--run", RUN, "--system", "tag", "--qrels", QRELS, "-m", "ndcg@5,rr@10", "--format", "csv",
            "--permutations", "50", "--resamples", "50"]
    assert cli_main(base + ["--baseline", "rerank", "--fail-if-worse", "ndcg@5:0.01"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["sqlndcg: gate failed: ndcg@5: tag=bm25 is worse than baseline rerank by more than 0.01: "
                   "difference -0.2996, 95% CI (t) [-0.4622, -0.1370], one-sided p 0.0012, holm-adjusted 0.0012 "
                   "< alpha 0.025 (12 pairs)"]
    assert cli_main(base + ["--baseline", "bm25", "--fail-if-worse", "ndcg@5:0.01", "--fail-if-worse", "rr@10"]) == 0
    assert "gates passed: 2 row(s) checked" in capsys.readouterr().err
    assert cli_main(base + ["--baseline", "bm25", "--fail-if-worse", "map"]) == 2
    assert "--fail-if-worse 'map': ap is not among the compared metrics" in capsys.readouterr().err
    assert cli_main(base + ["--baseline", "bm25", "--fail-if-worse", "ndcg@5", "--gate-alpha", "2"]) == 2
    assert "--gate-alpha" in capsys.readouterr().err
