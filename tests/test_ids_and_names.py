"""How ids compare and what results are called: the tie-break under preset="trec_eval" (ids as text, as trec_eval
compares them), statements that do not depend on a collation (with and without a connection), and output column
names that never shadow each other."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

import sqlndcg
from adversarial import ALL_METRICS, adversarial_rows
from sqlndcg import SettingError

# Two documents tied at the top, doc 10 relevant. trec_eval sorts ties by doc id as strings, descending
# (strcmp: "9" > "10"), so 9 ranks first: RR = 1/2, NDCG@1 = 0. In numeric order 10 ranks first: RR = 1, NDCG@1 = 1.
TIED_RUN = {"query_id": [1, 1], "doc_id": [9, 10], "score": [1.0, 1.0]}
TIED_QRELS = {"query_id": [1], "doc_id": [10], "rel": [1]}
TEXT_ORDER = {"rr": 0.5, "ndcg@1": 0.0}
NUMERIC_ORDER = {"rr": 1.0, "ndcg@1": 1.0}


def _values(res):
    (row,) = res.per_query.to_dicts()
    return {m: row[m] for m in ("rr", "ndcg@1")}


def _write(kind, path, table):
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    if kind == "parquet":
        pq.write_table(table, path)
    else:
        pacsv.write_csv(table, path)
    return str(path)


def _as_input(kind, run, qrels, tmp_path):
    """The two tables as `kind` of input: frames, Parquet or CSV files, or tables of a DuckDB connection (returned)."""
    if kind in ("parquet", "csv"):
        return _write(kind, tmp_path / f"run.{kind}", run), _write(kind, tmp_path / f"qrels.{kind}", qrels), None
    if kind == "table":
        con = duckdb.connect()
        con.register("run_frame", run)
        con.register("qrels_frame", qrels)
        con.execute("CREATE TABLE runs AS SELECT * FROM run_frame")
        con.execute("CREATE TABLE qrels AS SELECT * FROM qrels_frame")
        return "runs", "qrels", con
    return run, qrels, None


@pytest.mark.parametrize("kind", ["frame", "parquet", "csv", "table"])
def test_trec_eval_preset_breaks_ties_by_ids_as_text_whatever_their_type(kind, tmp_path):
    run, qrels, con = _as_input(kind, pa.table(TIED_RUN), pa.table(TIED_QRELS), tmp_path)
    for preset in ("trec_eval", "trec_eval-9"):
        assert _values(sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"], preset=preset, con=con)) == TEXT_ORDER
    # Numeric order is the default outside the preset, and inside it only when asked for by name.
    assert _values(sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"], con=con)) == NUMERIC_ORDER
    assert _values(sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"], preset="trec_eval", id_order="native",
                                    con=con)) == NUMERIC_ORDER
    assert _values(sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"], id_order="text", con=con)) == TEXT_ORDER


@pytest.mark.parametrize("kind", ["frame", "parquet", "csv", "table"])
def test_integer_document_ids_tie_numerically_under_text_query_ids(kind, tmp_path):
    """Issue 28: with text query ids, integer doc ids tied in text order ("9" above "10": RR 0.5). Each id column's
    order follows its own type."""
    run = pa.table({"query_id": ["q1", "q1"], "doc_id": [9, 10], "score": [1.0, 1.0]})
    qrels = pa.table({"query_id": ["q1"], "doc_id": [10], "rel": [1]})
    run, qrels, con = _as_input(kind, run, qrels, tmp_path)
    assert _values(sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"], con=con)) == NUMERIC_ORDER
    assert _values(sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"], preset="trec_eval", con=con)) == TEXT_ORDER


def test_integer_run_document_ids_tie_numerically_against_text_judgment_ids():
    """Run doc ids integers, judgment doc ids text: joined as text, tied in the run's own (numeric) order."""
    run = pa.table({"query_id": [1, 1, 2, 2], "doc_id": [9, 10, 100, 20], "score": [1.0, 1.0, 2.0, 2.0]})
    qrels = pa.table({"query_id": [1, 2], "doc_id": ["10", "100"], "rel": [1, 1]})
    res = sqlndcg.evaluate(run, qrels, ["rr", "ndcg@1"])
    assert [(r["query_id"], r["rr"]) for r in res.per_query.to_dicts()] == [(1, 1.0), (2, 1.0)]


