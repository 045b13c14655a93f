"""ERR@k (expected reciprocal rank) and NCG@k (normalized cumulative gain) against independent Python versions of
their definitions written here (ERR: gdeval.pl's `err` loop; NCG: CG@k over the ideal CG@k), hand-computed cases,
and the same numbers on every engine (SQLite, DataFusion, ClickHouse via chdb, PostgreSQL, Spark)."""

from __future__ import annotations

import math
import random
import sqlite3

import pandas as pd
import pytest

import sqlndcg
from test_engines import load_clickhouse, load_dbapi

RUN_COLUMNS = ["query_id", "doc_id", "score"]
QRELS_COLUMNS = ["query_id", "doc_id", "rel"]


def frames(run, qrels):
    return (pd.DataFrame(run, columns=RUN_COLUMNS).astype({"score": "float64"}),
            pd.DataFrame(qrels, columns=QRELS_COLUMNS).astype({"rel": "float64"}))


def per_query(run, qrels, metrics, **settings) -> dict[str, dict[str, float]]:
    res = sqlndcg.evaluate(*frames(run, qrels), metrics=metrics, **settings)
    cols = list(res.per_query.columns)
    return {row[0]: dict(zip(cols[1:], row[1:])) for row in res.per_query.rows}


# ---- the references ------------------------------------------------------------------------------------------

def ranked_labels(run, qrels, query, judged_only=False, depth=None):
    """The query's labels in rank order: score descending, ties by doc id descending (ASCII ids: byte order);
    unjudged documents None."""
    labels = {d: r for q, d, r in qrels if q == query}
    docs = sorted(((s, d) for q, d, s in run if q == query), key=lambda x: (-x[0], [-ord(c) for c in x[1]]))
    out = [labels.get(d) for _, d in docs]
    if depth is not None:
        out = out[:depth]
    if judged_only:
        out = [x for x in out if x is not None and x >= 0]
    return out


def gdeval_err(labels, k, g_max):
    """gdeval.pl's err(): R = (2^g - 1) / 2^MAX_JUDGMENT, score += R * decay / rank, decay *= 1 - R. Its labels are
    0..MAX_JUDGMENT (negatives stored as 0, larger refused); here larger ones are clamped, as sqlndcg does."""
    score, decay = 0.0, 1.0
    for i, g in enumerate(labels[:k]):
        g = min(max(g or 0, 0), g_max)
        r = (2 ** g - 1) / 2 ** g_max
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def reference_err(run, qrels, k, g_max=None, **filters):
    g_max = g_max if g_max else max(0, max(r for _, _, r in qrels))  # default: the whole table's largest label
    judged = {q for q, _, _ in qrels}
    return {q: gdeval_err(ranked_labels(run, qrels, q, **filters), k, g_max) for q in judged}


def battery():
    """Several grades (-1..4), tied scores, short lists, unjudged documents, a query with nothing to find (q6), a
    judged query the run misses (q9), a run query without judgments (q8)."""
    rng = random.Random(21)
    run, qrels = [], []
    for q in range(1, 9):
        for i in range(rng.randint(1, 14)):
            run.append((f"q{q}", f"d{i:02d}", rng.choice([0.5, 0.5, 0.7, 0.9, 1.25, 2.0])))
    for q in [1, 2, 3, 4, 5, 6, 7, 9]:
        for i in rng.sample(range(14), 9):
            qrels.append((f"q{q}", f"d{i:02d}", 0 if q == 6 else rng.choice([-1, 0, 0, 1, 2, 3, 4])))
    return run, qrels


# ---- ERR -----------------------------------------------------------------------------------------------------

def test_err_by_hand():
    run = [("q1", "a", 3), ("q1", "b", 2), ("q1", "c", 1), ("q2", "x", 1)]
    qrels = [("q1", "a", 2), ("q1", "b", 0), ("q1", "c", 4), ("q2", "y", 1)]
    got = per_query(run, qrels, ["err@1", "err@2", "err@10", "err(max_grade=2)@10", "err(max_grade=5)@10"])
    # g_max = 4 (the table's largest label): R = 3/16, 0, 15/16 down the list.
    assert got["q1"]["err@1"] == pytest.approx(3 / 16, abs=1e-15)
    assert got["q1"]["err@2"] == pytest.approx(3 / 16, abs=1e-15)  # b: R = 0 adds nothing
    # + 1/3 * 15/16 * (1 - 3/16) * (1 - 0) = 0.25390625
    assert got["q1"]["err@10"] == pytest.approx(3 / 16 + (1 / 3) * (15 / 16) * (13 / 16), abs=1e-15)
    # g_max = 2: a: R = 3/4; c's label 4 clamps to 2: R = 3/4; 3/4 + 1/3 * 3/4 * 1/4 = 0.8125
    assert got["q1"]["err(max_grade=2)@10"] == pytest.approx(0.8125, abs=1e-15)
    # g_max = 5: 3/32 + 1/3 * 15/32 * 29/32
    assert got["q1"]["err(max_grade=5)@10"] == pytest.approx(3 / 32 + (1 / 3) * (15 / 32) * (29 / 32), abs=1e-15)
    assert got["q2"]["err@10"] == 0.0  # its one relevant document is not retrieved


