"""Security: names never escape their quotes on any engine, passwords never reach a message, and a caller's
PostgreSQL transaction survives whatever sqlndcg does on its connection.

Identifiers are quoted by each engine's own lexical rules (sql/macros/dialects/rules.sql, escape_identifier): ClickHouse
and BigQuery read backslash escapes inside quoted identifiers, the others a doubled closing quote. The tables with
odd names are made here with sqlglot's quoting (or the engine's own API), independently of sqlndcg's.
"""

from __future__ import annotations

import math
import re
import sqlite3

import pandas as pd
import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

import sqlndcg

# ------------------------------------------------------------------------------------------------------------
# identifiers

RUN = [("s1", "q1", "d1", 3.0), ("s1", "q1", "d2", 2.0), ("s1", "q1", "d3", 1.0), ("s1", "q2", "d1", 1.0),
       ("s2", "q1", "d3", 3.0), ("s2", "q1", "d1", 2.0), ("s2", "q2", "d4", 2.0), ("s2", "q2", "d1", 1.0)]
QRELS = [("q1", "d1", 2), ("q1", "d3", 1), ("q2", "d1", 1), ("q2", "d4", 3)]
METRICS = ["ndcg@2", "ap", "p@1"]

#: One odd character per case, each in every table and column name (with text around it), and all at once.
ODD = {"backslash": "\\", "double quote": '"', "backtick": "`", "single quote": "'", "bracket": "]",
       "semicolon": ";", "newline": "\n", "unicode": "é€😀", "backslash quote": '\\"', "all": '\\"`\'];\n é'}
