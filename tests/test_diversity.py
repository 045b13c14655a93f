"""The diversity measures (sqlndcg.diversity, sql/macros/diversity/diversity.sql) against ndeval itself: pyndeval
(which wraps ndeval.c) per query and measure on seeded TREC-style data, and `sqlndcg ndeval` byte for byte against
ndeval 4.5 built from its source (tests/ndeval/); the hand-computed example of docs/diversity.md; the errors; and
every engine the tests run giving DuckDB's numbers (marked engine)."""

from __future__ import annotations

import math
import random
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import sqlndcg

from engine_parity import engine_tests

import pyndeval  # the reference (test extra): missing, the tests fail rather than skip

NDEVAL_SOURCE = Path(__file__).parent / "ndeval" / "ndeval.c"
#: sqlndcg's name -> pyndeval's.
PYNDEVAL = {"err_ia": "ERR-IA", "nerr_ia": "nERR-IA", "alpha_dcg": "alpha-DCG", "alpha_ndcg": "alpha-nDCG",
            "p_ia": "P-IA", "strec": "strec", "nrbp": "NRBP", "nnrbp": "nNRBP", "map_ia": "MAP-IA"}
CUTOFFS = (1, 2, 3, 5, 10, 15, 20)
ALL_METRICS = [f"{kind}@{k}" for kind in ("err_ia", "nerr_ia", "alpha_dcg", "alpha_ndcg", "p_ia", "strec")
               for k in CUTOFFS] + ["nrbp", "nnrbp", "map_ia"]


def make_data(seed: int, integer_ids: bool = False, grades=(-1, 0, 1, 2, 3)):
    """A run (query_id, doc_id, score: one decimal, so ties) and diversity judgments (query_id, intent, doc_id,
    rel): 1 to 6 intents per query, grades `grades`, judged documents the run lacks, unjudged retrieved ones, lists
    of 1 to 28 documents, a judged query with nothing relevant, run queries without judgments and judged queries
    without a run."""
    rnd = random.Random(seed)
    run, judged = [], []
    for q in range(1, 15):
        docs = [d * 7 + 3 if integer_ids else rnd.choice(["d", "D", "doc", "9", ""]) + str(d) for d in range(30)]
        docs = list(dict.fromkeys(docs))
        intents = rnd.randint(1, 6)
        if q != 14:  # 14: in the run only
            for d in rnd.sample(docs, rnd.randint(3, 18)):
                for i in rnd.sample(range(1, intents + 1), rnd.randint(1, intents)):
                    rel = 0 if q == 3 else rnd.choice(grades)  # 3: judged, nothing relevant
                    judged.append((q, i, d, rel))
        if q != 13:  # 13: judged only
            for d in rnd.sample(docs, rnd.randint(1, 28)):
                run.append((q, d, round(rnd.random() * 2, 1)))
    qid = (lambda q: q) if integer_ids else (lambda q: f"q{q}")
    return (pd.DataFrame([(qid(q), d, s) for q, d, s in run], columns=["query_id", "doc_id", "score"]),
            pd.DataFrame([(qid(q), i, d, r) for q, i, d, r in judged], columns=["query_id", "intent", "doc_id", "rel"]))


def ranked(run: pd.DataFrame) -> dict:
    """query -> its documents by score descending, equal scores by id descending as bytes (ndeval -traditional)."""
    out: dict = {}
    for q, d, s in run.itertuples(index=False):
        out.setdefault(q, []).append((s, str(d).encode(), d))
    return {q: [d for _, _, d in sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)] for q, rows in out.items()}


def reference(run, judged, metrics, alpha=0.5, beta=0.5) -> dict:
    """pyndeval's values, fed the ranking as scores -1, -2, ... so that its own tie rule (id ascending) plays no part."""
    names = [PYNDEVAL[m.split("@")[0]] + ("@" + m.split("@")[1] if "@" in m else "") for m in metrics]
    qrels = [pyndeval.SubtopicQrel(str(q), str(i), str(d), int(r)) for q, i, d, r in judged.itertuples(index=False)]
    scored = [pyndeval.ScoredDoc(str(q), str(d), -float(pos)) for q, docs in sorted(ranked(run).items(), key=str)
              for pos, d in enumerate(docs, 1)]
    got = pyndeval.ndeval(qrels, scored, measures=names, alpha=alpha, beta=beta)
    return {q: {m: values[n] for m, n in zip(metrics, names)} for q, values in got.items()}