def test_err_a_certain_stop_ends_the_cascade():
    """R = 1 exactly (2^60 - 1 rounds to 2^60 in a double): LN(1 - R) does not exist; the product after it is 0."""
    run = [("q1", "a", 3), ("q1", "b", 2), ("q1", "c", 1)]
    qrels = [("q1", "a", 0), ("q1", "b", 60), ("q1", "c", 3)]
    got = per_query(run, qrels, ["err(max_grade=60)@10", "err(max_grade=60)@1"])
    assert got["q1"]["err(max_grade=60)@10"] == 0.5  # 1/2 * 1, and c is never reached
    assert got["q1"]["err(max_grade=60)@1"] == 0.0


def test_err_negative_labels_and_unjudged_are_zero_and_an_empty_table_scores_zero():
    run = [("q1", "a", 3), ("q1", "b", 2), ("q1", "c", 1)]
    got = per_query(run, [("q1", "a", -2), ("q1", "c", 1)], ["err@10"])
    assert got["q1"]["err@10"] == pytest.approx(1 / 3 * 1 / 2, abs=1e-15)  # g_max = 1: only c, R = 1/2, at 3
    got = per_query(run, [("q1", "a", 0), ("q1", "c", -1)], ["err@10"])
    assert got["q1"]["err@10"] == 0.0  # no positive label anywhere: g_max = 0, every R = 0


@pytest.mark.parametrize("metric,k,g_max", [("err@5", 5, None), ("err@20", 20, None), ("err", 10 ** 9, None),
                                             ("err(max_grade=4)@10", 10, 4), ("err(max_grade=2)@3", 3, 2)])
@pytest.mark.parametrize("settings", [{}, {"short_lists": "truncate"}, {"judged_only": True}, {"depth": 4},
                                      {"queries": "both"}, {"preset": "trec_eval"}])
def test_err_equals_gdeval(metric, k, g_max, settings):
    run, qrels = battery()
    got = per_query(run, qrels, [metric], **settings)
    filters = {"judged_only": settings.get("judged_only", False), "depth": settings.get("depth")}
    want = reference_err(run, qrels, k, g_max, **filters)
    if settings.get("queries") == "both":
        want = {q: v for q, v in want.items() if any(r[0] == q for r in run)}
    assert set(got) == set(want)
    for q in want:
        assert got[q][metric] == pytest.approx(want[q], abs=1e-12), q
    assert any(v > 0 for v in want.values()) and want["q6"] == 0 and want.get("q9", 0) == 0


def test_err_refuses_averaged_ties_and_bad_grades():
    run, qrels = battery()
    with pytest.raises(sqlndcg.MetricError, match="ties='average' is defined only"):
        per_query(run, qrels, ["err@10"], ties="average")
    with pytest.raises(sqlndcg.MetricError, match="max_grade=-1 is outside its domain"):
        per_query(run, qrels, ["err(max_grade=-1)@10"])


def test_err_under_partitions_reads_the_whole_table_for_its_top_grade():
    """One pass per bucket of queries: the default g_max is still the largest label of every query."""
    run, qrels = battery()
    got = sqlndcg.evaluate(*frames(run, qrels), metrics=["err@10"], partitions=3)
    want = reference_err(run, qrels, 10)
    rows = {r[0]: r[1] for r in got.per_query.rows}
    assert rows.keys() == want.keys()
    for q in want:
        assert rows[q] == pytest.approx(want[q], abs=1e-12)


# ---- NCG -----------------------------------------------------------------------------------------------------

def reference_ncg(run, qrels, k, linear=False, ideal="judgments", short_lists="pad", ties="doc_id", empty=0.0):
    """CG@k / ICG@k, gains 2^rel - 1 (or rel), 0 for rel <= 0; ties='average': each position gets the mean gain of
    its tied group (McSherry & Najork); ICG@k: the best k gains of the judged (or retrieved) documents, over
    min(k, n) positions for truncated lists."""
    def gain(r):
        return 0.0 if r is None or r <= 0 else (float(r) if linear else 2.0 ** r - 1)

    out = {}
    for q in sorted({x[0] for x in qrels}):
        labels = {d: r for qq, d, r in qrels if qq == q}
        docs = sorted(((s, d) for qq, d, s in run if qq == q), key=lambda x: (-x[0], [-ord(c) for c in x[1]]))
        gains = [gain(labels.get(d)) for _, d in docs]
        if ties == "average":
            scores = [s for s, _ in docs]
            gains = [sum(g for g, t in zip(gains, scores) if t == s) / scores.count(s) for s in scores]
        pool = [gain(r) for r in labels.values()] if ideal == "judgments" else list(gains)
        if ties == "average" and ideal == "retrieved":
            pool = [gain(labels.get(d)) for _, d in docs]
        depth = min(k, len(docs)) if short_lists == "truncate" else k
        icg = sum(sorted(pool, reverse=True)[:depth])
        if not any(g > 0 for g in pool):
            out[q] = empty
        else:
            out[q] = 0.0 if icg == 0 else sum(gains[:k]) / icg
    return out


