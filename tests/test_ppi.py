"""Prediction-powered metrics (sql/macros/ppi/ppi.sql; sqlndcg/verbs/ppi.py): the corrected mean, interval and
power-tuning factor equal ppi_py's ``ppi_mean_ci`` / ``ppi_mean_pointestimate`` / ``_calc_lam_glm`` (Angelopoulos et
al., Science 2023; Angelopoulos, Duchi & Zrnic, PPI++, 2023) on the per-query values, to 1e-9, for PPI (lam = 1)
and PPI++ (tuned lam), with groups and text ids; the naive columns are evaluate's summary with the model labels;
a simulation with model labels biased by a known amount: the naive interval misses the true mean in most seeds,
the PPI++ interval covers it in about 95%; the worked example of docs/judgments.md; ppi_compare against ppi_py on
paired differences; evaluate(audit=) and compare(audit=); the t interval; the example data and its docs; the command
line; errors; every engine of engine_parity equals DuckDB."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
from ppi_py.ppi import _calc_lam_glm

import sqlndcg
from sqlndcg import DataError, InputError, SettingError

from engine_parity import assert_same, engine_tests

DOCS = Path(__file__).resolve().parents[1] / "docs" / "judgments.md"


def make_data(seed, queries=60, docs=6, flip=0.3, tags=("bm25",)):
    """A run (one list per tag and query, tied scores), human grades 0..2, and model grades = human + 1 (capped at 2)
    with probability ``flip``: labels biased upwards by a known amount."""
    rng = np.random.default_rng(seed)
    run, human = [], []
    for q in range(queries):
        qid = f"q{q:03d}"
        for d in range(docs):
            human.append((qid, f"d{d}", int(rng.choice([0, 1, 2], p=[0.5, 0.3, 0.2]))))
        for tag in tags:
            for d in range(docs):
                run.append((tag, qid, f"d{d}", float(rng.integers(0, 4))))
    run_df = pd.DataFrame(run, columns=["tag", "query_id", "doc_id", "score"])
    human_df = pd.DataFrame(human, columns=["query_id", "doc_id", "rel"])
    bump = rng.random(len(human_df)) < flip
    model_df = human_df.assign(rel=np.minimum(human_df.rel + bump.astype(int), 2))
    return run_df, human_df, model_df


def same_rows(a, b) -> bool:
    """Two summaries equal: texts and integers exactly, floats to 1e-12 (DuckDB's parallel sums may differ in the
    last bit from one call to the next)."""
    a, b = a.to_dicts(), b.to_dicts()
    assert len(a) == len(b) and all(x.keys() == y.keys() for x, y in zip(a, b))
    for x, y in zip(a, b):
        for k, v in x.items():
            assert y[k] == (pytest.approx(v, abs=1e-12) if isinstance(v, float) else v), k
    return True


def audit_of(human, seed, n):
    """The human labels of n queries chosen at random."""
    rng = np.random.default_rng(seed + 1000)
    chosen = rng.choice(sorted(human.query_id.unique()), size=n, replace=False)
    return human[human.query_id.isin(chosen)].reset_index(drop=True)


def reference(res, group, metric, lam):
    """ppi_py on the per-query values of ``res`` (one group and metric): (point, (low, high), lam used)."""
    rows = [r for r in res.per_query.to_dicts() if r["metric"] == metric and r.get("tag", None) == group]
    y = np.array([r["human_value"] for r in rows if r["audited"]])
    yh = np.array([r["model_value"] for r in rows if r["audited"]])
    yu = np.array([r["model_value"] for r in rows if not r["audited"]])
    if lam is None:
        point1 = ppi_mean_pointestimate(y, yh, yu, lam=1)
        lam = _calc_lam_glm(y - point1, yh - point1, yu - point1, np.eye(1), clip=True)
    point = ppi_mean_pointestimate(y, yh, yu, lam=lam)
    low, high = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
    return float(np.ravel(point)[0]), (float(np.ravel(low)[0]), float(np.ravel(high)[0])), lam, y, yh, yu


@pytest.mark.parametrize("mode", ["ppi", "ppi++"])
def test_equals_ppi_py(mode):
    run, human, model = make_data(1, queries=50, tags=("bm25", "dense"))
    audit = audit_of(human, 1, 15)
    metrics = ["ndcg@5", "p@3", "map"]
    res = sqlndcg.ppi_evaluate(run, model, audit, metrics, ppi=mode, group_by="tag")
    naive = sqlndcg.evaluate(run, model, metrics, group_by="tag").summary.to_dicts()
    rows = res.summary.to_dicts()
    assert len(rows) == 6
    for r in rows:
        point, (low, high), lam, y, yh, yu = reference(res, r["tag"], r["metric"], 1.0 if mode == "ppi" else None)
        assert r["audited"] == 15 and r["unaudited"] == 35
        assert r["lam"] == pytest.approx(lam, abs=1e-9)
        assert r["mean"] == pytest.approx(point, abs=1e-9)
        assert r["ci_low"] == pytest.approx(low, abs=1e-9)
        assert r["ci_high"] == pytest.approx(high, abs=1e-9)
        assert r["human_mean"] == pytest.approx(y.mean(), abs=1e-12)
        # effective human labels: var_n(Y) / se^2, n when lam = 0
        se = (high - low) / 2 / 1.959963984540054
        assert r["effective_human_labels"] == pytest.approx(y.var() / se**2, rel=1e-9)
        s = next(x for x in naive if x["tag"] == r["tag"])
        assert r["naive_mean"] == pytest.approx(s[r["metric"]], abs=1e-12)
        assert r["naive_ci_low"] == pytest.approx(s[f"{r['metric']}_ci_low"], abs=1e-12)
        assert r["naive_ci_high"] == pytest.approx(s[f"{r['metric']}_ci_high"], abs=1e-12)
    if mode == "ppi":
        assert all(r["lam"] == 1 for r in rows)
    else:
        assert any(0 < r["lam"] < 1 for r in rows)


def test_per_query_pairs_are_evaluates():
    run, human, model = make_data(2, queries=20)
    audit = audit_of(human, 2, 6)
    res = sqlndcg.ppi_evaluate(run, model, audit, ["ndcg@5"])
    m = {r["query_id"]: r["ndcg@5"] for r in sqlndcg.evaluate(run, model, ["ndcg@5"]).per_query}
    h = {r["query_id"]: r["ndcg@5"] for r in sqlndcg.evaluate(run, audit, ["ndcg@5"]).per_query}
    pairs = res.per_query.to_dicts()
    assert len(pairs) == 20 and sum(r["audited"] for r in pairs) == 6
    for r in pairs:
        assert r["model_value"] == pytest.approx(m[r["query_id"]], abs=1e-12)
        assert r["human_value"] == (pytest.approx(h[r["query_id"]], abs=1e-12) if r["audited"] else None)


@pytest.mark.slow
def test_simulation_coverage():
    """Model labels biased upwards (a grade + 1 with probability 0.3): over 100 seeds the naive interval misses the
    true mean (the metric with human labels on every query) in most, the PPI++ interval covers it in about 95%."""
    naive_hits = ppi_hits = 0
    seeds = 100
    for seed in range(seeds):
        run, human, model = make_data(seed, queries=150, docs=5)
        truth = sqlndcg.evaluate(run, human, ["p@5"]).summary.to_dicts()[0]["p@5"]
        r = sqlndcg.ppi_evaluate(run, model, audit_of(human, seed, 40), ["p@5"]).summary.to_dicts()[0]
        naive_hits += r["naive_ci_low"] <= truth <= r["naive_ci_high"]
        ppi_hits += r["ci_low"] <= truth <= r["ci_high"]
    assert naive_hits / seeds < 0.3
    assert 0.88 <= ppi_hits / seeds <= 1.0


def test_docs_example():
    """docs/judgments.md's worked example: the numbers it shows are the ones computed."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Model judges: prediction-powered metrics"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    scope: dict = {}
    lines = []
    scope["print"] = lambda *a: lines.append(" ".join(str(x) for x in a))
    exec(code, scope)
    assert "\n".join(lines).strip() == shown.strip()


