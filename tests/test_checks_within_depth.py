"""The input checks count the run's repeated (query, document) pairs and unjudged documents where they can change a
number: within each list's top k, k the deepest position any measure reads (issue 29, decision 1). checks='full'
counts every row; measures that read whole lists, tie-averaged lists, an ideal from the retrieved documents and
trec_eval's -M/-J count every row too. The account and the settings say which."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

import sqlndcg
from sqlndcg.errors import DataError

# q1: a repeated pair (d9, ranks 6 and 7) below the top 3, two unjudged documents in the top 3 (b, c) and three
# more below (e, f, d9 twice); q2: one unjudged document (y) at rank 2.
RUN = pd.DataFrame({
    "query_id": ["q1"] * 7 + ["q2"] * 3,
    "doc_id": ["a", "b", "c", "e", "f", "d9", "d9", "x", "y", "z"],
    "score": [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 3.0, 2.0, 1.0],
})
QRELS = pd.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["a", "x", "z"], "rel": [2, 1, 3]})


def _unjudged(result) -> int:
    return sum(row["retrieved_unjudged"] for row in result.account.to_dicts())


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_a_repeat_below_the_deepest_cutoff_changes_no_number_and_is_not_refused(engine):
    con = None
    run, qrels = RUN, QRELS
    if engine == "sqlite":
        con = sqlite3.connect(":memory:")
        RUN.to_sql("run", con, index=False)
        QRELS.to_sql("qrels", con, index=False)
        run, qrels = "run", "qrels"
    got = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"], con=con)
    assert got.settings["checked_within"] == 3
    assert _unjudged(got) == 3  # b, c of q1; y of q2
    assert "3 retrieved documents unjudged within the top 3 (gain 0)" in str(got)
    # the values are those of the run without the repeat
    clean = sqlndcg.evaluate(RUN.drop_duplicates(["query_id", "doc_id"]), QRELS, ["ndcg@3", "p@3"])
    assert got.per_query.to_dicts() == clean.per_query.to_dicts()
    assert got.per_query.to_dicts()[0]["p@3"] == pytest.approx(1 / 3)
    with pytest.raises(DataError, match=r"1 \(query, document\) pairs? occurs? more than once"):
        sqlndcg.evaluate(run, qrels, ["ndcg@3"], con=con, checks="full")


@pytest.mark.parametrize("metrics, settings", [
    (["ndcg@3", "ap"], {}),                      # AP reads whole lists
    (["ndcg@3"], {"ties": "average"}),           # a tied group is averaged whole
    (["ndcg@3"], {"ideal": "retrieved"}),        # the ideal reads every retrieved label
    (["ndcg@3"], {"depth": 7}),                  # trec_eval -M: the lists cut at 7 are read
    (["ndcg@3"], {"checks": "full"}),
])
def test_whole_lists_are_checked_on_every_row(metrics, settings):
    with pytest.raises(DataError, match=r"pairs? occurs? more than once"):
        sqlndcg.evaluate(RUN, QRELS, metrics, **settings)
    clean = RUN.drop_duplicates(["query_id", "doc_id"])
    got = sqlndcg.evaluate(clean, QRELS, metrics, **settings)
    assert "checked_within" not in got.settings
    assert _unjudged(got) == 6  # b, c, e, f, d9 of q1; y of q2
    assert "unjudged (gain 0)" in str(got) and "within the top" not in str(got)


def test_within_depth_counts_the_rows_the_statement_ranks():
    """The top k of the checks is the statement's: score descending, ties by doc_id descending, so of three
    unjudged documents tied at the cutoff only the one ranked inside counts."""
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "t1", "t3", "t2"], "score": [2.0, 1.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "t3"], "rel": [1, 0]})
    got = sqlndcg.evaluate(run, qrels, ["p@2"])  # a, t3 (judged)
    assert _unjudged(got) == 0
    got = sqlndcg.evaluate(run, qrels, ["p@3"])  # a, t3, t2
    assert _unjudged(got) == 1
    assert _unjudged(sqlndcg.evaluate(run, qrels, ["p@3"], checks="full")) == 2


def test_the_command_line_takes_checks(tmp_path, capsys):
    from sqlndcg.cli import main

    RUN.to_csv(tmp_path / "run.csv", index=False)
    QRELS.to_csv(tmp_path / "qrels.csv", index=False)
    assert main(["evaluate", "--run", str(tmp_path / "run.csv"), "--qrels", str(tmp_path / "qrels.csv"), "-m", "p@3"]) == 0
    assert "within the top 3" in capsys.readouterr().out
    assert main(["evaluate", "--run", str(tmp_path / "run.csv"), "--qrels", str(tmp_path / "qrels.csv"), "-m", "p@3",
                 "--checks", "full"]) != 0
    assert "more than once" in capsys.readouterr().err
