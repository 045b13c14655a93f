"""evaluate(sample=f, seed=s): the queries whose MD5 of "<seed>:<query id>" falls below f, the same on every engine;
the summary's interval is the whole input's mean's, with the finite-population correction. The reference for the
chosen queries is Python's hashlib; for the interval, a simulation with known truth (the full evaluation's mean):
over many seeds it covers the mean about 95% of the time."""

from __future__ import annotations

import hashlib
import math
import random
import sqlite3

import pandas as pd
import pytest

import sqlndcg
from sqlndcg.errors import DataError, SettingError


def population(queries: int, seed: int = 5, text_ids: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Lists of 20 documents; each query's share of relevant documents varies (NDCG spread over [0, 1])."""
    rng = random.Random(seed)
    run, qrels = [], []
    for n in range(queries):
        q = f"q{n:05d}" if text_ids else n
        share = rng.random() ** 2
        for d in range(20):
            run.append((q, f"d{d}", rng.random()))
            if rng.random() < 0.5:
                qrels.append((q, f"d{d}", rng.choice([1, 2, 3]) if rng.random() < share else 0))
        qrels.append((q, "unretrieved", 1))  # every query judged, with something to find
    return (pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]))


def chosen_by_hashlib(ids, fraction: float, seed: int) -> set:
    below = min(math.floor(fraction * 2**32), 2**32 - 1)
    return {q for q in ids if int(hashlib.md5(f"{seed}:{q}".encode()).hexdigest()[:8], 16) < below}


@pytest.mark.parametrize("text_ids", [True, False])
def test_the_sample_is_the_queries_the_hash_chooses_on_every_engine(text_ids):
    run, qrels = population(300, text_ids=text_ids)
    want = chosen_by_hashlib(set(qrels.query_id), 0.2, 7)
    assert 30 < len(want) < 90
    got = sqlndcg.evaluate(run, qrels, ["ndcg@10", "p@5"], sample=0.2, seed=7)
    assert {r["query_id"] for r in got.per_query.to_dicts()} == want
    con = sqlite3.connect(":memory:")
    run.to_sql("run", con, index=False)
    qrels.to_sql("qrels", con, index=False)
    in_sqlite = sqlndcg.evaluate("run", "qrels", ["ndcg@10", "p@5"], sample=0.2, seed=7, con=con)
    assert {r["query_id"] for r in in_sqlite.per_query.to_dicts()} == want
    for a, b in zip(got.per_query.to_dicts(), in_sqlite.per_query.to_dicts()):
        assert a == pytest.approx(b, abs=1e-15)
    # the values of the sampled queries are those of the full evaluation
    full = {r["query_id"]: r for r in sqlndcg.evaluate(run, qrels, ["ndcg@10", "p@5"]).per_query.to_dicts()}
    assert got.per_query.to_dicts() == [full[r["query_id"]] for r in got.per_query.to_dicts()]


@pytest.mark.engine
def test_postgres_chooses_the_same_queries(postgres):
    run, qrels = population(200)
    want = chosen_by_hashlib(set(qrels.query_id), 0.3, 11)
    import psycopg

    with postgres.connect(postgres.dbname_icu) as con:
        with con.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS run_s; DROP TABLE IF EXISTS qrels_s")
            cur.execute("CREATE TABLE run_s (query_id TEXT, doc_id TEXT, score DOUBLE PRECISION)")
            cur.execute("CREATE TABLE qrels_s (query_id TEXT, doc_id TEXT, rel BIGINT)")
            cur.executemany("INSERT INTO run_s VALUES (%s, %s, %s)", list(run.itertuples(index=False, name=None)))
            cur.executemany("INSERT INTO qrels_s VALUES (%s, %s, %s)", list(qrels.itertuples(index=False, name=None)))
        con.commit()
        got = sqlndcg.evaluate("run_s", "qrels_s", ["ndcg@10"], sample=0.3, seed=11, con=con)
    assert {r["query_id"] for r in got.per_query.to_dicts()} == want
    assert psycopg  # the driver the fixture connects with


@pytest.mark.engine
def test_mariadb_chooses_the_same_queries(mariadb):
    run, qrels = population(200)
    want = chosen_by_hashlib(set(qrels.query_id), 0.3, 11)
    con = mariadb.connect()
    try:
        with con.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS run_s")
            cur.execute("DROP TABLE IF EXISTS qrels_s")
            cur.execute("CREATE TABLE run_s (query_id TEXT, doc_id TEXT, score DOUBLE)")
            cur.execute("CREATE TABLE qrels_s (query_id TEXT, doc_id TEXT, rel BIGINT)")
            cur.executemany("INSERT INTO run_s VALUES (%s, %s, %s)", list(run.itertuples(index=False, name=None)))
            cur.executemany("INSERT INTO qrels_s VALUES (%s, %s, %s)", list(qrels.itertuples(index=False, name=None)))
        con.commit()
        got = sqlndcg.evaluate("run_s", "qrels_s", ["ndcg@10"], sample=0.3, seed=11, con=con)
    finally:
        con.close()
    assert {r["query_id"] for r in got.per_query.to_dicts()} == want