def test_low_lambda_warns():
    """Model labels unrelated to the human ones: lam near 0, a warning, and the interval about the audit's alone."""
    run, human, _ = make_data(3, queries=80)
    rng = np.random.default_rng(3)
    noise = human.assign(rel=rng.permutation(human.rel.to_numpy()))
    res = sqlndcg.ppi_evaluate(run, noise, audit_of(human, 3, 30), ["p@5"])
    r = res.summary.to_dicts()[0]
    assert r["lam"] < 0.1
    assert any("add little" in w for w in res.warnings)
    assert r["effective_human_labels"] == pytest.approx(30, rel=0.2)


def test_errors():
    run, human, model = make_data(4, queries=10)
    audit = audit_of(human, 4, 3)
    with pytest.raises(SettingError, match="ppi must be"):
        sqlndcg.ppi_evaluate(run, model, audit, ["p@5"], ppi="ppi+")
    with pytest.raises(InputError, match=r"audit \(DataFrame\) has no rows"):
        sqlndcg.ppi_evaluate(run, model, audit.iloc[:0], ["p@5"])
    lacking = model[model.query_id != audit.query_id.iloc[0]]
    with pytest.raises(DataError, match=f"1 audited queries have no model-labelled value.*{audit.query_id.iloc[0]}"):
        sqlndcg.ppi_evaluate(run, lacking, audit, ["p@5"])
    with pytest.raises(DataError, match="same grade scale"):
        sqlndcg.ppi_evaluate(run, model.assign(rel=model.rel * 2), audit, ["p@5"])


