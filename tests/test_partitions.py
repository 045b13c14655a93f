"""partitions=n: the queries evaluated in n disjoint buckets, one pass each, so a pass holds a fraction of the
inputs. Every number must be the one a single pass gives, bit for bit: per-query values, summary and account."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

import sqlndcg
from adversarial import COMBINATIONS, adversarial_rows


def frames(integer_ids: bool):
    run, qrels = adversarial_rows(integer_ids)
    return (pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]),
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]))


def same_result(one, many):
    assert many.per_query.to_arrow().equals(one.per_query.to_arrow())
    assert many.summary.to_arrow().equals(one.summary.to_arrow())
    assert many.account.to_arrow().equals(one.account.to_arrow())


@pytest.mark.parametrize("integer_ids", [True, False], ids=["integer_ids", "text_ids"])
@pytest.mark.parametrize("combination", sorted(COMBINATIONS))
def test_partitions_give_the_numbers_of_one_pass(combination, integer_ids):
    metrics, settings = COMBINATIONS[combination]
    run, qrels = frames(integer_ids)
    one = sqlndcg.evaluate(run, qrels, metrics, group_by="system", **settings)
    for partitions in (2, 5):
        same_result(one, sqlndcg.evaluate(run, qrels, metrics, group_by="system", partitions=partitions,
                                          **settings))


@pytest.mark.parametrize("queries", ["judged", "both"])
def test_a_group_missing_from_a_bucket_is_still_scored_and_counted_there(queries):
    """sysB answers one query: in every other bucket it has no run rows, yet under queries='judged' it is scored 0
    on that bucket's judged queries, and its account counts them."""
    run, qrels = frames(True)
    run = run[(run.system == "sysA") | (run.query_id == 3)]
    one = sqlndcg.evaluate(run, qrels, ["ndcg@5", "ap"], group_by="system", queries=queries)
    many = sqlndcg.evaluate(run, qrels, ["ndcg@5", "ap"], group_by="system", queries=queries, partitions=4)
    same_result(one, many)
    scored = {r["system"]: r["scored_queries"] for r in many.account}
    assert scored == ({"sysA": 9, "sysB": 9} if queries == "judged" else {"sysA": 7, "sysB": 1})


def test_partitions_without_groups_and_with_query_weights():
    run, qrels = frames(False)
    run = run[run.system == "sysA"].drop(columns="system")
    weights = pd.DataFrame({"query_id": [f"Q{q}" for q in range(1, 11)], "weight": [float(q) for q in range(1, 11)]})
    one = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@5"], query_weights=weights)
    same_result(one, sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@5"], query_weights=weights, partitions=3))


def test_repeated_pairs_are_refused_in_any_bucket():
    run, qrels = frames(True)
    run = pd.concat([run, run.iloc[[5]]])
    with pytest.raises(sqlndcg.DataError, match=r"1 \(query, document\) pairs occur more than once"):
        sqlndcg.evaluate(run, qrels, group_by="system", partitions=3)


def test_partitions_must_be_a_whole_number_and_duckdb_only():
    run, qrels = frames(True)
    for bad in (0, -1, 2.5, True, "2"):
        with pytest.raises(sqlndcg.SettingError, match="partitions must be a whole number >= 1"):
            sqlndcg.evaluate(run, qrels, group_by="system", partitions=bad)
    con = sqlite3.connect(":memory:")
    with pytest.raises(sqlndcg.SettingError, match=r"partitions=2 splits the work of one DuckDB process"):
        sqlndcg.evaluate(run, qrels, group_by="system", partitions=2, con=con)


def test_partitions_are_bounded(capsys):
    """Each partition reads every input again: 100,000 of them on a few rows grew past 1.6 GB before; past the
    stated maximum they are refused before any work, in Python and on the command line."""
    from sqlndcg.cli import main

    run, qrels = frames(True)
    with pytest.raises(sqlndcg.SettingError, match=r"partitions=257: at most 256"):
        sqlndcg.evaluate(run, qrels, group_by="system", partitions=257)
    assert main(["evaluate", "--run", sqlndcg.example("run"), "--judgments", sqlndcg.example("qrels"),
                 "--partitions", "100000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "partitions=100,000: at most 256" in err


def test_the_command_line_takes_partitions(capsys):
    from sqlndcg.cli import main

    run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
    outputs = []
    for extra in ([], ["--partitions", "3"]):
        assert main(["evaluate", "--run", run, "--judgments", qrels, "-m", "ndcg@5,map", "--group-by", "tag",
                     "--format", "json", "--per-query"] + extra) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and '"ndcg@5"' in outputs[0]


@pytest.mark.parametrize("k", [3, 12])
def test_lists_no_longer_than_k_are_ranked_without_the_cut_and_give_the_same_bits(k):
    """Where the top k is cut by key (engines without a top-N form, here SQLite), the input checks see the longest
    list; when none is longer than k, every row is a candidate and the per-query statement ranks them directly (no
    list_cut). The portable statement (to_sql, no checks) keeps the cut; both give the same values, and DuckDB's
    top-N aggregate gives them too."""
    import sqlite3

    run, qrels = frames(True)
    metrics = [f"ndcg@{k}", f"p@{k}", f"rr@{k}"]
    con = sqlite3.connect(":memory:")
    run.to_sql("run_frame", con, index=False)
    qrels.to_sql("qrels_frame", con, index=False)
    checked = sqlndcg.evaluate("run_frame", "qrels_frame", metrics, group_by="system", con=con)
    assert ("list_cut" in str(checked.sql)) == (k < 12)  # the longest list has 12 documents
    portable = sqlndcg.to_sql("run_frame", "qrels_frame", metrics, group_by="system", con=con)
    assert "list_cut" in portable
    assert con.execute(portable).fetchall() == [tuple(r.values()) for r in checked.per_query.to_arrow().to_pylist()]
    in_duckdb = sqlndcg.evaluate(run, qrels, metrics, group_by="system")
    assert "top_lists" in in_duckdb.sql and "list_cut" not in in_duckdb.sql
    got, want = in_duckdb.per_query.to_arrow().to_pylist(), checked.per_query.to_arrow().to_pylist()
    assert [list(r.values())[:2] for r in got] == [list(r.values())[:2] for r in want]
    assert [list(r.values())[2:] for r in got] == [pytest.approx(list(r.values())[2:], abs=1e-15) for r in want]


def test_a_bucket_holds_its_rows_of_an_input_cheap_to_read_again(tmp_path):
    """A Parquet file is read once per use by the one-pass statement (NOT MATERIALIZED), but a pass over one bucket
    keeps only its bucket's rows, which costs less than reading the whole file again for each use. The numbers are
    the same bits either way."""
    import duckdb

    from sqlndcg.verbs import scoring
    from sqlndcg.core.spec import make_spec
    from sqlndcg.run.engines import for_connection

    run, qrels = frames(True)
    run.to_parquet(tmp_path / "run.parquet")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    paths = (str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet"))
    spec = make_spec(["ndcg@5", "ap"], group_by="system")
    eng = for_connection(duckdb.connect())
    one = scoring.prepare(eng, spec, *paths)
    many = scoring.prepare(eng, spec, *paths, partitions=3)
    assert one.pass_sqls[0].count("AS NOT MATERIALIZED (") == 2
    assert all("MATERIALIZED" not in sql for sql in many.pass_sqls) and len(many.pass_sqls) == 3
    same_result(sqlndcg.evaluate(*paths, ["ndcg@5", "ap"], group_by="system"),
                sqlndcg.evaluate(*paths, ["ndcg@5", "ap"], group_by="system", partitions=3))
