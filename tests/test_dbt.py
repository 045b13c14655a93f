"""The dbt package, built for real: `dbt deps`, `dbt seed` and `dbt build` on dbt-duckdb and dbt-postgres, with
every model's numbers equal to sqlndcg.evaluate() on the same data (to 1e-9), across the main settings and with
text and integer ids. The macros dbt runs are the files the Python package renders (sql/macros)."""

from __future__ import annotations

import csv
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import sqlndcg
from adversarial import COMBINATIONS, adversarial_rows

pytestmark = pytest.mark.engine

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "dbt_example"
DBT = str(Path(sys.executable).with_name("dbt"))
METRICS = ["ndcg@5", "ndcg@10", "p@5", "map", "mrr@10"]  # dbt_example's var('metrics')

def dbt(project: Path, *args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Run the dbt command line in `project` with its own profiles.yml; on failure show dbt's output."""
    done = subprocess.run(
        [DBT, *args, "--project-dir", str(project), "--profiles-dir", str(project)],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=project, timeout=600,
    )
    if check and done.returncode != 0:
        pytest.fail(f"dbt {' '.join(args)} failed:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}", pytrace=False)
    return done


def copy_example(target: Path) -> Path:
    """dbt_example copied into a temporary folder, installing the package from this checkout."""
    project = target / "dbt_example"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages", "*.duckdb*",
                                                                    "package-lock.yml", ".user.yml"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    return project


def close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9)
    return str(a) == str(b)


def assert_same_rows(got: list[dict], want: list[dict], keys: list[str], label: str) -> None:
    """Rows compared by key, every column of `want` to 1e-9 (NULL only equals NULL)."""
    index = {tuple(str(r[k]) for k in keys): r for r in got}
    assert len(got) == len(want), f"{label}: {len(got)} rows from dbt, {len(want)} from evaluate()"
    for row in want:
        key = tuple(str(row[k]) for k in keys)
        assert key in index, f"{label}: dbt has no row {key}"
        for column, value in row.items():
            assert close(index[key][column], value), (
                f"{label} {key} {column}: dbt {index[key][column]!r}, evaluate() {value!r}")


def duckdb_rows(database: Path, table: str) -> list[dict]:
    with duckdb.connect(str(database), read_only=True) as con:
        cur = con.execute(f'SELECT * FROM "{table}"')
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


# --- the example project -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def example_build(tmp_path_factory):
    project = copy_example(tmp_path_factory.mktemp("dbt"))
    database = project / "example.duckdb"
    env = {"SQLNDCG_EXAMPLE_DB": str(database)}
    dbt(project, "deps", env=env)
    dbt(project, "build", env=env)
    return project, database, env


def test_example_builds_and_its_data_tests_pass(example_build):
    project, database, _ = example_build
    results = (project / "target" / "run_results.json").read_text()
    assert '"status": "fail"' not in results and '"status": "error"' not in results
    # The worked example's values exact, NDCG within [0, 1], unique keys, the package's input tests: all ran.
    for test in ("worked_example_exact", "metrics_within_bounds", "per_query_keys_unique", "incremental_equals_full",
                 "sqlndcg_valid_run", "sqlndcg_valid_judgments", "sqlndcg_finite_metrics", "sqlndcg_valid_events",
                 "sqlndcg_valid_annotations", "sqlndcg_valid_query_weights", "sqlndcg_no_regression_paired_comparison",
                 "click_log_valid", "rankings_overlap_valid"):
        assert test in results, f"data test {test} did not run"


def test_example_models_equal_evaluate(example_build):
    _, database, _ = example_build
    settings = dict(metrics=METRICS, group_by=["system", "ds"], gain="exponential", empty="skip")
    with duckdb.connect(str(database), read_only=True) as con:
        res = sqlndcg.evaluate("rankings", "judgments", con=con, **settings)
        worked = sqlndcg.evaluate("worked_example_run", "worked_example_judgments", con=con,
                                  metrics=[f"{kind}@{k}" for kind in ("cg", "dcg", "idcg", "ndcg") for k in range(1, 6)])
    keys = ["system", "ds", "query_id"]
    assert_same_rows(duckdb_rows(database, "per_query_metrics"), res.per_query.to_dicts(), keys, "per_query_metrics")
    assert_same_rows(duckdb_rows(database, "per_query_incremental"), res.per_query.to_dicts(), keys,
                     "per_query_incremental")
    assert_same_rows(duckdb_rows(database, "daily_summary"), res.summary.to_dicts(), ["system", "ds"], "daily_summary")
    with duckdb.connect(str(database), read_only=True) as con:
        sampled = sqlndcg.evaluate("rankings", "judgments", con=con, sample=0.5, seed=3, **settings)
    assert sampled.summary.to_dicts() != res.summary.to_dicts()
    assert_same_rows(duckdb_rows(database, "daily_summary_sampled"), sampled.summary.to_dicts(), ["system", "ds"],
                     "daily_summary_sampled")
    with duckdb.connect(str(database), read_only=True) as con:
        weighted = sqlndcg.evaluate("rankings", "judgments", con=con, query_weights="query_traffic", **settings)
    assert_same_rows(duckdb_rows(database, "daily_summary_by_traffic"), weighted.summary.to_dicts(), ["system", "ds"],
                     "daily_summary_by_traffic")
    assert_same_rows(duckdb_rows(database, "evaluation_account"), res.account.to_dicts(), ["system", "ds"],
                     "evaluation_account")
    assert_same_rows(duckdb_rows(database, "worked_example_metrics"), worked.per_query.to_dicts(), ["query_id"],
                     "worked_example_metrics")
    with duckdb.connect(str(database), read_only=True) as con:
        agreement = sqlndcg.agreement("annotations", con=con)
    assert_same_rows(duckdb_rows(database, "annotator_agreement"), agreement.per_query.to_dicts(), ["query_id"],
                     "annotator_agreement")
    with duckdb.connect(str(database), read_only=True) as con:
        judge = sqlndcg.agreement("judge_labels", con=con, annotator="source", between=("human", "llm-v2"))
    assert_same_rows(duckdb_rows(database, "judge_agreement"), judge.per_grade.to_dicts(), ["grade"],
                     "judge_agreement")
    assert_same_rows(duckdb_rows(database, "judge_confusion"), judge.confusion.to_dicts(), ["grade_a", "grade_b"],
                     "judge_confusion")
    assert [round(r["mean_difference"], 4) for r in judge.per_grade.to_dicts()] == [0.5, 0.2, 0.125, 0.0]
    assert round(worked.per_query.to_dicts()[0]["ndcg@3"], 6) == 0.855669


