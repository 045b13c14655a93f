"""A judged group the run lacks is never silently absent (docs/SEMANTICS.md, "Which queries are averaged").

Daily judgments (a `ds` column in both inputs, in group_by): a system absent on a judged day, and a day no system
ran, are scored 0 under queries="judged" (every system is evaluated on every judged (day, query), as trec_eval -c
evaluates a run on every judged query), listed in the account (run_rows 0, their judged queries missing) under either
setting, and named by print(res). compare counts a stratum one side lacks (only_baseline / only_system). An empty run,
and a run that shares no query id with the judgments, are refused (issue 28).

Per-query values are checked against tests/reference_impl.py, run one day at a time; the account by hand."""

from __future__ import annotations

import math
import sqlite3

import pandas as pd
import pytest

import sqlndcg
from reference_impl import reference_evaluate
from sqlndcg.errors import InputError, ResourceError

METRICS = ["ndcg@10", "ap", "p@5", "rr"]
REFERENCE_METRICS = [("ndcg", 10, None), ("ap", None, None), ("p", 5, None), ("rr", None, None)]

# (system, ds, query_id, doc_id, score). System b is absent on d2, a on d5; nobody ran d3; d4 is run but not judged.
RUN = [
    ("a", "d1", "q1", "x", 3.0), ("a", "d1", "q1", "y", 2.0), ("a", "d1", "q1", "w", 1.0), ("a", "d1", "q2", "x", 1.0),
    ("b", "d1", "q1", "y", 3.0), ("b", "d1", "q1", "x", 2.0), ("b", "d1", "q9", "z", 1.0),
    ("a", "d2", "q1", "x", 1.0),
    ("a", "d4", "q1", "x", 1.0),
    ("b", "d5", "q1", "x", 1.0),
]
# (ds, query_id, doc_id, rel)
JUDGMENTS = [
    ("d1", "q1", "x", 2.0), ("d1", "q1", "y", 1.0), ("d1", "q1", "v", 1.0), ("d1", "q2", "x", 1.0),
    ("d1", "q2", "u", 0.0),
    ("d2", "q1", "x", 1.0), ("d2", "q3", "z", 2.0),
    ("d3", "q1", "x", 1.0), ("d3", "q2", "y", 3.0),
    ("d5", "q1", "x", 1.0),
]
RUN_COLUMNS = ["system", "ds", "query_id", "doc_id", "score"]
JUDGMENT_COLUMNS = ["ds", "query_id", "doc_id", "rel"]
ACCOUNT_COLUMNS = ("run_rows", "run_queries", "run_queries_without_judgments", "judgments", "judged_queries",
                   "judged_queries_missing_from_run", "retrieved_unjudged", "scored_queries")

# By hand, per (system, ds): the counts of ACCOUNT_COLUMNS but scored_queries, then scored under judged / both.
ACCOUNT = {
    ("a", "d1"): ((4, 2, 0, 5, 2, 0, 1), 2, 2),
    ("a", "d2"): ((1, 1, 0, 2, 2, 1, 0), 2, 1),
    ("a", "d3"): ((0, 0, 0, 2, 2, 2, 0), 2, 0),  # a day no system ran
    ("a", "d4"): ((1, 1, 1, 0, 0, 0, 1), 0, 0),  # run, not judged
    ("a", "d5"): ((0, 0, 0, 1, 1, 1, 0), 1, 0),  # a absent on d5
    ("b", "d1"): ((3, 2, 1, 5, 2, 1, 1), 2, 1),
    ("b", "d2"): ((0, 0, 0, 2, 2, 2, 0), 2, 0),  # b absent on d2
    ("b", "d3"): ((0, 0, 0, 2, 2, 2, 0), 2, 0),
    ("b", "d5"): ((1, 1, 0, 1, 1, 0, 0), 1, 1),
}  # no (b, d4): b did not run d4 and nobody judged it
ABSENT = ["system=a, ds=d3", "system=a, ds=d5", "system=b, ds=d2", "system=b, ds=d3"]


def frames(run=RUN, judgments=JUDGMENTS):
    return (pd.DataFrame(run, columns=RUN_COLUMNS),
            pd.DataFrame(judgments, columns=JUDGMENT_COLUMNS).astype({"rel": "float64"}))


