"""One small dataset, every way of handing it over, the same numbers.

The dataset: two queries with graded labels, a tie in q1 (d2 and d3 both score 2.0) and a relevant document q1
never retrieved (d8). With D(i) = 1 / log2(i + 1) and exponential gain (2^rel - 1):
  q1 order d1, d3, d2, d4 (the tie broken by doc_id descending), gains 0, 1, 3, 0; ideal gains 7, 3, 1
     DCG@3 = D(2) + 3*D(3) = 2.1309297535714578; IDCG@3 = 7 + 3*D(2) + D(3) = 9.392789260714373
     NDCG@3 = 0.22686868558673368; P@2 = 1/2; R@3 = 2/3; RR = 1/2; CG@3 = 0 + 1 + 2 = 3; Judged@3 = 3/3
  q2 order d5, d6, d7, gains 0, 1, 3; ideal 3, 1
     NDCG@3 = (D(2) + 3*D(3)) / (3 + D(2)) = 0.58688267143572; P@2 = 1/2; R@3 = 1; RR = 1/2; CG@3 = 3; Judged@3 = 2/3
"""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import sqlndcg

RUN = pd.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q2"],
        "doc_id": ["d1", "d2", "d3", "d4", "d5", "d6", "d7"],
        "score": [3.0, 2.0, 2.0, 1.0, 1.5, 0.5, 0.25],
    }
)
JUDGMENTS = pd.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
        "doc_id": ["d1", "d2", "d3", "d8", "d6", "d7"],
        "rel": [0, 2, 1, 3, 1, 2],
    }
)
METRICS = ["ndcg@3", "ndcg", "p@2", "r@3", "ap", "rr", "cg@3", "judged@3"]


def D(i: int) -> float:
    return 1.0 / math.log2(i + 1)


# The hand-computed values of the module docstring, per query.
EXPECTED = {
    "q1": {"ndcg@3": (D(2) + 3 * D(3)) / (7 + 3 * D(2) + D(3)), "p@2": 0.5, "r@3": 2 / 3, "rr": 0.5,
           "cg@3": 3.0, "judged@3": 1.0},
    "q2": {"ndcg@3": (D(2) + 3 * D(3)) / (3 + D(2)), "p@2": 0.5, "r@3": 1.0, "rr": 0.5, "cg@3": 3.0,
           "judged@3": 2 / 3},
}


def reference():
    return sqlndcg.evaluate(RUN, JUDGMENTS, METRICS)


def assert_same_numbers(res, expected_rows) -> None:
    """Same columns and the same per-query rows (ids exactly, numbers to 1e-12)."""
    assert res.per_query.columns == ("query_id", *METRICS)
    assert len(res.per_query.rows) == len(expected_rows)
    for got, want in zip(res.per_query.rows, expected_rows):
        assert got[0] == want[0]
        assert got[1:] == pytest.approx(want[1:], rel=1e-12, abs=1e-15)


def write_trec(tmp_path, run_name: str, qrels_name: str):
    run_path, qrels_path = tmp_path / run_name, tmp_path / qrels_name
    lines = []
    for q, rows in RUN.groupby("query_id", sort=True):
        ordered = rows.sort_values(["score", "doc_id"], ascending=[False, False])
        for rank, (d, s) in enumerate(zip(ordered["doc_id"], ordered["score"]), start=1):
            lines.append(f"{q} Q0 {d} {rank} {s} sys")
    run_path.write_text("\n".join(lines) + "\n")
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in JUDGMENTS.itertuples(index=False)))
    return str(run_path), str(qrels_path)


def test_reference_numbers_are_the_hand_computed_ones():
    res = reference()
    values = {row["query_id"]: row for row in res.per_query.to_dicts()}
    assert set(values) == {"q1", "q2"}
    for q, expected in EXPECTED.items():
        for metric, value in expected.items():
            assert values[q][metric] == pytest.approx(value, rel=1e-12), (q, metric)


