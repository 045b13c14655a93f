"""Do label sources rank systems the same way? (sqlndcg.system_order; sql/macros/judgments/system_order.sql): the
means equal evaluate's on the queries every source judged; Kendall's tau-b equals scipy.stats.kendalltau (ties in
both orders); tau-AP equals a numpy implementation written from Yilmaz, Aslam & Robertson (SIGIR 2008,
tests/system_order_reference.py, with the tie rule of docs/judgments.md); the flips are the discordant pairs and
their p-values are sqlndcg.compare's per source and scipy.stats.ttest_rel's; text and integer system ids, a source
missing some queries, group_by (of any type); the errors; the command line; every engine of engine_parity gives
DuckDB's numbers."""

from __future__ import annotations

import functools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau, ttest_rel

import sqlndcg
from sqlndcg import DataError, InputError, SettingError

from engine_parity import assert_same, engine_tests
from system_order_reference import flipped_pairs, tau_ap, tau_ap_paper

ROOT = Path(__file__).resolve().parents[1]


def random_data(seed: int, systems=("s1", "s2", "s3", "s4", "s5", "s6"), queries: int = 12, docs: int = 6,
                noise: float = 0.4):
    """Runs of several systems (the last a copy of the one before it: equal means, a tie in both orders) and
    judgments of two sources: human grades 0..3, the model's the human ones changed at random in a share ``noise``."""
    rng = np.random.default_rng(seed)
    runs, labels = [], []
    for q in range(queries):
        qid = f"q{q:02d}"
        grades = rng.integers(0, 4, size=docs)
        model = np.where(rng.random(docs) < noise, rng.integers(0, 4, size=docs), grades)
        for d in range(docs):
            labels.append(("human", qid, f"d{d}", int(grades[d])))
            labels.append(("model", qid, f"d{d}", int(model[d])))
        previous = None
        for i, s in enumerate(systems):
            scores = rng.random(docs) if i < len(systems) - 1 else previous
            previous = scores
            runs.extend((s, qid, f"d{d}", float(scores[d])) for d in range(docs))
    return (pd.DataFrame(runs, columns=["system", "query_id", "doc_id", "score"]),
            pd.DataFrame(labels, columns=["source", "query_id", "doc_id", "rel"]))


def expected_means(runs, labels, metric: str, shared: bool = True, group_by=()):
    """Per source: {(group..., system): mean} from evaluate's per-query values on that source's labels (the queries
    every source judged when ``shared``)."""
    if shared:
        per_source = labels.groupby("query_id")["source"].nunique()
        keep = set(per_source[per_source == labels.source.nunique()].index)
        labels = labels[labels.query_id.isin(keep)]
    out = {}
    for source, part in labels.groupby("source"):
        res = sqlndcg.evaluate(runs, part.drop(columns="source"), [metric], group_by=[*group_by, "system"])
        pq = res.per_query.to_pandas()
        out[source] = {k if isinstance(k, tuple) else (k,): v
                       for k, v in pq.groupby([*group_by, "system"])[metric].mean().items()}
    return out


def test_means_tau_b_tau_ap_and_flips_equal_the_references():
    runs, labels = random_data(1)
    res = sqlndcg.system_order(runs, labels, ["ndcg@5", "p@3"], permutations=200, resamples=200)
    assert res.settings["query_set"] == "shared"
    for metric in ("ndcg@5", "p@3"):
        want = expected_means(runs, labels, metric)
        got = {(r["source"], r["system"]): (r["mean"], r["rank"], r["queries"])
               for r in res.means.to_dicts() if r["metric"] == metric}
        systems = sorted(want["human"])
        for source in ("human", "model"):
            means = [want[source][s] for s in systems]
            for s, m in zip(systems, means):
                mean, rank, queries = got[(source, s[0])]
                assert mean == pytest.approx(m, abs=1e-12)
                mine = [v[0] for k, v in got.items() if k[0] == source]
                # means equal up to float rounding share the best rank
                assert rank == 1 + sum(other - mean > 1e-12 * max(1, abs(other) + abs(mean)) for other in mine)
                assert queries == 12
        # the references see means equal up to float rounding as equal, as the SQL does
        ref = [round(got[("human", s[0])][0], 10) for s in systems]
        est = [round(got[("model", s[0])][0], 10) for s in systems]
        assert ref[-1] == ref[-2] and est[-1] == est[-2]  # the copied system: a tie in both orders
        (row,) = [r for r in res.correlation.to_dicts() if r["metric"] == metric]
        assert row["source"] == "model" and row["systems"] == 6
        assert row["tau_b"] == pytest.approx(kendalltau(ref, est).statistic, abs=1e-12)
        assert row["tau_ap"] == pytest.approx(tau_ap(ref, est), abs=1e-12)
        flips = flipped_pairs(ref, est)
        assert row["flipped"] == len(flips)
        got_flips = {(r["system_a"], r["system_b"]) for r in res.flips.to_dicts() if r["metric"] == metric}
        assert got_flips == {(systems[a][0], systems[b][0]) for a, b in flips}


