"""positions(): per group and rank position, the mean label, mean gain, share relevant and share judged, equal to
a plain-Python computation on data with tied scores, byte-order-sensitive ids, unjudged and unusable documents."""

from __future__ import annotations

import math
import random
import sys

import pandas as pd
import pytest

import sqlndcg
from sqlndcg import InputError, SettingError
from sqlndcg.core import render
from sqlndcg.verbs.positions import MissingDependency

NAMES = ["dóc", "DOC", "Doc", "doc", "a", "B", "b", "Z", "ä", "e1", "e10", "e2"]


def data(seed: int = 3):
    """Two systems; scores drawn from few values (many ties); labels -1..3 on a sample of documents; q7 in the
    run without any judgment; q8 judged but missing from the run."""
    rng = random.Random(seed)
    run, qrels = [], []
    for system in ("sysA", "sysB"):
        for q in range(1, 8):
            for i in rng.sample(range(len(NAMES)), rng.randint(2, len(NAMES))):
                run.append((system, f"q{q}", NAMES[i], rng.choice([0.5, 0.5, 0.7, 0.9, 1.25])))
    for q in list(range(1, 7)) + [8]:
        for i in rng.sample(range(len(NAMES)), 7):
            qrels.append((f"q{q}", NAMES[i], rng.choice([-1, 0, 0, 1, 2, 3])))
    return (pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]),
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"]))


def plain_positions(run: pd.DataFrame, qrels: pd.DataFrame, k: int, gain, threshold: float):
    """The same table in plain Python: rank by score desc, then doc id desc in UTF-8 byte order."""
    labels = {(q, d): r for q, d, r in qrels.itertuples(index=False)}
    judged_queries = set(qrels["query_id"])
    at = {}
    for (system, query), rows in run.groupby(["system", "query_id"]):
        if query not in judged_queries:
            continue
        ranked = sorted(rows.itertuples(index=False), key=lambda r: (r.score, r.doc_id.encode()), reverse=True)
        for pos, r in enumerate(ranked[:k], start=1):
            rel = labels.get((query, r.doc_id))
            at.setdefault((system, pos), []).append(rel)
    out = {}
    for key, rels in at.items():
        n = len(rels)
        judged = [r for r in rels if r is not None and r >= 0]
        out[key] = {
            "lists": n,
            "mean_label": sum(max(r or 0, 0) for r in rels) / n,
            "mean_gain": sum(gain(r) if r is not None and r > 0 else 0 for r in rels) / n,
            "share_relevant": sum(1 for r in rels if r is not None and r >= threshold) / n,
            "share_judged": len(judged) / n,
            "mean_judged_label": sum(judged) / len(judged) if judged else None,
        }
    return out


@pytest.mark.parametrize("gain, fn, threshold", [
    ("exponential", lambda r: 2 ** r - 1, 1),
    ("linear", lambda r: r, 2),
    ({1: 1, 2: 4, 3: 9}, lambda r: {1: 1, 2: 4, 3: 9}[r], 3),
])
def test_positions_equal_a_plain_computation(gain, fn, threshold):
    run, qrels = data()
    got = sqlndcg.positions(run, qrels, k=8, group_by="system", gain=gain, threshold=threshold)
    want = plain_positions(run, qrels, 8, fn, threshold)
    assert {(r["system"], r["position"]) for r in got} == set(want)
    for row in got:
        expected = want[(row["system"], row["position"])]
        for column, value in expected.items():
            if value is None:
                assert row[column] is None
            else:
                assert math.isclose(row[column], value, abs_tol=1e-12), (row, column, value)
    assert got.settings["k"] == 8 and got.settings["threshold"] == threshold


def test_the_ranking_is_evaluates_ranking():
    """The mean gain at each position, discounted and summed over positions 1..k, is the mean DCG@k."""
    run, qrels = data(5)
    pos = sqlndcg.positions(run, qrels, k=5, group_by="system", gain="linear")
    res = sqlndcg.evaluate(run, qrels, ["dcg@5"], group_by="system", gain="linear", queries="both")
    for system in ("sysA", "sysB"):
        dcg = sum(r["mean_gain"] * r["lists"] / math.log2(r["position"] + 1) for r in pos if r["system"] == system)
        per_query = [r["dcg@5"] for r in res.per_query if r["system"] == system]
        assert math.isclose(dcg / len(per_query), sum(per_query) / len(per_query), abs_tol=1e-12)


