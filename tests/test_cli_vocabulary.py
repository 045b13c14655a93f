"""The command line speaks in flags: a fix a message names as a Python keyword (``query_id=``, ``empty='zero'``)
reaches the terminal as the flag that gives it, while rows shown (``query_id='q1'``) and metric parameters
(``P(rel=2)@5``) stay as they are."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sqlndcg
from sqlndcg.cli.common import flag_named


@pytest.mark.parametrize("python, command_line", [
    ("threshold=0: must be positive", "--threshold=0: must be positive"),
    ("threshold must be a finite number", "--threshold must be a finite number"),
    ("Name the right one with query_id=.", "Name the right one with --query-id-column."),
    ("Name the right one with judgments_query_id=.", "Name the right one with --judgments-query-id-column."),
    ("Use empty='zero' to score them 0 or empty='skip' to leave them out",
     "Use --empty='zero' to score them 0 or --empty='skip' to leave them out"),
    ("Name one with score= (higher is better) or rank= (1 is best).",
     "Name one with --score-column (higher is better) or --rank-column (1 is best)."),
    ("Name the right one with weight_column=", "Name the right one with --weight-column"),
    # rows shown and metrics' own parameters are not fixes
    ("e.g. (query_id='q1', doc_id='A', copies=2)", "e.g. (query_id='q1', doc_id='A', copies=2)"),
    ("metric 'P(rel=0)@5': the threshold must be positive", "metric 'P(rel=0)@5': the threshold must be positive"),
    ("write rbp(p=0.8, rel=2) or use rbp(p=0.9)", "write rbp(p=0.8, rel=2) or use rbp(p=0.9)"),
    ("set nothing=1", "set nothing=1"),  # not a keyword of the API
])
def test_a_fix_named_as_a_keyword_is_shown_as_its_flag(python, command_line):
    assert flag_named(python) == command_line


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, text=True)


def test_a_missing_column_names_the_flag_for_the_input_that_lacks_it(tmp_path):
    run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
    renamed = tmp_path / "run.csv"
    renamed.write_text("qid,doc_id,score,tag\nq1,A,1.0,bm25\n")
    done = _cli("evaluate", "--run", str(renamed), "--judgments", qrels, "--query-id-column", "qid")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "judgments file" in done.stderr and "has no query id column 'qid'" in done.stderr
    assert done.stderr.rstrip().endswith("Name the right one with --judgments-query-id-column.")
    done = _cli("evaluate", "--run", run, "--judgments", qrels, "--query-id-column", "qid", "--group-by", "tag")
    assert done.returncode == 2 and "run file" in done.stderr
    assert done.stderr.rstrip().endswith("Name the right one with --query-id-column."), done.stderr
    assert "formats:" not in done.stderr  # the file was read right; only the name is wrong


def test_the_python_api_keeps_its_keywords():
    with pytest.raises(sqlndcg.errors.InputError, match=r"Name the right one with query_id=\.$"):
        sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), query_id="qid", group_by="tag")


def test_compare_without_the_system_column_names_the_system_flag():
    run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
    done = _cli("compare", "--run", run, "--judgments", qrels, "-m", "ndcg@5")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "has no system column 'system'" in done.stderr
    assert done.stderr.rstrip().endswith("Name the right one with --system.")
    with pytest.raises(sqlndcg.errors.InputError, match=r"has no system column 'system'.*with system=\.$"):
        sqlndcg.compare(run, qrels, ["ndcg@5"])
