"""The same call on every engine we run here: evaluate(con=...) on SQLite, PostgreSQL (C and ICU en-US databases),
MariaDB (a case-insensitive database), Snowflake (emulated by fakesnow), Spark, ClickHouse (chdb) and DataFusion
gives DuckDB's per-query numbers, summaries and account to 1e-9, for every metric family and the main settings,
with text and integer ids. Inputs are tables in that engine (and frames where the engine reads them natively)."""

from __future__ import annotations

import math
import sqlite3

import pandas as pd
import pytest

import sqlndcg
from adversarial import COMBINATIONS, adversarial_rows

RUN_COLUMNS = ["system", "query_id", "doc_id", "score"]
QRELS_COLUMNS = ["query_id", "doc_id", "rel"]


def frames(ids: str):
    run, qrels = adversarial_rows(ids == "int")
    return (pd.DataFrame(run, columns=RUN_COLUMNS),
            pd.DataFrame(qrels, columns=QRELS_COLUMNS).astype({"rel": "float64"}))


def reference(ids: str, name: str):
    metrics, settings = COMBINATIONS[name]
    run, qrels = frames(ids)
    return sqlndcg.evaluate(run, qrels, metrics=metrics, group_by="system", **settings)


def assert_same(got, want, label: str) -> None:
    for part in ("per_query", "summary", "account"):
        g, w = getattr(got, part), getattr(want, part)
        assert list(g.columns) == list(w.columns), f"{label} {part}: columns {g.columns} != {w.columns}"
        assert len(g.rows) == len(w.rows), f"{label} {part}: {len(g.rows)} rows, DuckDB {len(w.rows)}"
        for gr, wr in zip(g.rows, w.rows):
            for column, a, b in zip(g.columns, gr, wr):
                if isinstance(a, (float, int)) and isinstance(b, (float, int)) and not isinstance(a, bool):
                    assert math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9), (
                        f"{label} {part} {wr[:2]} {column}: {a!r} != DuckDB {b!r}")
                else:
                    assert (a is None) == (b is None) and str(a) == str(b), (
                        f"{label} {part} {wr[:2]} {column}: {a!r} != DuckDB {b!r}")


def check_engine(con, load, label: str, **kwargs) -> None:
    """Load both id types into the engine with `load(con, ids, run_df, qrels_df) -> (run, judgments)` and compare
    every setting combination with DuckDB's results."""
    for ids in ("text", "int"):
        run_df, qrels_df = frames(ids)
        run, judgments = load(con, ids, run_df, qrels_df)
        for name, (metrics, settings) in COMBINATIONS.items():
            got = sqlndcg.evaluate(run, judgments, metrics=metrics, group_by="system", con=con, **settings, **kwargs)
            assert_same(got, reference(ids, name), f"{label} {ids} ids, {name}")


def _sql_type(series, ids_integer: bool, text: str, integer: str, double: str) -> str:
    if series.name in ("score", "rel"):
        return double
    if series.name in ("query_id", "doc_id") and ids_integer:
        return integer
    return text


def load_dbapi(text: str, integer: str, double: str, placeholder: str, engine_clause: str = "", quote: str = ""):
    """``quote``: the engine's identifier quote, for engines that fold unquoted names (Snowflake: upper case)."""
    def load(con, ids, run_df, qrels_df):
        names = []
        for df, table in ((run_df, f"run_{ids}"), (qrels_df, f"qrels_{ids}")):
            cur = con.cursor()
            cols = ", ".join(f"{quote}{c}{quote} {_sql_type(df[c], ids == 'int', text, integer, double)}"
                             for c in df.columns)
            cur.execute(f"DROP TABLE IF EXISTS {quote}{table}{quote}")
            cur.execute(f"CREATE TABLE {quote}{table}{quote} ({cols}){engine_clause}")
            marks = ", ".join([placeholder] * len(df.columns))
            cur.executemany(f"INSERT INTO {quote}{table}{quote} VALUES ({marks})",
                            [tuple(r) for r in df.itertuples(index=False, name=None)])
            if hasattr(con, "commit"):
                con.commit()
            names.append(table)
        return names[0], names[1]

    return load


def test_sqlite_equals_duckdb():
    con = sqlite3.connect(":memory:")
    check_engine(con, load_dbapi("TEXT", "INTEGER", "REAL", "?"), "SQLite")


