"""The README's Python examples run as written, and its set-up commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 2


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_python_example_runs(block, capsys):
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()  # every example prints something


def test_ci_runs_the_readme_test_command():
    bash_blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    test_command = next(line for block in bash_blocks for line in block.splitlines() if "pytest" in line)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command.split("#")[0].strip() in ci


def _example_files(tmp_path: Path) -> None:
    """The files and tables the README's command lines name, made from the bundled example: its bm25 run and the
    qrels as Parquet and as DuckDB tables, the qrels and one TREC run per system as text (run.txt: bm25's)."""
    import duckdb

    import sqlndcg

    run, qrels = Path(sqlndcg.example("run")), Path(sqlndcg.example("qrels"))
    (tmp_path / "qrels.txt").write_text(qrels.read_text())
    for system in ("bm25", "rerank"):
        lines = [line for line in run.read_text().splitlines() if line.split()[5] == system]
        (tmp_path / f"{system}.run").write_text("\n".join(lines) + "\n")
    (tmp_path / "run.txt").write_text((tmp_path / "bm25.run").read_text())
    res = sqlndcg.evaluate(str(run), str(qrels), ["ndcg@5"], group_by="tag")
    assert res.per_query.rows  # the example itself evaluates
    con = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    con.execute("CREATE TABLE runs AS SELECT column0 AS query_id, column2 AS doc_id, column4 AS score "
                "FROM read_csv(?, delim=' ', header=false, columns={'column0': 'VARCHAR', 'column1': 'VARCHAR', "
                "'column2': 'VARCHAR', 'column3': 'INTEGER', 'column4': 'DOUBLE', 'column5': 'VARCHAR'}) "
                "WHERE column5 = 'bm25'", [str(run)])
    con.execute("CREATE TABLE qrels AS SELECT column0 AS query_id, column2 AS doc_id, column3 AS rel "
                "FROM read_csv(?, delim=' ', header=false, columns={'column0': 'VARCHAR', 'column1': 'VARCHAR', "
                "'column2': 'VARCHAR', 'column3': 'INTEGER'})", [str(qrels)])
    con.execute("COPY runs TO ? (FORMAT parquet)",
                [str(tmp_path / "run.parquet")])
    con.execute("COPY qrels TO ? (FORMAT parquet)", [str(tmp_path / "qrels.parquet")])
    con.close()


COMMANDS = [line.split("  #")[0].strip() for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S)
            for line in block.splitlines() if line.startswith("sqlndcg ")]


def test_readme_has_command_lines():
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("command", COMMANDS)
def test_command_line_example_runs(command, tmp_path, monkeypatch, capsys):
    """Each `sqlndcg ...` line of the README, run as written in a folder holding the files it names."""
    import shlex

    from sqlndcg.cli import main

    _example_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    status = main(shlex.split(command)[1:])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert out.out.strip() or (tmp_path / "report.html").stat().st_size > 1000
