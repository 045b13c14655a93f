"""Clear errors (issue 28): a question past what power computes exactly, float-noise spreads, a control byte in a
file, systems that share no query, a broken view and a schema-qualified table each get one line that says what is
wrong and what to do, never a traceback or a number made of rounding."""

from __future__ import annotations

import math
import statistics

import duckdb
import numpy as np
import pandas as pd
import pytest
import scipy.stats as scipy_stats

import sqlndcg
from sqlndcg.cli import main
from sqlndcg.errors import InputError, SettingError
from sqlndcg.stats import power as stats_power

PILOT = [0.1, -0.05, 0.2, 0.0, 0.15, -0.1, 0.05, 0.3]


# -- power: a difference too small to compute, a spread of rounding ------------------------------------------------

def test_a_difference_past_ten_million_queries_is_refused_with_the_normal_estimate():
    sd = statistics.stdev(PILOT)
    d_z = 1e-7 / sd
    # the large-sample answer, from scipy's normal quantiles
    estimate = ((scipy_stats.norm.ppf(0.975) + scipy_stats.norm.ppf(0.8)) / d_z) ** 2
    with pytest.raises(SettingError) as err:
        sqlndcg.power(PILOT, difference=1e-7)
    assert str(err.value) == (
        f"difference=1e-07 is {d_z:.3g} standard deviations of the per-query differences (d_z; sd {sd:.4g}): the "
        f"paired t test would need about {estimate:.2g} queries to detect it (the normal approximation ((z(1 - "
        "alpha/2) + z(power)) / d_z)^2), more than the 10,000,000 whose power sqlndcg computes exactly; ask about a "
        "larger difference, or pass queries= to see what a test set of your size detects")
    assert f"{estimate:.2g}" == "1.4e+13"
    with pytest.raises(SettingError, match=r"^queries=1,000,000,000 is more than the 10,000,000 queries whose power "
                                           r"sqlndcg computes exactly; at that size the t test is a z test and "
                                           r"detects about d_z = 8\.86e-05"):
        sqlndcg.power(PILOT, queries=10**9)


