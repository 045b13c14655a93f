"""The installed `sqlndcg` command on files it is given, as a user runs it: every input format (gzip too), several
runs at once, and every output format parsed back and compared with evaluate()."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import sqlndcg

SQLNDCG = str(Path(sys.executable).with_name("sqlndcg"))
METRICS = ["ndcg@5", "p@3", "map"]


def sqlndcg_cli(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SQLNDCG, *args], capture_output=True, text=True, input=stdin, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    run = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3, "doc_id": ["a", "b", "c", "d", "a", "e", "f"],
                        "score": [4.0, 3.0, 3.0, 1.0, 2.0, 2.0, 1.0]})
    run2 = run.assign(score=run.score[::-1].to_numpy())
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["b", "d", "e", "z", "a"],
                          "rel": [2.0, 1.0, 3.0, 1.0, 1.0]})
    run.to_parquet(d / "run.parquet")
    run.to_csv(d / "run.csv", index=False)
    run.to_csv(d / "run.tsv", index=False, sep="\t")
    run2.to_csv(d / "other.csv", index=False)
    qrels.to_csv(d / "qrels.csv", index=False)
    trec = "".join(f"{r.query_id} Q0 {r.doc_id} {i + 1} {r.score} sysA extra fields\n" for i, r in enumerate(run.itertuples()))
    with gzip.open(d / "run.run.gz", "wt") as f:
        f.write(trec)
    (d / "qrels.qrels").write_text("# judged by hand\n" + "".join(
        f"{r.query_id} 0 {r.doc_id} {int(r.rel)}\n" for r in qrels.itertuples()))
    return d, run, run2, qrels


def expected(run, qrels):
    return sqlndcg.evaluate(run, qrels, METRICS)


def close_rows(got: list[dict], want: list[dict]):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for k, v in w.items():
            if isinstance(v, float):
                assert math.isclose(float(g[k]), v, abs_tol=1e-9), (k, g[k], v)
            elif v is not None:
                assert str(g[k]) == str(v), (k, g[k], v)


@pytest.mark.parametrize("run_file", ["run.parquet", "run.csv", "run.tsv", "run.run.gz"])
def test_every_input_format_gives_evaluates_numbers(files, run_file):
    d, run, _, qrels = files
    judgments = "qrels.qrels" if run_file.endswith(".gz") else "qrels.csv"
    done = sqlndcg_cli("evaluate", "--run", str(d / run_file), "--judgments", str(d / judgments), "-m",
                       ",".join(METRICS), "--format", "json", "--per-query")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    want = expected(run, qrels)
    close_rows(out["per_query"], want.per_query.to_dicts())
    close_rows(out["summary"], want.summary.to_dicts())
    assert out["settings"]["metrics"] == ["ndcg@5", "p@3", "map"] and out["account"][0]["scored_queries"] == 3


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_every_output_format_parses_back(files, fmt, tmp_path):
    d, run, _, qrels = files
    out_file = tmp_path / f"out.{fmt}"
    done = sqlndcg_cli("evaluate", "--run", str(d / "run.csv"), "--judgments", str(d / "qrels.csv"), "-m",
                       ",".join(METRICS), "--format", fmt, "--per-query", "--output", str(out_file))
    assert done.returncode == 0, done.stderr
    if fmt == "parquet":
        got = pd.read_parquet(out_file).to_dict("records")
    else:
        got = list(csv.DictReader(io.StringIO(out_file.read_text()), delimiter="\t" if fmt == "tsv" else ","))
    close_rows(got, expected(run, qrels).per_query.to_dicts())


def test_several_runs_at_once_one_block_each(files):
    d, run, run2, qrels = files
    done = sqlndcg_cli("evaluate", "--run", str(d / "run.csv"), "--run", str(d / "other.csv"), "--judgments",
                       str(d / "qrels.csv"), "-m", ",".join(METRICS), "--format", "json")
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert [r["run"] for r in runs] == ["run.csv", "other.csv"]
    close_rows(runs[0]["summary"], expected(run, qrels).summary.to_dicts())
    close_rows(runs[1]["summary"], expected(run2, qrels).summary.to_dicts())
    table = sqlndcg_cli("evaluate", "--run", str(d / "run.csv"), "--run", str(d / "other.csv"), "--judgments",
                        str(d / "qrels.csv"))
    assert "== run run.csv ==" in table.stdout and "== run other.csv ==" in table.stdout


@pytest.mark.parametrize("args, message", [
    (["--run", "nope.csv", "--judgments", "nope.csv"], "does not exist"),
    (["--run", "{d}/run.csv", "--judgments", "{d}/qrels.csv", "-m", "ndgc@5"], "unknown metric 'ndgc@5'"),
    (["--run", "{d}/run.csv", "--judgments", "{d}/qrels.csv", "--database", "missing.duckdb"], "no such DuckDB"),
])
def test_errors_are_one_line_and_exit_2(files, args, message):
    d = files[0]
    done = sqlndcg_cli("evaluate", *[a.format(d=d) for a in args])
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_version():
    done = sqlndcg_cli("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"sqlndcg {sqlndcg.__version__}"


@pytest.mark.parametrize("files_text, args, message", [
    (("1 0 a 1\n", "1 Q0 a 1 2.0\n"), [], r"run file '.*r\.run': 1 line\(s\) do not have the at least 6 "
                                          r"whitespace-separated fields.*line 1: '1 Q0 a 1 2\.0'"),
    (("1 0 a\n", "1 Q0 a 1 2.0 x\n"), [], r"judgments file '.*q\.qrels': 1 line\(s\) do not have the 4 .*line 1"),
    (("1 0 a one\n", "1 Q0 a 1 2.0 x\n"), [], r"judgments file '.*q\.qrels': 1 line\(s\) .*numbers where numbers"),
    (("1 0 a 1\n", "1 Q0 a 1 high x\n"), [], r"run file '.*r\.run': 1 line\(s\) .*line 1: '1 Q0 a 1 high x'"),
    (("1 0 a 1\n", ""), [], r"run file '.*r\.run' is empty"),
    (("", "1 Q0 a 1 2.0 x\n"), [], r"judgments file '.*q\.qrels' is empty"),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["-m", "ndcg@5,nonsense@3"], r"unknown metric 'nonsense@3'; known metrics: "),
    (("1 0 a 1\n", "1 Q0 a 1 2.0 x\n"), ["--judgments", "{d}/missing.qrels"],
     r"judgments file '.*missing\.qrels' does not exist"),
], ids=["run-5-fields", "qrels-3-fields", "label-text", "score-text", "empty-run", "empty-qrels", "unknown-metric",
        "missing-qrels"])
def test_evaluate_bad_files_are_one_line_and_exit_2(tmp_path, files_text, args, message):
    """The errors `sqlndcg trec_eval` gives for the same files (tests/test_trec_eval.py), from `evaluate`."""
    import re

    (tmp_path / "q.qrels").write_text(files_text[0])
    (tmp_path / "r.run").write_text(files_text[1])
    judgments = [] if "--judgments" in args else ["--judgments", str(tmp_path / "q.qrels")]
    done = sqlndcg_cli("evaluate", "--run", str(tmp_path / "r.run"), *judgments,
                       *[a.format(d=tmp_path) for a in args])
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.startswith("sqlndcg: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert re.search(message, done.stderr), done.stderr


def test_query_weights_file_gives_the_weighted_summary(files, tmp_path):
    """--query-weights and --weight-column: the summary's mean is numpy's weighted average of the per-query values."""
    import numpy as np

    d, run, _, qrels = files
    weights = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "traffic": [3.0, 1.0, 0.5]})
    weights.to_csv(tmp_path / "traffic.csv", index=False)
    done = sqlndcg_cli("evaluate", "--run", str(d / "run.csv"), "--judgments", str(d / "qrels.csv"), "-m", "ndcg@3",
                       "--query-weights", str(tmp_path / "traffic.csv"), "--weight-column", "traffic",
                       "--format", "csv")
    assert done.returncode == 0, done.stderr
    got = float(next(csv.DictReader(io.StringIO(done.stdout)))["ndcg@3"])
    per_query = {r["query_id"]: r["ndcg@3"] for r in sqlndcg.evaluate(run, qrels, ["ndcg@3"]).per_query.to_dicts()}
    want = np.average([per_query[q] for q in weights.query_id], weights=weights.traffic)
    assert abs(got - want) < 1e-12
    missing = sqlndcg_cli("evaluate", "--run", str(d / "run.csv"), "--judgments", str(d / "qrels.csv"),
                          "--query-weights", str(tmp_path / "traffic.csv"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "weight" in missing.stderr
