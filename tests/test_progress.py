"""The progress line: the steps long work announces, shown on a terminal after a grace period and wiped at the end;
nothing on a pipe or a file, nothing for quick work, nothing from the library on its own."""

from __future__ import annotations

import io
import time

import pytest

from sqlndcg.cli import progress as display
from sqlndcg.run import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(display, "GRACE", 0.05)
    monkeypatch.setattr(display, "TICK", 0.02)


def test_a_step_announced_with_nobody_listening_goes_nowhere(capsys):
    progress.announce("evaluating")
    assert capsys.readouterr() == ("", "")


def test_the_line_names_the_verb_and_the_current_step_and_is_wiped_at_the_end(quick):
    out = _Terminal()
    with display.shown("report", out):
        progress.announce("comparing the systems")
        time.sleep(0.2)
        progress.announce("drawing the plots")
        time.sleep(0.2)
    text = out.getvalue()
    assert "\r\x1b[Ksqlndcg report: comparing the systems ... 0 s" in text
    assert "\r\x1b[Ksqlndcg report: drawing the plots ... 0 s" in text
    assert text.index("comparing the systems") < text.index("drawing the plots")
    assert text.endswith("\r\x1b[K") and "\n" not in text


def test_quick_work_shows_nothing(quick):
    out = _Terminal()
    with display.shown("compare", out):
        progress.announce("comparing")
    assert out.getvalue() == ""


def test_nothing_on_a_pipe_or_a_file(quick):
    out = io.StringIO()  # not a terminal
    with display.shown("compare", out):
        progress.announce("comparing")
        time.sleep(0.2)
    assert out.getvalue() == ""


def test_the_listener_is_gone_after_the_display_and_after_an_error(quick):
    heard = []
    with pytest.raises(RuntimeError):
        with progress.listening(heard.append):
            progress.announce("one")
            raise RuntimeError("boom")
    progress.announce("two")
    assert heard == ["one"]


def test_the_resampling_announces_its_size():
    from sqlndcg.stats import paired

    heard = []
    with progress.listening(heard.append):
        paired.randomization_tests([[0.1, 0.2, -0.3]] * 2, permutations=100)
        paired.bootstrap_intervals([[0.1, 0.2, -0.3]], resamples=50)
    assert heard == ["randomization tests (2 x 100 sign flips)", "bootstrap intervals (1 x 50 resamples)"]


def test_the_command_line_shows_the_progress_line_on_a_terminal_and_nothing_on_stdout(quick, tmp_path,
                                                                                     monkeypatch, capsys):
    """`sqlndcg report` on a terminal: the progress line on standard error, standard output clean, and the line
    wiped before the command ends (which steps it names depends on when the line is redrawn: see below)."""
    import sqlndcg
    from sqlndcg.cli import main

    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    page = tmp_path / "r.html"
    status = main(["report", "--run", sqlndcg.example("run"), "--judgments", sqlndcg.example("qrels"),
                   "--system", "tag", "--baseline", "bm25", "-m", "ndcg@5", "-o", str(page)])
    assert status == 0 and page.exists()
    shown = terminal.getvalue()
    assert "\r\x1b[Ksqlndcg report: " in shown and " s\r\x1b[K" in shown
    assert shown.endswith("\r\x1b[K")
    assert "\r" not in capsys.readouterr().out


def test_the_report_announces_each_of_its_steps():
    import sqlndcg
    from sqlndcg.verbs.report import report

    heard = []
    with progress.listening(heard.append):
        report(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], system="tag", baseline="bm25",
               permutations=100, resamples=100, max_k=3)
    own = ["comparing the systems", "evaluating NDCG@1..3 per system", "drawing the plots"]
    assert [h for h in heard if h in own] == own
    assert heard.index("pairing 2 systems' queries") < heard.index("evaluating NDCG@1..3 per system")
    assert "randomization tests (1 x 100 sign flips)" in heard


def test_evaluate_and_compare_announce_their_steps():
    import sqlndcg

    heard = []
    with progress.listening(heard.append):
        sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5", "map"], group_by="tag")
    assert heard == ["reading and checking the inputs", "computing 2 metrics", "summarising"]
    heard.clear()
    with progress.listening(heard.append):
        sqlndcg.compare(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], system="tag",
                        baseline="bm25", permutations=100, resamples=100)
    assert heard[:4] == ["reading and checking the inputs", "computing 1 metric", "summarising",
                         "pairing 2 systems' queries"]