def test_example_interleaving_models_equal_interleave_and_its_credit(example_build):
    """interleaved_lists is sqlndcg.interleave of the same runs, impressions, k and seed (so the seeded clicks fall
    on the lists dbt builds), and interleaving_preference is interleaving_credit's counts and preference."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        lists = sqlndcg.interleave("last_day_baseline", "last_day_ltr_v2", impressions="interleaving_impressions",
                                   k=5, seed=7, con=con)
        credit = sqlndcg.interleaving_credit("interleaved_clicks", con=con)
    dbt_lists = duckdb_rows(database, "interleaved_lists")
    assert len(dbt_lists) == len(lists.table) > 100
    assert sorted(tuple(str(v) for v in r.values()) for r in dbt_lists) == sorted(
        tuple(str(v) for v in r.values()) for r in lists.table.to_dicts())
    with duckdb.connect(str(database), read_only=True) as con:
        seeded = con.execute("SELECT impression_id, position, doc_id, team FROM interleaved_clicks").fetchall()
    assert sorted(map(str, seeded)) == sorted(str((r["impression_id"], r["position"], r["doc_id"], r["team"]))
                                              for r in lists.table.to_dicts())
    want = {k: v for k, v in credit.table.to_dicts()[0].items() if k not in ("ci_low", "ci_high", "p_value")}
    assert_same_rows(duckdb_rows(database, "interleaving_preference"), [want], ["impressions"],
                     "interleaving_preference")
    assert want["wins_b"] > want["wins_a"]  # ltr_v2 follows the true grades more closely


def test_example_diversity_model_equals_diversity(example_build):
    """diversity_metrics is sqlndcg.diversity of the same rankings and intent judgments, grouped by system and day."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        want = sqlndcg.diversity("rankings", "intent_judgments", con=con, group_by=["system", "ds"],
                                 metrics=["alpha_ndcg@5", "err_ia@5", "strec@10", "nrbp"])
    rows = want.table.to_dicts()
    assert len(rows) == 2 * 4 * 14 and any(r["alpha_ndcg@5"] > 0 for r in rows)  # q15 is not judged
    assert_same_rows(duckdb_rows(database, "diversity_metrics"), rows, ["system", "ds", "query_id"],
                     "diversity_metrics")


def test_example_overlap_models_equal_overlap(example_build):
    """ranker_overlap, ranker_overlap_summary and ranker_overlap_account are sqlndcg.overlap's per-query table,
    summary and account of the same rankings, to 1e-9."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        res = sqlndcg.overlap("rankings", baseline="baseline", metrics=["rbo@10", "rbo_ext@10", "jaccard@10"], p=0.9,
                              group_by="ds", con=con)
    assert len(res.per_query) > 50 and 0 < res.summary.to_dicts()[0]["rbo_ext@10"] < 1
    assert_same_rows(duckdb_rows(database, "ranker_overlap"), res.per_query.to_dicts(), ["ds", "system", "query_id"],
                     "ranker_overlap")
    assert_same_rows(duckdb_rows(database, "ranker_overlap_summary"), res.summary.to_dicts(), ["ds", "system"],
                     "ranker_overlap_summary")
    assert_same_rows(duckdb_rows(database, "ranker_overlap_account"), res.account.to_dicts(), ["ds", "system"],
                     "ranker_overlap_account")


def test_example_click_models_equal_propensities_and_click_labels(example_build):
    """position_bias, position_bias_em (EM unrolled by Jinja, its bootstrap hashed by DuckDB as in Python) and
    click_judgments are what sqlndcg.propensities and sqlndcg.click_labels return on the same log."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        randomized = sqlndcg.propensities("click_log", con=con)
        em = sqlndcg.propensities("click_log", method="em", iterations=20, tolerance=0, bootstrap=20, seed=7, con=con)
        labels = sqlndcg.click_labels("click_log", propensities="position_bias", con=con)
    assert em.settings["iterations_run"] == 20 and len(randomized.table) == 5
    assert_same_rows(duckdb_rows(database, "position_bias"), randomized.table.to_dicts(), ["position"], "position_bias")
    assert_same_rows(duckdb_rows(database, "position_bias_em"), em.table.to_dicts(), ["position"], "position_bias_em")
    assert_same_rows(duckdb_rows(database, "click_judgments"), labels.to_dicts(), ["query_id", "doc_id"],
                     "click_judgments")


def test_example_counterfactual_model_equals_counterfactual(example_build):
    """counterfactual_ranker (the bootstrap's Poisson draws hashed by DuckDB in dbt as in Python) is what
    sqlndcg.counterfactual returns on the same seeds. The new ranker places documents no impression showed (their
    clicks are unknown, so it is estimated below production's logged order): the docs' worked example."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        res = sqlndcg.counterfactual("click_log", "click_ranker", baseline="click_production",
                                     propensities="position_bias", metrics=["dcg@5", "clicks@5"], bootstrap=200,
                                     con=con)
    want = res.summary.to_dicts()
    assert_same_rows(duckdb_rows(database, "counterfactual_ranker"), want, ["metric"], "counterfactual_ranker")
    assert [r["metric"] for r in want] == ["dcg@5", "clicks@5"] and all(r["unknown"] > 0 for r in want)
    assert all(r["difference_high"] < 0 and r["unknown_weight"] > 0.15 for r in want)


def test_example_catalog_model_equals_beyond_accuracy(example_build):
    """catalog_measures is what sqlndcg.beyond_accuracy returns on the same seeds, per system and day."""
    _, database, _ = example_build
    metrics = ["coverage@5", "gini@5", "novelty@5", "ild@5", "long_tail@5"]
    with duckdb.connect(str(database), read_only=True) as con:
        res = sqlndcg.beyond_accuracy("rankings", "catalog_items", group_by=["system", "ds"], metrics=metrics, con=con)
    want = res.summary.to_dicts()
    assert len(want) == 8 and all(0 < r["coverage@5"] < 1 for r in want)
    assert_same_rows(duckdb_rows(database, "catalog_measures"), want, ["system", "ds"], "catalog_measures")


def test_example_comparison_model_equals_compare_and_its_gate(example_build):
    """paired_comparison is compare()'s table (its t-test columns; the permutation and bootstrap columns are
    Python's), and the no_regression test it carries passed because gate() passes on the same rows."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        c = sqlndcg.compare("rankings", "judgments", METRICS, baseline="baseline", group_by="ds", gain="exponential",
                            empty="skip", con=con, permutations=10, resamples=10)
    built = duckdb_rows(database, "paired_comparison")
    columns = ["ds", "system", "metric", "baseline", "pairs", "baseline_mean", "mean", "difference", "difference_std",
               "t_low", "t_high", "relative_change", "effect_size", "wins", "ties", "losses"]
    assert_same_rows(built, [{k: r[k] for k in columns} for r in c.to_dicts()], ["ds", "system", "metric"],
                     "paired_comparison")
    assert len({r["metric"] for r in built}) == len(METRICS) and len({r["ds"] for r in built}) == 4  # "map", as asked
    assert not sqlndcg.gate(c, "ndcg@10:0.01", correction="none").failures


# --- settings x id types, on dbt-duckdb and dbt-postgres -----------------------------------------------------------

