"""Every mistake a user can make is refused with a SqlndcgError that says what, where, and which value.

Messages are matched on their meaningful parts: the input (run or judgments), the column, and an offending value.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import sqlndcg
import sqlndcg.cli
from sqlndcg import DataError, EmptyQueryError, InputError, MetricError, SettingError, SqlndcgError

RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
JUDGMENTS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "rel": [1, 0, 2]})


@contextmanager
def refused(error: type[SqlndcgError], *patterns: str):
    """pytest.raises(error), also checking that the message contains every regex in ``patterns``."""
    with pytest.raises(error) as info:
        yield info
    message = str(info.value)
    assert isinstance(info.value, SqlndcgError)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in message: {message}"


def test_inputs_are_valid_as_given():
    """The fixtures themselves evaluate: each test below breaks exactly one thing."""
    res = sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@3"])
    assert res.per_query.column("ndcg@3") == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------------------------
# columns
# ---------------------------------------------------------------------------------------------------------------


def test_missing_run_column_names_the_input_the_column_and_the_columns_it_has():
    with refused(InputError, r"^run \(DataFrame\)", r"document id column 'doc_id'",
                 r"\['query_id', 'docid', 'score'\]"):
        sqlndcg.evaluate(RUN.rename(columns={"doc_id": "docid"}), JUDGMENTS)


def test_missing_judgments_column_names_the_input_and_the_column():
    with refused(InputError, r"^judgments \(DataFrame\)", r"rel column 'rel'", r"'label'"):
        sqlndcg.evaluate(RUN, JUDGMENTS.rename(columns={"rel": "label"}))


def test_missing_column_hint_for_a_different_case_in_the_run():
    with refused(InputError, r"^run", r"'doc_id'", r"did you mean 'Doc_ID'\?", r"case-sensitive"):
        sqlndcg.evaluate(RUN.rename(columns={"doc_id": "Doc_ID"}), JUDGMENTS)


def test_missing_column_hint_for_a_different_case_in_the_judgments():
    with refused(InputError, r"^judgments", r"'rel'", r"did you mean 'REL'\?"):
        sqlndcg.evaluate(RUN, JUDGMENTS.rename(columns={"rel": "REL"}))


def test_missing_custom_column_is_named_as_configured():
    with refused(InputError, r"^judgments", r"query id column 'topic'"):
        sqlndcg.evaluate(RUN, JUDGMENTS, judgments_query_id="topic")


def test_missing_group_by_column():
    with refused(InputError, r"^run", r"group_by column 'system'"):
        sqlndcg.evaluate(RUN, JUDGMENTS, group_by=["system"])



def test_every_missing_group_by_column_is_named_not_only_the_last():
    run = RUN.assign(system="bm25")
    with refused(InputError, r"^run \(DataFrame\)", r"no group_by column 'day'"):
        sqlndcg.evaluate(run, JUDGMENTS, ["ndcg@2"], group_by=["day", "system"])

def test_run_without_score_or_rank_column():
    with refused(InputError, r"^run", r"neither a score column nor a rank column", r"'score' or 'rank'"):
        sqlndcg.evaluate(RUN.drop(columns="score"), JUDGMENTS)


def test_a_score_column_named_in_another_case_is_pointed_at():
    with refused(InputError, r"^run", r"neither a score column nor a rank column",
                 r"did you mean 'Score'\? names are case-sensitive"):
        sqlndcg.evaluate(RUN.rename(columns={"score": "Score"}), JUDGMENTS)


def test_varchar_score_column():
    with refused(InputError, r"^run", r"column 'score' holds VARCHAR", r"must hold numbers"):
        sqlndcg.evaluate(RUN.assign(score=["2", "1", "1"]), JUDGMENTS)


def test_varchar_rel_column_in_a_csv_file(tmp_path):
    path = tmp_path / "qrels.csv"
    path.write_text("query_id,doc_id,rel\nq1,a,high\n")
    with refused(InputError, r"^judgments file", r"qrels\.csv", r"column 'rel' holds VARCHAR"):
        sqlndcg.evaluate(RUN, str(path))


def test_floating_point_id_column():
    with refused(InputError, r"^run", r"id column 'doc_id' holds DOUBLE", r"text or integers"):
        sqlndcg.evaluate(RUN.assign(doc_id=[1.0, 2.0, 3.0]), JUDGMENTS)


# ---------------------------------------------------------------------------------------------------------------
# duplicate, NULL and non-finite rows
# ---------------------------------------------------------------------------------------------------------------


def test_duplicate_query_document_in_the_run_names_the_pair():
    with refused(DataError, r"^run", r"more than once", r"query_id='q1', doc_id='b', copies=2"):
        sqlndcg.evaluate(pd.concat([RUN, RUN.iloc[[1]]]), JUDGMENTS)


def test_duplicate_query_document_in_the_judgments_names_the_pair():
    with refused(DataError, r"^judgments", r"more than once", r"query_id='q2', doc_id='c', copies=2"):
        sqlndcg.evaluate(RUN, pd.concat([JUDGMENTS, JUDGMENTS.iloc[[2]]]))


def test_duplicates_are_counted_and_all_shown():
    run = pd.concat([RUN, RUN, RUN])
    with refused(DataError, r"^run", r"3 \(query, document\) pairs", r"doc_id='a', copies=3",
                 r"doc_id='b', copies=3", r"doc_id='c', copies=3"):
        sqlndcg.evaluate(run, JUDGMENTS)


def test_null_score_names_the_row():
    with refused(DataError, r"^run", r"column 'score' is .*NULL", r"1 row", r"query_id='q1', doc_id='b', score=None"):
        sqlndcg.evaluate(RUN.assign(score=[2.0, None, 1.0]), JUDGMENTS)


def test_null_rel_names_the_row():
    with refused(DataError, r"^judgments", r"column 'rel' is .*NULL", r"query_id='q1', doc_id='b', rel=None"):
        sqlndcg.evaluate(RUN, JUDGMENTS.assign(rel=[1.0, None, 2.0]))


def test_null_query_id_in_the_run():
    run = RUN.assign(query_id=pd.array(["q1", None, "q2"], dtype=object))
    with refused(DataError, r"^run", r"column 'query_id' is .*NULL", r"query_id=None, doc_id='b'"):
        sqlndcg.evaluate(run, JUDGMENTS)


def test_null_integer_query_id_in_the_run():
    run = pd.DataFrame({"query_id": pd.array([1, None, 2], dtype="Int64"), "doc_id": [1, 2, 3], "score": [1.0, 2, 3]})
    judgments = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [1, 2, 3], "rel": [1, 0, 2]})
    with refused(DataError, r"^run", r"column 'query_id' is .*NULL", r"query_id=None, doc_id=2"):
        sqlndcg.evaluate(run, judgments)


def test_null_doc_id_in_the_judgments():
    with refused(DataError, r"^judgments", r"column 'doc_id' is .*NULL", r"query_id='q1', doc_id=None"):
        sqlndcg.evaluate(RUN, JUDGMENTS.assign(doc_id=["a", None, "c"]))


def test_null_query_id_in_the_judgments():
    with refused(DataError, r"^judgments", r"column 'query_id' is .*NULL", r"query_id=None, doc_id='a'"):
        sqlndcg.evaluate(RUN, JUDGMENTS.assign(query_id=[None, "q1", "q2"]))


def _polars_run(score):
    return pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, score, 1.0]})


@pytest.mark.parametrize("value, shown", [(float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_non_finite_score(value, shown):
    with refused(DataError, r"^run", r"column 'score' is NaN or infinite", rf"doc_id='b', score={shown}\)"):
        sqlndcg.evaluate(_polars_run(value), JUDGMENTS)


def test_nan_score_in_an_arrow_table():
    run = pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": pa.array([1.0, float("nan")])})
    with refused(DataError, r"^run \(Table\)", r"column 'score' is NaN or infinite", r"doc_id='b', score=nan"):
        sqlndcg.evaluate(run, JUDGMENTS)


def test_nan_score_in_pandas_is_refused_as_missing():
    # pandas uses NaN for "missing" and DuckDB reads it as NULL; the message must still mention NaN.
    with refused(DataError, r"^run", r"column 'score'", r"NaN", r"doc_id='b'"):
        sqlndcg.evaluate(RUN.assign(score=[2.0, float("nan"), 1.0]), JUDGMENTS)


@pytest.mark.parametrize("value, shown", [(float("nan"), "nan"), (float("inf"), "inf")])
def test_non_finite_rel(value, shown):
    judgments = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "rel": [1.0, value, 2.0]})
    with refused(DataError, r"^judgments", r"column 'rel' is NaN or infinite", rf"doc_id='b', rel={shown}\)"):
        sqlndcg.evaluate(RUN, judgments, gain="linear")


def test_rel_above_1000_with_exponential_gain():
    with refused(DataError, r"^judgments", r"column 'rel' is above 1000", r"exponential", r"doc_id='b', rel=1001"):
        sqlndcg.evaluate(RUN, JUDGMENTS.assign(rel=[1, 1001, 2]))


def test_rel_above_1000_is_fine_with_linear_gain():
    res = sqlndcg.evaluate(RUN, JUDGMENTS.assign(rel=[1, 1001, 0]), ["dcg@1"], gain="linear")
    assert res.per_query.column("dcg@1") == [1.0, 0.0]


def test_rel_grade_missing_from_the_gain_map():
    with refused(DataError, r"^judgments", r"column 'rel'", r"gain map does not cover", r"\['1'\]",
                 r"query_id='q2', doc_id='c', rel=2"):
        sqlndcg.evaluate(RUN, JUDGMENTS, gain={1: 1})


def test_gain_map_is_checked_by_the_integer_part_the_gain_is_looked_up_by():
    """Under labels='integer_part' (the trec_eval preset) 1.7 is grade 1: mapped when the map lists 1, refused
    when it lists only 1.7 (which no label's integer part can match)."""
    fractional = JUDGMENTS.assign(rel=[1.7, 0.0, 2.0])
    res = sqlndcg.evaluate(RUN, fractional, ["dcg@1"], gain={1: 3, 2: 9}, labels="integer_part")
    by_default = sqlndcg.evaluate(RUN, JUDGMENTS.assign(rel=[1, 0, 2]), ["dcg@1"], gain={1: 3, 2: 9})
    assert res.per_query.column("dcg@1") == by_default.per_query.column("dcg@1")
    with refused(DataError, r"^judgments", r"column 'rel' has a positive grade \(by its integer part",
                 r"rel=1\.7"):
        sqlndcg.evaluate(RUN, fractional, gain={1.7: 3, 2: 9}, labels="integer_part")


# ---------------------------------------------------------------------------------------------------------------
# ranks
# ---------------------------------------------------------------------------------------------------------------


def test_ties_rank_with_duplicate_ranks_in_a_query():
    run = RUN.drop(columns="score").assign(rank=[1, 1, 1])
    with refused(DataError, r"^run", r"ties='rank' needs distinct ranks", r"query_id='q1', rank=1, copies=2"):
        sqlndcg.evaluate(run, JUDGMENTS, ties="rank")


@pytest.mark.parametrize("bad", [0, 1.5, -2])
def test_rank_that_is_not_a_positive_whole_number(bad):
    run = RUN.drop(columns="score").assign(rank=[bad, 1, 1])
    with refused(DataError, r"^run", r"column 'rank' is not a positive whole number",
                 rf"query_id='q1', doc_id='a', rank={bad}\)"):
        sqlndcg.evaluate(run, JUDGMENTS)


def test_ties_rank_without_a_rank_column():
    with refused(InputError, r"^run", r"no rank column 'rank'"):
        sqlndcg.evaluate(RUN, JUDGMENTS, ties="rank")


def test_ties_rank_with_rank_none():
    with refused(SettingError, r"ties='rank'", r"rank=None"):
        sqlndcg.evaluate(RUN, JUDGMENTS, ties="rank", rank=None)


# ---------------------------------------------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, k", [("ndcg@0", "0"), ("p@-1", "-1"), ("ap_0", "0")])
def test_cutoff_below_one(name, k):
    with refused(MetricError, re.escape(repr(name)), r"cutoff k must be", rf"got {k}$"):
        sqlndcg.evaluate(RUN, JUDGMENTS, [name])


@pytest.mark.parametrize("name", ["foo@3", "ndcgg@10", "precision_at@5"])
def test_unknown_metric_lists_the_known_ones(name):
    with refused(MetricError, re.escape(repr(name)), r"known metrics", r"ndcg@k", r"p@k", r"ap@k", r"rr@k",
                 r"hit@k", r"judged@k", r"map", r"mrr"):
        sqlndcg.evaluate(RUN, JUDGMENTS, [name])


def test_unreadable_metric_name():
    with refused(MetricError, r"cannot read metric 'ndcg@@3'", r"'ndcg@10'"):
        sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@@3"])


def test_no_metrics():
    with refused(MetricError, r"no metrics requested"):
        sqlndcg.evaluate(RUN, JUDGMENTS, [])


def test_threshold_on_a_graded_metric():
    with refused(MetricError, r"'ndcg\(rel=2\)@3'", r"applies only to"):
        sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg(rel=2)@3"])


@pytest.mark.parametrize("metric, shown", [("ap", "ap"), ("map", "ap"), ("rr@10", "rr@10"), ("mrr", "rr"),
                                           ("hit@3", "hit@3")])
def test_ties_average_refuses_non_additive_metrics_by_name(metric, shown):
    with refused(MetricError, r"ties='average'", rf"; {re.escape(shown)} cannot use it", r"ties='doc_id'"):
        sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@3", metric], ties="average")


def test_ties_average_names_every_refused_metric():
    with refused(MetricError, r"ap@5, rr, hit@1 cannot use it"):
        sqlndcg.evaluate(RUN, JUDGMENTS, ["p@5", "ap@5", "rr", "hit@1"], ties="average")


# ---------------------------------------------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setting, allowed",
    [
        ("gain", ["exponential", "linear"]),
        ("ideal", ["judgments", "retrieved"]),
        ("ties", ["doc_id", "average", "rank"]),
        ("short_lists", ["pad", "truncate"]),
        ("empty", ["zero", "skip", "error"]),
        ("queries", ["judged", "both"]),
        ("preset", ["trec_eval", "sklearn"]),
    ],
)
def test_unknown_setting_value_lists_the_allowed_ones(setting, allowed):
    with refused(SettingError, rf"^{setting}='bogus'", *(f"'{a}'" for a in allowed)):
        sqlndcg.evaluate(RUN, JUDGMENTS, **{setting: "bogus"})