def check_engine(con, load, label: str) -> None:
    """ppi_evaluate and ppi_compare on ``con`` equal DuckDB's, every column to 1e-9 (groups, text and integer ids,
    PPI++ and PPI, the normal and the t interval); the errors are DuckDB's."""
    run, human, model = make_data(5, queries=30, tags=("bm25", "dense"))
    audit = audit_of(human, 5, 10)
    for ids in ("text", "int"):
        frames = (run, model, audit) if ids == "text" else [
            df.assign(query_id=df.query_id.str[1:].astype("int64")) for df in (run, model, audit)]
        names = [load(con, f"ppi_{role}_{ids}", df) for role, df in zip(("run", "model", "audit"), frames)]
        for mode, interval in (("ppi++", "normal"), ("ppi", "t")):
            calls = {
                "evaluate": lambda r, m, a, mode=mode, interval=interval, **c: sqlndcg.ppi_evaluate(
                    r, m, a, ["ndcg@5", "p@3"], group_by="tag", ppi=mode, interval=interval, **c),
                "compare": lambda r, m, a, mode=mode, interval=interval, **c: sqlndcg.ppi_compare(
                    r, m, a, ["ndcg@5", "p@3"], system="tag", baseline="bm25", ppi=mode, interval=interval, **c),
            }
            for verb, call in calls.items():
                want, got = call(*frames), call(*names, con=con)
                for part in ("summary", "per_query"):
                    assert_same(getattr(got, part), getattr(want, part), f"{label} {ids} ids {mode} {interval} "
                                f"{verb} {part}", sort_by=lambda r: tuple(str(v) for v in r[:4]))
                assert len(want.summary) == (4 if verb == "evaluate" else 2)
    lacking = model[model.query_id != audit.query_id.iloc[0]]
    with pytest.raises(DataError) as there:
        sqlndcg.ppi_evaluate(load(con, "ppi_run_text", run), load(con, "ppi_lacking", lacking),
                             load(con, "ppi_audit_text", audit), ["p@5"], con=con)
    with pytest.raises(DataError) as here:
        sqlndcg.ppi_evaluate(run, lacking, audit, ["p@5"])
    assert str(there.value).split(":", 1)[1] == str(here.value).split(":", 1)[1]


globals().update(engine_tests(check_engine))


