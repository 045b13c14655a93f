"""Beyond-accuracy measures (sqlndcg.beyond_accuracy, sql/macros/beyond/catalog.sql) against numpy references
written from the papers' definitions: catalog coverage (Ge et al. 2010), the Gini index of exposure over the whole
catalog (Fleder and Hosanagar 2009; computed here as the mean absolute difference, not the sorted-rank formula the
SQL uses), novelty as mean self-information (Zhou et al. 2010, Vargas and Castells 2011), intra-list diversity
(Ziegler et al. 2005, from pairs) and the long tail's share (Abdollahpouri et al. 2017, APLT), on random runs with
ties, short lists, text and integer ids and groups; the worked example of docs/beyond.md; the errors; the CLI;
evaluate's hand-over; and every engine the tests run giving DuckDB's numbers."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sqlndcg

from engine_parity import assert_same, engine_tests

METRICS = ["coverage@3", "gini@3", "novelty@3", "ild@3", "long_tail@3", "coverage@5", "gini@5", "novelty@5",
           "ild@5", "long_tail@5", "ild@1"]


def random_data(seed: int, ids: str = "text", items: int = 30) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A catalog (category among 4, popularity counts with ties) and a run of two systems, each 9 lists of 1 to 8
    items (short lists) with scores on a coarse grid (ties), every item in the catalog."""
    rng = np.random.default_rng(seed)
    names = list(range(101, 101 + items)) if ids == "int" else [f"i{n:03d}" for n in rng.permutation(items)]
    catalog = pd.DataFrame({"doc_id": names, "category": rng.choice(["a", "b", "c", "d"], items),
                            "popularity": rng.integers(1, 12, items)})
    rows = []
    for system in ("base", "new"):
        for q in range(9):
            size = int(rng.integers(1, 9))
            for d in rng.choice(items, size, replace=False):
                rows.append((system, f"u{q}" if ids == "text" else q, names[d], float(rng.integers(0, 4)) / 2))
    return pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"]), catalog


def top_k(run: pd.DataFrame, k: int) -> dict:
    """(system, list) -> its top k items, ranked by score descending, equal scores by item id descending."""
    out = {}
    for key, rows in run.groupby(["system", "query_id"]):
        ranked = sorted(zip(rows["score"], rows["doc_id"]), key=lambda t: (t[0], t[1]), reverse=True)
        out[key] = [d for _, d in ranked[:k]]
    return out


def reference(run: pd.DataFrame, items: pd.DataFrame, k: int, head_share: float = 0.2) -> tuple[dict, dict]:
    """Per (system, list) and per system, each measure at k, from the definitions."""
    lists = top_k(run, k)
    n = len(items)
    share = dict(zip(items["doc_id"], items["popularity"] / items["popularity"].sum()))
    category = dict(zip(items["doc_id"], items["category"]))
    by_popularity = sorted(zip(items["popularity"], items["doc_id"]), reverse=True)
    head = {d for _, d in by_popularity[:math.floor(head_share * n + 0.5)]}
    per_list, per_system = {}, {}
    for (system, q), top in lists.items():
        pairs = list(itertools.combinations(top, 2))
        per_list[(system, q)] = {
            "novelty": float(np.mean([-np.log2(share[d]) for d in top])),
            "ild": float(np.mean([category[a] != category[b] for a, b in pairs])) if pairs else None,
            "long_tail": float(np.mean([d not in head for d in top])),
        }
    for system in sorted(run["system"].unique()):
        tops = [top for (s, _), top in lists.items() if s == system]
        exposure = np.array([sum(d in top for top in tops) for d in items["doc_id"]], dtype=float)
        mad = np.abs(exposure[:, None] - exposure[None, :]).sum()
        per_system[system] = {"coverage": len({d for top in tops for d in top}) / n,
                              "gini": mad / (2 * n * n * exposure.mean())}
    return per_list, per_system


def t_interval(values: list) -> tuple:
    x = np.array([v for v in values if v is not None])
    if len(x) < 2:
        return float(x.mean()), None, None
    h = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return float(x.mean()), float(x.mean() - h), float(x.mean() + h)


def close(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12))


