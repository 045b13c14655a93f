"""unjudged_bounds=True: each metric's lower bound (its value: unjudged = not relevant) and upper bound
(<metric>_upper: its value had every retrieved unjudged document been judged at the judgments' largest label),
per query and in the summary. The upper bound is checked against pytrec_eval run on judgments augmented by hand,
per system, with those documents; and on every engine."""

from __future__ import annotations

import math
import random
import sqlite3

import pandas as pd
import pytest
import pytrec_eval

import sqlndcg
from test_engines import load_clickhouse, load_dbapi

RUN_COLUMNS = ["system", "query_id", "doc_id", "score"]
QRELS_COLUMNS = ["query_id", "doc_id", "rel"]


def frames(run, qrels):
    return (pd.DataFrame(run, columns=RUN_COLUMNS).astype({"score": "float64"}),
            pd.DataFrame(qrels, columns=QRELS_COLUMNS).astype({"rel": "float64"}))


def rows(res):
    cols = list(res.per_query.columns)
    return {(r[0], r[1]): dict(zip(cols[2:], r[2:])) for r in res.per_query.rows}


def test_by_hand():
    run = [("A", "q1", "a", 3), ("A", "q1", "b", 2), ("A", "q1", "c", 1), ("A", "q2", "x", 1), ("B", "q1", "e", 1)]
    qrels = [("q1", "a", 2), ("q1", "b", 0), ("q1", "c", -1), ("q1", "d", 3), ("q2", "y", 1)]
    res = sqlndcg.evaluate(*frames(run, qrels), metrics=["ndcg@10", "p@2"], group_by="system", unjudged_bounds=True)
    got = rows(res)
    log2 = math.log2
    # A q1: a 2, b 0, c (label -1: unjudged) -> 3, the largest label; d 3 judged, not retrieved. Gains 2^rel - 1.
    assert got[("A", "q1")]["ndcg@10"] == pytest.approx(3 / (7 + 3 / log2(3)), abs=1e-12)
    assert got[("A", "q1")]["ndcg@10_upper"] == pytest.approx((3 + 7 / 2) / (7 + 7 / log2(3) + 3 / 2), abs=1e-12)
    assert got[("A", "q1")]["p@2"] == 0.5 and got[("A", "q1")]["p@2_upper"] == 0.5
    # A q2: x unjudged -> 3; the ideal holds x (7) and y (1)
    assert got[("A", "q2")]["ndcg@10"] == 0.0
    assert got[("A", "q2")]["ndcg@10_upper"] == pytest.approx(7 / (7 + 1 / log2(3)), abs=1e-12)
    # B q1: only B's own unjudged document e joins its ideal (not A's c)
    assert got[("B", "q1")]["ndcg@10_upper"] == pytest.approx(7 / (7 + 7 / log2(3) + 3 / 2), abs=1e-12)
    assert got[("B", "q2")]["ndcg@10_upper"] == 0.0  # B retrieved nothing for q2
    summary = {r["system"]: r for r in res.summary.to_dicts()}
    assert summary["A"]["ndcg@10_upper"] == pytest.approx((got[("A", "q1")]["ndcg@10_upper"]
                                                           + got[("A", "q2")]["ndcg@10_upper"]) / 2, abs=1e-12)
    assert summary["A"]["ndcg@10"] == pytest.approx(got[("A", "q1")]["ndcg@10"] / 2, abs=1e-12)
    assert summary["A"]["ndcg@10_upper_count"] == 2
    # without the setting, the same numbers and no _upper column
    plain = sqlndcg.evaluate(*frames(run, qrels), metrics=["ndcg@10", "p@2"], group_by="system")
    assert list(plain.per_query.columns) == ["system", "query_id", "ndcg@10", "p@2"]
    assert [r[:4] for r in res.per_query.rows] == list(plain.per_query.rows)


def battery():
    rng = random.Random(5)
    run, qrels = [], []
    for system in ("A", "B"):
        for q in range(1, 8):
            for i in rng.sample(range(20), rng.randint(1, 15)):
                run.append((system, f"q{q}", f"d{i:02d}", rng.choice([0.5, 0.7, 0.9, 1.1, 1.3, 2.0])))
    for q in range(1, 9):
        for i in rng.sample(range(20), 8):
            qrels.append((f"q{q}", f"d{i:02d}", 0 if q == 6 else rng.choice([-1, 0, 0, 1, 2, 3])))
    return run, qrels


MEASURES = {"ndcg_cut_10": "ndcg@10", "P_5": "p@5", "map": "ap", "recip_rank": "rr", "ndcg": "ndcg"}


