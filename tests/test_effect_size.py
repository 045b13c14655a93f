"""The effect size beside every paired comparison: Cohen's d_z = mean(d) / sd(d) of the per-query differences
(compare.sql's effect_size, so the dbt comparison model has it too), against numpy on the differences compare
itself reports (sd with n - 1), with group_by strata too."""

from __future__ import annotations

import numpy as np
import pytest

import sqlndcg

from test_compare import METRICS, synthetic


def test_effect_size_is_cohens_dz_of_the_differences():
    runs, qrels = synthetic(queries=25)
    c = sqlndcg.compare(runs, qrels, METRICS, baseline="bm25", permutations=100, resamples=100)
    cols = list(c.table.columns)
    assert cols.index("effect_size") == cols.index("t_p") - 1  # next to the p-values
    for row in c:
        d = np.array(c.diffs(row["system"], row["metric"]))
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12, abs=1e-14)


def test_effect_size_per_stratum():
    runs, qrels = synthetic(queries=12, days=["d1", "d2"])
    c = sqlndcg.compare(runs, qrels, ["ndcg@5"], baseline="bm25", group_by="ds", permutations=50, resamples=50)
    assert len(c) == 4
    for row in c:
        d = np.array(c.diffs(row["system"], "ndcg@5", ds=row["ds"]))
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_effect_size_undefined_without_spread():
    """Identical systems: every difference 0, no spread, no d_z (as for any constant difference)."""
    runs, qrels = synthetic(queries=6, systems=("a", "b"))
    runs["b"] = runs["a"]
    c = sqlndcg.compare(runs, qrels, ["ndcg@5"], baseline="a", permutations=10, resamples=10)
    assert [r["effect_size"] for r in c] == [None]