# ---------------------------------------------------------------------------------------------------------------
# every kind of input, the same numbers
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "convert",
    [
        lambda df: df,
        lambda df: pl.from_pandas(df),
        lambda df: pa.Table.from_pandas(df, preserve_index=False),
    ],
    ids=["pandas", "polars", "pyarrow"],
)
def test_data_frames(convert):
    assert_same_numbers(sqlndcg.evaluate(convert(RUN), convert(JUDGMENTS), METRICS), reference().per_query.rows)


def test_mixed_frame_libraries():
    res = sqlndcg.evaluate(pl.from_pandas(RUN), pa.Table.from_pandas(JUDGMENTS, preserve_index=False), METRICS)
    assert_same_numbers(res, reference().per_query.rows)


def test_duckdb_table_names_with_con():
    con = duckdb.connect()
    con.execute("CREATE TABLE runs AS SELECT * FROM RUN")
    con.execute("CREATE TABLE qrels AS SELECT * FROM JUDGMENTS")
    assert_same_numbers(sqlndcg.evaluate("runs", "qrels", METRICS, con=con), reference().per_query.rows)
    # the caller's tables are left as they were, and nothing of sqlndcg's is left behind
    assert sorted(r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()) == ["qrels", "runs"]


def test_duckdb_views_and_a_schema_qualified_name():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA eval")
    con.execute("CREATE TABLE eval.runs_table AS SELECT * FROM RUN")
    con.execute("CREATE VIEW runs_view AS SELECT * FROM eval.runs_table")
    con.execute("CREATE TABLE qrels_table AS SELECT * FROM JUDGMENTS")
    con.execute("CREATE VIEW qrels_view AS SELECT * FROM qrels_table")
    assert_same_numbers(sqlndcg.evaluate("runs_view", "qrels_view", METRICS, con=con), reference().per_query.rows)
    res = sqlndcg.evaluate("eval.runs_table", "qrels_view", METRICS, con=con)
    assert_same_numbers(res, reference().per_query.rows)


def test_parquet_files(tmp_path):
    RUN.to_parquet(tmp_path / "run.parquet")
    JUDGMENTS.to_parquet(tmp_path / "qrels.parquet")
    res = sqlndcg.evaluate(str(tmp_path / "run.parquet"), tmp_path / "qrels.parquet", METRICS)
    assert_same_numbers(res, reference().per_query.rows)


def test_csv_files(tmp_path):
    RUN.to_csv(tmp_path / "run.csv", index=False)
    JUDGMENTS.to_csv(tmp_path / "qrels.csv", index=False)
    res = sqlndcg.evaluate(str(tmp_path / "run.csv"), str(tmp_path / "qrels.csv"), METRICS)
    assert_same_numbers(res, reference().per_query.rows)


def test_tsv_files(tmp_path):
    RUN.to_csv(tmp_path / "run.tsv", index=False, sep="\t")
    JUDGMENTS.to_csv(tmp_path / "qrels.tsv", index=False, sep="\t")
    res = sqlndcg.evaluate(str(tmp_path / "run.tsv"), str(tmp_path / "qrels.tsv"), METRICS)
    assert_same_numbers(res, reference().per_query.rows)


def test_trec_files_by_suffix(tmp_path):
    run, qrels = write_trec(tmp_path, "system.run", "judgments.qrels")
    assert_same_numbers(sqlndcg.evaluate(run, qrels, METRICS), reference().per_query.rows)


def test_trec_files_named_txt_are_detected(tmp_path):
    run, qrels = write_trec(tmp_path, "run.txt", "qrels.txt")
    assert_same_numbers(sqlndcg.evaluate(run, qrels, METRICS), reference().per_query.rows)


def test_trec_files_with_an_explicit_format(tmp_path):
    run, qrels = write_trec(tmp_path, "run.dat", "qrels.dat")
    res = sqlndcg.evaluate(run, qrels, METRICS, run_format="trec_run", judgments_format="trec_qrels")
    assert_same_numbers(res, reference().per_query.rows)


