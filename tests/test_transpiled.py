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