@pytest.mark.parametrize("collation", ["c", "icu"])
def test_postgres_equals_duckdb(postgres, collation):
    """Also on a database whose default collation is linguistic (ICU en-US): text ids break ties in byte order."""
    with postgres.connect(postgres.dbname_c if collation == "c" else postgres.dbname_icu) as con:
        check_engine(con, load_dbapi("TEXT", "BIGINT", "DOUBLE PRECISION", "%s"), f"PostgreSQL ({collation})")


def test_mariadb_equals_duckdb(mariadb):
    """MariaDB for the mysql dialect, in a database whose default collation is case-insensitive
    (utf8mb4_general_ci, where 'Doc' = 'doc'): text ids still join and break ties byte by byte."""
    con = mariadb.connect()
    try:
        check_engine(con, load_dbapi("TEXT", "BIGINT", "DOUBLE", "%s"), "MariaDB")
    finally:
        con.close()


def test_a_missing_table_is_named_on_mariadb(mariadb):
    con = mariadb.connect()
    try:
        with pytest.raises(sqlndcg.InputError, match=r"run table 'nope': no table or view of that name in the "
                                                     r"MariaDB connection"):
            sqlndcg.evaluate("nope", "qrels", con=con)
    finally:
        con.close()


def test_snowflake_on_fakesnow_equals_duckdb(fakesnow):
    """Tables and columns created with quoted lower-case names, as sqlndcg names them (unquoted, Snowflake would
    make them upper case: then pass the names, query_id="QUERY_ID" and so on)."""
    check_engine(fakesnow, load_dbapi("VARCHAR", "BIGINT", "DOUBLE", "%s", quote='"'),
                 "Snowflake (fakesnow)")


def test_a_call_on_mariadb_leaves_the_callers_transaction_alone(mariadb, monkeypatch):
    """sqlndcg's temporary tables are created and dropped without committing what the caller has not: MySQL
    commits an open transaction on DROP TABLE, though not on DROP TEMPORARY TABLE."""
    import pymysql

    from sqlndcg.run.engines.mysql_engine import MySQLEngine

    made = []
    materialize = MySQLEngine.materialize
    monkeypatch.setattr(MySQLEngine, "materialize",
                        lambda self, name, sql, summed=True: (made.append(name), materialize(self, name, sql, summed)))
    con = mariadb.connect()
    try:
        run, judgments = load_dbapi("TEXT", "BIGINT", "DOUBLE", "%s")(con, "text", *frames("text"))
        with con.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS pending")
            cur.execute("CREATE TABLE pending (x INT) ENGINE = InnoDB")
            con.commit()
            cur.execute("INSERT INTO pending VALUES (1)")  # opens a transaction, not committed
        got = sqlndcg.evaluate(run, judgments, metrics=["ndcg@10", "ap"], group_by="system", con=con)
        assert_same(got, sqlndcg.evaluate(*frames("text"), metrics=["ndcg@10", "ap"], group_by="system"), "MariaDB")
        con.rollback()
        with con.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM pending")
            assert cur.fetchone()[0] == 0, "the caller's INSERT was committed by sqlndcg"
            assert made
            for name in made:  # every temporary table dropped (MariaDB 10.11 lists none in its catalog)
                with pytest.raises(pymysql.err.ProgrammingError, match="doesn't exist"):
                    cur.execute(f"SELECT 1 FROM {name}")
    finally:
        con.close()


def test_a_missing_table_is_named_on_snowflake(fakesnow):
    with pytest.raises(sqlndcg.InputError, match=r"run table 'nope': no table or view of that name in the "
                                                 r"Snowflake \(fakesnow\) connection"):
        sqlndcg.evaluate("nope", "qrels", con=fakesnow)


def test_snowflake_result_names_get_back_the_case_the_statement_wrote():
    """Snowflake folds unquoted aliases to upper case; quoted names (metrics, a user's columns) keep theirs. On
    fakesnow, COLLATE(x, 'utf8') (byte order) goes, since DuckDB there compares bytes and has no such collation."""
    from sqlndcg.run.engines.snowflake_engine import _unfolded, _without_utf8_collation

    sql = 'SELECT 1 AS judged, 2 AS "SYSTEM", 3 AS "ndcg@10", 4 AS run_longest_list'
    assert _unfolded(sql, ["JUDGED", "SYSTEM", "ndcg@10", "RUN_LONGEST_LIST"]) == [
        "judged", "SYSTEM", "ndcg@10", "run_longest_list"]
    assert _without_utf8_collation("SELECT COLLATE(CAST(d AS VARCHAR), 'utf8') AS d FROM t") == \
        "SELECT CAST(d AS VARCHAR) AS d FROM t"
    kept = "SELECT COLLATE(d, 'en-ci') AS d FROM t"
    assert _without_utf8_collation(kept) == kept


