"""Nothing lost, nothing left behind (issue 28): an output never overwrites an input, a caller's DuckDB connection
gets its settings back, and a limit that cannot work is refused before anything is set."""

from __future__ import annotations

import os
import re
import shutil

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg.cli import main

RUN = sqlndcg.example("run")
QRELS = sqlndcg.example("qrels")


@pytest.fixture
def files(tmp_path, monkeypatch):
    """The example run and qrels copied into a working directory, a symbolic link to the run beside them."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(RUN, "run.run")
    shutil.copy(QRELS, "q.qrels")
    os.symlink("run.run", "link.run")
    pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["A", "A", "B"], "annotator": ["x", "y", "x"],
                  "rel": [1, 2, 0]}).to_csv("ratings.csv", index=False)
    return tmp_path


def _refused(capsys, argv, *names):
    """The command exits 2 with one line naming both paths, and every file named is as it was."""
    before = {n: open(n, "rb").read() for n in names if os.path.isfile(n)}
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert {n: open(n, "rb").read() for n in before} == before
    return err


@pytest.mark.parametrize("output", ["run.run", "./run.run", "link.run", "{cwd}/run.run"])
def test_evaluate_refuses_an_output_that_is_its_run(files, capsys, output):
    output = output.format(cwd=files)
    err = _refused(capsys, ["evaluate", "--run", "run.run", "--judgments", "q.qrels", "--group-by", "tag",
                            "--format", "csv", "-o", output], "run.run")
    assert err.startswith(f"sqlndcg: error: --output {output!r} is the --run file 'run.run'")
    assert "would overwrite what this command reads; choose another --output path" in err
    if output != "run.run":
        assert f"(both are {str(files / 'run.run')!r})" in err


def test_evaluate_refuses_an_output_that_is_its_judgments_or_a_later_run(files, capsys):
    err = _refused(capsys, ["evaluate", "--run", "run.run", "--judgments", "q.qrels", "--group-by", "tag",
                            "--output", "q.qrels"], "q.qrels")
    assert "--output 'q.qrels' is the --judgments file 'q.qrels'" in err
    shutil.copy("run.run", "second.run")
    err = _refused(capsys, ["evaluate", "--run", "run.run", "--run", "second.run", "--judgments", "q.qrels",
                            "--group-by", "tag", "--output", "second.run"], "second.run")
    assert "--output 'second.run' is the --run file 'second.run'" in err


def test_aggregate_labels_and_positions_refuse_an_output_that_is_an_input(files, capsys):
    err = _refused(capsys, ["aggregate", "--judgments", "ratings.csv", "--output", "./ratings.csv"], "ratings.csv")
    assert "--output './ratings.csv' is the --judgments file 'ratings.csv'" in err
    pd.DataFrame({"query_id": ["q1"], "doc_id": ["A"], "event": ["click"]}).to_csv("events.csv", index=False)
    err = _refused(capsys, ["labels", "--events", "events.csv", "--rules", "click:1", "--output", "events.csv"],
                   "events.csv")
    assert "--output 'events.csv' is the --events file 'events.csv'" in err
    err = _refused(capsys, ["agreement", "--judgments", "ratings.csv", "--output", "ratings.csv"], "ratings.csv")
    assert "--output 'ratings.csv' is the --judgments file" in err


def test_report_and_compare_refuse_writing_over_an_input_or_one_output_over_another(files, capsys):
    err = _refused(capsys, ["report", "--run", "a=run.run", "--judgments", "q.qrels", "-o", "link.run"], "run.run")
    assert "--output 'link.run' is the --run file 'run.run'" in err
    err = _refused(capsys, ["compare", "--run", "run.run", "--system", "tag", "--baseline", "bm25", "--judgments",
                            "q.qrels", "--plot", "q.qrels"], "q.qrels")
    assert "--plot 'q.qrels' is the --judgments file 'q.qrels'" in err
    err = _refused(capsys, ["compare", "--run", "run.run", "--system", "tag", "--baseline", "bm25", "--judgments",
                            "q.qrels", "--plot", "d.png", "--plot-cutoffs", "./d.png"])
    assert "--plot-cutoffs './d.png' is also the --plot file 'd.png'" in err and not os.path.exists("d.png")


def test_an_output_over_the_database_file_is_refused(files, capsys):
    con = duckdb.connect("w.duckdb")
    con.execute("CREATE TABLE ratings AS FROM read_csv('ratings.csv')")
    con.close()
    err = _refused(capsys, ["aggregate", "--judgments", "ratings", "--database", "w.duckdb", "--output", "w.duckdb"],
                   "w.duckdb")
    assert "--output 'w.duckdb' is the --database file 'w.duckdb'" in err


def test_an_output_of_its_own_is_still_written(files, capsys):
    assert main(["evaluate", "--run", "run.run", "--judgments", "q.qrels", "--group-by", "tag", "--format", "csv",
                 "-o", "out.csv"]) == 0
    assert open("out.csv").read().startswith("tag,")


# -- a caller's DuckDB connection keeps its settings ------------------------------------------------------------------

SETTINGS = ("memory_limit", "temp_directory", "max_temp_directory_size", "threads", "enable_progress_bar")


def _settings(con) -> dict:
    return {s: con.execute(f"SELECT current_setting('{s}')").fetchone()[0] for s in SETTINGS}


RUN_FRAME = pd.DataFrame({"query_id": ["q", "q", "r"], "doc_id": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})
JUDGED = pd.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "rel": [1, 2]})


@pytest.mark.parametrize("configured", [False, True], ids=["defaults", "set-by-the-caller"])
def test_evaluate_puts_back_the_callers_duckdb_settings_on_success_and_on_error(tmp_path, configured):
    con = duckdb.connect()
    if configured:
        con.execute("SET memory_limit = '3GB'")
        con.execute(f"SET temp_directory = '{tmp_path / 'mine'}'")
        con.execute("SET max_temp_directory_size = '7GB'")
    before = _settings(con)
    limits = dict(memory_limit="1GB", temp_directory=str(tmp_path / "spill"), max_temp_size="2GB")
    res = sqlndcg.evaluate(RUN_FRAME, JUDGED, ["ndcg@5"], con=con, **limits)
    assert res.summary.to_dicts()[0]["ndcg@5"] == 1.0
    assert _settings(con) == before
    repeated = pd.concat([RUN_FRAME, RUN_FRAME])  # bad data: every pair twice
    with pytest.raises(sqlndcg.DataError, match=r"pairs occur more than once"):
        sqlndcg.evaluate(repeated, JUDGED, ["ndcg@5"], con=con, **limits)
    assert _settings(con) == before
    with pytest.raises(sqlndcg.SettingError, match=r"max_temp_size='-5GB'"):  # refused before anything is set
        sqlndcg.evaluate(RUN_FRAME, JUDGED, ["ndcg@5"], con=con, memory_limit="1GB", max_temp_size="-5GB")
    assert _settings(con) == before
    if not configured:  # the defaults themselves, not their values frozen (they follow the machine)
        assert before["max_temp_directory_size"] == "90% of available disk space"


def test_a_limit_duckdb_refuses_midway_puts_back_the_ones_set_before_it(tmp_path):
    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{tmp_path / 'used'}'")
    con.execute("SET memory_limit = '40MB'")
    con.execute("CREATE TABLE big AS SELECT range AS a, md5(range::VARCHAR) AS b FROM range(1500000)")
    con.execute("SELECT b FROM big ORDER BY b").fetchall()  # spills: the directory is now in use
    con.execute("RESET memory_limit")
    before = _settings(con)
    with pytest.raises(sqlndcg.SettingError, match=r"^temp_directory=.*: DuckDB refuses it \(.*Cannot switch"):
        sqlndcg.evaluate(RUN_FRAME, JUDGED, ["ndcg@5"], con=con, memory_limit="1GB",
                         temp_directory=str(tmp_path / "other"))
    assert _settings(con) == before


# -- limits that cannot work are refused, naming the setting --------------------------------------------------------

@pytest.mark.parametrize("limits, message", [
    (dict(max_temp_size="-5GB"), r"^max_temp_size='-5GB': a size cannot be negative \(DuckDB would take it for no "
                                 r"limit at all\); write a size such as '4GB' or '512MiB'$"),
    (dict(memory_limit="-5GB"), r"^memory_limit='-5GB': a size cannot be negative"),
    (dict(memory_limit="-0GB"), r"^memory_limit='-0GB': a size cannot be negative"),
    (dict(memory_limit="5GB extra"), r"^memory_limit='5GB extra' is not a size: write a number and a unit \(B, KB, "
                                     r"MB, GB, TB or KiB, MiB, GiB, TiB\), e.g. '4GB' or '512MiB', or a share"),
    (dict(max_temp_size="lots"), r"^max_temp_size='lots' is not a size"),
    (dict(max_temp_size="50%"), r"^max_temp_size='50%' is not a size"),
    (dict(memory_limit=4096), r"^memory_limit=4096 is not a size: write a number and a unit"),
    (dict(memory_limit="0GB"), r"^memory_limit='0GB': DuckDB cannot evaluate in no memory"),
    (dict(memory_limit="150%"), r"^memory_limit='150%': more than the machine's memory"),
    (dict(temp_directory="/etc/passwd"), r"^temp_directory='/etc/passwd' is a file, not a directory; DuckDB spills "
                                         r"into a directory: name one \(it is made if missing\)$"),
    (dict(temp_directory="/etc/passwd/spill"), r"^temp_directory='/etc/passwd/spill' cannot be made: '/etc/passwd' "
                                               r"is a file, not a directory"),
    (dict(temp_directory=""), r"^temp_directory='': name the directory DuckDB may spill into"),
])
@pytest.mark.parametrize("con", ["own", "caller"])
def test_a_limit_that_cannot_work_is_refused_naming_it(tmp_path, monkeypatch, limits, message, con):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    connection = duckdb.connect() if con == "caller" else None
    before = _settings(connection) if connection else None
    with pytest.raises(sqlndcg.SettingError, match=message):
        sqlndcg.evaluate(RUN_FRAME, JUDGED, ["ndcg@5"], con=connection, **limits)
    assert list(tmp_path.iterdir()) == []  # no spill directory made
    if connection:
        assert _settings(connection) == before


def _unwritable(tmp_path) -> str:
    """A directory this process cannot write to: one made read-only, or (for root, who writes anywhere) a
    read-only file system's."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if not os.access(locked, os.W_OK):
        return str(locked)
    if os.path.isdir("/proc/sys") and not os.access("/proc/sys", os.W_OK):
        return "/proc/sys"
    pytest.skip("no directory this process cannot write to")


