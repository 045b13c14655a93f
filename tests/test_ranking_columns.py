"""Which column ranks a run, said and checked (issue 28, items 7 and "lower is better").

A run with both a score and a rank column is ranked by the one the caller names (score= or rank=), the other
ignored and the settings say so; named by neither, the two must agree (checks.sql, order_conflict: portable SQL,
run here on DuckDB, SQLite, DataFusion and ClickHouse), or the run is refused naming a query and both columns.
lower_is_better=True ranks distances: the same per-query values as the same run with negated scores, in
evaluate, compare, positions and the command line.
"""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest

import sqlndcg
from sqlndcg.cli import main
from sqlndcg.errors import DataError, SettingError

METRICS = ["ndcg@2", "ndcg@10", "p@2", "ap", "rr", "r@3"]

#: q1: score and rank agree; q2: rank puts b (score 0.2) above a (score 0.9); q3: equal scores, ranks apart (a tie,
#: not a disagreement). Labels: q1 b, q2 a (the rank column buries it), q3 c.
RUN = pd.DataFrame(
    [("q1", "a", 0.9, 1), ("q1", "b", 0.5, 2), ("q1", "c", 0.1, 3),
     ("q2", "b", 0.2, 1), ("q2", "a", 0.9, 2), ("q2", "c", 0.1, 3),
     ("q3", "a", 0.5, 1), ("q3", "b", 0.5, 2), ("q3", "c", 0.4, 3)],
    columns=["query_id", "doc_id", "score", "rank"])
QRELS = pd.DataFrame([("q1", "b", 1), ("q2", "a", 2), ("q3", "c", 1), ("q3", "x", 1)],
                     columns=["query_id", "doc_id", "rel"])


def per_query(result, metrics=METRICS) -> dict:
    return {r["query_id"]: tuple(r[m] for m in metrics) for r in result.per_query.to_dicts()}


def flat(values: dict) -> dict:
    """(query, metric) -> value, for pytest.approx."""
    return {(q, i): v for q, row in values.items() for i, v in enumerate(row)}


# -- a score and a rank column ------------------------------------------------------------------------------------

def test_disagreeing_score_and_rank_columns_are_refused_naming_a_query_and_both_columns():
    with pytest.raises(DataError) as caught:
        sqlndcg.evaluate(RUN, QRELS, METRICS)
    said = str(caught.value)
    assert ("its score column 'score' and rank column 'rank' order the documents differently in 1 quer(ies), "
            "e.g. (query_id='q2'): the document at rank 2 has score 0.9, higher than the score 0.2 of a document "
            "ranked above it") in said, said
    assert "give score='score' (the rank column is then ignored) or rank='rank'" in said


def test_the_column_named_ranks_and_the_other_is_ignored_said_in_the_settings():
    by_score = sqlndcg.evaluate(RUN, QRELS, METRICS, score="score")
    by_rank = sqlndcg.evaluate(RUN, QRELS, METRICS, rank="rank")
    assert per_query(by_score) == per_query(sqlndcg.evaluate(RUN.drop(columns="rank"), QRELS, METRICS))
    assert per_query(by_rank) == per_query(sqlndcg.evaluate(RUN.drop(columns="score"), QRELS, METRICS))
    # q2 by score: a (rel 2) first, RR 1; by rank: b first, a second, RR 1/2
    assert per_query(by_score, ["rr"])["q2"] == (1.0,) and per_query(by_rank, ["rr"])["q2"] == (0.5,)
    assert (by_score.settings["ranked_by"], by_score.settings["ignored_column"]) == ("score", "rank")
    assert (by_rank.settings["ranked_by"], by_rank.settings["ignored_column"]) == ("rank", "score")
    assert "ranked_by=rank, ignored_column=score" in str(by_rank)
    # ties='rank' is the run's rank as given: the score is ignored too
    assert sqlndcg.evaluate(RUN, QRELS, ["rr"], ties="rank").settings["ignored_column"] == "score"