def test_trec_eval_preset_records_id_order():
    res = sqlndcg.evaluate(pa.table(TIED_RUN), pa.table(TIED_QRELS), ["rr"], preset="trec_eval")
    assert res.settings["id_order"] == "text"
    assert "id_order" not in sqlndcg.evaluate(pa.table(TIED_RUN), pa.table(TIED_QRELS), ["rr"]).settings


def _adversarial_tables(con):
    run, qrels = adversarial_rows(integer_ids=False)
    con.execute("CREATE TABLE runs (system VARCHAR, query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO runs VALUES (?, ?, ?, ?)", run)
    con.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, rel INTEGER)")
    con.executemany("INSERT INTO qrels VALUES (?, ?, ?)", qrels)


def _rows(table):
    return sorted((tuple(sorted(r.items())) for r in table.to_dicts()), key=repr)


def test_a_case_insensitive_duckdb_session_changes_no_number():
    """DuckDB's default_collation='nocase' would join `Doc` to the label of `doc` and tie `doc` with `DOC`; ids are
    compared byte by byte instead, so the numbers equal those of a binary session."""
    plain, nocase = duckdb.connect(), duckdb.connect()
    nocase.execute("SET default_collation = 'nocase'")
    for con in (plain, nocase):
        _adversarial_tables(con)
    for settings in ({}, {"preset": "trec_eval"}, {"queries": "both"}):
        expected = sqlndcg.evaluate("runs", "qrels", ALL_METRICS, group_by="system", con=plain, **settings)
        got = sqlndcg.evaluate("runs", "qrels", ALL_METRICS, group_by="system", con=nocase, **settings)
        assert _rows(got.per_query) == _rows(expected.per_query)
        assert _rows(got.account) == _rows(expected.account)
    # The statement written without a connection, run in the nocase session, gives the same numbers too.
    sql = sqlndcg.to_sql("runs", "qrels", ALL_METRICS, group_by="system")
    names = [d[0] for d in nocase.execute(sql).description]
    got = [dict(zip(names, row)) for row in nocase.execute(sql).fetchall()]
    expected = sqlndcg.evaluate("runs", "qrels", ALL_METRICS, group_by="system", con=plain).per_query.to_dicts()
    assert sorted(got, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize("dialect, fragment", [
    ("duckdb", 'COLLATE "binary"'),
    ("postgres", 'COLLATE "C"'),
    ("snowflake", "COLLATE(CAST(\"doc_id\" AS VARCHAR), 'utf8')"),
    ("bigquery", "COLLATE(CAST(`doc_id` AS STRING), '')"),
    ("mysql", "COLLATE utf8mb4_bin"),
    ("tsql", "COLLATE Latin1_General_100_BIN2_UTF8"),
    ("sqlite", "COLLATE BINARY"),
])
def test_sql_without_a_connection_compares_ids_byte_by_byte(dialect, fragment):
    sql = sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], dialect=dialect)
    assert fragment in sql
    integer = sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], dialect=dialect, id_type="integer")
    assert "COLLATE" not in integer.upper()


def test_id_type_is_refused_where_the_types_are_read():
    with pytest.raises(SettingError, match="id_type"):
        sqlndcg.to_sql(pa.table(TIED_RUN), pa.table(TIED_QRELS), ["rr"], id_type="integer")
    with pytest.raises(SettingError, match="choose 'text' or 'integer'"):
        sqlndcg.to_sql("runs", "qrels", ["rr"], id_type="int")


