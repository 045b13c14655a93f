"""Edges of the inputs: file paths read literally (no glob, no merge of files), NaN and infinite ranks refused on
every engine the checks run on, and measure parameters outside their declared domains refused where metric names
are parsed (Python, dbt's parse_metrics and the trec_eval command alike)."""

from __future__ import annotations

import sqlite3

import pyarrow as pa
import pytest

import sqlndcg
from sqlndcg.cli import main
from sqlndcg.core.metrics import MEASURES

# ----------------------------------------------------------------------------------------------------------------
# NaN and infinite ranks

# One query; by rank the order is a (1), b (2), c (3); only b is relevant: RR = 1/2.
JUDGMENTS = {"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "c"], "rel": [0.0, 1.0, 0.0]}
BAD_RANKS = [float("nan"), float("inf"), float("-inf")]


def ranked(rank_of_b: float) -> dict:
    return {"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "c"], "rank": [1.0, rank_of_b, 3.0]}


def test_whole_ranks_held_as_doubles_are_still_read():
    res = sqlndcg.evaluate(pa.table(ranked(2.0)), pa.table(JUDGMENTS), ["rr"], score=None)
    assert res.per_query.column("rr") == pytest.approx([0.5])


@pytest.mark.parametrize("bad", BAD_RANKS, ids=["nan", "inf", "-inf"])
def test_a_nan_or_infinite_rank_is_refused_with_its_row_on_duckdb(bad):
    # before: NaN and +inf passed the check (NaN < 1 and inf <> FLOOR(inf) are false) and were ranked last
    with pytest.raises(sqlndcg.DataError) as err:
        sqlndcg.evaluate(pa.table(ranked(bad)), pa.table(JUDGMENTS), ["rr"], score=None)
    message = str(err.value)
    assert "column 'rank' is NaN or infinite" in message and "in 1 row(s)" in message
    assert f"doc_id='b', rank={bad!r}" in message and "\n" not in message


def test_a_nan_rank_in_a_duckdb_table_is_refused():
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q', 'a', 1.0::DOUBLE), ('q', 'b', 'NaN'::DOUBLE), "
                "('q', 'c', 3.0::DOUBLE)) AS t(query_id, doc_id, rank)")
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q', 'b', 1.0)) AS t(query_id, doc_id, rel)")
    with pytest.raises(sqlndcg.DataError, match=r"run table 'run': column 'rank' is NaN or infinite .*doc_id='b'"):
        sqlndcg.evaluate("run", "qrels", ["rr"], score=None, con=con)


def _dbapi_tables(con, double: str, placeholder: str, rank_of_b: float, engine_clause: str = ""):
    cur = con.cursor()
    for table, cols, rows in (
        ("edge_run", f"query_id TEXT, doc_id TEXT, rank {double}", list(zip(*ranked(rank_of_b).values()))),
        ("edge_qrels", f"query_id TEXT, doc_id TEXT, rel {double}", list(zip(*JUDGMENTS.values()))),
    ):
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute(f"CREATE TABLE {table} ({cols}){engine_clause}")
        cur.executemany(f"INSERT INTO {table} VALUES ({', '.join([placeholder] * 3)})", rows)
    if hasattr(con, "commit"):
        con.commit()
    return "edge_run", "edge_qrels"


def _refused(run, judgments, con, bad):
    with pytest.raises(sqlndcg.DataError) as err:
        sqlndcg.evaluate(run, judgments, ["rr"], score=None, con=con)
    assert "column 'rank' is NaN or infinite" in str(err.value), str(err.value)
    assert "doc_id='b'" in str(err.value)


@pytest.mark.parametrize("bad", [float("inf"), float("-inf")], ids=["inf", "-inf"])
def test_an_infinite_rank_is_refused_on_sqlite(bad):
    # SQLite stores NaN as NULL (refused as NULL already); infinities are stored as such
    con = sqlite3.connect(":memory:")
    run, judgments = _dbapi_tables(con, "REAL", "?", bad)
    _refused(run, judgments, con, bad)
    run, judgments = _dbapi_tables(con, "REAL", "?", 2.0)
    assert sqlndcg.evaluate(run, judgments, ["rr"], score=None, con=con).per_query.column("rr") == [0.5]


@pytest.mark.parametrize("bad", BAD_RANKS, ids=["nan", "inf", "-inf"])
def test_a_nan_or_infinite_rank_is_refused_on_postgres(postgres, bad):
    with postgres.connect(postgres.dbname_c) as con:
        run, judgments = _dbapi_tables(con, "DOUBLE PRECISION", "%s", bad)
        _refused(run, judgments, con, bad)


@pytest.mark.parametrize("bad", BAD_RANKS, ids=["nan", "inf", "-inf"])
def test_a_nan_or_infinite_rank_is_refused_on_clickhouse(bad):
    from chdb import dbapi

    con = dbapi.connect()
    cur = con.cursor()
    literal = {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(bad)]
    cur.execute("DROP TABLE IF EXISTS edge_run")
    cur.execute("CREATE TABLE edge_run (query_id String, doc_id String, rank Float64) ENGINE = Memory")
    cur.execute(f"INSERT INTO edge_run VALUES ('q', 'a', 1), ('q', 'b', {literal}), ('q', 'c', 3)")
    cur.execute("DROP TABLE IF EXISTS edge_qrels")
    cur.execute("CREATE TABLE edge_qrels (query_id String, doc_id String, rel Float64) ENGINE = Memory")
    cur.execute("INSERT INTO edge_qrels VALUES ('q', 'a', 0), ('q', 'b', 1), ('q', 'c', 0)")
    _refused("edge_run", "edge_qrels", con, bad)


@pytest.mark.parametrize("bad", BAD_RANKS, ids=["nan", "inf", "-inf"])
def test_a_nan_or_infinite_rank_is_refused_on_datafusion(bad):
    import datafusion

    _refused(pa.table(ranked(bad)), pa.table(JUDGMENTS), datafusion.SessionContext(), bad)


def test_a_nan_or_infinite_rank_is_refused_on_spark(spark):
    # views made in SQL: a pandas frame's NaN would reach Spark as NULL
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW edge_qrels AS SELECT * FROM VALUES ('q', 'a', 0D), ('q', 'b', 1D), "
              "('q', 'c', 0D) AS t(query_id, doc_id, rel)")
    for bad in ("NaN", "Infinity", "-Infinity"):
        spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW edge_run AS SELECT * FROM VALUES ('q', 'a', 1D), "
                  f"('q', 'b', CAST('{bad}' AS DOUBLE)), ('q', 'c', 3D) AS t(query_id, doc_id, rank)")
        _refused("edge_run", "edge_qrels", spark, bad)


