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
    assert out["settings"]["metrics"] == ["ndcg@5", "p@3", "ap"] and out["account"][0]["scored_queries"] == 3


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