def reference(queries: str, systems=("a", "b")) -> dict:
    """{(system, ds, query): {metric: value}} from the reference, one day at a time. Under "judged" a system
    without rows on a day is given one row of a query no one judged (never scored), so the reference evaluates its
    empty list on every judged query of the day, as it does for a judged query the run lacks."""
    out = {}
    for day in sorted({j[0] for j in JUDGMENTS}):
        judged = [(q, d, rel) for ds, q, d, rel in JUDGMENTS if ds == day]
        run = [((s,), q, d, score) for s, ds, q, d, score in RUN if ds == day]
        if queries == "judged":
            run += [((s,), "not judged", "none", 0.0) for s in systems if all(r[0] != (s,) for r in run)]
        values = reference_evaluate(run, judged, REFERENCE_METRICS, queries=queries)
        for ((system,), query), by_metric in values.items():
            out[(system, day, query)] = {m: by_metric[r] for m, r in zip(METRICS, REFERENCE_METRICS)}
    return out


def per_query(res, groups=("system", "ds")) -> dict:
    return {tuple(r[g] for g in groups) + (r["query_id"],): {m: r[m] for m in METRICS}
            for r in res.per_query.to_dicts()}


def assert_values(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for key, values in want.items():
        for m, v in values.items():
            assert math.isclose(got[key][m], v, rel_tol=0, abs_tol=1e-12), (key, m, got[key][m], v)


def account(res, groups=("system", "ds")) -> dict:
    return {tuple(a[g] for g in groups): tuple(a[c] for c in ACCOUNT_COLUMNS) for a in res.account.to_dicts()}


# --- evaluate: a (system, day) the run lacks ------------------------------------------------------------------------

def test_under_judged_a_system_absent_on_a_day_and_a_day_no_one_ran_score_0_on_its_judged_queries():
    res = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"])
    want = reference("judged")
    assert_values(per_query(res), want)
    for key in [("b", "d2", "q1"), ("b", "d2", "q3"), ("a", "d3", "q1"), ("a", "d3", "q2"), ("b", "d3", "q2"),
                ("a", "d5", "q1")]:
        assert per_query(res)[key] == {m: 0.0 for m in METRICS}
    # the summary averages those zeros, per (system, day)
    for s in res.summary.to_dicts():
        mine = [v for (system, ds, _), v in want.items() if (system, ds) == (s["system"], s["ds"])]
        assert s["ndcg@10_count"] == len(mine) == ACCOUNT[(s["system"], s["ds"])][1]
        assert math.isclose(s["ndcg@10"], sum(v["ndcg@10"] for v in mine) / len(mine), abs_tol=1e-12)
        assert math.isclose(s["ap"], sum(v["ap"] for v in mine) / len(mine), abs_tol=1e-12)
    assert {(s["system"], s["ds"]) for s in res.summary.to_dicts()} == {
        k for k, v in ACCOUNT.items() if v[1] > 0}
    assert [s["ndcg@10"] for s in res.summary.to_dicts() if (s["system"], s["ds"]) in
            {("b", "d2"), ("a", "d3"), ("b", "d3"), ("a", "d5")}] == [0.0] * 4


@pytest.mark.parametrize("queries", ["judged", "both"])
def test_the_account_lists_every_judged_group_the_run_lacks(queries):
    res = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"], queries=queries)
    scored = 1 if queries == "judged" else 2
    assert account(res) == {k: v[0] + (v[scored],) for k, v in ACCOUNT.items()}
    assert list(account(res)) == sorted(ACCOUNT)  # in group order
    # what the account says is scored is what the per-query table holds
    rows = per_query(res)
    for (system, ds), v in ACCOUNT.items():
        assert sum(1 for k in rows if k[:2] == (system, ds)) == v[scored]
    if queries == "both":
        assert_values(rows, reference("both"))


@pytest.mark.parametrize("queries", ["judged", "both"])
def test_print_names_the_judged_groups_absent_from_the_run(queries):
    text = str(sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"], queries=queries))
    rule = "scored 0" if queries == "judged" else "not scored"
    assert (f"4 judged groups absent from the run, their judged queries {rule} (queries='{queries}'): "
            + "; ".join(ABSENT)) in text
    scored = 2 if queries == "judged" else 0
    assert (f"system=b, ds=d2: absent from the run (0 run rows): all 2 judged queries missing from the run, {rule} "
            f"(queries='{queries}'); {scored} queries scored") in text
    assert "system=a, ds=d4: 0 queries scored; 1 run row in 1 query, 1 of them without judgments" in text
    assert "system=b, ds=d4" not in text


def test_with_only_shared_groups_a_judged_day_the_run_lacks_scores_0():
    run = [r for r in RUN if r[0] == "a"]
    res = sqlndcg.evaluate(*frames(run), metrics=METRICS, group_by=["ds"])
    want = {k: v for k, v in reference("judged", systems=("a",)).items() if k[0] == "a"}
    assert_values(per_query(res, ("ds",)), {k[1:]: v for k, v in want.items()})
    assert per_query(res, ("ds",))[("d5", "q1")] == {m: 0.0 for m in METRICS}
    assert account(res, ("ds",)) == {(k[1],): v[0] + (v[1],) for k, v in ACCOUNT.items() if k[0] == "a"}
    assert "ds=d3: absent from the run (0 run rows): all 2 judged queries missing from the run" in str(res)
    both = sqlndcg.evaluate(*frames(run), metrics=METRICS, group_by=["ds"], queries="both")
    assert account(both, ("ds",))[("d3",)] == (0, 0, 0, 2, 2, 2, 0, 0)
    assert not [k for k in per_query(both, ("ds",)) if k[0] in ("d3", "d5")]


def test_partitions_give_the_same_rows_for_the_groups_the_run_lacks():
    one = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"])
    three = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"], partitions=3)
    assert three.per_query == one.per_query and three.summary == one.summary and three.account == one.account


def test_run_only_groups_keep_their_own_combinations():
    # a group column the judgments lack (a segment) is not judged: a (system, segment) the run lacks is not scored
    run = pd.DataFrame([("a", "s1", "q1", "x", 1.0), ("b", "s2", "q1", "x", 1.0)],
                       columns=["system", "segment", "query_id", "doc_id", "score"])
    judgments = pd.DataFrame([("q1", "x", 1.0)], columns=["query_id", "doc_id", "rel"])
    res = sqlndcg.evaluate(run, judgments, metrics=["ndcg@10"], group_by=["system", "segment"])
    assert [(r["system"], r["segment"], r["ndcg@10"]) for r in res.per_query.to_dicts()] == [
        ("a", "s1", 1.0), ("b", "s2", 1.0)]
    assert [(a["system"], a["segment"]) for a in res.account.to_dicts()] == [("a", "s1"), ("b", "s2")]


# --- compare: a stratum one side lacks ------------------------------------------------------------------------------

def counts(cmp) -> dict:
    return {(r["ds"], r["metric"]): (r["pairs"], r["only_baseline"], r["only_system"]) for r in cmp}


def test_compare_counts_a_stratum_the_system_lacks_in_only_baseline():
    cmp = sqlndcg.compare(frames()[0], frames()[1], METRICS, system="system", baseline="a", group_by=["ds"],
                          queries="both")
    got = counts(cmp)
    for m in METRICS:
        assert got[("d1", m)] == (1, 1, 0)   # b lacks q2 of d1
        assert got[("d2", m)] == (0, 1, 0)   # b lacks d2: a's q1 is counted, not dropped
        assert got[("d5", m)] == (0, 0, 1)   # the baseline lacks d5
    assert {k[0] for k in got} == {"d1", "d2", "d5"}  # d3: neither side has a value (the account lists it)
    # every per-query value of either side is a pair or counted on its side
    rows = per_query(cmp.result)
    for ds in ("d1", "d2", "d5"):
        pairs, only_b, only_s = got[(ds, "ndcg@10")]
        assert pairs + only_b == sum(1 for k in rows if k[:2] == ("a", ds))
        assert pairs + only_s == sum(1 for k in rows if k[:2] == ("b", ds))
    text = str(cmp)
    assert ("ds=d2, system=b, ndcg@10: 1 queries have a value for the baseline only and 0 for the system only "
            "(left out of the pairs)") in text
    assert "ds=d2, system=b: 2 judged queries missing from the system's run and 1 from the baseline's" in text


def test_compare_under_judged_pairs_a_missing_day_scored_0():
    cmp = sqlndcg.compare(*frames(), METRICS, system="system", baseline="a", group_by=["ds"])
    want = reference("judged")
    for (ds, _m), (pairs, only_b, only_s) in counts(cmp).items():
        assert (only_b, only_s) == (0, 0)
        assert pairs == ACCOUNT[("a", ds)][1]
    d2 = next(r for r in cmp if r["ds"] == "d2" and r["metric"] == "ndcg@10")
    baseline = [want[("a", "d2", q)]["ndcg@10"] for q in ("q1", "q3")]
    assert math.isclose(d2["baseline_mean"], sum(baseline) / 2, abs_tol=1e-12) and d2["mean"] == 0.0
    assert (d2["wins"], d2["ties"], d2["losses"]) == (0, 1, 1)  # q3: 0 against 0


# --- an empty run ---------------------------------------------------------------------------------------------------

def empty_run(columns=("query_id", "doc_id", "score")):
    return pd.DataFrame({c: pd.Series([], dtype="float64" if c == "score" else "object") for c in columns})


@pytest.mark.parametrize("queries", ["judged", "both"])
def test_an_empty_run_is_refused_like_an_empty_file(queries, tmp_path):
    """Issue 28: a header-only run gave mean 0 where an empty file is an error. Every empty run is refused: a run
    that answered nothing is a wrong export far more often than a system that scores 0 everywhere."""
    judgments = pd.DataFrame([("q1", "x", 1.0), ("q2", "y", 1.0)], columns=["query_id", "doc_id", "rel"])
    header_only = tmp_path / "header_only.csv"
    header_only.write_text("query_id,doc_id,score\n")
    parquet = tmp_path / "empty.parquet"
    empty_run().astype({"query_id": "string", "doc_id": "string"}).to_parquet(parquet)
    for run, label in ((empty_run(), r"run \(DataFrame\)"), (str(header_only), "run file '.*header_only.csv'"),
                       (str(parquet), "run file '.*empty.parquet'")):
        with pytest.raises(InputError, match=f"^{label} has no rows \\(a header only, or an empty table\\); there is "
                                             "nothing to evaluate"):
            sqlndcg.evaluate(run, judgments, metrics=["ndcg@10"], queries=queries)
    with pytest.raises(InputError, match=r"has no rows"):
        sqlndcg.evaluate(empty_run(("system", "query_id", "doc_id", "score")), judgments, metrics=["ndcg@10"],
                         group_by="system")


@pytest.mark.parametrize("run_ids, judged_ids, cause", [
    ([1, 2], ["001", "002"], "integer ids are compared with text ids as text"),
    (["Q1", "Q2"], ["q1", "q2"], "the ids are written differently on the two sides"),
])
def test_a_run_and_judgments_without_a_query_in_common_are_refused(run_ids, judged_ids, cause):
    """Issue 28: no query id in common gave mean 0.0000 and exit 0. It is an error showing ids of each side."""
    run = pd.DataFrame({"query_id": run_ids, "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    judgments = pd.DataFrame({"query_id": judged_ids, "doc_id": ["x", "y"], "rel": [1.0, 1.0]})
    for queries in ("judged", "both"):
        with pytest.raises(sqlndcg.DataError) as err:
            sqlndcg.evaluate(run, judgments, metrics=["ndcg@10"], queries=queries)
        text = str(err.value)
        assert text.startswith("the run and the judgments share no query id: run (DataFrame) has 'query_id' ")
        assert all(repr(i) in text for i in run_ids + judged_ids) and cause in text
    # one query in common is enough: the others are scored 0 or counted, as before
    shared = pd.DataFrame({"query_id": [run_ids[0], run_ids[1]], "doc_id": ["x", "z"], "rel": [1.0, 1.0]})
    assert sqlndcg.evaluate(run, shared, metrics=["ndcg@10"]).per_query.column("ndcg@10") == [1.0, 0.0]


def test_queries_in_common_in_another_group_only_are_still_scored():
    """A judged day no system ran is scored 0, as before: the check asks for one query in common anywhere."""
    res = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"])
    assert sorted((r["system"], r["ndcg@10"]) for r in res.per_query.to_dicts() if r["ds"] == "d3") == [
        ("a", 0.0), ("a", 0.0), ("b", 0.0), ("b", 0.0)]  # d3: judged, nobody ran it


# --- the same on every engine ---------------------------------------------------------------------------------------

def _type(column: str, text: str, double: str) -> str:
    return double if column in ("score", "rel") else text


def load_dbapi(con, text: str, double: str, mark: str, suffix: str = ""):
    def load(name: str, df: pd.DataFrame) -> str:
        cur = con.cursor()
        cur.execute(f"DROP TABLE IF EXISTS {name}")
        cur.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {_type(c, text, double)}' for c in df.columns)}){suffix}")
        if len(df):
            cur.executemany(f"INSERT INTO {name} VALUES ({', '.join([mark] * len(df.columns))})",
                            [tuple(r) for r in df.itertuples(index=False, name=None)])
        if hasattr(con, "commit"):
            con.commit()
        return name

    return load


def load_clickhouse(con):
    def load(name: str, df: pd.DataFrame) -> str:
        cur = con.cursor()
        cur.execute(f"DROP TABLE IF EXISTS {name}")
        cols = ", ".join(f"{c} {_type(c, 'String', 'Float64')}" for c in df.columns)
        cur.execute(f"CREATE TABLE {name} ({cols}) ENGINE = Memory")
        if len(df):
            values = ", ".join("(" + ", ".join(f"'{v}'" if isinstance(v, str) else repr(v) for v in row) + ")"
                               for row in df.itertuples(index=False, name=None))
            cur.execute(f"INSERT INTO {name} VALUES {values}")
        return name

    return load


def check_on(con, load, label: str, light: bool = False) -> None:
    """The scenarios above on an engine, equal to DuckDB's per-query values, summary and account (and counts);
    light: the grouped evaluation under queries="judged" only (Spark is slow)."""
    from test_engines import assert_same

    run_df, judgments_df = frames()
    run, judgments = load("gm_run", run_df), load("gm_judgments", judgments_df)
    for queries in ("judged",) if light else ("judged", "both"):
        got = sqlndcg.evaluate(run, judgments, metrics=METRICS, group_by=["system", "ds"], queries=queries, con=con)
        assert_same(got, sqlndcg.evaluate(run_df, judgments_df, metrics=METRICS, group_by=["system", "ds"],
                                          queries=queries), f"{label} queries={queries}")
    cmp = sqlndcg.compare(run, judgments, METRICS, system="system", baseline="a", group_by=["ds"], queries="both",
                          con=con)
    assert counts(cmp) == counts(sqlndcg.compare(run_df, judgments_df, METRICS, system="system", baseline="a",
                                                 group_by=["ds"], queries="both")), label
    assert counts(cmp)[("d2", "ndcg@10")] == (0, 1, 0), label
    # an empty run is refused on every engine, as on DuckDB (issue 28)
    empty = load("gm_empty", empty_run(("ds", "query_id", "doc_id", "score")))
    with pytest.raises(InputError, match=r"^run .* has no rows \(a header only, or an empty table\)"):
        sqlndcg.evaluate(empty, judgments, metrics=METRICS, group_by=["ds"], con=con)


@pytest.mark.engine
def test_sqlite_clickhouse_and_datafusion_equal_duckdb():
    con = sqlite3.connect(":memory:")
    check_on(con, load_dbapi(con, "TEXT", "REAL", "?"), "SQLite")
    from chdb import dbapi

    ch = dbapi.connect()
    check_on(ch, load_clickhouse(ch), "ClickHouse")
    import datafusion

    check_on(datafusion.SessionContext(), lambda name, df: df, "DataFusion")


@pytest.mark.parametrize("collation", ["c", "icu"])
def test_postgres_equals_duckdb(postgres, collation):
    with postgres.connect(postgres.dbname_c if collation == "c" else postgres.dbname_icu) as con:
        check_on(con, load_dbapi(con, "TEXT", "DOUBLE PRECISION", "%s"), f"PostgreSQL ({collation})")


def test_spark_equals_duckdb(spark):
    def load(name: str, df: pd.DataFrame) -> str:
        schema = ", ".join(f"{c} {_type(c, 'string', 'double')}" for c in df.columns)
        spark.createDataFrame(df.astype(object).where(df.notna(), None).values.tolist(), schema).createOrReplaceTempView(name)
        return name

    check_on(spark, load, "Spark", light=True)


# --- dbt: the same macros, built for real on dbt-duckdb -------------------------------------------------------------

@pytest.mark.engine
def test_dbt_per_query_account_and_compare_equal_evaluate(tmp_path):
    from test_dbt import REPO, _write_csv, assert_same_rows, dbt, duckdb_rows

    project = tmp_path / "groups_missing"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    _write_csv(project / "seeds" / "gm_run.csv", RUN_COLUMNS, RUN)
    _write_csv(project / "seeds" / "gm_judgments.csv", JUDGMENT_COLUMNS, JUDGMENTS)
    text = {c: "varchar" for c in ("system", "ds", "query_id", "doc_id")}
    (project / "dbt_project.yml").write_text(
        "name: groups_missing\nversion: '1.0.0'\nconfig-version: 2\nprofile: groups_missing\n"
        "models:\n  groups_missing:\n    +materialized: table\nseeds:\n  groups_missing:\n"
        + "".join(f"    {seed}:\n      +column_types:\n"
                  + "".join(f"        {c}: {t}\n" for c, t in {**text, extra: "double"}.items() if c in cols)
                  for seed, cols, extra in (("gm_run", RUN_COLUMNS, "score"), ("gm_judgments", JUDGMENT_COLUMNS, "rel"))))
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    database = project / "gm.duckdb"
    (project / "profiles.yml").write_text(
        f"groups_missing:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: '{database}'\n"
        "      threads: 1\n")
    inputs = f"run=ref('gm_run'), judgments=ref('gm_judgments'), metrics={METRICS!r}"
    for queries in ("judged", "both"):
        (project / "models" / f"per_query_{queries}.sql").write_text(
            f"{{{{ sqlndcg.per_query({inputs}, group_by=['system', 'ds'], queries='{queries}') }}}}\n")
        (project / "models" / f"account_{queries}.sql").write_text(
            f"{{{{ sqlndcg.account({inputs}, group_by=['system', 'ds'], queries='{queries}') }}}}\n")
    (project / "models" / "compare_both.sql").write_text(
        f"{{{{ sqlndcg.compare({inputs}, system='system', baseline='a', group_by=['ds'], queries='both') }}}}\n")
    dbt(project, "deps")
    dbt(project, "build")
    for queries in ("judged", "both"):
        res = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"], queries=queries)
        assert_same_rows(duckdb_rows(database, f"per_query_{queries}"), res.per_query.to_dicts(),
                         ["system", "ds", "query_id"], f"per_query_{queries}")
        assert_same_rows(duckdb_rows(database, f"account_{queries}"), res.account.to_dicts(), ["system", "ds"],
                         f"account_{queries}")
    built = {(r["ds"], r["metric"]): (r["pairs"], r["only_baseline"], r["only_system"])
             for r in duckdb_rows(database, "compare_both")}
    assert built == counts(sqlndcg.compare(*frames(), METRICS, system="system", baseline="a", group_by=["ds"],
                                           queries="both"))
    assert built[("d2", "ndcg@10")] == (0, 1, 0)


def test_the_result_size_guard_counts_every_system_on_every_judged_day():
    # 2 systems x 7 judged (day, query) pairs: the grid is refused before it is built when larger than allowed
    with pytest.raises(ResourceError,
                       match=r"would have 14 rows: 2 groups \(system\) x 7 judged queries \(per ds\)"):
        sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"], max_result_rows=13)
    res = sqlndcg.evaluate(*frames(), metrics=METRICS, group_by=["system", "ds"], max_result_rows=14)
    assert len(res.per_query) == 14