@pytest.mark.parametrize("ids", ["text", "int"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_measure_equals_the_numpy_reference(seed, ids):
    run, items = random_data(seed, ids)
    res = sqlndcg.beyond_accuracy(run, items, metrics=METRICS, group_by="system")
    rows = {(r["system"], r["query_id"]): r for r in res.per_query.to_dicts()}
    summary = {r["system"]: r for r in res.summary.to_dicts()}
    assert len(rows) == 18 and sorted(summary) == ["base", "new"]
    for k in (1, 3, 5):
        per_list, per_system = reference(run, items, k)
        for key, want in per_list.items():
            for kind in ("novelty", "ild", "long_tail") if k > 1 else ("ild",):
                assert close(rows[key][f"{kind}@{k}"], want[kind]), (key, kind, k, rows[key][f"{kind}@{k}"], want[kind])
        for system, want in per_system.items():
            got = summary[system]
            assert got["lists"] == 9
            if k == 1:
                assert got["ild@1"] is None and rows[(system, run["query_id"].iloc[0])]["ild@1"] is None
                continue
            for kind in ("coverage", "gini"):
                assert close(got[f"{kind}@{k}"], want[kind]), (system, kind, k)
            for kind in ("novelty", "ild", "long_tail"):
                mean, low, high = t_interval([v[kind] for (s, _), v in per_list.items() if s == system])
                assert close(got[f"{kind}@{k}"], mean)
                assert close(got[f"{kind}@{k}_ci_low"], low) and close(got[f"{kind}@{k}_ci_high"], high)


def test_gini_counts_items_never_recommended_and_matches_the_sorted_formula():
    run = pd.DataFrame({"query_id": [1, 2, 3], "doc_id": ["a", "a", "b"], "score": 1.0})
    items = pd.DataFrame({"doc_id": list("abcde")})
    got = sqlndcg.beyond_accuracy(run, items, metrics=["gini@1", "coverage@1"]).summary.to_dicts()[0]
    x = np.sort(np.array([2, 1, 0, 0, 0], dtype=float))
    i = np.arange(1, 6)
    assert got["gini@1"] == pytest.approx(((2 * i - 5 - 1) * x).sum() / (5 * x.sum()), abs=1e-15)
    assert got["gini@1"] == pytest.approx(2 / 3) and got["coverage@1"] == 0.4
    equal = pd.DataFrame({"query_id": [1, 2], "doc_id": ["a", "b"], "score": 1.0})
    assert sqlndcg.beyond_accuracy(equal, items.head(2), metrics=["gini@1"]).summary.to_dicts()[0]["gini@1"] == 0


def test_the_worked_example_of_the_docs():
    """docs/beyond.md, "A worked example": the numbers there, computed by hand."""
    run = pd.DataFrame({"system": ["A"] * 4 + ["B"] * 4, "query_id": ["u1", "u1", "u2", "u2"] * 2,
                        "doc_id": ["a", "b", "a", "c", "c", "d", "b", "e"],
                        "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    items = pd.DataFrame({"doc_id": list("abcde"), "category": ["x", "x", "y", "y", "z"],
                          "popularity": [8, 4, 2, 1, 1]})
    res = sqlndcg.beyond_accuracy(run, items, metrics=["coverage@2", "gini@2", "novelty@2", "ild@2", "long_tail@2"],
                                  group_by="system")
    a, b = res.summary.to_dicts()
    assert (a["system"], a["coverage@2"], a["gini@2"], a["novelty@2"], a["ild@2"], a["long_tail@2"]) == \
        ("A", 0.6, 0.5, 1.75, 0.5, 0.5)
    assert (b["system"], b["coverage@2"], b["gini@2"], b["novelty@2"], b["ild@2"], b["long_tail@2"]) == \
        ("B", 0.8, 0.2, 3.25, 0.5, 1.0)
    assert [r["novelty@2"] for r in res.per_query.to_dicts()] == [1.5, 2.0, 3.5, 3.0]


def test_the_example_tables_run_through_evaluate():
    rec, items = sqlndcg.example("recommendations"), sqlndcg.example("items")
    metrics = ["coverage@3", "gini@3", "novelty@3", "ild@3", "long_tail@3"]
    via = sqlndcg.evaluate(rec, None, metrics, items=items, group_by="system")
    direct = sqlndcg.beyond_accuracy(rec, items, metrics=metrics, group_by="system")
    assert via.summary.rows == direct.summary.rows and via.per_query.rows == direct.per_query.rows
    popular = {r["system"]: r for r in direct.summary.to_dicts()}
    assert popular["popular"]["novelty@3"] < popular["personal"]["novelty@3"]
    assert popular["popular"]["long_tail@3"] < popular["personal"]["long_tail@3"]
    # judgments given are not read: the same numbers
    assert sqlndcg.evaluate(rec, sqlndcg.example("qrels"), metrics, items=items, group_by="system").summary.rows \
        == direct.summary.rows


def test_head_share_and_ties_in_popularity():
    """Head: the round(head_share * n) most popular items, equal popularity by item id descending."""
    items = pd.DataFrame({"doc_id": list("abcdef"), "popularity": [5, 5, 5, 1, 1, 1]})
    run = pd.DataFrame({"query_id": 1, "doc_id": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1]})
    for share, want in [(0.2, 5 / 6), (0.25, 4 / 6), (0.34, 4 / 6), (0.5, 3 / 6), (0.9, 1 / 6)]:
        got = sqlndcg.beyond_accuracy(run, items, metrics=["long_tail@6"], head_share=share).per_query.to_dicts()[0]
        assert got["long_tail@6"] == pytest.approx(want), share
    # 0.2 * 6 = 1.2 -> 1 head item: the largest id of the most popular (c), so a and b are in the tail
    got = sqlndcg.beyond_accuracy(run, items, metrics=["long_tail@1", "long_tail@3"], head_share=0.2).per_query
    assert got.to_dicts()[0] == {"query_id": 1, "long_tail@1": 1.0, "long_tail@3": pytest.approx(2 / 3)}


def test_popularity_shares_and_columns_named():
    items = pd.DataFrame({"item": ["a", "b"], "genre": ["x", "y"], "plays": [0.75, 0.25]})
    run = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "s": [1.0, 2.0]})
    got = sqlndcg.beyond_accuracy(run, items, metrics=["novelty@2", "ild@2"], query_id="user", doc_id="item",
                                  score="s", category="genre", popularity="plays").per_query.to_dicts()[0]
    assert got == {"user": "u", "novelty@2": pytest.approx((-math.log2(0.75) - math.log2(0.25)) / 2), "ild@2": 1.0}