# ----------------------------------------------------------------------------------------------------------------
# measure parameters: each has a declared domain, checked where metric names are parsed

def test_every_measure_parameter_declares_a_domain_that_holds_its_default():
    with_params = {kind for kind, about in MEASURES.items() if about["params"]}
    assert with_params == {"rbp", "iprec_at_recall", "rprec_mult", "utility", "set_f", "err"}
    for kind in with_params:
        about = MEASURES[kind]
        assert set(about["domains"]) == set(about["params"]), kind
        assert sqlndcg.parse_metric({"kind": kind, "params": dict(about["params"])}).kind == kind


# (metric, domain as the message states it) just outside each bound; and values just inside, accepted
OUTSIDE = [
    ("rbp(p=0)", "0 < p < 1"), ("rbp(p=-0.5)", "0 < p < 1"), ("rbp(p=1)", "0 < p < 1"), ("rbp(p=2)", "0 < p < 1"),
    ("iprec_at_recall(recall=-0.000001)", "0 <= recall <= 1"), ("iprec_at_recall(recall=-1)", "0 <= recall <= 1"),
    ("iprec_at_recall(recall=1.000001)", "0 <= recall <= 1"),
    ("rprec_mult(x=0)", "x > 0"), ("rprec_mult(x=-1)", "x > 0"),
    ("set_f(beta=-0.000001)", "beta >= 0"),
    ("utility(n=-1)", "n >= 0, a whole number"), ("utility(n=2.5)", "n >= 0, a whole number"),
    ("err(max_grade=-1)", "0 <= max_grade <= 1000"), ("err(max_grade=1001)", "0 <= max_grade <= 1000"),
]
INSIDE = ["rbp(p=0.000001)", "rbp(p=0.999999)", "iprec_at_recall(recall=0)", "iprec_at_recall(recall=1)",
          "rprec_mult(x=0.000001)", "rprec_mult(x=1000)", "set_f(beta=0)", "utility(n=0)", "utility(n=1000000)",
          "utility(a=-3,b=2.5,c=-1e300,d=7)", "err(max_grade=0)", "err(max_grade=1000)"]


