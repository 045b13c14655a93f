"""Compiled templates are kept in the user's cache folder (Jinja's FileSystemBytecodeCache), so a new process loads
the macro files instead of compiling them; the SQL is the same either way, and the cache can be moved or turned
off with SQLNDCG_CACHE_DIR."""

from __future__ import annotations

import os
import subprocess
import sys

RENDER = ("import sqlndcg; print(sqlndcg.to_sql('runs', 'qrels', ['ndcg@10', 'map', 'err@5'], "
          "dialect='snowflake'))")


def _render(env: dict) -> str:
    done = subprocess.run([sys.executable, "-c", RENDER], env={**os.environ, **env}, capture_output=True, text=True,
                          check=True)
    return done.stdout


def test_a_second_process_loads_what_the_first_compiled_and_renders_the_same(tmp_path):
    folder = tmp_path / "cache"
    first = _render({"SQLNDCG_CACHE_DIR": str(folder)})
    kept = sorted(p.name for p in folder.iterdir())
    assert kept and all(name.endswith(".cache") for name in kept)
    assert _render({"SQLNDCG_CACHE_DIR": str(folder)}) == first
    assert sorted(p.name for p in folder.iterdir()) == kept  # nothing compiled anew
    assert _render({"SQLNDCG_CACHE_DIR": ""}) == first  # off: compiled in the process, the same SQL


def test_the_default_folder_is_the_users_cache_not_the_temporary_directory(tmp_path, monkeypatch):
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    monkeypatch.delenv("SQLNDCG_CACHE_DIR", raising=False)
    _render(env)
    assert any((tmp_path / "xdg" / "sqlndcg" / "templates").iterdir())
    assert list((tmp_path / "tmp").iterdir()) == []


def test_an_unusable_folder_only_costs_compiling(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert "WITH" in _render({"SQLNDCG_CACHE_DIR": str(blocked / "cache")})