def test_a_temp_directory_that_cannot_be_written_is_refused(tmp_path):
    locked = _unwritable(tmp_path)
    with pytest.raises(sqlndcg.SettingError, match=rf"^temp_directory='{locked}/spill' \(its nearest existing "
                       rf"directory '{locked}'\) is not writable by this process, so DuckDB could not spill there"):
        sqlndcg.evaluate(RUN_FRAME, JUDGED, ["ndcg@5"], memory_limit="1GB", temp_directory=f"{locked}/spill")


def test_the_command_line_names_the_flag(tmp_path, capsys):
    RUN_FRAME.to_parquet(tmp_path / "r.parquet")
    JUDGED.to_parquet(tmp_path / "q.parquet")
    base = ["evaluate", "--run", str(tmp_path / "r.parquet"), "--judgments", str(tmp_path / "q.parquet")]
    assert main(base + ["--memory-limit=-5GB"]) == 2
    assert capsys.readouterr().err.startswith("sqlndcg: error: --memory-limit '-5GB': a size cannot be negative")
    assert main(base + ["--temp-directory", "/etc/passwd"]) == 2
    assert capsys.readouterr().err.startswith("sqlndcg: error: --temp-directory '/etc/passwd' is a file, not a "
                                              "directory")


def test_sizes_duckdb_reads_as_written_are_kept(tmp_path):
    con = duckdb.connect()
    for given, shown in (("1GB", "953.6 MiB"), ("512MiB", "512.0 MiB"), ("1.5 GB", "1.3 GiB"), ("2g", "1.8 GiB")):
        from sqlndcg.run.engines.duckdb_engine import DuckDBEngine

        eng = DuckDBEngine(con, memory_limit=given, max_temp_size=given)
        assert eng.fetch("SELECT current_setting('memory_limit'), current_setting('max_temp_directory_size')")[1] == [
            (shown, shown)]
        eng.close()
    eng = DuckDBEngine(con, max_temp_size="0GB")  # 0: never spill
    assert eng.fetch("SELECT current_setting('max_temp_directory_size')")[1] == [("0 bytes",)]
    eng.close()
    assert _settings(con)["max_temp_directory_size"] == "90% of available disk space"


