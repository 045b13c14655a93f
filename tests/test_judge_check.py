"""The check before switching to model labels (sqlndcg.judge_check): each part equals the verb it composes called
directly (agreement, system_order, ppi_evaluate / ppi_compare, audit_size), with values checked against numpy on
constructed data; the findings appear and disappear with what they describe (a biased model, a flipped pair the
people tell apart, an uninformative model, every query audited); text and integer ids; the refusals, from one
place, naming the table and column; the command line; the docs' worked example prints what the docs say; SQLite
and PostgreSQL give DuckDB's parts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg import DataError, InputError, SettingError
from sqlndcg.verbs import judge_findings

from engine_parity import assert_same, engine_tests

ROOT = Path(__file__).resolve().parents[1]


def data(seed: int = 0, queries: int = 30, audited: int = 12, docs: int = 5, fooled: float = 0.6,
         random_model: bool = False, systems=("A", "B", "C"), to: int = 1):
    """Runs of ``systems`` and labels: people's grades 0..3 on the first ``audited`` queries, the model's on all, the
    model grading a people's 0 as ``to`` in a share ``fooled`` (or at random, ``random_model``)."""
    rng = np.random.default_rng(seed)
    people = rng.integers(0, 4, size=(queries, docs))
    if random_model:
        model = rng.integers(0, 4, size=(queries, docs))
    else:
        model = np.where((people == 0) & (rng.random((queries, docs)) < fooled), to, people)
    runs = pd.DataFrame([(s, f"q{q:02d}", f"d{d}", float(v)) for s in systems for q in range(queries)
                         for d, v in enumerate(people[q] + rng.normal(0, 1.5, docs))],
                        columns=["system", "query_id", "doc_id", "score"])
    labels = pd.DataFrame([(src, f"q{q:02d}", f"d{d}", int(g[q, d])) for src, g, n in
                           [("human", people, audited), ("llm", model, queries)] for q in range(n) for d in range(docs)],
                          columns=["source", "query_id", "doc_id", "rel"])
    return runs, labels, people, model


def same(a, b) -> None:
    """Two tables hold the same rows, numbers to 1e-12 (the sums may run in another order)."""
    a, b = a.to_dicts(), b.to_dicts()
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for k in x:
            if isinstance(x[k], float) and isinstance(y[k], float):
                assert x[k] == pytest.approx(y[k], rel=1e-12, abs=1e-12), k
            else:
                assert x[k] == y[k], k


def split(labels: pd.DataFrame):
    return (labels[labels.source == "human"].reset_index(drop=True),
            labels[labels.source == "llm"].reset_index(drop=True))


def test_each_part_is_its_verb_called_directly():
    runs, labels, people, model = data()
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5", "p@3"], width=0.3)
    assert res.settings["candidate"] == "llm" and res.settings["reference"] == "human"
    agreed = sqlndcg.agreement(labels, annotator="source", between=("human", "llm"))
    for part in ("overall", "pairs", "per_grade", "confusion", "coverage"):
        same(getattr(res.agreement, part), getattr(agreed, part))
    order = sqlndcg.system_order(runs, labels, ["ndcg@5", "p@3"], source="source", reference="human")
    for part in ("means", "correlation", "flips"):
        same(getattr(res.order, part), getattr(order, part))
    human, llm = split(labels)
    ppi = sqlndcg.ppi_evaluate(runs, llm, human, ["ndcg@5", "p@3"], group_by="system")
    same(res.corrected.summary, ppi.summary)
    same(res.corrected.per_query, ppi.per_query)
    # the values, from numpy: the mean signed difference and the bias on the people's grade 0
    shared = (model - people)[:12]
    (pair,) = res.agreement.pairs.to_dicts()
    assert pair["units"] == 60 and pair["mean_difference"] == pytest.approx(shared.mean())
    zero = [r for r in res.agreement.per_grade.to_dicts() if r["grade"] == 0][0]
    assert zero["mean_difference"] == pytest.approx(shared[people[:12] == 0].mean())
    # the audit: audit_size on each system's per-query pairs
    assert res.audit is not None and len(res.audit) == 6
    for r in res.audit.to_dicts():
        pairs = ppi.per_query.to_pandas()
        pilot = pairs[(pairs.system == r["system"]) & (pairs.metric == r["metric"])].drop(columns="system")
        want = sqlndcg.audit_size(pilot, width=0.3, ppi="ppi++")
        assert (r["queries"], r["audited"], r["human_only"], r["saving"]) == (30, want.audited, want.human_only,
                                                                             want.saving)
        assert r["expected_width"] == pytest.approx(want.expected_width) and r["lam"] == pytest.approx(want.lam)


