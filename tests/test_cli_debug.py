"""Every verb fails the same way: one line on standard error and status 2, the traceback only with --debug (given
before or after the verb)."""

from __future__ import annotations

import pytest

import sqlndcg
from sqlndcg.cli import main
from sqlndcg.cli.compare import COMMANDS as COMPARE_VERBS
from sqlndcg.cli.judgments import COMMANDS as JUDGMENT_VERBS

RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
MISSING = "no_such_file.csv"

#: One invocation per verb that fails on a mistake in its input, before any long work.
FAILING = {
    "evaluate": ["evaluate", "--run", MISSING, "--judgments", QRELS],
    "sql": ["sql", "--run", "runs", "--judgments", "qrels", "--dialect", "no_such_dialect"],
    "trec_eval": ["trec_eval", MISSING, RUN],
    "compare": ["compare", "--run", RUN, "--qrels", QRELS, "--baseline", "bm25"],
    "report": ["report", "--run", RUN, "--qrels", QRELS, "--baseline", "bm25", "--output", "unused.html"],
    "labels": ["labels", "--events", MISSING],
    "agreement": ["agreement", "--judgments", MISSING],
    "aggregate": ["aggregate", "--judgments", MISSING],
    "positions": ["positions", "--run", MISSING, "--qrels", QRELS],
}


def test_every_verb_is_covered():
    from sqlndcg.cli import VERBS

    assert set(FAILING) == set(VERBS) | set(COMPARE_VERBS) | set(JUDGMENT_VERBS)


@pytest.mark.parametrize("verb", list(FAILING))
def test_without_debug_a_mistake_is_one_line_and_status_2(verb, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(FAILING[verb]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sqlndcg: error: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("where", ["after the verb", "before the verb"])
@pytest.mark.parametrize("verb", list(FAILING))
def test_with_debug_the_error_itself_comes_out(verb, where, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = FAILING[verb] + ["--debug"] if where == "after the verb" else ["--debug"] + FAILING[verb]
    with pytest.raises(sqlndcg.SqlndcgError):
        main(argv)