def test_tau_ap_without_ties_is_the_papers_and_the_hand_checked_values():
    rng = np.random.default_rng(3)
    for _ in range(20):
        truth, estimate = rng.random(7), rng.random(7)
        assert tau_ap(truth, estimate) == pytest.approx(tau_ap_paper(truth, estimate), abs=1e-12)
    # truth 1 > 2 > 3 > 4; the estimate swaps the top two (1/3) or the bottom two (7/9); tau is 2/3 for both
    assert tau_ap_paper([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(1 / 3)
    assert tau_ap_paper([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(7 / 9)


def flip_case(ids="text"):
    """Three systems on six queries of two documents: A puts x first, B y first, C x first on the odd queries.
    People grade x higher, the model y: A beats B under people, B beats A under the model."""
    queries = [f"q{i}" for i in range(1, 7)]
    human = {"x": [3, 2, 3, 1, 2, 0], "y": [0, 1, 0, 2, 1, 1]}
    model = {"x": [0, 1, 1, 0, 2, 0], "y": [2, 2, 1, 1, 0, 3]}
    names = {"A": "A", "B": "B", "C": "C"} if ids == "text" else {"A": 1, "B": 2, "C": 3}
    runs = []
    for i, q in enumerate(queries):
        for s, first in (("A", "x"), ("B", "y"), ("C", "x" if i % 2 == 0 else "y")):
            for d in ("x", "y"):
                runs.append((names[s], q, d, 2.0 if d == first else 1.0))
    labels = [(src, q, d, grades[d][i]) for src, grades in (("human", human), ("model", model))
              for i, q in enumerate(queries) for d in ("x", "y")]
    return (pd.DataFrame(runs, columns=["system", "query_id", "doc_id", "score"]),
            pd.DataFrame(labels, columns=["source", "query_id", "doc_id", "rel"]), names)


@pytest.mark.parametrize("ids", ["text", "int"])
def test_a_flipped_winner_with_compares_p_values_under_each_source(ids):
    runs, labels, names = flip_case(ids)
    res = sqlndcg.system_order(runs, labels, ["ndcg@2"], permutations=500, resamples=200)
    flips = res.flips.to_dicts()
    assert (names["A"], names["B"]) in {(r["system_a"], r["system_b"]) for r in flips}
    for r in flips:
        assert type(r["system_a"]) is type(names["A"])
        assert r["reference_difference"] > 0 > r["source_difference"]
        for src, column in (("human", "reference_p"), ("model", "source_p")):
            part = labels[labels.source == src].drop(columns="source")
            c = sqlndcg.compare(runs, part, ["ndcg@2"], baseline=r["system_b"], permutations=500, resamples=200)
            (row,) = [x for x in c.to_dicts() if x["system"] == r["system_a"]]
            assert r[column] == pytest.approx(row["t_p"], abs=1e-12)
            pq = c.per_query.to_pandas().pivot(index="query_id", columns="system", values="ndcg@2")
            assert r[column] == pytest.approx(ttest_rel(pq[r["system_a"]], pq[r["system_b"]]).pvalue, abs=1e-9)
        means = {(m["source"], m["system"]): m["mean"] for m in res.means.to_dicts()}
        assert r["reference_difference"] == pytest.approx(
            means[("human", r["system_a"])] - means[("human", r["system_b"])], abs=1e-12)
    (row,) = res.correlation.to_dicts()
    assert row["flipped"] == len(flips)


def test_randomization_p_values_when_asked():
    runs, labels, _ = flip_case()
    res = sqlndcg.system_order(runs, labels, ["ndcg@2"], test="randomization", permutations=1000, resamples=50)
    part = labels[labels.source == "model"].drop(columns="source")
    for r in res.flips.to_dicts():
        c = sqlndcg.compare(runs, part, ["ndcg@2"], baseline=r["system_b"], permutations=1000, resamples=50)
        (row,) = [x for x in c.to_dicts() if x["system"] == r["system_a"]]
        assert r["source_p"] == row["randomization_p"]


def test_a_source_missing_some_queries():
    runs, labels = random_data(5, systems=("a", "b", "c", "d"), queries=8)
    labels = labels[~((labels.source == "model") & labels.query_id.isin(["q00", "q03"]))]
    shared = sqlndcg.system_order(runs, labels, ["ndcg@5"], permutations=100, resamples=100)
    assert {r["queries"] for r in shared.means.to_dicts()} == {6}
    own = sqlndcg.system_order(runs, labels, ["ndcg@5"], query_set="own", permutations=100, resamples=100)
    assert {(r["source"], r["queries"]) for r in own.means.to_dicts()} == {("human", 8), ("model", 6)}
    for res, shared_only in ((shared, True), (own, False)):
        want = expected_means(runs, labels, "ndcg@5", shared=shared_only)
        systems = sorted(want["human"])
        ref, est = ([want[s][k] for k in systems] for s in ("human", "model"))
        (row,) = res.correlation.to_dicts()
        assert row["tau_b"] == pytest.approx(kendalltau(ref, est).statistic, abs=1e-12)
        assert row["tau_ap"] == pytest.approx(tau_ap(ref, est), abs=1e-12)


def test_group_by_orders_the_systems_per_group():
    frames = []
    for day, seed in (("d1", 7), ("d2", 8)):
        runs, labels = random_data(seed, systems=("a", "b", "c", "d"), queries=6)
        frames.append(runs.assign(ds=day))
    runs = pd.concat(frames, ignore_index=True)
    res = sqlndcg.system_order(runs, labels, ["ndcg@5"], group_by="ds", permutations=100, resamples=100)
    want = expected_means(runs, labels, "ndcg@5", group_by=["ds"])
    rows = res.correlation.to_dicts()
    assert [r["ds"] for r in rows] == ["d1", "d2"]
    for r in rows:
        keys = sorted(k for k in want["human"] if k[0] == r["ds"])
        ref, est = [want["human"][k] for k in keys], [want["model"][k] for k in keys]
        assert r["tau_b"] == pytest.approx(kendalltau(ref, est).statistic, abs=1e-12)
        assert r["tau_ap"] == pytest.approx(tau_ap(ref, est), abs=1e-12)
        assert r["flipped"] == len(flipped_pairs(ref, est))
        assert r["flipped"] == sum(1 for f in res.flips.to_dicts() if f["ds"] == r["ds"])
    assert all(f["reference_p"] is not None and f["source_p"] is not None for f in res.flips.to_dicts())


def test_groups_of_any_type_find_their_p_values():
    """The flips' p-values (compare's, from Python) join on the engine's text of the groups: a timestamp and an
    integer group give the text group's flips and p-values."""
    frames = []
    for day, seed in (("1", 7), ("2", 8)):
        runs, labels = random_data(seed, systems=("a", "b", "c", "d"), queries=6)
        frames.append(runs.assign(ds=day))
    runs = pd.concat(frames, ignore_index=True)
    call = functools.partial(sqlndcg.system_order, judgments=labels, metrics=["ndcg@5"], group_by="ds",
                             permutations=100, resamples=100)
    want = call(runs).flips
    assert len(want) and all(f["reference_p"] is not None for f in want.to_dicts())
    for typed in (runs.assign(ds=pd.to_datetime("2026-01-0" + runs.ds)), runs.assign(ds=runs.ds.astype("int64"))):
        got = call(typed).flips
        assert [r[1:] for r in got.rows] == [r[1:] for r in want.rows]


def test_three_sources_each_against_the_reference():
    runs, labels = random_data(9, systems=("a", "b", "c"), queries=5)
    other = labels[labels.source == "model"].assign(source="model-v2")
    other["rel"] = 3 - other["rel"]
    res = sqlndcg.system_order(runs, pd.concat([labels, other]), ["ndcg@5"], permutations=100, resamples=100)
    assert [r["source"] for r in res.correlation.to_dicts()] == ["model", "model-v2"]
    assert res.settings["sources"] == ["human", "model", "model-v2"]


def test_errors_name_the_problem():
    runs, labels, _ = flip_case()
    with pytest.raises(SettingError, match=r"reference='people' is not a label source: the column 'source' .* "
                                           r"holds 'human', 'model'"):
        sqlndcg.system_order(runs, labels, ["ndcg@2"], reference="people")
    with pytest.raises(SettingError, match="holds only the reference 'human'"):
        sqlndcg.system_order(runs, labels[labels.source == "human"], ["ndcg@2"])
    with pytest.raises(SettingError, match=r"at least two systems to order; the 'system' column holds 'A'"):
        sqlndcg.system_order(runs[runs.system == "A"], labels, ["ndcg@2"])
    with pytest.raises(InputError, match="no source column 'judge'"):
        sqlndcg.system_order(runs, labels, ["ndcg@2"], source="judge")
    with pytest.raises(InputError, match="no system column 'engine'"):
        sqlndcg.system_order(runs, labels, ["ndcg@2"], system="engine")
    apart = labels.copy()
    apart.loc[apart.source == "model", "query_id"] += "-m"  # the model judged other queries
    with pytest.raises(DataError, match=r"no query is judged by every label source.*'human' judged 6 queries; "
                                        r"'model' judged 6 queries.*query_set='own'"):
        sqlndcg.system_order(runs, apart, ["ndcg@2"])
    with pytest.raises(SettingError, match="test='wilcoxon' is not known"):
        sqlndcg.system_order(runs, labels, ["ndcg@2"], test="wilcoxon")
    with pytest.raises(SettingError, match="does not weigh queries"):
        sqlndcg.system_order(runs, labels, ["ndcg@2"], query_weights=pd.DataFrame({"query_id": ["q1"], "weight": [1]}))
    with pytest.raises(SettingError, match="query_set='all' is not known"):
        sqlndcg.system_order(runs, labels, ["ndcg@2"], query_set="all")


def test_text_shows_the_tables():
    runs, labels, _ = flip_case()
    text = str(sqlndcg.system_order(runs, labels, ["ndcg@2"], permutations=100, resamples=100))
    assert "on the queries every source judged" in text
    assert "Pairs whose winner flips:" in text and "reference_p" in text
    assert "tau_b" in text and "tau_ap" in text
    assert "ndcg@2, source=model: tau_b" in text and "pairs flip" in text


def test_the_command_line(tmp_path):
    runs, labels, _ = flip_case()
    runs.to_csv(tmp_path / "runs.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    cli = [sys.executable, "-m", "sqlndcg", "system-order", str(tmp_path / "runs.csv"), str(tmp_path / "labels.csv"),
           "--source", "source", "--reference", "human", "-m", "ndcg@2"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(cli, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    want = sqlndcg.system_order(runs, labels, ["ndcg@2"])
    (row,) = want.correlation.to_dicts()
    assert "Agreement with the reference's order:" in out.stdout
    assert f"{row['tau_b']:.4f}" in out.stdout
    out = subprocess.run(cli + ["--format", "csv", "--table", "flips"], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("metric,source,system_a,system_b,reference_difference")
    assert len(lines) == 1 + len(want.flips)
    out = subprocess.run(cli + ["--format", "json", "--query-set", "own", "--test", "randomization"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    import json

    got = json.loads(out.stdout)
    assert got["settings"]["query_set"] == "own" and got["settings"]["test"] == "randomization"
    assert got["correlation"][0]["tau_b"] == pytest.approx(row["tau_b"])
    out = subprocess.run(cli[:-4] + ["--reference", "people"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 2
    assert "reference='people' is not a label source" in out.stderr


def check_engine(con, load, label: str) -> None:
    tied = random_data(2, systems=("a", "b", "c", "d"), queries=5)  # d copies c: ties in both orders
    for ids in ("text", "int", "tied"):
        runs, labels = tied if ids == "tied" else flip_case(ids)[:2]
        groups = {}
        if ids == "int":  # an integer group: the p-values join on the engine's text of it
            runs = runs.assign(half=(runs.query_id.str[1:].astype("int64") > 3).astype("int64") + 1)
            groups = {"group_by": "half"}
        want = sqlndcg.system_order(runs, labels, ["ndcg@2", "p@1"], permutations=100, resamples=100, **groups)
        got = sqlndcg.system_order(load(con, f"so_runs_{ids}", runs), load(con, f"so_labels_{ids}", labels),
                                   ["ndcg@2", "p@1"], permutations=100, resamples=100, con=con, **groups)
        assert len(want.flips) and all(f["source_p"] is not None for f in want.flips.to_dicts())
        for part in ("means", "correlation", "flips"):
            assert_same(getattr(got, part), getattr(want, part), f"{label} {ids} ids, {part}",
                        sort_by=lambda r: tuple(str(v) for v in r[:4]))


globals().update(engine_tests(check_engine))


def test_the_docs_worked_example_prints_what_they_say(capsys):
    text = (ROOT / "docs" / "judgments.md").read_text()
    section = text.split("## Model judges: do they rank systems the same way?")[1].split("\n## ")[0]
    code = section.split("A worked example")[1].split("```python\n")[1].split("```")[0]
    printed = section.split("prints\n\n```text\n")[1].split("```")[0]
    exec(compile(code, "docs/judgments.md", "exec"), {})
    assert capsys.readouterr().out == printed
    # by hand: tau_b (2 - 1) / 3, tau_ap 2 / 2 (1 + 1/2) - 1, the flip's p-values scipy's
    assert "0.3333  0.5000           2        1" in printed
    assert f"{ttest_rel([1, 1, 1, 0], [0, 0, 1, 1]).pvalue:.4f}" == f"{ttest_rel([1, 1, 0, 0], [1, 0, 1, 1]).pvalue:.4f}" == "0.6376"
    assert kendalltau([0.75, 0.5, 1.0], [0.5, 0.75, 1.0]).statistic == pytest.approx(1 / 3)
    assert tau_ap_paper([0.75, 0.5, 1.0], [0.5, 0.75, 1.0]) == pytest.approx(0.5)


@pytest.mark.engine
def test_dbt_models_equal_system_order(tmp_path):
    """The dbt macros over per-query models of each source give the means, tau and flips of system_order (the
    p-values are NULL in dbt)."""
    import csv
    import os

    import duckdb

    runs, labels, _ = flip_case()
    project = tmp_path / "proj"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    for name, frame in (("runs", runs), ("labels", labels)):
        with (project / "seeds" / f"{name}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(frame.columns)
            w.writerows(frame.itertuples(index=False, name=None))
    (project / "dbt_project.yml").write_text("name: order\nversion: '1.0.0'\nconfig-version: 2\nprofile: order\n"
                                             "models:\n  order:\n    +materialized: table\n")
    (project / "profiles.yml").write_text(f"order:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
                                          f"      path: '{project / 'o.duckdb'}'\n      threads: 1\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    metrics = "['ndcg@2', 'p@1']"
    for src in ("human", "model"):
        (project / "models" / f"per_query_{src}.sql").write_text(
            f"{{{{ sqlndcg.per_query(run=ref('runs'), judgments=ref('labels'), judgments_where=\"source = '{src}'\", "
            f"metrics={metrics}, group_by=['system']) }}}}\n")
    (project / "models" / "system_means.sql").write_text(
        "{{ sqlndcg.system_order_means(per_query={'human': ref('per_query_human'), 'model': ref('per_query_model')}, "
        f"metrics={metrics}) }}}}\n")
    for what in ("correlation", "flips"):
        (project / "models" / f"system_{what}.sql").write_text(
            f"{{{{ sqlndcg.system_order_{what}(means=ref('system_means'), reference='human') }}}}\n")
    dbt = str(Path(sys.executable).with_name("dbt"))
    for command in ("deps", "build"):
        done = subprocess.run([dbt, command, "--project-dir", str(project), "--profiles-dir", str(project)],
                              capture_output=True, text=True, cwd=project, env=dict(os.environ), timeout=600)
        assert done.returncode == 0, done.stdout[-4000:]
    want = sqlndcg.system_order(runs, labels, ["ndcg@2", "p@1"], permutations=100, resamples=100)
    with duckdb.connect(str(project / "o.duckdb"), read_only=True) as con:
        for part in ("means", "correlation", "flips"):
            cur = con.execute(f"SELECT * FROM system_{part}")
            got = sqlndcg.Table([d[0] for d in cur.description], cur.fetchall())
            expected = getattr(want, part)
            if part == "flips":
                assert all(r["reference_p"] is None and r["source_p"] is None for r in got.to_dicts())
                keep = [c for c in expected.columns if not c.endswith("_p")]
                got, expected = (sqlndcg.Table(keep, [tuple(r[c] for c in keep) for r in t.to_dicts()])
                                 for t in (got, expected))
            assert_same(got, expected, f"dbt {part}",
                        sort_by=lambda r: tuple(str(v) for v in r[:4]))


def test_a_source_labelling_a_document_twice_is_refused_by_name():
    runs, labels, _ = flip_case()
    twice = pd.concat([labels, labels[labels.source == "model"].iloc[[0]]], ignore_index=True)
    with pytest.raises(DataError, match=r"labels of a source occur more than once \(source, query_id, doc_id\).*"
                                        r"aggregate_labels"):
        sqlndcg.system_order(runs, twice, ["ndcg@2"])


def test_the_shown_statement_runs_over_a_table_named_means():
    import duckdb

    runs, labels, _ = flip_case()
    res = sqlndcg.system_order(runs, labels, ["ndcg@2", "p@1"], permutations=100, resamples=100)
    con = duckdb.connect()
    con.register("means", res.means.to_arrow())
    cur = con.execute(res.sql)
    assert sqlndcg.Table([d[0] for d in cur.description], cur.fetchall()) == res.correlation


def test_runs_as_a_dict_of_systems():
    runs, labels, _ = flip_case()
    as_dict = {name: part.drop(columns="system") for name, part in runs.groupby("system")}
    got = sqlndcg.system_order(as_dict, labels, ["ndcg@2"], permutations=100, resamples=100)
    want = sqlndcg.system_order(runs, labels, ["ndcg@2"], permutations=100, resamples=100)
    for part in ("means", "correlation", "flips"):
        assert_same(getattr(got, part), getattr(want, part), f"dict {part}")


def test_identical_reversed_and_constant_labels():
    runs, labels = random_data(4, systems=("a", "b", "c", "d"), queries=6)
    human = labels[labels.source == "human"]
    same = pd.concat([human, human.assign(source="copy"), human.assign(source="constant", rel=0)])
    res = sqlndcg.system_order(runs, same, ["ndcg@5"], permutations=100, resamples=100)
    rows = {r["source"]: r for r in res.correlation.to_dicts()}
    assert rows["copy"]["tau_b"] == pytest.approx(1.0) and rows["copy"]["tau_ap"] == pytest.approx(1.0)
    assert rows["copy"]["flipped"] == 0
    # every system scores 0 under labels that mark nothing relevant: one tie, no order, no tau (scipy: nan)
    means = [r["mean"] for r in res.means.to_dicts() if r["source"] == "constant"]
    assert means == [0.0] * 4
    assert math.isnan(kendalltau([1, 2, 3, 4], means).statistic)
    assert rows["constant"]["tau_b"] is None and rows["constant"]["tau_ap"] is None
    assert rows["constant"]["flipped"] == 0 and rows["constant"]["systems"] == 4
    assert not [f for f in res.flips.to_dicts() if f["source"] in ("copy", "constant")]