def pytrec(run, qrels, system, grade=None):
    """pytrec_eval on the system's run, and on judgments augmented with every document it retrieved that has no
    label >= 0, at the largest label (or at ``grade``)."""
    top = max(r for _, _, r in qrels) if grade is None else grade
    plain, augmented = {}, {}
    for q, d, r in qrels:
        plain.setdefault(q, {})[d] = int(r)
        augmented.setdefault(q, {})[d] = int(r)
    mine = {}
    for s, q, d, score in run:
        if s != system:
            continue
        mine.setdefault(q, {})[d] = float(score)
        if augmented.get(q, {}).get(d, -1) < 0:
            augmented.setdefault(q, {})[d] = int(top)
    lower = pytrec_eval.RelevanceEvaluator(plain, set(MEASURES)).evaluate(mine)
    upper = pytrec_eval.RelevanceEvaluator(augmented, set(MEASURES)).evaluate(mine)
    return lower, upper


def test_upper_equals_pytrec_eval_on_augmented_judgments():
    run, qrels = battery()
    res = sqlndcg.evaluate(*frames(run, qrels), metrics=list(MEASURES.values()), group_by="system",
                           preset="trec_eval", unjudged_bounds=True)
    got = rows(res)
    checked = 0
    for system in ("A", "B"):
        lower, upper = pytrec(run, qrels, system)
        for q in lower:
            for trec, ours in MEASURES.items():
                assert got[(system, q)][ours] == pytest.approx(lower[q][trec], abs=1e-12), (system, q, ours)
                assert got[(system, q)][ours + "_upper"] == pytest.approx(upper[q][trec], abs=1e-12), (system, q, ours)
                checked += 1
    assert checked > 50
    assert any(got[k]["ndcg@10_upper"] > got[k]["ndcg@10"] for k in got)


@pytest.mark.parametrize("grade", [1, 2, 5])
def test_a_stated_grade_for_the_unjudged_documents(grade):
    """unjudged_grade=g: the upper bound as if every retrieved unjudged document were judged g (here 1 and 2, below
    the judgments' largest label 3, and 5, above it), against pytrec_eval on judgments augmented at g."""
    run, qrels = battery()
    res = sqlndcg.evaluate(*frames(run, qrels), metrics=list(MEASURES.values()), group_by="system",
                           preset="trec_eval", unjudged_bounds=True, unjudged_grade=grade)
    got = rows(res)
    for system in ("A", "B"):
        _, upper = pytrec(run, qrels, system, grade)
        for q in upper:
            for trec, ours in MEASURES.items():
                assert got[(system, q)][ours + "_upper"] == pytest.approx(upper[q][trec], abs=1e-12), (system, q)
    assert res.settings["unjudged_grade"] == grade


def test_a_stated_grade_needs_the_bounds():
    with pytest.raises(sqlndcg.SettingError, match="unjudged_grade=2 is the label of the upper bounds: it applies "
                                                   "with unjudged_bounds=True"):
        sqlndcg.evaluate(*frames(*battery()), metrics=["ndcg@10"], group_by="system", unjudged_grade=2)


def test_judged_only_leaves_nothing_to_bound():
    run, qrels = battery()
    res = sqlndcg.evaluate(*frames(run, qrels), metrics=["ndcg@10", "p@5"], group_by="system", judged_only=True,
                           unjudged_bounds=True)
    for v in rows(res).values():
        assert v["ndcg@10_upper"] == v["ndcg@10"] and v["p@5_upper"] == v["p@5"]


def test_partitions_give_the_same_bounds():
    run, qrels = battery()
    one = sqlndcg.evaluate(*frames(run, qrels), metrics=["ndcg@10", "err@10"], group_by="system", unjudged_bounds=True)
    three = sqlndcg.evaluate(*frames(run, qrels), metrics=["ndcg@10", "err@10"], group_by="system",
                             unjudged_bounds=True, partitions=3)
    assert sorted(three.per_query.rows) == sorted(one.per_query.rows)


def check_engine(con, load, label):
    run, qrels = battery()
    want = sqlndcg.evaluate(*frames(run, qrels), metrics=["ndcg@10", "p@5", "err@10", "ncg@10"], group_by="system",
                            unjudged_bounds=True)
    tables = load(con, "text", *frames(run, qrels))
    got = sqlndcg.evaluate(*tables, metrics=["ndcg@10", "p@5", "err@10", "ncg@10"], group_by="system", con=con,
                           unjudged_bounds=True)
    for part in ("per_query", "summary"):
        g, w = getattr(got, part), getattr(want, part)
        assert list(g.columns) == list(w.columns), (label, part)
        assert len(g.rows) == len(w.rows), (label, part)
        for gr, wr in zip(g.rows, w.rows):
            for c, a, b in zip(g.columns, gr, wr):
                if isinstance(b, float) or isinstance(a, float):
                    assert (a is None) == (b is None) and (a is None or math.isclose(a, b, abs_tol=1e-9)), (label, c)
                else:
                    assert str(a) == str(b), (label, c)