def write_matrix_project(root: Path, target_type: str) -> Path:
    """A dbt project with seeds for text and integer ids and one model per (setting combination, id type)."""
    project = root / f"matrix_{target_type}"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    id_type, double = "varchar", "double precision"
    seeds_config = {}
    for ids in ("text", "int"):
        run, qrels = adversarial_rows(ids == "int")
        _write_csv(project / "seeds" / f"run_{ids}.csv", ("system", "query_id", "doc_id", "score"), run)
        _write_csv(project / "seeds" / f"qrels_{ids}.csv", ("query_id", "doc_id", "rel"), qrels)
        idt = "integer" if ids == "int" else id_type
        seeds_config[f"run_{ids}"] = {"system": id_type, "query_id": idt, "doc_id": idt, "score": double}
        seeds_config[f"qrels_{ids}"] = {"query_id": idt, "doc_id": idt, "rel": double}
    for name, (metrics, settings) in COMBINATIONS.items():
        for ids in ("text", "int"):
            args = ", ".join(f"{k}={_jinja(v)}" for k, v in settings.items())
            (project / "models" / f"{name}_{ids}.sql").write_text(
                f"{{{{ sqlndcg.per_query(run=ref('run_{ids}'), judgments=ref('qrels_{ids}'), "
                f"metrics={_jinja(metrics)}, group_by=['system']{', ' + args if args else ''}) }}}}\n")
            (project / "models" / f"{name}_{ids}_summary.sql").write_text(
                f"{{{{ sqlndcg.summary(per_query=ref('{name}_{ids}'), metrics={_jinja(metrics)}, group_by=['system']"
                f"{', ' + args if args else ''}) }}}}\n")
    seeds_yaml = "\n".join(
        f"  {name}:\n    +column_types:\n" + "\n".join(f"      {c}: {t}" for c, t in cols.items())
        for name, cols in seeds_config.items())
    (project / "dbt_project.yml").write_text(
        "name: sqlndcg_matrix\nversion: '1.0.0'\nconfig-version: 2\nprofile: matrix\n"
        f"models:\n  sqlndcg_matrix:\n    +materialized: table\nseeds:\n  sqlndcg_matrix:\n{seeds_yaml}\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    return project


def _jinja(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_jinja(k)}: {_jinja(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_jinja(v) for v in value) + "]"
    return repr(value)


def _write_csv(path: Path, header, rows) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def expected(name: str, ids: str):
    """evaluate() on the same rows, in DuckDB."""
    import pandas as pd

    metrics, settings = COMBINATIONS[name]
    run, qrels = adversarial_rows(ids == "int")
    run_df = pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"])
    qrels_df = pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]).astype({"rel": "float64"})
    return sqlndcg.evaluate(run_df, qrels_df, metrics=metrics, group_by=["system"], **settings)


def check_matrix(fetch) -> None:
    for name in COMBINATIONS:
        for ids in ("text", "int"):
            res = expected(name, ids)
            assert_same_rows(fetch(f"{name}_{ids}"), res.per_query.to_dicts(), ["system", "query_id"],
                             f"{name}_{ids}")
            assert_same_rows(fetch(f"{name}_{ids}_summary"), res.summary.to_dicts(), ["system"],
                             f"{name}_{ids}_summary")


def test_every_setting_combination_on_dbt_duckdb_equals_evaluate(tmp_path):
    project = write_matrix_project(tmp_path, "duckdb")
    database = project / "matrix.duckdb"
    (project / "profiles.yml").write_text(
        f"matrix:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: '{database}'\n      threads: 2\n")
    dbt(project, "deps")
    dbt(project, "build")
    check_matrix(lambda table: duckdb_rows(database, table))


@pytest.mark.parametrize("collation", ["c", "icu"])
def test_every_setting_combination_on_dbt_postgres_equals_evaluate(tmp_path, postgres, collation):
    """A database whose default collation is linguistic (ICU en-US) gives the same numbers: tie-breaks compare
    text ids in byte order whatever the collation."""
    project = write_matrix_project(tmp_path, "postgres")
    dbname = postgres.dbname_c if collation == "c" else postgres.dbname_icu
    (project / "profiles.yml").write_text(
        "matrix:\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n"
        f"      host: {postgres.host}\n      port: {postgres.port}\n      user: {postgres.user}\n"
        f"      password: '{postgres.password}'\n      dbname: {dbname}\n      schema: matrix_{collation}\n"
        "      threads: 2\n")
    dbt(project, "deps")
    dbt(project, "build")
    with postgres.connect(dbname) as con:
        def fetch(table):
            cur = con.execute(f'SELECT * FROM "matrix_{collation}"."{table}"')
            names = [d.name for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]

        check_matrix(fetch)


def test_example_project_builds_on_dbt_postgres_with_the_same_numbers(tmp_path, postgres):
    project = copy_example(tmp_path)
    env = {"SQLNDCG_PG_HOST": postgres.host, "SQLNDCG_PG_PORT": str(postgres.port), "SQLNDCG_PG_USER": postgres.user,
           "SQLNDCG_PG_PASSWORD": postgres.password, "SQLNDCG_PG_DBNAME": postgres.dbname_icu,
           "SQLNDCG_PG_SCHEMA": "example"}
    dbt(project, "deps", env=env)
    dbt(project, "build", "--target", "postgres", env=env)
    with postgres.connect(postgres.dbname_icu) as con:
        def fetch(table):
            cur = con.execute(f'SELECT * FROM "example"."{table}"')
            names = [d.name for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]

        con_duck = duckdb.connect()
        con_duck.execute("CREATE TABLE rankings AS SELECT * FROM read_csv(?, header=true, "
                         "columns={'system': 'VARCHAR', 'ds': 'DATE', 'query_id': 'VARCHAR', 'doc_id': 'VARCHAR', "
                         "'score': 'DOUBLE'})", [str(EXAMPLE / "seeds" / "rankings.csv")])
        judgments = fetch("judgments")
        import pandas as pd

        con_duck.register("judgments_frame", pd.DataFrame(judgments))
        con_duck.execute("CREATE TABLE judgments AS SELECT * FROM judgments_frame")
        res = sqlndcg.evaluate("rankings", "judgments", con=con_duck, metrics=METRICS, group_by=["system", "ds"],
                               gain="exponential", empty="skip")
        assert_same_rows(fetch("per_query_metrics"), res.per_query.to_dicts(), ["system", "ds", "query_id"],
                         "per_query_metrics on postgres")
        assert_same_rows(fetch("daily_summary"), res.summary.to_dicts(), ["system", "ds"], "daily_summary on postgres")
        judge = sqlndcg.agreement(pd.read_csv(EXAMPLE / "seeds" / "judge_labels.csv"), annotator="source",
                                  between=("human", "llm-v2"))
        assert_same_rows(fetch("judge_agreement"), judge.per_grade.to_dicts(), ["grade"], "judge_agreement on postgres")
        assert_same_rows(fetch("judge_confusion"), judge.confusion.to_dicts(), ["grade_a", "grade_b"],
                         "judge_confusion on postgres")


