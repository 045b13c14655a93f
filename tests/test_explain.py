"""explain attributes each difference between two sets of settings to the setting that causes it: constructed
cases where exactly one setting differs (each attributed to it alone), mixed ones checked against evaluate() run
once per switched setting, the one-query arithmetic against the worked example of SEMANTICS.md, and the command."""

import json
import math
import subprocess
import sys

import pandas as pd
import pytest

import sqlndcg


def frames(run_rows, judgment_rows):
    return (pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]),
            pd.DataFrame(judgment_rows, columns=["query_id", "doc_id", "rel"]))


#: q1: graded, a relevant document not retrieved, a tie between labels 3 and 0; q2: nothing relevant; q3: judged,
#: not in the run; q4: a list of 2 with 3 relevant judged; q5: no tie, every relevant retrieved, binary labels.
RUN = [("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 2.0), ("q1", "d", 1.0),
       ("q2", "a", 2.0), ("q2", "b", 1.0),
       ("q4", "a", 2.0), ("q4", "b", 1.0),
       ("q5", "a", 3.0), ("q5", "b", 2.0), ("q5", "c", 1.0)]
JUDGMENTS = [("q1", "a", 2), ("q1", "b", 0), ("q1", "c", 3), ("q1", "d", 1), ("q1", "x", 2),
             ("q2", "a", 0), ("q2", "b", 0),
             ("q3", "a", 1),
             ("q4", "a", 1), ("q4", "x", 1), ("q4", "y", 1),
             ("q5", "a", 0), ("q5", "b", 1), ("q5", "c", 1)]
METRICS = ["ndcg@3", "ndcg@10", "p@10"]

#: setting -> (its value in b, the (query, metric) pairs that must differ, all attributed to it alone)
ONE_SETTING = {
    "gain": ("linear", {("q1", "ndcg@3"), ("q1", "ndcg@10")}),
    "ideal": ("retrieved", {("q1", "ndcg@3"), ("q1", "ndcg@10"), ("q4", "ndcg@3"), ("q4", "ndcg@10")}),
    "ties": ("average", {("q1", "ndcg@3"), ("q1", "ndcg@10")}),
    "short_lists": ("truncate", {("q1", "p@10"), ("q4", "ndcg@3"), ("q4", "ndcg@10"), ("q4", "p@10"),
                                 ("q5", "p@10")}),
    "empty": ("skip", {("q2", "ndcg@3"), ("q2", "ndcg@10")}),
    "queries": ("both", {("q3", m) for m in METRICS}),
}


@pytest.mark.parametrize("setting", list(ONE_SETTING))
def test_one_differing_setting_is_named_alone(setting):
    value, expected = ONE_SETTING[setting]
    ex = sqlndcg.explain(*frames(RUN, JUDGMENTS), METRICS, a={}, b={setting: value})
    assert list(ex.differing) == [setting]
    assert {(r["query_id"], r["metric"]) for r in ex.rows} == expected
    assert all(r["causes"] == [setting] and r["together"] is None for r in ex.rows)
    counted = {(s["setting"], s["metric"]): s["queries"] for s in ex.summary}
    assert set(counted) == {(setting, m) for _, m in expected}
    for m in {m for _, m in expected}:
        assert counted[(setting, m)] == sum(1 for _, m2 in expected if m2 == m)
    # the text says it per metric
    assert f"  {setting}: " in str(ex)


def test_changes_are_b_minus_a():
    ex = sqlndcg.explain(*frames(RUN, JUDGMENTS), ["ndcg@3"], a={}, b={"gain": "linear"})
    (row,) = ex.rows
    a = sqlndcg.evaluate(*frames(RUN, JUDGMENTS), ["ndcg@3"]).per_query.to_dicts()
    b = sqlndcg.evaluate(*frames(RUN, JUDGMENTS), ["ndcg@3"], gain="linear").per_query.to_dicts()
    want_a = next(r["ndcg@3"] for r in a if r["query_id"] == "q1")
    want_b = next(r["ndcg@3"] for r in b if r["query_id"] == "q1")
    assert (row["a"], row["b"]) == (want_a, want_b)
    assert row["change"] == pytest.approx(want_b - want_a, abs=1e-15)


def test_no_difference_says_so():
    ex = sqlndcg.explain(*frames(RUN, JUDGMENTS), METRICS, a="trec_eval", b={"preset": "trec_eval"})
    assert not ex.differing and not ex.rows
    assert "no number differs" in str(ex)


@pytest.mark.parametrize("a,b", [("trec_eval", "sklearn"), ({}, {"gain": "linear", "empty": "skip",
                                                                   "ideal": "retrieved"})])
def test_mixed_causes_are_the_single_switches_that_change_the_number(a, b):
    """Each row's causes are exactly the settings whose switch alone (evaluate() with a's settings and that one
    of b's) changes its number, and 'together' is what their single changes leave of b - a."""
    run, judgments = frames(RUN, JUDGMENTS)
    ex = sqlndcg.explain(run, judgments, ["ndcg@3", "ndcg@10"], a=a, b=b)
    assert len(ex.differing) >= 3
    a_settings = a if isinstance(a, dict) else {"preset": a}

    def per_query(**settings):
        rows = sqlndcg.evaluate(run, judgments, ["ndcg@3", "ndcg@10"], **settings).per_query.to_dicts()
        return {r["query_id"]: r for r in rows}

    base = per_query(**a_settings)
    single = {s: per_query(**a_settings, **{s: to}) for s, (_, to) in ex.differing.items()}
    assert ex.rows
    multi = 0
    for row in ex.rows:
        q, m = row["query_id"], row["metric"]
        x = base.get(q, {}).get(m)
        moved = [s for s in ex.differing if (single[s].get(q, {}).get(m) != x)
                 and not (x is not None and single[s].get(q, {}).get(m) is not None
                          and abs(single[s][q][m] - x) <= 1e-12)]
        assert row["causes"] == moved, row
        multi += len(moved) > 1
        if row["change"] is not None and all(single[s][q][m] is not None for s in moved):
            rest = row["change"] - sum(single[s][q][m] - x for s in moved)
            assert (row["together"] or 0.0) == pytest.approx(rest if abs(rest) > 1e-9 else 0.0, abs=1e-12)
    assert multi >= 1, "some difference has more than one cause"


def test_trec_eval_against_sklearn_names_the_settings_of_the_presets():
    ex = sqlndcg.explain(*frames(RUN, JUDGMENTS), ["ndcg@3"], a="trec_eval", b="sklearn")
    assert ex.differing == {"ideal": ("judgments", "retrieved"), "ties": ("doc_id", "average"),
                            "labels": ("integer_part", "as_given"), "id_order": ("text", "native")}
    causes = {c for r in ex.rows for c in r["causes"]}
    assert causes == {"ideal", "ties"}  # integer labels and ids of one letter: labels and id_order change nothing


# -- one query: the worked example of SEMANTICS.md ----------------------------------------------------------------

WORKED_RUN = [("q", d, s) for d, s in zip("ABCDE", [5.0, 4.0, 3.0, 2.0, 1.0])]
WORKED_JUDGMENTS = [("q", d, r) for d, r in zip("ABCDE", [3, 2, 0, 1, 2])]


def test_one_query_prints_the_worked_example():
    ex = sqlndcg.explain(*frames(WORKED_RUN, WORKED_JUDGMENTS), ["ndcg@3", "ndcg@5", "p@3"], a={}, b="sklearn",
                         query="q")
    default, linear = ex.views
    assert [r[1] for r in default["ranking"]] == list("ABCDE")
    assert [r[3] for r in default["ranking"]] == [7, 3, 0, 1, 3]  # 2^rel - 1
    assert [round(r[6], 6) for r in default["ranking"]] == [7.0, 8.892789, 8.892789, 9.323466, 10.484024]
    assert [r[1] for r in default["ideal"]] == ["A", "B", "E", "D"]
    assert [round(r[6], 6) for r in default["ideal"]] == [7.0, 8.892789, 10.392789, 10.823466]
    assert default["arithmetic"] == ["NDCG@3 = 8.892789 / 10.392789 = 0.855669",
                                     "NDCG@5 = 10.484024 / 10.823466 = 0.968638",
                                     "P@3 = 2 relevant / 3 = 0.666667"]
    # b is sklearn: linear gain, the ideal of the retrieved documents
    assert linear["arithmetic"][0].endswith("= 0.809953") and linear["arithmetic"][1].endswith("= 0.960247")
    text = str(ex)
    assert "NDCG@3 = 8.892789 / 10.392789 = 0.855669" in text and "ideal ranking:" in text


def test_one_query_not_scored_is_refused():
    with pytest.raises(sqlndcg.errors.SettingError, match="'nope' is not scored"):
        sqlndcg.explain(*frames(WORKED_RUN, WORKED_JUDGMENTS), ["ndcg@3"], a={}, b=None, query="nope")


def test_one_query_with_group_by_shows_each_ranking_of_it():
    """Two systems rank the worked example's documents, x as SEMANTICS.md does, y in reverse: one view per system,
    each with its own ranking and numbers (those evaluate() gives), the same ideal ranking."""
    run = pd.DataFrame([("x", "q", d, s) for d, s in zip("ABCDE", [5.0, 4.0, 3.0, 2.0, 1.0])]
                       + [("y", "q", d, s) for d, s in zip("ABCDE", [1.0, 2.0, 3.0, 4.0, 5.0])],
                       columns=["system", "query_id", "doc_id", "score"])
    judgments = frames(WORKED_RUN, WORKED_JUDGMENTS)[1]
    ex = sqlndcg.explain(run, judgments, ["ndcg@3", "ndcg@5"], a={}, b=None, query="q", group_by="system")
    x, y = ex.views
    assert (x["group"], y["group"]) == ({"system": "x"}, {"system": "y"})
    assert [r[1] for r in x["ranking"]] == list("ABCDE") and [r[1] for r in y["ranking"]] == list("EDCBA")
    assert x["arithmetic"][0] == "NDCG@3 = 8.892789 / 10.392789 = 0.855669"
    dcg = 3 + 1 / math.log2(3) + 0  # y: E (gain 3), D (1), C (0)
    assert y["arithmetic"][0] == f"NDCG@3 = {dcg:.6f} / 10.392789 = {dcg / 10.392789:.6f}"
    assert x["ideal"] == y["ideal"] and [r[1] for r in y["ideal"]] == ["A", "B", "E", "D"]
    per_query = sqlndcg.evaluate(run, judgments, ["ndcg@3"], group_by="system").per_query.to_dicts()
    assert [f"{r['ndcg@3']:.6f}" for r in per_query] == [v["arithmetic"][0][-8:] for v in ex.views]
    text = str(ex)
    assert "query q, system=x under " in text and "query q, system=y under " in text


def test_one_query_with_a_group_the_judgments_share_takes_that_groups_labels():
    """Judged per day: on day 2 the labels are reversed, so that day's ideal ranking and gains are its own."""
    days = [("d1", "q", d, r) for d, r in zip("ABCDE", [3, 2, 0, 1, 2])] + \
           [("d2", "q", d, r) for d, r in zip("ABCDE", [2, 1, 0, 2, 3])]
    judgments = pd.DataFrame(days, columns=["ds", "query_id", "doc_id", "rel"])
    run = pd.DataFrame([(day, "q", d, s) for day in ("d1", "d2") for d, s in zip("ABCDE", [5.0, 4.0, 3.0, 2.0, 1.0])],
                       columns=["ds", "query_id", "doc_id", "score"])
    ex = sqlndcg.explain(run, judgments, ["ndcg@3", "ndcg@5"], a={}, b=None, query="q", group_by="ds")
    one, two = ex.views
    assert one["group"] == {"ds": "d1"} and one["arithmetic"][0] == "NDCG@3 = 8.892789 / 10.392789 = 0.855669"
    assert [r[2] for r in two["ranking"]] == [2, 1, 0, 2, 3] and [r[1] for r in two["ideal"]] == ["E", "A", "D", "B"]
    dcg, idcg = 3 + 1 / math.log2(3), 7 + 3 / math.log2(3) + 3 / 2
    assert two["arithmetic"][0] == f"NDCG@3 = {dcg:.6f} / {idcg:.6f} = {dcg / idcg:.6f}"


# -- the command --------------------------------------------------------------------------------------------------

def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "sqlndcg", "explain", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_command(tmp_path):
    run, judgments = frames(RUN, JUDGMENTS)
    run.to_csv(tmp_path / "run.csv", index=False)
    judgments.to_csv(tmp_path / "qrels.csv", index=False)
    done = _cli("--run", "run.csv", "--judgments", "qrels.csv", "-m", "ndcg@3", "--a", "trec_eval", "--b", "sklearn",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "differing settings: ideal judgments -> retrieved; ties doc_id -> average" in done.stdout
    assert "  ideal: " in done.stdout and "  ties: " in done.stdout
    done = _cli("--run", "run.csv", "--judgments", "qrels.csv", "-m", "ndcg@3", "--a", "gain=linear,empty=skip",
                "--query", "q1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "query q1 under gain=linear, empty=skip" in done.stdout and "NDCG@3 = " in done.stdout
    grouped = run.assign(system="s1")
    grouped.to_csv(tmp_path / "runs.csv", index=False)
    done = _cli("--run", "runs.csv", "--judgments", "qrels.csv", "-m", "ndcg@3", "--group-by", "system",
                "--query", "q1", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [v["group"] for v in json.loads(done.stdout)["views"]] == [{"system": "s1"}]
    bad = _cli("--run", "run.csv", "--judgments", "qrels.csv", "--b", "trec-eval", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "'trec-eval' is not known" in bad.stderr and "--a/--b" in bad.stderr


# -- evaluate's defaults and settings (issue 28) ------------------------------------------------------------------

def test_one_query_uses_evaluates_defaults_unless_a_preset_is_given():
    """Without a, the query is explained under evaluate()'s defaults (exponential gain: NDCG@3 0.855669 in the
    worked example), not trec_eval's (linear: 0.809953); a preset or a setting keyword changes that."""
    run, judgments = frames(WORKED_RUN, WORKED_JUDGMENTS)
    (default,) = sqlndcg.explain(run, judgments, ["ndcg@3"], b=None, query="q").views
    assert [r[3] for r in default["ranking"]] == [7, 3, 0]  # 2^rel - 1 (the top 3, which NDCG@3 reads)
    assert default["arithmetic"] == ["NDCG@3 = 8.892789 / 10.392789 = 0.855669"] and default["settings"] == {}
    assert sqlndcg.evaluate(run, judgments, ["ndcg@3"]).per_query.column("ndcg@3") == [pytest.approx(0.855669, abs=1e-6)]
    for given in ({"preset": "trec_eval"}, {"gain": "linear"}):
        (view,) = sqlndcg.explain(run, judgments, ["ndcg@3"], b=None, query="q", **given).views
        assert [r[3] for r in view["ranking"]] == [3, 2, 0] and view["arithmetic"][0].endswith("= 0.809953")
    (side,) = sqlndcg.explain(run, judgments, ["nDCG@3"], a="trec_eval", b=None, query="q").views
    # spelled nDCG@3, still explained: linear DCG@3 = 3 + 2 / log2(3), IDCG@3 = 3 + 2 / log2(3) + 2 / 2
    assert side["arithmetic"] == ["NDCG@3 = 4.261860 / 5.261860 = 0.809953"]


def test_comparison_starts_from_evaluates_defaults_and_shares_the_setting_keywords():
    ex = sqlndcg.explain(*frames(RUN, JUDGMENTS), ["ndcg@3"], b="trec_eval")
    assert ex.differing == {"gain": ("exponential", "linear"), "labels": ("as_given", "integer_part"),
                            "id_order": ("native", "text")}
    # a setting keyword is shared by both sides: with the linear gain on both, only trec_eval's other settings
    ex = sqlndcg.explain(*frames(RUN, JUDGMENTS), ["ndcg@3"], b="trec_eval", gain="linear")
    assert "gain" not in ex.differing and ex.a == {"gain": "linear"}


def test_the_command_takes_evaluates_setting_flags(tmp_path):
    run, judgments = frames(WORKED_RUN, WORKED_JUDGMENTS)
    run.rename(columns={"score": "points"}).to_csv(tmp_path / "run.csv", index=False)
    judgments.to_csv(tmp_path / "qrels.csv", index=False)
    base = ["--run", "run.csv", "--judgments", "qrels.csv", "-m", "ndcg@3", "--query", "q", "--score-column",
            "points"]
    done = _cli(*base, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "under defaults" in done.stdout and "NDCG@3 = 8.892789 / 10.392789 = 0.855669" in done.stdout
    done = _cli(*base, "--gain", "linear", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "under gain=linear" in done.stdout and "= 0.809953" in done.stdout
    done = _cli(*base, "--preset", "trec_eval", "--format", "json", cwd=tmp_path)
    assert json.loads(done.stdout)["views"][0]["arithmetic"][0].endswith("= 0.809953"), done.stderr
