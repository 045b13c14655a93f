"""sqlndcg.compare: paired statistics of systems against a baseline, per query in SQL, small statistics in Python.

The t test and its interval equal SciPy's; the randomization test is reproducible from its seed (across runs and
thread counts) and equals exact enumeration on a small case; Holm equals a worked example and statsmodels; the
bootstrap stays inside the metric's range; queries missing from a system are counted, never silently dropped;
the same numbers come from a dict of runs and from one input with a system column, from SQLite, and from dbt.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import sqlndcg
from sqlndcg.stats import paired
from sqlndcg.cli.compare import main as cli_main
from sqlndcg.verbs.compare import compare, evaluate_systems
from sqlndcg.errors import InputError, SettingError
from sqlndcg.stats.intervals import bootstrap_summary, metric_range, with_bootstrap

import scipy.stats as scipy_stats

RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
METRICS = ["ndcg@5", "p@5", "map", "rr@10"]


def synthetic(queries: int = 30, systems=("bm25", "dense", "hybrid"), seed: int = 7, days=None, effect: float = 0.25):
    """Judgments and one run per system (pandas), ten documents per query; better systems rank relevant
    documents higher on average. `days` adds a ds column (each day its own queries' rankings)."""
    rng = random.Random(seed)
    days = days or [None]
    qrels, runs = [], {s: [] for s in systems}
    for q in range(queries):
        rels = {f"d{d}": rng.choice([0, 0, 0, 1, 1, 2, 3]) for d in range(10)}
        qrels += [(f"q{q:02d}", doc, rel) for doc, rel in rels.items()]
        for day in days:
            for skill, s in enumerate(systems):
                for doc, rel in rels.items():
                    row = {"query_id": f"q{q:02d}", "doc_id": doc, "score": rng.random() + effect * skill * rel}
                    if day is not None:
                        row["ds"] = day
                    runs[s].append(row)
    return ({s: pd.DataFrame(rows) for s, rows in runs.items()},
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]))


def stacked(runs: dict, column: str = "system") -> pd.DataFrame:
    return pd.concat([frame.assign(**{column: name}) for name, frame in runs.items()], ignore_index=True)


def pairs_of(c, system, metric, **groups):
    """(baseline values, system values) of one comparison, in query order, as compare() fetched them."""
    rows = [r for r in c.differences.to_dicts()
            if str(r[c.settings["system"]]) == str(system) and r["metric"] == metric
            and all(str(r[g]) == str(v) for g, v in groups.items()) and r["difference"] is not None]
    rows.sort(key=lambda r: r[c.settings["columns"]["query_id"]])
    return [r["baseline_value"] for r in rows], [r["value"] for r in rows]


# --- agreement with SciPy ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("data", ["example", "synthetic"])
def test_t_test_p_values_and_intervals_equal_scipy_ttest_rel(data):
    if data == "example":
        c = compare(RUN, QRELS, METRICS, system="tag", baseline="bm25")
    else:
        runs, qrels = synthetic()
        c = compare(runs, qrels, METRICS, baseline="bm25")
    assert len(c) == len(METRICS) * (1 if data == "example" else 2)
    for row in c:
        base, values = pairs_of(c, row[c.settings["system"]], row["metric"])
        want = scipy_stats.ttest_rel(values, base)
        low, high = want.confidence_interval(0.95)
        assert row["pairs"] == len(base)
        assert math.isclose(row["t_p"], want.pvalue, rel_tol=0, abs_tol=1e-9), row
        assert math.isclose(row["t_low"], low, rel_tol=0, abs_tol=1e-9)
        assert math.isclose(row["t_high"], high, rel_tol=0, abs_tol=1e-9)
        assert math.isclose(row["difference"], sum(values) / len(values) - sum(base) / len(base), abs_tol=1e-12)
        assert math.isclose(row["baseline_mean"], sum(base) / len(base), abs_tol=1e-12)
        assert math.isclose(row["mean"], sum(values) / len(values), abs_tol=1e-12)


def test_example_numbers_by_hand():
    c = compare(RUN, QRELS, ["ndcg@5", "p@5"], system="tag", baseline="bm25")
    ndcg, p5 = c.to_dicts()
    assert (ndcg["wins"], ndcg["ties"], ndcg["losses"], ndcg["pairs"]) == (10, 2, 0, 12)
    assert (p5["wins"], p5["ties"], p5["losses"]) == (5, 6, 1)  # 0.2 vs 0.20000000000000004 is a tie, not a win
    assert math.isclose(ndcg["relative_change"], (0.4912709087199299 - 0.19164551417443873) / 0.19164551417443873)
    # 12 pairs: 2^12 = 4096 <= 10000 sign assignments, so the randomization p-value is exact, a multiple of 1/4096
    assert (ndcg["randomization_p"] * 4096).is_integer()


# --- randomization test ------------------------------------------------------------------------------------------

def test_randomization_p_values_are_identical_across_runs_and_thread_counts():
    runs, qrels = synthetic(queries=40, effect=0.03)  # 2^40 assignments: sampled, 3000 of them
    found = []
    for threads in (1, 4, 1, 3):
        con = duckdb.connect()
        con.execute(f"SET threads = {threads}")
        c = compare(runs, qrels, METRICS, baseline="bm25", permutations=3000, seed=42, con=con)
        found.append([(r["randomization_p"], r["bootstrap_low"], r["bootstrap_high"]) for r in c])
        con.close()
    assert all(f == found[0] for f in found)
    other = compare(runs, qrels, METRICS, baseline="bm25", permutations=3000, seed=43)
    assert [r["randomization_p"] for r in other] != [p for p, _, _ in found[0]]