def test_the_command_line_says_it_in_one_line(tmp_path, capsys):
    assert main(["power", "--sd", "0.13", "--difference", "1e-7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sqlndcg: error: --difference 1e-07 is 7.69e-07 standard "
                                                   "deviations") and "unexpected" not in err


def test_answers_up_to_the_bound_still_equal_statsmodels():
    """Just inside the bound the exact answer stands (statsmodels' TTestPower, scipy's noncentral t, agrees to
    1e-8 there); the estimate past it is the textbook ((z(1 - alpha/2) + z(power)) / d_z)^2 from scipy's quantiles."""
    from statsmodels.stats.power import TTestPower

    d_z = 0.00089
    exact = stats_power.queries_needed(d_z)
    assert 9.9e6 < exact < stats_power.MAX_QUERIES
    assert exact == pytest.approx(TTestPower().solve_power(effect_size=d_z, alpha=0.05, power=0.8), rel=1e-8)
    textbook = ((scipy_stats.norm.ppf(0.975) + scipy_stats.norm.ppf(0.8)) / d_z) ** 2
    assert stats_power.normal_queries(d_z, 0.05, 0.8, "two-sided") == pytest.approx(textbook, rel=1e-12)


def test_an_enormous_effect_needs_two_queries_at_once():
    """A tiny sd gives d_z in the millions; the noncentral t's series would sum ~d_z^2 terms (it never ended)."""
    for d_z in (40.0, 1e6, 1e18, math.inf):
        assert stats_power.queries_needed(d_z) == 2.0
    res = sqlndcg.power(sd=1e-5, difference=0.01)
    assert res.queries == 2 and res.effect_size == pytest.approx(1000.0)


def test_a_pilot_whose_spread_is_float_rounding_has_no_spread():
    noise = [0.1 + 0.2 - 0.3, 0.0, 0.3 - 0.1 - 0.2, 0.0]  # mathematically all 0
    mean, sd = np.mean(noise), np.std(noise, ddof=1)
    assert 1e-17 < sd < 1e-16  # numpy sees a spread of rounding: d_z = 0.01 / sd would be 3e14
    with pytest.raises(InputError) as err:
        sqlndcg.power(noise, difference=0.01)
    assert str(err.value) == (f"the pilot: every per-query difference is {mean:.4g} up to float rounding (sd "
                              f"{sd:.2g}); with no spread there is no power to compute")
    with pytest.raises(SettingError, match=r"^sd=1e-20 is 0 up to float rounding: with no spread"):
        sqlndcg.power(sd=1e-20, difference=0.01)
    real = [1e-6, -1e-6, 2e-6, 0.0]  # a small but real spread is kept
    assert sqlndcg.power(real, difference=1e-6).sd == pytest.approx(np.std(real, ddof=1), rel=1e-12)


# -- compare: a spread of rounding is no spread ------------------------------------------------------------------

def _rounding_only():
    """Two systems equal on every query up to float rounding: ties="average" gives a tie group of three labels 0.1
    the mean 0.30000000000000004 / 3, the ranked system gives 0.1 itself."""
    rows, judged = [], []
    for q in range(12):
        n = 3 + q % 7
        for i in range(n):
            rows += [("tied", f"q{q}", f"d{i}", 1.0), ("ranked", f"q{q}", f"d{i}", float(n - i))]
            judged.append((f"q{q}", f"d{i}", [0.1, 0.7, 0.3][q % 3]))
    return (pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"]),
            pd.DataFrame(judged, columns=["query_id", "doc_id", "rel"]))


def test_a_comparison_of_systems_equal_up_to_rounding_has_no_effect_size_and_no_significance():
    run, judged = _rounding_only()
    c = sqlndcg.compare(run, judged, ["ndcg@10"], baseline="ranked", gain="linear", ties="average")
    diffs = c.diffs("tied", "ndcg@10")
    assert np.std(diffs, ddof=1) > 1e-16  # the raw differences: a spread of rounding, d_z 0.16 from numpy
    assert abs(np.mean(diffs) / np.std(diffs, ddof=1)) > 0.1
    row = c.to_dicts()[0]
    assert (row["difference"], row["difference_std"], row["effect_size"]) == (0.0, 0.0, None)
    assert (row["t_low"], row["t_high"], row["t_p"]) == (0.0, 0.0, 1.0)
    assert (row["wins"], row["ties"], row["losses"]) == (0, 12, 0)
    gate = sqlndcg.gate(c, "ndcg@10")
    assert gate.passed and gate.rows[0]["worse_p"] == 1.0


def test_a_small_real_difference_keeps_scipys_numbers():
    a = pd.DataFrame({"query_id": [f"q{i}" for i in range(6) for _ in range(2)], "doc_id": ["x", "y"] * 6,
                      "score": [2.0, 1.0] * 6})
    b = a.assign(score=[1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 1.0])
    judged = pd.DataFrame({"query_id": [f"q{i}" for i in range(6) for _ in range(2)], "doc_id": ["x", "y"] * 6,
                           "rel": [v for i in range(6) for v in (1.0, 1.0 - 1e-6 * (1 + i % 3))]})
    c = sqlndcg.compare({"a": a, "b": b}, judged, ["dcg@2"], gain="linear")
    diffs = c.diffs("b", "dcg@2")
    row = c.to_dicts()[0]
    want = scipy_stats.ttest_1samp(diffs, 0.0)
    assert row["difference_std"] == pytest.approx(np.std(diffs, ddof=1), rel=1e-9) and row["difference_std"] > 0
    assert row["effect_size"] == pytest.approx(np.mean(diffs) / np.std(diffs, ddof=1), rel=1e-9)
    assert row["t_p"] == pytest.approx(want.pvalue, rel=1e-9)


# -- a control byte in a file ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, text, line", [
    ("run.csv", "query_id,doc_id,score\nq1,a,1.0\nq1,b\x01,0.5\nq2,c,0.3\n", 3),
    ("run.tsv", "query_id\tdoc_id\tscore\nq1\ta\x01\t1\n", 2),
    ("run.run", "q1 Q0 a 1 1.0 t\nq1 Q0 b\x01 2 0.5 t\n", 2),
])
def test_a_control_byte_is_named_with_its_file_and_line(tmp_path, monkeypatch, name, text, line):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    (tmp_path / "q.qrels").write_text("q1 0 a 1\n")
    shown = repr(text.splitlines()[line - 1])
    stem, suffix = name.split(".")
    want = (f"run file {name!r}, line {line}: holds the control byte 0x01 ({shown}), which no id, score or label "
            "holds and which sqlndcg reads lines by (DuckDB split the line there): remove it, e.g. tr -d '\\001' < "
            f"{name} > {stem}.clean.{suffix}")
    with pytest.raises(InputError) as err:
        sqlndcg.evaluate(name, "q.qrels")
    assert str(err.value) == want


# -- compare: systems that share no query ------------------------------------------------------------------------

A = pd.DataFrame({"query_id": ["q1", "q2", "q5", "q6"], "doc_id": "d", "score": 1.0})
B = pd.DataFrame({"query_id": ["q3", "q4"], "doc_id": "d", "score": 1.0})


