"""The dbt generic test sqlndcg.no_regression on comparison models (sqlndcg.compare), built for real with
dbt-duckdb: the gate that passes lets `dbt build` pass, the one that fails makes it exit non-zero with exactly the
rows sqlndcg.gate(..., correction='none') fails on the same data; the model's effect_size is compare()'s."""

from __future__ import annotations

import re

import duckdb
import pytest

import sqlndcg
from test_compare import stacked, synthetic
from test_dbt import REPO, dbt

pytestmark = pytest.mark.engine

SCHEMA = """version: 2
models:
  - name: vs_bm25
    data_tests:
      - sqlndcg.no_regression: {arguments: {metric: NDCG@5}}
  - name: vs_hybrid
    data_tests:
      - sqlndcg.no_regression: {arguments: {metric: ndcg@5, margin: 0.01}}
"""


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    project = tmp_path_factory.mktemp("gates") / "proj"
    (project / "models").mkdir(parents=True)
    (project / "seeds").mkdir()
    runs, qrels = synthetic(queries=30, days=["2026-11-01", "2026-11-02"], effect=0.08)
    stacked(runs).to_csv(project / "seeds" / "rankings.csv", index=False)
    qrels.to_csv(project / "seeds" / "qrels.csv", index=False)
    (project / "dbt_project.yml").write_text(
        "name: gates\nversion: '1.0.0'\nconfig-version: 2\nprofile: gates\n"
        "models:\n  gates:\n    +materialized: table\n")
    (project / "profiles.yml").write_text(
        f"gates:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{project / 'g.duckdb'}'\n      threads: 1\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    for baseline in ("bm25", "hybrid"):  # hybrid > dense > bm25: the others are better than bm25, worse than hybrid
        (project / "models" / f"vs_{baseline}.sql").write_text(
            "{{ sqlndcg.compare(run=ref('rankings'), judgments=ref('qrels'), metrics=['ndcg@5', 'p@5'], "
            f"system='system', baseline='{baseline}', group_by=['ds']) }}}}\n")
    (project / "models" / "schema.yml").write_text(SCHEMA)
    dbt(project, "deps")
    done = dbt(project, "build", check=False)
    return project, done


def test_failing_gate_fails_the_build_with_the_python_gates_rows(gated):
    project, done = gated
    assert done.returncode == 1, done.stdout[-3000:]
    failed = re.search(r"Failure in test sqlndcg_no_regression_vs_hybrid\S*.*?Got (\d+) results?", done.stdout, re.S)
    assert failed, done.stdout[-3000:]
    with duckdb.connect(str(project / "g.duckdb"), read_only=True) as con:
        c = sqlndcg.compare("rankings", "qrels", ["ndcg@5", "p@5"], baseline="hybrid", group_by="ds", con=con,
                            permutations=10, resamples=10)
        built = {(str(r[0])[:10], r[1], r[2]): r[3] for r in
                 con.execute('SELECT ds, system, metric, effect_size FROM vs_hybrid').fetchall()}
    for r in c:  # the model carries the effect size compare() reports
        assert built[(str(r["ds"])[:10], r["system"], r["metric"])] == pytest.approx(r["effect_size"], rel=1e-12)
    want = sqlndcg.gate(c, "ndcg@5:0.01", correction="none")
    assert len(want.failures) >= 2
    assert int(failed.group(1)) == len(want.failures)
    assert "sqlndcg_no_regression_vs_bm25" in done.stdout and "ERROR=1" in done.stdout.replace(" ", "")


def test_alpha_other_than_the_models_interval_is_refused(gated):
    project, _ = gated
    schema = project / "models" / "schema.yml"
    schema.write_text(SCHEMA.replace("{metric: NDCG@5}", "{metric: NDCG@5, alpha: 0.05}"))
    try:
        done = dbt(project, "compile", "--select", "vs_bm25", check=False)
    finally:
        schema.write_text(SCHEMA)
    assert done.returncode != 0 and "alpha= must be 0.025 in dbt" in done.stdout, done.stdout[-3000:]


def test_passing_gate_passes(gated):
    project, _ = gated
    done = dbt(project, "test", "--select", "vs_bm25", check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"PASS sqlndcg_no_regression_vs_bm25", done.stdout), done.stdout[-3000:]
