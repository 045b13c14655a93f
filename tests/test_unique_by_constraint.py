"""Issue 19's decision: the check for repeated (query, document) pairs is skipped where the engine itself proves
them unique (a PRIMARY KEY or UNIQUE constraint DuckDB enforces, on some of the input's key columns), and the
account says so; everywhere else the pairs are counted, and repeated ones refused."""

from __future__ import annotations

import duckdb
import pytest

import sqlndcg
from sqlndcg.run.engines import duckdb_engine

METRICS = ["ndcg@5", "map", "p@3"]


def _database(run_key: str = "", judgments_key: str = "", group: bool = False):
    con = duckdb.connect()
    system = "system VARCHAR NOT NULL, " if group else ""
    con.execute(f"CREATE TABLE run ({system}query_id VARCHAR, doc_id VARCHAR, score DOUBLE{run_key})")
    con.execute(f"CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, rel INTEGER{judgments_key})")
    systems = "('a'), ('b')" if group else "(NULL)"
    columns = "s.name, " if group else ""
    con.execute(f"INSERT INTO run SELECT {columns}'q' || (i // 10), 'd' || (i % 10), ((i * 37) % 11) / 10.0 "
                f"FROM range(120) AS t(i), (VALUES {systems}) AS s(name)")
    con.execute("INSERT INTO qrels SELECT 'q' || (i // 10), 'd' || (i % 10), (i * 7) % 4 FROM range(0, 130, 3) AS t(i)")
    con.execute("CREATE TABLE run_plain AS SELECT * FROM run")
    con.execute("CREATE TABLE qrels_plain AS SELECT * FROM qrels")
    return con


def _account_statements(monkeypatch) -> list[str]:
    seen = []
    fetch = duckdb_engine.DuckDBEngine.fetch_arrow

    def recording(self, sql, *args, **kwargs):
        if "run_rows" in sql and "judged_totals" in sql:
            seen.append(sql)
        return fetch(self, sql, *args, **kwargs)

    monkeypatch.setattr(duckdb_engine.DuckDBEngine, "fetch_arrow", recording)
    return seen


def test_constrained_inputs_skip_the_repeat_window_and_give_the_same_numbers(monkeypatch):
    con = _database(", PRIMARY KEY (query_id, doc_id)", ", UNIQUE (query_id, doc_id)")
    seen = _account_statements(monkeypatch)
    fast = sqlndcg.evaluate("run", "qrels", METRICS, con=con)
    checked = sqlndcg.evaluate("run_plain", "qrels_plain", METRICS, con=con)
    assert fast.unique_by_constraint == {"run": "PRIMARY KEY (query_id, doc_id)",
                                         "judgments": "UNIQUE (query_id, doc_id)"}
    assert checked.unique_by_constraint == {}
    assert "LAG(" not in seen[0] and seen[1].count("LAG(") == 6  # three per input (account.sql, _second_copy)
    assert fast.per_query.rows == checked.per_query.rows and fast.summary.rows == checked.summary.rows
    assert fast.account.rows == checked.account.rows
    text = fast.account_text().splitlines()
    assert text[1:] == [
        "run: (query, document) pairs unique by constraint, PRIMARY KEY (query_id, doc_id): not checked for repeats",
        "judgments: (query, document) pairs unique by constraint, UNIQUE (query_id, doc_id): not checked for repeats"]
    assert checked.account_text().count("\n") == 0
    assert fast.to_dict()["unique_by_constraint"]["run"] == "PRIMARY KEY (query_id, doc_id)"
    assert "unique_by_constraint" not in checked.to_dict()


def test_a_key_on_the_query_and_document_covers_a_run_with_a_group_column():
    con = _database(", PRIMARY KEY (query_id, doc_id, system)", group=True)
    got = sqlndcg.evaluate("run", "qrels", METRICS, con=con, group_by="system")
    assert got.unique_by_constraint == {"run": "PRIMARY KEY (query_id, doc_id, system)"}
    want = sqlndcg.evaluate("run_plain", "qrels_plain", METRICS, con=con, group_by="system")
    assert got.per_query.rows == want.per_query.rows and got.account.rows == want.account.rows