def test_ncg_by_hand():
    run = [("q1", "a", 3), ("q1", "b", 2), ("q1", "c", 1), ("q2", "x", 1)]
    qrels = [("q1", "a", 2), ("q1", "b", 0), ("q1", "c", 4), ("q1", "d", 3), ("q2", "y", 1), ("q3", "z", 0)]
    got = per_query(run, qrels, ["ncg@2", "ncg@10", "ncg"])
    # gains 2^rel - 1: a 3, b 0, c 15, d 7 (judged, not retrieved); ideal 15, 7, 3
    assert got["q1"]["ncg@2"] == pytest.approx(3 / (15 + 7), abs=1e-15)
    assert got["q1"]["ncg@10"] == pytest.approx((3 + 15) / 25, abs=1e-15)
    assert got["q1"]["ncg"] == pytest.approx((3 + 15) / 25, abs=1e-15)
    assert got["q2"]["ncg@10"] == 0.0 and got["q3"]["ncg@10"] == 0.0  # q3 has nothing to find: empty='zero'
    got = per_query(run, qrels, ["ncg@2"], gain="linear")
    assert got["q1"]["ncg@2"] == pytest.approx(2 / (4 + 3), abs=1e-15)
    got = per_query(run, qrels, ["ncg@2"], ideal="retrieved")
    assert got["q1"]["ncg@2"] == pytest.approx(3 / (15 + 3), abs=1e-15)  # the ideal of a, b, c only
    got = per_query(run, qrels, ["ncg@2"], empty="skip")
    assert got["q3"]["ncg@2"] is None
    # ties averaged: a and b tied at 3: each position gets (3 + 0) / 2; c 15
    got = per_query([("q1", "a", 3), ("q1", "b", 3), ("q1", "c", 1)], qrels, ["ncg@1"], ties="average")
    assert got["q1"]["ncg@1"] == pytest.approx(1.5 / 15, abs=1e-15)


@pytest.mark.parametrize("metric,k", [("ncg@1", 1), ("ncg@5", 5), ("ncg@20", 20), ("ncg", 10 ** 9)])
@pytest.mark.parametrize("settings", [{}, {"gain": "linear"}, {"ideal": "retrieved"}, {"short_lists": "truncate"},
                                      {"ideal": "retrieved", "short_lists": "truncate"}, {"ties": "average"},
                                      {"empty": "skip"}])
def test_ncg_equals_the_definition(metric, k, settings):
    run, qrels = battery()
    got = per_query(run, qrels, [metric], **settings)
    want = reference_ncg(run, qrels, k, linear=settings.get("gain") == "linear",
                         ideal=settings.get("ideal", "judgments"), short_lists=settings.get("short_lists", "pad"),
                         ties=settings.get("ties", "doc_id"), empty=None if settings.get("empty") == "skip" else 0.0)
    assert set(got) == set(want)
    for q in want:
        if want[q] is None:
            assert got[q][metric] is None, q
        else:
            assert got[q][metric] == pytest.approx(want[q], abs=1e-12), q
    assert 0 < sum(v or 0 for v in want.values())


# ---- every engine --------------------------------------------------------------------------------------------

ENGINE_METRICS = ["err@5", "err(max_grade=2)@10", "err", "ncg@5", "ncg"]


def references(run, qrels):
    return {"err@5": reference_err(run, qrels, 5), "err(max_grade=2)@10": reference_err(run, qrels, 10, 2),
            "err": reference_err(run, qrels, 10 ** 9), "ncg@5": reference_ncg(run, qrels, 5),
            "ncg": reference_ncg(run, qrels, 10 ** 9)}