def test_randomization_p_value_equals_exact_enumeration_on_a_small_case():
    runs, qrels = synthetic(queries=8, systems=("a", "b"), seed=3)
    exact = compare(runs, qrels, ["ndcg@5", "ap"], baseline="a", permutations=256)  # 2^8 = 256: enumerated
    sampled = compare(runs, qrels, ["ndcg@5", "ap"], baseline="a", permutations=200_000, seed=5)
    for row, approx in zip(exact, sampled):
        base, values = pairs_of(exact, "b", row["metric"])
        diffs = [v - b for v, b in zip(values, base)]
        observed = abs(sum(diffs))
        count = sum(1 for signs in itertools.product((1, -1), repeat=len(diffs))
                    if abs(sum(s * d for s, d in zip(signs, diffs))) >= observed - 1e-12)
        assert row["randomization_p"] == count / 2 ** len(diffs)
        assert abs(approx["randomization_p"] - row["randomization_p"]) < 0.01  # Monte Carlo agrees


# --- multiple comparisons ----------------------------------------------------------------------------------------

def test_holm_matches_a_worked_example_and_statsmodels():
    # p = 0.01, 0.04, 0.03, 0.005. Sorted: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04,
    # raised to 0.06 to keep the order. Adjusted, in the given order: 0.03, 0.06, 0.06, 0.02.
    assert paired.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    import statsmodels.stats.multitest as multitest
    ps = [0.2, 0.001, 0.04, 0.04, 0.5, 0.012, 1.0]
    assert paired.holm(ps) == pytest.approx(list(multitest.multipletests(ps, method="holm")[1]), abs=1e-15)
    assert paired.bonferroni(ps) == pytest.approx(list(multitest.multipletests(ps, method="bonferroni")[1]))


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
def test_correction_runs_over_every_reported_comparison(correction):
    runs, qrels = synthetic()
    c = compare(runs, qrels, METRICS, baseline="bm25", correction=correction, permutations=500)
    adjust = {"holm": paired.holm, "bonferroni": paired.bonferroni, "none": list}[correction]
    rows = c.to_dicts()
    assert len(rows) == 8  # 2 systems x 4 metrics: one family of 8 tests for each kind of p-value
    assert [r["t_p_adjusted"] for r in rows] == adjust([r["t_p"] for r in rows])
    assert [r["randomization_p_adjusted"] for r in rows] == adjust([r["randomization_p"] for r in rows])
    assert {r["correction"] for r in rows} == {correction}


# --- intervals that respect the metric ---------------------------------------------------------------------------

def test_bootstrap_interval_stays_in_the_metric_range_where_t_leaves_it():
    res = sqlndcg.evaluate(RUN, QRELS, ["rr@10"], group_by="tag")
    rerank = [r for r in bootstrap_summary(res) if r["tag"] == "rerank"][0]
    assert rerank["t_high"] > 1.08  # the 1.0807
    assert 0.0 <= rerank["bootstrap_low"] <= rerank["bootstrap_high"] <= 1.0
    two = pd.DataFrame({"query_id": ["a", "a", "a", "b", "b", "b"], "doc_id": ["x", "y", "z"] * 2,
                        "score": [3, 2, 1] * 2})
    labels = pd.DataFrame({"query_id": ["a", "a", "b", "b"], "doc_id": ["x", "y", "z", "y"], "rel": [2, 1, 1, 0]})
    res = sqlndcg.evaluate(two, labels, ["ndcg@3"])
    for method in ("percentile", "bca"):
        (row,) = bootstrap_summary(res, method=method, resamples=2000, seed=1).to_dicts()
        assert row["t_low"] < 0 and row["t_high"] > 1  # two queries: the t interval is wider than [0, 1]
        assert 0.0 <= row["bootstrap_low"] <= row["bootstrap_high"] <= 1.0
        assert row["bootstrap_method"] == method


def test_bootstrap_is_reproducible_from_its_seed_and_changes_with_it():
    runs, qrels = synthetic()
    res = evaluate_systems(runs, qrels, METRICS)
    one, two = bootstrap_summary(res, seed=11), bootstrap_summary(res, seed=11)
    assert one.rows == two.rows
    assert bootstrap_summary(res, seed=12).rows != one.rows
    for row in one:
        lo, hi = metric_range(row["metric"])
        assert lo <= row["bootstrap_low"] <= row["mean"] <= row["bootstrap_high"] <= hi


def test_comparison_bootstrap_of_differences_stays_within_plus_minus_the_range():
    runs, qrels = synthetic(queries=6)
    for method in ("percentile", "bca"):
        c = compare(runs, qrels, METRICS, baseline="bm25", bootstrap=method, resamples=3000, seed=9)
        for row in c:
            assert -1.0 <= row["bootstrap_low"] <= row["bootstrap_high"] <= 1.0
            assert row["bootstrap_method"] == method


