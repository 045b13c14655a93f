"""Each list's top k, found the way each engine finds it fastest (top_n in sql/macros/dialects/rules.sql): DuckDB's top-N
aggregate over one sort key, Spark's ROW_NUMBER planned as a per-group limit, the cut by key elsewhere. The forms
rank the same documents at the same positions: per-query values are the same bits on DuckDB whatever its thread
count and the input's row order, and the same values on an engine that cuts (SQLite), on data with ties at the
k-th position, ties inside the top k, integer and text ids, distances, ranks and groups."""

from __future__ import annotations

import random
import sqlite3

import duckdb
import pyarrow as pa
import pytest

import sqlndcg

METRICS = ["ndcg@3", "ndcg@10", "p@5", "rr@10", "ap@10", "hit@2", "judged@10", "dcg@4", "recall@10"]


def rows(seed: int, text_ids: bool, queries: int = 400) -> tuple[list[tuple], list[tuple]]:
    """Lists of 1 to 40 documents whose scores take few values (many ties, at every position), graded labels,
    unjudged documents; two systems."""
    rng = random.Random(seed)
    run, qrels = [], []
    for n in range(queries):
        q = f"q{n:04d}" if text_ids else n
        docs = rng.sample(range(10, 200), rng.choice([1, 3, 9, 10, 11, 25, 40]))
        ids = [f"d{d}" if text_ids else d for d in docs]
        for d in ids:
            if rng.random() < 0.6:
                qrels.append((q, d, rng.choice([0, 1, 1, 2, 3])))
        for system in ("a", "b"):
            for d in ids:
                run.append((system, q, d, float(rng.randint(0, 4)), rng.randint(1, 50)))
    return run, qrels


def tables(run, qrels, order: int = 0) -> tuple[pa.Table, pa.Table]:
    run = list(run)
    if order:
        random.Random(order).shuffle(run)
    names = ["system", "query_id", "doc_id", "score", "rank"]
    return (pa.table({name: [r[i] for r in run] for i, name in enumerate(names)}),
            pa.table({name: [r[i] for r in qrels] for i, name in enumerate(["query_id", "doc_id", "rel"])}))


SETTINGS = [{}, {"lower_is_better": True}, {"ranked_by": "rank", "ignored_column": "score"},
            {"preset": "trec_eval"}, {"gain": "linear", "short_lists": "truncate"}]


def _evaluate(run, qrels, settings, con):
    settings = dict(settings)
    if settings.get("ranked_by") == "rank":
        run = run.drop_columns(["score"])
        settings = {}
    elif "rank" in run.column_names:
        run = run.drop_columns(["rank"])
    return sqlndcg.evaluate(run, qrels, METRICS, group_by="system", con=con, **settings)


def _keyed(result) -> dict:
    return {(r["system"], r["query_id"]): tuple(r[m] for m in METRICS) for r in result.per_query.to_dicts()}


@pytest.mark.parametrize("text_ids", [False, True])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "defaults")
def test_duckdb_top_n_is_the_same_bits_across_threads_and_row_orders(text_ids, settings):
    run, qrels = rows(7, text_ids)
    seen = []
    for threads, order in [(1, 0), (2, 0), (2, 3), (1, 5), (2, 11)]:
        con = duckdb.connect(config={"threads": threads})
        result = _evaluate(*tables(run, qrels, order), settings, con)
        assert "top_lists" in result.sql and "list_cut" not in result.sql
        seen.append(_keyed(result))
    assert all(s == seen[0] for s in seen[1:])
    assert len(seen[0]) == 2 * len({q for q, _, _ in qrels}) > 600


@pytest.mark.parametrize("text_ids", [False, True])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "defaults")
def test_duckdb_top_n_gives_the_values_of_the_cut(text_ids, settings):
    run, qrels = rows(3, text_ids, queries=150)
    run_table, qrels_table = tables(run, qrels, 2)
    in_duckdb = _keyed(_evaluate(run_table, qrels_table, settings, None))
    con = sqlite3.connect(":memory:")
    run_table.to_pandas().to_sql("run", con, index=False)
    qrels_table.to_pandas().to_sql("qrels", con, index=False)
    cut = _evaluate_sqlite(con, settings)
    assert "list_cut" in cut.sql
    cut = _keyed(cut)
    assert in_duckdb.keys() == cut.keys()
    for key, values in cut.items():
        assert in_duckdb[key] == pytest.approx(values, rel=1e-12, abs=1e-15), key


def _evaluate_sqlite(con, settings):
    settings = dict(settings)
    run = "run"
    if settings.get("ranked_by") == "rank":
        con.execute("CREATE VIEW run_by_rank AS SELECT system, query_id, doc_id, rank FROM run")
        run, settings = "run_by_rank", {}
    else:
        con.execute("CREATE VIEW IF NOT EXISTS run_by_score AS SELECT system, query_id, doc_id, score FROM run")
        run = "run_by_score"
    return sqlndcg.evaluate(run, "qrels", METRICS, group_by="system", con=con, **settings)