def test_with_a_baseline_the_corrected_part_is_ppi_compare():
    runs, labels, _, _ = data(seed=1)
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"], baseline="A", width=0.4, ppi="ppi")
    human, llm = split(labels)
    want = sqlndcg.ppi_compare(runs, llm, human, ["ndcg@5"], baseline="A", ppi="ppi")
    same(res.corrected.summary, want.summary)
    assert [r["system"] for r in res.corrected.summary.to_dicts()] == ["B", "C"]
    # the audit's pilot: per query the system's values minus the baseline's, model and human
    pq = want.per_query.to_pandas()
    base = pq[pq.system == "A"].set_index("query_id")
    for r in res.audit.to_dicts():
        mine = pq[pq.system == r["system"]].set_index("query_id")
        pilot = pd.DataFrame({"query_id": mine.index, "metric": "ndcg@5",
                              "model_value": (mine.model_value - base.model_value).to_numpy(),
                              "human_value": (mine.human_value - base.human_value).to_numpy(),
                              "audited": mine.audited.to_numpy()})
        s = sqlndcg.audit_size(pilot, width=0.4, ppi="ppi")
        assert (r["audited"], r["human_only"]) == (s.audited, s.human_only)
        # the pilot's human differences average to ppi_compare's human mean
        row = [x for x in want.summary.to_dicts() if x["system"] == r["system"]][0]
        assert pilot.human_value.dropna().mean() == pytest.approx(row["human_mean"])


def test_a_biased_model_is_called_biased_and_a_faithful_one_is_not():
    runs, labels, _, _ = data(fooled=0.8)
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"])
    assert any(f.startswith("llm grades") and "higher on human grade 0" in f for f in res.findings)
    faithful = labels.copy()
    human = faithful.source == "human"
    truth = faithful[human].set_index(["query_id", "doc_id"]).rel
    llm = faithful.source == "llm"
    keys = list(zip(faithful.query_id[llm], faithful.doc_id[llm]))
    faithful.loc[llm, "rel"] = [truth.get(k, r) for k, r in zip(keys, faithful.rel[llm])]
    res = sqlndcg.judge_check(runs, faithful, ["ndcg@5"])
    assert not any("grades" in f for f in res.findings)
    assert not any("flips" in f or "differently" in f for f in res.findings)
    assert not any("excludes" in f or "add little" in f for f in res.findings)
    assert res.agreement.pairs.to_dicts()[0]["cohen_kappa_quadratic"] == pytest.approx(1.0)


def flip_case():
    """Ten queries, two documents: people call x relevant, the model y, on eight of them; on the other two both call
    both relevant. A puts x first, B puts y first: P@1 flips, and the people's paired t test tells A from B."""
    queries = [f"q{i}" for i in range(10)]
    runs = pd.DataFrame([(s, q, d, 2.0 if d == first else 1.0) for s, first in (("A", "x"), ("B", "y"))
                         for q in queries for d in "xy"], columns=["system", "query_id", "doc_id", "score"])
    rows = []
    for i, q in enumerate(queries):
        both = i >= 8
        rows += [("human", q, "x", 1), ("human", q, "y", int(both)), ("llm", q, "x", int(both)), ("llm", q, "y", 1)]
    return runs, pd.DataFrame(rows, columns=["source", "query_id", "doc_id", "rel"])