# --- mistakes fail the build, by name ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_project(tmp_path_factory):
    project = tmp_path_factory.mktemp("mistakes") / "proj"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    _write_csv(project / "seeds" / "run.csv", ("query_id", "doc_id", "score"), [("q1", "a", 2.0), ("q1", "b", 1.0)])
    _write_csv(project / "seeds" / "qrels.csv", ("query_id", "doc_id", "rel"), [("q1", "a", 1), ("q1", "b", 2)])
    _write_csv(project / "seeds" / "systems.csv", ("system", "query_id", "doc_id", "score"),
               [("bm25", "q1", "a", 2.0), ("bm25", "q1", "b", 1.0), ("dense", "q1", "b", 2.0)])
    (project / "dbt_project.yml").write_text(
        "name: mistakes\nversion: '1.0.0'\nconfig-version: 2\nprofile: mistakes\n"
        "models:\n  mistakes:\n    +materialized: table\n")
    (project / "profiles.yml").write_text(
        f"mistakes:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{project / 'm.duckdb'}'\n      threads: 1\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    dbt(project, "deps")
    dbt(project, "seed")
    return project


@pytest.mark.parametrize("call, named", [
    ("metrics=['ndcg@10'], gian='linear'", "unknown setting 'gian'"),
    ("metrics=['nDCG@10', 'precision@x']", "cannot read metric 'precision@x'"),
    ("metrics=['ndgc@10']", "unknown metric 'ndgc@10'"),
    ("metrics=['ndcg@10'], ideal='all'", "ideal='all' is not allowed"),
    ("metrics=['ndcg@10'], query_id='qid'", "has no query id column 'qid'"),
    ("metrics=['ap'], ties='average'", "ap cannot use it"),
])
def test_a_misspelled_setting_or_metric_fails_to_compile_naming_it(small_project, call, named):
    model = small_project / "models" / "bad.sql"
    model.write_text(f"{{{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), {call}) }}}}\n")
    try:
        done = dbt(small_project, "compile", "--select", "bad", check=False)
    finally:
        model.unlink()
    assert done.returncode != 0
    assert "Compilation Error" in done.stdout and named in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize("call, named", [
    ("baseline='bm2'", "baseline='bm2' is not among the systems in the column 'system' of run relation"),
    ("baseline='bm25', p=1", "p must be a number between 0 and 1, both excluded"),
    ("baseline='bm25', metrics=['rbo@10', 'ndcg@10']", "unknown metric 'ndcg@10'"),
    ("baseline='bm25', system='tag'", "has no system column 'tag'"),
    ("metrics=['rbo@10']", "overlap needs baseline="),
])
def test_overlap_mistakes_fail_to_compile_naming_them(small_project, call, named):
    model = small_project / "models" / "bad_overlap.sql"
    model.write_text(f"{{{{ sqlndcg.overlap(run=ref('systems'), {call}) }}}}\n")
    try:
        done = dbt(small_project, "compile", "--select", "bad_overlap", check=False)
    finally:
        model.unlink()
    assert done.returncode != 0
    assert "Compilation Error" in done.stdout and named in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize("audit, call, named", [
    ("select * from {{ ref('qrels') }} where 1 = 0", "metrics=['p@1']", "the audit is empty"),
    ("select query_id, doc_id, rel * 2 as rel from {{ ref('qrels') }}", "metrics=['p@1']",
     "the model labels grade from 1 to 2 and the audit from 2 to 4: the two sources must use the same grade scale"),
    ("select * from {{ ref('qrels') }}", "metrics=['p@1'], ppi='ppi+'", "ppi='ppi+' is not allowed"),
    ("select * from {{ ref('qrels') }}", "metrics=['p@1'], interval='z'", "interval='z' is not allowed"),
    ("select * from {{ ref('qrels') }}", "metrics=['p@1'], system='system'", "give baseline= too"),
    ("select * from {{ ref('qrels') }}", "gain='linear'", "ppi_evaluate needs metrics="),
])
def test_ppi_mistakes_fail_the_model_naming_them(small_project, audit, call, named):
    """sqlndcg.ppi_evaluate in dbt refuses what the Python verb refuses: an empty audit, sources on different grade
    scales, a ppi or interval it does not know, system= without baseline=, no metrics."""
    audit_model = small_project / "models" / "audit_q.sql"
    model = small_project / "models" / "bad_ppi.sql"
    audit_model.write_text(audit + "\n")
    model.write_text(f"{{{{ sqlndcg.ppi_evaluate(run=ref('run'), model_labels=ref('qrels'), audit=ref('audit_q'), "
                     f"{call}) }}}}\n")
    try:
        done = dbt(small_project, "run", "--select", "audit_q", "bad_ppi", check=False)
    finally:
        model.unlink()
        audit_model.unlink()
    assert done.returncode != 0
    assert named in done.stdout, done.stdout[-3000:]


def test_overlap_problems_lists_the_rows_overlap_refuses(small_project):
    """overlap_problems (the checks overlap() runs in Python) returns one row per problem: a NULL score and a
    document twice in a list; nothing on the clean seed."""
    models = small_project / "models"
    (models / "systems_bad.sql").write_text(
        "select * from {{ ref('systems') }} union all "
        "select system, query_id, 'c' as doc_id, null as score from {{ ref('systems') }} where doc_id = 'a' "
        "union all select * from {{ ref('systems') }} where system = 'dense'\n")
    (models / "overlap_issues.sql").write_text(
        "{{ sqlndcg.overlap_problems(run=ref('systems_bad'), baseline='bm25') }}\n")
    (models / "overlap_clean.sql").write_text("{{ sqlndcg.overlap_problems(run=ref('systems'), baseline='bm25') }}\n")
    try:
        dbt(small_project, "run", "--select", "systems_bad", "overlap_issues", "overlap_clean")
        with duckdb.connect(str(small_project / "m.duckdb"), read_only=True) as con:
            issues = sorted(con.execute("select problem, row_key from overlap_issues").fetchall())
            clean = con.execute("select count(*) from overlap_clean").fetchone()[0]
    finally:
        for name in ("systems_bad", "overlap_issues", "overlap_clean"):
            (models / f"{name}.sql").unlink()
    assert clean == 0
    assert issues == [("(system, query, document) rows that occur more than once", "dense, q1, b"),
                      ("score is NULL", "bm25, q1, c")], issues


def test_dbt_build_fails_on_a_duplicate_judgment(small_project):
    seeds = small_project / "seeds" / "qrels.csv"
    original = seeds.read_text()
    schema = small_project / "models" / "schema.yml"
    schema.write_text("version: 2\nseeds:\n  - name: qrels\n    data_tests:\n      - sqlndcg.valid_judgments\n"
                      "  - name: run\n    data_tests:\n      - sqlndcg.valid_run\n")
    try:
        seeds.write_text(original + "q1,a,3\n")
        done = dbt(small_project, "build", check=False)
    finally:
        seeds.write_text(original)
        schema.unlink()
    assert done.returncode != 0
    assert "sqlndcg_valid_judgments_qrels" in done.stdout and "FAIL 1" in done.stdout, done.stdout[-3000:]
    assert "sqlndcg_valid_run_run" in done.stdout


# --- the judgment inputs' generic tests: a good table passes, a bad one fails naming the problem ---------------------

JUDGMENT_SCHEMA = """version: 2
seeds:
  - name: events
    data_tests:
      - sqlndcg.valid_events:
          arguments:
            rules: {click: 1, purchase: 3}
            impressions: "ref('run')"
  - name: annotations
    data_tests:
      - sqlndcg.valid_annotations
  - name: weights
    data_tests:
      - sqlndcg.valid_query_weights:
          arguments:
            per_query: "ref('scored')"
"""

GOOD_INPUTS = {
    "events.csv": "query_id,doc_id,event\nq1,a,click\nq1,a,purchase\nq1,b,click\n",
    "annotations.csv": "query_id,doc_id,annotator,rel\nq1,a,ann,2\nq1,a,bob,\nq1,b,ann,0\nq1,b,bob,1\n",
    "weights.csv": "query_id,weight\nq1,3.5\nq2,0\n",
}
BAD_INPUTS = {  # an ungraded event type (twice); a rating given twice; a negative weight and q1 unweighted
    "events.csv": "query_id,doc_id,event\nq1,a,click\nq1,a,hover\nq1,b,hover\n",
    "annotations.csv": "query_id,doc_id,annotator,rel\nq1,a,ann,2\nq1,a,ann,3\nq1,b,ann,0\nq1,b,bob,1\n",
    "weights.csv": "query_id,weight\nq2,-1\n",
}


def _build_judgment_inputs(project: Path, inputs: dict) -> subprocess.CompletedProcess:
    written = [project / "seeds" / name for name in inputs] + [project / "models" / "schema.yml",
                                                              project / "models" / "scored.sql"]
    try:
        for name, text in inputs.items():
            (project / "seeds" / name).write_text(text)
        (project / "models" / "schema.yml").write_text(JUDGMENT_SCHEMA)
        (project / "models" / "scored.sql").write_text(
            "{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics=['ndcg@10']) }}\n")
        return dbt(project, "build", check=False)
    finally:
        for path in written:
            path.unlink(missing_ok=True)


def test_judgment_generic_tests_pass_on_good_inputs_and_fail_on_bad_ones(small_project):
    """valid_events, valid_annotations and valid_query_weights run the checks labels_from_events, agreement and
    evaluate(query_weights=) run in Python (the same declarations): silent on good tables, failing with the
    offending rows on bad ones."""
    good = _build_judgment_inputs(small_project, GOOD_INPUTS)
    assert good.returncode == 0, good.stdout[-4000:]
    for test in ("sqlndcg_valid_events_events", "sqlndcg_valid_annotations_annotations",
                 "sqlndcg_valid_query_weights_weights"):
        assert test in good.stdout, test
    assert "FAIL" not in good.stdout.replace("FAIL=0", "")

    bad = _build_judgment_inputs(small_project, BAD_INPUTS)
    assert bad.returncode != 0
    out = bad.stdout
    failures = {line.split("Failure in test ")[1].split()[0]: line for line in out.splitlines()
                if "Failure in test " in line}
    assert any(name.startswith("sqlndcg_valid_events_events") for name in failures), out[-4000:]
    assert any(name.startswith("sqlndcg_valid_annotations_annotations") for name in failures), out[-4000:]
    assert any(name.startswith("sqlndcg_valid_query_weights_weights") for name in failures), out[-4000:]
    for name, count in (("sqlndcg_valid_events_events", 2), ("sqlndcg_valid_annotations_annotations", 1),
                        ("sqlndcg_valid_query_weights_weights", 2)):
        line = next(line for line in out.splitlines() if name in line and "FAIL" in line and "Failure" not in line)
        assert f"FAIL {count}" in line, line


# --- inputs a model cannot compute from: the build fails naming them; DECIMAL scores and labels work ----------------

CLEAN_RUN = [("a", "q1", "d1", 3.0), ("a", "q1", "d2", 2.0), ("a", "q1", "d3", 1.0),
             ("b", "q1", "d2", 3.0), ("b", "q1", "d1", 2.0), ("a", "q2", "d4", 2.0), ("b", "q2", "d4", 1.0)]
CLEAN_QRELS = [("q1", "d1", 1), ("q1", "d2", 2), ("q1", "d3", 0), ("q2", "d4", 1)]
# q1's d2 twice in system a's list (both copies relevant: without the guard, ndcg@10 > 1 and AP > 1);
# q2's d4 judged twice.
REPEATED_RUN = CLEAN_RUN + [("a", "q1", "d2", 1.5)]
REPEATED_QRELS = CLEAN_QRELS + [("q2", "d4", 2)]
# DECIMAL scores (ties included) and fractional DECIMAL labels.
DECIMAL_RUN = [("a", "q1", "d1", "2.50"), ("a", "q1", "d2", "2.50"), ("a", "q1", "d3", "1.25"),
               ("a", "q1", "d4", "0.10"), ("b", "q1", "d4", "9.99"), ("b", "q1", "d3", "3.00"),
               ("b", "q1", "d1", "0.50"), ("a", "q2", "d5", "1.00"), ("b", "q2", "d6", "1.00")]
DECIMAL_QRELS = [("q1", "d1", "0.5"), ("q1", "d2", "2.0"), ("q1", "d3", "1.5"), ("q1", "d4", "0.0"),
                 ("q2", "d5", "3.0"), ("q2", "d7", "1.0")]
GUARD_METRICS = ["ndcg@10", "ndcg@3", "p@2", "map", "mrr@10"]

GUARDED_MODELS = {  # every entry point that computes from the inputs; no data test is attached to their inputs
    "repeated_run_per_query": "sqlndcg.per_query(run=ref('run_repeated'), judgments=ref('qrels'), metrics=M, group_by=['system'])",
    "repeated_judgment_per_query": "sqlndcg.per_query(run=ref('run'), judgments=ref('qrels_repeated'), metrics=M, group_by=['system'])",
    "repeated_run_summary": "sqlndcg.summary(run=ref('run_repeated'), judgments=ref('qrels'), metrics=M, group_by=['system'])",
    "repeated_run_compare": "sqlndcg.compare(run=ref('run_repeated'), judgments=ref('qrels'), metrics=M, system='system', baseline='a')",
    "repeated_run_account": "sqlndcg.account(run=ref('run_repeated'), judgments=ref('qrels'), group_by=['system'])",
}
FLAWED_MODELS = {  # model: its call (inputs as in Python's evaluate(run, judgments, **settings) below)
    "null_doc_per_query": "sqlndcg.per_query(run=ref('run_flawed'), judgments=ref('qrels'), metrics=['ndcg@10'], group_by=['system'])",
    "null_label_per_query": "sqlndcg.per_query(run=ref('run'), judgments=ref('qrels_flawed'), metrics=['ndcg@10'], group_by=['system'])",
    "shared_rank_per_query": "sqlndcg.per_query(run=ref('run_ranked'), judgments=ref('qrels'), metrics=['ndcg@10'], ties='rank')",
    "disagreeing_ranks_per_query": "sqlndcg.per_query(run=ref('run_scored_and_ranked'), judgments=ref('qrels'), metrics=['ndcg@10'])",
    "clean_per_query": "sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics=['ndcg@10'], group_by=['system'])",
    "repeated_weights_summary": "sqlndcg.summary(per_query=ref('clean_per_query'), metrics=['ndcg@10'], group_by=['system'], query_weights=ref('weights_repeated'))",
    "repeated_weights_compare": "sqlndcg.compare(run=ref('run'), judgments=ref('qrels'), metrics=['ndcg@10'], system='system', baseline='a', query_weights=ref('weights_repeated'))",
}
FLAWED_EVALUATE = {  # model: run, judgments, settings, and the input refused
    "null_doc_per_query": ("run_flawed", "qrels", {"group_by": ["system"]}, "run relation \"guard\".\"main\".\"run_flawed\""),
    "null_label_per_query": ("run", "qrels_flawed", {"group_by": ["system"]}, "judgments relation \"guard\".\"main\".\"qrels_flawed\""),
    "shared_rank_per_query": ("run_ranked", "qrels", {"ties": "rank"}, "run relation \"guard\".\"main\".\"run_ranked\""),
    "disagreeing_ranks_per_query": ("run_scored_and_ranked", "qrels", {},
                                    "run relation \"guard\".\"main\".\"run_scored_and_ranked\""),
    "repeated_weights_summary": ("run", "qrels", {"group_by": ["system"], "query_weights": "weights_repeated"},
                                 "query weights relation \"guard\".\"main\".\"weights_repeated\""),
    "repeated_weights_compare": ("run", "qrels", {"system": "system", "baseline": "a", "query_weights": "weights_repeated"},
                                 "query weights relation \"guard\".\"main\".\"weights_repeated\""),
}
GUARD_SCHEMA = """version: 2
seeds:
  - name: run_flawed
    data_tests:
      - sqlndcg.valid_run: {arguments: {group_by: [system]}}
  - name: qrels_flawed
    data_tests:
      - sqlndcg.valid_judgments
  - name: run_scored_and_ranked
    data_tests:
      - sqlndcg.valid_run
"""
PG_PROFILE = (
    "    postgres:\n      type: postgres\n      host: \"{{ env_var('SQLNDCG_PG_HOST', 'localhost') }}\"\n"
    "      port: \"{{ env_var('SQLNDCG_PG_PORT', '5432') | as_number }}\"\n"
    "      user: \"{{ env_var('SQLNDCG_PG_USER', 'postgres') }}\"\n"
    "      password: \"{{ env_var('SQLNDCG_PG_PASSWORD', '') }}\"\n"
    "      dbname: \"{{ env_var('SQLNDCG_PG_DBNAME', 'postgres') }}\"\n"
    "      schema: \"{{ env_var('SQLNDCG_PG_SCHEMA', 'guard') }}\"\n      threads: 2\n")


@pytest.fixture(scope="module")
def guard_project(tmp_path_factory):
    """Seeds with repeated pairs, flawed seeds with the package's generic tests, DECIMAL seeds, and models over
    them; a dbt-duckdb target and a dbt-postgres one (its server given by SQLNDCG_PG_* variables)."""
    project = tmp_path_factory.mktemp("guard") / "proj"
    for folder in ("seeds", "models/repeated", "models/decimal", "models/unchecked", "models/flawed"):
        (project / folder).mkdir(parents=True)
    header = ("system", "query_id", "doc_id", "score")
    _write_csv(project / "seeds" / "run.csv", header, CLEAN_RUN)
    _write_csv(project / "seeds" / "run_repeated.csv", header, REPEATED_RUN)
    _write_csv(project / "seeds" / "qrels.csv", ("query_id", "doc_id", "rel"), CLEAN_QRELS)
    _write_csv(project / "seeds" / "qrels_repeated.csv", ("query_id", "doc_id", "rel"), REPEATED_QRELS)
    _write_csv(project / "seeds" / "run_decimal.csv", header, DECIMAL_RUN)
    _write_csv(project / "seeds" / "qrels_decimal.csv", ("query_id", "doc_id", "rel"), DECIMAL_QRELS)
    (project / "seeds" / "run_flawed.csv").write_text(  # a NULL score, a pair three times, a NULL document id
        "system,query_id,doc_id,score\na,q1,d1,3\na,q1,d2,\na,q1,d3,1\na,q1,d3,2\na,q1,d3,0.5\nb,q2,,1\nb,q2,d9,1\n")
    (project / "seeds" / "qrels_flawed.csv").write_text(  # a NULL label, a judgment twice
        "query_id,doc_id,rel\nq1,d1,1\nq1,d2,\nq2,d9,1\nq2,d9,3\n")
    (project / "seeds" / "run_ranked.csv").write_text("query_id,doc_id,rank\nq1,d1,1\nq1,d2,1\nq1,d3,2\n")
    (project / "seeds" / "run_scored_and_ranked.csv").write_text(  # d2 scores above d1, ranked below it
        "query_id,doc_id,score,rank\nq1,d1,1,1\nq1,d2,3,2\nq2,d4,1,1\n")
    (project / "seeds" / "weights_repeated.csv").write_text("query_id,weight\nq1,1\nq1,1\nq2,1\n")
    for name, call in FLAWED_MODELS.items():
        (project / "models" / "flawed" / f"{name}.sql").write_text("{{ " + call + " }}\n")
    metrics = _jinja(GUARD_METRICS)
    for name, call in GUARDED_MODELS.items():
        (project / "models" / "repeated" / f"{name}.sql").write_text("{{ " + call.replace("=M", "=" + metrics) + " }}\n")
    (project / "models" / "unchecked" / "repeated_unchecked.sql").write_text(
        "{{ sqlndcg.per_query(run=ref('run_repeated'), judgments=ref('qrels'), metrics=['ndcg@10'], "
        "group_by=['system'], check_inputs=false) }}\n")
    (project / "models" / "decimal" / "decimal_per_query.sql").write_text(
        f"{{{{ sqlndcg.per_query(run=ref('run_decimal'), judgments=ref('qrels_decimal'), metrics={metrics}, "
        "group_by=['system']) }}\n")
    (project / "models" / "decimal" / "decimal_summary.sql").write_text(
        f"{{{{ sqlndcg.summary(run=ref('run_decimal'), judgments=ref('qrels_decimal'), metrics={metrics}, "
        "group_by=['system']) }}\n")
    (project / "models" / "schema.yml").write_text(GUARD_SCHEMA)
    (project / "dbt_project.yml").write_text(
        "name: guard\nversion: '1.0.0'\nconfig-version: 2\nprofile: guard\n"
        "models:\n  guard:\n    +materialized: table\n"
        "seeds:\n  guard:\n    run_decimal:\n      +column_types: {score: 'decimal(6,2)'}\n"
        "    qrels_decimal:\n      +column_types: {rel: 'decimal(4,1)'}\n"
        "    run_flawed:\n      +column_types: {score: 'double precision'}\n"
        "    qrels_flawed:\n      +column_types: {rel: 'double precision'}\n")
    (project / "profiles.yml").write_text(
        f"guard:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
        f"      path: '{project / 'guard.duckdb'}'\n      threads: 2\n" + PG_PROFILE)
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    dbt(project, "deps")
    dbt(project, "seed")
    return project


@pytest.fixture(params=["duckdb", "postgres"])
def guard_target(request, guard_project):
    """(dbt arguments, environment, fetch(table) -> rows or None when absent) for one target; the PostgreSQL
    target seeds its own schema on the session's server."""
    if request.param == "duckdb":
        database = guard_project / "guard.duckdb"

        def fetch(table):
            with duckdb.connect(str(database), read_only=True) as con:
                if not con.execute("SELECT 1 FROM information_schema.tables WHERE table_name = ?", [table]).fetchall():
                    return None
            return duckdb_rows(database, table)

        yield "duckdb", [], {}, fetch
        return
    postgres = request.getfixturevalue("postgres")
    schema = ("guard_" + "".join(c if c.isalnum() else "_" for c in request.node.name.removeprefix("test_")))[:60].lower()
    env = {"SQLNDCG_PG_HOST": postgres.host, "SQLNDCG_PG_PORT": str(postgres.port), "SQLNDCG_PG_USER": postgres.user,
           "SQLNDCG_PG_PASSWORD": postgres.password, "SQLNDCG_PG_DBNAME": postgres.dbname_c,
           "SQLNDCG_PG_SCHEMA": schema}
    dbt(guard_project, "seed", "--target", "postgres", env=env)

    def fetch(table):
        with postgres.connect(postgres.dbname_c) as con:
            if not con.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
                               [schema, table]).fetchall():
                return None
            cur = con.execute(f'SELECT * FROM "{schema}"."{table}"')
            names = [d.name for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]

    yield "postgres", ["--target", "postgres"], env, fetch