@pytest.mark.parametrize("mode", ["ppi", "ppi++"])
def test_compare_equals_ppi_py_on_differences(mode):
    """ppi_compare: per system other than the baseline, ppi_py on the per-query differences system - baseline."""
    run, human, model = make_data(6, queries=40, tags=("bm25", "dense", "hybrid"))
    run = run.rename(columns={"tag": "system"})
    audit = audit_of(human, 6, 12)
    res = sqlndcg.ppi_compare(run, model, audit, ["ndcg@5", "p@3"], baseline="bm25", ppi=mode)
    pq = res.per_query.to_dicts()
    val = {(r["system"], r["query_id"], r["metric"]): r for r in pq}
    rows = res.summary.to_dicts()
    assert [(r["system"], r["metric"]) for r in rows] == [("dense", "ndcg@5"), ("dense", "p@3"),
                                                          ("hybrid", "ndcg@5"), ("hybrid", "p@3")]
    naive = {(r["system"], r["metric"]): r for r in sqlndcg.ppi_evaluate(run, model, audit, ["ndcg@5", "p@3"],
                                                                          group_by="system").summary.to_dicts()}
    for r in rows:
        assert r["baseline"] == "bm25"
        qs = sorted({q for (s, q, m) in val if s == r["system"] and m == r["metric"]})
        d = [(val[(r["system"], q, r["metric"])], val[("bm25", q, r["metric"])]) for q in qs]
        y = np.array([a["human_value"] - b["human_value"] for a, b in d if a["audited"]])
        yh = np.array([a["model_value"] - b["model_value"] for a, b in d if a["audited"]])
        yu = np.array([a["model_value"] - b["model_value"] for a, b in d if not a["audited"]])
        lam = 1.0 if mode == "ppi" else _calc_lam_glm(y, yh, yu, np.eye(1), clip=True)
        low, high = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
        assert r["lam"] == pytest.approx(lam, abs=1e-9)
        assert r["mean"] == pytest.approx(float(np.ravel(ppi_mean_pointestimate(y, yh, yu, lam=lam))[0]), abs=1e-9)
        assert (r["ci_low"], r["ci_high"]) == (pytest.approx(float(low[0]), abs=1e-9),
                                               pytest.approx(float(high[0]), abs=1e-9))
        assert r["naive_mean"] == pytest.approx(np.concatenate([yh, yu]).mean(), abs=1e-12)
        own = naive[(r["system"], r["metric"])]["naive_mean"] - naive[("bm25", r["metric"])]["naive_mean"]
        assert r["naive_mean"] == pytest.approx(own, abs=1e-12)
    with pytest.raises(SettingError, match="baseline 'bm24' must be one of the systems"):
        sqlndcg.ppi_compare(run, model, audit, ["p@3"], baseline="bm24")


def test_integer_ids_equal_text_ids():
    run, human, model = make_data(7, queries=25)
    audit = audit_of(human, 7, 8)
    as_int = [df.assign(query_id=df.query_id.str[1:].astype(int)) for df in (run, model, audit)]
    a = sqlndcg.ppi_evaluate(run, model, audit, ["ndcg@5"]).summary.to_dicts()
    b = sqlndcg.ppi_evaluate(*as_int, ["ndcg@5"]).summary.to_dicts()
    assert len(a) == len(b) == 1 and a[0].keys() == b[0].keys()
    for k, v in a[0].items():
        assert b[0][k] == (pytest.approx(v, abs=1e-12) if isinstance(v, float) else v), k


def test_evaluate_with_an_audit_is_ppi_evaluate():
    run, human, model = make_data(8, queries=20, tags=("bm25", "dense"))
    audit = audit_of(human, 8, 6)
    for mode in ["ppi", "ppi++"]:
        via = sqlndcg.evaluate(run, model, ["ndcg@5"], audit=audit, ppi=mode, group_by="tag", gain="linear")
        own = sqlndcg.ppi_evaluate(run, model, audit, ["ndcg@5"], ppi=mode, group_by="tag", gain="linear")
        assert same_rows(via.summary, own.summary) and via.settings["ppi"] == mode
    assert sqlndcg.evaluate(run, model, ["ndcg@5"], audit=audit, group_by="tag").settings["ppi"] == "ppi++"
    with pytest.raises(SettingError, match="ppi='ppi' corrects model labels by a human audit: pass .* audit="):
        sqlndcg.evaluate(run, model, ["ndcg@5"], ppi="ppi")
    with pytest.raises(SettingError, match="bootstrap= is not available with audit="):
        sqlndcg.evaluate(run, model, ["ndcg@5"], audit=audit, bootstrap="bca")