def test_a_spill_directory_duckdb_cannot_leave_is_warned_about_and_the_rest_put_back(tmp_path):
    """DuckDB cannot switch the spill directory once something spilled there: sqlndcg says so, and still puts
    back the memory limit."""
    n = 600_000
    run = pd.DataFrame({"query_id": np.arange(n) // 3, "doc_id": np.arange(n) % 3,
                        "score": np.random.default_rng(1).random(n)})
    qrels = pd.DataFrame({"query_id": np.arange(n // 3), "doc_id": 0, "rel": 1.0})
    con = duckdb.connect()
    before = _settings(con)
    spill = tmp_path / "spill"
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:  # AP ranks whole lists by a sort, which spills (frames do not): either way it used the directory
            sqlndcg.evaluate(run, qrels, ["ap"], con=con, memory_limit="60MB", temp_directory=str(spill))
        except sqlndcg.ResourceError:
            pass
    said = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    assert len(said) == 1 and re.fullmatch(
        rf"sqlndcg could not put back every DuckDB setting it changed on your connection: temp_directory stays "
        rf"'{spill}' \(it was '.tmp'\): .*Cannot switch temporary directory after the current one has been used",
        said[0]), said
    after = _settings(con)
    assert after["memory_limit"] == before["memory_limit"] and after["temp_directory"] == str(spill)
