"""Failures reading inputs are one line naming the input, where, the cause and the fix (issue 20): DuckDB's
multi-line CSV errors (encoding, long lines, text in a number column, mixed line ends), trec_eval's files and
standard input, a text score column, DataFusion's error classes, threads sharing one DuckDB connection, and Spark's
log on a missing table."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import duckdb
import pytest

import sqlndcg
from sqlndcg.errors import DataError, InputError, SqlndcgError

JUDGMENTS = "query_id,doc_id,rel\nq0,d0,1\nq0,d1,2\nq1,d0,1\n"
RUN = "query_id,doc_id,score\nq0,d0,1.0\nq0,d1,0.5\nq1,d0,0.3\n"


def cli(*args, cwd=None, stdin=None):
    """``sqlndcg ARGS`` as a user runs it: (exit status, stderr)."""
    done = subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, cwd=cwd, input=stdin,
                          timeout=300)
    return done.returncode, done.stderr.decode()


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "j.csv").write_text(JUDGMENTS)
    (tmp_path / "r.csv").write_text(RUN)
    return tmp_path


def evaluate_cli(run, cwd):
    return cli("evaluate", "--run", run, "--judgments", "j.csv", "-m", "ndcg@10", cwd=cwd)


def evaluate_py(run, cwd):
    return sqlndcg.evaluate(str(cwd / run), str(cwd / "j.csv"), ["ndcg@10"])


# -- DuckDB's CSV errors ------------------------------------------------------------------------------------------

def test_latin1_csv_says_not_utf8_and_how_to_reencode(files):
    (files / "latin1.csv").write_bytes("query_id,doc_id,score\nq0,café,1.0\nq1,d1,0.5\n".encode("latin-1"))
    code, err = evaluate_cli("latin1.csv", files)
    line = one_line(err)
    assert code == 2
    assert "run file 'latin1.csv' is not UTF-8 text" in line and "line 2" in line
    assert "iconv -f latin1 -t utf-8 latin1.csv > latin1.utf8.csv" in line
    with pytest.raises(InputError, match="is not UTF-8 text .*iconv"):
        evaluate_py("latin1.csv", files)


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_a_20mb_line_is_said_to_be_too_long(files):
    with open(files / "long.csv", "w") as f:
        f.write("query_id,doc_id,score\nq0,d0,1.0\nq1," + "x" * 20_000_000 + ",0.5\n")
    code, err = evaluate_cli("long.csv", files)
    line = one_line(err)
    assert code == 2 and len(line) < 400
    assert "run file 'long.csv' has a line of 20000008 bytes, starting 'q1,xxx" in line
    assert "more than DuckDB reads as one line" in line and "a quote left open" in line
    with pytest.raises(InputError, match="has a line of 20000008 bytes"):
        evaluate_py("long.csv", files)


def test_text_after_300k_integer_ids_names_file_line_column_and_value(files):
    rows = "".join(f"q{i % 100},{i},1.0\n" for i in range(300_000))
    (files / "ids.csv").write_text("query_id,doc_id,score\n" + rows + "q5,abc,1.0\n")
    code, err = evaluate_cli("ids.csv", files)
    line = one_line(err)
    assert code == 2
    assert "run file 'ids.csv', line 300002: column 'doc_id' holds 'abc', not a number" in line
    assert "types={'doc_id': 'VARCHAR'}" in line and "ids.parquet" in line
    with pytest.raises(InputError, match="line 300002: column 'doc_id' holds 'abc'"):
        evaluate_py("ids.csv", files)


@pytest.mark.parametrize("rows", [3, 50_000], ids=["sniffed", "past-the-sample"])
def test_mixed_line_ends_are_read_as_the_clean_file(files, rows):
    """Refused with the fix before issue 28; read now (tests/test_reading_files.py has the numbers by hand)."""
    lines = [f"q{i % 10},d{i},0.{i % 7}".encode() for i in range(rows)]
    half = len(lines) // 2 + 1
    body = b"query_id,doc_id,score\r\n" + b"\r\n".join(lines[:half]) + b"\r\n" + b"\n".join(lines[half:]) + b"\n"
    (files / "mixed.csv").write_bytes(body)
    (files / "clean.csv").write_bytes(body.replace(b"\r\n", b"\n"))
    code, err = evaluate_cli("mixed.csv", files)
    assert code == 0, err
    assert evaluate_py("mixed.csv", files).summary.to_dicts() == evaluate_py("clean.csv", files).summary.to_dicts()


@pytest.mark.parametrize("chunk", [1, 2, 3, 1 << 20])
def test_mixed_line_ends_are_told_from_one_kind_across_chunk_boundaries(tmp_path, chunk):
    from sqlndcg.run.engines.duckdb_engine import mixed_line_ends

    for body, mixed in ((b"a,b\r\nc,d\r\n", False), (b"a,b\nc,d\n", False), (b"a,b\r\nc,d\ne,f\r\n", True)):
        (tmp_path / "f.csv").write_bytes(body)
        assert mixed_line_ends(str(tmp_path / "f.csv"), chunk) is mixed, (body, chunk)


def test_a_readable_csv_still_evaluates(files):
    code, err = evaluate_cli("r.csv", files)
    assert code == 0, err


# -- trec_eval: the file that failed, standard input by that name ---------------------------------------------------

@pytest.fixture
def trec(tmp_path):
    (tmp_path / "ok.qrels").write_text("q0 0 d0 1\n")
    (tmp_path / "ok.run").write_text("q0 Q0 d0 1 1.0 t\n")
    (tmp_path / "latin1.run").write_bytes("q0 Q0 café 1 1.0 t\n".encode("latin-1"))
    (tmp_path / "empty.run").write_text("")
    return tmp_path


def test_trec_eval_names_the_file_that_failed(trec):
    code, err = cli("trec_eval", "ok.qrels", "latin1.run", cwd=trec)
    line = one_line(err)
    assert code == 2 and line.startswith("sqlndcg: error: run file 'latin1.run' is not UTF-8 text")
    assert "ok.qrels" not in line
    code, err = cli("trec_eval", "latin1.run", "ok.run", cwd=trec)
    assert code == 2 and "qrels file 'latin1.run' is not UTF-8" in one_line(err) and "ok.run" not in err


def test_trec_eval_calls_stdin_standard_input(trec):
    code, err = cli("trec_eval", "ok.qrels", "-", cwd=trec, stdin=(trec / "latin1.run").read_bytes())
    line = one_line(err)
    assert code == 2 and "run from standard input is not UTF-8 text" in line and "sqlndcg_stdin" not in line
    code, err = cli("trec_eval", "ok.qrels", "-", cwd=trec, stdin=b"")
    line = one_line(err)
    assert code == 2 and "run from standard input is empty" in line and "sqlndcg_stdin" not in line
    code, err = cli("trec_eval", "ok.qrels", "-", cwd=trec, stdin=b"q0 Q0 d0 1 2\n")  # no tag
    assert code == 2 and "run from standard input: 1 malformed line(s), e.g. line 1" in one_line(err)


def test_trec_eval_empty_file_suggests_no_flag_it_lacks(trec):
    code, err = cli("trec_eval", "ok.qrels", "empty.run", cwd=trec)
    line = one_line(err)
    assert code == 2 and "run file 'empty.run' is empty" in line and "--run-format" not in line


# -- one DuckDB connection shared by threads --------------------------------------------------------------------------

@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_threads_sharing_a_connection_get_the_right_numbers_or_a_clear_error():
    con = duckdb.connect()
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q0', 'd0', 1.0), ('q0', 'd1', 0.5), ('q1', 'd0', 0.3)) "
                "AS t(query_id, doc_id, score)")
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q0', 'd1', 2), ('q1', 'd0', 1)) AS t(query_id, doc_id, rel)")
    expected = sqlndcg.evaluate("run", "qrels", ["ndcg@10", "map"], con=con).per_query.to_dicts()

    def one(_):
        try:
            return sqlndcg.evaluate("run", "qrels", ["ndcg@10", "map"], con=con).per_query.to_dicts()
        except SqlndcgError as exc:
            return exc

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(8 * 15)))
    wrong = [r for r in results if not isinstance(r, SqlndcgError) and r != expected]
    assert not wrong
    errors = [r for r in results if isinstance(r, SqlndcgError)]
    assert all(len(str(e).splitlines()) == 1 for e in errors)
    assert len(errors) < len(results)


# -- a text score column shows the values that made it text ---------------------------------------------------------

def test_text_score_column_shows_the_first_offending_row(files):
    (files / "text.csv").write_text("query_id,doc_id,score\nq0,d0,1.0\nq0,d1,high\n")
    code, err = evaluate_cli("text.csv", files)
    line = one_line(err)
    assert code == 2
    assert "run file 'text.csv': column 'score' holds VARCHAR, but must hold numbers" in line
    assert "e.g. (query_id='q0', doc_id='d1', score='high')" in line
    with pytest.raises(InputError, match=r"1 row\(s\) are not numbers, e.g. \(query_id='q0', doc_id='d1', "
                                         r"score='high'\)"):
        evaluate_py("text.csv", files)


@pytest.mark.parametrize("engine", ["duckdb", "datafusion"])
def test_text_label_column_shows_the_first_offending_row(engine):
    import pandas as pd

    con = None if engine == "duckdb" else __import__("datafusion").SessionContext()
    run = pd.DataFrame({"query_id": ["q0", "q0"], "doc_id": ["d0", "d1"], "score": [1.0, 0.5]})
    judgments = pd.DataFrame({"query_id": ["q0", "q0"], "doc_id": ["d0", "d1"], "rel": ["1", "two"]})
    with pytest.raises(InputError, match=r"judgments \(DataFrame\): column 'rel' holds .* e.g. "
                                         r"\(query_id='q0', doc_id='d1', rel='two'\)"):
        sqlndcg.evaluate(run, judgments, ["ndcg@10"], con=con)


# -- DataFusion: sqlndcg's own errors keep their class ---------------------------------------------------------------

def test_datafusion_engine_errors_never_catch_sqlndcg_errors():
    import datafusion
    from sqlndcg.errors import EmptyQueryError
    from sqlndcg.run.engines import for_connection

    eng = for_connection(datafusion.SessionContext())
    for own in (DataError, EmptyQueryError, InputError, SqlndcgError):
        assert not issubclass(own, eng.errors), own
    with pytest.raises(eng.errors):
        eng.fetch("SELECT * FROM no_such_table")


def test_datafusion_data_problems_are_data_errors():
    import pandas as pd

    import datafusion
    ctx = datafusion.SessionContext()
    run = pd.DataFrame({"query_id": ["q0", "q0", "q1"], "doc_id": ["d0", "d0", "d1"], "score": [1.0, 0.5, 0.2]})
    judgments = pd.DataFrame({"query_id": ["q0", "q1"], "doc_id": ["d0", "d1"], "rel": [1, 0]})
    with pytest.raises(DataError, match="occur more than once"):
        sqlndcg.evaluate(run, judgments, ["ndcg@10"], con=ctx)
    with pytest.raises(DataError, match="occur more than once"):
        sqlndcg.compare({"a": run.iloc[1:], "b": run}, judgments, ["ndcg@10"], con=ctx)
    from sqlndcg.errors import EmptyQueryError

    with pytest.raises(EmptyQueryError):
        sqlndcg.evaluate(run.iloc[1:], judgments, ["ndcg@10"], con=ctx, empty="error")


# -- Spark: no log ahead of sqlndcg's line -----------------------------------------------------------------------------

SPARK_MISSING_TABLE = """
import os, sys
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
print("== sqlndcg starts", file=sys.stderr, flush=True)
import sqlndcg
try:
    sqlndcg.evaluate("no_such_run", "no_such_judgments", ["ndcg@10"], con=spark)
