"""The command line prints what the Python API computes, in text, CSV and JSON, and the SQL it would run."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import duckdb
import pytest

import sqlndcg
from sqlndcg.cli import main

RUN = sqlndcg.example("run")
QRELS = sqlndcg.example("qrels")
METRICS = ["ndcg@5", "p@5", "map"]  # the CLI is given map too: the columns are named as asked
BASE = ["evaluate", "--run", RUN, "--judgments", QRELS, "-m", "ndcg@5,p@5", "-m", "map", "--group-by", "tag"]


@pytest.fixture(scope="module")
def api_result():
    return sqlndcg.evaluate(RUN, QRELS, METRICS, group_by="tag")


def summary_lines(text: str) -> dict:
    """{(tag, metric): mean} from the text summary's rows ("bm25  ndcg@5  0.1916  [..., ...]  12")."""
    found = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] in ("bm25", "rerank") and fields[1] in METRICS:
            found[(fields[0], fields[1])] = fields[2]
    return found


def test_the_example_has_two_systems(api_result):
    assert api_result.summary.column("tag") == ["bm25", "rerank"]
    # the example's headline numbers (also in the evaluate docstring)
    assert [round(v, 4) for v in api_result.summary.column("ndcg@5")] == [0.1916, 0.4913]


def test_evaluate_prints_the_summary_means_of_the_api(capsys, api_result):
    assert main(BASE) == 0
    out = capsys.readouterr().out
    printed = summary_lines(out)
    expected = {(r["tag"], m): f"{r[m]:.4f}" for r in api_result.summary.to_dicts() for m in METRICS}
    assert printed == expected
    assert ("bm25", "ndcg@5") in printed and printed[("bm25", "ndcg@5")] == "0.1916"
    # the settings are printed with the numbers
    assert "gain=exponential" in out and "ideal=judgments" in out and "ties=doc_id" in out


def test_evaluate_prints_the_confidence_interval_and_count(capsys, api_result):
    assert main(BASE) == 0
    out = capsys.readouterr().out
    row = api_result.summary.to_dicts()[0]
    assert f"[{row['ndcg@5_ci_low']:.4f}, {row['ndcg@5_ci_high']:.4f}]" in out
    line = next(ln for ln in out.splitlines() if ln.split()[:2] == ["bm25", "ndcg@5"])
    assert line.split()[-1] == str(row["ndcg@5_count"])


