"""The click verbs on the command line: `sqlndcg propensities LOG` and `sqlndcg click_labels LOG` print and write
what the Python verbs return, with the log's column flags, and fail with one error line on a mistake."""

from __future__ import annotations

import pandas as pd
import pytest

import sqlndcg
from sqlndcg.cli import main

from clicksim import simulate


def test_propensities_prints_the_table_settings_and_account_and_draws_the_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    log = sqlndcg.example("clicks")
    assert main(["propensities", log, "--method", "em", "--bootstrap", "10", "--iterations", "20", "--max-position", "3",
                 "--plot", str(tmp_path / "theta.png")]) == 0
    out = capsys.readouterr().out
    want = sqlndcg.propensities(log, method="em", bootstrap=10, iterations=20, max_position=3)
    assert want.table.to_text(max_rows=1000) in out and "iterations_run=" in out
    assert "left out: 2,000 rows deeper than max position" in out
    assert (tmp_path / "theta.png").read_bytes()[:4] == b"\x89PNG"


def test_click_labels_writes_the_labels_with_renamed_columns(tmp_path, capsys):
    frame = simulate(2, impressions=60, queries=3, depth=3).log.rename(columns={"click": "clicked", "query_id": "q"})
    frame.to_csv(tmp_path / "log.csv", index=False)
    assert main(["click_labels", str(tmp_path / "log.csv"), "--click-column", "clicked", "--query-id-column", "q",
                 "--rel", "gamma", "--iterations", "5", "--output", str(tmp_path / "labels.csv")]) == 0
    got = pd.read_csv(tmp_path / "labels.csv")
    want = sqlndcg.click_labels(frame, click="clicked", query_id="q", rel="gamma", iterations=5).to_pandas()
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    assert list(got.columns) == ["q", "doc_id", "gamma", "impressions", "clicks"]
    assert f"wrote {len(want)} rows" in capsys.readouterr().err


def test_a_bad_log_is_one_error_line(tmp_path, capsys):
    frame = simulate(2, impressions=5, queries=2, depth=3).log
    frame.loc[0, "position"] = 3
    frame.to_csv(tmp_path / "log.csv", index=False)
    assert main(["propensities", str(tmp_path / "log.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sqlndcg: error: log file") and "positions within an impression occur more than once" in err