def test_trec_files_with_tabs_and_blank_lines(tmp_path):
    run, qrels = write_trec(tmp_path, "run.run", "qrels.qrels")
    path = tmp_path / "messy.run"
    path.write_text("\n" + open(run).read().replace(" ", "\t").replace("\n", "\n\n"))
    assert_same_numbers(sqlndcg.evaluate(str(path), qrels, METRICS), reference().per_query.rows)


# ---------------------------------------------------------------------------------------------------------------
# ids
# ---------------------------------------------------------------------------------------------------------------


def _integer_ids(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(query_id=df["query_id"].str[1:].astype("int64"), doc_id=df["doc_id"].str[1:].astype("int64"))


def test_integer_ids():
    res = sqlndcg.evaluate(_integer_ids(RUN), _integer_ids(JUDGMENTS), METRICS)
    # d2/d3 tie: numeric descending puts 3 first, as "d3" > "d2" did: the same numbers, with integer query ids
    assert_same_numbers(res, [(int(r[0][1:]),) + r[1:] for r in reference().per_query.rows])
    assert res.per_query.column("query_id") == [1, 2]


def test_integer_ids_in_the_run_and_string_ids_in_the_judgments_compare_as_text():
    judgments = _integer_ids(JUDGMENTS).astype({"query_id": str, "doc_id": str})
    res = sqlndcg.evaluate(_integer_ids(RUN), judgments, METRICS)
    assert_same_numbers(res, [(r[0][1:],) + r[1:] for r in reference().per_query.rows])
    assert res.per_query.column("query_id") == ["1", "2"]


def test_mixed_ids_join_as_text_and_break_ties_in_the_runs_own_order():
    # documents 9 and 10 tie; only 10 is relevant. Joined to text judgment ids as text, the run's integer doc ids
    # still tie numerically (each id column's order follows its own type): 10 first, RR = 1. trec_eval: text, 1/2.
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [9, 10], "score": [1.0, 1.0]})
    judgments = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["9", "10"], "rel": [0, 1]})
    assert sqlndcg.evaluate(run, judgments, ["rr"]).per_query.column("rr") == [1.0]
    assert sqlndcg.evaluate(run, judgments, ["rr"], preset="trec_eval").per_query.column("rr") == [0.5]
    # text doc ids in the run: byte order, "9" > "10", RR = 1/2
    text_run = run.astype({"doc_id": "str"})
    assert sqlndcg.evaluate(text_run, judgments, ["rr"]).per_query.column("rr") == [0.5]
    # all integers: numeric order, 10 first, RR = 1
    integers = judgments.astype({"query_id": "int64", "doc_id": "int64"})
    assert sqlndcg.evaluate(run, integers, ["rr"]).per_query.column("rr") == [1.0]


# ---------------------------------------------------------------------------------------------------------------
# column names, rank-only runs
# ---------------------------------------------------------------------------------------------------------------


def test_custom_column_names():
    run = RUN.rename(columns={"query_id": "qid", "doc_id": "docno", "score": "sim"})
    judgments = JUDGMENTS.rename(columns={"query_id": "topic", "doc_id": "docno", "rel": "grade"})
    res = sqlndcg.evaluate(run, judgments, METRICS, query_id="qid", doc_id="docno", score="sim", rel="grade",
                           judgments_query_id="topic")
    assert res.per_query.columns == ("qid", *METRICS)
    for got, want in zip(res.per_query.rows, reference().per_query.rows):
        assert got[0] == want[0]
        assert got[1:] == pytest.approx(want[1:], rel=1e-12)
    assert res.settings["columns"]["judgments_query_id"] == "topic"


def test_custom_judgments_doc_id_column():
    judgments = JUDGMENTS.rename(columns={"doc_id": "document"})
    res = sqlndcg.evaluate(RUN, judgments, METRICS, judgments_doc_id="document")
    assert_same_numbers(res, reference().per_query.rows)


def test_column_names_that_are_sql_keywords_or_have_spaces():
    run = RUN.rename(columns={"query_id": "select", "doc_id": "doc id", "score": "order"})
    judgments = JUDGMENTS.rename(columns={"query_id": "select", "doc_id": "doc id", "rel": 'my "rel"'})
    res = sqlndcg.evaluate(run, judgments, METRICS, query_id="select", doc_id="doc id", score="order",
                           rel='my "rel"')
    assert res.per_query.columns == ("select", *METRICS)
    for got, want in zip(res.per_query.rows, reference().per_query.rows):
        assert got[0] == want[0]
        assert got[1:] == pytest.approx(want[1:], rel=1e-12)