@pytest.mark.parametrize("command", ["run", "build"])
def test_repeated_pairs_fail_the_models_build_naming_them(guard_project, guard_target, command):
    """No data test attached (and `dbt run` runs none): each model over an input with a repeated (query, document)
    pair fails, with one line naming the relation, the columns and the repeated key; no table is left holding
    ndcg@10 = 1.06 or AP = 1.33."""
    engine, target, env, fetch = guard_target
    done = dbt(guard_project, command, "--select", "path:models/repeated", *target, env=env, check=False)
    out = done.stdout
    assert done.returncode != 0, out[-4000:]
    relation = {"duckdb": '"guard"."main".', "postgres": f'"{env.get("SQLNDCG_PG_DBNAME")}"."{env.get("SQLNDCG_PG_SCHEMA")}".'}[engine]
    run_message = (f"sqlndcg input error: run relation {relation}\"run_repeated\": 1 (query, document) pairs occur "
                   "more than once (system, query_id, doc_id), e.g. (system='a', query_id='q1', doc_id='d2', copies=2). "
                   "Each must appear once")
    judgment_message = (f"sqlndcg input error: judgments relation {relation}\"qrels_repeated\": 1 (query, document) "
                        "judgments occur more than once (query_id, doc_id), e.g. (query_id='q2', doc_id='d4', copies=2)")
    lines = out.splitlines()
    for model in GUARDED_MODELS:
        assert f"Failure in model {model} " in out, out[-4000:]
        start = next(i for i, line in enumerate(lines) if f"Failure in model {model} " in line)
        message = next(line for line in lines[start:] if "sqlndcg input error" in line).strip()
        assert message.startswith(judgment_message if "judgment" in model else run_message), message
        assert fetch(model) is None, f"{model} was built"
    assert "PASS=0" in out