@pytest.mark.parametrize("metric,domain", OUTSIDE)
def test_a_parameter_outside_its_domain_is_a_metric_error_naming_it(metric, domain):
    name, value = metric[metric.index("(") + 1:-1].split("=")
    with pytest.raises(sqlndcg.MetricError) as err:
        sqlndcg.parse_metrics([metric])
    message = str(err.value)
    shown = message.split(f"metric '{metric}': parameter {name}=", 1)[1].split(" ", 1)[0]
    assert float(shown) == float(value)
    assert f"{name}={shown} is outside its domain {domain} (" in message
    assert "\n" not in message


@pytest.mark.parametrize("metric", INSIDE)
def test_a_parameter_just_inside_its_domain_is_accepted(metric):
    assert sqlndcg.parse_metric(metric).kind == metric.split("(")[0]


def test_a_metric_given_as_a_mapping_or_a_metric_object_is_checked_too():
    with pytest.raises(sqlndcg.MetricError, match=r"parameter p=2 is outside its domain 0 < p < 1"):
        sqlndcg.parse_metrics([{"kind": "rbp", "params": {"p": 2}}])
    with pytest.raises(sqlndcg.MetricError, match=r"parameter x=-1 is outside its domain x > 0"):
        _ = sqlndcg.Metric("rprec_mult", params=(("x", -1.0),)).name