def test_a_run_with_only_a_rank_column_is_ordered_by_rank():
    # ranks put d2 before d3 (the opposite of the doc_id tie break of the scored run)
    run = pd.DataFrame({"query_id": RUN["query_id"], "doc_id": RUN["doc_id"], "rank": [1, 2, 3, 4, 1, 2, 3]})
    res = sqlndcg.evaluate(run, JUDGMENTS, ["ndcg@3", "rr", "p@2"])
    values = {r["query_id"]: r for r in res.per_query.to_dicts()}
    # q1 order d1, d2, d3, d4: gains 0, 3, 1, 0. DCG@3 = 3*D(2) + D(3) = 2.392789; / IDCG 9.392789 = 0.254747
    assert values["q1"]["ndcg@3"] == pytest.approx((3 * D(2) + D(3)) / (7 + 3 * D(2) + D(3)))
    assert values["q1"]["ndcg@3"] == pytest.approx(0.25474746577380225)
    assert values["q1"]["rr"] == 0.5
    # q2 is ranked as it was scored: unchanged
    assert values["q2"]["ndcg@3"] == pytest.approx(EXPECTED["q2"]["ndcg@3"])


def test_with_both_score_and_rank_the_named_one_orders_or_ties_rank():
    # q1 scores order d1, d3, d2, d4 (first relevant: d3 at 2); the ranks order d4, d1, d2, d3 (d2 at 3); the two
    # disagree, so naming neither is refused (tests/test_ranking_columns.py)
    run = RUN[RUN.query_id == "q1"].assign(rank=[2, 3, 4, 1])
    with pytest.raises(sqlndcg.errors.DataError, match="order the documents differently"):
        sqlndcg.evaluate(run, JUDGMENTS, ["rr", "dcg@3"], queries="both")
    by_score = sqlndcg.evaluate(run, JUDGMENTS, ["rr", "dcg@3"], queries="both", score="score")
    assert by_score.per_query.column("rr") == [0.5]
    assert sqlndcg.evaluate(run, JUDGMENTS, ["rr"], queries="both", rank="rank").per_query.column("rr") == \
        pytest.approx([1 / 3])
    by_rank = sqlndcg.evaluate(run, JUDGMENTS, ["rr", "dcg@3"], queries="both", ties="rank")
    assert by_rank.per_query.column("rr") == pytest.approx([1 / 3])
    # by rank, gains 0 (d4, unjudged), 0 (d1), 3 (d2): DCG@3 = 3*D(3) = 1.5
    assert by_rank.per_query.column("dcg@3") == pytest.approx([1.5])


# ---------------------------------------------------------------------------------------------------------------
# grouping
# ---------------------------------------------------------------------------------------------------------------


def test_group_by_system_gives_one_summary_row_per_system():
    other = RUN.assign(score=[1.0, 4.0, 3.0, 2.0, 3.0, 2.0, 1.0])  # q1: d2, d3, d4, d1; q2 unchanged
    runs = pd.concat([RUN.assign(system="a"), other.assign(system="b")], ignore_index=True)
    res = sqlndcg.evaluate(runs, JUDGMENTS, METRICS, group_by=["system"])
    assert res.summary.column("system") == ["a", "b"]
    assert res.summary.column("queries") == [2, 2]
    assert res.per_query.columns[:2] == ("system", "query_id")
    for system, alone in (("a", RUN), ("b", other)):
        expected = sqlndcg.evaluate(alone, JUDGMENTS, METRICS).summary.to_dicts()[0]
        row = next(r for r in res.summary.to_dicts() if r["system"] == system)
        for m in METRICS:
            assert row[m] == pytest.approx(expected[m]), (system, m)
    # system b, q1 order d2, d3, d4: gains 3, 1, 0. NDCG@3 = (3 + D(2)) / (7 + 3*D(2) + D(3))
    b_q1 = next(r for r in res.per_query.to_dicts() if r["system"] == "b" and r["query_id"] == "q1")
    assert b_q1["ndcg@3"] == pytest.approx((3 + D(2)) / (7 + 3 * D(2) + D(3)))


