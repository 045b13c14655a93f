"""The impression log (sql/macros/online/log.sql, sqlndcg/verbs/clicklog.py): a well-formed log reads back with the
internal names every click tool uses; each kind of malformed log is refused naming the log, the column and the
rows, with text and integer ids and with group columns."""

from __future__ import annotations

import pandas as pd
import pytest

from sqlndcg import DataError, InputError, SettingError
from sqlndcg.core import render
from sqlndcg.verbs.clicklog import log_settings, open_log
from sqlndcg.verbs.judgments import Runner

GOOD = pd.DataFrame({"impression_id": ["i1", "i1", "i2", "i2"], "query_id": ["q", "q", "q", "q"],
                     "doc_id": ["a", "b", "b", "a"], "position": [1, 2, 1, 2], "click": [1, 0, 0, 1],
                     "propensity": [1.0, 0.5, 1.0, 0.5], "day": ["mon", "mon", "tue", "tue"]})


def opened(log, needs=(), group_by=(), **columns):
    """The log's rows as _click_log_rows reads them, after open_log's checks."""
    with Runner.session() as runner:
        _, plan = open_log(runner, log, None, "test", log_settings({"group_by": group_by, **columns}), needs)
        return plan, runner.rows(f"SELECT * FROM ({render.call('_click_log_rows', plan)}) AS r ORDER BY _i, _pos")


def changed(column, values, frame=GOOD):
    out = frame.copy()
    out[column] = values
    return out


def test_a_well_formed_log_reads_back_with_internal_names_and_its_optional_columns():
    plan, rows = opened(GOOD, group_by="day")
    assert rows[0] == ("mon", "i1", "q", "a", 1, 1.0, 1.0)
    assert [r[5] for r in rows] == [1.0, 0.0, 0.0, 1.0] and [r[6] for r in rows] == [1.0, 0.5, 1.0, 0.5]
    assert plan["settings"] == {"group_by": ["day"], "columns": {
        "impression_id": "impression_id", "query_id": "query_id", "doc_id": "doc_id", "position": "position",
        "click": "click", "propensity": "propensity"}}
    assert plan["randomized"] is None and plan["team"] is None


def test_column_names_are_configurable_and_booleans_read_as_clicks():
    renamed = GOOD.rename(columns={"impression_id": "imp", "click": "clicked"}).assign(clicked=[True, False, False, True])
    _, rows = opened(renamed, impression_id="imp", click="clicked")
    assert [r[4] for r in rows] == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("ids", ["text", "integer"])
@pytest.mark.parametrize("column, values, words", [
    ("position", [1, 3, 1, 2], "do not show positions 1..n once each with one query, e.g. (impression_id={i1}) "
                               "with 2 row(s), deepest position 3"),
    ("position", [1, 1, 1, 2], "1 positions within an impression occur more than once (impression_id, position), "
                               "e.g. (impression_id={i1}, position=1, copies=2)"),
    ("doc_id", ["a", "a", "b", "a"], "1 documents within an impression occur more than once (impression_id, "
                                     "doc_id), e.g. (impression_id={i1}, doc_id='a', copies=2)"),
    ("click", [2, 0, 0, 1], "column 'click' is neither 0 nor 1 (a click is 1, no click 0) in 1 row(s), e.g. "
                            "(impression_id={i1}, position=1, doc_id='a', click=2)"),
    ("propensity", [0.0, 0.5, 1.0, 1.5], "column 'propensity' is outside (0, 1] (a propensity is the probability "
                                         "that the position was examined) in 2 row(s), e.g. (impression_id={i1}, "
                                         "position=1, doc_id='a', propensity=0.0)"),
    ("query_id", ["q", "r", "q", "q"], "(impression_id={i1}) with 2 row(s), deepest position 2, 2 queries"),
    ("position", [0, 1, 1, 2], "column 'position' is below 1 (positions count from 1, the top) in 1 row(s)"),
    ("doc_id", ["a", None, "b", "a"], "column 'doc_id' is NULL in 1 row(s), e.g. (impression_id={i1}, "
                                      "position=2, doc_id=None)"),
])
def test_each_malformed_log_is_refused_naming_the_log_the_column_and_rows(ids, column, values, words):
    log = changed(column, values)
    i1 = "'i1'"
    if ids == "integer":
        log = log.assign(impression_id=[1, 1, 2, 2])
        i1 = "1"
    with pytest.raises(DataError) as err:
        opened(log)
    assert str(err.value).startswith("log (DataFrame): ") and words.format(i1=i1) in str(err.value)