def load_clickhouse(con, ids, run_df, qrels_df):
    """The frames as ClickHouse Memory tables (chdb's DB-API takes no bound parameters: values as literals)."""
    names = []
    for df, table in ((run_df, f"run_{ids}"), (qrels_df, f"qrels_{ids}")):
        cur = con.cursor()
        cols = ", ".join(f"{c} {_sql_type(df[c], ids == 'int', 'String', 'Int64', 'Float64')}" for c in df.columns)
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute(f"CREATE TABLE {table} ({cols}) ENGINE = Memory")
        values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")"
                           for row in df.itertuples(index=False, name=None))
        cur.execute(f"INSERT INTO {table} VALUES {values}")
        names.append(table)
    return names[0], names[1]


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_clickhouse_equals_duckdb():
    from chdb import dbapi

    check_engine(dbapi.connect(), load_clickhouse, "ClickHouse")


def _literal(value) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def test_spark_equals_duckdb_with_tables_and_frames(spark):
    def load_tables(con, ids, run_df, qrels_df):
        spark.createDataFrame(run_df).createOrReplaceTempView(f"run_{ids}")
        spark.createDataFrame(qrels_df).createOrReplaceTempView(f"qrels_{ids}")
        return f"run_{ids}", f"qrels_{ids}"

    check_engine(spark, load_tables, "Spark tables")
    run_df, qrels_df = frames("text")
    got = sqlndcg.evaluate(spark.createDataFrame(run_df), spark.createDataFrame(qrels_df), metrics=["ndcg@10", "ap"],
                           group_by="system", con=spark)
    want = sqlndcg.evaluate(run_df, qrels_df, metrics=["ndcg@10", "ap"], group_by="system")
    assert_same(got, want, "Spark frames")


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_datafusion_equals_duckdb_with_frames():
    import datafusion

    ctx = datafusion.SessionContext()
    check_engine(ctx, lambda con, ids, run_df, qrels_df: (run_df, qrels_df), "DataFusion")


def test_the_sql_that_ran_is_reported_in_the_engines_dialect():
    con = sqlite3.connect(":memory:")
    run, judgments = load_dbapi("TEXT", "INTEGER", "REAL", "?")(con, "text", *frames("text"))
    res = sqlndcg.evaluate(run, judgments, metrics=["ndcg@10"], group_by="system", con=con)
    assert res.sql.startswith("WITH run_rows AS")
    assert 'FROM "run_text"' in res.sql


def test_a_missing_table_is_named_with_the_engine():
    con = sqlite3.connect(":memory:")
    with pytest.raises(sqlndcg.InputError, match=r"run table 'nope': no table or view of that name in the SQLite"):
        sqlndcg.evaluate("nope", "qrels", con=con)


def test_bad_rows_are_refused_in_the_engine_with_the_same_message():
    con = sqlite3.connect(":memory:")
    run_df, qrels_df = frames("text")
    qrels_df = pd.concat([qrels_df, qrels_df.head(1)])
    run, judgments = load_dbapi("TEXT", "INTEGER", "REAL", "?")(con, "text", run_df, qrels_df)
    with pytest.raises(sqlndcg.DataError) as on_sqlite:
        sqlndcg.evaluate(run, judgments, con=con, group_by="system")
    with pytest.raises(sqlndcg.DataError) as on_duckdb:
        sqlndcg.evaluate(run_df, qrels_df, group_by="system")
    assert "1 (query, document) judgments occur more than once" in str(on_sqlite.value)
    assert str(on_sqlite.value).split(":", 1)[1] == str(on_duckdb.value).split(":", 1)[1]


def test_files_need_duckdb():
    con = sqlite3.connect(":memory:")
    with pytest.raises(sqlndcg.InputError, match=r"files are read by DuckDB, but this evaluation runs on SQLite"):
        sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), con=con)


def test_an_unknown_connection_is_refused_by_name():
    with pytest.raises(sqlndcg.SettingError, match=r"con must be a DuckDB connection, a DB-API connection"):
        sqlndcg.evaluate("runs", "qrels", con=object())


