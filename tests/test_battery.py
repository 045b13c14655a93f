"""A fixed battery of per-query numbers, bit for bit, on every engine the tests run: every metric family under the
main setting combinations (tests/adversarial.py), text and integer ids. The digests in tests/golden/battery.json were
written before the package was restructured; a refactoring that changes any number, even in its last bit, fails here.
Correctness itself is checked against the references elsewhere: this only proves "unchanged".

Rewrite the digests (only for a change that is meant to move numbers, said in its commit) with
``SQLNDCG_WRITE_BATTERY=1 pytest tests/test_battery.py -m ''``."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

import sqlndcg
from adversarial import COMBINATIONS
from test_engines import frames, load_clickhouse, load_dbapi

GOLDEN = Path(__file__).parent / "golden" / "battery.json"


def _exact(value) -> str:
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value).hex()  # an engine's count may come back as an int or a double: the same number
    return repr(value)


def digest(result) -> str:
    h = hashlib.sha256()
    for part in ("per_query", "summary", "account"):
        table = getattr(result, part)
        h.update(repr(list(table.columns)).encode())
        for row in table.rows:
            h.update(("|".join(_exact(v) for v in row) + "\n").encode())
    return h.hexdigest()


def battery(con, load) -> dict[str, str]:
    out = {}
    for ids in ("text", "int"):
        run_df, qrels_df = frames(ids)
        run, judgments = load(con, ids, run_df, qrels_df)
        for name, (metrics, settings) in COMBINATIONS.items():
            res = sqlndcg.evaluate(run, judgments, metrics=metrics, group_by="system", con=con, **settings)
            out[f"{ids}/{name}"] = digest(res)
    return out


def check(engine: str, got: dict[str, str]) -> None:
    recorded = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if os.environ.get("SQLNDCG_WRITE_BATTERY"):
        recorded[engine] = got
        GOLDEN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        return
    assert engine in recorded, f"no recorded battery for {engine}"
    changed = sorted(k for k in recorded[engine] if recorded[engine][k] != got.get(k))
    assert not changed, f"{engine}: numbers changed for {changed}"
    assert set(got) == set(recorded[engine])


def test_duckdb_frames():
    check("duckdb", battery(None, lambda con, ids, run_df, qrels_df: (run_df, qrels_df)))


def test_sqlite_tables():
    con = sqlite3.connect(":memory:")
    check("sqlite", battery(con, load_dbapi("TEXT", "INTEGER", "REAL", "?")))


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_datafusion_frames():
    import datafusion

    # One partition: with several, DataFusion sums floats in an order that varies from run to run (last bits).
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
    check("datafusion", battery(ctx, lambda con, ids, run_df, qrels_df: (run_df, qrels_df)))


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_clickhouse_tables():
    from chdb import dbapi

    check("clickhouse", battery(dbapi.connect(), load_clickhouse))


def test_postgres_tables(postgres):
    with postgres.connect(postgres.dbname_icu) as con:
        check("postgres", battery(con, load_dbapi("TEXT", "BIGINT", "DOUBLE PRECISION", "%s")))


def test_mariadb_tables(mariadb):
    con = mariadb.connect()
    try:
        check("mariadb", battery(con, load_dbapi("TEXT", "BIGINT", "DOUBLE", "%s")))
    finally:
        con.close()


def test_snowflake_fakesnow_tables(fakesnow):
    # One DuckDB thread under fakesnow: with more, DuckDB adds up floats in an order that varies from run to run
    # (last bits), as Spark's and DataFusion's partitions do.
    duck = fakesnow._duck_conn
    before = duck.execute("SELECT current_setting('threads')").fetchone()[0]
    duck.execute("SET threads = 1")
    try:
        check("snowflake_fakesnow", battery(fakesnow, load_dbapi("VARCHAR", "BIGINT", "DOUBLE", "%s", quote='"')))
    finally:
        duck.execute(f"SET threads = {int(before)}")


def test_spark_tables(spark):
    def load(con, ids, run_df, qrels_df):
        spark.createDataFrame(run_df).coalesce(1).createOrReplaceTempView(f"battery_run_{ids}")
        spark.createDataFrame(qrels_df).coalesce(1).createOrReplaceTempView(f"battery_qrels_{ids}")
        return f"battery_run_{ids}", f"battery_qrels_{ids}"

    # One shuffle partition: with two, Spark adds up floats in an order that varies from run to run (last bits).
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    try:
        check("spark", battery(spark, load))
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
