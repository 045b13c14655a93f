"""The click tools on every engine the tests run: propensities (randomized, em with its bootstrap, logged, the account),
click_labels (em, ips from a table, with a group column) and counterfactual (ips and snips with a baseline and both
bootstraps, clipped per query, the account) give DuckDB's numbers to 1e-9 on SQLite, ClickHouse
(chdb), DataFusion, PostgreSQL, Spark, MariaDB and Snowflake (fakesnow), with text and integer ids; bad logs are refused with DuckDB's message."""

from __future__ import annotations

import pandas as pd
import pytest

import sqlndcg

from clicksim import simulate
from engine_parity import assert_same, engine_tests


def log_frame(ids: str) -> pd.DataFrame:
    a, b = (simulate(seed, impressions=120, queries=4, depth=4, integer_ids=ids == "int", propensity=True).log
            for seed in (1, 2))
    b = b.assign(impression_id=b["impression_id"] + (1000 if ids == "int" else "b"))
    return pd.concat([a.assign(day="mon"), b.assign(day="tue")], ignore_index=True)


def run_frame(ids: str, seed: int) -> pd.DataFrame:
    """A ranking of every logged (query, document) and one never-shown document per query, scores with ties."""
    pairs = log_frame(ids)[["query_id", "doc_id"]].drop_duplicates().reset_index(drop=True)
    extra = pairs.drop_duplicates("query_id").assign(doc_id=lambda f: f["doc_id"] + 50 if ids == "int" else "new")
    run = pd.concat([pairs, extra], ignore_index=True)
    return run.assign(score=[float((i * 7919 * seed) % 5) for i in range(len(run))])


THETA = pd.DataFrame({"day": ["mon"] * 4 + ["tue"] * 4, "position": [1, 2, 3, 4] * 2,
                      "propensity": [1.0, 0.7, 0.5, 0.4, 1.0, 0.6, 0.45, 0.3]})

CALLS = {
    "randomized": lambda log, theta, **kw: sqlndcg.propensities(log, method="randomized", group_by="day", **kw).table,
    "em": lambda log, theta, **kw: sqlndcg.propensities(log, method="em", group_by="day", iterations=6,
                                                       tolerance=0, bootstrap=5, **kw).table,
    "logged": lambda log, theta, **kw: sqlndcg.propensities(log, method="logged", **kw).table,
    "account": lambda log, theta, **kw: sqlndcg.propensities(log, group_by="day", max_position=3, **kw).account,
    "labels em": lambda log, theta, **kw: sqlndcg.click_labels(log, group_by="day", iterations=6, tolerance=0, **kw),
    "labels ips": lambda log, theta, **kw: sqlndcg.click_labels(log, propensities=theta, group_by="day", **kw),
    "counterfactual ips": lambda log, theta, run, base, **kw: sqlndcg.counterfactual(
        log, run, baseline=base, propensities=theta, group_by="day", metrics=["dcg@3", "rbp", "clicks"],
        bootstrap=20, **kw).summary,
    "counterfactual snips": lambda log, theta, run, base, **kw: sqlndcg.counterfactual(
        log, run, propensities=theta, group_by="day", estimator="snips", resample="impressions", bootstrap=5,
        metrics=["p@2"], **kw).summary,
    "counterfactual clipped": lambda log, theta, run, base, **kw: sqlndcg.counterfactual(
        log, run, propensities=theta, group_by="day", estimator="clipped", clip=0.45, max_position=3,
        metrics=["dcg@3"], **kw).per_query,
    "counterfactual account": lambda log, theta, run, base, **kw: sqlndcg.counterfactual(
        log, run, baseline=base, propensities=theta, group_by="day", bootstrap=0, **kw).account,
}


def check_engine(con, load, label: str) -> None:
    """`load(con, name, frame) -> input` puts a frame into the engine; every call gives DuckDB's table."""
    for ids in ("text", "int"):
        frame = log_frame(ids)
        log, theta = load(con, f"clicks_{ids}", frame), load(con, f"theta_{ids}", THETA)
        runs = [run_frame(ids, 1), run_frame(ids, 2)]
        there = [log, theta, *(load(con, f"run{i}_{ids}", r) for i, r in enumerate(runs))]
        for name, call in CALLS.items():
            given = 4 if name.startswith("counterfactual") else 2
            assert_same(call(*there[:given], con=con), call(frame, THETA, *runs[:given - 2]), f"{label} {ids} ids, {name}")
    bad = log_frame("text")
    bad.loc[3, "click"] = 2
    with pytest.raises(sqlndcg.DataError) as there:
        sqlndcg.propensities(load(con, "clicks_bad", bad), con=con)
    with pytest.raises(sqlndcg.DataError) as here:
        sqlndcg.propensities(bad)
    assert str(there.value).split(":", 1)[1] == str(here.value).split(":", 1)[1]


globals().update(engine_tests(check_engine))