def test_check_inputs_false_skips_the_guard_and_shows_why_it_exists(guard_project):
    """check_inputs=false (for users whose own tests refuse repeated pairs first) builds on the same input: the
    repeated relevant document counts twice, which is the impossible number the guard refuses."""
    dbt(guard_project, "run", "--select", "repeated_unchecked")
    rows = {(r["system"], r["query_id"]): r["ndcg@10"] for r in duckdb_rows(guard_project / "guard.duckdb",
                                                                            "repeated_unchecked")}
    assert rows[("a", "q1")] > 1


def test_generic_tests_store_one_row_per_problem_with_its_description(guard_project):
    done = dbt(guard_project, "test", "--store-failures", "--select", "run_flawed", "qrels_flawed", check=False)
    assert done.returncode != 0
    assert "FAIL 3" in done.stdout and "FAIL 2" in done.stdout, done.stdout[-3000:]
    audit = {}
    with duckdb.connect(str(guard_project / "guard.duckdb"), read_only=True) as con:
        for (name,) in con.execute("SELECT table_name FROM information_schema.tables "
                                   "WHERE table_schema = 'main_dbt_test__audit'").fetchall():
            audit[name.split("_flawed")[0]] = sorted(
                tuple(r) for r in con.execute(f'SELECT problem, row_key FROM main_dbt_test__audit."{name}"').fetchall())
    run = '"guard"."main"."run_flawed"'
    qrels = '"guard"."main"."qrels_flawed"'
    assert audit["sqlndcg_valid_run_run"] == sorted([
        (f"column 'doc_id' is NULL in run relation {run}: (system, query_id, doc_id) = ('b', 'q2', NULL)", None),
        (f"column 'score' is missing (NULL, or NaN in a pandas frame; every retrieved document needs a score) in run "
         f"relation {run}: (system, query_id, doc_id) = ('a', 'q1', 'd2'), score = NULL", "a, q1, d2"),
        (f"repeated (system, query_id, doc_id) in run relation {run}: ('a', 'q1', 'd3') appears 3 times. Each must "
         "appear once. If the run holds several systems, days or segments, name that column with group_by; otherwise "
         "keep one row per document (e.g. its best score)", "a, q1, d3"),
    ])
    assert audit["sqlndcg_valid_judgments_qrels"] == sorted([
        (f"column 'rel' is missing (NULL, or NaN in a pandas frame; every judgment needs a relevance label) in "
         f"judgments relation {qrels}: (query_id, doc_id) = ('q1', 'd2'), rel = NULL", "q1, d2"),
        (f"repeated (query_id, doc_id) in judgments relation {qrels}: ('q2', 'd9') appears 2 times. Each must appear "
         "once. If judgments differ per group (say per day), add that column to both inputs and to group_by",
         "q2, d9"),
    ])