def test_agreeing_columns_rank_by_score_with_ties_as_the_ties_setting_says():
    agreeing = RUN[RUN.query_id != "q2"]
    res = sqlndcg.evaluate(agreeing, QRELS, METRICS)
    assert per_query(res) == per_query(sqlndcg.evaluate(agreeing.drop(columns="rank"), QRELS, METRICS))
    assert (res.settings["ranked_by"], res.settings["ignored_column"]) == ("score", "rank")
    alone = sqlndcg.evaluate(agreeing.drop(columns="rank"), QRELS, METRICS)
    assert alone.settings["ranked_by"] == "score" and "ignored_column" not in alone.settings


def test_the_disagreement_is_found_per_system():
    """Ranks are compared within each ranking (system, query): two systems that each agree pass, though their
    scores interleave across systems; a system that disagrees is named."""
    agreeing = RUN[RUN.query_id != "q2"]
    scaled = agreeing.assign(system="y", score=agreeing.score / 10)  # y's rank 1 scores below x's rank 2
    assert sqlndcg.evaluate(pd.concat([agreeing.assign(system="x"), scaled]), QRELS, ["rr"],
                            group_by="system").settings["ignored_column"] == "rank"
    with pytest.raises(DataError, match=r"in 1 quer\(ies\), e\.g\. \(system='z', query_id='q2'\)"):
        sqlndcg.evaluate(pd.concat([agreeing.assign(system="x"), RUN.assign(system="z")]), QRELS, ["rr"],
                         group_by="system")


def test_distances_and_ranks_that_agree_pass_the_check():
    distances = RUN.assign(score=-RUN.score)[RUN.query_id != "q2"]
    res = sqlndcg.evaluate(distances, QRELS, METRICS, lower_is_better=True)
    assert res.settings["ignored_column"] == "rank"
    with pytest.raises(DataError, match="has score -0.9, lower \\(lower_is_better=True\\) than the score -0.2"):
        sqlndcg.evaluate(RUN.assign(score=-RUN.score), QRELS, METRICS, lower_is_better=True)


def test_a_trec_run_file_ranks_by_its_score_as_trec_eval_does(tmp_path):
    """The TREC format's rank field is not a ranking (trec_eval ignores it): the score ranks, the settings say
    the rank column was ignored, and no disagreement is refused."""
    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.trec"
    run.write_text("".join(f"{q} Q0 {d} {r} {s} tag\n" for q, d, s, r in RUN.itertuples(index=False)))
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.itertuples(index=False)))
    res = sqlndcg.evaluate(str(run), str(qrels), METRICS)
    assert per_query(res) == per_query(sqlndcg.evaluate(RUN.drop(columns="rank"), QRELS, METRICS))
    assert (res.settings["ranked_by"], res.settings["ignored_column"]) == ("score", "rank")
    assert per_query(sqlndcg.evaluate(str(run), str(qrels), ["rr"], rank="rank"), ["rr"])["q2"] == (0.5,)