def small():
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    items = pd.DataFrame({"doc_id": ["a", "b", "c"], "category": ["x", "y", "x"], "popularity": [3, 2, 1]})
    return run, items


def test_items_missing_from_the_items_table_are_named():
    run, items = small()
    run = pd.concat([run, pd.DataFrame({"query_id": [2, 2], "doc_id": ["zz", "yy"], "score": [1.0, 0.5]})])
    with pytest.raises(sqlndcg.DataError, match=r"2 item\(s\) of the run are not in the items table .*'yy', 'zz'"):
        sqlndcg.beyond_accuracy(run, items, metrics=["coverage@10"])


@pytest.mark.parametrize("metric, drop, match", [
    ("ild@3", "category", "no category column 'category'"),
    ("novelty@3", "popularity", "no popularity column 'popularity'"),
    ("long_tail@3", "popularity", "no popularity column 'popularity'"),
])
def test_a_measure_needs_its_column(metric, drop, match):
    run, items = small()
    with pytest.raises(sqlndcg.InputError, match=match):
        sqlndcg.beyond_accuracy(run, items.drop(columns=[drop]), metrics=[metric])
    sqlndcg.beyond_accuracy(run, items.drop(columns=[drop]), metrics=["coverage@3", "gini@3"])  # they read neither


@pytest.mark.parametrize("metric, match", [
    ("coverage", "needs a cutoff"), ("coverage@0", "needs a cutoff"), ("gini@x", "needs a cutoff"),
    ("novelty@-1", "needs a cutoff"), ("serendipity@3", "unknown metric"), ("ild@3@4", "unknown metric"),
])
def test_bad_metrics(metric, match):
    run, items = small()
    with pytest.raises(sqlndcg.MetricError, match=match):
        sqlndcg.beyond_accuracy(run, items, metrics=[metric])