def test_two_group_columns():
    runs = pd.concat([RUN.assign(system="a", ds=d) for d in ("mon", "tue")] + [RUN.assign(system="b", ds="mon")])
    res = sqlndcg.evaluate(runs, JUDGMENTS, ["ndcg@3"], group_by=["system", "ds"])
    assert [(r["system"], r["ds"]) for r in res.summary.to_dicts()] == [("a", "mon"), ("a", "tue"), ("b", "mon")]
    assert res.summary.column("ndcg@3") == pytest.approx([reference().summary.column("ndcg@3")[0]] * 3)


def test_a_group_column_in_the_judgments_partitions_them():
    # Per-day judgments: on day 1 only a is relevant; on day 2 only b is. The run is the same both days.
    runs = pd.DataFrame({"ds": ["day1", "day1", "day2", "day2"], "query_id": ["q"] * 4,
                         "doc_id": ["a", "b", "a", "b"], "score": [2.0, 1.0, 2.0, 1.0]})
    judgments = pd.DataFrame({"ds": ["day1", "day1", "day2", "day2"], "query_id": ["q"] * 4,
                              "doc_id": ["a", "b", "a", "b"], "rel": [1, 0, 0, 1]})
    res = sqlndcg.evaluate(runs, judgments, ["ndcg@2", "rr"], group_by="ds")
    # day1: a (relevant) at 1 -> NDCG 1, RR 1; day2: b at 2 -> NDCG = D(2) / 1 = 0.6309, RR 1/2
    assert res.summary.column("ds") == ["day1", "day2"]
    assert res.summary.column("ndcg@2") == pytest.approx([1.0, D(2)])
    assert res.summary.column("rr") == pytest.approx([1.0, 0.5])