def test_the_command_line_says_it_with_its_flags(tmp_path, capsys):
    path = tmp_path / "run.csv"
    RUN.to_csv(path, index=False)
    QRELS.to_csv(tmp_path / "qrels.csv", index=False)
    base = ["evaluate", "--run", str(path), "--judgments", str(tmp_path / "qrels.csv"), "-m", "rr"]
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "give --score-column='score' (the rank column is then ignored) or --rank-column='rank'" in err, err
    assert main(base + ["--rank-column", "rank", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["ranked_by"] == "rank" and out["per_query"][1]["rr"] == 0.5


def sqlite_con():
    return sqlite3.connect(":memory:")


def datafusion_con():
    return pytest.importorskip("datafusion").SessionContext()


def clickhouse_con():
    return pytest.importorskip("chdb.dbapi").connect()


ENGINES = {"sqlite": sqlite_con, "datafusion": datafusion_con, "clickhouse": clickhouse_con}


@pytest.mark.parametrize("engine", list(ENGINES))
def test_the_check_and_distances_run_on_other_engines(engine):
    con = ENGINES[engine]()
    if engine == "clickhouse":
        con = _clickhouse_tables(con)
        run, qrels = "run_rc", "qrels_rc"
    else:
        run, qrels = RUN, QRELS
    with pytest.raises(DataError, match=r"differently in 1 quer\(ies\), e\.g\. \(query_id='q2'\)"):
        sqlndcg.evaluate(run, qrels, METRICS, con=con)
    got = sqlndcg.evaluate(run, qrels, METRICS, con=con, rank="rank")
    assert flat(per_query(got)) == pytest.approx(flat(per_query(sqlndcg.evaluate(RUN, QRELS, METRICS, rank="rank"))))
    if engine != "clickhouse":
        distances = RUN.assign(score=-RUN.score).drop(columns="rank")
        got = sqlndcg.evaluate(distances, qrels, METRICS, con=con, lower_is_better=True)
        want = sqlndcg.evaluate(RUN.drop(columns="rank"), QRELS, METRICS)
        assert flat(per_query(got)) == pytest.approx(flat(per_query(want)))


def _clickhouse_tables(con):
    cur = con.cursor()
    for name, frame, types in (("run_rc", RUN, ["String", "String", "Float64", "Int64"]),
                               ("qrels_rc", QRELS, ["String", "String", "Int64"])):
        cur.execute(f"DROP TABLE IF EXISTS {name}")
        cur.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in zip(frame.columns, types))}) "
                    "ENGINE = Memory")
        values = ", ".join("(" + ", ".join(repr(v) if not isinstance(v, str) else f"'{v}'" for v in row) + ")"
                           for row in frame.itertuples(index=False, name=None))
        cur.execute(f"INSERT INTO {name} VALUES {values}")
    return con


# -- lower is better ----------------------------------------------------------------------------------------------

#: Distances with ties (q1: b and c at 0.3; q2: all three equal), integer and double, and two systems.
DISTANCES = pd.DataFrame(
    [(s, q, d, dist) for s, shift in (("x", 0.0), ("y", 0.25))
     for q, d, dist in [("q1", "a", 0.1), ("q1", "b", 0.3), ("q1", "c", 0.3), ("q1", "d", 0.7), ("q1", "e", 0.2),
                        ("q2", "a", 0.5), ("q2", "b", 0.5), ("q2", "c", 0.5),
                        ("q3", "a", 0.9), ("q3", "b", 0.1), ("q3", "c", 0.4)]
     for dist in [dist + (shift if d in "ab" else 0.0)]],
    columns=["system", "query_id", "doc_id", "score"])
LABELS = pd.DataFrame([("q1", "b", 2), ("q1", "d", 1), ("q1", "e", 3), ("q2", "b", 1), ("q3", "a", 1),
                       ("q3", "c", 2), ("q3", "z", 1)], columns=["query_id", "doc_id", "rel"])
DEEP = ["ndcg@2", "ndcg@3", "ndcg", "p@2", "ap", "ap@2", "rr", "r@2", "judged@2", "bpref"]


def keyed(result, metrics) -> dict:
    return {(r["system"], r["query_id"]): tuple(r[m] for m in metrics) for r in result.per_query.to_dicts()}


@pytest.mark.parametrize("integer", [False, True], ids=["double", "bigint"])
@pytest.mark.parametrize("ties", ["doc_id", "average"])
def test_distances_give_the_values_of_the_negated_scores(integer, ties):
    metrics = [m for m in DEEP if ties == "doc_id" or m.split("@")[0] in ("ndcg", "p", "r", "judged")]
    distances = DISTANCES.assign(score=(DISTANCES.score * 100).round().astype("int64")) if integer else DISTANCES
    negated = distances.assign(score=-distances.score)
    got = sqlndcg.evaluate(distances, LABELS, metrics, group_by="system", lower_is_better=True, ties=ties)
    want = sqlndcg.evaluate(negated, LABELS, metrics, group_by="system", ties=ties)
    assert keyed(got, metrics) == keyed(want, metrics)
    assert got.settings["lower_is_better"] is True and "lower_is_better" not in want.settings
    # by hand: x, q1 ranks a (0.1), e (0.2), then the tie b, c at 0.3 by doc id descending: c, b; then d
    # RR = 1/2 (e, label 3, at 2); P@2 = 1/2
    if ties == "doc_id":
        assert keyed(got, ["rr", "p@2"])[("x", "q1")] == (0.5, 0.5)