@pytest.mark.parametrize("threshold", [0, -1, -0.5])
def test_threshold_not_positive(threshold):
    with refused(SettingError, rf"^threshold={threshold:g}", r"must be positive"):
        sqlndcg.evaluate(RUN, JUDGMENTS, threshold=threshold)


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), "2"])
def test_threshold_not_a_finite_number(threshold):
    with refused(SettingError, r"^threshold must be a finite number", re.escape(repr(threshold))):
        sqlndcg.evaluate(RUN, JUDGMENTS, threshold=threshold)


@pytest.mark.parametrize("gain, pattern", [({}, r"gain=\{\} is empty"), ({1: -1}, r"gains must be non-negative"),
                                            ({0: 1}, r"grades <= 0 always have gain 0"), ({"a": 1}, r"grade 'a'")])
def test_bad_gain_map(gain, pattern):
    with refused(SettingError, pattern):
        sqlndcg.evaluate(RUN, JUDGMENTS, gain=gain)


def test_gain_map_may_list_grades_without_gain_as_users_write_whole_grade_tables():
    whole = sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@5"], gain={-1: 0, 0: 0, 1: 1, 2: 3, 3: 7})
    positive_only = sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@5"], gain={1: 1, 2: 3, 3: 7})
    assert whole.per_query.rows == positive_only.per_query.rows
    assert whole.per_query.column("ndcg@5") == sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@5"]).per_query.column("ndcg@5")