def test_a_group_present_only_in_the_judgments_scores_its_judged_queries_as_zero():
    # day2 judges query r, which day2's run does not answer: scored 0 under queries="judged"
    runs = pd.DataFrame({"ds": ["day1", "day2"], "query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 1.0]})
    judgments = pd.DataFrame({"ds": ["day1", "day2", "day2"], "query_id": ["q", "q", "r"],
                              "doc_id": ["a", "a", "x"], "rel": [1, 1, 1]})
    res = sqlndcg.evaluate(runs, judgments, ["ndcg@2"], group_by="ds")
    rows = [(r["ds"], r["query_id"], r["ndcg@2"]) for r in res.per_query.to_dicts()]
    assert rows == [("day1", "q", 1.0), ("day2", "q", 1.0), ("day2", "r", 0.0)]


# ---------------------------------------------------------------------------------------------------------------
# SQL
# ---------------------------------------------------------------------------------------------------------------


def _con_with_tables():
    con = duckdb.connect()
    con.execute("CREATE TABLE runs AS SELECT * FROM RUN")
    con.execute("CREATE TABLE qrels AS SELECT * FROM JUDGMENTS")
    return con


def test_to_sql_with_a_connection_is_the_sql_evaluate_runs():
    con = _con_with_tables()
    for kwargs in ({}, {"gain": "linear", "ties": "average", "metrics": ["ndcg@3", "p@2"]}, {"queries": "both"}):
        metrics = kwargs.pop("metrics", METRICS)
        sql = sqlndcg.to_sql("runs", "qrels", metrics, con=con, **kwargs)
        assert sql == sqlndcg.evaluate("runs", "qrels", metrics, con=con, **kwargs).sql


def test_to_sql_without_a_connection_runs_on_one_that_holds_the_tables():
    sql = sqlndcg.to_sql(run="runs", judgments="qrels", metrics=METRICS, dialect="duckdb")
    con = _con_with_tables()
    cur = con.execute(sql)
    assert tuple(d[0] for d in cur.description) == ("query_id", *METRICS)
    rows = cur.fetchall()
    want = reference().per_query.rows
    assert [r[0] for r in rows] == [r[0] for r in want]
    for got, expected in zip(rows, want):
        assert got[1:] == pytest.approx(expected[1:], rel=1e-12)


def test_to_sql_for_files_reads_the_files(tmp_path):
    run, qrels = write_trec(tmp_path, "run.run", "qrels.qrels")
    sql = sqlndcg.to_sql(run, qrels, METRICS)
    rows = duckdb.connect().execute(sql).fetchall()
    for got, expected in zip(rows, reference().per_query.rows):
        assert got[0] == expected[0]
        assert got[1:] == pytest.approx(expected[1:], rel=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------------------------------------------


def test_results_convert_to_pandas_arrow_and_polars():
    res = sqlndcg.evaluate(RUN, JUDGMENTS, METRICS, empty="skip")
    for table in (res.per_query, res.summary):
        dicts = table.to_dicts()
        assert [dict(zip(table.columns, row)) for row in table.rows] == dicts
        frame = table.to_pandas()
        assert tuple(frame.columns) == table.columns
        assert frame.astype(object).where(frame.notna(), None).to_dict("records") == dicts
        arrow = table.to_arrow()
        assert tuple(arrow.column_names) == table.columns
        assert arrow.to_pylist() == dicts
        polars = table.to_polars()
        assert tuple(polars.columns) == table.columns
        assert polars.to_dicts() == dicts


def test_results_round_trip_back_into_sqlndcg_tables():
    res = reference()
    arrow = res.per_query.to_arrow()
    assert [tuple(r.values()) for r in arrow.to_pylist()] == list(res.per_query.rows)
    assert [tuple(r) for r in res.per_query.to_polars().iter_rows()] == list(res.per_query.rows)
    assert [tuple(r) for r in res.per_query.to_pandas().itertuples(index=False)] == list(res.per_query.rows)
    assert res.per_query.column("query_id") == ["q1", "q2"]
    assert len(res.per_query) == 2
    assert [r["query_id"] for r in res.per_query] == ["q1", "q2"]


def test_inputs_cheap_to_read_again_are_read_per_use_and_give_the_same_numbers(tmp_path):
    """DuckDB reads a Parquet file, a base table or an Arrow frame once per use in the statement (NOT MATERIALIZED,
    dialects/rules.sql reread); a CSV file (parsed), a view (computed) or a pandas frame (converted) is left to DuckDB, which
    holds one copy. The numbers are the same either way."""
    RUN.to_parquet(tmp_path / "run.parquet")
    RUN.to_csv(tmp_path / "run.csv", index=False)
    con = duckdb.connect()
    con.register("run_frame", RUN)
    con.execute("CREATE TABLE run_table AS SELECT * FROM run_frame")
    con.execute("CREATE VIEW run_view AS SELECT * FROM run_table")
    con.execute("CREATE TABLE qrels_table AS SELECT * FROM JUDGMENTS")
    inputs = [
        (str(tmp_path / "run.parquet"), True),
        ("run_table", True),
        (pa.Table.from_pandas(RUN), True),
        (pl.from_pandas(RUN), True),
        (str(tmp_path / "run.csv"), False),
        ("run_view", False),
        (RUN, False),
    ]
    reference = sqlndcg.evaluate(RUN, JUDGMENTS, METRICS).per_query.to_pandas()
    for run, rereadable in inputs:
        sql = sqlndcg.to_sql(run, "qrels_table", METRICS, con=con)
        assert ("run_rows AS NOT MATERIALIZED" in sql) is rereadable, type(run)
        assert "judgment_rows AS NOT MATERIALIZED" in sql  # a base table
        assert "MATERIALIZED" not in sqlndcg.to_sql(run, "qrels_table", METRICS, con=con, dialect="postgres")
        got = sqlndcg.evaluate(run, "qrels_table", METRICS, con=con).per_query.to_pandas()
        pd.testing.assert_frame_equal(got, reference, check_exact=True)