def test_a_boundary_tie_is_broken_by_document_as_the_full_ranking_breaks_it():
    """Five documents share the 2nd best score; the top 3 takes the two largest ids of them (ties by doc_id
    descending), whatever order the rows come in."""
    run = pa.table({"query_id": ["q"] * 7, "doc_id": ["a", "b", "c", "d", "e", "f", "z"],
                    "score": [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 2.0]})
    qrels = pa.table({"query_id": ["q"] * 3, "doc_id": ["e", "d", "a"], "rel": [1, 2, 3]})
    for order in range(4):
        shuffled = run.take(random.Random(order).sample(range(7), 7))
        got = sqlndcg.evaluate(shuffled, qrels, ["p@3", "dcg@3", "rr@3"], gain="linear")
        # z (unjudged), e (1), d (2): P@3 = 2/3, DCG@3 = 1/log2(3) + 2/log2(4), RR@3 = 1/2
        assert got.per_query.to_dicts() == [{"query_id": "q", "p@3": pytest.approx(2 / 3, abs=1e-15),
                                            "dcg@3": pytest.approx(1 / 1.584962500721156 + 1.0, abs=1e-15),
                                            "rr@3": 0.5}]


def test_spark_ranks_with_a_filtered_row_number_and_other_engines_cut():
    plan_sql = {d: sqlndcg.to_sql("run", "qrels", ["ndcg@10"], dialect=d) for d in ("spark", "postgres", "duckdb")}
    assert "ROW_NUMBER()" in plan_sql["spark"] and "list_cut" not in plan_sql["spark"]
    assert "list_cut" in plan_sql["postgres"]
    assert "top_lists" in plan_sql["duckdb"] and "ROW_NUMBER" not in plan_sql["duckdb"].split("top_lists", 1)[1].split("ideal_dcg")[0]


@pytest.mark.parametrize("text_ids", [False, True])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "defaults")
def test_many_lists_rank_with_the_window_and_give_the_same_bits(text_ids, settings, monkeypatch):
    """A run of many lists (sqlndcg_duckdb_many_lists) is ranked by the window, whose sort spills, instead of the
    top-N aggregate, whose state does not; the checks too. The same bits either way."""
    from sqlndcg.core import render

    run, qrels = rows(5, text_ids, queries=200)
    run_table, qrels_table = tables(run, qrels, 4)
    few = _evaluate(run_table, qrels_table, settings, duckdb.connect())
    assert "top_lists" in few.sql
    call = render.call
    monkeypatch.setattr(render, "call", lambda name, *a, **k: "SELECT true AS many"
                        if name == "sqlndcg_duckdb_many_lists" else call(name, *a, **k))
    many = _evaluate(run_table, qrels_table, settings, duckdb.connect())
    assert "top_lists" not in many.sql and "min_by" not in many.sql.lower() and "ROW_NUMBER" in many.sql
    assert _keyed(many) == _keyed(few)
    assert many.account.to_dicts() == few.account.to_dicts()


def test_the_many_lists_estimate_counts_lists_of_every_group():
    from sqlndcg.core import render

    sql = render.call("sqlndcg_duckdb_many_lists", {"run": "t", "query_ids_as_text": False, "doc_ids_as_text": False,
                                                   "run_query_id": "q", "run_doc_id": "d", "order_by": "score",
                                                   "score": "s", "rank": None,
                                                   "groups": [{"alias": "_g0", "run_column": "g"}]})
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i % 2 AS g, i // 2 AS q, 0 AS d, 1.0 AS s FROM range(1200000) r(i)")
    assert con.execute(sql).fetchone()[0] is True  # 1.2M (system, query) lists, 600k queries
    con.execute("CREATE OR REPLACE TABLE t AS SELECT i % 2 AS g, i // 4 AS q, 0 AS d, 1.0 AS s FROM range(800000) r(i)")
    assert con.execute(sql).fetchone()[0] is False  # 400k lists


@pytest.mark.parametrize("text_ids", [False, True])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "defaults")
def test_a_checked_evaluation_ranks_the_run_once_for_account_and_statement(text_ids, settings, monkeypatch):
    """The checks within the cutoff and the per-query statement read one ranked top (run_top.sql), made once: the
    same per-query values and account as when each ranks the run itself, and the statement shown reads the
    inputs, not the call's table."""
    from sqlndcg.core import render
    from sqlndcg.run.engines.duckdb_engine import DuckDBEngine

    run, qrels = rows(9, text_ids, queries=150)
    run_table, qrels_table = tables(run, qrels, 6)
    sent = []
    for method in ("execute", "fetch", "fetch_arrow"):
        original = getattr(DuckDBEngine, method)
        monkeypatch.setattr(DuckDBEngine, method, lambda self, sql, *a, _o=original, **k: sent.append(sql)
                            or _o(self, sql, *a, **k))
    shared = _evaluate(run_table, qrels_table, settings, duckdb.connect())
    ranked = [s for s in sent if "min_by(" in s]
    assert len(ranked) == 1 and "sqlndcg_run_top_" in ranked[0].split(" AS ")[0]
    assert sum("sqlndcg_run_top_" in s for s in sent) >= 3  # made, counted by the account, read by the statement
    assert "sqlndcg_run_top" not in shared.sql and "top_lists" in shared.sql
    call = render.call
    monkeypatch.setattr(render, "call", lambda name, *a, **k: False if name == "_shares_top" else call(name, *a, **k))
    sent.clear()
    apart = _evaluate(run_table, qrels_table, settings, duckdb.connect())
    assert len([s for s in sent if "min_by(" in s]) == 2 and not any("sqlndcg_run_top_" in s for s in sent)
    assert _keyed(shared) == _keyed(apart)
    assert shared.account.to_dicts() == apart.account.to_dicts()
    assert sum(r["retrieved_unjudged"] for r in shared.account.to_dicts()) > 0
