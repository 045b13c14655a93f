"""Smoke tests of the engine fixtures in tests/servers.py: the servers start, and behave as the tests rely on."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine

WORDS = ["dóc", "DOC", "Doc", "doc"]
BYTE_ORDER_DESC = sorted(WORDS, key=lambda s: s.encode("utf-8"), reverse=True)
QUERY = "SELECT x FROM (VALUES ('dóc'),('DOC'),('Doc'),('doc')) t(x) ORDER BY x {collate} DESC"


def _order(postgres, dbname, collate=""):
    with postgres.connect(dbname) as conn:
        return [r[0] for r in conn.execute(QUERY.format(collate=collate)).fetchall()]


# --- PostgreSQL ------------------------------------------------------------------------------------------------

def test_postgres_databases(postgres):
    with postgres.connect(postgres.dbname_c) as conn:
        rows = conn.execute(
            "SELECT datname, datlocprovider, datcollate, datctype, pg_encoding_to_char(encoding) "
            "FROM pg_database WHERE datname = ANY(%s) ORDER BY datname",
            [list(postgres.databases)],
        ).fetchall()
        assert conn.autocommit
        assert conn.execute("SHOW TimeZone").fetchone()[0] == "UTC"
    by_name = {r[0]: r[1:] for r in rows}
    assert by_name[postgres.dbname_c][0] == "c" and by_name[postgres.dbname_c][1:3] == ("C", "C")
    assert by_name[postgres.dbname_icu][0] == "i"
    assert all(r[4] == "UTF8" for r in rows)


def test_postgres_c_collation_is_byte_order(postgres):
    assert _order(postgres, postgres.dbname_c) == BYTE_ORDER_DESC


def test_postgres_icu_collation_is_linguistic(postgres):
    icu = _order(postgres, postgres.dbname_icu)
    assert sorted(icu) == sorted(WORDS)
    assert icu != BYTE_ORDER_DESC
    # ICU en-US: accents are a secondary difference, case a tertiary one (lower before upper ascending).
    assert icu == ["dóc", "DOC", "Doc", "doc"]


@pytest.mark.parametrize("db", ["dbname_c", "dbname_icu"])
def test_postgres_collate_c_is_byte_order_everywhere(postgres, db):
    assert _order(postgres, getattr(postgres, db), collate='COLLATE "C"') == BYTE_ORDER_DESC


def test_postgres_dsn_and_password_auth(postgres):
    import psycopg

    assert postgres.host == "127.0.0.1"
    with psycopg.connect(postgres.dsn(postgres.dbname_icu)) as conn:
        assert conn.execute("SELECT current_database(), current_user").fetchone() == (
            postgres.dbname_icu, postgres.user)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(postgres.dsn().replace(postgres.password, "wrong")).close()


def test_dbt_postgres_profile_connects(postgres, tmp_path):
    dbt = Path(sys.executable).parent / "dbt"
    assert dbt.exists(), f"dbt not found next to {sys.executable}: pip install -e '.[test]'"
    t = postgres.dbt_target(postgres.dbname_c, schema="dbt_smoke")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "one.sql").write_text("select 1 as x\n")
    (tmp_path / "dbt_project.yml").write_text(
        "name: smoke\nversion: '1.0'\nconfig-version: 2\nprofile: smoke\nmodel-paths: ['models']\n"
    )
    (tmp_path / "profiles.yml").write_text(
        "smoke:\n  target: pg\n  outputs:\n    pg:\n"
        + "".join(f"      {k}: {v!r}\n" if isinstance(v, str) else f"      {k}: {v}\n" for k, v in t.items())
    )
    env = dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false", DO_NOT_TRACK="1", DBT_VERSION_CHECK="false",
               DBT_LOG_PATH=str(tmp_path / "logs"), DBT_TARGET_PATH=str(tmp_path / "target"))
    res = subprocess.run(
        [str(dbt), "run", "--project-dir", str(tmp_path), "--profiles-dir", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    with postgres.connect(postgres.dbname_c) as conn:
        assert conn.execute("SELECT x FROM dbt_smoke.one").fetchall() == [(1,)]
        conn.execute("DROP SCHEMA dbt_smoke CASCADE")


# --- MariaDB ---------------------------------------------------------------------------------------------------

def test_mariadb_database_is_case_insensitive_and_binary_is_byte_order(mariadb):
    import pymysql

    assert mariadb.host == "127.0.0.1" and "MariaDB" in mariadb.version
    con = mariadb.connect()
    try:
        with con.cursor() as cur:
            cur.execute("SELECT @@collation_database, @@character_set_database, 'Doc' = 'doc', "
                        "'Doc' COLLATE utf8mb4_bin = 'doc', DATABASE(), CURRENT_USER()")
            collation, charset, folded, binary, database, user = cur.fetchone()
            assert (collation, charset, folded, binary, database) == (
                "utf8mb4_general_ci", "utf8mb4", 1, 0, mariadb.database)
            assert user.startswith(mariadb.user + "@")
            words = " UNION ALL ".join(f"SELECT '{w}' AS x" for w in WORDS)
            cur.execute(f"SELECT x FROM ({words}) AS t ORDER BY CAST(x AS BINARY) DESC")
            assert [r[0] for r in cur.fetchall()] == BYTE_ORDER_DESC
    finally:
        con.close()
    with pytest.raises(pymysql.err.OperationalError, match="Access denied"):
        pymysql.connect(host=mariadb.host, port=mariadb.port, user=mariadb.user, password="wrong").close()


# --- Spark -----------------------------------------------------------------------------------------------------

def test_spark_dataframe_round_trip(spark):
    rows = [("q1", "d1", 3), ("q1", "d2", 0), ("q2", "d1", 1)]
    df = spark.createDataFrame(rows, "qid string, docid string, rel int")
    assert sorted(tuple(r) for r in df.collect()) == sorted(rows)
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.sparkContext.master == "local[2]"


def test_spark_sql_window_function(spark):
    spark.createDataFrame(
        [("q1", "a", 0.9), ("q1", "b", 0.5), ("q1", "c", 0.7), ("q2", "a", 0.1)], "qid string, doc string, s double"
    ).createOrReplaceTempView("smoke_run")
    got = spark.sql(
        "SELECT qid, doc, row_number() OVER (PARTITION BY qid ORDER BY s DESC) AS rk "
        "FROM smoke_run ORDER BY qid, rk"
    ).collect()
    assert [tuple(r) for r in got] == [("q1", "a", 1), ("q1", "c", 2), ("q1", "b", 3), ("q2", "a", 1)]