def test_distances_compare_as_the_negated_scores():
    got = sqlndcg.compare(DISTANCES, LABELS, ["ndcg@3", "ap"], baseline="x", lower_is_better=True, permutations=64,
                          resamples=100)
    want = sqlndcg.compare(DISTANCES.assign(score=-DISTANCES.score), LABELS, ["ndcg@3", "ap"], baseline="x",
                           permutations=64, resamples=100)
    assert got.differences.rows == want.differences.rows and got.table.rows == want.table.rows
    assert got.settings["lower_is_better"] is True


def test_distances_in_positions_and_the_command_line(tmp_path, capsys):
    got = sqlndcg.positions(DISTANCES, LABELS, k=3, group_by="system", lower_is_better=True)
    want = sqlndcg.positions(DISTANCES.assign(score=-DISTANCES.score), LABELS, k=3, group_by="system")
    assert got.rows == want.rows and got.settings["lower_is_better"] is True
    DISTANCES.to_csv(tmp_path / "d.csv", index=False)
    DISTANCES.assign(score=-DISTANCES.score).to_csv(tmp_path / "n.csv", index=False)
    LABELS.to_csv(tmp_path / "l.csv", index=False)
    outputs = []
    for run, flags in (("d.csv", ["--lower-is-better"]), ("n.csv", [])):
        assert main(["evaluate", "--run", str(tmp_path / run), "--judgments", str(tmp_path / "l.csv"), "-m",
                     "ndcg@3,ap,rr", "--group-by", "system", "--per-query", "--format", "json", *flags]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0]["per_query"] == outputs[1]["per_query"]
    assert outputs[0]["settings"]["lower_is_better"] is True


def test_lower_is_better_with_a_rank_column_ranking_is_refused():
    with pytest.raises(SettingError, match="lower_is_better=True ranks the score column .*ties='rank'"):
        sqlndcg.evaluate(RUN, QRELS, ["rr"], ties="rank", lower_is_better=True)
    with pytest.raises(SettingError, match="ranked by its rank column 'rank'"):
        sqlndcg.evaluate(RUN.drop(columns="score"), QRELS, ["rr"], lower_is_better=True)


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_distances_keep_each_lists_top_k_from_the_lowest(engine):
    """With every metric at a cutoff, each list's top k is kept by the key alone before ranking (list_cut): under
    lower_is_better the k lowest distances, ties at the k-th included."""
    metrics = ["ndcg@2", "p@2", "rr@2", "ap@2"]
    con = None if engine == "duckdb" else sqlite3.connect(":memory:")
    got = sqlndcg.evaluate(DISTANCES, LABELS, metrics, group_by="system", lower_is_better=True, con=con)
    want = sqlndcg.evaluate(DISTANCES.assign(score=-DISTANCES.score), LABELS, metrics, group_by="system")
    assert ("top_lists" if engine == "duckdb" else "list_cut") in got.sql
    assert flat(keyed(got, metrics)) == pytest.approx(flat(keyed(want, metrics)), abs=1e-15)
    # x, q1: a (0.1), e (0.2, label 3) in the top 2: P@2 = 1/2, RR@2 = 1/2; y, q1: a and b move down (+0.25), so
    # e (0.2) ranks first: RR@2 = 1
    assert keyed(got, ["p@2", "rr@2"])[("x", "q1")] == (0.5, 0.5)
    assert keyed(got, ["rr@2"])[("y", "q1")] == (1.0,)