except sqlndcg.InputError as exc:
    print(f"sqlndcg: error: {exc}", file=sys.stderr, flush=True)
spark.stop()
"""


@pytest.mark.engine
def test_spark_missing_table_is_one_line_on_stderr(tmp_path):
    """A user's own local session (default log settings, as a user has them): after the session starts, stderr
    holds sqlndcg's line only, not pyspark's query log with the JVM's stack trace."""
    import pyspark  # noqa: F401  (the test extra has it; missing is a failure)
    done = subprocess.run([sys.executable, "-c", SPARK_MISSING_TABLE], capture_output=True, timeout=600,
                          cwd=tmp_path)
    err = done.stderr.decode()
    after = err.split("== sqlndcg starts\n", 1)[-1].strip().splitlines()
    assert done.returncode == 0 and "== sqlndcg starts" in err, err
    assert after == [after[0]] and after[0].startswith("sqlndcg: error: run table 'no_such_run'"), err


def test_spark_query_loggers_are_quiet_only_during_sqlndcg(spark):
    """With the shared session: pyspark's query loggers record nothing while sqlndcg refuses a missing table, and
    are as the user left them afterwards."""
    import logging

    from sqlndcg.run.engines.spark_engine import _query_loggers

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    loggers = _query_loggers()
    keep = Keep()
    for logger in loggers:
        logger.addHandler(keep)
    try:
        with pytest.raises(InputError, match="run table 'no_such_run': no table or view of that name"):
            sqlndcg.evaluate("no_such_run", "no_such_judgments", ["ndcg@10"], con=spark)
        assert records == []
        assert [logger.disabled for logger in loggers] == [False] * len(loggers)
    finally:
        for logger in loggers:
            logger.removeHandler(keep)