def test_the_command_line_runs_on_sqlite_and_postgres_through_a_connection_string(tmp_path, capsys, postgres):
    from sqlndcg.cli import main

    run_df, qrels_df = frames("text")
    path = tmp_path / "warehouse.db"
    lite = sqlite3.connect(path)
    run_df.to_sql("runs", lite, index=False)
    qrels_df.to_sql("qrels", lite, index=False)
    lite.close()
    want = sqlndcg.evaluate(run_df, qrels_df, ["ndcg@10"], group_by="system").summary_text()
    assert main(["evaluate", "--run", "runs", "--judgments", "qrels", "--database", f"sqlite:///{path}",
                 "-m", "ndcg@10", "--group-by", "system"]) == 0
    assert want in capsys.readouterr().out
    with postgres.connect() as con:
        load_dbapi("TEXT", "BIGINT", "DOUBLE PRECISION", "%s")(con, "text", run_df, qrels_df)
    assert main(["evaluate", "--run", "run_text", "--judgments", "qrels_text", "--database", postgres.url(),
                 "-m", "ndcg@10", "--group-by", "system"]) == 0
    assert want in capsys.readouterr().out
    assert main(["evaluate", "--run", "runs", "--judgments", "qrels", "--database", "mysql://x/y"]) == 2
    assert "unknown scheme 'mysql'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------------------
# frames on engines that cannot read them in place (SQLite, PostgreSQL): Engine.register copies them into
# temporary tables, typed from the Arrow schema; unregister (at the end of every evaluation) drops them

def frame_kinds(run_df, qrels_df):
    """The same rows as a pandas, pyarrow and polars frame, and as DuckDB relations."""
    import duckdb
    import polars as pl
    import pyarrow as pa

    arrow = (pa.Table.from_pandas(run_df, preserve_index=False), pa.Table.from_pandas(qrels_df, preserve_index=False))
    duck = duckdb.connect()
    return {"pandas": (run_df, qrels_df), "pyarrow": arrow, "polars": (pl.from_arrow(arrow[0]), pl.from_arrow(arrow[1])),
            "duckdb relation": (duck.from_arrow(arrow[0]), duck.from_arrow(arrow[1]))}


def sqlite_temporary_tables(con) -> int:
    return con.execute("SELECT COUNT(*) FROM sqlite_temp_master WHERE type = 'table'").fetchone()[0]


def postgres_temporary_tables(con) -> int:
    cur = con.cursor()
    cur.execute("SELECT COUNT(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relkind = 'r'")
    return cur.fetchone()[0]


def check_frames(con, label: str, leftover) -> None:
    """Every setting combination, both id types, every kind of frame: DuckDB's numbers, and no table left."""
    for ids in ("text", "int"):
        for kind, (run, judgments) in frame_kinds(*frames(ids)).items():
            for name, (metrics, settings) in COMBINATIONS.items():
                got = sqlndcg.evaluate(run, judgments, metrics=metrics, group_by="system", con=con, **settings)
                assert_same(got, reference(ids, name), f"{label} {kind} frames, {ids} ids, {name}")
                assert leftover(con) == 0, f"{label} {kind}: temporary tables left behind"


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_frames_on_sqlite_equal_duckdb_and_leave_no_table():
    con = sqlite3.connect(":memory:")
    check_frames(con, "SQLite", sqlite_temporary_tables)
    assert not con.in_transaction


def test_a_frame_is_copied_into_the_engine_once_per_evaluation(monkeypatch):
    """The checks and the evaluation share one registration: each frame is loaded into SQLite once."""
    from sqlndcg.run.engines.sqlite_engine import SQLiteEngine

    loaded = []
    register = SQLiteEngine.register
    monkeypatch.setattr(SQLiteEngine, "register", lambda self, name, frame: (loaded.append(name),
                                                                            register(self, name, frame))[1])
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "rel": [1, 2]})
    con = sqlite3.connect(":memory:")
    got = sqlndcg.evaluate(run, qrels, ["ndcg@2"], con=con).per_query.to_dicts()
    # the same values up to the last bit: DuckDB discounts by gain / log2(i + 1) as trec_eval does, SQLite by the
    # portable gain * LN(2) / LN(i + 1) (dialects/rules.sql, _discounted)
    want = sqlndcg.evaluate(run, qrels, ["ndcg@2"]).per_query.to_dicts()
    assert [g["query_id"] for g in got] == [w["query_id"] for w in want]
    assert [g["ndcg@2"] for g in got] == pytest.approx([w["ndcg@2"] for w in want], rel=1e-15)
    assert len(loaded) == 2 and loaded[0].startswith("sqlndcg_run_") and loaded[1].startswith("sqlndcg_judgments_")
    assert sqlite_temporary_tables(con) == 0


