"""The per-query SQL written for other engines: it transpiles for every dialect we name, and SQLite (in the
standard library, so always at hand) runs it to the same numbers DuckDB gives."""

from __future__ import annotations

import random
import sqlite3

import duckdb
import pytest
import sqlglot

import sqlndcg
import sqlndcg.core.render
import golden_sql

DIALECTS = golden_sql.DIALECTS
METRICS = ["ndcg@3", "ndcg@10", "ndcg", "dcg@5", "idcg@5", "cg@3", "p@5", "r@10", "judged@5"]
BINARY = ["ap", "ap@5", "rr", "rr@10", "hit@3", "p(rel=2)@5"]
SETTINGS = [
    dict(),
    dict(preset="trec_eval"),
    dict(ideal="retrieved", short_lists="truncate", empty="skip"),
    dict(ties="average", queries="both"),
    dict(gain={1: 1.0, 2: 4.0, 3: 9.0}, threshold=2),
]


def _data(seed: int):
    rng = random.Random(seed)
    run, qrels = [], []
    for q in range(12):
        docs = [f"d{d}" for d in range(rng.randint(1, 14))]
        for d in docs:
            run.append(("sysA" if q % 2 else "sysB", f"q{q}", d, float(rng.choice([0.1, 0.5, 0.5, 0.9]))))
        for d in rng.sample([f"d{d}" for d in range(16)], 6):
            if q != 11:  # q11: retrieved, never judged
                qrels.append((f"q{q}", d, rng.choice([-1, 0, 0, 1, 2, 3])))
    qrels.append(("q99", "d1", 2))  # judged, never retrieved
    return run, qrels


@pytest.mark.parametrize("dialect", DIALECTS)
def test_transpiles_and_parses_back(dialect):
    sql = sqlndcg.to_sql("runs", "qrels", METRICS + BINARY, dialect=dialect, group_by="system")
    parsed = sqlglot.parse_one(sql, read=sqlndcg.core.render.sqlglot_dialect(dialect))
    # the statement reads both inputs and writes every metric column, in that dialect's quoting
    tables = {t.name for t in parsed.find_all(sqlglot.exp.Table)}
    assert {"runs", "qrels"} <= tables
    assert [s.alias_or_name for s in parsed.selects][-len(METRICS + BINARY):] == [
        sqlndcg.parse_metric(m).name for m in METRICS + BINARY]


@pytest.mark.parametrize("dialect", golden_sql.DIALECTS)
@pytest.mark.parametrize("scenario", list(golden_sql.SCENARIOS))
def test_golden_sql(dialect, scenario):
    """The SQL for each dialect is reviewed as a file; `python tests/golden_sql.py` rewrites them after a change."""
    expected = golden_sql.path(dialect, scenario)
    assert expected.is_file(), f"no golden file {expected}; run: python tests/golden_sql.py"
    assert golden_sql.render(dialect, scenario) == expected.read_text(encoding="utf-8"), (
        f"the {dialect} SQL for {scenario!r} changed; review it and run: python tests/golden_sql.py")


# Each dialect's own fragments, dispatched as dbt's adapters would render them: (dialect, fragment in its SQL).
FRAGMENTS = [
    ("postgres", 'COLLATE "C"'), ("postgres", "DOUBLE PRECISION"), ("redshift", "'case_sensitive'"),
    ("snowflake", "'utf8'"), ("bigquery", "AS BYTES"), ("bigquery", "FLOAT64"), ("spark", "AS BINARY"),
    ("databricks", "AS BINARY"), ("tsql", "Latin1_General_100_BIN2_UTF8"), ("mysql", "AS BINARY"),
    ("tsql", "NVARCHAR(4000)"), ("redshift", "VARCHAR(65535)"),
]


@pytest.mark.parametrize("dialect, fragment", FRAGMENTS)
def test_text_ids_break_ties_in_byte_order_in_every_dialect(dialect, fragment):
    con = duckdb.connect()
    con.execute("CREATE TABLE runs AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1.0 AS score")
    con.execute("CREATE TABLE qrels AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1 AS rel")
    sql = sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], dialect=dialect, con=con)
    assert fragment.lower() in sql.lower(), sql


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "defaults")
@pytest.mark.parametrize("seed", [1, 2])
def test_sqlite_runs_the_same_sql_to_the_same_numbers(settings, seed):
    run, qrels = _data(seed)
    metrics = METRICS + ([] if settings.get("ties") == "average" else BINARY)
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE runs (system TEXT, query_id TEXT, doc_id TEXT, score REAL)")
    lite.execute("CREATE TABLE qrels (query_id TEXT, doc_id TEXT, rel INTEGER)")
    lite.executemany("INSERT INTO runs VALUES (?, ?, ?, ?)", run)
    lite.executemany("INSERT INTO qrels VALUES (?, ?, ?)", qrels)
    sql = sqlndcg.to_sql("runs", "qrels", metrics, dialect="sqlite", group_by="system", **settings)
    got = lite.execute(sql).fetchall()

    duck = duckdb.connect()
    duck.execute("CREATE TABLE runs (system VARCHAR, query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    duck.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, rel INTEGER)")
    duck.executemany("INSERT INTO runs VALUES (?, ?, ?, ?)", run)
    duck.executemany("INSERT INTO qrels VALUES (?, ?, ?)", qrels)
    want = sqlndcg.evaluate("runs", "qrels", metrics, con=duck, group_by="system", **settings).per_query.rows

    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        assert g[:2] == w[:2]
        assert g[2:] == pytest.approx(w[2:], abs=1e-12, nan_ok=False), (g[:2], metrics)