# One query, run a b c d (scores 4..1), judged a=1, b=0, c=2, d unjudged, e=1 not retrieved: R = 3 (a, c, e).
EDGE_RUN = {"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]}
EDGE_QRELS = {"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "e"], "rel": [1.0, 0.0, 2.0, 1.0]}


def test_values_at_the_edges_of_the_domains_are_the_hand_computed_ones():
    res = sqlndcg.evaluate(pa.table(EDGE_RUN), pa.table(EDGE_QRELS),
                           ["set_f(beta=0)", "set_p", "iprec_at_recall(recall=1)", "iprec_at_recall(recall=0)",
                            "rprec_mult(x=0.000001)", "utility(a=2,b=-1,c=-1,d=1,n=10)"])
    row = res.per_query.to_dicts()[0]
    assert row["set_f(beta=0)"] == pytest.approx(2 / 4) == row["set_p"]  # F_0 is precision: 2 relevant of 4
    assert row["iprec_at_recall(recall=1)"] == 0  # e is never retrieved: recall 1 is never reached
    assert row["iprec_at_recall(recall=0)"] == pytest.approx(1.0)  # recall=0, the default: a at position 1
    assert row["rprec_mult(x=0.000001)"] == 0  # cutoff floor(0.000003 + 0.9) = 0 documents: 0, as trec_eval
    # 2 * 2 relevant retrieved - 1 * 2 non-relevant retrieved - 1 * 1 relevant missed + 1 * (10 + 2 - 4 - 3)
    assert row["utility(a=2,b=-1,c=-1,d=1,n=10)"] == pytest.approx(4 - 2 - 1 + 5)  # columns named as asked


@pytest.fixture
def trec_files(tmp_path):
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\n")
    (tmp_path / "r.run").write_text("q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq1 Q0 c 3 1 s\n")
    return str(tmp_path / "q.qrels"), str(tmp_path / "r.run")


@pytest.mark.parametrize("measure,expected", [
    ("rbp.p=2", "metric 'rbp(p=2)': parameter p=2 is outside its domain 0 < p < 1"),
    ("rbp.p=-0.5", "metric 'rbp(p=-0.5)': parameter p=-0.5 is outside its domain 0 < p < 1"),
    ("iprec_at_recall.-1", "metric 'iprec_at_recall(recall=-1)': parameter recall=-1 is outside its domain"),
    ("Rprec_mult.0.5,-1", "metric 'rprec_mult(x=-1)': parameter x=-1 is outside its domain x > 0"),
])
def test_the_trec_eval_command_refuses_the_same_parameters_in_one_line(trec_files, capsys, measure, expected):
    assert main(["trec_eval", "-m", measure, *trec_files]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"sqlndcg: error: {expected}") and err.count("\n") == 1


def test_the_trec_eval_command_computes_a_parameter_inside_its_domain(trec_files, capsys):
    assert main(["trec_eval", "-m", "rbp.p=0.5", *trec_files]) == 0
    # labels scaled by the largest (2): a 0.5, c 1; RBP = (1 - 0.5) * (0.5 * 1 + 1 * 0.5^2) = 0.375
    assert capsys.readouterr().out == "rbp_p=0.5             \tall\t0.3750\n"


# ----------------------------------------------------------------------------------------------------------------
# file paths are read literally: one file, as named (no glob, no merge, no home directory)

# Judged: a=1, b=0, c=1 (R = 2). The literal run orders b, a, c: RR = 1/2, AP = (1/2 + 2/3) / 2.
# Every decoy a glob would pick up orders a, b, c (RR 1, AP 5/6), and decoy judgments make only b relevant.
LITERAL = {"rr": 0.5, "ap": (1 / 2 + 2 / 3) / 2}
RUN_ORDER, DECOY_ORDER = ["b", "a", "c"], ["a", "b", "c"]
QRELS, DECOY_QRELS = {"a": 1, "b": 0, "c": 1}, {"a": 0, "b": 1, "c": 0}


def write_run(path, order, fmt):
    import pandas as pd

    scores = [3.0, 2.0, 1.0]
    if fmt in ("trec_run", "trec_gz", "txt"):
        text = "".join(f"q1 Q0 {d} {i + 1} {s} sys\n" for i, (d, s) in enumerate(zip(order, scores)))
        if fmt == "trec_gz":
            import gzip

            with gzip.open(path, "wt") as f:
                f.write(text)
        else:
            path.write_text(text)
        return
    df = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": order, "score": scores})
    if fmt == "parquet":
        df.to_parquet(path)
    else:
        df.to_csv(path, index=False, sep="\t" if fmt == "tsv" else ",")


def write_qrels(path, labels, fmt):
    import pandas as pd

    if fmt in ("trec_run", "trec_gz", "txt"):
        path.write_text("".join(f"q1 0 {d} {r}\n" for d, r in labels.items()))
        return
    df = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": list(labels), "rel": list(labels.values())})
    if fmt == "parquet":
        df.to_parquet(path)
    else:
        df.to_csv(path, index=False, sep="\t" if fmt == "tsv" else ",")


# format -> (run suffix, judgments suffix)
FORMATS = {"parquet": (".parquet", ".parquet"), "csv": (".csv", ".csv"), "tsv": (".tsv", ".tsv"),
           "trec_run": (".run", ".qrels"), "trec_gz": (".run.gz", ".qrels"), "txt": (".txt", ".txt")}
# name stem -> the decoy stems a glob of it would read (or, for ~, none: it would read the home directory)
GLOBS = {"r[1]": ["r1"], "r[ab]": ["ra"], "r*": ["ra", "rb"], "r?": ["ra"], "r]1": [], "x]*[y": ["x]a[y"],
         "~r": [], "a b 'c' \"d\" é☃": [], "-r": []}


def make_files(tmp_path, stem, fmt):
    run_suffix, qrels_suffix = FORMATS[fmt]
    run, qrels = tmp_path / f"{stem}{run_suffix}", tmp_path / f"j{stem}{qrels_suffix}"
    write_run(run, RUN_ORDER, fmt)
    write_qrels(qrels, QRELS, fmt)
    for decoy in GLOBS[stem]:
        write_run(tmp_path / f"{decoy}{run_suffix}", DECOY_ORDER, fmt)
        write_qrels(tmp_path / f"j{decoy}{qrels_suffix}", DECOY_QRELS, fmt)
    return run, qrels


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("stem", list(GLOBS))
def test_a_path_is_read_as_that_one_file_whatever_its_characters(tmp_path, monkeypatch, stem, fmt):
    run, qrels = make_files(tmp_path, stem, fmt)
    monkeypatch.chdir(tmp_path)  # also relative: '~r.run' is a file here, not the home directory's
    for run_path, qrels_path in ((str(run), str(qrels)), (run.name, qrels.name)):
        row = sqlndcg.evaluate(run_path, qrels_path, ["rr", "ap"]).per_query.to_dicts()
        assert row == [{"query_id": "q1", "rr": pytest.approx(LITERAL["rr"]), "ap": pytest.approx(LITERAL["ap"])}]


def test_a_glob_that_names_no_file_is_not_expanded(tmp_path):
    write_run(tmp_path / "ra.run", DECOY_ORDER, "trec_run")
    write_qrels(tmp_path / "j.qrels", QRELS, "trec_run")
    with pytest.raises(sqlndcg.InputError) as err:
        sqlndcg.evaluate(str(tmp_path / "r*.run"), str(tmp_path / "j.qrels"), ["rr"])
    assert "run file" in str(err.value) and "r*.run' does not exist" in str(err.value)
    assert "* ? [ ] ~ are not expanded" in str(err.value) and "\n" not in str(err.value)


def test_the_sql_names_the_file_so_that_duckdb_reads_only_it(tmp_path):
    run, qrels = make_files(tmp_path, "r[1]", "parquet")
    sql = sqlndcg.to_sql(run=str(run), judgments=str(qrels), metrics=["rr", "ap"])
    assert f"'{tmp_path}/r[[]1[]].parquet'" in sql and f"'{tmp_path}/jr[[]1[]].parquet'" in sql
    import duckdb

    # the printed statement, pasted into DuckDB, reads the same files
    assert duckdb.sql(sql).fetchall() == [("q1", pytest.approx(LITERAL["rr"]), pytest.approx(LITERAL["ap"]))]


@pytest.mark.parametrize("stem", ["r[1]", "r*", "r?", "~r", "-r", "a b 'c' \"d\" é☃"])
def test_the_evaluate_command_reads_the_literal_files(tmp_path, monkeypatch, capsys, stem):
    run, qrels = make_files(tmp_path, stem, "trec_run")
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", f"--run={run.name}", f"--judgments={qrels.name}", "-m", "rr,ap", "--per-query",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    row = dict(zip(lines[0].split(","), lines[1].split(",")))
    assert float(row["rr"]) == pytest.approx(LITERAL["rr"]) and float(row["ap"]) == pytest.approx(LITERAL["ap"])


@pytest.mark.parametrize("stem", ["r[1]", "r[ab]", "r*", "r?", "~r", "a b 'c' \"d\" é☃"])
@pytest.mark.parametrize("fmt", ["trec_run", "trec_gz"])
def test_the_trec_eval_command_reads_the_literal_files(tmp_path, monkeypatch, capsys, stem, fmt):
    run, qrels = make_files(tmp_path, stem, fmt)
    monkeypatch.chdir(tmp_path)
    for run_path, qrels_path in ((str(run), str(qrels)), (run.name, qrels.name)):
        assert main(["trec_eval", "-m", "map", "-m", "recip_rank", qrels_path, run_path]) == 0
        assert capsys.readouterr().out == (f"map                   \tall\t{LITERAL['ap']:.4f}\n"
                                           f"recip_rank            \tall\t{LITERAL['rr']:.4f}\n")


def test_the_trec_eval_command_reads_a_file_named_with_a_leading_dash(tmp_path, monkeypatch, capsys):
    run, qrels = make_files(tmp_path, "-r", "trec_run")
    monkeypatch.chdir(tmp_path)
    assert main(["trec_eval", "-m", "map", "--", qrels.name, run.name]) == 0
    assert capsys.readouterr().out == f"map                   \tall\t{LITERAL['ap']:.4f}\n"


@pytest.mark.engine
def test_a_dbt_model_with_a_parameter_outside_its_domain_fails_to_compile_naming_it(tmp_path):
    # the same parse_metrics, run by dbt's Jinja (an engine test: dbt-duckdb for real)
    from test_dbt import REPO, dbt

    project = tmp_path / "proj"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: domains\nversion: '1.0.0'\nconfig-version: 2\nprofile: domains\n")
    (project / "profiles.yml").write_text(f"domains:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
                                          f"      path: '{project / 'd.duckdb'}'\n      threads: 1\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (project / "models" / "bad.sql").write_text(
        "{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics=['rbp(p=2)']) }}\n")
    (project / "models" / "run.sql").write_text("SELECT 'q1' AS query_id, 'a' AS doc_id, 1.0 AS score\n")
    (project / "models" / "qrels.sql").write_text("SELECT 'q1' AS query_id, 'a' AS doc_id, 1.0 AS rel\n")
    dbt(project, "deps")
    done = dbt(project, "compile", "--select", "bad", check=False)
    assert done.returncode != 0
    assert "metric 'rbp(p=2)': parameter p=2 is outside its domain 0 < p < 1" in done.stdout, done.stdout[-3000:]