ENGINES = ["duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.engine), "clickhouse", "datafusion"]


def odd_names(odd: str) -> dict:
    return {"run": f"run{odd}x", "judgments": f"j{odd}", "system": f"sys{odd}", "query_id": f"q{odd}id",
            "doc_id": f"d{odd}id", "score": f"s{odd}core", "rel": f"r{odd}el"}


def ident(name: str, dialect: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect)


def expected() -> list[tuple]:
    """DuckDB's per-query rows with plain names: the numbers every engine must give with odd names."""
    run = pd.DataFrame(RUN, columns=["system", "query_id", "doc_id", "score"])
    qrels = pd.DataFrame(QRELS, columns=["query_id", "doc_id", "rel"])
    rows = sqlndcg.evaluate(run, qrels, METRICS, group_by="system").per_query.rows
    assert len(rows) == 4 and any(v not in (0, 1) for r in rows for v in r[2:])
    return [tuple(r) for r in rows]


def assert_expected(rows) -> None:
    got, want = [tuple(r) for r in rows], expected()
    assert [r[:2] for r in got] == [r[:2] for r in want]
    for g, w in zip(got, want):
        assert all(math.isclose(a, b, rel_tol=0, abs_tol=1e-9) for a, b in zip(g[2:], w[2:])), (g, w)


def create_tables(engine: str, con, names: dict, run=RUN, qrels=QRELS) -> None:
    """The run and the judgments as tables of the engine, named (tables and columns) as ``names`` says."""
    run_cols = [names["system"], names["query_id"], names["doc_id"], names["score"]]
    qrels_cols = [names["query_id"], names["doc_id"], names["rel"]]
    tables = ((names["run"], run_cols, ("text", "text", "text", "float"), run),
              (names["judgments"], qrels_cols, ("text", "text", "int"), qrels))
    if engine == "datafusion":  # register_record_batches reads the name as SQL (unquoted: trimmed, lower case)
        for table, cols, _, rows in tables:
            con.register_record_batches(ident(table, "postgres"), [pa.Table.from_pylist([dict(zip(cols, r)) for r in rows]).to_batches()])
        return
    dialect = {"duckdb": "duckdb", "sqlite": "sqlite", "postgres": "postgres", "clickhouse": "clickhouse"}[engine]
    types = {"duckdb": {"text": "VARCHAR", "float": "DOUBLE", "int": "INTEGER"},
             "sqlite": {"text": "TEXT", "float": "REAL", "int": "INTEGER"},
             "postgres": {"text": "TEXT", "float": "DOUBLE PRECISION", "int": "INTEGER"},
             "clickhouse": {"text": "String", "float": "Float64", "int": "Int64"}}[engine]
    cur = con.cursor()
    for table, cols, kinds, rows in tables:
        columns = ", ".join(f"{ident(c, dialect)} {types[k]}" for c, k in zip(cols, kinds))
        cur.execute(f"CREATE TABLE {ident(table, dialect)} ({columns})"
                    + (" ENGINE = Memory" if engine == "clickhouse" else ""))
        values = ", ".join("(" + ", ".join(exp.convert(v).sql(dialect) for v in r) + ")" for r in rows)
        cur.execute(f"INSERT INTO {ident(table, dialect)} VALUES {values}")
    if hasattr(con, "commit"):
        con.commit()


def table_names(engine: str, con) -> set[str]:
    if engine == "datafusion":
        return set(con.catalog().schema().names())
    sql = {"duckdb": "SELECT table_name FROM information_schema.tables",
           "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table'",
           "postgres": "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
           "clickhouse": "SELECT name FROM system.tables WHERE database = currentDatabase()"}[engine]
    cur = con.cursor()
    cur.execute(sql)
    return {r[0] for r in cur.fetchall()}


@pytest.fixture
def engine_con(request):
    """A fresh connection to the engine named by the test's ``engine`` parameter, closed afterwards."""
    engine = request.node.callspec.params["engine"]
    if engine == "duckdb":
        import duckdb

        con = duckdb.connect()
    elif engine == "sqlite":
        con = sqlite3.connect(":memory:")
    elif engine == "clickhouse":
        from chdb import dbapi

        con = dbapi.connect()
    elif engine == "datafusion":
        import datafusion

        con = datafusion.SessionContext()
    else:
        server = request.getfixturevalue("postgres")
        import psycopg

        con = psycopg.connect(server.dsn(), autocommit=True)
        cur = con.cursor()
        cur.execute("DROP SCHEMA public CASCADE")
        cur.execute("CREATE SCHEMA public")
    yield con
    if hasattr(con, "close"):
        con.close()


@pytest.mark.parametrize("odd", list(ODD))
@pytest.mark.parametrize("engine", ENGINES)
def test_odd_table_and_column_names_evaluate_correctly_on_every_engine(engine, odd, engine_con):
    names = odd_names(ODD[odd])
    create_tables(engine, engine_con, names)
    assert {names["run"], names["judgments"]} <= table_names(engine, engine_con)
    res = sqlndcg.evaluate(names["run"], names["judgments"], METRICS, con=engine_con, group_by=names["system"],
                           query_id=names["query_id"], doc_id=names["doc_id"], score=names["score"],
                           rel=names["rel"])
    assert list(res.per_query.columns[:2]) == [names["system"], names["query_id"]]
    assert_expected(res.per_query.rows)
    if engine == "clickhouse":  # chdb takes its own tables only
        return
    # frames with the same column names (copied into temporary tables on SQLite and PostgreSQL)
    run = pd.DataFrame(RUN, columns=[names["system"], names["query_id"], names["doc_id"], names["score"]])
    qrels = pd.DataFrame(QRELS, columns=[names["query_id"], names["doc_id"], names["rel"]])
    res = sqlndcg.evaluate(run, qrels, METRICS, con=engine_con, group_by=names["system"], query_id=names["query_id"],
                           doc_id=names["doc_id"], score=names["score"], rel=names["rel"])
    assert_expected(res.per_query.rows)


@pytest.mark.parametrize("odd", ["backslash", "all"])
def test_odd_table_and_column_names_evaluate_correctly_on_spark(spark, odd):
    """Spark quotes with backticks (doubled inside) and reads a backslash there as itself."""
    names = odd_names(ODD[odd])
    run = pd.DataFrame(RUN, columns=[names["system"], names["query_id"], names["doc_id"], names["score"]])
    qrels = pd.DataFrame(QRELS, columns=[names["query_id"], names["doc_id"], names["rel"]])
    # createOrReplaceTempView reads its argument as SQL: the name goes in quoted
    spark.createDataFrame(run).createOrReplaceTempView(ident(names["run"], "spark"))
    spark.createDataFrame(qrels).createOrReplaceTempView(ident(names["judgments"], "spark"))
    try:
        assert spark.table(ident(names["run"], "spark")).count() == len(RUN)
        res = sqlndcg.evaluate(names["run"], names["judgments"], METRICS, con=spark, group_by=names["system"],
                               query_id=names["query_id"], doc_id=names["doc_id"], score=names["score"],
                               rel=names["rel"])
        assert list(res.per_query.columns[:2]) == [names["system"], names["query_id"]]
        assert_expected(res.per_query.rows)
    finally:
        spark.catalog.dropTempView(ident(names["run"], "spark"))
        spark.catalog.dropTempView(ident(names["judgments"], "spark"))


def test_a_clickhouse_table_name_cannot_escape_its_quotes_to_drop_a_table():
    """With a table named `j"` present, the name `j\\" AS input_rows); DROP TABLE sentinel; --` once closed
    the quotes after `j"` (a doubled `"` after a backslash) and chdb ran the DROP: now it names one table."""
    from chdb import dbapi

    con = dbapi.connect()
    cur = con.cursor()
    cur.execute("CREATE TABLE sentinel (x Int64) ENGINE = Memory")
    cur.execute("INSERT INTO sentinel VALUES (1)")
    create_tables("clickhouse", con, {**odd_names(""), "run": "run", "judgments": 'j"', "system": "system",
                                      "query_id": "query_id", "doc_id": "doc_id", "score": "score", "rel": "rel"})
    hostile = 'j\\" AS input_rows); DROP TABLE sentinel; --'
    with pytest.raises(sqlndcg.InputError, match=r"^judgments table .*: no table or view of that name in the "
                                                 r"ClickHouse connection"):
        sqlndcg.evaluate("run", hostile, METRICS, con=con, group_by="system")
    assert "sentinel" in table_names("clickhouse", con)
    cur = con.cursor()
    cur.execute("SELECT x FROM sentinel")
    assert [tuple(r) for r in cur.fetchall()] == [(1,)]
    # a table of that very name is evaluated as any other
    cur.execute("DROP TABLE run")
    create_tables("clickhouse", con, {"run": "run", "judgments": hostile, "system": "system", "query_id": "query_id",
                                      "doc_id": "doc_id", "score": "score", "rel": "rel"})
    got = sqlndcg.evaluate("run", hostile, METRICS, con=con, group_by="system").per_query.rows
    assert_expected(got)
    assert "sentinel" in table_names("clickhouse", con)


#: Every dialect to_sql writes, and the sqlglot dialect that reads its output back.
DIALECTS = ["duckdb", "sqlite", "postgres", "redshift", "snowflake", "bigquery", "spark", "databricks", "tsql",
            "mysql", "clickhouse", "trino", "presto", "athena", "hive", "datafusion"]


#: sqlglot before 30.29 cannot read BigQuery's backslash escapes in a quoted identifier (it keeps `a\\\\b` as
#: a\\\\b and fails on `a\\``b`), while BigQuery reads them as in its string literals ("Quoted identifiers" in its
#: lexical reference), as sqlglot does from 30.29. fakesnow (test extra) pins an older sqlglot, so there the tests
#: read BigQuery's backquoted names with a reader written from that reference.
_OLD_SQLGLOT_BIGQUERY = tuple(int(x) for x in sqlglot.__version__.split(".")[:2]) < (30, 29)
_BIGQUERY_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_BACKQUOTED = re.compile(r"`((?:[^`\\]|\\.)*)`", re.S)


def bigquery_names(sql: str) -> set[str]:
    """Every backquoted name in BigQuery SQL, its escapes read as BigQuery reads them."""
    def decode(text: str) -> str:
        return re.sub(r"\\(.)", lambda m: _BIGQUERY_ESCAPES.get(m.group(1), m.group(1)), text, flags=re.S)
    return {decode(found) for found in _BACKQUOTED.findall(sql)}


def test_the_bigquery_reader_reads_its_escapes():
    assert bigquery_names("SELECT `a\\\\b`, `a\\`b`, `x\\ny` FROM `t`") == {"a\\b", "a`b", "x\ny", "t"}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_odd_names_round_trip_through_to_sql_in_every_dialect(dialect):
    """The SQL names exactly the tables and columns given: parsed back in the dialect, every identifier is one
    of the original names (a backslash read as an escape, `a\\b` as `a<backspace>`, once changed them)."""
    from sqlndcg.core import render

    reader = render.sqlglot_dialect(dialect)
    for odd in ODD.values():
        names = odd_names(odd)
        write = dict(dialect=dialect, group_by=names["system"], query_id=names["query_id"],
                     doc_id=names["doc_id"], score=names["score"], rel=names["rel"])
        if dialect == "bigquery" and _OLD_SQLGLOT_BIGQUERY and "`" in odd:
            # that sqlglot cannot tokenize the escaped backquote it would have to format: refused, never mangled
            with pytest.raises(sqlndcg.SettingError, match="cannot be written in dialect 'bigquery'"):
                sqlndcg.to_sql(names["run"], names["judgments"], METRICS, **write)
            continue
        sql = sqlndcg.to_sql(names["run"], names["judgments"], METRICS, **write)
        if dialect == "bigquery" and _OLD_SQLGLOT_BIGQUERY:
            quoted = bigquery_names(sql)
            assert {n for n in quoted if odd in n} == set(names.values()), (dialect, repr(odd))
            assert f"FROM `{render.quote(names['run'], dialect)[1:-1]}`" in sql
            continue
        tree = sqlglot.parse_one(sql, read=reader)
        quoted = {i.this for i in tree.find_all(exp.Identifier) if i.quoted}
        odd_ones = {n for n in quoted if odd in n}
        assert odd_ones == set(names.values()), (dialect, repr(odd), odd_ones ^ set(names.values()))
        tables = {t.name for t in tree.find_all(exp.Table)}
        assert {names["run"], names["judgments"]} <= tables


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_quote_macro_writes_what_the_dialect_reads_back(dialect):
    from sqlndcg.core import render

    for name in ["a\\b", "a\\", "\\", 'a\\"b', "a`b", "\\`", 'a"b', "a]b", "a'b", "a\nb", "a\rb", "a\tb", "é€😀",
                 'x"; DROP TABLE t; --', "a\\nb"]:
        quoted = render.quote(name, dialect)
        if dialect == "bigquery" and _OLD_SQLGLOT_BIGQUERY:
            assert bigquery_names(f"SELECT {quoted} FROM t") == {name}, (dialect, name, quoted)
            continue
        tree = sqlglot.parse_one(f"SELECT {quoted} FROM t", read=render.sqlglot_dialect(dialect))
        assert tree.find(exp.Identifier).this == name, (dialect, name, quoted)


# ------------------------------------------------------------------------------------------------------------
# passwords in connection strings

SECRET = "hunter2Secret"
#: --database values holding SECRET, each failing in a different place (refused port, bad port, a password libpq
#: quotes back, an unknown scheme, a missing SQLite file, a libpq keyword string taken for a DuckDB file).
DATABASES = {
    "refused": f"postgresql://alice:{SECRET}@127.0.0.1:1/db",
    "bad port": f"postgres://alice:{SECRET}@127.0.0.1:notaport/db",
    "bad escape": f"postgresql://alice:{SECRET}%zz@127.0.0.1:1/db",
    "at sign": f"postgresql://alice:{SECRET}@x@127.0.0.1:1/db",
    "query": f"postgresql:///db?host=127.0.0.1&port=1&password={SECRET}",
    "unknown scheme": f"mysql://alice:{SECRET}@127.0.0.1/db",
    "sqlite": f"sqlite://alice:{SECRET}@/no/such/file.db",
    "keywords": f"host=127.0.0.1 port=1 user=alice password={SECRET}",
    "quoted keyword": f"host=127.0.0.1 port=1 password='{SECRET} x'",
}


@pytest.mark.parametrize("case", list(DATABASES))
def test_a_connection_string_error_never_shows_the_password_python_api(case):
    from sqlndcg.verbs import trec_eval
    from sqlndcg.run.connect import open_database

    with pytest.raises(sqlndcg.InputError) as raised:
        open_database(DATABASES[case])
    message = str(raised.value)
    assert SECRET not in message and "***" in message and len(message.splitlines()) == 1
    assert message.startswith("--database ")
    with pytest.raises(sqlndcg.InputError) as raised:
        trec_eval.compute(trec_eval.Options(qrels=sqlndcg.example("qrels"), run=sqlndcg.example("run"),
                                            database=DATABASES[case]))
    assert SECRET not in str(raised.value) and "***" in str(raised.value)


def test_a_url_password_is_redacted_as_user_stars():
    from sqlndcg.run.connect import open_database, redact

    assert redact("postgresql://user:pw@host/db") == "postgresql://user:***@host/db"
    assert redact("host=h password='a b' user=u") == "host=h password=*** user=u"
    assert redact("postgresql://user@host/db") == "postgresql://user@host/db"
    with pytest.raises(sqlndcg.InputError, match=r"^--database 'postgresql://alice:\*\*\*@127\.0\.0\.1:1/db' cannot "
                                                 r"be opened: connection failed"):
        open_database(DATABASES["refused"])


@pytest.mark.parametrize("verb", ["evaluate", "sql", "trec_eval"])
@pytest.mark.parametrize("case", ["refused", "bad escape", "unknown scheme", "keywords"])
def test_a_connection_string_error_never_shows_the_password_command_line(verb, case):
    import subprocess
    import sys

    database = DATABASES[case]
    if verb == "trec_eval":
        argv = ["trec_eval", "--database", database, sqlndcg.example("qrels"), sqlndcg.example("run")]
    else:
        argv = [verb, "--run", "runs", "--judgments", "qrels", "--database", database]
    done = subprocess.run([sys.executable, "-m", "sqlndcg", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert SECRET not in done.stderr + done.stdout
    assert done.stderr.startswith("sqlndcg: error: --database ") and "***" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_wrong_password_on_a_real_server_is_not_shown(postgres):
    import subprocess
    import sys

    url = f"postgresql://{postgres.user}:{SECRET}@{postgres.host}:{postgres.port}/{postgres.dbname_c}"
    done = subprocess.run([sys.executable, "-m", "sqlndcg", "evaluate", "--run", "r", "--judgments", "j",
                           "--database", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "password authentication failed" in done.stderr, done.stderr
    assert SECRET not in done.stderr and f"{postgres.user}:***@" in done.stderr


# ------------------------------------------------------------------------------------------------------------
# the caller's PostgreSQL transaction

DRIVERS = ["psycopg", "psycopg-autocommit", "psycopg2", "psycopg2-autocommit"]


def pg_connect(server, driver: str):
    autocommit = driver.endswith("-autocommit")
    if driver.startswith("psycopg2"):
        import psycopg2

        con = psycopg2.connect(server.dsn())
        con.autocommit = autocommit
        return con
    import psycopg

    return psycopg.connect(server.dsn(), autocommit=autocommit)


def pg_status(con) -> int:
    """libpq's transaction status: 0 idle, 2 in a transaction, 3 in a failed transaction."""
    return int(con.info.transaction_status)


def pg_rows(con, sql: str) -> list[tuple]:
    cur = con.cursor()
    cur.execute(sql)
    rows = [tuple(r) for r in cur.fetchall()]
    cur.close()
    return rows


@pytest.fixture
def pg_tables(postgres):
    """Tables run_t, qrels_t (the test's rows, committed) and an empty `kept` table the caller writes to."""
    import psycopg

    with psycopg.connect(postgres.dsn(), autocommit=True) as con:
        cur = con.cursor()
        cur.execute("DROP TABLE IF EXISTS run_t, qrels_t, qrels_twice, kept")
        cur.execute("CREATE TABLE run_t (system TEXT, query_id TEXT, doc_id TEXT, score DOUBLE PRECISION)")
        cur.executemany("INSERT INTO run_t VALUES (%s, %s, %s, %s)", RUN)
        cur.execute("CREATE TABLE qrels_t (query_id TEXT, doc_id TEXT, rel INTEGER)")
        cur.executemany("INSERT INTO qrels_t VALUES (%s, %s, %s)", QRELS)
        cur.execute("CREATE TABLE qrels_twice AS SELECT * FROM qrels_t UNION ALL SELECT * FROM qrels_t")
        cur.execute("CREATE TABLE kept (x INTEGER)")
    yield postgres
    with psycopg.connect(postgres.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS run_t, qrels_t, qrels_twice, kept")


def temporary_tables(con) -> int:
    return pg_rows(con, "SELECT COUNT(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema() "
                        "AND relkind = 'r'")[0][0]


def failing_calls():
    """sqlndcg calls that fail in different places: a statement the server refuses (a missing table), a check that
    refuses rows after its queries ran, a frame whose copy fails half way (a temporary table was made)."""
    qrels = pd.DataFrame(QRELS, columns=["query_id", "doc_id", "rel"])
    bad_frame = pa.table({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "rel": pa.array([1, 2**64 - 1],
                                                                                         pa.uint64())})
    return {
        "missing table": (lambda con: sqlndcg.evaluate("run_t", "no_such_table", METRICS, con=con),
                          sqlndcg.InputError),
        "repeated judgments": (lambda con: sqlndcg.evaluate("run_t", "qrels_twice", METRICS, con=con,
                                                            group_by="system"), sqlndcg.DataError),
        "frame copy": (lambda con: sqlndcg.evaluate("run_t", bad_frame, METRICS, con=con), sqlndcg.InputError),
        "missing column in to_sql": (lambda con: sqlndcg.to_sql("run_t", qrels, METRICS, con=con, rel="nope"),
                                     sqlndcg.InputError),
    }


@pytest.mark.parametrize("failure", list(failing_calls()))
@pytest.mark.parametrize("driver", DRIVERS)
def test_the_callers_uncommitted_insert_survives_a_failing_call(pg_tables, driver, failure):
    call, error = failing_calls()[failure]
    con = pg_connect(pg_tables, driver)
    try:
        cur = con.cursor()
        if driver.endswith("-autocommit"):
            cur.execute("BEGIN")
        cur.execute("INSERT INTO kept VALUES (7)")
        with pytest.raises(error):
            call(con)
        assert pg_status(con) == 2, "the caller's transaction is still open and usable"
        assert pg_rows(con, "SELECT x FROM kept") == [(7,)]
        assert temporary_tables(con) == 0
        cur = con.cursor()
        cur.execute("INSERT INTO kept VALUES (8)")
        cur.execute("COMMIT") if driver.endswith("-autocommit") else con.commit()
        assert pg_status(con) == 0
    finally:
        con.close()
    with pg_connect(pg_tables, "psycopg-autocommit") as other:
        assert sorted(pg_rows(other, "SELECT x FROM kept")) == [(7,), (8,)]


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_successful_call_leaves_the_callers_transaction_open_and_uncommitted(pg_tables, driver):
    con = pg_connect(pg_tables, driver)
    try:
        cur = con.cursor()
        if driver.endswith("-autocommit"):
            cur.execute("BEGIN")
        cur.execute("INSERT INTO kept VALUES (7)")
        qrels = pd.DataFrame(QRELS, columns=["query_id", "doc_id", "rel"])
        got = sqlndcg.evaluate("run_t", qrels, METRICS, con=con, group_by="system").per_query.rows
        assert_expected(got)
        assert "run_t" in sqlndcg.to_sql("run_t", "qrels_t", METRICS, con=con)
        assert pg_status(con) == 2 and temporary_tables(con) == 0
        with pg_connect(pg_tables, "psycopg-autocommit") as other:  # not committed by sqlndcg
            assert pg_rows(other, "SELECT x FROM kept") == []
        assert pg_rows(con, "SELECT x FROM kept") == [(7,)]
        cur = con.cursor()
        cur.execute("COMMIT") if driver.endswith("-autocommit") else con.commit()
    finally:
        con.close()
    with pg_connect(pg_tables, "psycopg-autocommit") as other:
        assert pg_rows(other, "SELECT x FROM kept") == [(7,)]


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_call_on_a_connection_without_a_transaction_leaves_none_open(pg_tables, driver):
    con = pg_connect(pg_tables, driver)
    try:
        qrels = pd.DataFrame(QRELS, columns=["query_id", "doc_id", "rel"])
        got = sqlndcg.evaluate("run_t", qrels, METRICS, con=con, group_by="system").per_query.rows
        assert_expected(got)
        assert pg_status(con) == 0
        assert "run_t" in sqlndcg.to_sql("run_t", "qrels_t", METRICS, con=con)
        assert pg_status(con) == 0
        for call, error in failing_calls().values():
            with pytest.raises(error):
                call(con)
            assert pg_status(con) == 0
        assert temporary_tables(con) == 0  # (this query opens a transaction without autocommit)
    finally:
        con.close()


def test_the_trec_eval_verb_keeps_the_callers_transaction(pg_tables, tmp_path):
    from sqlndcg.verbs import trec_eval

    run, qrels = tmp_path / "a.run", tmp_path / "a.qrels"
    run.write_text("".join(f"{q} Q0 {d} {i} {s} tag\n" for i, (_, q, d, s) in enumerate(RUN[:4])))
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS))
    options = trec_eval.Options(qrels=str(qrels), run=str(run), measures=["official"], per_query=True)
    on_duckdb = trec_eval.compute(options)
    con = pg_connect(pg_tables, "psycopg")
    try:
        con.cursor().execute("INSERT INTO kept VALUES (7)")
        assert trec_eval.compute(options, con=con) == on_duckdb
        assert pg_status(con) == 2 and temporary_tables(con) == 0
        assert pg_rows(con, "SELECT x FROM kept") == [(7,)]
        con.rollback()
        assert trec_eval.compute(options, con=con) == on_duckdb
        assert pg_status(con) == 0
    finally:
        con.close()


def test_a_connection_whose_transaction_already_failed_is_refused_by_name(pg_tables):
    import psycopg

    con = pg_connect(pg_tables, "psycopg")
    try:
        with pytest.raises(psycopg.Error):
            con.execute("SELECT * FROM no_such_table")
        with pytest.raises(sqlndcg.InputError, match=r"^the PostgreSQL connection's transaction was aborted by an "
                                                     r"earlier error; end it \(con\.rollback\(\)\)"):
            sqlndcg.evaluate("run_t", "qrels_t", METRICS, con=con)
        con.rollback()
        assert_expected(sqlndcg.evaluate("run_t", "qrels_t", METRICS, con=con, group_by="system").per_query.rows)
    finally:
        con.close()


@pytest.mark.parametrize("driver", ["psycopg", "psycopg2"])
def test_a_closed_connection_is_refused_by_name(pg_tables, driver):
    con = pg_connect(pg_tables, driver)
    con.close()
    with pytest.raises(sqlndcg.InputError, match=r"^the PostgreSQL connection is closed or broken; pass an open "
                                                 r"connection$"):
        sqlndcg.evaluate("run_t", "qrels_t", METRICS, con=con)


# ------------------------------------------------------------------------------------------------------------
# values written into SQL

@pytest.mark.parametrize("engine", ["clickhouse", "sqlite"])
def test_a_baseline_system_with_a_backslash_and_a_quote_is_one_string_literal(engine):
    """compare() writes the baseline's name as a literal: ClickHouse reads `\\'` there as a quote that does not
    close, so a doubled quote after a backslash once ended the literal early (a syntax error, raw from chdb)."""
    baseline = "b\\' OR 1=1) ; DROP TABLE sentinel; --"
    run = [("a", "q1", "d1", 1.0), ("a", "q1", "d2", 0.5), (baseline, "q1", "d2", 1.0), (baseline, "q1", "d1", 0.5),
           ("a", "q2", "d1", 1.0), (baseline, "q2", "d1", 1.0)]
    qrels = [("q1", "d1", 1), ("q2", "d1", 1)]
    if engine == "clickhouse":
        from chdb import dbapi

        con = dbapi.connect()
    else:
        con = sqlite3.connect(":memory:")
    names = {"run": "run", "judgments": "qrels", "system": "system", "query_id": "query_id", "doc_id": "doc_id",
             "score": "score", "rel": "rel"}
    create_tables(engine, con, names, run, qrels)
    got = sqlndcg.compare("run", "qrels", ["ndcg@10"], system="system", baseline=baseline, con=con)
    want = sqlndcg.compare(pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]),
                           pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]), ["ndcg@10"], system="system",
                           baseline=baseline)
    rows = got.table.to_dicts()
    assert len(rows) == 1 and rows[0]["system"] == "a" and rows[0]["baseline"] == baseline
    assert math.isclose(rows[0]["difference"], want.table.to_dicts()[0]["difference"], abs_tol=1e-12)
    assert math.isclose(rows[0]["difference"], 1.0 - (1 / math.log2(3) + 1) / 2, abs_tol=1e-12)