def test_a_flipped_pair_the_people_tell_apart():
    runs, labels = flip_case()
    res = sqlndcg.judge_check(runs, labels, ["p@1"])
    (flip,) = res.order.flips.to_dicts()
    assert (flip["system_a"], flip["system_b"]) == ("A", "B") and flip["reference_difference"] == pytest.approx(0.8)
    from scipy.stats import ttest_rel

    p = ttest_rel([1] * 10, [0] * 8 + [1] * 2).pvalue
    assert flip["reference_p"] == pytest.approx(p) and p < judge_findings.SIGNIFICANT
    (line,) = [f for f in res.findings if "flips" in f]
    assert line == (f"p@1: llm flips A vs B (p {p:.2g} under human, {p:.2g} under llm); under human, A wins at "
                    f"p < 0.05: llm would pick the wrong one")
    assert any("orders the 2 systems differently (tau_b -1.00" in f for f in res.findings)
    # every query audited: PPI has no model-only query
    assert any("every query has human labels" in f for f in res.findings)
    assert all(r["lam"] is None for r in res.corrected.summary.to_dicts())


def test_an_uninformative_model_adds_little():
    runs, labels, _, _ = data(seed=3, queries=60, audited=30, random_model=True)
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"])
    lams = {r["system"]: r["lam"] for r in res.corrected.summary.to_dicts()}
    low = {s for s, lam in lams.items() if lam < judge_findings.LOW_LAMBDA}
    assert low, lams
    said = {f.split(", ")[1].split(":")[0] for f in res.findings if "labels add little" in f}
    assert said == low
    assert any(f.startswith("weak agreement: quadratic kappa") for f in res.findings)
    # PPI (lam = 1) never says so
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"], ppi="ppi")
    assert not any("add little" in f for f in res.findings)


def test_the_naive_interval_that_misses_the_corrected_mean():
    runs, labels, _, _ = data(seed=2, queries=40, audited=15, fooled=0.9, to=3)
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"])
    missed = {r["system"] for r in res.corrected.summary.to_dicts()
              if not r["naive_ci_low"] <= r["mean"] <= r["naive_ci_high"]}
    said = {f.split(", ")[1].split(":")[0] for f in res.findings if "excludes the corrected mean" in f}
    assert missed and said == missed


def test_a_model_on_another_scale_keeps_agreement_and_order():
    runs, labels, _, _ = data(seed=7, fooled=1.0)  # the model never grades 0
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"], width=0.3)
    assert res.corrected is None and res.audit is None
    assert res.findings[0] == ("grade scales differ: human 0..3, llm 1..3: map the model's scale onto the people's "
                               "before trusting the rest; the corrected means (PPI needs one scale) are left out")
    same(res.order.correlation, sqlndcg.system_order(runs, labels, ["ndcg@5"]).correlation)
    assert "(left out: the two sources grade on different scales)" in str(res)


def test_text_and_integer_ids_give_the_same_numbers():
    runs, labels, _, _ = data(seed=4)
    text = sqlndcg.judge_check(runs, labels, ["ndcg@5"], baseline="A")
    runs_i = runs.assign(system=runs.system.map({"A": 1, "B": 2, "C": 3}), query_id=runs.query_id.str[1:].astype(int))
    labels_i = labels.assign(source=labels.source.map({"human": 0, "llm": 9}),
                             query_id=labels.query_id.str[1:].astype(int))
    ints = sqlndcg.judge_check(runs_i, labels_i, ["ndcg@5"], reference=0, baseline=1)
    assert ints.settings["candidate"] == "9"
    cols = ("naive_mean", "mean", "ci_low", "ci_high", "lam", "effective_human_labels")
    for a, b in zip(text.corrected.summary.to_dicts(), ints.corrected.summary.to_dicts()):
        assert [a[c] for c in cols] == pytest.approx([b[c] for c in cols])
    assert text.order.correlation.to_dicts()[0]["tau_b"] == ints.order.correlation.to_dicts()[0]["tau_b"]
    assert text.agreement.pairs.to_dicts()[0]["cohen_kappa"] == pytest.approx(
        ints.agreement.pairs.to_dicts()[0]["cohen_kappa"])


def test_several_models_one_named():
    runs, labels, _, _ = data(seed=5)
    other = labels[labels.source == "llm"].assign(source="llm-v2", rel=lambda t: 3 - t.rel)
    other = other[other.query_id < "q05"]  # judged fewer queries: must not shrink the shared set
    many = pd.concat([labels, other], ignore_index=True)
    with pytest.raises(SettingError, match=r"column 'source' of judgments \(DataFrame\) holds 'human', 'llm', "
                                           r"'llm-v2': name the model source to check with candidate="):
        sqlndcg.judge_check(runs, many, ["ndcg@5"])
    got = sqlndcg.judge_check(runs, many, ["ndcg@5"], candidate="llm")
    want = sqlndcg.judge_check(runs, labels, ["ndcg@5"])
    assert got.findings == want.findings
    same(got.corrected.summary, want.corrected.summary)
    same(got.order.means, want.order.means)
    same(got.agreement.pairs, want.agreement.pairs)


