"""The command line as people meet it when they get something wrong: every verb, run as a subprocess, answers a
mistake with one line on stderr naming the flag and what it allows, exit status 2 (130 on Ctrl-C), and knows
--version."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sqlndcg

CLI = str(Path(sys.executable).with_name("sqlndcg"))
RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
VERBS = ["evaluate", "sql", "trec_eval", "compare", "report", "labels", "agreement", "aggregate", "positions"]


def cli(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300, **kwargs)


@pytest.mark.parametrize("args, says", [
    (["evaluate", "--run", RUN, "--judgments", QRELS, "--gain", "expo"],
     "sqlndcg evaluate: error: argument --gain: invalid value 'expo': use exponential, linear, or a map of grade to "
     "gain like 1:1,2:3,3:7 (see sqlndcg evaluate --help)"),
    (["evaluate", "--run", RUN, "--judgments", QRELS, "--ties", "random"],
     "sqlndcg evaluate: error: argument --ties: invalid choice: 'random' (choose from 'doc_id', 'average', 'rank') "
     "(see sqlndcg evaluate --help)"),
    (["sql", "--run", "runs", "--judgments", "qrels", "--id-type", "float"],
     "sqlndcg sql: error: argument --id-type: invalid choice: 'float' (choose from 'text', 'integer') "
     "(see sqlndcg sql --help)"),
    (["evaluate", "--run", RUN], "sqlndcg evaluate: error: the following arguments are required: "
     "--judgments/--qrels (see sqlndcg evaluate --help)"),
    (["evaluate", "--run", RUN, "--judgments", QRELS, "--partitions", "many"],
     "sqlndcg evaluate: error: argument --partitions: invalid int value: 'many' (see sqlndcg evaluate --help)"),
    (["compare", "--run", RUN, "--judgments", QRELS, "--correction", "fdr"],
     "sqlndcg compare: error: argument --correction: invalid choice: 'fdr'"),
    (["frobnicate"], "sqlndcg: error: argument command: invalid choice: 'frobnicate'"),
])
def test_a_flag_mistake_is_one_line_naming_what_is_allowed(args, says):
    done = cli(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr  # no usage block
    assert done.stderr.startswith(says), done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_knows_its_version(verb):
    done = cli(verb, "--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"sqlndcg {sqlndcg.__version__}")


@pytest.mark.slow  # among the slowest of the quick subset; the full suite runs it
def test_ctrl_c_is_one_line_and_status_130():
    """Interrupted while reading the run from standard input (a pipe that never ends): exit 130, as shells expect."""
    proc = subprocess.Popen([CLI, "trec_eval", QRELS, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(8)  # past the imports (slow on a busy machine), blocked on standard input
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err == "sqlndcg: interrupted\n" and out == ""
