"""`sqlndcg counterfactual LOG --run RUN`: the summary with its settings and account, the per-query values as CSV,
the same numbers as Python, and one error line for a metric clicks cannot estimate."""

from __future__ import annotations

import io

import pandas as pd

import sqlndcg
from sqlndcg.cli import main

LOG, RUN = sqlndcg.example("clicks"), sqlndcg.example("clicks_run")


def test_the_summary_prints_with_settings_and_account(capsys):
    assert main(["counterfactual", LOG, "--run", RUN, "--propensities", "logged", "-m", "dcg@5,clicks@5",
                 "--estimator", "snips", "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    want = sqlndcg.counterfactual(LOG, RUN, propensities="logged", metrics=["dcg@5", "clicks@5"], estimator="snips",
                                  bootstrap=50)
    assert out.strip() == str(want).strip()


def test_per_query_as_csv_with_a_baseline_and_clipping(tmp_path, capsys):
    baseline = tmp_path / "old.csv"
    pd.read_csv(RUN).assign(score=lambda f: -f["score"]).to_csv(baseline, index=False)
    assert main(["counterfactual", LOG, "--run", RUN, "--baseline", str(baseline), "--propensities", "logged",
                 "--estimator", "clipped", "--clip", "0.3", "--per-query", "--format", "csv", "--bootstrap", "0"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    want = sqlndcg.counterfactual(LOG, RUN, baseline=str(baseline), propensities="logged", estimator="clipped",
                                  clip=0.3, bootstrap=0).per_query.to_pandas()
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert (got["difference"] > 0).mean() > 0.9  # the reversed ranking is worse on almost every query


def test_a_metric_clicks_cannot_estimate_is_one_error_line(capsys):
    assert main(["counterfactual", LOG, "--run", RUN, "--propensities", "logged", "-m", "ndcg@10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot estimate 'ndcg@10' from clicks" in err