def test_refusals_name_the_table_and_column():
    runs, labels, _, _ = data(seed=6)
    with pytest.raises(SettingError, match=r"reference='people' is not a label source: the column 'source' of "
                                           r"judgments \(DataFrame\) holds 'human', 'llm'"):
        sqlndcg.judge_check(runs, labels, ["ndcg@5"], reference="people")
    with pytest.raises(SettingError, match=r"candidate='gpt' is not a label source other than the reference"):
        sqlndcg.judge_check(runs, labels, ["ndcg@5"], candidate="gpt")
    with pytest.raises(SettingError, match=r"holds only the reference 'human'"):
        sqlndcg.judge_check(runs, labels[labels.source == "human"], ["ndcg@5"])
    with pytest.raises(InputError, match=r"judgments \(DataFrame\) has no source column 'judge'; its columns are "
                                         r"source, query_id, doc_id, rel"):
        sqlndcg.judge_check(runs, labels, ["ndcg@5"], source="judge")
    apart = labels.assign(query_id=np.where(labels.source == "human", "h" + labels.query_id, labels.query_id))
    with pytest.raises(DataError, match=r"judgments \(DataFrame\): no query of column 'query_id' is judged by both "
                                        r"'human' \(12 queries\) and 'llm' \(30 queries\)"):
        sqlndcg.judge_check(runs, apart, ["ndcg@5"])
    lacking = labels[~((labels.source == "llm") & labels.query_id.isin(["q00", "q01"]))]
    with pytest.raises(DataError, match=r"2 of the 12 queries 'human' judged \(column 'query_id'\) have no label "
                                        r"from 'llm', e.g. 'q00', 'q01'"):
        sqlndcg.judge_check(runs, lacking, ["ndcg@5"])
    with pytest.raises(SettingError, match="group_by"):
        sqlndcg.judge_check(runs, labels, ["ndcg@5"], group_by="system")
    with pytest.raises(SettingError, match="not a dict"):
        sqlndcg.judge_check({"A": runs}, labels, ["ndcg@5"])


def test_the_page_and_the_thresholds():
    runs, labels, _, _ = data()
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"], width=0.3)
    text = str(res)
    assert text.startswith("Judge check: 'llm' against 'human' (column 'source' of judgments (DataFrame))")
    for f in res.findings:
        assert f"- {f}" in text
    for heading in ("Agreement on the 60 (query, document) pairs both labelled", "Per grade of human",
                    "System order under llm against human", "Corrected means of each system (ppi++",
                    "Audited queries for a 95% interval 0.3 wide"):
        assert heading in text
    assert text.endswith("(thresholds: grade_bias 0.3, kappa_weak 0.4, tau_equivalent 0.9, significant 0.05, "
                         "low_lambda 0.1)")
    assert json.loads(json.dumps(res.to_dict(), default=str))["settings"]["candidate"] == "llm"
    assert judge_findings.THRESHOLDS == res.settings["thresholds"]