@pytest.mark.parametrize("driver", ["psycopg-c", "psycopg-icu-transaction", "psycopg2"])
def test_frames_on_postgres_equal_duckdb_and_leave_no_table(postgres, driver):
    """psycopg 3 loads with COPY (in autocommit mode, and inside the caller's transaction), psycopg 2 with
    executemany; on a database with a linguistic collation too."""
    if driver == "psycopg2":
        import psycopg2

        con = psycopg2.connect(postgres.dsn())
    else:
        import psycopg

        con = psycopg.connect(postgres.dsn(postgres.dbname_icu if "icu" in driver else postgres.dbname_c),
                              autocommit="transaction" not in driver)
    try:
        check_frames(con, f"PostgreSQL ({driver})", postgres_temporary_tables)
    finally:
        con.close()


def mariadb_leftover(monkeypatch):
    """A leftover(con) for MariaDB, which lists no temporary tables in its catalog (10.11): how many of the tables
    register made are still there (SHOW CREATE TABLE shows the temporary table where one shadows a permanent)."""
    from sqlndcg.run.engines.mysql_engine import MySQLEngine

    made = set()
    register = MySQLEngine.register
    monkeypatch.setattr(MySQLEngine, "register", lambda self, name, frame: (made.add(name),
                                                                           register(self, name, frame))[1])

    def leftover(con) -> int:
        found = 0
        for name in made:
            with con.cursor() as cur:
                try:
                    cur.execute(f"SHOW CREATE TABLE `{name}`")
                    found += cur.fetchone()[1].startswith("CREATE TEMPORARY TABLE")
                except Exception as exc:  # noqa: BLE001 - MySQL's error 1146: no such table
                    assert exc.args[0] == 1146, exc
        return found

    return leftover


def test_frames_on_mariadb_equal_duckdb_and_leave_no_table(mariadb, monkeypatch):
    """Frames copied into temporary tables (executemany), in a transaction of the caller's that stays open."""
    con = mariadb.connect()
    try:
        check_frames(con, "MariaDB", mariadb_leftover(monkeypatch))
    finally:
        con.close()


def _connection(engine: str, request):
    if engine == "sqlite":
        return sqlite3.connect(":memory:"), sqlite_temporary_tables
    if engine == "mariadb":
        return request.getfixturevalue("mariadb").connect(), mariadb_leftover(request.getfixturevalue("monkeypatch"))
    import psycopg

    server = request.getfixturevalue("postgres")
    return psycopg.connect(server.dsn(), autocommit=engine == "postgres"), postgres_temporary_tables


@pytest.mark.parametrize("engine", ["sqlite", pytest.param("postgres", marks=pytest.mark.engine),
                                    pytest.param("mariadb", marks=pytest.mark.engine)])
def test_register_makes_a_typed_temporary_table_in_batches_and_unregister_drops_it(engine, request, monkeypatch):
    import duckdb
    import pyarrow as pa

    from sqlndcg.run.engines import dbapi, for_connection

    monkeypatch.setattr(dbapi, "BATCH_ROWS", 7)  # 100 rows: 15 batches, from a table and from a stream
    con, leftover = _connection(engine, request)
    eng = for_connection(con)
    n = 100
    table = pa.table({
        "id": pa.array(range(n), pa.int32()),
        'a "quoted" % name': [f"t{i}" if i % 9 else None for i in range(n)],
        "x": pa.array([i / 4 for i in range(n)], pa.float32()),
        "flag": [i % 2 == 0 for i in range(n)],
        "label": pa.array([f"c{i % 3}" for i in range(n)]).dictionary_encode(),
        "big": pa.array(range(n), pa.uint64()),
    })
    eng.execute(f"CREATE TABLE {eng.quote('my frame')} (kept INTEGER)")  # a permanent table of the same name
    eng.execute(f"INSERT INTO {eng.quote('my frame')} VALUES (42)")
    try:
        for make in (lambda: table, table.to_pandas, lambda: duckdb.connect().from_arrow(table),
                     lambda: pa.RecordBatchReader.from_batches(table.schema, table.to_batches())):
            eng.register("my frame", make())
            eng.register("my frame", make())  # again: the temporary table is replaced, not doubled
            names, rows = eng.fetch(f"SELECT * FROM {eng.quote('my frame')} ORDER BY {eng.quote('id')}")
            assert names == table.column_names
            want = [(i, f"t{i}" if i % 9 else None, i / 4, i % 2 == 0, f"c{i % 3}", i) for i in range(n)]
            assert [tuple(bool(v) if c == 3 else v for c, v in enumerate(r)) for r in rows] == want
            classes = {k: eng.column_class(t) for k, t in eng.columns(eng.quote("my frame")).items()}
            assert classes == {"id": "integer", 'a "quoted" % name': "text", "x": "number",
                               "flag": classes["flag"], "label": "text", "big": "integer"}
            eng.unregister("my frame")
            assert leftover(con) == 0
            assert eng.fetch(f"SELECT * FROM {eng.quote('my frame')}")[1] == [(42,)]  # the permanent one, untouched
    finally:
        eng.execute(f"DROP TABLE IF EXISTS {eng.quote('my frame')}")
        con.close()