@pytest.mark.parametrize("integer_ids", [False, True], ids=["text ids", "integer ids"])
@pytest.mark.parametrize("seed,alpha,beta", [(1, 0.5, 0.5), (2, 0.5, 0.5), (3, 0.25, 0.8), (4, 1.0, 0.5), (5, 0.0, 0.3)])
def test_every_measure_equals_pyndeval(seed, alpha, beta, integer_ids):
    run, judged = make_data(seed, integer_ids)
    got = sqlndcg.diversity(run, judged, metrics=ALL_METRICS, alpha=alpha, beta=beta).table.to_dicts()
    want = reference(run, judged, ALL_METRICS, alpha, beta)
    assert sorted(str(r["query_id"]) for r in got) == sorted(want)
    compared = 0
    for row in got:
        for m in ALL_METRICS:
            w, g = want[str(row["query_id"])][m], row[m]
            if math.isnan(w):
                assert g is None, (row["query_id"], m)
            else:
                assert g is not None and abs(g - w) <= 1e-15 * max(1.0, abs(w)), (row["query_id"], m, g, w)
            compared += 1
    assert compared == len(want) * len(ALL_METRICS) > 400


def test_the_greedy_ideal_breaks_equal_gains_by_the_larger_id():
    # a, b and c each cover one intent; d covers intents 1 and 2. Greedy: d (gain 2), then c (intent 3, gain 1)
    # ahead of a and b (0.5 each); with ids that sort differently, the same ideal.
    judged = pd.DataFrame({"query_id": 1, "intent": [1, 2, 3, 1, 2], "doc_id": ["a", "b", "c", "d", "d"], "rel": 1})
    run = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    got = sqlndcg.diversity(run, judged, metrics=["alpha_ndcg@3", "nnrbp"]).table.to_dicts()[0]
    want = reference(run, judged, ["alpha_ndcg@3", "nnrbp"])["1"]
    assert got["alpha_ndcg@3"] == pytest.approx(want["alpha_ndcg@3"], abs=1e-15)
    assert got["nnrbp"] == pytest.approx(want["nnrbp"], abs=1e-15)


def test_hand_computed_example_of_the_docs():
    """docs/diversity.md, "A worked example": the values written there."""
    run = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
    judged = pd.DataFrame({"query_id": 1, "intent": [1, 2, 1, 3, 2],
                           "doc_id": ["a", "a", "b", "c", "e"], "rel": [1, 2, 1, 1, 1]})
    row = sqlndcg.diversity(run, judged, metrics=["alpha_dcg@2", "alpha_ndcg@2", "err_ia@2", "p_ia@2", "strec@2",
                                                  "strec@3", "map_ia", "nrbp"]).table.to_dicts()[0]
    l3 = math.log(2) / math.log(3)
    assert row["alpha_dcg@2"] == pytest.approx((2 + 0.5 * l3) / (3 + 1.5 * l3), abs=1e-15)
    assert row["alpha_ndcg@2"] == pytest.approx((2 + 0.5 * l3) / (2 + 1 * l3), abs=1e-15)
    assert row["err_ia@2"] == pytest.approx((2 + 0.5 / 2) / (3 + 1.5 / 2), abs=1e-15)
    assert (row["p_ia@2"], row["strec@2"], row["strec@3"]) == (pytest.approx(3 / 6), pytest.approx(2 / 3), 1.0)
    assert row["map_ia"] == pytest.approx((((1 + 1) / 2) + (1 / 2) + 1 / 3) / 3, abs=1e-15)
    assert row["nrbp"] == pytest.approx((1 - 0.25) / 3 * (2 + 0.5 * 0.5 + 1 * 0.25), abs=1e-15)
    more = sqlndcg.diversity(run, judged, metrics=["nerr_ia@2", "nnrbp"]).table.to_dicts()[0]
    assert more["nerr_ia@2"] == pytest.approx(0.9, abs=1e-15)
    assert more["nnrbp"] == pytest.approx(2.5 / (2 + 0.5 + 0.125 + 0.0625), abs=1e-15)


@pytest.fixture(scope="session")
def ndeval_binary(tmp_path_factory) -> Path:
    assert shutil.which("gcc"), "gcc builds ndeval from its vendored source (.ci/run installs it)"
    out = tmp_path_factory.mktemp("ndeval") / "ndeval"
    subprocess.run(["gcc", "-O2", "-o", str(out), str(NDEVAL_SOURCE), "-lm"], check=True, capture_output=True)
    return out