def test_with_bootstrap_adds_summary_columns_beside_the_t_interval():
    res = with_bootstrap(sqlndcg.evaluate(RUN, QRELS, ["ndcg@5", "rr@10"], group_by="tag"), seed=3)
    for row in res.summary:
        for m in ("ndcg@5", "rr@10"):
            assert 0.0 <= row[f"{m}_bootstrap_low"] <= row[m] <= row[f"{m}_bootstrap_high"] <= 1.0
            assert row[f"{m}_ci_low"] is not None
    assert res.settings["bootstrap"] == {"method": "percentile", "resamples": 10000, "seed": 3}


# --- pairing: missing queries follow the queries setting and are counted --------------------------------------

def test_queries_missing_from_a_system_are_counted_never_silently_dropped():
    runs, qrels = synthetic(queries=10, systems=("base", "new"))
    runs["new"] = runs["new"][~runs["new"]["query_id"].isin(["q01", "q02", "q03"])]
    runs["base"] = runs["base"][runs["base"]["query_id"] != "q09"]
    judged = compare(runs, qrels, ["ndcg@5"], baseline="base", queries="judged").to_dicts()[0]
    assert judged["pairs"] == 10 and judged["only_baseline"] == 0 and judged["only_system"] == 0
    assert judged["missing_from_run"] == 3 and judged["baseline_missing_from_run"] == 1
    both = compare(runs, qrels, ["ndcg@5"], baseline="base", queries="both")
    row = both.to_dicts()[0]
    assert (row["pairs"], row["only_baseline"], row["only_system"]) == (6, 3, 1)
    assert "3 queries have a value for the baseline only and 1 for the system only" in str(both)
    base, values = pairs_of(both, "new", "ndcg@5")
    assert len(base) == 6
    assert math.isclose(row["t_p"], scipy_stats.ttest_rel(values, base).pvalue, abs_tol=1e-9)


def test_a_dict_of_runs_equals_one_input_with_a_system_column():
    runs, qrels = synthetic(queries=12)
    from_dict = compare(runs, qrels, METRICS, baseline="bm25", permutations=500)
    from_one = compare(stacked(runs, "engine"), qrels, METRICS, system="engine", baseline="bm25", permutations=500)
    assert from_dict.table.columns[1:] == from_one.table.columns[1:]
    assert [r[1:] for r in from_dict.table.rows] == [r[1:] for r in from_one.table.rows]


def test_strata_pair_queries_within_each_group():
    runs, qrels = synthetic(queries=8, systems=("a", "b"), days=["2026-11-01", "2026-11-02"])
    c = compare(runs, qrels, ["ndcg@5"], baseline="a", group_by="ds", permutations=256)
    assert [(r["ds"], r["system"], r["pairs"]) for r in c] == [("2026-11-01", "b", 8), ("2026-11-02", "b", 8)]
    for row in c:
        base, values = pairs_of(c, "b", "ndcg@5", ds=row["ds"])
        assert math.isclose(row["t_p"], scipy_stats.ttest_rel(values, base).pvalue, abs_tol=1e-9)
    assert c.table.columns[:2] == ("ds", "system")


def test_identical_systems_give_p_one_and_all_ties():
    runs, qrels = synthetic(queries=5, systems=("a",))
    c = compare({"a": runs["a"], "copy": runs["a"]}, qrels, ["ndcg@5", "ap"], baseline="a")
    for row in c:
        assert (row["wins"], row["ties"], row["losses"]) == (0, 5, 0)
        assert row["difference"] == 0.0 and row["t_p"] == 1.0 and row["randomization_p"] == 1.0
        assert (row["t_low"], row["t_high"], row["bootstrap_low"], row["bootstrap_high"]) == (0.0, 0.0, 0.0, 0.0)


# --- engines -----------------------------------------------------------------------------------------------------

def test_compare_runs_on_sqlite_with_the_same_numbers():
    runs, qrels = synthetic(queries=15)
    with_duckdb = compare(stacked(runs), qrels, METRICS, baseline="bm25", permutations=500)
    con = sqlite3.connect(":memory:")
    stacked(runs).to_sql("runs", con, index=False)
    qrels.to_sql("qrels", con, index=False)
    with_sqlite = compare("runs", "qrels", METRICS, baseline="bm25", permutations=500, con=con)
    assert with_sqlite.table.columns == with_duckdb.table.columns
    for a, b in zip(with_sqlite.table.rows, with_duckdb.table.rows):
        for x, y in zip(a, b):
            assert (math.isclose(x, y, rel_tol=0, abs_tol=1e-9) if isinstance(x, float) else x == y), (a, b)
    # a dict of tables in the same connection, unioned there
    con.execute("CREATE TABLE bm25 AS SELECT query_id, doc_id, score FROM runs WHERE system = 'bm25'")
    con.execute("CREATE TABLE dense AS SELECT query_id, doc_id, score FROM runs WHERE system = 'dense'")
    two = compare({"bm25": "bm25", "dense": "dense"}, "qrels", ["ndcg@5"], con=con, permutations=500)
    assert two.to_dicts()[0]["t_p"] == pytest.approx(with_duckdb.to_dicts()[0]["t_p"], abs=1e-12)
    assert {r[0] for r in con.execute("SELECT name FROM sqlite_temp_master").fetchall()} == set()  # cleaned up