def test_evaluate_csv_is_the_summary_table(capsys, api_result):
    assert main(BASE + ["--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert tuple(rows[0]) == api_result.summary.columns
    assert len(rows) == 1 + len(api_result.summary.rows)
    for printed, row in zip(rows[1:], api_result.summary.rows):
        assert printed[0] == row[0]
        for text, value in zip(printed[1:], row[1:]):
            assert (text == "" and value is None) or float(text) == pytest.approx(value, rel=1e-15)


def test_evaluate_json_carries_summary_per_query_settings_and_account(capsys, api_result):
    assert main(BASE + ["--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["summary"] == api_result.summary.to_dicts()
    assert printed["per_query"] == api_result.per_query.to_dicts()
    assert printed["account"] == api_result.account.to_dicts()
    assert printed["settings"] == json.loads(json.dumps(api_result.settings))


def test_evaluate_json_per_query(capsys, api_result):
    assert main(BASE + ["--format", "json", "--per-query"]) == 0
    printed = json.loads(capsys.readouterr().out)["per_query"]
    assert printed == api_result.per_query.to_dicts()
    assert {(r["tag"], r["query_id"]) for r in printed} >= {("bm25", "q1"), ("rerank", "q12")}


def test_evaluate_csv_per_query(capsys, api_result):
    assert main(BASE + ["--format", "csv", "--per-query"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert tuple(rows[0]) == api_result.per_query.columns == ("tag", "query_id", *METRICS)
    assert [tuple(r[:2]) for r in rows[1:]] == [r[:2] for r in api_result.per_query.rows]


def test_evaluate_text_per_query_follows_the_summary(capsys, api_result):
    assert main(BASE + ["--per-query"]) == 0
    out = capsys.readouterr().out
    assert summary_lines(out)  # the summary is still there
    header = next(ln for ln in out.splitlines() if ln.split()[:2] == ["tag", "query_id"])
    assert header.split() == ["tag", "query_id", *METRICS]
    q1 = next(r for r in api_result.per_query.to_dicts() if r["tag"] == "bm25" and r["query_id"] == "q1")
    line = next(ln for ln in out.splitlines() if ln.split()[:2] == ["bm25", "q1"])
    assert line.split()[2:] == [f"{q1[m]:.4f}" for m in METRICS]


def test_evaluate_settings_reach_the_api(capsys):
    args = BASE + ["--format", "json", "--preset", "trec_eval", "--gain", "1:1,2:3,3:7", "--threshold", "2",
                   "--short-lists", "truncate", "--queries", "both"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)["summary"]
    expected = sqlndcg.evaluate(RUN, QRELS, METRICS, group_by="tag", preset="trec_eval", gain={1: 1, 2: 3, 3: 7},
                                threshold=2, short_lists="truncate", queries="both")
    assert printed == expected.summary.to_dicts()
    # these settings change the numbers, so the comparison above is not vacuous
    assert printed != sqlndcg.evaluate(RUN, QRELS, METRICS, group_by="tag").summary.to_dicts()


def test_evaluate_with_a_database_file(tmp_path, capsys, api_result):
    path = str(tmp_path / "eval.duckdb")
    con = duckdb.connect(path)
    con.execute(f"CREATE TABLE runs AS SELECT * FROM read_csv('{RUN}', delim=' ', header=false, "
                "columns={'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', 'rank': 'BIGINT', "
                "'score': 'DOUBLE', 'tag': 'VARCHAR'})")
    con.execute(f"CREATE TABLE qrels AS SELECT * FROM read_csv('{QRELS}', delim=' ', header=false, "
                "columns={'query_id': 'VARCHAR', 'iter': 'VARCHAR', 'doc_id': 'VARCHAR', 'rel': 'DOUBLE'})")
    con.close()
    args = ["evaluate", "--database", path, "--run", "runs", "--judgments", "qrels", "-m", "ndcg@5,p@5,map",
            "--group-by", "tag", "--format", "json"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)["summary"]
    assert printed
    for got, want in zip(printed, api_result.summary.to_dicts()):
        assert got["tag"] == want["tag"]
        assert got["ndcg@5"] == pytest.approx(want["ndcg@5"], rel=1e-12)


def test_sql_prints_sql_that_duckdb_runs(capsys, api_result):
    args = ["sql", "--run", RUN, "--judgments", QRELS, "-m", "ndcg@5,p@5,map", "--group-by", "tag"]
    assert main(args) == 0
    sql = capsys.readouterr().out
    assert sql.lstrip().upper().startswith("WITH")
    cur = duckdb.connect().execute(sql)
    columns = tuple(d[0] for d in cur.description)
    assert columns == api_result.per_query.columns
    rows = cur.fetchall()
    assert [r[:2] for r in rows] == [r[:2] for r in api_result.per_query.rows]
    for got, want in zip(rows, api_result.per_query.rows):
        assert got[2:] == pytest.approx(want[2:], rel=1e-12)


def test_sql_for_table_names_equals_to_sql(capsys):
    assert main(["sql", "--run", "runs", "--judgments", "qrels", "-m", "ndcg@10", "--gain", "linear"]) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], gain="linear").strip()


def test_sql_in_another_dialect(capsys):
    assert main(["sql", "--run", "runs", "--judgments", "qrels", "-m", "ndcg@10", "--dialect", "postgres"]) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], dialect="postgres").strip()
    assert "DOUBLE PRECISION" in printed


def _python_m(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, text=True, timeout=60)


def test_python_dash_m_sqlndcg_runs(api_result):
    proc = _python_m(*BASE, "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["tag"] for r in rows] == ["bm25", "rerank"]
    for printed, want in zip(rows, api_result.summary.to_dicts()):
        assert float(printed["ndcg@5"]) == pytest.approx(want["ndcg@5"], rel=1e-15)


def test_python_dash_m_sqlndcg_reports_errors_with_exit_code_2():
    proc = _python_m("evaluate", "--run", RUN, "--judgments", QRELS, "-m", "ndcg@5")
    assert proc.returncode == 2
    assert proc.stdout == ""
    # without --group-by tag the two systems' rows are duplicate (query, document) pairs
    assert proc.stderr.startswith("sqlndcg: error: run file")
    assert "occur more than once" in proc.stderr and "query_id='q1', doc_id='A'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_python_dash_m_sqlndcg_help():
    proc = _python_m("--help")
    assert proc.returncode == 0
    assert "evaluate" in proc.stdout and "sql" in proc.stdout
