"""iprec_at_recall and 11pt_avg reach exactly the relevant documents trec_eval's C code computes, on every engine:
lround(x * R) (trec_eval 10.0, iprec_reach='round', preset "trec_eval") or floor(x * R + 0.9) (9.x,
'floor_plus_0.9', preset "trec_eval-9"), with x * R a double product as in C. The levels and R below include
half-way products (0.1 * 5 = 0.5: lround 1, where rounding half to even, as PostgreSQL's and ClickHouse's ROUND of a
double do, gives 0) and products whose double is not the decimal one (0.35 * 90 is 31.499999999999996: 31, where
0.35 * 90 in decimals rounds to 32). The reference is computed here in Python from the double products (Decimal of
a double is its exact value), not by the SQL."""

from __future__ import annotations

import math
import sqlite3
from decimal import ROUND_HALF_UP, Decimal

import pandas as pd

import sqlndcg

R_VALUES = list(range(1, 13)) + [25, 45, 50, 90]
LEVELS = sorted({i / 10 for i in range(11)} | {0.05, 0.15, 0.25, 0.29, 0.35, 0.45, 0.55, 0.58, 0.65, 0.75, 0.85, 0.95})
METRICS = [f"iprec_at_recall(recall={x})" for x in LEVELS] + ["11pt_avg"]


def rows():
    """Query r<R>: R relevant documents, the k-th at position 2k - 1 (an unjudged one between each two), so the
    precision at the k-th, k / (2k - 1), falls with k and iprec reaching c documents tells c."""
    run, qrels = [], []
    for r in R_VALUES:
        for p in range(1, 2 * r + 1):
            doc = f"rel{(p + 1) // 2}" if p % 2 else f"other{p}"
            run.append((f"r{r}", doc, float(10_000 - p)))
            if p % 2:
                qrels.append((f"r{r}", doc, 1.0))
    return (pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]))


def reach(x: float, r: int, preset: str) -> int:
    product = x * r  # a double, as in C
    if preset == "trec_eval-9":
        return math.floor(product + 0.9)
    return int(Decimal(product).to_integral_value(rounding=ROUND_HALF_UP))  # lround: half away from zero


def iprec(c: int) -> float:
    return 1.0 if c <= 0 else c / (2 * c - 1)


def expected(preset: str) -> dict[str, dict[str, float]]:
    out = {}
    for r in R_VALUES:
        row = {f"iprec_at_recall(recall={x})": iprec(reach(x, r, preset)) for x in LEVELS}
        row["11pt_avg"] = sum(iprec(reach(i / 10, r, preset)) for i in range(11)) / 11
        out[f"r{r}"] = row
    return out


def test_the_reference_covers_what_it_claims():
    assert reach(0.1, 5, "trec_eval") == 1 and reach(0.5, 5, "trec_eval") == 3  # half-way, away from zero
    assert 0.35 * 90 == 31.499999999999996 and reach(0.35, 90, "trec_eval") == 31  # decimals would say 32
    assert 0.7 * 3 + 0.9 == 2.9999999999999996 and reach(0.7, 3, "trec_eval-9") == 2  # decimals would say 3
    assert reach(0.25, 5, "trec_eval") == 1 and reach(0.25, 5, "trec_eval-9") == 2
    ten, nine = expected("trec_eval"), expected("trec_eval-9")
    assert sum(ten[q][m] != nine[q][m] for q in ten for m in ten[q]) > 30


def check(con, run, qrels, label: str) -> None:
    for preset in ("trec_eval", "trec_eval-9"):
        res = sqlndcg.evaluate(run, qrels, METRICS, con=con, preset=preset)
        want = expected(preset)
        column = dict(zip(METRICS, res.settings["metrics"]))  # as named in the result: recall=0.0 is the default
        got = {row["query_id"]: row for row in res.per_query.to_dicts()}
        assert set(got) == set(want), label
        wrong = [(q, m, got[q][column[m]], v) for q in want for m, v in want[q].items()
                 if abs(got[q][column[m]] - v) > 1e-12]
        assert not wrong, f"{label} {preset}: {wrong[:10]}"


def load_dbapi(con, text: str, double: str, placeholder: str) -> tuple[str, str]:
    run, qrels = rows()
    for df, table in ((run, "reach_run"), (qrels, "reach_qrels")):
        cur = con.cursor()
        last = "score" if table == "reach_run" else "rel"
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute(f"CREATE TABLE {table} (query_id {text}, doc_id {text}, {last} {double})")
        cur.executemany(f"INSERT INTO {table} VALUES ({', '.join([placeholder] * 3)})",
                        list(df.itertuples(index=False, name=None)))
        if hasattr(con, "commit"):
            con.commit()
    return "reach_run", "reach_qrels"


def test_duckdb():
    check(None, *rows(), "DuckDB")


def test_sqlite():
    con = sqlite3.connect(":memory:")
    check(con, *load_dbapi(con, "TEXT", "REAL", "?"), "SQLite")


def test_postgres(postgres):
    with postgres.connect(postgres.dbname_c) as con:
        check(con, *load_dbapi(con, "TEXT", "DOUBLE PRECISION", "%s"), "PostgreSQL")


def test_spark(spark):
    run, qrels = rows()
    spark.createDataFrame(run).createOrReplaceTempView("reach_run")
    spark.createDataFrame(qrels).createOrReplaceTempView("reach_qrels")
    check(spark, "reach_run", "reach_qrels", "Spark")


def test_clickhouse():
    from chdb import dbapi

    con = dbapi.connect()
    run, qrels = rows()
    cur = con.cursor()
    for df, table, last in ((run, "reach_run", "score"), (qrels, "reach_qrels", "rel")):
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute(f"CREATE TABLE {table} (query_id String, doc_id String, {last} Float64) ENGINE = Memory")
        values = ", ".join(f"('{q}', '{d}', {v!r})" for q, d, v in df.itertuples(index=False, name=None))
        cur.execute(f"INSERT INTO {table} VALUES {values}")
    check(con, "reach_run", "reach_qrels", "ClickHouse")


def test_datafusion():
    import datafusion

    check(datafusion.SessionContext(), *rows(), "DataFusion")
