"""A TREC file is read once per call: its lines split into fields by one statement, into a table of the call that
the line check, the other checks and the metric statements then read. Splitting every line was most of the work of
reading a large TREC file, and each of an evaluation's statements did it again. What is shown (Result.sql, the
comparison's SQL) still reads the file, and runs on its own. DuckDB's query log tells which statements read a file.
"""

from __future__ import annotations

import math

import duckdb
import pytest

import sqlndcg
from sqlndcg.verbs import trec_eval

RUN = "q1 Q0 d1 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\nq1 Q0 d3 3 1.0 sys\nq2 Q0 d4 1 1.0 sys\n"
QRELS = "q1 0 d1 0\nq1 0 d2 2\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 1\n"


def _ndcg3(gain=lambda rel: 2 ** rel - 1) -> dict[str, float]:
    """By hand (exponential gain unless told): q1 ranks d1 (0), d2 (2), d3 (1); q2 retrieves d4 (1) of d4, d5 (1)."""
    q1 = (gain(2) / math.log2(3) + gain(1) / math.log2(4)) / (gain(2) + gain(1) / math.log2(3))
    q2 = gain(1) / (gain(1) + gain(1) / math.log2(3))
    return {"q1": q1, "q2": q2}


def _logged(con) -> list[str]:
    return [m for (m,) in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()]


def _con():
    con = duckdb.connect()
    con.execute("CALL enable_logging('QueryLog')")
    return con


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "my run.txt", tmp_path / "qrels.txt"  # no TREC extension: told apart by the first line
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return run, qrels


def test_evaluate_reads_each_trec_file_once(files):
    run, qrels = files
    con = _con()
    res = sqlndcg.evaluate(str(run), str(qrels), ["ndcg@3"], con=con)
    values = {r["query_id"]: r["ndcg@3"] for r in res.per_query.to_dicts()}
    assert values == pytest.approx(_ndcg3(), rel=1e-12)
    logged = _logged(con)
    for path in (run, qrels):
        reading = [s for s in logged if str(path) in s]
        told_apart = [s for s in reading if "LIMIT 1000" in s]  # the first lines only, to tell TREC from CSV
        split = [s for s in reading if s.startswith("CREATE TEMPORARY TABLE")]
        assert len(told_apart) == 1 and len(split) == 1 and len(reading) == 2, reading
    # nothing of the call is left on the caller's connection
    assert con.execute("SELECT COUNT(*) FROM duckdb_tables() WHERE table_name LIKE 'sqlndcg%'").fetchone()[0] == 0


def test_the_sql_shown_reads_the_files_and_runs_alone(files):
    run, qrels = files
    res = sqlndcg.evaluate(str(run), str(qrels), ["ndcg@3"])
    assert str(run) in res.sql and str(qrels) in res.sql and "sqlndcg_run_rows" not in res.sql
    rows = duckdb.connect().execute(res.sql).fetchall()  # a new connection: none of the call's tables
    assert dict(rows) == pytest.approx(_ndcg3(), rel=1e-12)


def test_comparison_sql_shown_reads_the_qrels_file(tmp_path, files):
    run, qrels = files
    other = tmp_path / "other.run"
    other.write_text(RUN.replace("3.0", "0.5"))  # d1 (not relevant) falls to the bottom of q1
    res = sqlndcg.compare({"a": str(run), "b": str(other)}, str(qrels), ["ndcg@3"], baseline="a")
    shown = str(res.sql)
    assert str(qrels) in shown and "sqlndcg_judgments_rows" not in shown
    assert len(duckdb.connect().execute(shown).fetchall()) == 1


def test_a_file_whose_first_lines_are_comments_is_still_told_apart(tmp_path):
    run, qrels = tmp_path / "long.txt", tmp_path / "qrels.txt"
    run.write_text("# a comment\n" * 1500 + RUN)  # past the first lines looked at: the whole file is read
    qrels.write_text(QRELS)
    res = sqlndcg.evaluate(str(run), str(qrels), ["ndcg@3"])
    assert {r["query_id"]: r["ndcg@3"] for r in res.per_query.to_dicts()} == pytest.approx(_ndcg3(), rel=1e-12)


def test_a_misread_line_is_named_from_the_file(tmp_path, files):
    _, qrels = files
    run = tmp_path / "bad.run"
    run.write_text(RUN.replace("q1 Q0 d3 3 1.0 sys", "q1 Q0 d3 3 high sys"))
    with pytest.raises(sqlndcg.DataError, match=r"bad\.run': 1 line\(s\) .* line 3: 'q1 Q0 d3 3 high sys'"):
        sqlndcg.evaluate(str(run), str(qrels), ["ndcg@3"])


def test_trec_eval_reads_each_file_once_and_leaves_nothing(files):
    run, qrels = files
    con = _con()
    options = trec_eval.Options(qrels=str(qrels), run=str(run), measures=["ndcg_cut.3"], per_query=True)
    out = trec_eval.compute(options, con)
    per_query = {q: float(v) for m, q, v in out.per_query if m == "ndcg_cut_3"}
    # trec_eval's ndcg_cut: linear gain; printed to 4 decimals
    assert per_query == pytest.approx(_ndcg3(gain=lambda rel: rel), abs=5e-5)
    logged = _logged(con)
    for path in (run, qrels):
        assert len([s for s in logged if str(path) in s]) == 1
    assert con.execute("SELECT COUNT(*) FROM duckdb_tables() WHERE table_name LIKE 'te_%'").fetchone()[0] == 0
    assert con.execute("SELECT COUNT(*) FROM duckdb_views() WHERE view_name LIKE 'te_%'").fetchone()[0] == 0


def test_any_blanks_between_and_around_fields_read_as_single_spaces(tmp_path, files):
    """Lines with single spaces are split on the space, the others (tabs, runs of blanks, blanks at either end, a
    vertical tab) by regular expressions: the same fields either way, and blank lines are no rows."""
    _, qrels = files
    messy = tmp_path / "messy.run"
    messy.write_bytes(b"q1 Q0 d1 1 3.0 sys\n"
                      b"\n   \t \n"
                      b"q1\tQ0\td2\t2\t2.0\tsys\n"
                      b"  q1  Q0 d3   3 1.0 sys  \n"
                      b"q2 Q0 d4 1 1.0 sys extra fields\x0b\n")
    res = sqlndcg.evaluate(str(messy), str(qrels), ["ndcg@3"])
    assert res.account.to_dicts()[0]["run_rows"] == 4
    assert {r["query_id"]: r["ndcg@3"] for r in res.per_query.to_dicts()} == pytest.approx(_ndcg3(), rel=1e-12)
