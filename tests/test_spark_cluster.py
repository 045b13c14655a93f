"""sqlndcg on Spark the way it runs away from a laptop: a standalone cluster (a master and two workers, separate
JVMs, started by tests/servers.py) driven by a classic SparkSession, and a Spark Connect server on that cluster
(how Databricks Connect and serverless clients reach Spark). Each gives DuckDB's numbers. The Spark clients run in
their own processes (tests/spark_client.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import sqlndcg
from adversarial import COMBINATIONS
from test_engines import frames

CLIENT = Path(__file__).with_name("spark_client.py")
CHOSEN = ("defaults", "trec_eval", "trec_eval_measures")


def run_client(*args: str) -> dict:
    argv = [sys.executable, str(CLIENT), *args] + [a for c in CHOSEN for a in ("--combination", c)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def same(got: dict, want, label: str) -> None:
    assert got["columns"] == list(want.columns), label
    assert len(got["rows"]) == len(want.rows), label
    for g, w in zip(got["rows"], want.rows):
        for column, a, b in zip(want.columns, g, w):
            if isinstance(b, (int, float)) and not isinstance(b, bool) and a is not None:
                assert math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9), f"{label} {w[:2]} {column}"
            else:
                assert str(a) == str(b), f"{label} {w[:2]} {column}: {a!r} != {b!r}"


def check(out: dict) -> None:
    for ids in ("text", "int"):
        run_df, qrels_df = frames(ids)
        for name in CHOSEN:
            metrics, settings = COMBINATIONS[name]
            want = sqlndcg.evaluate(run_df, qrels_df, metrics=metrics, group_by="system", **settings)
            for part in ("per_query", "summary", "account"):
                same(out["results"][f"{ids}/{name}"][part], getattr(want, part), f"{ids}/{name} {part}")
    run_df, qrels_df = frames("text")
    want = sqlndcg.evaluate(run_df, qrels_df, metrics=["ndcg@10", "ap"], group_by="system")
    same(out["frames"]["per_query"], want.per_query, "frames per_query")
    same(out["frames"]["summary"], want.summary, "frames summary")
    assert out["to_sql_starts"].startswith("WITH run_rows AS")


def test_a_standalone_cluster_gives_duckdbs_numbers(spark_cluster):
    out = run_client("--master", spark_cluster)
    assert out["session"] == "pyspark.sql.session"
    assert out["executors"] == 2  # the work ran on the two workers' executors
    check(out)


def test_spark_connect_gives_duckdbs_numbers(spark_connect):
    out = run_client("--remote", spark_connect)
    assert out["session"].startswith("pyspark.sql.connect")
    check(out)