@pytest.mark.parametrize("engine", ["sqlite", pytest.param("postgres", marks=pytest.mark.engine),
                                    pytest.param("postgres-transaction", marks=pytest.mark.engine),
                                    pytest.param("mariadb", marks=pytest.mark.engine)])
def test_a_frame_column_of_a_type_the_engine_cannot_take_is_refused_by_name(engine, request):
    """The run (registered first) is dropped too when the judgments cannot be copied."""
    con, leftover = _connection(engine, request)
    run_df, qrels_df = frames("text")
    qrels_df = qrels_df.assign(judged_at=pd.Timestamp("2024-05-01"))
    try:
        with pytest.raises(sqlndcg.InputError, match=r"^judgments \(DataFrame\): column 'judged_at' of the DataFrame "
                                                     r"is of type timestamp.*integer, floating-point, string and "
                                                     r"boolean columns"):
            sqlndcg.evaluate(run_df, qrels_df, metrics=["ndcg@10"], group_by="system", con=con)
        assert leftover(con) == 0
        import pyarrow as pa

        too_big = pa.table({"query_id": ["q"], "doc_id": ["d"], "rel": pa.array([2**64 - 1], pa.uint64())})
        with pytest.raises(sqlndcg.InputError, match=r"^judgments \(Table\): column 'rel' cannot be copied as integer"):
            sqlndcg.evaluate(run_df, too_big, metrics=["ndcg@10"], group_by="system", con=con)
        assert leftover(con) == 0
    finally:
        con.close()


def test_to_sql_follows_the_connection_dialect(spark):
    """With a connection and no dialect=, the statement is written for that connection's engine: on Spark it runs
    as printed and gives DuckDB's numbers (it used to be DuckDB's SQL, which Spark cannot parse)."""
    run_df, qrels_df = frames("text")
    spark.createDataFrame(run_df).createOrReplaceTempView("run_dialect")
    spark.createDataFrame(qrels_df).createOrReplaceTempView("qrels_dialect")
    sql = sqlndcg.to_sql("run_dialect", "qrels_dialect", ["ndcg@10", "ap"], group_by="system", con=spark)
    assert "CAST(`doc_id` AS STRING)" in sql or "CAST(doc_id AS STRING)" in sql
    got = sorted(tuple(r) for r in spark.sql(sql).collect())
    want = sorted(tuple(r.values()) for r in
                  sqlndcg.evaluate(run_df, qrels_df, ["ndcg@10", "ap"], group_by="system").per_query.to_dicts())
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for g, w in zip(got, want):
        assert g[2:] == pytest.approx(w[2:], abs=1e-12)


def test_to_sql_follows_the_connection_dialect_on_sqlite():
    con = sqlite3.connect(":memory:")
    run_df, qrels_df = frames("text")
    run_df.to_sql("runs", con, index=False)
    qrels_df.to_sql("qrels", con, index=False)
    sql = sqlndcg.to_sql("runs", "qrels", ["ndcg@10", "ap"], group_by="system", con=con)
    assert sql == sqlndcg.to_sql("runs", "qrels", ["ndcg@10", "ap"], group_by="system", con=con, dialect="sqlite")
    assert "COLLATE BINARY" in sql
    cur = con.execute(sql)
    got = sorted(cur.fetchall())
    want = sorted(tuple(r.values()) for r in
                  sqlndcg.evaluate(run_df, qrels_df, ["ndcg@10", "ap"], group_by="system").per_query.to_dicts())
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for g, w in zip(got, want):
        assert g[2:] == pytest.approx(w[2:], abs=1e-12)