@pytest.mark.engine
def test_compare_runs_on_postgres_with_the_same_numbers(postgres):
    runs, qrels = synthetic(queries=10)
    frame = stacked(runs)
    want = compare(frame, qrels, METRICS, baseline="bm25", permutations=300, resamples=300)
    with postgres.connect(postgres.dbname_icu) as con:
        con.execute("DROP TABLE IF EXISTS compare_runs")
        con.execute("DROP TABLE IF EXISTS compare_qrels")
        con.execute("CREATE TABLE compare_runs (query_id TEXT, doc_id TEXT, score DOUBLE PRECISION, system TEXT)")
        con.execute("CREATE TABLE compare_qrels (query_id TEXT, doc_id TEXT, rel BIGINT)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO compare_runs VALUES (%s, %s, %s, %s)",
                            list(frame[["query_id", "doc_id", "score", "system"]].itertuples(index=False)))
            cur.executemany("INSERT INTO compare_qrels VALUES (%s, %s, %s)",
                            [(q, d, int(r)) for q, d, r in qrels.itertuples(index=False)])
        got = compare("compare_runs", "compare_qrels", METRICS, baseline="bm25", permutations=300, resamples=300,
                      con=con)
    assert got.table.columns == want.table.columns
    for a, b in zip(got.table.rows, want.table.rows):
        for x, y in zip(a, b):
            assert (math.isclose(float(x), float(y), rel_tol=0, abs_tol=1e-9) if isinstance(y, float) else x == y), (a, b)


@pytest.mark.parametrize("engine", ["mariadb", "fakesnow"])
def test_compare_runs_on_mariadb_and_snowflake_with_the_same_numbers(engine, request):
    """MariaDB (a case-insensitive database) and Snowflake as fakesnow emulates it; quoted lower-case names."""
    runs, qrels = synthetic(queries=10)
    frame = stacked(runs)
    want = compare(frame, qrels, METRICS, baseline="bm25", permutations=300, resamples=300)
    server = request.getfixturevalue(engine)
    con = server.connect() if engine == "mariadb" else server
    q = "`" if engine == "mariadb" else '"'
    cur = con.cursor()
    for table, columns, rows in (
            ("compare_runs", "query_id TEXT, doc_id TEXT, score DOUBLE, system TEXT",
             list(frame[["query_id", "doc_id", "score", "system"]].itertuples(index=False, name=None))),
            ("compare_qrels", "query_id TEXT, doc_id TEXT, rel BIGINT",
             [(a, d, int(r)) for a, d, r in qrels.itertuples(index=False)])):
        columns = ", ".join(f"{q}{c.split()[0]}{q} {c.split()[1]}" for c in columns.split(", "))
        cur.execute(f"DROP TABLE IF EXISTS {q}{table}{q}")
        cur.execute(f"CREATE TABLE {q}{table}{q} ({columns})")
        cur.executemany(f"INSERT INTO {q}{table}{q} VALUES ({', '.join(['%s'] * len(rows[0]))})", rows)
    if engine == "mariadb":
        con.commit()
    got = compare("compare_runs", "compare_qrels", METRICS, baseline="bm25", permutations=300, resamples=300,
                  con=con)
    if engine == "mariadb":
        con.close()
    assert got.table.columns == want.table.columns
    for a, b in zip(got.table.rows, want.table.rows):
        for x, y in zip(a, b):
            assert (math.isclose(float(x), float(y), rel_tol=0, abs_tol=1e-9) if isinstance(y, float) else x == y), (a, b)


def test_paired_sql_is_portable_and_shown():
    c = compare(RUN, QRELS, ["ndcg@5"], system="tag", baseline="bm25")
    assert c.sql.startswith("WITH compare_baseline AS")
    for bad in ("QUALIFY", "FULL OUTER", "VALUES"):
        assert bad not in c.sql.upper()
    # DuckDB's top-N stage (one per per-query statement) numbers each list's k documents with UNNEST; nothing else.
    assert c.sql.upper().count("UNNEST(") == 2 * c.sql.upper().count("ARG_MIN(_D, CREATE_SORT_KEY(") > 0


# --- mistakes ----------------------------------------------------------------------------------------------------

def test_mistakes_are_named():
    runs, qrels = synthetic(queries=4)
    with pytest.raises(SettingError, match=r"baseline='nope' is not a system of the run; the 'system' column holds"):
        compare(runs, qrels, ["ndcg@5"], baseline="nope")
    with pytest.raises(SettingError, match="compare needs baseline=.*'bm25', 'rerank'"):
        compare(RUN, QRELS, ["ndcg@5"], system="tag")
    with pytest.raises(SettingError, match="at least two runs"):
        compare({"bm25": runs["bm25"]}, qrels, ["ndcg@5"])
    with pytest.raises(SettingError, match="correction='sidak' is not known"):
        compare(runs, qrels, correction="sidak")
    with pytest.raises(SettingError, match="bootstrap='normal' is not known"):
        compare(runs, qrels, bootstrap="normal")
    with pytest.raises(SettingError, match="permutations= must be a positive integer"):
        compare(runs, qrels, permutations=0)
    with pytest.raises(InputError, match="already has a column 'system'"):
        compare({"a": stacked(runs), "b": stacked(runs)}, qrels)
    with pytest.raises(SettingError, match="only 'bm25'"):
        compare(stacked({"bm25": runs["bm25"]}), qrels, baseline="bm25")
    dupes = pd.concat([runs["dense"], runs["dense"].head(2)])
    with pytest.raises(sqlndcg.DataError, match="the runs of systems 'bm25', 'dense'"):
        compare({"bm25": runs["bm25"], "dense": dupes}, qrels)