def test_bad_settings_and_rows():
    run, items = small()
    with pytest.raises(sqlndcg.MetricError, match="no metric"):
        sqlndcg.beyond_accuracy(run, items, metrics=[])
    for share in (0, 1, 1.5, True, "x"):
        with pytest.raises(sqlndcg.SettingError, match="head_share"):
            sqlndcg.beyond_accuracy(run, items, metrics=["long_tail@2"], head_share=share)
    with pytest.raises(sqlndcg.DataError, match="popularity.*not a positive number"):
        sqlndcg.beyond_accuracy(run, items.assign(popularity=[3, 0, 1]), metrics=["novelty@2"])
    with pytest.raises(sqlndcg.DataError, match="category.*NULL"):
        sqlndcg.beyond_accuracy(run, items.assign(category=["x", None, "y"]), metrics=["ild@2"])
    with pytest.raises(sqlndcg.DataError, match="item ids occur more than once"):
        sqlndcg.beyond_accuracy(run, pd.concat([items, items.head(1)]), metrics=["coverage@2"])
    with pytest.raises(sqlndcg.DataError, match="list holds each item once"):
        sqlndcg.beyond_accuracy(pd.concat([run, run.head(1)]), items, metrics=["coverage@2"])
    with pytest.raises(sqlndcg.InputError, match="no group column 'system'"):
        sqlndcg.beyond_accuracy(run, items, metrics=["coverage@2"], group_by="system")


def test_evaluate_hands_over_and_refuses_mixed_lists():
    run, items = small()
    with pytest.raises(sqlndcg.MetricError, match="evaluated apart"):
        sqlndcg.evaluate(run, None, ["ndcg@10", "coverage@10"], items=items)
    with pytest.raises(sqlndcg.MetricError, match="evaluated apart"):
        sqlndcg.evaluate(run, None, ["ndcg@10"], items=items)
    with pytest.raises(sqlndcg.SettingError, match="pass it as items="):
        sqlndcg.evaluate(run, None, ["coverage@10"])
    with pytest.raises(sqlndcg.SettingError, match="k1 is not a setting of the beyond-accuracy measures"):
        sqlndcg.evaluate(run, None, ["coverage@10"], items=items, k1=1.2)
    got = sqlndcg.evaluate(run, None, "coverage@1", items=items, head_share=0.5)
    assert got.summary.to_dicts() == [{"lists": 1, "coverage@1": pytest.approx(1 / 3)}]


