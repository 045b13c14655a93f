"""Importing the package and asking the command line for help render nothing and import no engine (a verb's help
compiles the settings' declaration alone); a small evaluation renders each template call once and compiles each
template file once, whatever the dialect.

Each check runs in a fresh interpreter (this one has long since imported and rendered everything). The checks are
on what is imported and rendered, not on seconds, which depend on how busy the machine is.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY = ("jinja2", "sqlglot", "duckdb", "pyarrow", "pandas", "numpy")


def _fresh(code: str) -> dict:
    """Run ``code`` in a new interpreter; it prints one JSON object as its last line."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_renders_nothing_and_imports_no_engine():
    seen = _fresh(f"""
        import json, sys
        import sqlndcg, sqlndcg.cli
        from sqlndcg.core import render
        print(json.dumps({{"heavy": [m for m in {HEAVY!r} if m in sys.modules], "activity": render.activity()}}))
    """)
    assert seen["heavy"] == []
    assert seen["activity"] == {"compiles": 0, "packages": 0}


def test_top_level_help_renders_nothing_and_imports_no_engine():
    seen = _fresh(f"""
        import contextlib, io, json, sys
        from sqlndcg.cli import main
        from sqlndcg.core import render
        with contextlib.redirect_stdout(io.StringIO()) as out:
            try:
                main(["--help"])
            except SystemExit:
                pass
        print(json.dumps({{"heavy": [m for m in {HEAVY!r} if m in sys.modules], "activity": render.activity(),
                          "help": out.getvalue()}}))
    """)
    assert seen["heavy"] == []
    assert seen["activity"] == {"compiles": 0, "packages": 0}
    assert "evaluate" in seen["help"] and "compare" in seen["help"]


def test_a_verbs_help_renders_the_declaration_only():
    seen = _fresh("""
        import contextlib, io, json, sys
        from sqlndcg.cli import main
        from sqlndcg.core import render
        with contextlib.redirect_stdout(io.StringIO()) as out:
            try:
                main(["evaluate", "--help"])
            except SystemExit:
                pass
        activity = render.activity()
        print(json.dumps({"heavy": [m for m in ("duckdb", "pyarrow", "pandas") if m in sys.modules],
                          "rendered": sorted(k for k in activity if k not in ("compiles", "packages")),
                          "compiles": activity["compiles"],
                          "help": out.getvalue()}))
    """)
    assert seen["heavy"] == []
    assert seen["rendered"] == ["_file_options_declared", "_settings_declared"]  # the flags of both
    assert seen["compiles"] == 1  # settings.sql alone
    assert "--short-lists" in seen["help"]


def test_a_small_evaluate_renders_each_template_call_once():
    seen = _fresh("""
        import json
        import sqlndcg
        from sqlndcg.core import render

        calls = []
        original = render._render

        def counted(macro_name, dialect, args, kwargs):
            calls.append(repr((macro_name, dialect, args, sorted(kwargs.items()))))
            return original(macro_name, dialect, args, kwargs)

        render._render = counted
        run = {"query_id": ["q", "q", "r"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]}
        judgments = {"query_id": ["q", "q", "r"], "doc_id": ["a", "b", "a"], "rel": [1, 0, 2]}
        import pyarrow as pa
        res = sqlndcg.evaluate(pa.table(run), pa.table(judgments), ["ndcg@5", "p@5"])
        assert len(res.per_query) == 2
        sqlndcg.to_sql("runs", "qrels", ["ndcg@5", "p@5"], dialect="duckdb")
        before = render.activity()
        sqlndcg.to_sql("runs", "qrels", ["ndcg@5", "p@5"], dialect="snowflake")
        print(json.dumps({"calls": calls, "before": before, "after": render.activity()}))
    """)
    repeated = sorted({c for c in seen["calls"] if seen["calls"].count(c) > 1})
    assert repeated == [], repeated
    # each file is compiled once, whatever the number of dialects it is rendered for; a dialect's own file
    # (sql/macros/dialects/snowflake.sql) only when that dialect is first rendered, so DuckDB's evaluation compiles
    # none of the other engines' files
    assert seen["after"]["compiles"] == seen["before"]["compiles"] + 1 > 1
    assert (seen["before"]["packages"], seen["after"]["packages"]) == (1, 2)