def test_groups_are_part_of_the_impression_and_null_groups_are_refused():
    # the same impression id on two days is two impressions
    log = GOOD.assign(impression_id="i1")
    opened(log, group_by="day")
    with pytest.raises(DataError, match=r"positions within an impression occur more than once \(impression_id, "):
        opened(log)
    with pytest.raises(DataError, match=r"column 'day' is NULL in 1 row\(s\), e.g. \(day=None, "):
        opened(changed("day", ["mon", "mon", None, "tue"]), group_by="day")


def test_a_needed_column_must_exist_and_hold_no_nulls_and_types_are_checked():
    with pytest.raises(InputError, match=r"log \(DataFrame\) has no randomized column 'randomized'.*randomized="):
        opened(GOOD, needs=["randomized"])
    with pytest.raises(DataError, match=r"column 'propensity' is NULL in 1 row"):
        opened(changed("propensity", [1.0, None, 1.0, 0.5]), needs=["propensity"])
    opened(changed("propensity", [1.0, None, 1.0, 0.5]))  # not needed: a NULL propensity is no problem
    with pytest.raises(InputError, match=r"the position column 'position' holds DOUBLE, but must hold whole numbers"):
        opened(changed("position", [1.0, 2.0, 1.0, 2.0]))
    with pytest.raises(InputError, match=r"the click column 'click' holds VARCHAR, but must hold 0/1 numbers or booleans"):
        opened(changed("click", ["1", "0", "0", "1"]))
    with pytest.raises(SettingError, match="position must be a non-empty column name"):
        opened(GOOD, position="")
    with pytest.raises(SettingError, match="unknown setting 'clik'; the log's columns are named by group_by, "
                                           "impression_id"):
        opened(GOOD, clik="clicked")


def test_an_empty_log_is_refused():
    with pytest.raises(InputError, match=r"log \(DataFrame\) has no rows"):
        opened(GOOD.iloc[:0])


def test_the_dbt_test_lists_every_problem_the_python_checks_refuse():
    """click_log_problems (dbt's singular test) renders _click_log_problems_sql from the same plan: one row per
    problem, none for a good log."""
    bad = pd.DataFrame({"impression_id": ["i1", "i1", "i2", "i2", "i3", "i3", "i4"], "query_id": "q",
                        "doc_id": ["a", "a", "a", "b", "a", "b", "a"], "position": [1, 2, 1, 1, 1, 3, 1],
                        "click": [0, 0, 3, 0, 0, 0, None]})

    def problems(log):
        with Runner.session() as runner:
            (inp,) = runner.inputs((log, "log", None))
            plan = render.call("_click_log_plan", "test", inp.described, log_settings({}), [])
            return sorted(runner.rows(render.call("_click_log_problems_sql", plan)))

    assert problems(bad) == [
        ("click is NULL", "i4, 1, a"),
        ("click is neither 0 nor 1 (a click is 1, no click 0)", "i2, 1, a"),
        ("documents within an impression that occur more than once", "i1, a"),
        ("impressions whose positions are not 1..n, or with more than one query", "i2"),
        ("impressions whose positions are not 1..n, or with more than one query", "i3"),
        ("positions within an impression that occur more than once", "i2, 1"),
    ]
    assert problems(GOOD) == []
