"""Names and settings that mislead (issue 20): absurd numbers refused in one line naming the setting, flag or
parameter and what it allows; a misspelled name answered with the closest ones; the ir_measures names the
measure table lists accepted with ir_measures' meaning, or refused naming both meanings."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import sqlndcg
from sqlndcg import MetricError, SettingError
from sqlndcg.core.spec import make_spec

EXAMPLES = Path(__file__).resolve().parent.parent / "sqlndcg" / "examples"
RUN_FILE, QRELS_FILE = str(EXAMPLES / "example.run"), str(EXAMPLES / "example.qrels")

RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
JUDGMENTS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "rel": [1, 0, 2]})


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlndcg", *args], capture_output=True, text=True, timeout=300)


def evaluate_cli(*args: str) -> subprocess.CompletedProcess:
    return cli("evaluate", "--run", RUN_FILE, "--judgments", QRELS_FILE, "--group-by", "tag", *args)


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stdout == "", done.stderr
    return done.stderr


# --- 1. absurd numbers ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("threshold, shown", [(1e400, "got inf"), (float("nan"), "got nan"), (10 ** 400, "got 1e+400")])
def test_a_threshold_that_is_no_finite_double_is_refused_naming_the_keyword_and_its_range(threshold, shown):
    # 10**400 is a Python int no double holds: float() of it raised a bare OverflowError
    with pytest.raises(SettingError, match=re.escape(f"threshold must be a finite number (threshold > 0), {shown}")):
        sqlndcg.evaluate(RUN, JUDGMENTS, ["p@1"], threshold=threshold)


@pytest.mark.parametrize("metric, says", [
    ("rbp(p=1e400)", "metric 'rbp(p=1e400)': parameter p must be a finite number (0 < p < 1), got 1e400"),
    ("P(rel=1e400)@5", "metric 'P(rel=1e400)@5': the relevance threshold must be a positive finite number (rel > 0), "
                       "got 1e400"),
    ("rprec_mult(x=1e400)", "metric 'rprec_mult(x=1e400)': parameter x must be a finite number (x > 0), got 1e400"),
    ({"kind": "rbp", "params": {"p": 10 ** 400}}, "metric 'rbp': parameter p must be a finite number (0 < p < 1), "
                                                  "got 1e+400"),
    ({"kind": "p", "k": 5, "rel": 10 ** 400}, "the relevance threshold must be a positive finite number (rel > 0), "
                                              "got 1e+400"),
])
def test_a_metric_parameter_that_is_no_finite_double_is_refused_naming_the_parameter_and_its_domain(metric, says):
    with pytest.raises(MetricError, match=re.escape(says)):
        sqlndcg.parse_metrics([metric])


@pytest.mark.parametrize("gain, says", [({1: 10 ** 400}, "gain map value for grade 1 must be a finite number, got 1e+400"),
                                        ({10 ** 400: 1}, "gain map grade 1e+400 must be a finite number")])
def test_a_gain_map_with_a_number_no_double_holds_is_refused(gain, says):
    with pytest.raises(SettingError, match=re.escape(says)):
        sqlndcg.evaluate(RUN, JUDGMENTS, ["ndcg@2"], gain=gain)


def test_a_huge_but_finite_parameter_is_named_in_a_few_characters_not_three_hundred_digits():
    assert sqlndcg.parse_metric("P(rel=1e308)@5").name == "p(rel=1e+308)@5"
    with pytest.raises(MetricError, match=re.escape("parameter p=1e+308 is outside its domain 0 < p < 1")):
        sqlndcg.parse_metric("rbp(p=1e308)")


@pytest.mark.parametrize("args, says", [
    (["--threshold", "1e400"], "sqlndcg evaluate: error: argument --threshold: 1e400 is not a finite number; "
                               "--threshold > 0 (a double holds at most 1.8e308)"),
    (["--threshold", "nan"], "argument --threshold: nan is not a finite number; --threshold > 0"),
    (["--threshold", "0"], "sqlndcg: error: --threshold=0: must be positive"),
    (["--depth", "99999999999999999999"], "sqlndcg: error: --depth must be a positive whole number from 1 to "
                                          "2147483647"),
    (["--gain", "1:1e400"], "argument --gain: invalid value '1:1e400': grades and gains must be finite numbers"),
    (["-m", "rbp(p=1e400)"], "sqlndcg: error: metric 'rbp(p=1e400)': parameter p must be a finite number "
                             "(0 < p < 1), got 1e400"),
])
def test_the_command_line_refuses_an_absurd_number_naming_the_flag(args, says):
    assert says in one_line_error(evaluate_cli("-m", "ndcg@5", *args))


# --- 2. did you mean ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, close", [("ndgc@10", "did you mean 'ndcg@10'?"), ("mpa", "did you mean 'map'?"),
                                         ("precison@5", "did you mean 'precision@5'?"),
                                         ("NDGC@10", "did you mean 'ndcg@10'?"), ("bperf", "did you mean 'bpref'?")])
def test_a_misspelled_metric_is_answered_with_the_closest_names_then_every_known_one(name, close):
    with pytest.raises(MetricError) as caught:
        sqlndcg.parse_metric(name)
    assert str(caught.value).startswith(f"unknown metric {name!r}; {close} known metrics: cg@k, ")


def test_a_name_close_to_nothing_lists_the_known_metrics_only():
    with pytest.raises(MetricError, match=r"^unknown metric 'nonsense@3'; known metrics: "):
        sqlndcg.parse_metric("nonsense@3")


@pytest.mark.parametrize("settings, says", [
    ({"gain": "expo"}, "gain='expo' is not allowed; did you mean 'exponential'? choose one of 'exponential', 'linear'"),
    ({"ties": "averge"}, "ties='averge' is not allowed; did you mean 'average'? choose one of"),
    ({"treshold": 2}, "unknown setting 'treshold'; did you mean 'threshold'? the settings are"),
    ({"preset": "trec-eval"}, "preset='trec-eval' is not known; did you mean 'trec_eval' or 'trec_eval-9'?"),
])
def test_a_misspelled_setting_or_value_is_answered_with_the_closest(settings, says):
    # the spec dbt models build (evaluate()'s own keywords are a signature: a misspelled one is Python's TypeError)
    with pytest.raises(SettingError, match=re.escape(says)):
        make_spec(["ndcg@2"], **settings)


def test_the_command_line_suggests_the_closest_metric():
    said = one_line_error(evaluate_cli("-m", "ndcg@5,ndgc@10"))
    assert said.startswith("sqlndcg: error: unknown metric 'ndgc@10'; did you mean 'ndcg@10'? known metrics: ")


# --- 4. the ir_measures names the measure table lists -----------------------------------------------------------------

# One query: b (label 0), a (1), c (1) in that order; R = 2; labels 0/1, where every RBP reading agrees.
ORDERED = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
LABELS = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rel": [1, 0, 1]})


def per_query(metrics):
    return sqlndcg.evaluate(ORDERED, LABELS, metrics).per_query.to_dicts()[0]


def test_iprec_at_x_is_interpolated_precision_at_recall_x_as_in_ir_measures():
    assert sqlndcg.parse_metric("IPrec@0.5").name == sqlndcg.parse_metric("iprec_at_recall(recall=0.5)").name
    got = per_query(["IPrec@0.5", "iprec_at_recall(recall=0.5)", "IPrec@0"])
    # reaching round(0.5 * 2) = 1 relevant document: the best precision from there on is 2/3 (c, at 3)
    assert got["iprec_at_recall(recall=0.5)"] == pytest.approx(2 / 3)
    assert sqlndcg.parse_metric("IPrec@0").name == "iprec_at_recall"  # recall=0, the default, is not spelled out
    assert sqlndcg.parse_metric("IPrec(rel=2)@0.25").name == "iprec_at_recall(rel=2,recall=0.25)"


@pytest.mark.parametrize("name, says", [
    ("iprec@5", "metric 'iprec@5': parameter recall=5 is outside its domain 0 <= recall <= 1"),
    ("IPrec(recall=0.3)@0.5", "recall is given twice"),
    ("ndcg@10.5", "metric 'ndcg@10.5': the cutoff k must be an integer from 1 to 2147483647"),
])
def test_a_recall_level_outside_iprecs_domain_or_a_fractional_cutoff_is_refused(name, says):
    with pytest.raises(MetricError, match=re.escape(says)):
        sqlndcg.parse_metric(name)


def test_rbp_with_p_is_ir_measures_rbp_with_that_p():
    assert sqlndcg.parse_metric("RBP(p=0.8)").name == "rbp(p=0.8)"
    got = per_query(["RBP(p=0.8)", "rbp"])
    assert got["RBP(p=0.8)"] == pytest.approx((1 - 0.8) * (0.8 + 0.8 ** 2))  # a at 2, c at 3
    assert got["rbp"] == pytest.approx((1 - 0.9) * (0.9 + 0.9 ** 2))  # lower-case rbp: trec_eval's p = 0.9


@pytest.mark.parametrize("name", ["RBP", "Rbp"])
def test_rbp_spelled_as_ir_measures_spells_it_without_p_is_refused_naming_both_defaults(name):
    with pytest.raises(MetricError, match=re.escape(
            f"metric {name!r} is ambiguous: without p=, ir_measures reads it as rbp(p=0.8) and trec_eval and sqlndcg "
            "as rbp(p=0.9); write the one you mean: rbp(p=0.8) (ir_measures) or rbp(p=0.9) (trec_eval)")):
        sqlndcg.parse_metric(name)


@pytest.mark.parametrize("name", ["RBP(p=0.8,rel=2)", "rbp(rel=1)"])
def test_rbp_with_rel_is_refused_naming_ir_measures_binary_meaning_and_the_graded_one(name):
    with pytest.raises(MetricError, match=re.escape(
            f"metric {name!r}: rbp takes no (rel=...): it uses the graded labels, as trec_eval does, while "
            "ir_measures' RBP(rel=r) counts labels >= r as gain 1 and the rest 0")):
        sqlndcg.parse_metric(name)


def test_every_ir_measures_name_the_measure_table_lists_is_accepted():
    from sqlndcg.core.metrics import MEASURES

    for kind, about in MEASURES.items():
        ir = about["ir_measures"]
        if ir:  # written with an example in place of each placeholder: @k a cutoff, @x a level, p=... a value
            name = ir.replace("@k", "@5").replace("@x", "@0.5").replace("=...", "=0.8")
            assert sqlndcg.parse_metric(name).kind == kind, (ir, name)


def test_the_trec_eval_command_keeps_rbp_at_trec_evals_p(tmp_path):
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 b 1 3 s\nq1 Q0 a 2 2 s\nq1 Q0 c 3 1 s\n")
    done = cli("trec_eval", "-m", "rbp", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"rbp                   \tall\t{0.1 * (0.9 + 0.81):.4f}\n"
