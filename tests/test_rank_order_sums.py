"""evaluate()'s per-query values are the same bits whatever DuckDB's thread count and whatever other queries the
input holds, and they are trec_eval's: a query's terms are added in rank order, as trec_eval's m_*.c loops add
them. DuckDB runs a running window SUM on a segment tree, whose grouping of the additions depends on where a
query's rows fall among the others', and a plain SUM in any order; AP = 0.36875 (relevant at 2, 5, 8, 20 of 20)
came out as the double above it for a few queries among 20,000 and printed 0.3688 where trec_eval prints 0.3687.
The sums read at a cutoff are taken from the list of their terms in rank order (sql/macros/dialects/rules.sql,
list_sums), a measure's own sums are ordered aggregates or folds of its loop (registry.sql, _rank_sum and
_rank_reduce)."""

from __future__ import annotations

import random

import duckdb
import pyarrow as pa
import pytest

import sqlndcg

#: Every measure whose value adds doubles over a ranked list, each path: the listed sums (AP, DCG, CG, gains, the
#: ideal's), the ordered own sums (bpref, infAP, binG), the folds (rbp, rbp_resid, G, ndcg_rel, Rndcg, ERR), and
#: 11pt_avg's sum of levels.
METRICS = ["ap", "ap@10", "ndcg", "ndcg@10", "dcg@5", "cg@5", "bpref", "infap", "rbp", "rbp_resid", "g",
           "ndcg_rel", "rndcg", "bing", "11pt_avg", "err@10", "rprec", "iprec_at_recall(recall=0.5)", "gm_map"]


def rows(first: int, count: int, seed: int) -> tuple[list[tuple], list[tuple]]:
    """Run and judgment rows of queries first .. first + count - 1: lists of 1 to 60 documents, ties, graded and
    negative labels, unjudged documents."""
    rng = random.Random(seed)
    run, qrels = [], []
    for n in range(first, first + count):
        q = f"q{n:06d}"
        length = rng.choice([1, 5, 12, 20, 40, 60])
        docs = [f"d{i}" for i in rng.sample(range(4 * length), 2 * length)]
        for d in docs[: rng.randint(1, len(docs))]:
            qrels.append((q, d, float(rng.choice([0, 0, 1, 1, 2, 3, -1]))))
        for d in docs[:length]:
            run.append((q, d, float(rng.choice([rng.randint(0, 9), round(rng.random(), 2)]))))
    return run, qrels


def tables(run: list[tuple], qrels: list[tuple]) -> tuple[pa.Table, pa.Table]:
    return (pa.table({"query_id": [r[0] for r in run], "doc_id": [r[1] for r in run], "score": [r[2] for r in run]}),
            pa.table({"query_id": [r[0] for r in qrels], "doc_id": [r[1] for r in qrels], "rel": [r[2] for r in qrels]}))


def per_query(run, qrels, metrics, threads: int) -> dict[str, dict]:
    con = duckdb.connect(config={"threads": threads})
    result = sqlndcg.evaluate(run, qrels, metrics, con=con, preset="trec_eval", rank=None)
    return {row["query_id"]: row for row in result.per_query.to_dicts()}


def lists_of_20(queries: int, seed: int) -> tuple[list[tuple], list[tuple]]:
    """``queries`` lists of 20 documents, about a third of them relevant (grades 1 to 3): the shape where DuckDB's
    running window sums grouped the additions differently by a query's place among 400,000 rows."""
    rng = random.Random(seed)
    run, qrels = [], []
    for n in range(queries):
        q = f"q{n:05d}"
        for rank in range(1, 21):
            run.append((q, f"d{rank}", float(100 - rank)))
            if rng.random() < 0.3:
                qrels.append((q, f"d{rank}", float(rng.choice([1, 2, 3]))))
        qrels.append((q, "unretrieved", 1.0))
    return run, qrels