def test_compare_with_an_audit_is_ppi_compare():
    """compare(..., audit=) hands the call to ppi_compare (and equals ppi_py on the differences, above); the keywords
    ppi_compare cannot honour are refused."""
    run, human, model = make_data(9, queries=30, tags=("bm25", "dense"))
    audit = audit_of(human, 9, 10)
    for mode in ["ppi", "ppi++"]:
        via = sqlndcg.compare(run, model, ["ndcg@5", "p@3"], system="tag", baseline="bm25", audit=audit, ppi=mode,
                              gain="linear")
        own = sqlndcg.ppi_compare(run, model, audit, ["ndcg@5", "p@3"], system="tag", baseline="bm25", ppi=mode,
                                  gain="linear")
        assert same_rows(via.summary, own.summary) and via.settings["ppi"] == mode
    rows = sqlndcg.compare(run, model, ["p@3"], system="tag", baseline="bm25", audit=audit).summary.to_dicts()
    assert rows[0]["tag"] == "dense" and rows[0]["baseline"] == "bm25"
    pq = {(r["tag"], r["query_id"]): r for r in sqlndcg.ppi_evaluate(run, model, audit, ["p@3"], group_by="tag")
          .per_query.to_dicts()}
    qs = sorted({q for (_, q) in pq})
    d = [(pq[("dense", q)], pq[("bm25", q)]) for q in qs]
    y = np.array([a["human_value"] - b["human_value"] for a, b in d if a["audited"]])
    yh = np.array([a["model_value"] - b["model_value"] for a, b in d if a["audited"]])
    yu = np.array([a["model_value"] - b["model_value"] for a, b in d if not a["audited"]])
    lam = _calc_lam_glm(y, yh, yu, np.eye(1), clip=True)
    low, high = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=lam)
    assert (rows[0]["ci_low"], rows[0]["ci_high"]) == (pytest.approx(float(low[0]), abs=1e-9),
                                                       pytest.approx(float(high[0]), abs=1e-9))
    with pytest.raises(SettingError, match="compare: ppi='ppi' corrects model labels by a human audit"):
        sqlndcg.compare(run, model, ["p@3"], system="tag", baseline="bm25", ppi="ppi")
    with pytest.raises(SettingError, match="compare: interval='t' corrects model labels"):
        sqlndcg.compare(run, model, ["p@3"], system="tag", baseline="bm25", interval="t")
    for bad in [{"bootstrap": "bca"}, {"query_weights": run[["query_id"]]}, {"correction": "bh"}]:
        with pytest.raises(SettingError, match=f"compare: {next(iter(bad))}= is not available with audit="):
            sqlndcg.compare(run, model, ["p@3"], system="tag", baseline="bm25", audit=audit, **bad)
    # a dict of runs, as compare takes them: the same numbers as one run with a system column
    split = {tag: run[run.tag == tag].drop(columns="tag") for tag in ("bm25", "dense")}
    as_dict = sqlndcg.compare(split, model, ["p@3"], audit=audit)
    assert as_dict.settings["baseline"] == "bm25"
    for a, b in zip(as_dict.summary.to_dicts(), rows):
        assert a["system"] == b["tag"] and a["mean"] == pytest.approx(b["mean"], abs=1e-12)
        assert (a["ci_low"], a["lam"]) == (pytest.approx(b["ci_low"], abs=1e-12), pytest.approx(b["lam"], abs=1e-12))
    with pytest.raises(SettingError, match="name the baseline"):
        sqlndcg.compare(run, model, ["p@3"], system="tag", audit=audit)