# --- query weights -------------------------------------------------------------------------------------------

def traffic(queries: int, seed: int = 5, days=None) -> pd.DataFrame:
    """A weight per query (some 0), or per (ds, query) with `days`."""
    rng = random.Random(seed)
    rows = [{"query_id": f"q{q:02d}", "weight": float(rng.choice([0, 1, 2, 5, 10, 40, 100]))}
            for q in range(queries)]
    if days:
        rows = [{**row, "ds": day, "weight": float(rng.choice([1, 3, 50]))} for day in days for row in rows]
    return pd.DataFrame(rows)


def weighted_reference(x, w):
    """docs/compare.md's weighted statistics in NumPy: weighted mean, reliability-weighted std, Kish's n_eff, the
    t interval and the t test on n_eff - 1 degrees of freedom."""
    import numpy as np
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    mean = np.average(x, weights=w)
    v1, v2 = w.sum(), (w ** 2).sum()
    std = math.sqrt((w * (x - mean) ** 2).sum() / (v1 - v2 / v1))
    n_eff = math.floor(v1 * v1 / v2 + 1e-6)
    half = scipy_stats.t.ppf(0.975, n_eff - 1) * std / math.sqrt(n_eff)
    p = 2 * scipy_stats.t.sf(abs(mean / (std / math.sqrt(n_eff))), n_eff - 1)
    return mean, std, n_eff, mean - half, mean + half, p


def weighted_pairs(c, system, metric, **groups):
    rows = [r for r in c.differences.to_dicts()
            if str(r[c.settings["system"]]) == str(system) and r["metric"] == metric
            and all(str(r[g]) == str(v) for g, v in groups.items()) and r["difference"] is not None]
    rows.sort(key=lambda r: r["query_id"])
    return ([r["baseline_value"] for r in rows], [r["value"] for r in rows], [r["difference"] for r in rows],
            [r["weight"] for r in rows])