def test_systems_that_share_no_query_are_said_to_with_a_few_ids_of_each():
    judged = pd.DataFrame({"query_id": ["q1", "q2", "q3", "q4", "q5", "q6"], "doc_id": "d", "rel": 1})
    with pytest.raises(InputError) as err:
        sqlndcg.compare({"a": A, "b": B}, judged, ["ndcg@5"], queries="both")
    assert str(err.value) == (
        "system 'b' and the baseline 'a' share no query, so no query can be paired: 'b' has 2 ('q3', 'q4'), 'a' 4 "
        "('q1', 'q2', 'q5', ... (4 in all)); the runs answer different query sets, or write the ids differently (1 "
        "and '001', 'Q1' and 'q1')")
    assert len(sqlndcg.compare({"a": A, "b": B}, judged, ["ndcg@5"]).diffs("b", "ndcg@5")) == 6  # judged: zeros


def test_a_baseline_none_of_whose_queries_is_judged_is_not_said_to_be_missing():
    judged = pd.DataFrame({"query_id": ["q3", "q4"], "doc_id": "d", "rel": 1})
    run = pd.concat([A.assign(system="a"), B.assign(system="b")])
    with pytest.raises(InputError) as err:
        sqlndcg.compare(run, judged, ["ndcg@5"], baseline="a", queries="both")
    assert str(err.value) == (
        "the baseline 'a' has no query scored and so none to pair: none of its queries ('q1', 'q2', 'q5', ...) has "
        "judgments, and queries='both' scores only the queries a run shares with the judgments; system 'b' has 2 "
        "scored ('q3', 'q4'). The runs answer different query sets, or write the ids differently from the judgments "
        "(1 and '001', 'Q1' and 'q1')")
    with pytest.raises(SettingError, match=r"^baseline='c' is not a system of the run; the 'system' column holds "
                                           r"'a', 'b'$"):
        sqlndcg.compare(run, judged, ["ndcg@5"], baseline="c", queries="both")


# -- tables: a broken view, a schema-qualified name --------------------------------------------------------------

@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA trec")
    con.execute("CREATE TABLE trec.run AS SELECT 'q' AS query_id, 'a' AS doc_id, 1.0 AS score")
    con.execute("CREATE TABLE qrels AS SELECT 'q' AS query_id, 'a' AS doc_id, 1 AS rel")
    return con


def test_a_view_whose_table_was_dropped_exists_but_fails_to_read(con):
    con.execute("CREATE TABLE base AS FROM trec.run")
    con.execute("CREATE VIEW v AS SELECT * FROM base")
    con.execute("CREATE VIEW trec.v2 AS SELECT * FROM base")
    con.execute("DROP TABLE base")
    for name in ("v", "trec.v2"):
        with pytest.raises(InputError) as err:
            sqlndcg.evaluate(name, "qrels", con=con)
        assert str(err.value) == (
            f"run table {name!r}: the view exists in the DuckDB connection but cannot be read: Catalog Error: Table "
            "with name base does not exist!; a view reads the tables it was made from: recreate them, or the view")


def test_a_schema_qualified_table_is_a_table_not_a_file(con, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    want = sqlndcg.evaluate(con.execute("FROM trec.run").df(), "qrels", con=con).summary.rows
    assert sqlndcg.evaluate("trec.run", "qrels", con=con).summary.rows == want
    assert sqlndcg.evaluate("memory.trec.run", "qrels", con=con).summary.rows == want
    (tmp_path / "trec.run").write_text("q Q0 b 1 1.0 t\n")  # a file of that name: the table still wins
    assert sqlndcg.evaluate("trec.run", "qrels", con=con).summary.rows == want


def test_a_name_that_is_neither_file_nor_table_says_both(con, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as err:
        sqlndcg.evaluate("nope.run", "qrels", con=con)
    assert str(err.value) == (
        "run 'nope.run' is neither a file (the path does not exist) nor a table or view in the DuckDB connection "
        "given as con= (schema 'nope', table 'run'): pass the path of an existing file, or the name of a table that "
        "connection has")
    with pytest.raises(InputError) as err:
        sqlndcg.evaluate("trec.run", "qrels.csv")
    assert str(err.value) == (
        "run 'trec.run' is neither a file (the path does not exist) nor a table or view in the new, empty in-memory "
        "DuckDB sqlndcg opened because no con= was given (schema 'trec', table 'run'): pass the path of an existing "
        "file, or the name of a table with con= the connection that has it")


def test_the_command_line_reads_a_schema_qualified_table_of_its_database(tmp_path, capsys):
    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE SCHEMA trec")
    con.execute("CREATE TABLE trec.run AS SELECT 'q' AS query_id, 'a' AS doc_id, 1.0 AS score")
    con.execute("CREATE TABLE trec.qrels AS SELECT 'q' AS query_id, 'a' AS doc_id, 1 AS rel")
    con.close()
    assert main(["evaluate", "--run", "trec.run", "--judgments", "trec.qrels", "--database", path, "-m", "ndcg@5",
                 "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("1,1.0,")