@pytest.mark.parametrize("id_type, expected", [(None, TEXT_ORDER), ("text", TEXT_ORDER), ("integer", NUMERIC_ORDER)])
def test_sql_without_a_connection_follows_id_type(id_type, expected):
    """Integer ids under the text assumption tie in text order (as trec_eval's), under id_type='integer' numerically."""
    con = duckdb.connect()
    run, qrels = pa.table(TIED_RUN), pa.table(TIED_QRELS)  # noqa: F841 (read by DuckDB's replacement scan)
    con.execute("CREATE TABLE runs AS SELECT * FROM run")
    con.execute("CREATE TABLE qrels AS SELECT * FROM qrels")
    kwargs = {} if id_type is None else {"id_type": id_type}
    sql = sqlndcg.to_sql("runs", "qrels", ["rr", "ndcg@1"], **kwargs)
    names = [d[0] for d in con.execute(sql).description]
    (row,) = [dict(zip(names, r)) for r in con.execute(sql).fetchall()]
    assert {m: row[m] for m in ("rr", "ndcg@1")} == expected


@pytest.mark.parametrize("collation", ["c", "icu"])
def test_sql_without_a_connection_gives_byte_order_numbers_on_postgres(postgres, collation):
    """The statement written for PostgreSQL without a connection, run in a C and an ICU en-US database, equals
    DuckDB's byte-order evaluation."""
    run, qrels = adversarial_rows(integer_ids=False)
    duck = duckdb.connect()
    _adversarial_tables(duck)
    expected = sqlndcg.evaluate("runs", "qrels", ALL_METRICS, group_by="system", con=duck).per_query.to_dicts()
    sql = sqlndcg.to_sql("runs", "qrels", ALL_METRICS, group_by="system", dialect="postgres")
    with postgres.connect(postgres.dbname_c if collation == "c" else postgres.dbname_icu) as con:
        con.execute("CREATE TEMPORARY TABLE runs (system TEXT, query_id TEXT, doc_id TEXT, score DOUBLE PRECISION)")
        con.cursor().executemany("INSERT INTO runs VALUES (%s, %s, %s, %s)", run)
        con.execute("CREATE TEMPORARY TABLE qrels (query_id TEXT, doc_id TEXT, rel INTEGER)")
        con.cursor().executemany("INSERT INTO qrels VALUES (%s, %s, %s)", qrels)
        cur = con.execute(sql)
        names = [d.name for d in cur.description]
        got = [dict(zip(names, row)) for row in cur.fetchall()]
    assert len(got) == len(expected)
    key = lambda r: (r["system"], r["query_id"])  # noqa: E731
    for g, e in zip(sorted(got, key=key), sorted(expected, key=key)):
        assert key(g) == key(e)
        for m in ALL_METRICS:
            assert g[m] == pytest.approx(e[m], rel=1e-9, abs=1e-12), (key(g), m)


RUN = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
QRELS = {"query_id": ["q1"], "doc_id": ["a"], "rel": [1]}


@pytest.mark.parametrize("group", ["queries", "run_rows", "scored_queries", "ndcg@10", "ndcg@10_count",
                                   "ndcg@10_ci_low", "ndcg@10_bootstrap_high"])
def test_a_group_column_named_like_an_output_column_is_refused(group):
    run = pa.table({group: ["s1", "s2"], **RUN})
    with pytest.raises(SettingError, match=f"group_by column '{group}' has the name of a column sqlndcg adds"):
        sqlndcg.evaluate(run, pa.table(QRELS), ["ndcg@10"], group_by=group)


def test_a_query_id_column_named_like_a_metric_is_refused():
    run = pa.table({"ndcg@10": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    qrels = pa.table({"ndcg@10": ["q1"], "doc_id": ["a"], "rel": [1]})
    with pytest.raises(SettingError, match="the query id column 'ndcg@10'"):
        sqlndcg.evaluate(run, qrels, ["ndcg@10"], query_id="ndcg@10")


def test_a_column_name_with_a_nul_byte_is_refused():
    run = pa.table({"sys\x00tem": ["s1", "s2"], **RUN})
    with pytest.raises(SettingError, match="NUL character"):
        sqlndcg.evaluate(run, pa.table(QRELS), ["ndcg@10"], group_by="sys\x00tem")


def test_the_declared_account_columns_are_the_account():
    """spec.sql refuses group columns named like the account's columns: the declaration is the account's own."""
    from sqlndcg.core import render

    res = sqlndcg.evaluate(pa.table({"system": ["s1", "s2"], **RUN}), pa.table(QRELS), ["ndcg@10"], group_by="system")
    assert res.account.to_arrow().column_names == ["system"] + render.call("_account_columns")
