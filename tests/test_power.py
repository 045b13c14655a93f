"""Power of the paired t test (sqlndcg.power, sqlndcg power): the noncentral t CDF against scipy, the power
against statsmodels' TTestPower.power, and the solved number of queries and minimum detectable effect against
TTestPower.solve_power to 1e-6 relative across a grid of effect sizes, alphas and powers; the pilot's forms (a
list, two lists, a Comparison, compare --differences and evaluate --per-query files) give the same spread; the
worked example of docs/compare.md."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import sqlndcg
from sqlndcg.cli import main as cli_main
from sqlndcg.errors import SettingError
from sqlndcg.stats.power import detectable_effect, nct_cdf, power, queries_needed

import scipy.stats as scipy_stats
from statsmodels.stats.power import TTestPower

RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
EFFECTS = [0.05, 0.2, 0.5, 1.0, 1.5]
ALPHAS = [0.001, 0.01, 0.05, 0.1]
POWERS = [0.5, 0.8, 0.9, 0.95]


def test_noncentral_t_cdf_equals_scipy():
    worst = 0.0
    for df in (1, 2, 5.5, 10, 49, 300, 5000):
        for nc in (-8, -3, -0.5, 0, 0.3, 2, 5, 12, 30):
            for t in (-10, -2, -0.1, 0, 0.5, 1.96, 4, 15, 40):
                worst = max(worst, abs(nct_cdf(t, df, nc) - scipy_stats.nct.cdf(t, df, nc)))
    assert worst < 1e-11


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
def test_power_equals_statsmodels(alternative):
    compared = 0
    for d in (0.1, 0.4, 1.2):
        d = -d if alternative == "smaller" else d
        for n in (3, 12.5, 80, 300):
            for alpha in (0.01, 0.05):
                want = TTestPower().power(d, n, alpha, alternative=alternative)
                if math.isnan(want):  # SciPy's noncentral t gives NaN where the power is 1 to 15 digits
                    assert power(d, n, alpha, alternative) > 1 - 1e-12
                    continue
                assert power(d, n, alpha, alternative) == pytest.approx(want, rel=1e-9, abs=1e-12)
                compared += 1
    assert compared >= 20


def _solve(**kw):
    """statsmodels' solve_power, and whether its answer is a root of its own power function to 1e-6 (its root
    finder sometimes stops at a wrong bracket: then it is no reference)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = float(np.ravel(TTestPower().solve_power(**kw))[0])
    args = {**kw, ("nobs" if "nobs" not in kw else "effect_size"): x}
    trusted = abs(TTestPower().power(args["effect_size"], args["nobs"], kw["alpha"]) - kw["power"]) < 1e-6
    return x, trusted  # NaN power: not trusted


def _is_root(d, n, alpha, target):
    """statsmodels' power at the solution is the target (where SciPy's noncentral t gives a number at all)."""
    got = TTestPower().power(d, n, alpha)
    assert math.isnan(got) or got == pytest.approx(target, abs=1e-10)
    assert power(d, n, alpha) == pytest.approx(target, abs=1e-10)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_queries_needed_equals_statsmodels_solve_power(alpha):
    compared = 0
    for target in POWERS:
        for d in EFFECTS:
            n = queries_needed(d, alpha, target)
            _is_root(d, n, alpha, target)
            want, trusted = _solve(effect_size=d, alpha=alpha, power=target)
            if trusted:
                assert n == pytest.approx(want, rel=1e-6)
                compared += 1
    assert compared >= 18  # of 20: statsmodels misses a corner (alpha 0.001, power 0.95, d 1.5) by 3%


