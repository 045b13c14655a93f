"""The engines every parity test runs on, and how a frame is put into each: a test module defines
``check_engine(con, load, label)`` (``load(con, name, frame) -> input``: what to pass for that frame) and takes its
test functions with ``globals().update(engine_tests(check_engine))``. The server engines' fixtures (conftest.py)
mark their tests ``engine``; the in-process ones (SQLite, ClickHouse's chdb, DataFusion) run in the quick subset.
A missing engine fails, never skips."""

from __future__ import annotations

import math
import sqlite3


def load_frame(con, name, frame):
    """Engines that read a pandas frame through sqlndcg's own loading: pass it as it is."""
    return frame


def _clickhouse_type(series) -> str:
    return {"i": "Int64", "f": "Float64"}.get(series.dtype.kind, "String")


def load_clickhouse(con, name, frame):
    cur = con.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {name}")
    cur.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {_clickhouse_type(frame[c])}' for c in frame.columns)}) "
                "ENGINE = Memory")
    values = ", ".join("(" + ", ".join(f"'{v}'" if isinstance(v, str) else repr(v) for v in row) + ")"
                       for row in frame.itertuples(index=False, name=None))
    cur.execute(f"INSERT INTO {name} VALUES {values}")
    return name


def assert_same(got, want, label: str, *, sort_by=None) -> None:
    """Two tables equal: the same columns, rows (sorted by ``sort_by(row)`` first when given), texts and integers
    as text, floats to 1e-9."""
    assert list(got.columns) == list(want.columns), label
    g, w = (list(got.rows), list(want.rows)) if sort_by is None else (sorted(got.rows, key=sort_by),
                                                                      sorted(want.rows, key=sort_by))
    assert len(g) == len(w), label
    for a_row, b_row in zip(g, w):
        for column, a, b in zip(got.columns, a_row, b_row):
            if isinstance(a, float) or isinstance(b, float):
                assert (a is None) == (b is None) and (a is None or math.isclose(a, b, abs_tol=1e-9)), (
                    f"{label} {b_row[:4]} {column}: {a!r} != DuckDB {b!r}")
            else:
                assert str(a) == str(b), f"{label} {b_row[:4]} {column}: {a!r} != DuckDB {b!r}"


def engine_tests(check_engine) -> dict:
    """One test per engine, each calling ``check_engine(con, load, label)``."""

    def test_sqlite_equals_duckdb():
        check_engine(sqlite3.connect(":memory:"), load_frame, "SQLite")

    def test_clickhouse_equals_duckdb():
        from chdb import dbapi

        check_engine(dbapi.connect(), load_clickhouse, "ClickHouse")

    def test_datafusion_equals_duckdb():
        import datafusion

        check_engine(datafusion.SessionContext(), load_frame, "DataFusion")

    def test_postgres_equals_duckdb(postgres):
        with postgres.connect() as con:
            check_engine(con, load_frame, "PostgreSQL")

    def test_spark_equals_duckdb(spark):
        def load(con, name, frame):
            spark.createDataFrame(frame).createOrReplaceTempView(name)
            return name

        check_engine(spark, load, "Spark")

    def test_mariadb_equals_duckdb(mariadb):
        con = mariadb.connect()
        try:
            check_engine(con, load_frame, "MariaDB")
        finally:
            con.close()

    def test_snowflake_on_fakesnow_equals_duckdb(fakesnow):
        from snowflake_tables import load_snowflake

        check_engine(fakesnow, load_snowflake, "Snowflake (fakesnow)")

    return {name: test for name, test in locals().items() if name.startswith("test_")}