def test_ties_average_spreads_a_tied_groups_values_over_its_positions():
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "c"], "rel": [2, 0]})
    got = sqlndcg.positions(run, qrels, k=3, ties="average", gain="linear")
    assert [r["mean_gain"] for r in got] == [0.0, 1.0, 1.0]
    got = sqlndcg.positions(run, qrels, k=3, gain="linear")  # doc_id: c before b
    assert [r["mean_gain"] for r in got] == [0.0, 0.0, 2.0]


def test_ties_rank_uses_the_runs_ranks():
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [3, 1, 2]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "rel": [1]})
    got = sqlndcg.positions(run, qrels, k=3, ties="rank")
    assert [r["share_relevant"] for r in got] == [0.0, 0.0, 1.0]


def test_the_plot_draws_one_line_per_group(tmp_path):
    run, qrels = data()
    pos = sqlndcg.positions(run, qrels, k=4, group_by="system")
    ax = pos.plot("share_relevant", path=tmp_path / "positions.png")
    assert len(ax.get_lines()) == 2 and (tmp_path / "positions.png").stat().st_size > 0
    with pytest.raises(sqlndcg.SqlndcgError, match="no column 'ndcg'"):
        pos.plot("ndcg")


def test_the_plot_without_matplotlib_says_so(monkeypatch):
    run, qrels = data()
    pos = sqlndcg.positions(run, qrels, k=2, group_by="system")
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingDependency, match="matplotlib, which is not installed"):
        pos.plot()
    assert len(pos.to_text()) > 0  # the table itself needs nothing


def test_bad_settings_and_inputs_are_refused():
    run, qrels = data()
    with pytest.raises(SettingError, match=r"k must be a whole number"):
        sqlndcg.positions(run, qrels, k=0)
    with pytest.raises(SettingError, match=r"gain='square' is not allowed; choose one of 'exponential', 'linear'"):
        sqlndcg.positions(run, qrels, gain="square")
    with pytest.raises(InputError, match=r"run \(DataFrame\) has no group_by column 'tag'"):
        sqlndcg.positions(run, qrels, group_by="tag")
    with pytest.raises(sqlndcg.DataError, match=r"column 'rel' is NaN or infinite"):
        sqlndcg.positions(run, qrels.assign(rel=[float("inf")] + list(qrels["rel"][1:])), group_by="system")
    with pytest.raises(sqlndcg.DataError, match=r"occur more than once"):
        sqlndcg.positions(run, qrels, group_by=())  # two systems in one run: repeated (query, document) pairs
    with pytest.raises(SettingError, match=r"positions: unknown setting 'metrics'"):
        render.call("_positions_plan", {}, {}, 3, {"metrics": ["ndcg"]})


def test_the_dbt_entry_macro_renders_from_relations(monkeypatch):
    import duckdb

    from sqlndcg.core.render import _Adapter

    class Column:
        def __init__(self, name, kind):
            self.name, self.dtype, self.kind = name, kind, kind

        def is_integer(self): return False
        def is_number(self): return self.kind == "double"
        def is_float(self): return self.kind == "double"
        def is_numeric(self): return False
        def is_string(self): return self.kind == "varchar"

    class Relation:
        def __init__(self, name, columns):
            self.name, self.columns = name, columns

        def __str__(self):
            return self.name

    run, qrels = data()
    run_rel = Relation('"run"', [Column(c, "double" if c == "score" else "varchar") for c in run.columns])
    qrels_rel = Relation('"qrels"', [Column("query_id", "varchar"), Column("doc_id", "varchar"),
                                     Column("rel", "double")])
    monkeypatch.setattr(_Adapter, "get_columns_in_relation", lambda self, relation: relation.columns, raising=False)
    con = duckdb.connect()
    con.register("r", run)
    con.register("j", qrels)
    con.execute("CREATE TABLE run AS SELECT * FROM r")
    con.execute("CREATE TABLE qrels AS SELECT * FROM j")
    sql = render.call("positions", run=run_rel, judgments=qrels_rel, k=4, group_by=["system"])
    got = con.execute(sql).fetchall()
    want = sqlndcg.positions("run", "qrels", k=4, group_by="system", con=con)
    assert [tuple(r) for r in got] == list(want.rows)