@pytest.mark.parametrize("mode", ["ppi", "ppi++"])
def test_t_interval(mode):
    """interval="t": mean -+ scipy's t.ppf(0.975, n - 1) * se, se from ppi_py's normal interval (small audits)."""
    from scipy import stats

    run, human, model = make_data(10, queries=40, tags=("bm25", "dense"))
    for n in (3, 8, 35):
        audit = audit_of(human, 10, n)
        res = sqlndcg.ppi_evaluate(run, model, audit, ["ndcg@5", "p@3"], ppi=mode, group_by="tag", interval="t")
        assert res.settings["interval"] == "t"
        normal = sqlndcg.ppi_evaluate(run, model, audit, ["ndcg@5", "p@3"], ppi=mode, group_by="tag")
        for r, z in zip(res.summary.to_dicts(), normal.summary.to_dicts()):
            point, (low, high), lam, *_ = reference(res, r["tag"], r["metric"], 1.0 if mode == "ppi" else None)
            se = (high - low) / 2 / 1.959963984540054
            t = stats.t.ppf(0.975, n - 1)
            assert r["mean"] == pytest.approx(point, abs=1e-9)
            assert r["ci_low"] == pytest.approx(point - t * se, abs=1e-9)
            assert r["ci_high"] == pytest.approx(point + t * se, abs=1e-9)
            assert r["ci_high"] - r["ci_low"] >= z["ci_high"] - z["ci_low"]
            assert all(z[k] == (pytest.approx(v, abs=1e-12) if isinstance(v, float) else v)
                       for k, v in r.items() if not k.startswith("ci_"))
    via_eval = sqlndcg.evaluate(run, model, ["p@3"], audit=audit, interval="t", group_by="tag")
    assert same_rows(via_eval.summary, sqlndcg.ppi_evaluate(run, model, audit, ["p@3"], interval="t",
                                                            group_by="tag").summary)
    via_cmp = sqlndcg.compare(run, model, ["p@3"], system="tag", baseline="bm25", audit=audit, interval="t")
    own = sqlndcg.ppi_compare(run, model, audit, ["p@3"], system="tag", baseline="bm25", interval="t")
    assert same_rows(via_cmp.summary, own.summary) and own.settings["interval"] == "t"
    with pytest.raises(SettingError, match="interval must be 'normal'"):
        sqlndcg.ppi_evaluate(run, model, audit, ["p@3"], interval="z")
    with pytest.raises(SettingError, match="evaluate: interval='t' corrects model labels"):
        sqlndcg.evaluate(run, model, ["p@3"], interval="t")


def _example_section() -> tuple[list[str], list[str]]:
    """docs/judgments.md's example-data part of the PPI section: its python blocks and its text blocks."""
    text = DOCS.read_text(encoding="utf-8")
    part = text[text.index("### The example data: a model judge"):text.index("## In dbt")]
    return re.findall(r"```python\n(.*?)```", part, re.S), re.findall(r"```text\n(.*?)```", part, re.S)


def test_example_files_are_the_documented_script():
    """model.qrels and audit.qrels are what the script in the docs makes from example.qrels; the bias is known."""
    code, _ = _example_section()
    scope: dict = {}
    exec(code[0], scope)
    examples = Path(sqlndcg.example("qrels")).parent
    model, audit = scope["make_model_and_audit"](examples)
    assert Path(sqlndcg.example("model_qrels")).read_text() == model
    assert Path(sqlndcg.example("audit_qrels")).read_text() == audit
    human = Path(sqlndcg.example("qrels")).read_text().splitlines()
    bumped = [a != b for a, b in zip(human, model.splitlines())]
    assert len(bumped) == 115 and 25 <= sum(bumped) <= 45  # about 30% of the grades (the top grade stays)
    assert sorted({line.split()[0] for line in audit.splitlines()}) == sorted(f"q{i}" for i in range(1, 12, 2))


def test_example_data_docs():
    """The worked example on the example data and the command lines print what the docs show."""
    from sqlndcg.cli import main

    code, shown = _example_section()
    lines: list[str] = []
    exec(code[1], {"print": lambda *a: lines.append(" ".join(str(x) for x in a))})
    assert "\n".join(lines).strip() == shown[0].strip()
    commands = re.split(r"^\$ sqlndcg ", shown[1], flags=re.M)[1:]
    assert len(commands) == 2
    examples = Path(sqlndcg.example("qrels")).parent
    import contextlib
    import io
    import os

    for block in commands:
        argv, expected = block.split("\n", 1)
        out = io.StringIO()
        cwd = os.getcwd()
        try:
            os.chdir(examples)
            with contextlib.redirect_stdout(out):
                assert main(argv.split()) == 0
        finally:
            os.chdir(cwd)
        assert out.getvalue().strip() == expected.strip()