@pytest.mark.parametrize("run_key", [
    ", PRIMARY KEY (query_id, doc_id, score)",  # wider than the key: the same pair may occur with two scores
    ", UNIQUE (query_id, score)",                # on a column outside the key
])
def test_a_constraint_that_does_not_cover_the_pairs_leaves_them_counted(run_key, monkeypatch):
    con = _database(run_key)
    seen = _account_statements(monkeypatch)
    got = sqlndcg.evaluate("run", "qrels", METRICS, con=con)
    assert got.unique_by_constraint == {} and seen[0].count("LAG(") == 6  # both inputs' windows


def test_repeats_are_still_refused_where_no_constraint_rules_them_out():
    con = _database(", PRIMARY KEY (query_id, doc_id, score)")
    con.execute("INSERT INTO run VALUES ('q0', 'd0', 0.99)")
    with pytest.raises(sqlndcg.DataError, match=r"run table 'run': 1 \(query, document\) pairs occur more than once"):
        sqlndcg.evaluate("run", "qrels", METRICS, con=con)


def test_views_and_names_in_several_schemas_are_not_taken_on_trust():
    con = _database(", PRIMARY KEY (query_id, doc_id)")
    con.execute("CREATE VIEW run_view AS SELECT * FROM run")
    assert sqlndcg.evaluate("run_view", "qrels", METRICS, con=con).unique_by_constraint == {}
    con.execute("CREATE SCHEMA other")
    con.execute("CREATE TABLE other.run AS SELECT * FROM run_plain")
    assert sqlndcg.evaluate("run", "qrels", METRICS, con=con).unique_by_constraint == {}


def _repeated_pairs_view(con, name: str, temporary: bool) -> None:
    """A view of `name` over the unconstrained copy, with one (query, document) pair repeated."""
    con.execute(f"CREATE {'TEMP ' if temporary else ''}VIEW {name} AS SELECT * FROM run_plain "
                "UNION ALL SELECT * FROM run_plain WHERE query_id = 'q0' AND doc_id = 'd0'")


@pytest.mark.parametrize("temporary", [False, True], ids=["view", "temp view"])
def test_a_constraint_of_a_same_named_table_in_another_schema_does_not_vouch_for_a_view(temporary):
    """Issue 28: a view with repeated pairs, named like a constrained table of another schema, was trusted: the
    repeat check was skipped and NDCG@5 came out above 1. Only the very relation read counts."""
    con = _database()
    con.execute("CREATE SCHEMA other")
    con.execute("CREATE TABLE other.run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE, PRIMARY KEY (query_id, doc_id))")
    con.execute("DROP TABLE run")
    _repeated_pairs_view(con, "run", temporary)
    with pytest.raises(sqlndcg.DataError, match=r"run table 'run': 1 \(query, document\) pairs occur more than once"):
        sqlndcg.evaluate("run", "qrels", METRICS, con=con)


@pytest.mark.parametrize("temporary", [False, True], ids=["view", "temp view"])
def test_a_constraint_of_a_same_named_table_in_an_attached_database_does_not_vouch_for_a_view(temporary, tmp_path):
    con = _database()
    con.execute(f"ATTACH '{tmp_path / 'other.duckdb'}' AS other_db")
    con.execute("CREATE TABLE other_db.run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE, "
                "PRIMARY KEY (query_id, doc_id))")
    con.execute("DROP TABLE run")
    _repeated_pairs_view(con, "run", temporary)
    with pytest.raises(sqlndcg.DataError, match=r"1 \(query, document\) pairs occur more than once"):
        sqlndcg.evaluate("run", "qrels", METRICS, con=con)


def test_a_temporary_table_shadowing_a_constrained_one_is_counted():
    con = _database(", PRIMARY KEY (query_id, doc_id)")
    con.execute("CREATE TEMP TABLE run AS SELECT * FROM run_plain UNION ALL "
                "SELECT * FROM run_plain WHERE query_id = 'q0' AND doc_id = 'd0'")
    with pytest.raises(sqlndcg.DataError, match=r"1 \(query, document\) pairs occur more than once"):
        sqlndcg.evaluate("run", "qrels", METRICS, con=con)