def test_group_by_clashing_with_an_id_column():
    with refused(SettingError, r"group_by column\(s\) \['query_id'\]"):
        sqlndcg.evaluate(RUN, JUDGMENTS, group_by=["query_id"])


def test_con_that_is_not_a_connection():
    with refused(SettingError, r"con must be a DuckDB connection, a DB-API connection .*, got builtins.int"):
        sqlndcg.evaluate(RUN, JUDGMENTS, con=3)


# ---------------------------------------------------------------------------------------------------------------
# inputs that cannot be read
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("queries", ["judged", "both"])
def test_run_frame_with_zero_rows(queries):
    with refused(InputError, r"^run \(DataFrame\) has no rows"):
        sqlndcg.evaluate(RUN.iloc[:0], JUDGMENTS, queries=queries)


def test_judgments_frame_with_zero_rows():
    with refused(InputError, r"^judgments \(DataFrame\) has no rows"):
        sqlndcg.evaluate(RUN, JUDGMENTS.iloc[:0])


@pytest.mark.parametrize("name", ["run.csv", "run.run", "run.parquet", "run.txt"])
def test_empty_run_file(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    with refused(InputError, r"^run file", re.escape(name), r"is empty"):
        sqlndcg.evaluate(str(path), JUDGMENTS)


def test_empty_qrels_file(tmp_path):
    path = tmp_path / "empty.qrels"
    path.write_bytes(b"")
    with refused(InputError, r"^judgments file", r"empty\.qrels", r"is empty"):
        sqlndcg.evaluate(RUN, str(path))


def test_trec_file_of_blank_lines_has_no_rows(tmp_path):
    path = tmp_path / "blank.run"
    path.write_text("\n  \n\n")
    with refused(InputError, r"^run file", r"blank\.run", r"has no rows"):
        sqlndcg.evaluate(str(path), JUDGMENTS, queries="both")


def test_parquet_file_with_zero_rows(tmp_path):
    path = tmp_path / "none.parquet"
    RUN.iloc[:0].to_parquet(path)
    with refused(InputError, r"^run file", r"none\.parquet", r"has no rows"):
        sqlndcg.evaluate(str(path), JUDGMENTS, queries="both")


def test_csv_file_with_a_header_and_no_rows(tmp_path):
    # The right message is "no rows"; a complaint about the score's type would send the user the wrong way.
    path = tmp_path / "header_only.csv"
    path.write_text("query_id,doc_id,score\n")
    for queries in ("judged", "both"):
        with refused(InputError, r"^run file", r"header_only\.csv", r"no rows"):
            sqlndcg.evaluate(str(path), JUDGMENTS, queries=queries)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.csv"
    with refused(InputError, r"^run file", r"nope\.csv", r"does not exist"):
        sqlndcg.evaluate(str(path), JUDGMENTS)


def test_missing_judgments_file(tmp_path):
    path = tmp_path / "nope.qrels"
    with refused(InputError, r"^judgments file", r"nope\.qrels", r"does not exist"):
        sqlndcg.evaluate(RUN, path)


def test_unknown_table_name_in_a_connection():
    con = duckdb.connect()
    con.execute("CREATE TABLE qrels AS SELECT * FROM JUDGMENTS")
    with refused(InputError, r"^run table 'no_such_table'", r"no table or view of that name", r"con="):
        sqlndcg.evaluate("no_such_table", "qrels", con=con)


def test_unknown_table_name_without_a_connection():
    with refused(InputError, r"^judgments table 'qrels'", r"new, empty in-memory DuckDB because no con= was given"):
        sqlndcg.evaluate(RUN, "qrels")


def test_corrupt_parquet_file(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_text("this is not parquet")
    with refused(InputError, r"^run file", r"bad\.parquet", r"cannot be read"):
        sqlndcg.evaluate(str(path), JUDGMENTS)


def test_unknown_file_format_name(tmp_path):
    path = tmp_path / "run.csv"
    RUN.to_csv(path, index=False)
    with refused(InputError, r"^run format 'xml'", r"parquet, csv, tsv, trec_run, trec_qrels"):
        sqlndcg.evaluate(str(path), JUDGMENTS, run_format="xml")


@pytest.mark.parametrize("obj, pattern", [(123, r"^run: cannot use a int"), ({"a": 1}, r"^run: cannot use a dict"),
                                          (None, r"^no run given")])
def test_object_that_is_not_an_input(obj, pattern):
    with refused(InputError, pattern):
        sqlndcg.evaluate(obj, JUDGMENTS)


def test_trec_run_line_with_the_wrong_number_of_fields_is_named_by_number(tmp_path):
    path = tmp_path / "bad.run"
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 1.0\n")
    with refused(DataError, r"^run file", r"bad\.run", r"1 line\(s\)", r"6 whitespace-separated fields",
                 r"line 3: 'q2 Q0 c 1 1\.0'"):
        sqlndcg.evaluate(str(path), JUDGMENTS)


def test_trec_qrels_line_with_the_wrong_number_of_fields_is_named_by_number(tmp_path):
    path = tmp_path / "bad.qrels"
    path.write_text("q1 0 a 1\nq1 0 b\nq2 0 c 2 extra\n")
    with refused(DataError, r"^judgments file", r"2 line\(s\)", r"4 whitespace-separated fields",
                 r"line 2: 'q1 0 b'", r"line 3: 'q2 0 c 2 extra'"):
        sqlndcg.evaluate(RUN, str(path))


def test_trec_run_with_text_where_the_score_belongs(tmp_path):
    path = tmp_path / "text.run"
    path.write_text("q1 Q0 a 1 high t\n")
    with refused(DataError, r"^run file", r"numbers where numbers belong", r"line 1: 'q1 Q0 a 1 high t'"):
        sqlndcg.evaluate(str(path), JUDGMENTS)


# ---------------------------------------------------------------------------------------------------------------
# empty="error"
# ---------------------------------------------------------------------------------------------------------------


def test_empty_error_names_the_query_with_nothing_to_find():
    judgments = JUDGMENTS.assign(rel=[1, 0, 0])
    with refused(EmptyQueryError, r"^1 judged quer", r"'q2'", r"empty='error'", r"empty='zero'", r"empty='skip'"):
        sqlndcg.evaluate(RUN, judgments, ["ndcg@3"], empty="error")


def test_empty_error_for_recall_names_the_query():
    judgments = JUDGMENTS.assign(rel=[1, 0, 0])
    with refused(EmptyQueryError, r"'q2'"):
        sqlndcg.evaluate(RUN, judgments, ["r@3"], empty="error")


def test_empty_query_error_is_a_data_error():
    assert issubclass(EmptyQueryError, DataError)


# ---------------------------------------------------------------------------------------------------------------
# no raw exceptions, and the command line
# ---------------------------------------------------------------------------------------------------------------

ERROR_TYPES = (MetricError, SettingError, InputError, DataError, EmptyQueryError)


def test_every_error_type_is_a_sqlndcg_error_and_a_value_error():
    for error in ERROR_TYPES:
        assert issubclass(error, SqlndcgError)
        assert issubclass(error, ValueError)


@pytest.mark.parametrize(
    "call",
    [
        lambda: sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@3"], group_by="missing"),
        lambda: sqlndcg.evaluate(RUN.assign(score=[True, False, True]), JUDGMENTS),
        lambda: sqlndcg.evaluate(RUN.assign(doc_id=pd.to_datetime(["2020-01-01"] * 3)), JUDGMENTS),
        lambda: sqlndcg.evaluate(RUN, JUDGMENTS, [5]),
        lambda: sqlndcg.evaluate(["schema", ""], JUDGMENTS),
        lambda: sqlndcg.to_sql("runs", "qrels", ["ndcg@3"], preset="bogus"),
        lambda: sqlndcg.to_sql("runs", "qrels", ["ndcg@3"], dialect="no_such_dialect"),
        lambda: sqlndcg.example("nothing"),
    ],
    ids=["group-by", "boolean-score", "timestamp-id", "metric-int", "table-parts", "to-sql-preset",
         "to-sql-dialect", "example"],
)
def test_odd_inputs_raise_sqlndcg_errors_not_raw_exceptions(call):
    with pytest.raises(Exception) as info:
        call()
    raised = f"{type(info.value).__module__}.{type(info.value).__name__}: {info.value}"
    assert isinstance(info.value, SqlndcgError), raised
    assert not isinstance(info.value, duckdb.Error)
    # raised on purpose: no chained duckdb/sqlglot exception leaks as the context shown in a traceback
    assert info.value.__suppress_context__ or info.value.__context__ is None


def test_cli_reports_an_error_with_exit_code_2(tmp_path, capsys):
    run = tmp_path / "run.csv"
    pd.concat([RUN, RUN.iloc[[0]]]).to_csv(run, index=False)
    judgments = tmp_path / "qrels.csv"
    JUDGMENTS.to_csv(judgments, index=False)
    code = sqlndcg.cli.main(["evaluate", "--run", str(run), "--judgments", str(judgments), "-m", "ndcg@3"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("sqlndcg: error: run file")
    assert "query_id='q1', doc_id='a', copies=2" in err
    assert "Traceback" not in err


def test_cli_reports_a_metric_error(capsys):
    code = sqlndcg.cli.main(["evaluate", "--run", sqlndcg.example("run"), "--judgments", sqlndcg.example("qrels"),
                             "-m", "ndcg@0"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("sqlndcg: error: metric 'ndcg@0'")


def test_cli_reports_an_unknown_dialect_as_an_error(capsys):
    code = sqlndcg.cli.main(["sql", "--run", "runs", "--judgments", "qrels", "--dialect", "no_such_dialect"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("sqlndcg: error:")
    assert "no_such_dialect" in err