def check_engine(con, load, label):
    run, qrels = battery()
    run_df, qrels_df = frames(run, qrels)
    tables = load(con, "text", run_df, qrels_df)
    judged = {(q, d) for q, d, r in qrels if r >= 0}
    judged_run = [x for x in run if (x[0], x[1]) in judged]
    for settings in ({}, {"judged_only": True}):
        res = sqlndcg.evaluate(*tables, metrics=ENGINE_METRICS, con=con, **settings)
        cols = list(res.per_query.columns)
        got = {row[0]: dict(zip(cols[1:], row[1:])) for row in res.per_query.rows}
        want = references(run, qrels) if not settings else {
            "err@5": reference_err(run, qrels, 5, judged_only=True),
            "err(max_grade=2)@10": reference_err(run, qrels, 10, 2, judged_only=True),
            "err": reference_err(run, qrels, 10 ** 9, judged_only=True),
            "ncg@5": reference_ncg(judged_run, qrels, 5), "ncg": reference_ncg(judged_run, qrels, 10 ** 9)}
        assert set(got) == set(want["err@5"]), label
        for metric, by_query in want.items():
            for q, v in by_query.items():
                assert math.isclose(float(got[q][metric]), v, rel_tol=0, abs_tol=1e-9), (label, settings, metric, q)


@pytest.mark.engine
def test_duckdb_sqlite_datafusion_clickhouse():
    import datafusion
    from chdb import dbapi

    check_engine(None, lambda con, ids, r, j: (r, j), "DuckDB")
    check_engine(sqlite3.connect(":memory:"), load_dbapi("TEXT", "INTEGER", "REAL", "?"), "SQLite")
    check_engine(datafusion.SessionContext(), lambda con, ids, r, j: (r, j), "DataFusion")
    check_engine(dbapi.connect(), load_clickhouse, "ClickHouse")


@pytest.mark.engine
def test_postgres(postgres):
    with postgres.connect(postgres.dbname_c) as con:
        check_engine(con, load_dbapi("TEXT", "BIGINT", "DOUBLE PRECISION", "%s"), "PostgreSQL")


@pytest.mark.engine
def test_spark(spark):
    def load(con, ids, run_df, qrels_df):
        spark.createDataFrame(run_df).createOrReplaceTempView("err_run")
        spark.createDataFrame(qrels_df).createOrReplaceTempView("err_qrels")
        return "err_run", "err_qrels"

    check_engine(spark, load, "Spark")


# ---- dbt -----------------------------------------------------------------------------------------------------

@pytest.mark.engine
@pytest.mark.slow
def test_dbt_models_equal_evaluate(tmp_path):
    """sqlndcg.per_query / summary models with err@10 and ncg@10 (and, in a second model, their upper bounds under
    unjudged documents) on dbt-duckdb give evaluate()'s numbers."""
    from test_dbt import REPO, _write_csv, assert_same_rows, dbt, duckdb_rows

    run, qrels = battery()
    project = tmp_path / "err_ncg"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    _write_csv(project / "seeds" / "run.csv", RUN_COLUMNS, run)
    _write_csv(project / "seeds" / "qrels.csv", QRELS_COLUMNS, qrels)
    metrics = "['err@10', 'err(max_grade=2)@5', 'ncg@10']"
    (project / "models" / "pq.sql").write_text(
        f"{{{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics={metrics}) }}}}\n")
    (project / "models" / "pq_bounds.sql").write_text(
        f"{{{{ sqlndcg.per_query(run=ref('run'), judgments=ref('qrels'), metrics={metrics}, unjudged_bounds=true) }}}}\n")
    (project / "models" / "summary_bounds.sql").write_text(
        f"{{{{ sqlndcg.summary(per_query=ref('pq_bounds'), metrics={metrics}, unjudged_bounds=true) }}}}\n")
    (project / "dbt_project.yml").write_text(
        "name: err_ncg\nversion: '1.0.0'\nconfig-version: 2\nprofile: err_ncg\n"
        "models:\n  err_ncg:\n    +materialized: table\n"
        "seeds:\n  err_ncg:\n    run:\n      +column_types: {query_id: varchar, doc_id: varchar, score: double}\n"
        "    qrels:\n      +column_types: {query_id: varchar, doc_id: varchar, rel: double}\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    database = project / "err_ncg.duckdb"
    (project / "profiles.yml").write_text(
        f"err_ncg:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: '{database}'\n      threads: 1\n")
    dbt(project, "deps")
    dbt(project, "build")
    names = ["err@10", "err(max_grade=2)@5", "ncg@10"]
    plain = sqlndcg.evaluate(*frames(run, qrels), metrics=names)
    bounded = sqlndcg.evaluate(*frames(run, qrels), metrics=names, unjudged_bounds=True)
    assert_same_rows(duckdb_rows(database, "pq"), plain.per_query.to_dicts(), ["query_id"], "pq")
    assert_same_rows(duckdb_rows(database, "pq_bounds"), bounded.per_query.to_dicts(), ["query_id"], "pq_bounds")
    assert_same_rows(duckdb_rows(database, "summary_bounds"), bounded.summary.to_dicts(), ["queries"], "summary")
    want = reference_err(run, qrels, 10)
    got = {r["query_id"]: r["err@10"] for r in duckdb_rows(database, "pq")}
    assert all(got[q] == pytest.approx(v, abs=1e-12) for q, v in want.items())
