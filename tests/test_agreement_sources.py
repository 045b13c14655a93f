"""Label sources side by side (agreement(..., annotator="source", between=(first, second))): the SQL tables equal
independent computations: scikit-learn's cohen_kappa_score (unweighted, linear, quadratic) and confusion_matrix,
the krippendorff package's alpha, numpy for the per-grade table, the signed differences and the coverage; on
generated labels of a human and a biased model judge (grades 0..3), text and integer ids, groups, pairs only one
source labelled, a third source that labels only part; the errors; the command line; every engine."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix

import sqlndcg
from sqlndcg import DataError, InputError, SettingError
from engine_parity import assert_same, engine_tests

TOL = 1e-9
GRADES = (0, 1, 2, 3)


def judged(seed: int, ids: str = "text", groups: int = 2, queries: int = 5, docs: int = 10,
           sources=("human", "llm-v2", "xjudge")) -> pd.DataFrame:
    """A human's grade near a latent one; the model judge ("llm-v2") one grade higher a third of the time (a known
    upward bias); a third source labelling about a third of the documents. Each source misses some pairs."""
    rng = random.Random(seed)
    rows = []
    for g in range(groups):
        for q in range(queries):
            for d in range(docs):
                truth = rng.randrange(4)
                labels = {sources[0]: min(3, max(0, truth + rng.choice([-1, 0, 0, 0, 1])))}
                labels[sources[1]] = min(3, truth + (1 if rng.random() < 0.34 else 0))
                labels[sources[2]] = rng.randrange(4)
                for s, v in labels.items():
                    share = {sources[0]: 0.8, sources[1]: 0.9, sources[2]: 0.35}[s]
                    if rng.random() < share:
                        qid = f"q{q}" if ids == "text" else q
                        did = f"d{d}" if ids == "text" else 100 + d
                        rows.append((f"day{g}", qid, did, s, float(v)))
    return pd.DataFrame(rows, columns=["day", "query_id", "doc_id", "source", "rel"])


def shared(frame: pd.DataFrame, first, second, day=None) -> pd.DataFrame:
    """The (query, doc) pairs both sources labelled: columns x (first's grade), y (second's)."""
    f = frame if day is None else frame[frame["day"] == day]
    a = f[f["source"] == first].set_index(["query_id", "doc_id"])["rel"]
    b = f[f["source"] == second].set_index(["query_id", "doc_id"])["rel"]
    both = pd.concat([a.rename("x"), b.rename("y")], axis=1, join="inner").reset_index()
    return both


def close(got, want) -> bool:
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None
    return got is not None and abs(got - want) <= TOL


def rows_of(table, **where):
    return [r for r in table.to_dicts() if all(r[k] == v for k, v in where.items())]


@pytest.fixture(scope="module", params=["text", "int"])
def case(request):
    frame = judged(7, request.param)
    return frame, sqlndcg.agreement(frame, annotator="source", between=("human", "llm-v2"), group_by="day")


def test_cohen_kappa_and_mean_difference_equal_sklearn(case):
    frame, res = case
    for day in ("day0", "day1"):
        both = shared(frame, "human", "llm-v2", day)
        pair, = rows_of(res.pairs, day=day)
        overall, = rows_of(res.overall, day=day)
        assert (pair["annotator_a"], pair["annotator_b"]) == ("human", "llm-v2")
        assert pair["units"] == overall["units"] == len(both) and overall["annotators"] == 2
        assert overall["ratings"] == 2 * len(both)  # only the pairs both labelled
        for weights, column in ((None, "cohen_kappa"), ("linear", "cohen_kappa_linear"),
                                ("quadratic", "cohen_kappa_quadratic")):
            want = cohen_kappa_score(both["x"], both["y"], weights=weights)
            assert close(pair[column], want) and close(overall[column], want), (day, column)
        want = float(np.mean(both["y"] - both["x"]))
        assert close(pair["mean_difference"], want) and close(overall["mean_difference"], want)
        assert want > 0.15  # the judge's known upward bias shows
        assert close(overall["observed_agreement"], float(np.mean(both["x"] == both["y"])))


def test_alpha_equals_the_krippendorff_package_on_the_shared_pairs(case):
    frame, res = case
    for day in ("day0", "day1"):
        both = shared(frame, "human", "llm-v2", day)
        data = np.array([both["x"].to_numpy(), both["y"].to_numpy()], dtype=float)
        overall, = rows_of(res.overall, day=day)
        for level in ("nominal", "ordinal", "interval"):
            want = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            assert close(overall[f"alpha_{level}"], want), (day, level)


def test_confusion_equals_sklearn_confusion_matrix(case):
    frame, res = case
    for day in ("day0", "day1"):
        both = shared(frame, "human", "llm-v2", day)
        want = confusion_matrix(both["x"], both["y"], labels=list(map(float, GRADES)))
        got = np.zeros((4, 4), dtype=int)
        cells = rows_of(res.confusion, day=day)
        for r in cells:
            assert (r["annotator_a"], r["annotator_b"]) == ("human", "llm-v2") and r["units"] > 0
            got[int(r["grade_a"]), int(r["grade_b"])] = r["units"]
            assert close(r["share"], r["units"] / len(both))
        assert (got == want).all(), (day, got, want)
        assert len(cells) == int((want > 0).sum())


def test_per_grade_equals_numpy(case):
    frame, res = case
    for day in ("day0", "day1"):
        both = shared(frame, "human", "llm-v2", day)
        x, y = both["x"].to_numpy(), both["y"].to_numpy()
        got = rows_of(res.per_grade, day=day)
        assert [r["grade"] for r in got] == sorted(set(x))
        for r in got:
            g = r["grade"]
            first, second = x == g, y == g
            assert r["units"] == first.sum() and r["units_b"] == second.sum()
            assert close(r["share"], first.mean())
            assert close(r["agreement"], (first & second).sum() / first.sum())  # recall of g
            assert close(r["precision"], (first & second).sum() / second.sum() if second.any() else None)
            assert close(r["mean_b"], y[first].mean()) and close(r["mean_difference"], y[first].mean() - g)


def test_per_query_difference_and_largest_differences(case):
    frame, res = case
    want = {}
    for day in ("day0", "day1"):
        both = shared(frame, "human", "llm-v2", day)
        for q, part in both.groupby("query_id"):
            want[(day, str(q))] = (float(np.mean(part["y"] - part["x"])), float(np.mean(part["x"] == part["y"])), len(part))
    rows = res.per_query.to_dicts()
    assert len(rows) == len(want)
    for r in rows:
        diff, agree, units = want[(r["day"], str(r["query_id"]))]
        assert close(r["mean_difference"], diff) and close(r["observed_agreement"], agree) and r["units"] == units
    worst = res.largest_differences(2).to_dicts()
    assert len(worst) == 4
    for day in ("day0", "day1"):
        top = max(abs(v[0]) for k, v in want.items() if k[0] == day)
        assert close(abs(rows_of(res.largest_differences(1), day=day)[0]["mean_difference"]), top)


def test_coverage_counts_the_pairs_only_one_source_labelled(case):
    frame, res = case
    assert res.settings["between"] == ["human", "llm-v2"] and res.settings["grade_scales"] is None
    for day in ("day0", "day1"):
        both = shared(frame, "human", "llm-v2", day)
        got = rows_of(res.coverage, day=day)
        assert [r["annotator"] for r in got] == ["human", "llm-v2"]  # the third source is left out
        for r in got:
            mine = frame[(frame["day"] == day) & (frame["source"] == r["annotator"])]
            assert r["units"] == len(mine) and r["shared_units"] == len(both)
            assert r["only_units"] == len(mine) - len(both) > 0
            assert (r["grade_min"], r["grade_max"]) == (mine["rel"].min(), mine["rel"].max())
            assert close(r["mean_grade"], mine["rel"].mean())


def test_the_order_of_between_orients_every_table():
    frame = judged(8, groups=1)
    ab = sqlndcg.agreement(frame, annotator="source", between=["human", "llm-v2"])
    ba = sqlndcg.agreement(frame, annotator="source", between=["llm-v2", "human"])
    p, q = ab.pairs.to_dicts()[0], ba.pairs.to_dicts()[0]
    assert (q["annotator_a"], q["annotator_b"]) == ("llm-v2", "human")
    assert close(q["mean_difference"], -p["mean_difference"]) and close(q["cohen_kappa"], p["cohen_kappa"])
    flipped = {(r["grade_b"], r["grade_a"]): r["units"] for r in ba.confusion.to_dicts()}
    assert flipped == {(r["grade_a"], r["grade_b"]): r["units"] for r in ab.confusion.to_dicts()}
    both = shared(frame, "llm-v2", "human")
    for r in ba.per_grade.to_dicts():  # the model's grade g: how the humans grade it
        assert close(r["mean_b"], both["y"][both["x"] == r["grade"]].mean())


def test_without_between_every_pair_of_sources():
    frame = judged(9, groups=1)
    res = sqlndcg.agreement(frame, annotator="source")
    pairs = [(r["annotator_a"], r["annotator_b"]) for r in res.pairs.to_dicts()]
    assert pairs == [("human", "llm-v2"), ("human", "xjudge"), ("llm-v2", "xjudge")]
    assert [r["annotator"] for r in res.coverage.to_dicts()] == ["human", "llm-v2", "xjudge"]
    for a, b in pairs:
        both = shared(frame, a, b)
        pair, = rows_of(res.pairs, annotator_a=a, annotator_b=b)
        assert close(pair["cohen_kappa_linear"], cohen_kappa_score(both["x"], both["y"], weights="linear"))
        assert close(pair["mean_difference"], float(np.mean(both["y"] - both["x"])))
        want = confusion_matrix(both["x"], both["y"], labels=list(map(float, GRADES)))
        for r in rows_of(res.confusion, annotator_a=a, annotator_b=b):
            assert r["units"] == want[int(r["grade_a"]), int(r["grade_b"])]
        assert sum(r["units"] for r in rows_of(res.per_grade, annotator_a=a, annotator_b=b)) == len(both)
    # three sources: no single pair overall, so no kappa or difference there
    assert res.overall.to_dicts()[0]["mean_difference"] is None
    units = frame.groupby(["query_id", "doc_id"])["source"].count()
    human = frame[frame["source"] == "human"].set_index(["query_id", "doc_id"]).index
    assert rows_of(res.coverage, annotator="human")[0]["shared_units"] == int((units.loc[human] >= 2).sum())


def test_integer_sources():
    frame = judged(10, groups=1).assign(source=lambda f: f["source"].map({"human": 1, "llm-v2": 2, "xjudge": 3}))
    res = sqlndcg.agreement(frame, annotator="source", between=(1, 2))
    text = sqlndcg.agreement(frame, annotator="source", between=("1", "2"))
    both = shared(frame, 1, 2)
    assert close(res.pairs.to_dicts()[0]["cohen_kappa"], cohen_kappa_score(both["x"], both["y"]))
    assert res.pairs.rows == text.pairs.rows and res.confusion.rows == text.confusion.rows
    with pytest.raises(InputError, match=r"between names 7, which the 'source' column does not hold; its values are 1, 2, 3"):
        sqlndcg.agreement(frame, annotator="source", between=(1, 7))
    with pytest.raises(SettingError, match="holds integers, so name two integers"):
        sqlndcg.agreement(frame, annotator="source", between=("human", 2))


def test_different_grade_scales_are_reported_not_refused():
    frame = judged(11, groups=1)
    frame.loc[frame["source"] == "llm-v2", "rel"] /= 3  # a model scoring 0..1
    res = sqlndcg.agreement(frame, annotator="source", between=("human", "llm-v2"))
    assert res.settings["grade_scales"] == "grade scales differ: human 0..3, llm-v2 0..1"
    got = {r["annotator"]: (r["grade_min"], r["grade_max"]) for r in res.coverage.to_dicts()}
    assert got == {"human": (0.0, 3.0), "llm-v2": (0.0, 1.0)}


@pytest.mark.parametrize("between, error, pattern", [
    (("human", "gpt"), InputError,
     r"judgments \(DataFrame\): between names 'gpt', which the 'source' column does not hold; its values are 'human', 'llm-v2', 'xjudge'"),
    (("humans", "gpt"), InputError, r"between names 'humans', 'gpt'"),
    (("human",), SettingError, r"between=\['human'\] must name two sources"),
    (("human", "llm-v2", "xjudge"), SettingError, r"must name two sources"),
    ("human", SettingError, r"between='human' must name two sources"),
    (("human", "human"), SettingError, r"between names 'human' twice"),
])
def test_bad_between_is_refused(between, error, pattern):
    with pytest.raises(error, match=pattern):
        sqlndcg.agreement(judged(12, groups=1), annotator="source", between=between)


def test_two_sources_with_no_pair_in_common_are_refused():
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
                          "source": ["human", "human", "llm"], "rel": [1.0, 2.0, 3.0]})
    with pytest.raises(DataError, match=r"'human' and 'llm' labelled no \(query, document\) in common "
                                        r"\(units labelled: 'human' 2, 'llm' 1\)"):
        sqlndcg.agreement(frame, annotator="source", between=("human", "llm"))


def test_a_hand_checked_example():
    """The example of docs/judgments.md, by hand: five shared pairs, the judge one grade higher on three."""
    frame = pd.DataFrame({
        "query_id": ["q1"] * 6 + ["q2"] * 6,
        "doc_id": ["a", "a", "b", "b", "c", "c", "a", "a", "b", "b", "d", "e"],
        "source": ["human", "llm"] * 5 + ["human", "llm"],
        "rel": [3, 3, 1, 2, 0, 1, 2, 2, 2, 3, 1, 0]})
    res = sqlndcg.agreement(frame, annotator="source", between=("human", "llm"))
    pair = res.pairs.to_dicts()[0]
    assert pair["units"] == 5 and close(pair["observed_agreement"], 0.4) and close(pair["mean_difference"], 0.6)
    assert [(r["annotator"], r["units"], r["only_units"]) for r in res.coverage.to_dicts()] == [
        ("human", 6, 1), ("llm", 6, 1)]
    grade2, = rows_of(res.per_grade, grade=2.0)
    assert (grade2["units"], grade2["agreement"], grade2["precision"], grade2["mean_b"]) == (2, 0.5, 0.5, 2.5)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, text=True, timeout=300)


def test_the_command_line_prints_coverage_confusion_and_per_grade(tmp_path):
    path = tmp_path / "labels.csv"
    frame = judged(13, groups=1)
    frame.to_csv(path, index=False)
    done = _cli("agreement", str(path), "--annotator", "source", "--between", "human", "llm-v2", "--confusion")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    both = shared(frame, "human", "llm-v2")
    want = confusion_matrix(both["x"], both["y"], labels=list(map(float, GRADES)))
    assert "labels of each source" in out and "confusion matrix (rows: human, columns: llm-v2)" in out
    block = out.split("confusion matrix (rows: human, columns: llm-v2):\n")[1].splitlines()
    assert block[0].split() == ["human", "\\", "llm-v2", "0", "1", "2", "3", "total"]
    for g in range(4):
        assert block[2 + g].split() == [str(g)] + [str(v) for v in want[g]] + [str(want[g].sum())]
    assert "per grade of the first source" in out and "mean_difference" in out
    done = _cli("agreement", "--judgments", str(path), "--annotator-column", "source", "--between", "human",
                "llm-v2", "--confusion", "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert "annotator_a,annotator_b,grade_a,grade_b,units,share" in done.stdout
    assert "annotator_a,annotator_b,grade,units,share,agreement,units_b,precision,mean_b,mean_difference" in done.stdout
    done = _cli("agreement", str(path), "--annotator", "source", "--between", "human", "gpt")
    assert done.returncode == 2 and done.stderr.startswith("sqlndcg: error:") and "'gpt'" in done.stderr
    done = _cli("agreement", "--annotator", "source")
    assert done.returncode == 2 and "agreement needs the ratings" in done.stderr


# --- every engine gives DuckDB's numbers ----------------------------------------------------------------------------

def check_engine(con, load, label: str) -> None:
    for ids in ("text", "int"):
        frame = judged(14, ids, queries=3, docs=6)
        want = sqlndcg.agreement(frame, annotator="source", between=("human", "llm-v2"), group_by="day")
        got = sqlndcg.agreement(load(con, f"sources_{ids}", frame), annotator="source",
                                between=("human", "llm-v2"), group_by="day", con=con)
        for part in ("overall", "per_query", "pairs", "confusion", "per_grade", "coverage"):
            assert_same(getattr(got, part), getattr(want, part), f"{label} {ids} ids, {part}",
                        sort_by=lambda r: tuple(str(v) for v in r))
    frame = judged(14, queries=3, docs=6)
    with pytest.raises(InputError, match="'gpt'"):
        sqlndcg.agreement(load(con, "sources_bad", frame), annotator="source", between=("human", "gpt"),
                          group_by="day", con=con)


globals().update(engine_tests(check_engine))


def test_the_sql_renders_for_every_target_engine():
    from sqlndcg.core import render

    columns = [{"name": n, "type": "VARCHAR", "class": "text"} for n in ("query_id", "doc_id", "source")] + [
        {"name": "rel", "type": "DOUBLE", "class": "number"}]
    described = {"sql": '"labels"', "label": "judgments", "columns": columns}
    for dialect in ("duckdb", "postgres", "spark", "sqlite", "clickhouse", "snowflake", "bigquery", "mysql", "tsql"):
        for by in ("all", "query", "pair", "confusion", "grade", "coverage"):
            given = {"by": by, "annotator": "source", "between": ["human", "it's a model"]}
            sql = render.call("_agreement_sql", render.call("_agreement_plan", described, given, dialect=dialect),
                              dialect=dialect)
            assert "QUALIFY" not in sql and ("it''s a model" in sql or "it\\'s a model" in sql), (dialect, by)
