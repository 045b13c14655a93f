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
                 "sqlndcg_valid_annotations", "sqlndcg_valid_query_weights"):
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
    assert round(worked.per_query.to_dicts()[0]["ndcg@3"], 6) == 0.855669


def test_incremental_model_evaluates_only_new_days(example_build, tmp_path):
    project, database, env = example_build
    rankings = project / "seeds" / "rankings.csv"
    original = rankings.read_text()
    before = {(r["system"], str(r["ds"])) for r in duckdb_rows(database, "per_query_incremental")}
    try:
        with rankings.open("a") as f:  # a new day arrives: the baseline only, one query
            f.write("baseline,2026-11-05,q01,sku-01-01,0.9\nbaseline,2026-11-05,q01,sku-01-02,0.8\n")
        with (project / "seeds" / "events.csv").open("a") as f:
            f.write("2026-11-05,q01,sku-01-02,purchase\n")
        dbt(project, "build", "--select", "rankings", "events", "judgments", "per_query_incremental",
            "per_query_metrics", env=env)
        rows = duckdb_rows(database, "per_query_incremental")
        after = {(r["system"], str(r["ds"])) for r in rows}
        assert after - before == {("baseline", "2026-11-05")}
        new = [r for r in rows if str(r["ds"]) == "2026-11-05"]
        # one judged query that day: sku-01-02 (purchase, 3) ranked second, sku-01-01 shown without an event (0)
        assert len(new) == 1 and math.isclose(new[0]["ndcg@5"], 1 / math.log2(3), abs_tol=1e-12)
        full = duckdb_rows(database, "per_query_metrics")
        assert_same_rows(rows, [{k: r[k] for k in r} for r in full], ["system", "ds", "query_id"], "incremental")
    finally:
        rankings.write_text(original)


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


# --- mistakes fail the build, by name ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_project(tmp_path_factory):
    project = tmp_path_factory.mktemp("mistakes") / "proj"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    _write_csv(project / "seeds" / "run.csv", ("query_id", "doc_id", "score"), [("q1", "a", 2.0), ("q1", "b", 1.0)])
    _write_csv(project / "seeds" / "qrels.csv", ("query_id", "doc_id", "rel"), [("q1", "a", 1), ("q1", "b", 2)])
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
