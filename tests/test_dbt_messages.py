"""dbt messages (issue 20), on dbt-duckdb for real: summary(per_query=...) asking for a metric the per-query model
lacks fails at compile time naming the model, the missing column(s) and the columns it has (not the engine's
Binder Error at run time); misspelled, absurd and ambiguous names get the same answers as in Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_dbt import REPO, dbt

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project whose per-query model `pq` holds ndcg@2 and p@1 only, built."""
    root = tmp_path_factory.mktemp("messages") / "proj"
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text("name: messages\nversion: '1.0.0'\nconfig-version: 2\nprofile: messages\n"
                                          "models:\n  messages:\n    +materialized: table\n")
    (root / "profiles.yml").write_text(f"messages:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
                                       f"      path: '{root / 'm.duckdb'}'\n      threads: 1\n")
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    models = root / "models"
    (models / "run.sql").write_text("SELECT 'q1' AS query_id, 'a' AS doc_id, 2.0 AS score UNION ALL "
                                    "SELECT 'q1', 'b', 1.0\n")
    (models / "qrels.sql").write_text("SELECT 'q1' AS query_id, 'a' AS doc_id, 1 AS rel UNION ALL SELECT 'q1', 'b', 2\n")
    (models / "pq.sql").write_text(
        "{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics=['ndcg@2', 'p@1']) }}\n")
    (models / "good_summary.sql").write_text("{{ sqlndcg.summary(per_query=ref('pq'), metrics=['ndcg@2']) }}\n")
    dbt(root, "deps")
    dbt(root, "run")  # the good summary of pq builds
    return root


def compile_failure(project: Path, body: str) -> str:
    model = project / "models" / "bad.sql"
    model.write_text(body + "\n")
    try:
        done = dbt(project, "compile", "--select", "bad", check=False)
    finally:
        model.unlink()
    assert done.returncode != 0, done.stdout[-3000:]
    assert "Compilation Error" in done.stdout, done.stdout[-3000:]
    assert "Binder Error" not in done.stdout
    return done.stdout


def test_a_summary_of_a_per_query_model_lacking_a_metric_fails_to_compile_naming_what_it_has(project):
    said = compile_failure(project, "{{ sqlndcg.summary(per_query=ref('pq'), metrics=['ndcg@2', 'map', 'p@1']) }}")
    assert "sqlndcg input error: per_query relation " in said and '"pq"' in said, said[-3000:]
    assert "has no column for the metric(s) ['map'] (its columns: ['query_id', 'ndcg@2', 'p@1'])" in said, said[-3000:]


@pytest.mark.parametrize("metrics, says", [
    ("['ndgc@2']", "unknown metric 'ndgc@2'; did you mean 'ndcg@2'? known metrics: "),
    ("['rbp(p=1e400)']", "metric 'rbp(p=1e400)': parameter p must be a finite number (0 < p < 1), got 1e400"),
    ("['RBP']", "metric 'RBP' is ambiguous: without p=, ir_measures reads it as rbp(p=0.8) and trec_eval and sqlndcg "
                "as rbp(p=0.9)"),
])
def test_a_misspelled_absurd_or_ambiguous_metric_gets_the_answer_python_gives(project, metrics, says):
    said = compile_failure(project, f"{{{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics={metrics}) }}}}")
    assert says in said, said[-3000:]