def test_valid_run_names_the_queries_whose_score_and_rank_columns_disagree(guard_project):
    done = dbt(guard_project, "test", "--store-failures", "--select", "run_scored_and_ranked", check=False)
    assert done.returncode != 0 and "FAIL 1" in done.stdout, done.stdout[-3000:]
    with duckdb.connect(str(guard_project / "guard.duckdb"), read_only=True) as con:
        (name,) = con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                              "'main_dbt_test__audit' AND table_name LIKE '%scored_and_ranked%'").fetchone()
        rows = con.execute(f'SELECT problem, row_key FROM main_dbt_test__audit."{name}"').fetchall()
    run = '"guard"."main"."run_scored_and_ranked"'
    assert rows == [(f"score column 'score' and rank column 'rank' order the documents differently in run relation "
                     f"{run} (name the one that ranks with score= or rank=): (query_id) = ('q1'), a document at "
                     "rank 2 scores higher than one ranked above it", "q1")]


def test_decimal_scores_and_labels_equal_evaluate(guard_project, guard_target):
    """DECIMAL score and rel columns (as a seed typed decimal, or a model of `2.50` literals, gives them) are read
    as numbers, as evaluate() reads them: the same per-query rows and summary."""
    engine, target, env, fetch = guard_target
    dbt(guard_project, "run", "--select", "path:models/decimal", *target, env=env)
    con = duckdb.connect()
    con.execute("CREATE TABLE run (system VARCHAR, query_id VARCHAR, doc_id VARCHAR, score DECIMAL(6, 2))")
    con.executemany("INSERT INTO run VALUES (?, ?, ?, ?)", DECIMAL_RUN)
    con.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, rel DECIMAL(4, 1))")
    con.executemany("INSERT INTO qrels VALUES (?, ?, ?)", DECIMAL_QRELS)
    res = sqlndcg.evaluate("run", "qrels", con=con, metrics=GUARD_METRICS, group_by=["system"])
    want = res.per_query.to_dicts()
    assert_same_rows(fetch("decimal_per_query"), want, ["system", "query_id"], f"decimal_per_query on {engine}")
    assert_same_rows(fetch("decimal_summary"), res.summary.to_dicts(), ["system"], f"decimal_summary on {engine}")
    # Hand-checked: system b ranks d4 (0), d3 (1.5), d1 (0.5) for q1; exponential gains 0, 2^1.5-1, 2^0.5-1.
    gains = [0, 2 ** 1.5 - 1, 2 ** 0.5 - 1]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted([2 ** 0.5 - 1, 2 ** 2 - 1, 2 ** 1.5 - 1, 0], reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    b_q1 = next(r for r in want if r["system"] == "b" and r["query_id"] == "q1")
    assert math.isclose(b_q1["ndcg@10"], dcg / idcg, abs_tol=1e-12)


def test_other_inputs_evaluate_refuses_fail_the_build_with_its_message(guard_project):
    """A NULL id or label, ties='rank' with shared ranks, score and rank columns that disagree, and a query weighted
    twice (which summary and compare would count as two queries) fail the model as evaluate() and compare() refuse
    them: the same message after the input's label (dbt names the relation)."""
    done = dbt(guard_project, "run", "--select", "path:models/flawed", check=False)
    assert done.returncode != 0
    assert "OK created sql table model main.clean_per_query" in done.stdout  # good inputs still build
    lines = done.stdout.splitlines()
    with duckdb.connect(str(guard_project / "guard.duckdb"), read_only=True) as con:
        for model, (run, judgments, settings, refused_input) in FLAWED_EVALUATE.items():
            verb = sqlndcg.compare if "system" in settings else sqlndcg.evaluate
            with pytest.raises(sqlndcg.errors.DataError) as refused:
                verb(run, judgments, con=con, metrics=["ndcg@10"], **settings)
            said = str(refused.value).split(": ", 1)[1]
            start = next(i for i, line in enumerate(lines) if f"Failure in model {model} " in line)
            message = next(line for line in lines[start:] if "sqlndcg input error" in line).strip()
            assert message.startswith(f"sqlndcg input error: {refused_input}: {said}"), (message, said)


def test_example_provider_exposure_equals_the_exposure_verb(example_build):
    """provider_exposure (sqlndcg.exposure in dbt) is the Python verb's per-query table on the same tables."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        want = sqlndcg.exposure("rankings", "catalog", browsing="rbp", p=0.8, k=10, group_by=["system", "ds"], con=con)
    got = duckdb_rows(database, "provider_exposure")
    assert len(got) == len(want.per_query.rows) > 50
    assert_same_rows(got, want.per_query.to_dicts(), ["system", "ds", "query_id"], "provider_exposure")


# --- last: this test appends a day to the example's seeds and tables, which the tests above read as built ------

def test_example_ppi_model_equals_ppi_evaluate(example_build):
    """ppi_ranker (sqlndcg.ppi_evaluate's dbt entry: model labels of every shown document, the human audit of
    every third query) is what sqlndcg.ppi_evaluate returns on the same seeds, per system, day and metric; the
    model judge overrates (its naive means are above the corrected ones)."""
    _, database, _ = example_build
    with duckdb.connect(str(database), read_only=True) as con:
        # the audit is the judgments model's grades of every third query, the model labels are as many rows
        differ = con.execute("SELECT count(*) FROM ((SELECT ds, query_id, doc_id, rel FROM judgments WHERE "
                         "CAST(substr(query_id, 2) AS INTEGER) % 3 = 1 EXCEPT SELECT ds, query_id, doc_id, rel FROM "
                         "audit_labels) UNION ALL (SELECT ds, query_id, doc_id, rel FROM audit_labels EXCEPT "
                         "SELECT ds, query_id, doc_id, rel FROM judgments))").fetchone()
        counts = con.execute("SELECT (SELECT count(*) FROM judgments), (SELECT count(*) FROM model_labels)").fetchone()
        assert differ == (0,) and counts == (605, 605)
        res = sqlndcg.ppi_evaluate("rankings", "model_labels", "audit_labels", ["ndcg@5", "p@5"],
                                   group_by=["system", "ds"], con=con)
    want = res.summary.to_dicts()
    assert len(want) == 16 and all(r["audited"] == 5 and r["unaudited"] == 10 for r in want)
    assert sum(r["naive_mean"] > r["mean"] for r in want) >= 10
    assert_same_rows(duckdb_rows(database, "ppi_ranker"), want, ["system", "ds", "metric"], "ppi_ranker")
    with duckdb.connect(str(database), read_only=True) as con:
        paired = sqlndcg.ppi_compare("rankings", "model_labels", "audit_labels", ["ndcg@5", "p@5"], group_by="ds",
                                     system="system", baseline="baseline", con=con).summary.to_dicts()
    assert len(paired) == 8 and {r["system"] for r in paired} == {"ltr_v2"}
    assert_same_rows(duckdb_rows(database, "ppi_ranker_comparison"), paired, ["ds", "system", "metric"],
                     "ppi_ranker_comparison")


def test_incremental_model_evaluates_only_new_days(example_build, tmp_path):
    project, database, env = example_build
    rankings = project / "seeds" / "rankings.csv"
    original = rankings.read_text()
    before = {(r["system"], str(r["ds"])) for r in duckdb_rows(database, "per_query_incremental")}
    try:
        # A new day arrives, one query, run by both systems (under queries='judged' a system absent on a judged day
        # scores 0 there, which the incremental model, reading only the new days' run, cannot know).
        with rankings.open("a") as f:
            f.write("baseline,2026-11-05,q01,sku-01-01,0.9\nbaseline,2026-11-05,q01,sku-01-02,0.8\n"
                    "ltr_v2,2026-11-05,q01,sku-01-02,0.9\n")
        with (project / "seeds" / "events.csv").open("a") as f:
            f.write("2026-11-05,q01,sku-01-02,purchase\n")
        dbt(project, "build", "--select", "rankings", "events", "judgments", "per_query_incremental",
            "per_query_metrics", env=env)
        rows = duckdb_rows(database, "per_query_incremental")
        after = {(r["system"], str(r["ds"])) for r in rows}
        assert after - before == {("baseline", "2026-11-05"), ("ltr_v2", "2026-11-05")}
        new = {r["system"]: r["ndcg@5"] for r in rows if str(r["ds"]) == "2026-11-05"}
        # one judged query that day: sku-01-02 (purchase, 3) ranked second by the baseline, first by ltr_v2;
        # sku-01-01 shown without an event (0)
        assert new == pytest.approx({"baseline": 1 / math.log2(3), "ltr_v2": 1.0}, abs=1e-12)
        full = duckdb_rows(database, "per_query_metrics")
        assert_same_rows(rows, [{k: r[k] for k in r} for r in full], ["system", "ds", "query_id"], "incremental")
    finally:
        rankings.write_text(original)
