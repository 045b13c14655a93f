"""propensities(): examination propensities of the position-based model from an impression log, every number
checked against numpy written from the definitions (tests/clicksim.py), and the simulator's known theta recovered
within the intervals: the randomized interval covers theta in about 95% of 100 simulated logs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg import DataError, InputError, SettingError

from clicksim import THETA, pbm_em, simulate

SMALL = simulate(5, impressions=300, queries=5, depth=4).log


def by_position(result, group=None, column="propensity"):
    return {r["position"]: r[column] for r in result.table if group is None or r[group[0]] == group[1]}


def randomized_reference(log: pd.DataFrame) -> dict:
    """CTR(p) / CTR(1) over the randomized rows and the delta-method variance of the ratio of the two means, from
    the impressions-by-positions matrix of clicks (covariances by numpy, over the impressions showing both)."""
    shown = log[log["randomized"] == 1].pivot(index="impression_id", columns="position", values="click")
    first = shown[1].to_numpy(float)
    out = {}
    for p in shown.columns:
        both = shown[[1, p]].dropna().to_numpy(float)
        m, m1 = both[:, 1].mean(), first.mean()
        var, var1 = both[:, 1].var(ddof=1), first.var(ddof=1)
        cov = np.cov(both[:, 1], both[:, 0], ddof=1)[0, 1]
        v = var / (len(both) * m1 ** 2) + m ** 2 * var1 / (len(first) * m1 ** 4) - 2 * m * cov / (len(first) * m1 ** 3)
        half = 1.959963984540054 * np.sqrt(v if v > 1e-15 else 0.0)  # position 1: 0 but for rounding
        out[p] = (m / m1, max(m / m1 - half, 0.0), m / m1 + half, len(both), int(both[:, 1].sum()))
    return out


def test_randomized_is_the_ctr_ratio_with_its_delta_method_interval():
    got = sqlndcg.propensities(SMALL, method="randomized")
    want = randomized_reference(SMALL)
    for r in got.table:
        assert (r["propensity"], r["lower"], r["upper"], r["impressions"], r["clicks"]) == pytest.approx(
            want[r["position"]], rel=1e-12, abs=1e-12)
    assert got.settings["method"] == "randomized" and "delta method" in got.settings["interval"]
    a = got.account.to_dicts()[0]
    assert (a["rows_read"], a["impressions_read"], a["not_randomized"]) == (
        len(SMALL), SMALL["impression_id"].nunique(), int((SMALL["randomized"] == 0).sum()))
    assert f"left out: {a['not_randomized']:,} rows not randomized" in str(got)


def test_the_randomized_interval_covers_the_true_theta_in_about_95_percent_of_simulated_logs():
    logs = [simulate(seed, impressions=400, queries=10, depth=5, randomized=1.0).log.assign(seed=seed)
            for seed in range(100)]
    got = sqlndcg.propensities(pd.concat(logs), method="randomized", group_by="seed")
    covered = {p: [] for p in range(2, 6)}
    for r in got.table:
        if r["position"] > 1:
            covered[r["position"]].append(r["lower"] <= THETA[r["position"] - 1] <= r["upper"])
    shares = {p: np.mean(c) for p, c in covered.items()}
    overall = np.mean([x for c in covered.values() for x in c])
    print(f"randomized interval coverage over 100 logs: {overall:.3f}, by position {shares}")
    assert all(len(c) == 100 for c in covered.values())
    assert 0.91 <= overall <= 0.985 and all(s >= 0.87 for s in shares.values())


@pytest.mark.parametrize("integer_ids", [False, True])
def test_em_gives_the_numpy_reference_em_to_1e_9(integer_ids):
    log = simulate(7, impressions=300, queries=6, depth=4, integer_ids=integer_ids).log
    got = sqlndcg.propensities(log, method="em", iterations=40, tolerance=0, bootstrap=0)
    theta, _ = pbm_em(log, 40)
    assert [r["propensity"] for r in got.table] == pytest.approx(list(theta), abs=1e-9)
    assert got.settings["iterations_run"] == 40 and got.settings["converged"] is False
    assert all(r["lower"] is None for r in got.table)
    shown = log.groupby("position")["click"].agg(["size", "sum"])
    assert [(r["impressions"], r["clicks"]) for r in got.table] == [tuple(x) for x in shown.to_numpy()]


def test_em_is_fitted_per_group_and_stops_at_its_tolerance():
    a, b = (simulate(s, impressions=200, queries=4, depth=3).log for s in (1, 2))
    both = pd.concat([a.assign(day="mon"), b.assign(day="tue", impression_id=b["impression_id"] + "b")])
    got = sqlndcg.propensities(both, method="em", group_by="day", iterations=25, tolerance=0, bootstrap=0)
    for day, log in (("mon", a), ("tue", b)):
        assert list(by_position(got, ("day", day)).values()) == pytest.approx(list(pbm_em(log, 25)[0]), abs=1e-9)
    loose = sqlndcg.propensities(a, method="em", iterations=500, tolerance=1e-3, bootstrap=0)
    run = loose.settings["iterations_run"]
    assert loose.settings["converged"] and loose.settings["last_movement"] <= 1e-3 and 1 < run < 500
    assert list(by_position(loose).values()) == pytest.approx(list(pbm_em(a, run)[0]), abs=1e-9)


@pytest.mark.slow  # about 10 s: five logs, 60 bootstrap replicates each
def test_em_recovers_the_true_theta_within_its_bootstrap_interval():
    logs = [simulate(seed, impressions=1500, queries=10, depth=4, randomized=0.5).log.assign(seed=seed)
            for seed in range(5)]
    got = sqlndcg.propensities(pd.concat(logs), method="em", group_by="seed", bootstrap=60, iterations=150)
    inside = [r["lower"] <= THETA[r["position"] - 1] <= r["upper"] for r in got.table if r["position"] > 1]
    print(f"em: the true theta inside the bootstrap interval in {sum(inside)} of {len(inside)}")
    assert sum(inside) >= len(inside) - 2
    assert all(r["lower"] <= r["propensity"] <= r["upper"] for r in got.table)


def test_the_bootstrap_is_seeded():
    once = sqlndcg.propensities(SMALL, method="em", bootstrap=20, iterations=10, seed=3)
    again = sqlndcg.propensities(SMALL, method="em", bootstrap=20, iterations=10, seed=3)
    other = sqlndcg.propensities(SMALL, method="em", bootstrap=20, iterations=10, seed=4)
    rows = [pytest.approx(r, rel=1e-12) for r in once.table.rows]  # sums may add in another order
    assert list(again.table.rows) == rows and list(other.table.rows) != rows
    assert [r[1] for r in other.table.rows] == pytest.approx([r[1] for r in once.table.rows], rel=1e-12)


def test_logged_is_the_mean_logged_propensity_per_position_with_its_range():
    log = simulate(3, impressions=50, queries=3, depth=3, propensity=True).log
    log.loc[log.index[:3], "propensity"] = [0.9, 0.5, 0.2]  # one impression logged differently
    got = sqlndcg.propensities(log, method="logged")
    want = log.groupby("position")["propensity"].agg(["mean", "min", "max", "size"])
    assert [(r["propensity"], r["lower"], r["upper"], r["impressions"]) for r in got.table] == [
        pytest.approx(tuple(x)) for x in want.to_numpy()]


def test_max_position_leaves_deeper_rows_out_and_says_so():
    got = sqlndcg.propensities(SMALL, method="randomized", max_position=2)
    assert sorted(by_position(got)) == [1, 2]
    assert got.account.to_dicts()[0]["deeper_than_max_position"] == int((SMALL["position"] > 2).sum())


def test_the_example_log_and_its_plot(tmp_path):
    pytest.importorskip("matplotlib")
    got = sqlndcg.propensities(sqlndcg.example("clicks"), method="randomized")
    true = pd.read_csv(sqlndcg.example("clicks")).groupby("position")["propensity"].first()
    assert all(r["lower"] <= true[r["position"]] <= r["upper"] for r in got.table)
    got.plot(tmp_path / "theta.png")
    assert (tmp_path / "theta.png").read_bytes()[:4] == b"\x89PNG"
    two = pd.concat([pd.read_csv(sqlndcg.example("clicks")).assign(device=d) for d in ("mobile", "desktop")])
    fig = sqlndcg.propensities(two, group_by="device").plot(title="by device")
    lines = fig.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["desktop", "mobile"]
    assert [list(line.get_ydata()) for line in lines][1] == [r["propensity"] for r in got.table]
    assert "WITH _rows AS" in got.sql


def test_settings_and_inputs_are_refused_clearly():
    with pytest.raises(SettingError, match="method='rand' is not allowed;.*'randomized', 'em', 'logged'"):
        sqlndcg.propensities(SMALL, method="rand")
    with pytest.raises(SettingError, match="iterations must be a whole number from 1 to 10000, got 0"):
        sqlndcg.propensities(SMALL, method="em", iterations=0)
    with pytest.raises(InputError, match="has no propensity column 'propensity'"):
        sqlndcg.propensities(SMALL, method="logged")
    with pytest.raises(DataError, match=r"column 'randomized' is neither 0 nor 1"):
        sqlndcg.propensities(SMALL.assign(randomized=2))


def test_a_position_without_a_click_at_the_top_or_a_single_impression_has_no_interval():
    log = pd.DataFrame({"impression_id": ["a", "a", "b", "b", "b"], "query_id": "q", "doc_id": ["x", "y", "x", "y", "z"],
                        "position": [1, 2, 2, 1, 3], "click": [0, 1, 0, 0, 1], "randomized": [1, 1, 1, 1, 0]})
    got = sqlndcg.propensities(log).table.to_dicts()
    # CTR(1) = 0: no ratio; position 3 was not randomized: no row
    assert [(r["position"], r["propensity"], r["lower"], r["upper"]) for r in got] == [(1, None, None, None),
                                                                                       (2, None, None, None)]
    one = sqlndcg.propensities(log.assign(click=[1, 1, 0, 0, 0]).iloc[:2])
    assert [(r["propensity"], r["lower"], r["upper"]) for r in one.table] == [(1.0, None, None), (1.0, None, None)]


def test_randomized_rows_below_an_unshuffled_top_are_left_out_and_counted():
    log = SMALL.copy()
    first = log["impression_id"] == log.loc[(log["randomized"] == 1).idxmax(), "impression_id"]
    log.loc[first & (log["position"] == 1), "randomized"] = 0
    got = sqlndcg.propensities(log)
    a = got.account.to_dicts()[0]
    assert a["randomized_below_an_unshuffled_top"] == 3
    assert {r["position"]: r["impressions"] for r in got.table} == {p: n - 1 for p, n in (
        (r["position"], r["impressions"]) for r in sqlndcg.propensities(SMALL).table)}