def write_trec(tmp_path: Path, seed: int, traditional: bool):
    """The seeded data as ndeval's files: integer topics, grades 0..3 (ndeval reads no negative label), a rank
    field that disagrees with the scores (ndeval ranks by it unless -traditional), topic 14 in the run only."""
    run, judged = make_data(seed, grades=(0, 1, 2, 3))
    qrels, runfile = tmp_path / f"q{seed}.txt", tmp_path / f"r{seed}.txt"
    qrels.write_text("".join(f"{int(q[1:])} {i} {d} {r}\n" for q, i, d, r in judged.itertuples(index=False)))
    rnd = random.Random(seed)
    lines = []
    for q, docs in ranked(run).items():
        ranks = list(range(1, len(docs) + 1))
        rnd.shuffle(ranks)
        scores = dict(zip(run.doc_id[run.query_id == q], run.score[run.query_id == q]))
        lines += [f"{int(q[1:])} Q0 {d} {r} {scores[d]} run{seed}\n" for d, r in zip(docs, ranks)]
    runfile.write_text("".join(lines))
    return qrels, runfile


@pytest.mark.parametrize("options", [[], ["-traditional"], ["-alpha", "0.25", "-beta", "0.75"], ["-M", "7"], ["-c"]],
                         ids=lambda o: " ".join(o) or "defaults")
@pytest.mark.parametrize("seed", [1, 2])
def test_ndeval_command_prints_ndevals_bytes(ndeval_binary, tmp_path, seed, options):
    qrels, runfile = write_trec(tmp_path, seed, "-traditional" in options)
    want = subprocess.run([str(ndeval_binary), *options, str(qrels), str(runfile)], capture_output=True, check=True).stdout
    mine = subprocess.run(["python", "-m", "sqlndcg", "ndeval", *options, str(qrels), str(runfile)],
                          capture_output=True, check=True, env=_env()).stdout
    assert mine == want
    assert want.count(b"\n") == 1 + 13 + 1 and b"-nan" in want  # the header, 13 run topics (3: nothing relevant), amean


def _env() -> dict:
    import os
    import sys

    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}


def test_ndeval_preset_ranks_by_the_rank_column_and_reads_ndeval_names():
    run = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b"], "score": [1.0, 2.0], "rank": [1, 2]})
    judged = pd.DataFrame({"query_id": 1, "intent": [1, 2], "doc_id": ["a", "b"], "rel": [1, 0]})
    by_rank = sqlndcg.diversity(run, judged, metrics=["P-IA@1", "alpha-nDCG@1"], preset="ndeval").table.to_dicts()[0]
    by_score = sqlndcg.diversity(run, judged, metrics=["p_ia@1"]).table.to_dicts()[0]
    assert (by_rank["p_ia@1"], by_rank["alpha_ndcg@1"], by_score["p_ia@1"]) == (1.0, 1.0, 0.0)


def test_trec_diversity_qrels_file_is_read_with_its_intent(tmp_path):
    qrels = tmp_path / "div.qrels"
    qrels.write_text("1 1 a 1\n1 2 b 1\n1 2 a 0\n")
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert sqlndcg.diversity(run, str(qrels), metrics=["strec@1", "strec@2"]).table.rows == (("1", 0.5, 1.0),)


def test_errors():
    run = pd.DataFrame({"query_id": [1], "doc_id": ["a"], "score": [1.0]})
    plain = pd.DataFrame({"query_id": [1], "doc_id": ["a"], "rel": [1]})
    judged = plain.assign(intent=1)
    with pytest.raises(sqlndcg.InputError, match="no intent column 'intent'.*intent="):
        sqlndcg.diversity(run, plain, metrics=["alpha_ndcg@10"])
    with pytest.raises(sqlndcg.InputError, match="no intent column 'topic'"):
        sqlndcg.diversity(run, judged, intent="topic")
    for bad in (-0.1, 1.5, "x"):
        with pytest.raises(sqlndcg.SettingError, match="alpha must be a number from 0 to 1"):
            sqlndcg.diversity(run, judged, alpha=bad)
    with pytest.raises(sqlndcg.SettingError, match="beta must be"):
        sqlndcg.diversity(run, judged, beta=2)
    with pytest.raises(sqlndcg.MetricError, match="cutoff from 1 to 20"):
        sqlndcg.diversity(run, judged, metrics=["alpha_ndcg@21"])
    with pytest.raises(sqlndcg.MetricError, match="cutoff from 1 to 20"):
        sqlndcg.diversity(run, judged, metrics=["alpha_ndcg"])
    with pytest.raises(sqlndcg.MetricError, match="takes no cutoff"):
        sqlndcg.diversity(run, judged, metrics=["nrbp@5"])
    with pytest.raises(sqlndcg.MetricError, match="unknown metric 'ndcg@5'"):
        sqlndcg.diversity(run, judged, metrics=["ndcg@5"])
    with pytest.raises(sqlndcg.SettingError, match="preset must be 'ndeval'"):
        sqlndcg.diversity(run, judged, preset="trec_eval")
    with pytest.raises(sqlndcg.DataError, match="triples occur more than once"):
        sqlndcg.diversity(run, pd.concat([judged, judged]))
    with pytest.raises(sqlndcg.DataError, match="rel"):
        sqlndcg.diversity(run, judged.assign(rel=[float("nan")]))


