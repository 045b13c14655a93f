"""click_labels(): debiased labels from an impression log, against numpy and pandas written from the definitions
(tests/clicksim.py): the PBM's gamma by EM, and clicks weighted by 1 / theta; the labels are judgments evaluate
takes, and they order documents as the simulator's true attractiveness does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg import DataError, SettingError

from clicksim import pbm_em, simulate

SIM = simulate(11, impressions=400, queries=6, depth=4, propensity=True)
LOG = SIM.log


def labels_of(table, rel="rel"):
    return {(r["query_id"], r["doc_id"]): (r[rel], r["impressions"], r["clicks"]) for r in table}


def support(log):
    return log.groupby(["query_id", "doc_id"])["click"].agg(["size", "sum"])


def test_em_labels_are_the_numpy_pbm_gamma_with_their_support():
    got = labels_of(sqlndcg.click_labels(LOG, iterations=40, tolerance=0))
    _, gamma = pbm_em(LOG, 40)
    counts = support(LOG)
    assert set(got) == set(gamma)
    for key, (rel, shown, clicks) in got.items():
        assert rel == pytest.approx(gamma[key], abs=1e-9)
        assert (shown, clicks) == tuple(counts.loc[key])


def test_ips_labels_weigh_each_click_by_one_over_theta_of_its_position():
    theta = pd.DataFrame({"position": [1, 2, 3, 4], "propensity": [1.0, 0.6, 0.45, 0.3]})
    got = labels_of(sqlndcg.click_labels(LOG, propensities=theta))
    weighted = LOG.assign(w=LOG["click"] / LOG["position"].map(dict(zip(theta["position"], theta["propensity"]))))
    want = weighted.groupby(["query_id", "doc_id"])["w"].sum() / weighted.groupby(["query_id", "doc_id"]).size()
    assert {k: v[0] for k, v in got.items()} == pytest.approx(want.to_dict(), abs=1e-12)
    # the logged column, row by row
    logged = labels_of(sqlndcg.click_labels(LOG, propensities="logged"))
    by_row = (LOG["click"] / LOG["propensity"]).groupby([LOG["query_id"], LOG["doc_id"]]).mean()
    assert {k: v[0] for k, v in logged.items()} == pytest.approx(by_row.to_dict(), abs=1e-12)


def test_a_propensities_result_is_taken_as_it_is_and_groups_join_on_their_columns():
    two = pd.concat([LOG.assign(day="mon"), LOG.assign(day="tue", click=1 - LOG["click"])])
    theta = sqlndcg.propensities(two, method="logged", group_by="day")
    got = sqlndcg.click_labels(two, propensities=theta, group_by="day", rel="gamma")
    rows = {(r["day"], r["query_id"], r["doc_id"]): r["gamma"] for r in got}
    for day, log in (("mon", LOG), ("tue", two[two["day"] == "tue"])):
        want = (log["click"] / log["propensity"]).groupby([log["query_id"], log["doc_id"]]).mean()
        assert {k[1:]: v for k, v in rows.items() if k[0] == day} == pytest.approx(want.to_dict(), abs=1e-12)
    assert got.columns == ("day", "query_id", "doc_id", "gamma", "impressions", "clicks")


def test_the_labels_are_judgments_evaluate_takes_and_order_documents_as_the_truth_does():
    sim = simulate(4, impressions=3000, queries=8, depth=5, randomized=0.5)
    labels = sqlndcg.click_labels(sim.log)
    truth = {k: v for k, v in sim.gamma.items() if k in labels_of(labels)}
    est = {k: v[0] for k, v in labels_of(labels).items()}
    keys = sorted(truth)
    assert np.corrcoef([truth[k] for k in keys], [est[k] for k in keys])[0, 1] > 0.9
    # the ideal run (true order) scores NDCG 1 on labels that order as the truth does; evaluate reads them as judgments
    run = pd.DataFrame([(q, d, est[(q, d)]) for q, d in keys], columns=["query_id", "doc_id", "score"])
    result = sqlndcg.evaluate(run, labels.to_arrow(), ["ndcg@5"], gain="linear")
    assert result.summary.to_dicts()[0]["ndcg@5"] == pytest.approx(1.0)


def test_max_position_and_the_checks_of_the_propensity_table():
    theta = pd.DataFrame({"position": [1, 2], "propensity": [1.0, 0.5]})
    with pytest.raises(DataError, match=r"propensities \(DataFrame\) has no propensity for positions the log shows: "
                                        r"\(position=3\) in 400 row\(s\), \(position=4\) in 400 row\(s\)"):
        sqlndcg.click_labels(LOG, propensities=theta)
    got = sqlndcg.click_labels(LOG, propensities=theta, max_position=2)
    assert sum(r["impressions"] for r in got) == 800
    with pytest.raises(DataError, match=r"column 'propensity' is outside \(0, 1\].*\(position=2, propensity=0.0\)"):
        sqlndcg.click_labels(LOG, propensities=theta.assign(propensity=[1.0, 0.0]), max_position=2)
    with pytest.raises(DataError, match=r"1 positions occur more than once \(position\)"):
        sqlndcg.click_labels(LOG, propensities=pd.concat([theta, theta.iloc[:1]]), max_position=2)
    with pytest.raises(SettingError, match="method='ips' weighs clicks by 1 / theta"):
        sqlndcg.click_labels(LOG, method="ips")
    with pytest.raises(SettingError, match="method='em' fits its own propensities"):
        sqlndcg.click_labels(LOG, method="em", propensities=theta)


def test_labels_carry_their_statement_and_account():
    """The statement shown has EM's iterations unrolled as dbt runs them (as many as ran), and the account counts
    the rows read and those deeper than max_position."""
    log = simulate(3, impressions=200, queries=4, depth=4).log
    labels = sqlndcg.click_labels(log, iterations=7, tolerance=0, max_position=3)
    assert labels.account.to_dicts() == [{"rows_read": 800, "impressions_read": 200, "deeper_than_max_position": 200}]
    assert "_em7 AS" in labels.sql and "_em8" not in labels.sql and len(labels) == len(labels.to_dicts()) > 0
    ips = sqlndcg.click_labels(log, propensities=pd.DataFrame({"position": [1, 2, 3, 4], "propensity": [1, .6, .5, .4]}))
    assert "_theta" in ips.sql and ips.account.to_dicts()[0]["rows_read"] == 800