def test_weighted_comparison_equals_numpys_weighted_average_of_the_differences():
    import numpy as np
    runs, qrels = synthetic(queries=30)
    weights = traffic(30)
    c = compare(runs, qrels, METRICS, baseline="bm25", query_weights=weights, permutations=500, resamples=500)
    assert c.settings["query_weights"] == {"input": "query weights (DataFrame)", "weight": "weight"}
    assert "queries weighted by column 'weight'" in str(c)
    for row in c:
        base, values, diffs, w = weighted_pairs(c, row["system"], row["metric"])
        assert w == [float(x) for x in weights.sort_values("query_id")["weight"]]
        mean, std, n_eff, low, high, p = weighted_reference(diffs, w)
        assert row["difference"] == pytest.approx(np.average(diffs, weights=w), abs=1e-12)
        assert row["baseline_mean"] == pytest.approx(np.average(base, weights=w), abs=1e-12)
        assert row["mean"] == pytest.approx(np.average(values, weights=w), abs=1e-12)
        assert row["difference_std"] == pytest.approx(std, abs=1e-12)
        assert row["effective_pairs"] == n_eff < row["pairs"] == 30
        assert (row["t_low"], row["t_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["t_p"] == pytest.approx(p, abs=1e-9)
        # counts stay counts of queries, weight 0 included
        assert row["wins"] + row["ties"] + row["losses"] == 30
        assert row["randomization_p"] == paired.randomization_test(diffs, weights=w, permutations=500, seed=0)
        assert (row["bootstrap_low"], row["bootstrap_high"]) == paired.bootstrap_interval(
            diffs, weights=w, resamples=500, seed=0, bounds=(-1.0, 1.0))
    # the summary is the weighted one evaluate() gives
    want = sqlndcg.evaluate(stacked(runs), qrels, METRICS, group_by="system", query_weights=weights)
    assert c.summary.rows == want.summary.rows


def test_weighted_randomization_p_equals_exact_enumeration_of_weighted_sign_flips():
    runs, qrels = synthetic(queries=9, systems=("a", "b"), seed=3)
    weights = traffic(9, seed=2)
    c = compare(runs, qrels, ["ndcg@5", "ap"], baseline="a", query_weights=weights, permutations=2 ** 9)
    for row in c:
        _, _, diffs, w = weighted_pairs(c, "b", row["metric"])
        products = [d * x for d, x in zip(diffs, w) if x > 0]
        observed = abs(sum(products))
        count = sum(1 for signs in itertools.product((1, -1), repeat=len(products))
                    if abs(sum(s * v for s, v in zip(signs, products))) >= observed - 1e-12)
        assert row["randomization_p"] == count / 2 ** len(products)


@pytest.mark.parametrize("weight", [1.0, 2.0, 0.25, 0.7, 1e-170, 1e160])
def test_equal_weights_give_the_unweighted_comparison_exactly(weight):
    runs, qrels = synthetic(queries=14, days=["2026-11-01", "2026-11-02"])
    args = dict(baseline="bm25", group_by="ds", permutations=300, resamples=300)
    plain = compare(runs, qrels, METRICS, **args)
    weighted = compare(runs, qrels, METRICS, query_weights=traffic(14).assign(weight=weight), **args)
    assert weighted.table.columns == plain.table.columns
    assert weighted.table.rows == plain.table.rows
    assert weighted.summary.rows == plain.summary.rows
    assert weighted.differences.columns == plain.differences.columns + ("weight",)
    assert [r[:-1] for r in weighted.differences.rows] == list(plain.differences.rows)


def test_weights_per_stratum_weigh_each_days_pairs():
    import numpy as np
    days = ["2026-11-01", "2026-11-02"]
    runs, qrels = synthetic(queries=10, systems=("a", "b"), days=days)
    weights = traffic(10, days=days)
    c = compare(runs, qrels, ["ndcg@5"], baseline="a", group_by="ds", query_weights=weights, permutations=200)
    assert [r["ds"] for r in c] == days
    for row in c:
        _, _, diffs, w = weighted_pairs(c, "b", "ndcg@5", ds=row["ds"])
        assert w == list(weights[weights.ds == row["ds"]].sort_values("query_id")["weight"])
        assert row["difference"] == pytest.approx(np.average(diffs, weights=w), abs=1e-12)


@pytest.mark.parametrize("change, error, message", [
    (lambda w: w[w.query_id != "q03"], sqlndcg.DataError,
     r"2 scored quer\(ies\) have no weight, e\.g\. \('a', 'q03'\), \('b', 'q03'\)"),
    (lambda w: w.assign(weight=w.weight.where(w.query_id != "q02", -1.0)), sqlndcg.DataError,
     r"column 'weight' is negative .*query_id='q02'"),
    (lambda w: w.assign(weight=w.weight.where(w.query_id != "q02", float("nan"))), sqlndcg.DataError,
     r"column 'weight' is missing"),
    (lambda w: w.assign(weight=w.weight.where(w.query_id != "q02", float("inf"))), sqlndcg.DataError,
     r"column 'weight' is NaN or infinite"),
    (lambda w: pd.concat([w, w.head(1)]), sqlndcg.DataError, r"1 queries occur more than once"),
    (lambda w: pd.concat([w.assign(system="a"), w.assign(system="b")]), InputError,
     r"has the system column 'system': a comparison weighs each query"),
    (lambda w: w.rename(columns={"weight": "traffic"}), InputError, r"has no weight column 'weight'"),
])
def test_bad_query_weights_are_refused_by_name(change, error, message):
    runs, qrels = synthetic(queries=6, systems=("a", "b"))
    with pytest.raises(error, match=message):
        compare(runs, qrels, ["ndcg@5"], baseline="a", query_weights=change(traffic(6)))


def test_weighted_compare_runs_on_sqlite_with_the_same_numbers():
    runs, qrels = synthetic(queries=15)
    weights = traffic(15)
    want = compare(stacked(runs), qrels, METRICS, baseline="bm25", query_weights=weights, permutations=300,
                   resamples=300)
    con = sqlite3.connect(":memory:")
    stacked(runs).to_sql("runs", con, index=False)
    qrels.to_sql("qrels", con, index=False)
    weights.to_sql("traffic", con, index=False)
    got = compare("runs", "qrels", METRICS, baseline="bm25", query_weights="traffic", permutations=300,
                  resamples=300, con=con)
    assert got.table.columns == want.table.columns
    for a, b in zip(got.table.rows, want.table.rows):
        for x, y in zip(a, b):
            assert (math.isclose(x, y, rel_tol=0, abs_tol=1e-9) if isinstance(x, float) else x == y), (a, b)


@pytest.mark.engine
def test_weighted_compare_runs_on_postgres_with_the_same_numbers(postgres):
    runs, qrels = synthetic(queries=10)
    frame, weights = stacked(runs), traffic(10)
    want = compare(frame, qrels, METRICS, baseline="bm25", query_weights=weights, permutations=300, resamples=300)
    with postgres.connect(postgres.dbname_icu) as con:
        for table in ("compare_w_runs", "compare_w_qrels", "compare_w_traffic"):
            con.execute(f"DROP TABLE IF EXISTS {table}")
        con.execute("CREATE TABLE compare_w_runs (query_id TEXT, doc_id TEXT, score DOUBLE PRECISION, system TEXT)")
        con.execute("CREATE TABLE compare_w_qrels (query_id TEXT, doc_id TEXT, rel BIGINT)")
        con.execute("CREATE TABLE compare_w_traffic (query_id TEXT, weight DOUBLE PRECISION)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO compare_w_runs VALUES (%s, %s, %s, %s)",
                            list(frame[["query_id", "doc_id", "score", "system"]].itertuples(index=False)))
            cur.executemany("INSERT INTO compare_w_qrels VALUES (%s, %s, %s)",
                            [(q, d, int(r)) for q, d, r in qrels.itertuples(index=False)])
            cur.executemany("INSERT INTO compare_w_traffic VALUES (%s, %s)", list(weights.itertuples(index=False)))
        got = compare("compare_w_runs", "compare_w_qrels", METRICS, baseline="bm25", query_weights="compare_w_traffic",
                      permutations=300, resamples=300, con=con)
    assert got.table.columns == want.table.columns
    for a, b in zip(got.table.rows, want.table.rows):
        for x, y in zip(a, b):
            assert (math.isclose(float(x), float(y), rel_tol=0, abs_tol=1e-9) if isinstance(y, float) else x == y), (a, b)


def test_installed_cli_compares_with_query_weights(tmp_path):
    """`sqlndcg compare --query-weights FILE [--weight-column NAME]`, run as a user runs it, prints compare()'s
    weighted numbers; a query without a weight is one error line and exit status 2."""
    import csv as csv_module

    sqlndcg_cli = str(Path(sys.executable).with_name("sqlndcg"))
    runs, qrels = synthetic(queries=9, systems=("x", "y"))
    for name, frame in runs.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    weights = traffic(9).rename(columns={"weight": "searches"})
    weights.to_csv(tmp_path / "traffic.csv", index=False)
    args = ["compare", "--run", f"x={tmp_path / 'x.csv'}", "--run", f"y={tmp_path / 'y.csv'}",
            "--judgments", str(tmp_path / "qrels.csv"), "-m", "ndcg@5,map", "--permutations", "400",
            "--resamples", "400", "--query-weights", str(tmp_path / "traffic.csv"), "--weight-column", "searches"]
    done = subprocess.run([sqlndcg_cli, *args, "--format", "csv"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = list(csv_module.DictReader(done.stdout.splitlines()))
    want = compare(runs, qrels, ["ndcg@5", "map"], query_weights=weights, weight_column="searches",
                   permutations=400, resamples=400)
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        for column in ("pairs", "effective_pairs", "wins", "ties", "losses"):
            assert int(g[column]) == w[column]
        for column in ("baseline_mean", "mean", "difference", "t_low", "t_high", "t_p", "randomization_p",
                       "bootstrap_low", "bootstrap_high"):
            assert float(g[column]) == w[column], column
    unweighted = compare(runs, qrels, ["ndcg@5"], permutations=400, resamples=400).to_dicts()[0]
    assert float(got[0]["difference"]) != unweighted["difference"]
    text = subprocess.run([sqlndcg_cli, *args], capture_output=True, text=True, timeout=300)
    assert text.returncode == 0 and "queries weighted by column 'searches'" in text.stdout
    weights[weights.query_id != "q04"].to_csv(tmp_path / "traffic.csv", index=False)
    bad = subprocess.run([sqlndcg_cli, *args], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("sqlndcg: error: query weights file") and "have no weight" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


# --- printing and the command line -------------------------------------------------------------------------------

def test_readable_print_names_both_intervals_and_the_correction():
    text = str(compare(RUN, QRELS, ["ndcg@5", "rr@10"], system="tag", baseline="bm25"))
    assert "Compared with baseline 'bm25'" in text
    for part in ("95% CI (t)", "95% CI (bootstrap percentile)", "p (t, holm)", "p (perm, holm)", "W/T/L",
                 "10/2/0", "+0.2996", "[+0.1370, +0.4622]"):
        assert part in text, part
    df = compare(RUN, QRELS, ["ndcg@5"], system="tag", baseline="bm25").to_pandas()
    assert list(df["metric"]) == ["ndcg@5"] and df.loc[0, "wins"] == 10


def test_cli_compare_prints_and_writes_csv(tmp_path, capsys):
    assert cli_main(["compare", "--run", RUN, "--system", "tag", "--baseline", "bm25", "--qrels", QRELS,
                     "-m", "ndcg@5,map", "--preset", "trec_eval"]) == 0
    out = capsys.readouterr().out
    assert "Compared with baseline 'bm25'" in out and "ndcg@5" in out and "ap" in out
    runs, qrels = synthetic(queries=6, systems=("x", "y"))
    for name, frame in runs.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    assert cli_main(["compare", "--run", f"x={tmp_path / 'x.csv'}", "--run", f"y={tmp_path / 'y.csv'}",
                     "--judgments", str(tmp_path / "qrels.csv"), "-m", "ndcg@5", "--format", "csv",
                     "--correction", "bonferroni", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    header, row = out.strip().splitlines()
    assert header.startswith("system,baseline,metric,pairs") and row.startswith("y,x,ndcg@5,6,")
    assert cli_main(["compare", "--run", RUN, "--system", "tag", "--qrels", QRELS]) == 2
    assert "sqlndcg: error: compare needs baseline=" in capsys.readouterr().err
    assert cli_main(["compare", "--run", str(tmp_path / "x.csv"), "--run", str(tmp_path / "y.csv"),
                     "--qrels", QRELS]) == 2
    assert "name each one: --run NAME=FILE" in capsys.readouterr().err


# --- dbt ---------------------------------------------------------------------------------------------------------

@pytest.mark.engine
def test_dbt_compare_macro_equals_compare(tmp_path):
    """A dbt project calling sqlndcg.compare and sqlndcg.compare_differences gives compare()'s numbers, with and
    without query weights."""
    repo = os.environ.get("SQLNDCG_DBT_PACKAGE") or Path(__file__).resolve().parent.parent  # another checkout
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "seeds").mkdir()
    runs, qrels = synthetic(queries=12, days=["2026-11-01", "2026-11-02"])
    stacked(runs).to_csv(project / "seeds" / "rankings.csv", index=False)
    qrels.to_csv(project / "seeds" / "qrels.csv", index=False)
    traffic(12, days=["2026-11-01", "2026-11-02"]).to_csv(project / "seeds" / "traffic.csv", index=False)
    database = project / "compare.duckdb"
    (project / "dbt_project.yml").write_text(
        "name: compare_test\nversion: '1.0.0'\nconfig-version: 2\nprofile: compare_test\n"
        "models:\n  compare_test:\n    +materialized: table\n")
    (project / "profiles.yml").write_text(
        f"compare_test:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n      path: '{database}'\n"
        "      threads: 2\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {repo}\n")
    args = "metrics=['ndcg@5', 'map', 'mrr@10'], system='system', baseline='bm25', group_by=['ds']"
    (project / "models" / "comparison.sql").write_text(
        f"{{{{ sqlndcg.compare(run=ref('rankings'), judgments=ref('qrels'), {args}) }}}}\n")
    (project / "models" / "differences.sql").write_text(
        f"{{{{ sqlndcg.compare_differences(run=ref('rankings'), judgments=ref('qrels'), {args}) }}}}\n")
    (project / "models" / "per_query_metrics.sql").write_text(
        "{{ sqlndcg.per_query(run=ref('rankings'), judgments=ref('qrels'), metrics=['ndcg@5', 'map', 'mrr@10'], "
        "group_by=['ds', 'system']) }}\n")
    (project / "models" / "comparison_from_model.sql").write_text(
        "{{ sqlndcg.compare(per_query=ref('per_query_metrics'), " + args + ") }}\n")
    weighted = args + ", query_weights=ref('traffic')"
    (project / "models" / "weighted_comparison.sql").write_text(
        f"{{{{ sqlndcg.compare(run=ref('rankings'), judgments=ref('qrels'), {weighted}) }}}}\n")
    (project / "models" / "weighted_comparison_from_model.sql").write_text(
        "{{ sqlndcg.compare(per_query=ref('per_query_metrics'), " + weighted + ") }}\n")
    (project / "models" / "weighted_differences.sql").write_text(
        f"{{{{ sqlndcg.compare_differences(run=ref('rankings'), judgments=ref('qrels'), {weighted}) }}}}\n")
    dbt = str(Path(sys.executable).with_name("dbt"))
    for command in (["deps"], ["build"]):
        done = subprocess.run([dbt, *command, "--project-dir", str(project), "--profiles-dir", str(project)],
                              capture_output=True, text=True, cwd=project, timeout=600, env=dict(os.environ))
        assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    with duckdb.connect(str(database), read_only=True) as con:
        want = compare("rankings", "qrels", ["ndcg@5", "map", "mrr@10"], baseline="bm25", group_by="ds", con=con,
                       permutations=100, resamples=100)
        want_weighted = compare("rankings", "qrels", ["ndcg@5", "map", "mrr@10"], baseline="bm25", group_by="ds",
                                con=con, permutations=100, resamples=100, query_weights="traffic")
        models = {name: con.execute(f'SELECT * FROM "{name}"').fetchdf().to_dict("records")
                  for name in ("comparison", "comparison_from_model", "differences", "weighted_comparison",
                               "weighted_comparison_from_model", "weighted_differences")}
    assert want_weighted.table.rows != want.table.rows
    for name, expected in (("comparison", want), ("comparison_from_model", want),
                           ("weighted_comparison", want_weighted), ("weighted_comparison_from_model", want_weighted)):
        got = {(str(r["ds"])[:10], r["system"], r["metric"]): r for r in models[name]}
        assert len(got) == len(expected)
        for row in expected:
            g = got[(str(row["ds"])[:10], row["system"], row["metric"])]
            for column in ("pairs", "effective_pairs", "baseline_mean", "mean", "difference", "difference_std",
                           "t_low", "t_high", "relative_change", "wins", "ties", "losses", "only_baseline",
                           "only_system"):
                assert g[column] == pytest.approx(row[column], abs=1e-9), (name, column, row)
    for name, expected in (("differences", want), ("weighted_differences", want_weighted)):
        got = {(str(r["ds"])[:10], r["system"], r["metric"], r["query_id"]): r for r in models[name]}
        for row in expected.differences:
            g = got[(str(row["ds"])[:10], row["system"], row["metric"], row["query_id"])]
            assert g["difference"] == pytest.approx(row["difference"], abs=1e-12)
            if name == "weighted_differences":
                assert g["weight"] == row["weight"]


def test_bootstrap_numpy_path_gives_the_pure_python_numbers(monkeypatch):
    """paired.bootstrap_interval resamples means with NumPy when it is installed: the same index stream and the
    same exact sums, so the same interval to the bit as the pure-Python reference (which runs without NumPy)."""
    rng = random.Random(2)
    cases = [[rng.random() for _ in range(n)] for n in (1, 2, 5, 40, 300)]
    cases.append([1e-300, -3.5, 2.0 ** -1000, 0.1, 7e10] * 4)
    for values in cases:
        for method in ("percentile", "bca"):
            fast = paired.bootstrap_interval(values, seed=len(values), resamples=3000, method=method)
            with monkeypatch.context() as m:
                m.setattr(paired, "_numpy", lambda: None)
                slow = paired.bootstrap_interval(values, seed=len(values), resamples=3000, method=method)
            assert fast == slow
    np = paired._numpy()
    for n in (1, 7, 1000):
        reference = list(paired._resample_indices(9, n, 40))
        blocks = [row for block in paired._resample_index_blocks(np, 9, n, 40) for row in block.tolist()]
        assert blocks == reference