def test_a_constrained_temporary_table_is_trusted():
    con = _database()
    con.execute("CREATE TEMP TABLE run_t (query_id VARCHAR, doc_id VARCHAR, score DOUBLE, PRIMARY KEY (query_id, doc_id))")
    con.execute("INSERT INTO run_t SELECT * FROM run_plain")
    got = sqlndcg.evaluate("run_t", "qrels", METRICS, con=con)
    assert got.unique_by_constraint == {"run": "PRIMARY KEY (query_id, doc_id)"}
    assert got.per_query.rows == sqlndcg.evaluate("run_plain", "qrels", METRICS, con=con).per_query.rows


def test_partitions_pass_the_constraint_to_every_bucket():
    con = _database(", PRIMARY KEY (query_id, doc_id)", ", PRIMARY KEY (query_id, doc_id)")
    got = sqlndcg.evaluate("run", "qrels", METRICS, con=con, partitions=3)
    want = sqlndcg.evaluate("run_plain", "qrels_plain", METRICS, con=con)
    assert set(got.unique_by_constraint) == {"run", "judgments"}
    assert got.account.rows == want.account.rows and got.summary.rows == want.summary.rows


@pytest.mark.engine
def test_postgres_constraints_are_read_from_its_catalog(postgres):
    """PostgreSQL: its PRIMARY KEY and UNIQUE constraints skip the count too (the statements then hold no window over
    the pairs); a DEFERRABLE one, a view, or a constraint on other columns does not, and repeats are refused."""
    rows = [(f"q{i // 10}", f"d{i % 10}", ((i * 37) % 11) / 10.0) for i in range(120)]
    labels = [(f"q{i // 10}", f"d{i % 10}", (i * 7) % 4) for i in range(0, 130, 3)]
    with postgres.connect(postgres.dbname_c) as con:
        tables = {"u_run": ", PRIMARY KEY (query_id, doc_id)", "u_qrels": ", UNIQUE (doc_id, query_id)",
                  "u_run_plain": "", "u_qrels_plain": "",
                  "u_run_deferred": ", UNIQUE (query_id, doc_id) DEFERRABLE INITIALLY IMMEDIATE",
                  "u_run_wide": ", PRIMARY KEY (query_id, doc_id, score)"}
        for name, key in tables.items():
            third = "rel INTEGER" if "qrels" in name else "score DOUBLE PRECISION"
            con.execute(f"CREATE TEMPORARY TABLE {name} (query_id TEXT, doc_id TEXT, {third}{key})")
            with con.cursor().copy(f"COPY {name} FROM STDIN") as copy:
                for row in labels if "qrels" in name else rows:
                    copy.write_row(row)
        con.execute("CREATE TEMPORARY VIEW u_run_view AS SELECT * FROM u_run")
        fast = sqlndcg.evaluate("u_run", "u_qrels", METRICS, con=con)
        assert fast.unique_by_constraint == {"run": "PRIMARY KEY (query_id, doc_id)",
                                             "judgments": "UNIQUE (doc_id, query_id)"}
        want = sqlndcg.evaluate("u_run_plain", "u_qrels_plain", METRICS, con=con)
        assert want.unique_by_constraint == {}
        assert fast.per_query.rows == want.per_query.rows and fast.account.rows == want.account.rows
        assert len(fast.per_query.rows) == 13 and fast.summary.rows == want.summary.rows  # q12: judged only
        assert ("run: (query, document) pairs unique by constraint, PRIMARY KEY (query_id, doc_id): not checked "
                "for repeats") in fast.account_text()
        for counted in ("u_run_deferred", "u_run_wide", "u_run_view"):
            got = sqlndcg.evaluate(counted, "u_qrels_plain", METRICS, con=con)
            assert got.unique_by_constraint == {} and got.per_query.rows == want.per_query.rows, counted
        con.execute("INSERT INTO u_run_wide VALUES ('q0', 'd0', 0.99)")
        with pytest.raises(sqlndcg.DataError, match=r"run table 'u_run_wide': 1 \(query, document\) pairs occur"):
            sqlndcg.evaluate("u_run_wide", "u_qrels", METRICS, con=con)