def test_the_command_line(tmp_path):
    runs, labels = flip_case()
    runs.to_csv(tmp_path / "runs.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    cli = [sys.executable, "-m", "sqlndcg", "judge-check", str(tmp_path / "runs.csv"), str(tmp_path / "labels.csv"),
           "--source", "source", "--reference", "human", "--candidate", "llm", "-m", "p@1"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(cli, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    want = sqlndcg.judge_check(tmp_path / "runs.csv", tmp_path / "labels.csv", ["p@1"], candidate="llm")
    assert out.stdout == str(want) + "\n"
    out = subprocess.run(cli + ["--baseline", "A", "--format", "json"], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["settings"]["baseline"] == "A" and got["corrected"]["summary"][0]["system"] == "B"
    out = subprocess.run(cli[:-6] + ["--reference", "people"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 2
    assert "reference='people' is not a label source: the column 'source' of judgments file" in out.stderr


def test_the_docs_worked_example_prints_what_they_say(capsys):
    text = (ROOT / "docs" / "judgments.md").read_text()
    section = text.split("## Before you switch: one check")[1].split("\n## ")[0]
    code = section.split("A worked example")[1].split("```python\n")[1].split("```")[0]
    printed = section.split("prints\n\n```text\n")[1].split("```")[0]
    exec(compile(code, "docs/judgments.md", "exec"), {})
    assert capsys.readouterr().out == printed
    # by hand: the bias on the people's grade 0 is twice the share of fooled documents among them (0 -> 2)
    rng = np.random.default_rng(7)
    people = rng.integers(0, 4, size=(40, 5))
    fooled = (people == 0) & (rng.random((40, 5)) < 0.5)
    bias = 2 * fooled[:15][people[:15] == 0].mean()
    assert f"llm grades {bias:.2f} higher on human grade 0 ({(people[:15] == 0).sum()} pairs)" in printed
    # every constant the docs' table names is the module's
    for name in ("GRADE_BIAS", "KAPPA_WEAK", "TAU_EQUIVALENT", "SIGNIFICANT", "LOW_LAMBDA"):
        assert f"`{name}` = {getattr(judge_findings, name):g}" in section


def check_engine(con, load, label: str) -> None:
    """Every part on ``con`` equals DuckDB's to 1e-9, the findings word for word (text ids, with a baseline, and
    integer ids per system), on every engine of tests/engine_parity.py."""
    runs, labels, _, _ = data(seed=8)
    ints = (runs.assign(system=runs.system.map({"A": 1, "B": 2, "C": 3}), query_id=runs.query_id.str[1:].astype(int)),
            labels.assign(source=labels.source.map({"human": 0, "llm": 9}),
                          query_id=labels.query_id.str[1:].astype(int)))
    for (r, j), kw, ids in (((runs, labels), {"baseline": "A"}, "text"), (ints, {"reference": 0}, "int")):
        want = sqlndcg.judge_check(r, j, ["ndcg@5", "p@3"], width=0.3, **kw)
        got = sqlndcg.judge_check(load(con, f"jc_runs_{ids}", r), load(con, f"jc_labels_{ids}", j), ["ndcg@5", "p@3"],
                                  width=0.3, con=con, **kw)
        assert got.findings == want.findings, label
        for g, w in ((got.agreement.pairs, want.agreement.pairs), (got.agreement.per_grade, want.agreement.per_grade),
                     (got.order.means, want.order.means), (got.order.correlation, want.order.correlation),
                     (got.order.flips, want.order.flips), (got.corrected.summary, want.corrected.summary),
                     (got.audit, want.audit)):
            assert_same(g, w, label, sort_by=lambda row: tuple(str(v) for v in row[:4]))


globals().update(engine_tests(check_engine))


def test_an_audit_no_size_reaches():
    runs, labels, _, _ = data()
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"], width=0.3)
    assert not any("no audit" in f for f in res.findings) and all(r["note"] is None for r in res.audit.to_dicts())
    res = sqlndcg.judge_check(runs, labels, ["ndcg@5"], width=0.001)
    with pytest.raises(SettingError) as e:
        pairs = res.corrected.per_query.to_pandas()
        sqlndcg.audit_size(pairs[pairs.system == "A"].drop(columns="system"), width=0.001, ppi="ppi++")
    (row,) = [r for r in res.audit.to_dicts() if r["system"] == "A"]
    assert row["note"] == str(e.value) and row["audited"] is None
    assert [f for f in res.findings if "no audit" in f] == [
        f"ndcg@5, {s}: no audit of these 30 queries gives an interval 0.001 wide (audit.note says how narrow one "
        "can get)" for s in "ABC"]
    assert f"A, ndcg@5: {row['note']}" in str(res)
    # every query audited: the pilot has no unaudited query; the note says so, no finding about the width
    runs, labels = flip_case()
    res = sqlndcg.judge_check(runs, labels, ["p@1"], width=0.1)
    assert all("0 unaudited queries" in r["note"] for r in res.audit.to_dicts())
    assert not any("no audit" in f for f in res.findings)