def test_the_command_line(tmp_path, capsys):
    from sqlndcg.cli import main

    run, items = random_data(5)
    run.to_csv(tmp_path / "run.csv", index=False)
    items.to_csv(tmp_path / "items.csv", index=False)
    args = ["beyond", "--run", str(tmp_path / "run.csv"), "--items", str(tmp_path / "items.csv"),
            "-m", "coverage@3,gini@3", "-m", "novelty@3", "--group-by", "system", "--format", "json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    want = sqlndcg.beyond_accuracy(run, items, metrics=["coverage@3", "gini@3", "novelty@3"], group_by="system")
    rows = got if isinstance(got, list) else got.get("rows", got)
    assert [r["gini@3"] for r in rows] == pytest.approx([r["gini@3"] for r in want.summary.to_dicts()])
    assert main(args[:-2] + ["--per-list", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "system,query_id,novelty@3" and len(lines) == 19
    assert main(["beyond", "--run", str(tmp_path / "run.csv"), "--items", str(tmp_path / "items.csv"),
                 "-m", "coverage@0"]) == 2
    assert "needs a cutoff" in capsys.readouterr().err


# --- every engine the tests run gives DuckDB's numbers -------------------------------------------------------------

def check_engine(con, load, label: str) -> None:
    """`load(con, name, frame) -> input` puts a frame into the engine; every table is DuckDB's."""
    for ids in ("text", "int"):
        run, items = random_data(7, ids)
        there_run, there_items = load(con, f"beyond_run_{ids}", run), load(con, f"beyond_items_{ids}", items)
        for group_by in ("system", None):
            data = (run, there_run) if group_by else (run[run.system == "new"], load(con, f"beyond_new_{ids}", run[run.system == "new"]))
            want = sqlndcg.beyond_accuracy(data[0], items, metrics=METRICS, group_by=group_by)
            got = sqlndcg.beyond_accuracy(data[1], there_items, metrics=METRICS, group_by=group_by, con=con)
            assert_same(got.summary, want.summary, f"{label} {ids} summary")
            assert_same(got.per_query, want.per_query, f"{label} {ids} per list")
    run, items = random_data(7)
    with pytest.raises(sqlndcg.DataError) as there:
        sqlndcg.beyond_accuracy(load(con, "beyond_run_missing", run), load(con, "beyond_items_short", items.head(5)),
                                metrics=["coverage@3"], group_by="system", con=con)
    with pytest.raises(sqlndcg.DataError) as here:
        sqlndcg.beyond_accuracy(run, items.head(5), metrics=["coverage@3"], group_by="system")
    assert str(there.value).split(":", 1)[1] == str(here.value).split(":", 1)[1]


globals().update(engine_tests(check_engine))



# --- dbt: the entry macro renders the same statement ----------------------------------------------------------------

@pytest.mark.engine
def test_the_dbt_macro_equals_python(tmp_path):
    """sqlndcg.beyond_accuracy(run=ref(..), items=ref(..), metrics=[...]) in a dbt project on DuckDB: the summary
    per system and (per_list=true) the per-list table equal the Python API's."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import duckdb

    repo = Path(__file__).resolve().parent.parent
    project = tmp_path / "proj"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    for name in ("recommendations", "items"):
        (project / "seeds" / f"{name}.csv").write_text(Path(sqlndcg.example(name)).read_text())
    (project / "dbt_project.yml").write_text(
        "name: beyond_test\nversion: '1.0.0'\nconfig-version: 2\nprofile: beyond_test\n"
        "models:\n  beyond_test:\n    +materialized: table\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {repo}\n")
    (project / "profiles.yml").write_text(
        f"beyond_test:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{project / 'db.duckdb'}'\n      threads: 1\n")
    metrics = ["coverage@3", "gini@3", "novelty@3", "ild@3", "long_tail@3"]
    call = f"run=ref('recommendations'), items=ref('items'), metrics={metrics}, group_by='system'"
    (project / "models" / "beyond_summary.sql").write_text("{{ sqlndcg.beyond_accuracy(" + call + ") }}\n")
    (project / "models" / "beyond_lists.sql").write_text("{{ sqlndcg.beyond_accuracy(" + call + ", per_list=true) }}\n")
    dbt = str(Path(sys.executable).with_name("dbt"))
    for args in (["deps"], ["build"]):
        done = subprocess.run([dbt, *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                              capture_output=True, text=True, cwd=project, timeout=600, env={**os.environ})
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    with duckdb.connect(str(project / "db.duckdb"), read_only=True) as con:
        want = sqlndcg.beyond_accuracy("recommendations", "items", metrics=metrics, group_by="system", con=con)
        got = con.execute('SELECT * FROM "beyond_summary" ORDER BY 1').fetchall()
        lists = con.execute('SELECT * FROM "beyond_lists" ORDER BY 1, 2').fetchall()
    assert [tuple(r) for r in got] == [tuple(r) for r in want.summary.rows]
    assert [tuple(r) for r in lists] == [tuple(r) for r in want.per_query.rows]


def test_accuracy_and_diversity_side_by_side():
    run, items = random_data(4)
    qrels = run.assign(rel=(run["score"] > 0.5).astype(int))[["query_id", "doc_id", "rel"]].drop_duplicates(
        ["query_id", "doc_id"])
    accuracy = sqlndcg.evaluate(run, qrels, ["ndcg@3", "p@3"], group_by="system")
    beyond = sqlndcg.beyond_accuracy(run, items, metrics=["coverage@3", "novelty@3"], group_by="system")
    table = beyond.beside(accuracy)
    assert table.columns == ("system", "queries", "ndcg@3", "p@3", "lists", "coverage@3", "novelty@3")
    for row, a, b in zip(table.to_dicts(), accuracy.summary.to_dicts(), beyond.summary.to_dicts()):
        assert (row["system"], row["ndcg@3"], row["coverage@3"], row["novelty@3"]) == \
            (a["system"], a["ndcg@3"], b["coverage@3"], b["novelty@3"])
    with pytest.raises(sqlndcg.SettingError, match="group_by"):
        beyond.beside(sqlndcg.evaluate(run[run.system == "new"], qrels, ["ndcg@3"]))


def test_compare_points_to_beyond_accuracy():
    run, items = random_data(6)
    qrels = run.assign(rel=1)[["query_id", "doc_id", "rel"]].drop_duplicates(["query_id", "doc_id"])
    with pytest.raises(sqlndcg.MetricError, match="novelty@3 is a beyond-accuracy measure.*beyond_accuracy"):
        sqlndcg.compare(run, qrels, ["ndcg@3", "novelty@3"], system="system", baseline="base")