@pytest.mark.parametrize("alpha", ALPHAS)
def test_detectable_effect_equals_statsmodels(alpha):
    """solve_power(nobs=...) stops within ~3e-5 of the root (its tolerance on the effect size), so the 1e-6
    reference is statsmodels' power function solved tightly (brentq, xtol 1e-15); solve_power itself to 1e-4."""
    from scipy.optimize import brentq

    compared = 0
    for target in POWERS:
        for n in (5, 30, 200, 2000):
            d = detectable_effect(n, alpha, target)
            _is_root(d, n, alpha, target)
            f = lambda e, n=n, target=target: TTestPower().power(e, n, alpha) - target  # noqa: E731
            lo, hi = 0.99 * d, 1.01 * d
            try:
                want = brentq(f, lo, hi, xtol=1e-15, rtol=1e-15)
            except ValueError:  # SciPy's noncentral t gives NaN at some points near df 4, nc 8
                continue
            assert d == pytest.approx(want, rel=1e-6)
            compared += 1
            loose, trusted = _solve(nobs=n, alpha=alpha, power=target)
            if trusted:
                assert d == pytest.approx(loose, rel=1e-4)
    assert compared >= 10  # of 16: SciPy fails (NaN) at n = 5 for small alpha


def test_pilot_forms_agree(tmp_path):
    c = sqlndcg.compare(RUN, QRELS, ["ndcg@5", "rr@10"], system="tag", baseline="bm25", permutations=10,
                        resamples=10)
    diffs = c.diffs("rerank", "ndcg@5")
    sd = float(np.std(diffs, ddof=1))
    got = [sqlndcg.power(diffs, difference=0.05), sqlndcg.power(c, metric="ndcg@5", difference=0.05),
           sqlndcg.power(sd=sd, difference=0.05)]
    pq = sqlndcg.evaluate(RUN, QRELS, ["ndcg@5"], group_by="tag").per_query.to_pandas()
    pq.to_csv(tmp_path / "pq.csv", index=False)
    got.append(sqlndcg.power(str(tmp_path / "pq.csv"), metric="ndcg@5", system="tag", difference=0.05))
    wide = pq.pivot(index="query_id", columns="tag", values="ndcg@5")
    got.append(sqlndcg.power((list(wide["bm25"]), list(wide["rerank"])), difference=0.05))
    c.differences.to_pandas().to_csv(tmp_path / "diffs.csv", index=False)
    got.append(sqlndcg.power(str(tmp_path / "diffs.csv"), metric="ndcg@5", difference=0.05))
    for p in got:
        assert p.sd == pytest.approx(sd, rel=1e-12)
        assert p.queries == 208 and p.queries_exact == pytest.approx(got[0].queries_exact, rel=1e-12)
    with pytest.raises(SettingError, match="pass metric= one of ndcg@5, rr@10"):
        sqlndcg.power(c, difference=0.05)


def test_worked_example_of_the_docs(tmp_path, capsys):
    """docs/compare.md, "How many queries?": the example's pilot, sd 0.2559 over 12 queries."""
    assert cli_main(["compare", "--run", RUN, "--judgments", QRELS, "--system", "tag", "--baseline", "bm25",
                     "-m", "ndcg@5", "--differences", "--format", "csv"]) == 0
    (tmp_path / "diffs.csv").write_text(capsys.readouterr().out)
    assert cli_main(["power", "--pilot", str(tmp_path / "diffs.csv"), "-m", "ndcg@5", "--difference", "0.05"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("208 queries (207.49) to detect a difference of 0.05 (d_z = 0.1954)")
    assert cli_main(["power", "--pilot", str(tmp_path / "diffs.csv"), "-m", "ndcg@5", "--queries", "500"]) == 0
    assert capsys.readouterr().out.startswith("500 queries detect a difference of 0.03212 (d_z = 0.1255)")
    d = detectable_effect(500, 0.05, 0.8)
    assert d == pytest.approx(TTestPower().solve_power(nobs=500, alpha=0.05, power=0.8), rel=1e-6)
    assert cli_main(["power", "--sd", "0.2", "--difference", "0.05", "--queries", "10"]) == 2
    assert "exactly one of --difference" in capsys.readouterr().err
    assert cli_main(["power", "--pilot", str(tmp_path / "diffs.csv"), "--difference", "0.05", "--power", "1.2"]) == 2
    assert "--power must be" in capsys.readouterr().err