@pytest.mark.engine
def test_snowflake_on_fakesnow_chooses_the_same_queries(fakesnow):
    run, qrels = population(200)
    want = chosen_by_hashlib(set(qrels.query_id), 0.3, 11)
    cur = fakesnow.cursor()
    cur.execute('CREATE OR REPLACE TABLE "run_s" ("query_id" VARCHAR, "doc_id" VARCHAR, "score" DOUBLE)')
    cur.execute('CREATE OR REPLACE TABLE "qrels_s" ("query_id" VARCHAR, "doc_id" VARCHAR, "rel" BIGINT)')
    for table, frame in (("run_s", run), ("qrels_s", qrels)):  # one statement each: fakesnow translates every one
        values = ", ".join(f"('{q}', '{d}', {v!r})" for q, d, v in frame.itertuples(index=False, name=None))
        cur.execute(f'INSERT INTO "{table}" VALUES {values}')
    got = sqlndcg.evaluate("run_s", "qrels_s", ["ndcg@10"], sample=0.3, seed=11, con=fakesnow)
    assert {r["query_id"] for r in got.per_query.to_dicts()} == want


def test_the_interval_covers_the_whole_inputs_mean():
    """120 seeds, 10% of 2,000 queries each: the corrected t interval covers the full evaluation's mean about 95%
    of the time (binomial: 0.89 to 0.995 holds with probability above 0.99); the uncorrected one is wider."""
    run, qrels = population(2000, seed=3)
    import duckdb

    con = duckdb.connect()
    con.register("run", run)
    con.register("qrels", qrels)
    truth = sqlndcg.evaluate("run", "qrels", ["ndcg@10"], con=con).summary.to_dicts()[0]["ndcg@10"]
    covered, sizes = 0, []
    for seed in range(120):
        row = sqlndcg.evaluate("run", "qrels", ["ndcg@10"], con=con, sample=0.1, seed=seed).summary.to_dicts()[0]
        covered += row["ndcg@10_ci_low"] <= truth <= row["ndcg@10_ci_high"]
        sizes.append(row["queries"])
    assert 0.89 <= covered / 120 <= 0.995, covered
    assert 150 < sum(sizes) / len(sizes) < 250


def test_the_result_says_it_is_a_sample():
    run, qrels = population(400)
    got = sqlndcg.evaluate(run, qrels, ["ndcg@10"], sample=0.25, seed=2)
    row = got.summary.to_dicts()[0]
    n = row["queries"]
    assert got.settings["sample"] == {"fraction": 0.25, "seed": 2, "queries": n,
                                      "interval": "t, with the finite-population correction sqrt(1 - fraction)"}
    # the account counts what went in: the sampled queries' rows
    account = got.account.to_dicts()[0]
    assert account["scored_queries"] == n and account["run_rows"] == 20 * n
    # the interval: mean +- t * s / sqrt(n) * sqrt(1 - 0.25)
    from scipy import stats

    half = stats.t.ppf(0.975, n - 1) * row["ndcg@10_std"] / math.sqrt(n) * math.sqrt(0.75)
    assert row["ndcg@10_ci_high"] - row["ndcg@10"] == pytest.approx(half, rel=1e-9)
    assert row["ndcg@10"] - row["ndcg@10_ci_low"] == pytest.approx(half, rel=1e-9)
    assert "sample={'fraction': 0.25" in str(got)
    whole = sqlndcg.evaluate(run, qrels, ["ndcg@10"], sample=1, seed=2).summary.to_dicts()[0]
    assert whole["queries"] == 400 and whole["ndcg@10_ci_low"] == whole["ndcg@10_ci_high"] == whole["ndcg@10"]


@pytest.mark.parametrize("given, message", [
    ({"sample": 0}, r"sample=0: give the share of queries"),
    ({"sample": 1.5}, r"0 < sample <= 1"),
    ({"sample": True}, r"sample=True"),
    ({"sample": 0.5, "seed": -1}, r"seed=-1"),
    ({"sample": 0.5, "bootstrap": "percentile"}, r"not available with bootstrap="),
])
def test_a_bad_sample_is_refused_by_name(given, message):
    run, qrels = population(20)
    with pytest.raises(SettingError, match=message):
        sqlndcg.evaluate(run, qrels, ["ndcg@10"], **given)


def test_a_sample_that_chose_nothing_says_so():
    run, qrels = population(5)
    with pytest.raises(DataError, match=r"sample=1e-09 with seed=0 chose no scored query"):
        sqlndcg.evaluate(run, qrels, ["ndcg@10"], sample=1e-9)


def test_the_command_line_samples(tmp_path, capsys):
    from sqlndcg.cli import main

    run, qrels = population(300)
    run.to_csv(tmp_path / "run.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    assert main(["evaluate", "--run", str(tmp_path / "run.csv"), "--qrels", str(tmp_path / "qrels.csv"),
                 "--sample", "0.2", "--seed", "7", "--format", "json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert {r["query_id"] for r in out["per_query"]} == chosen_by_hashlib(set(qrels.query_id), 0.2, 7)
    assert out["settings"]["sample"]["seed"] == 7


@pytest.mark.engine
def test_spark_chooses_the_same_queries(spark):
    run, qrels = population(200, text_ids=False)
    want = chosen_by_hashlib(set(qrels.query_id), 0.3, 11)
    spark.createDataFrame(run).createOrReplaceTempView("run_sampled")
    spark.createDataFrame(qrels).createOrReplaceTempView("qrels_sampled")
    got = sqlndcg.evaluate("run_sampled", "qrels_sampled", ["ndcg@10"], sample=0.3, seed=11, con=spark)
    assert {r["query_id"] for r in got.per_query.to_dicts()} == want