# A dialect no dialect file names gets the portable DuckDB SQL written in it by sqlglot, under a first line saying
# so; its text type keeps a length (sqlglot writes DuckDB's unbounded VARCHAR as Oracle's CLOB, which cannot be
# grouped, joined or ordered, and as Teradata's TEXT, no type there), every identifier is quoted (Oracle's unquoted
# names cannot start with `_`). (dialect, fragment in its SQL)
TRANSPILED = [
    ("oracle", 'CAST("doc_id" AS VARCHAR2(4000))'), ("oracle", 'AS "_q"'), ("oracle", "DOUBLE PRECISION"),
    ("teradata", 'CAST("doc_id" AS VARCHAR(4000))'), ("doris", "CAST(`doc_id` AS VARCHAR(4000))"),
    ("exasol", 'CAST("doc_id" AS VARCHAR(4000))'),
]


@pytest.mark.parametrize("dialect, fragment", TRANSPILED)
def test_a_dialect_without_a_file_is_transpiled_from_duckdb(dialect, fragment):
    sql = sqlndcg.to_sql("runs", "qrels", METRICS + BINARY, dialect=dialect, group_by="system")
    assert sql.startswith(sqlndcg.core.render.TRANSPILED_HEADER.format(dialect=dialect) + "\n")
    assert fragment in sql
    assert "COLLATE" not in sql and "LIST_" not in sql.upper() and "CLOB" not in sql and " TEXT" not in sql
    sqlglot.parse_one(sql, read=dialect)


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "tsql", "datafusion"])
def test_a_dialect_with_a_file_is_not_transpiled(dialect):
    assert not sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], dialect=dialect).startswith("--")


def test_the_text_a_dialect_is_transpiled_from_is_duckdbs_sql():
    """The statements rendered for a transpiled dialect, run by DuckDB as they are (a DuckDB connection told
    dialect='oracle' runs them untranslated), give DuckDB's own numbers: the text sqlglot reads as DuckDB is."""
    run, qrels = _data(3)
    duck = duckdb.connect()
    duck.execute("CREATE TABLE runs (system VARCHAR, query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    duck.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, rel INTEGER)")
    duck.executemany("INSERT INTO runs VALUES (?, ?, ?, ?)", run)
    duck.executemany("INSERT INTO qrels VALUES (?, ?, ?)", qrels)
    metrics = METRICS + BINARY + ["rbp", "rbp_resid", "err@5", "G", "rndcg", "ndcg_rel"]
    want = sqlndcg.evaluate("runs", "qrels", metrics, con=duck, group_by="system")
    got = sqlndcg.evaluate("runs", "qrels", metrics, con=duck, group_by="system", dialect="oracle")
    assert str(got.sql).startswith("-- sqlndcg: transpiled by sqlglot")
    assert len(got.per_query.rows) == len(want.per_query.rows) > 0
    for g, w in zip(got.per_query.rows, want.per_query.rows):
        assert g[:2] == w[:2]
        assert g[2:] == pytest.approx(w[2:], abs=1e-12), g[:2]


def test_a_db_api_connection_of_a_transpiled_dialect_runs_the_translated_sql():
    executed = []

    class Cursor:
        description = None

        def execute(self, sql):
            executed.append(sql)

        def close(self):
            pass

    class Connection:
        def cursor(self):
            return Cursor()

    from sqlndcg.run.engines.dbapi import DBAPIEngine

    DBAPIEngine(Connection(), dialect="oracle").fetch('SELECT CAST(x AS VARCHAR) AS _q FROM "t" AS a')
    DBAPIEngine(Connection(), dialect="postgres").fetch("SELECT 1 AS _q")
    assert executed == ['SELECT CAST("x" AS CLOB) AS "_q" FROM "t" "a"', "SELECT 1 AS _q"]