@pytest.mark.slow  # 400,000 rows evaluated twice: about 10 s on 2 cores
def test_the_same_bits_with_one_thread_or_two_and_alone_or_among_many():
    """Each query's values are the same bits among 20,000 queries (two threads) as among a seventh of them (one
    thread), and as alone; with running window sums, about 5% of the queries' AP and NDCG differed."""
    run, qrels = lists_of_20(20_000, seed=9)
    among_many = per_query(*tables(run, qrels), METRICS, threads=2)
    kept = {f"q{n:05d}" for n in range(0, 20_000, 7)}
    among_fewer = per_query(*tables([r for r in run if r[0] in kept], [r for r in qrels if r[0] in kept]), METRICS,
                            threads=1)
    assert len(among_many) == 20_000 and len(among_fewer) == len(kept)
    differing = [q for q in among_fewer if among_fewer[q] != among_many[q]]
    assert not differing, (len(differing), among_fewer[differing[0]], among_many[differing[0]])
    alone = per_query(*tables([r for r in run if r[0] == "q00700"], [r for r in qrels if r[0] == "q00700"]),
                      METRICS, threads=1)
    assert alone["q00700"] == among_many["q00700"]
    # and a mixed shape: lists of 1 to 60 documents, ties, negative labels, unjudged documents
    many_run, many_qrels = rows(0, 6_000, seed=2)
    few = {q for q, _, _ in many_run[:20_000]}
    mixed_many = per_query(*tables(many_run, many_qrels), METRICS, threads=2)
    mixed_few = per_query(*tables([r for r in many_run if r[0] in few][::-1], [r for r in many_qrels if r[0] in few]),
                          METRICS, threads=1)
    assert all(mixed_few[q] == mixed_many[q] for q in mixed_few)


def test_ap_of_0_36875_is_added_in_rank_order_among_20000_queries():
    """(1/2 + 2/5 + 3/8 + 4/20) / 4 added left to right, as m_map.c adds: the double just below 0.36875."""
    expected = 0.0
    for term in (1 / 2, 2 / 5, 3 / 8, 4 / 20):
        expected += term
    expected /= 4
    assert expected == 0.36874999999999997
    run = [(f"q{n:05d}", f"d{rank}", float(100 - rank)) for n in range(20_000) for rank in range(1, 21)]
    qrels = [(f"q{n:05d}", f"d{rank}", 1.0) for n in range(20_000) for rank in (2, 5, 8, 20)]
    got = per_query(*tables(run, qrels), ["ap", "ap@20", "ap@10"], threads=2)
    assert {row["ap"] for row in got.values()} == {expected}
    assert {row["ap@20"] for row in got.values()} == {expected}
    assert {row["ap@10"] for row in got.values()} == {(1 / 2 + 2 / 5 + 3 / 8) / 4}


def test_the_sql_shown_gives_the_same_bits():
    """to_sql's DuckDB statement (formatted by sqlglot) computes what evaluate() computes: sqlglot writes a plain
    LOG2(x) as LOG(2, x), which DuckDB computes as LN(x) / LN(2), so the discount is spelled system.main.log2."""
    run, qrels = tables(*rows(0, 300, seed=3))
    con = duckdb.connect()
    con.register("run_rows", run)
    con.register("qrels_rows", qrels)
    settings = dict(preset="trec_eval", rank=None, con=con)
    checked = sqlndcg.evaluate("run_rows", "qrels_rows", METRICS, **settings)
    shown = sqlndcg.to_sql("run_rows", "qrels_rows", METRICS, **settings)
    assert "LOG(2," not in shown.upper()
    assert con.sql(shown).to_arrow_table().equals(checked.per_query.to_arrow())


@pytest.mark.slow  # all_trec on 60,000 lines twice: about 5 s
def test_the_trec_eval_command_prints_the_same_with_one_thread_or_two(tmp_path):
    from sqlndcg.verbs import trec_eval

    run, qrels = rows(0, 3_000, seed=4)
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 1 {s} x\n" for q, d, s in run))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in qrels))
    options = trec_eval.Options(qrels=str(tmp_path / "qrels"), run=str(tmp_path / "run"), measures=["all_trec"],
                                per_query=True, complete=True)
    outputs = [trec_eval.compute(options, con=duckdb.connect(config={"threads": threads})) for threads in (1, 2)]
    assert outputs[0] == outputs[1]
    assert len(outputs[0].per_query) > 100_000


@pytest.mark.parametrize("metric", ["rbp(p=0.95)", "rbp_resid", "ndcg@10", "ap"])
def test_other_engines_keep_their_portable_sql(metric):
    """SQLite (the default__ macros: running windows, POWER, LN(2) / LN(x)) agrees with DuckDB within rounding."""
    import sqlite3

    run, qrels = tables(*rows(0, 40, seed=5))
    want = per_query(run, qrels, [metric], threads=1)
    got = sqlndcg.evaluate(run.to_pandas(), qrels.to_pandas(), [metric], con=sqlite3.connect(":memory:"),
                           preset="trec_eval", rank=None).per_query.to_dicts()
    assert len(got) == len(want)
    for row in got:
        assert row[metric] == pytest.approx(want[row["query_id"]][metric], rel=1e-12, abs=1e-15)
