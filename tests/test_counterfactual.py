"""counterfactual(): metrics of a new ranking estimated from old clicks (IPS, clipped, self-normalised), every number
checked against the impression-by-impression reference of tests/counterfactual_reference.py (written from the
papers), the bootstrap against the same Poisson draws made with hashlib, and the estimator against a simulation
with known truth: the IPS interval covers the new ranking's true DCG@5 in about 95% of simulated logs while the
naive click metric is biased."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg import DataError, InputError, MetricError, SettingError

import counterfactual_reference as ref
from clicksim import THETA, new_ranking, simulate

METRICS = ["dcg@5", "p@3", "clicks@2", "clicks", "dcg", "rbp", "rbp(p=0.5)"]


def log_and_run(seed: int, integer_ids: bool = False, queries: int = 6):
    sim = simulate(seed, impressions=300, queries=queries, depth=4, integer_ids=integer_ids)
    run = new_ranking(sim, seed + 100, noise=0.2, shown_only=False)
    run["score"] = run["score"].round(1)  # ties, broken by doc id
    first = run["query_id"].iloc[0]
    run = run[run["query_id"] != first]  # a logged query the run lacks: it scores 0
    extra = pd.DataFrame({"query_id": [999 if integer_ids else "q999"], "doc_id": [1 if integer_ids else "x"],
                          "score": [1.0]})  # a run query no impression shows
    return sim.log, pd.concat([run, extra], ignore_index=True)


def theta_table(theta=THETA[:4]):
    return pd.DataFrame({"position": range(1, len(theta) + 1), "propensity": theta})


def check_against_reference(res, log, run, theta, metrics, *, clip=None, estimator="ips", groups=()):
    want_pq = ref.per_query(log, run, theta, metrics, clip=clip, groups=groups)
    rows = res.per_query.to_dicts()
    assert len(rows) == len(want_pq) * len(metrics)
    for r in rows:
        key = tuple(r[g] for g in groups) + (r["query_id"],)
        w = want_pq[key]
        ips, naive, unknown, share = w[r["metric"]]
        value = ips / w["#rel"] if estimator == "snips" else ips
        assert r["value"] == pytest.approx(value, rel=1e-12, abs=1e-12), (key, r["metric"])
        assert (r["naive"], r["unknown"], r["impressions"], r["clicks"]) == pytest.approx(
            (naive, unknown, w["#n"], w["#clicks"]), rel=1e-12, abs=1e-12)
        assert (r["unknown_weight"] is None) == (share is None)
        if share is not None:
            assert r["unknown_weight"] == pytest.approx(share, rel=1e-12, abs=1e-12)
        assert r["ess"] == pytest.approx(w["#u"] ** 2 / w["#u2"], rel=1e-12)
        assert r["clipped_weight_share"] == pytest.approx(w["#uc"] / w["#u"], abs=1e-12)
    for g in ({()} if not groups else {k[:-1] for k in want_pq}):
        want = ref.summary({k: v for k, v in want_pq.items() if k[:-1] == g}, metrics, estimator)
        got = [r for r in res.summary.to_dicts() if tuple(r[c] for c in groups) == g]
        assert [r["metric"] for r in got] == metrics
        for r in got:
            assert tuple(r[c] for c in ("value", "naive", "queries", "impressions", "clicks", "unknown",
                                        "unknown_weight", "ess", "clipped_weight_share")) == pytest.approx(
                want[r["metric"]], rel=1e-12, abs=1e-12), r["metric"]


@pytest.mark.parametrize("integer_ids", [False, True])
@pytest.mark.parametrize("estimator", ["ips", "snips"])
def test_every_metric_equals_the_reference(integer_ids, estimator):
    log, run = log_and_run(3, integer_ids)
    theta = dict(enumerate(THETA[:4], 1))
    res = sqlndcg.counterfactual(log, run, propensities=theta_table(), metrics=METRICS, estimator=estimator,
                                 bootstrap=0)
    check_against_reference(res, log, run, theta, METRICS, estimator=estimator)
    lacking = [r for r in res.per_query.to_dicts() if r["query_id"] not in set(run["query_id"])]
    assert lacking and all(r["value"] == 0 and r["unknown_weight"] is None for r in lacking)
    assert res.account.to_dicts() == [{"rows_read": len(log), "impressions_read": 300, "rows_deeper_than_max_position": 0,
                                       "logged_queries": 6, "queries_the_run_lacks": 1,
                                       "run_queries_without_impressions": 1}]


def test_clipped_floors_theta_and_reports_the_share_of_weight_it_touched():
    log, run = log_and_run(4)
    theta = dict(enumerate(THETA[:4], 1))
    res = sqlndcg.counterfactual(log, run, propensities=theta_table(), metrics=["dcg@5", "rbp"], estimator="clipped",
                                 clip=0.4, bootstrap=0)
    check_against_reference(res, log, run, theta, ["dcg@5", "rbp"], clip=0.4)
    share = res.summary.to_dicts()[0]["clipped_weight_share"]
    assert 0 < share < 1  # theta(4) = 0.33 < 0.4: position 4's clicks are clipped
    plain = sqlndcg.counterfactual(log, run, propensities=theta_table(), metrics=["dcg@5"], bootstrap=0)
    assert plain.summary.to_dicts()[0]["clipped_weight_share"] == 0
    assert res.summary.to_dicts()[0]["value"] < plain.summary.to_dicts()[0]["value"]  # clipping shrinks weights


def test_groups_with_their_own_propensities_and_max_position():
    a, run = log_and_run(5)
    b, _ = log_and_run(6)
    log = pd.concat([a.assign(day="mon"), b.assign(day="tue", impression_id=b["impression_id"] + "b")])
    table = pd.DataFrame({"day": ["mon"] * 3 + ["tue"] * 3, "position": [1, 2, 3] * 2,
                          "propensity": [1.0, 0.6, 0.5, 1.0, 0.7, 0.4]})
    theta = {(day, p): t for day, p, t in table.itertuples(index=False)}
    res = sqlndcg.counterfactual(log, run, propensities=table, metrics=["dcg@3", "clicks@3"], group_by="day",
                                 max_position=3, bootstrap=0)
    check_against_reference(res, log[log["position"] <= 3], run, theta, ["dcg@3", "clicks@3"], groups=("day",))
    account = res.account.to_dicts()
    assert [r["rows_deeper_than_max_position"] for r in account] == [300, 300]


def test_a_propensities_result_and_logged_propensities_give_the_same_as_the_table():
    sim = simulate(7, impressions=200, queries=5, depth=4, propensity=True)
    run = new_ranking(sim, 8)
    logged = sqlndcg.counterfactual(sim.log, run, propensities="logged", bootstrap=0).summary.to_dicts()
    table = sqlndcg.counterfactual(sim.log, run, propensities=theta_table(sim.log.groupby("position")["propensity"]
                                                                          .first().to_numpy()),
                                   bootstrap=0).summary.to_dicts()
    est = sqlndcg.propensities(sim.log, method="logged")
    result = sqlndcg.counterfactual(sim.log, run, propensities=est, bootstrap=0).summary.to_dicts()
    for got in (logged, result):  # sums in another order: the last bit may differ
        assert [{k: v for k, v in r.items() if isinstance(v, float)} for r in got] == [
            pytest.approx({k: v for k, v in r.items() if isinstance(v, float)}, rel=1e-12) for r in table]
        assert [{k: v for k, v in r.items() if not isinstance(v, float)} for r in got] == [
            {k: v for k, v in r.items() if not isinstance(v, float)} for r in table]


def bootstrap_reference(log, run, theta, metric, resample, count, seed, baseline=None, level=0.95):
    """The replicates' summaries with the hashlib draws, and the percentile interval (and the difference's)."""
    values, diffs = [], []
    base = None
    for b in range(count + 1):
        if resample == "impressions":
            w = {(i,): ref.poisson_weight(seed, b, [i]) for i in log["impression_id"].unique()}
            pq = ref.per_query(log, run, theta, [metric], impression_weights=w)
            pq0 = pq if baseline is None else ref.per_query(log, baseline, theta, [metric], impression_weights=w)
            n = sum(r["#n"] for r in pq.values())
            v = sum(r["#n"] * r[metric][0] for r in pq.values()) / n
            base = None if baseline is None else sum(r["#n"] * r[metric][0] for r in pq0.values()) / n
        else:
            pq = ref.per_query(log, run, theta, [metric])
            pq0 = None if baseline is None else ref.per_query(log, baseline, theta, [metric])
            qw = {k: ref.poisson_weight(seed, b, [k[-1]]) for k in pq}
            n = sum(qw[k] * r["#n"] for k, r in pq.items())
            v = sum(qw[k] * r["#n"] * r[metric][0] for k, r in pq.items()) / n
            base = None if pq0 is None else sum(qw[k] * r["#n"] * r[metric][0] for k, r in pq0.items()) / n
        values.append(v)
        diffs.append(None if base is None else v - base)
    low, high = (1 - level) / 2, 1 - (1 - level) / 2
    out = {"value": values[0], "ci_low": ref.percentile(values[1:], low), "ci_high": ref.percentile(values[1:], high)}
    if baseline is not None:
        d = diffs[1:]
        smaller = min(sum(x <= 0 for x in d), sum(x >= 0 for x in d))
        out.update(difference=diffs[0], difference_low=ref.percentile(d, low), difference_high=ref.percentile(d, high),
                   p_value=min(1.0, 2 * (1 + smaller) / (count + 1)))
    return out


@pytest.mark.parametrize("resample", ["queries", "impressions"])
def test_the_bootstrap_is_the_documented_poisson_resample(resample):
    sim = simulate(9, impressions=120, queries=6, depth=4)
    run, other = new_ranking(sim, 10), new_ranking(sim, 11, noise=0.5)
    theta = dict(enumerate(THETA[:4], 1))
    res = sqlndcg.counterfactual(sim.log, run, baseline=other, propensities=theta_table(), metrics=["dcg@4"],
                                 resample=resample, bootstrap=40, seed=3, level=0.9)
    want = bootstrap_reference(sim.log, run, theta, "dcg@4", resample, 40, 3, baseline=other, level=0.9)
    got = res.summary.to_dicts()[0]
    assert {k: got[k] for k in want} == pytest.approx(want, rel=1e-12)
    assert got["baseline"] == pytest.approx(want["value"] - want["difference"], rel=1e-12)


def test_a_ranking_compared_with_itself_differs_by_nothing():
    sim = simulate(12, impressions=150, queries=5, depth=4)
    run = new_ranking(sim, 13)
    got = sqlndcg.counterfactual(sim.log, run, baseline=run, propensities=theta_table(), bootstrap=50)
    row = got.summary.to_dicts()[0]
    assert (row["difference"], row["difference_low"], row["difference_high"], row["p_value"]) == (0, 0, 0, 1)
    assert all(r["difference"] == 0 for r in got.per_query.to_dicts())


@pytest.mark.slow
def test_the_ips_interval_covers_the_true_dcg_in_about_95_percent_of_logs_and_naive_clicks_are_biased():
    covered, naive_below, seeds = 0, 0, 60
    for seed in range(seeds):
        sim = simulate(seed, impressions=1500, queries=30, depth=5, randomized=0.0)
        run = new_ranking(sim, seed + 1000, noise=0.3)
        order = ref.ranks(run)
        truth = np.mean([sum(ref.weight("dcg@5", order[q].get(d)) * g for (qq, d), g in sim.gamma.items() if qq == q)
                         for q in order])  # queries are drawn uniformly: the mean over them
        row = sqlndcg.counterfactual(sim.log, run, propensities=theta_table(THETA[:5]), metrics=["dcg@5"],
                                     resample="impressions", bootstrap=200, seed=seed).summary.to_dicts()[0]
        covered += row["ci_low"] <= truth <= row["ci_high"]
        naive_below += row["naive"] < row["ci_low"] <= truth
    assert 0.88 <= covered / seeds <= 1.0, covered
    assert naive_below / seeds >= 0.9, naive_below


def test_documents_never_shown_are_unknown_and_bias_the_estimate_down():
    sim = simulate(14, impressions=400, queries=5, depth=4)
    shown = sqlndcg.counterfactual(sim.log, new_ranking(sim, 15, noise=0.0), propensities=theta_table(),
                                   metrics=["dcg@4"], bootstrap=0).summary.to_dicts()[0]
    every = sqlndcg.counterfactual(sim.log, new_ranking(sim, 15, noise=0.0, shown_only=False),
                                   propensities=theta_table(), metrics=["dcg@4"], bootstrap=0).summary.to_dicts()[0]
    assert shown["unknown"] == 0 and shown["unknown_weight"] == 0
    assert every["unknown"] > 0 and 0 < every["unknown_weight"] < 1
    assert every["value"] < shown["value"]


LOG, RUN = log_and_run(1)


@pytest.mark.parametrize(("given", "error", "message"), [
    ({"metrics": ["ndcg@10"]}, MetricError, "cannot estimate 'ndcg@10' from clicks"),
    ({"metrics": ["p"]}, MetricError, "precision needs a cutoff"),
    ({"metrics": ["rbp@10"]}, MetricError, "rbp has no cutoff"),
    ({"metrics": ["rbp(p=1.5)"]}, MetricError, "between 0 and 1"),
    ({"metrics": ["dcg(p=0.5)@3"]}, MetricError, "only rbp takes a parameter"),
    ({"metrics": ["dcg@5", "dcg@5"]}, MetricError, "distinct metrics"),
    ({"estimator": "clipped"}, SettingError, "floors theta at clip="),
    ({"clip": 0.1}, SettingError, "clip= goes with estimator='clipped'"),
    ({"estimator": "clipped", "clip": 0}, SettingError, "must be in (0, 1]"),
    ({"estimator": "dr"}, SettingError, "choose one of 'ips', 'clipped', 'snips'"),
    ({"resample": "days"}, SettingError, "choose one of 'queries', 'impressions'"),
    ({"bootstrap": -1}, SettingError, "bootstrap must be a whole number from 0"),
    ({"level": 1.5}, SettingError, "level must be between 0 and 1"),
    ({"propensities": None}, SettingError, "give propensities="),
    ({"propensities": "logged"}, InputError, "no propensity column"),
])
def test_bad_settings_are_refused_with_what_to_do(given, error, message):
    kw = {"propensities": theta_table(), **given}
    with pytest.raises(error, match=None) as e:
        sqlndcg.counterfactual(LOG, RUN, **kw)
    assert message in str(e.value)


def test_bad_inputs_are_refused_naming_the_rows():
    with pytest.raises(DataError, match="score.*NULL"):
        sqlndcg.counterfactual(LOG, RUN.assign(score=RUN["score"].where(RUN.index != 2)), propensities=theta_table())
    with pytest.raises(DataError, match="each document once per query"):
        sqlndcg.counterfactual(LOG, pd.concat([RUN, RUN.head(1)]), propensities=theta_table())
    with pytest.raises(DataError, match=r"no propensity for positions the log shows: \(position=4\)"):
        sqlndcg.counterfactual(LOG, RUN, propensities=theta_table(THETA[:3]))
    with pytest.raises(DataError, match="outside"):
        sqlndcg.counterfactual(LOG, RUN, propensities=theta_table([1.0, 0.5, 0.0, 0.3]))
    with pytest.raises(InputError, match="score"):
        sqlndcg.counterfactual(LOG, RUN.rename(columns={"score": "s"}), propensities=theta_table())
    with pytest.raises(DataError, match="neither 0 nor 1"):
        sqlndcg.counterfactual(LOG.assign(click=LOG["click"] * 2), RUN, propensities=theta_table())


def test_the_example_and_the_statement_shown():
    theta = sqlndcg.propensities(sqlndcg.example("clicks"), method="randomized")
    res = sqlndcg.counterfactual(sqlndcg.example("clicks"), sqlndcg.example("clicks_run"), propensities=theta,
                                 metrics=["dcg@5", "clicks@5"], bootstrap=100)
    text = str(res)
    assert "dcg@5" in text and "estimator=ips" in text and "run_queries_without_impressions" in text
    assert "_impression_weights" not in res.sql and "_qweights AS" in res.sql
    assert res.per_query_sql.startswith("WITH") and res.to_dict()["summary"] == res.summary.to_dicts()


def test_the_worked_example_of_docs_online():
    """docs/online.md's example, computed there by hand: E(a) = 3, C(a) = 3; E(b) = 3, C(b) = 2; the new ranking
    b, c, a with c never shown."""
    shows = {1: "ab", 2: "ab", 3: "ba", 4: "ba"}
    clicked = {1: "a", 2: "ab", 3: "b", 4: "a"}
    log = pd.DataFrame([(i, "q", d, p, int(d in clicked[i])) for i, docs in shows.items() for p, d in enumerate(docs, 1)],
                       columns=["impression_id", "query_id", "doc_id", "position", "click"])
    theta = pd.DataFrame({"position": [1, 2], "propensity": [1.0, 0.5]})
    new = pd.DataFrame({"query_id": "q", "doc_id": ["b", "c", "a"], "score": [3.0, 2.0, 1.0]})
    old = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    res = sqlndcg.counterfactual(log, new, baseline=old, propensities=theta, metrics=["dcg@2", "dcg@3"], bootstrap=0)
    d2, d3 = res.per_query.to_dicts()
    third = 1 / np.log2(3)
    assert (d2["value"], d2["unknown_weight"]) == pytest.approx((2 / 3, third / (1 + third)))
    assert (d3["value"], d3["baseline"], d3["naive"], d3["ess"]) == pytest.approx(
        (2 / 3 + 0.5, 1 + third * 2 / 3, 0.875, 5.0))
    assert (d3["unknown"], d3["unknown_weight"]) == (1, pytest.approx(third / (1 + third + 0.5)))
    snips = sqlndcg.counterfactual(log, new, propensities=theta, metrics=["dcg@3"], estimator="snips", bootstrap=0)
    assert snips.per_query.to_dicts()[0]["value"] == pytest.approx(0.7)