def test_evaluate_hands_diversity_lists_to_diversity():
    run, judged = make_data(1)
    via = sqlndcg.evaluate(run, judged, metrics=["alpha_ndcg@10", "nrbp"])
    direct = sqlndcg.diversity(run, judged, metrics=["alpha_ndcg@10", "nrbp"])
    assert via.table.rows == direct.table.rows
    with pytest.raises(sqlndcg.MetricError, match="diversity measures"):
        sqlndcg.evaluate(run, judged, metrics=["alpha_ndcg@10", "ndcg@10"])


def test_dbt_render_of_the_entry_macro():
    from sqlndcg.core import templates

    run = {"sql": "runs", "label": "run", "columns": [{"name": n, "type": t, "class": c} for n, t, c in
                                                      [("query_id", "INTEGER", "integer"), ("doc_id", "VARCHAR", "text"),
                                                       ("score", "DOUBLE", "number")]]}
    judged = {"sql": "qrels", "label": "judgments", "columns": [{"name": n, "type": t, "class": c} for n, t, c in
              [("query_id", "INTEGER", "integer"), ("intent", "INTEGER", "integer"), ("doc_id", "VARCHAR", "text"),
               ("rel", "INTEGER", "integer")]]}
    plan = templates.diversity_plan(run, judged, {"metrics": ["alpha_ndcg@10"]})
    assert plan["rounds"] == 10 and "_s10 AS" in templates.diversity_sql(plan) and "_s11" not in templates.diversity_sql(plan)
    plan = templates.diversity_plan(run, judged, {"metrics": ["nnrbp"]})
    assert plan["rounds"] == 65  # 1000 intents / (1 - 0.5) * 0.5^65 < 2^-54


# Every engine the tests run gives DuckDB's numbers.

def engine_check(con, load, label: str) -> None:
    for integer_ids in (False, True):
        run, judged = make_data(2, integer_ids)
        want = sqlndcg.diversity(run, judged, metrics=ALL_METRICS).table
        got = sqlndcg.diversity(load(con, f"div_run_{integer_ids:d}", run), load(con, f"div_qrels_{integer_ids:d}", judged),
                                metrics=ALL_METRICS, con=con).table
        same_table(got, want, label)
    # group_by (two systems' lists scored apart, as compare reads them), with queries='run'
    run, judged = make_data(3)
    both = pd.concat([run.assign(tag="a"), make_data(4)[0].assign(tag="b")], ignore_index=True)
    metrics = ["alpha_ndcg@5", "nerr_ia@10", "nnrbp", "map_ia", "p_ia@3", "strec@20"]
    for queries in ("both", "run"):
        want_res = sqlndcg.diversity(both, judged, metrics=metrics, group_by="tag", queries=queries)
        got_res = sqlndcg.diversity(load(con, "div_grouped_run", both), load(con, "div_grouped_qrels", judged),
                                    metrics=metrics, group_by="tag", queries=queries, con=con)
        same_table(got_res.table, want_res.table, f"{label} group_by, queries={queries}")
        same_table(got_res.summary, want_res.summary, f"{label} group_by summary, queries={queries}")


def same_table(got, want, label: str) -> None:
    assert list(got.columns) == list(want.columns), label
    assert len(got.rows) == len(want.rows), label
    for g, w in zip(got.rows, want.rows):
        for column, a, b in zip(got.columns, g, w):
            if isinstance(a, float) or isinstance(b, float):
                assert (a is None) == (b is None) and (a is None or math.isclose(a, b, abs_tol=1e-9)), (
                    label, w, column, a, b)
            else:
                assert str(a) == str(b), (label, w, column, a, b)


globals().update(engine_tests(engine_check))