@pytest.mark.engine
def test_sqlite_datafusion_clickhouse():
    import datafusion
    from chdb import dbapi

    check_engine(sqlite3.connect(":memory:"), load_dbapi("TEXT", "INTEGER", "REAL", "?"), "SQLite")
    check_engine(datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1)),
                 lambda con, ids, r, j: (r, j), "DataFusion")
    check_engine(dbapi.connect(), load_clickhouse, "ClickHouse")


@pytest.mark.engine
def test_postgres(postgres):
    with postgres.connect(postgres.dbname_c) as con:
        check_engine(con, load_dbapi("TEXT", "BIGINT", "DOUBLE PRECISION", "%s"), "PostgreSQL")


@pytest.mark.engine
def test_spark(spark):
    def load(con, ids, run_df, qrels_df):
        spark.createDataFrame(run_df).createOrReplaceTempView("bounds_run")
        spark.createDataFrame(qrels_df).createOrReplaceTempView("bounds_qrels")
        return "bounds_run", "bounds_qrels"

    check_engine(spark, load, "Spark")


def test_the_command_line_flag_prints_the_upper_bounds(capsys):
    from sqlndcg.cli import main

    main(["evaluate", "--run", str(sqlndcg.example("run")), "--judgments", str(sqlndcg.example("qrels")),
          "--group-by", "tag", "-m", "ndcg@5", "--unjudged-bounds"])
    out = capsys.readouterr().out
    res = sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], group_by="tag",
                           unjudged_bounds=True)
    upper = {r["tag"]: r["ndcg@5_upper"] for r in res.summary.to_dicts()}
    assert f"bm25    ndcg@5_upper  {upper['bm25']:.4f}" in out and upper["bm25"] > 0.5  # 0.1916 without the bound


def test_judgments_shared_by_a_group_column_are_augmented_within_that_group():
    """The judgments carry `ds`; the run is split by system and ds: each (system, ds) adds its own unjudged
    documents to that ds's judgments."""
    run = [("A", "d1", "q1", "a", 3), ("A", "d1", "q1", "c", 1), ("A", "d2", "q1", "a", 1), ("A", "d2", "q1", "z", 2),
           ("B", "d1", "q1", "e", 1)]
    qrels = [("d1", "q1", "a", 2), ("d1", "q1", "c", -1), ("d2", "q1", "a", 1), ("d2", "q1", "b", 3)]
    res = sqlndcg.evaluate(pd.DataFrame(run, columns=["system", "ds", "query_id", "doc_id", "score"]),
                           pd.DataFrame(qrels, columns=["ds", "query_id", "doc_id", "rel"]).astype({"rel": "float64"}),
                           metrics=["ndcg@10"], group_by=["system", "ds"], unjudged_bounds=True)
    got = {r[:2]: r[3:] for r in res.per_query.rows}
    d2, d3 = 1 / math.log2(3), 1 / math.log2(4)
    # A d1: a (2: gain 3), c (-1: unjudged -> 3, gain 7); ideal 7, 3
    assert got[("A", "d1")] == (1.0, pytest.approx((3 + 7 * d2) / (7 + 3 * d2), abs=1e-12))
    # A d2: z (unjudged -> 7), a (1: gain 1); ideal b 7, z 7, a 1
    assert got[("A", "d2")][1] == pytest.approx((7 + 1 * d2) / (7 + 7 * d2 + 1 * d3), abs=1e-12)
    # B d1: e (unjudged -> 7); ideal e 7, a 3 (c, unretrieved by B, keeps its -1)
    assert got[("B", "d1")] == (0.0, pytest.approx(7 / (7 + 3 * d2), abs=1e-12))
    assert got[("B", "d2")] == (0.0, 0.0)


def test_compare_corrects_the_bounds_as_a_family_of_their_own():
    """Comparing with unjudged_bounds adds the upper bounds' rows; they are adjusted among themselves, so the
    metrics' adjusted p-values are those of the comparison without bounds."""
    kw = dict(system="tag", baseline="bm25", permutations=200, resamples=100)
    run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
    with_bounds = {r["metric"]: r for r in sqlndcg.compare(run, qrels, ["ndcg@5", "p@5"], unjudged_bounds=True,
                                                           **kw).table.to_dicts()}
    plain = {r["metric"]: r for r in sqlndcg.compare(run, qrels, ["ndcg@5", "p@5"], **kw).table.to_dicts()}
    for metric in ("ndcg@5", "p@5"):
        for column in ("t_p_adjusted", "randomization_p_adjusted"):
            assert with_bounds[metric][column] == plain[metric][column]
    uppers = [with_bounds[m] for m in ("ndcg@5_upper", "p@5_upper")]
    from sqlndcg.stats import paired
    assert [u["t_p_adjusted"] for u in uppers] == pytest.approx(paired.holm([u["t_p"] for u in uppers]), abs=0)
