"""Larger than memory: DuckDB spills into a bounded temporary directory of sqlndcg's own (never the current
directory), and running out of memory or disk is reported as what it is, with the settings to change."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg.run import engines

N = 600_000


def inputs():
    run = pd.DataFrame({"query_id": np.arange(N) // 3, "doc_id": np.arange(N) % 3,
                        "score": np.random.default_rng(1).random(N)})
    qrels = pd.DataFrame({"query_id": np.arange(N // 3), "doc_id": 0, "rel": 1.0})
    return run, qrels


def test_spilling_goes_to_a_temporary_directory_of_its_own_that_is_removed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    eng = engines.for_connection(None, memory_limit="1GB")  # limits of its own: a database of its own
    spill = eng.limits["temp_directory"]
    assert os.path.isdir(spill) and not spill.startswith(str(tmp_path))
    assert eng.limits["max_temp_directory_size"].endswith("MiB")
    eng.close()
    assert not os.path.exists(spill)
    run, qrels = inputs()
    sqlndcg.evaluate(run, qrels, ["ndcg@3"], memory_limit="1GB")
    assert not (tmp_path / ".tmp").exists() and list(tmp_path.iterdir()) == []


#: A process whose shared database spills (DuckDB makes the directory then), its path in `spill`.
SPILLING = """
import os
from sqlndcg.run import engines
eng = engines.for_connection(None)
eng.execute("SET memory_limit = '40MB'")  # the whole database's: this process's alone
eng.execute("CREATE TEMPORARY TABLE t AS SELECT range AS a, md5(range::VARCHAR) AS b FROM range(2000000)")
eng.fetch("SELECT b, COUNT(*) FROM t GROUP BY b ORDER BY b LIMIT 1")
spill = eng.limits["temp_directory"]
"""


def test_calls_without_a_connection_share_one_database_whose_spill_directory_goes_at_exit(tmp_path):
    """Calls without con= (and without limits) take a connection of their own to one in-memory database of the
    process: what one call made is invisible to the next, closing a call's engine leaves the database open, and the
    database spills into a private, bounded directory (made by DuckDB only when it spills), removed at exit."""
    import subprocess
    import sys
    import tempfile

    first, second = engines.for_connection(None), engines.for_connection(None)
    assert first.con is not second.con and first.limits == second.limits
    spill = first.limits["temp_directory"]
    assert os.path.dirname(spill) == tempfile.gettempdir() and f"sqlndcg-spill-{os.getpid()}-" in spill
    assert first.limits["max_temp_directory_size"].endswith("MiB")
    first.execute("CREATE TEMPORARY TABLE mine AS SELECT 1 AS x")
    assert second.relation_kind("mine") is None
    first.close()
    assert second.fetch("SELECT 41 + 1")[1] == [(42,)]
    second.close()
    run, qrels = inputs()
    assert sqlndcg.evaluate(run, qrels, ["ndcg@3"]).summary.rows == sqlndcg.evaluate(run, qrels, ["ndcg@3"]).summary.rows

    child = subprocess.run([sys.executable, "-c", SPILLING + "print(spill, os.path.isdir(spill))"],
                           capture_output=True, text=True, check=True)
    spill, spilled = child.stdout.split()
    assert spilled == "True" and not os.path.exists(spill)


def test_a_tight_memory_limit_spills_and_gives_the_same_numbers(tmp_path):
    run, qrels = inputs()
    small = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@2"], memory_limit="1GB", temp_directory=str(tmp_path))
    free = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@2"])
    assert small.summary.rows == free.summary.rows


def test_running_out_of_memory_is_said_as_such():
    run, qrels = inputs()
    with pytest.raises(sqlndcg.ResourceError, match=r"DuckDB ran out of (memory|temporary disk space) \(memory_limit=8MB"):
        sqlndcg.evaluate(run, qrels, ["ndcg@3"], memory_limit="8MB", max_temp_size="1MB")


def test_limits_apply_to_duckdb_only():
    import sqlite3

    with pytest.raises(sqlndcg.SettingError, match=r"memory_limit apply to DuckDB"):
        sqlndcg.evaluate("runs", "qrels", con=sqlite3.connect(":memory:"), memory_limit="1GB")


def test_a_result_too_large_to_produce_is_refused_before_it_starts_with_its_size_and_the_way_out():
    run = pd.DataFrame({"system": [f"s{i}" for i in range(30) for _ in range(2)], "query_id": "q0",
                        "doc_id": ["a", "b"] * 30, "score": 1.0})
    qrels = pd.DataFrame({"query_id": [f"q{i}" for i in range(50)], "doc_id": "a", "rel": 1.0})
    with pytest.raises(sqlndcg.ResourceError,
                       match=r"would have 1,500 rows: 30 groups \(system\) x 50 judged queries.*queries='both'"):
        sqlndcg.evaluate(run, qrels, group_by="system", max_result_rows=1000)
    assert len(sqlndcg.evaluate(run, qrels, group_by="system", max_result_rows=1500).per_query) == 1500
    assert len(sqlndcg.evaluate(run, qrels, group_by="system", queries="both", max_result_rows=1000).per_query) == 30


def test_the_command_line_spills_into_a_directory_of_its_own_too(tmp_path):
    """Connections the command line opens (evaluate, trec_eval) spill like the library's: never into ./.tmp,
    the private directory removed at exit; --memory-limit and --temp-directory set DuckDB's limits."""
    import subprocess
    import sys
    from pathlib import Path

    from sqlndcg.run.connect import open_database

    cli = str(Path(sys.executable).with_name("sqlndcg"))
    run, qrels = inputs()
    run.to_parquet(tmp_path / "run.parquet")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    work, scratch = tmp_path / "work", tmp_path / "scratch"
    work.mkdir()
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    done = subprocess.run([cli, "evaluate", "--run", str(tmp_path / "run.parquet"), "--judgments",
                           str(tmp_path / "qrels.parquet"), "-m", "ndcg@3", "--memory-limit", "1GB", "--format", "csv"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    want = sqlndcg.evaluate(run, qrels, ["ndcg@3"]).summary.to_dicts()[0]["ndcg@3"]
    assert abs(float(done.stdout.splitlines()[1].split(",")[1]) - want) < 1e-9
    assert list(work.iterdir()) == [] and list(scratch.iterdir()) == []
    bad = subprocess.run([cli, "evaluate", "--run", "r.parquet", "--judgments", "q.parquet", "--memory-limit", "lots"],
                         cwd=work, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--memory-limit" in bad.stderr
    con = open_database(None, memory_limit="512MB", temp_directory=str(scratch))
    assert con.execute("SELECT current_setting('temp_directory'), current_setting('memory_limit')").fetchone() == (
        str(scratch), "488.2 MiB")


def test_out_of_memory_names_the_limits_of_a_connection_the_caller_configured():
    import duckdb

    con = duckdb.connect()
    con.execute("SET memory_limit = '8MB'")
    con.execute("SET max_temp_directory_size = '1MB'")
    run, qrels = inputs()
    with pytest.raises(sqlndcg.ResourceError, match=r"ran out of (memory|temporary disk space) \(memory_limit=7\.6 MiB"):
        sqlndcg.evaluate(run, qrels, ["ndcg@3"], con=con)


def test_out_of_memory_keeps_duckdbs_detail_when_it_is_on_the_next_line():
    import duckdb

    eng = engines.for_connection(None, memory_limit="1GB")
    try:
        err = eng.resource_error(duckdb.OutOfMemoryException(
            "Out of Memory Error: \nfailed to pin block of size 256.0 KiB (1.0 GiB/1.0 GiB used)\n\nPossible solutions:"))
    finally:
        eng.close()
    assert "Out of Memory Error: failed to pin block of size 256.0 KiB (1.0 GiB/1.0 GiB used). Raise memory_limit" \
        in str(err) and "partitions=" in str(err)


def test_a_refused_limit_leaves_no_spill_directory_behind(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(sqlndcg.SettingError, match=r"^memory_limit='lots' is not a size: write a number and a unit"):
        sqlndcg.evaluate("run", "qrels", memory_limit="lots")
    assert list(tmp_path.iterdir()) == []


def test_spill_directories_of_killed_processes_are_removed_on_the_next_start(tmp_path):
    """A process killed before it could clean up (SIGKILL, SIGTERM, a closed terminal) leaves its private spill
    directory behind; the next sqlndcg connection removes those of processes that are gone, never a live one's."""
    import signal
    import subprocess
    import sys

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    # A process that spills (making its spill directory), says where, then waits to be killed.
    waiting = SPILLING + "import time; print(spill, flush=True); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", waiting], env=env, stdout=subprocess.PIPE, text=True)
    killed = child.stdout.readline().strip()
    live = subprocess.Popen([sys.executable, "-c", waiting], env=env, stdout=subprocess.PIPE, text=True)
    alive = live.stdout.readline().strip()
    try:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        assert os.path.isdir(killed) and os.path.isdir(alive) and os.path.dirname(killed) == str(tmp_path)
        started = subprocess.run([sys.executable, "-c", (
            "from sqlndcg.run import engines; eng = engines.for_connection(None); eng.close()")], env=env, timeout=120)
        assert started.returncode == 0
        assert not os.path.exists(killed)  # the killed process's directory is gone
        assert os.path.isdir(alive)        # the live one's is kept
    finally:
        live.kill()
        live.wait(timeout=30)


def test_a_temp_directory_not_made_yet_is_made_by_duckdb(tmp_path):
    """temp_directory= names a directory that need not exist yet (it raised FileNotFoundError sizing the spill)."""
    run, qrels = inputs()
    target = tmp_path / "not" / "yet"
    got = sqlndcg.evaluate(run, qrels, ["ndcg@3"], memory_limit="1GB", temp_directory=str(target))
    want = sqlndcg.evaluate(run, qrels, ["ndcg@3"])
    assert got.summary.to_dicts()[0]["ndcg@3"] == want.summary.to_dicts()[0]["ndcg@3"]