def test_cli_audit(tmp_path, capsys):
    """sqlndcg evaluate/compare --audit: the corrected and naive columns, lam, audited, effective_human_labels and
    the warnings, with real values (those of ppi_evaluate / ppi_compare); --interval t; csv/json; errors."""
    import json

    from sqlndcg.cli import main

    run, human, _ = make_data(3, queries=40, tags=("bm25", "dense"))
    rng = np.random.default_rng(3)
    noise = human.assign(rel=rng.permutation(human.rel.to_numpy()))  # a model judge that tracks nothing: lam ~ 0
    audit = audit_of(human, 3, 12)
    files = {}
    for name, df in [("run", run), ("model", noise), ("audit", audit)]:
        files[name] = str(tmp_path / f"{name}.csv")
        df.to_csv(files[name], index=False)
    own = sqlndcg.ppi_evaluate(run, noise, audit, ["p@5"], group_by="tag", interval="t")
    base = ["evaluate", "--run", files["run"], "--judgments", files["model"], "--audit", files["audit"], "-m", "p@5",
            "--group-by", "tag"]
    assert main(base + ["--interval", "t"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header[:9] == ["tag", "metric", "mean", "ci_low", "ci_high", "naive_mean", "naive_ci_low",
                          "naive_ci_high", "human_mean"]
    assert header[9:] == ["lam", "audited", "unaudited", "effective_human_labels"]
    for r, line in zip(own.summary.to_dicts(), out.splitlines()[2:4]):
        cells = line.split()
        assert cells[0] == r["tag"] and float(cells[2]) == pytest.approx(r["mean"], abs=5e-5)
        assert float(cells[3]) == pytest.approx(r["ci_low"], abs=5e-5)
        assert float(cells[5]) == pytest.approx(r["naive_mean"], abs=5e-5)
        assert float(cells[9]) == pytest.approx(r["lam"], abs=5e-5) and int(cells[10]) == 12
    assert "interval=t" in out and own.warnings and all(f"warning: {w}" in out for w in own.warnings)
    assert main(base + ["--ppi", "ppi", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    ppi = sqlndcg.ppi_evaluate(run, noise, audit, ["p@5"], group_by="tag", ppi="ppi").summary.to_dicts()
    assert [r["mean"] for r in got["summary"]] == pytest.approx([r["mean"] for r in ppi], abs=1e-12)
    assert all(r["lam"] == 1 for r in got["summary"])
    cmp = ["compare", "--run", files["run"], "--system", "tag", "--baseline", "bm25", "--judgments", files["model"],
           "--audit", files["audit"], "-m", "p@5"]
    assert main(cmp + ["--format", "csv"]) == 0
    rows = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    want = sqlndcg.ppi_compare(run, noise, audit, ["p@5"], system="tag", baseline="bm25").summary.to_dicts()[0]
    assert rows.loc[0, "tag"] == "dense" and rows.loc[0, "baseline"] == "bm25"
    for k in ("mean", "ci_low", "ci_high", "naive_mean", "lam", "effective_human_labels"):
        assert rows.loc[0, k] == pytest.approx(want[k], abs=1e-9), k
    assert main(cmp + ["--plot", str(tmp_path / "x.png")]) == 2
    assert "--plot is not available with --audit" in capsys.readouterr().err
    assert main(cmp + ["--correction", "bh"]) == 2
    assert "correction= is not available with audit=" in capsys.readouterr().err
    assert main(base + ["--bootstrap", "bca"]) == 2
    assert "bootstrap= is not available with audit=" in capsys.readouterr().err
    assert main(base[:5] + ["--interval", "t"]) == 2
    assert "pass the human labels of the audited queries as audit=" in capsys.readouterr().err
