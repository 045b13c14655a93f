"""One session per verb call (sqlndcg/run/session.py): each input frame is copied into the engine once per call,
whichever verb and however many steps read it, and what a session makes (frames copied in, tables) is gone after
the call, after an error too. Counted on SQLite, where every registration is a copy into a temporary table."""

from __future__ import annotations

import sqlite3
from collections import Counter

import pandas as pd
import pytest

import sqlndcg
from sqlndcg.errors import EmptyQueryError, SettingError
from sqlndcg.run.engines.sqlite_engine import SQLiteEngine
from sqlndcg.run.session import Session

RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
                    "score": [2.0, 1.0, 2.0, 1.0]})
OTHER = RUN.assign(score=[1.0, 2.0, 1.0, 2.0])
QRELS = pd.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["b", "c", "d"], "rel": [1, 2, 0]})
WEIGHTS = pd.DataFrame({"query_id": ["q1", "q2"], "weight": [1.0, 2.0]})


@pytest.fixture
def copies(monkeypatch):
    """How many times each frame (by identity) is registered with a SQLite engine."""
    seen: Counter = Counter()
    register = SQLiteEngine.register

    def counting(self, name, frame):
        seen[id(frame)] += 1
        return register(self, name, frame)

    monkeypatch.setattr(SQLiteEngine, "register", counting)
    return seen


@pytest.fixture
def con():
    con = sqlite3.connect(":memory:")
    yield con
    con.close()


def leftovers(con) -> list[str]:
    """The temporary tables and views on the connection (frames copied in, per-query tables, unions)."""
    return [name for (name,) in con.execute("SELECT name FROM sqlite_temp_master WHERE type IN ('table', 'view')")]


def once(copies: Counter, *frames) -> bool:
    return copies == Counter({id(f): 1 for f in frames})


def test_evaluate_registers_each_frame_once(copies, con):
    sqlndcg.evaluate(RUN, QRELS, ["ndcg@2", "ap"], con=con, query_weights=WEIGHTS)
    assert once(copies, RUN, QRELS, WEIGHTS)
    assert leftovers(con) == []


def test_compare_of_a_dict_of_frames_registers_each_once(copies, con):
    c = sqlndcg.compare({"base": RUN, "new": OTHER}, QRELS, ["ndcg@2"], con=con, query_weights=WEIGHTS)
    assert len(c) == 1
    assert once(copies, RUN, OTHER, QRELS, WEIGHTS)
    assert leftovers(con) == []


def test_compare_of_one_frame_with_a_system_column_registers_each_once(copies, con):
    both = pd.concat([RUN.assign(system="base"), OTHER.assign(system="new")], ignore_index=True)
    c = sqlndcg.compare(both, QRELS, ["ndcg@2", "p@1"], baseline="base", con=con)
    assert len(c) == 2
    assert once(copies, both, QRELS)
    assert leftovers(con) == []


def test_evaluate_systems_registers_each_once(copies, con):
    from sqlndcg.verbs.compare import evaluate_systems

    evaluate_systems({"base": RUN, "new": OTHER}, QRELS, ["ndcg@1"], con=con)
    assert once(copies, RUN, OTHER, QRELS)
    assert leftovers(con) == []


def test_to_sql_of_frames_registers_each_once(copies, con):
    assert sqlndcg.to_sql(RUN, QRELS, ["ndcg@2"], con=con).startswith("WITH")
    assert once(copies, RUN, QRELS)
    assert leftovers(con) == []


def test_judgment_tools_register_each_frame_once(copies, con):
    events = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
                           "event": ["click", "purchase", "click"]})
    shown = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"]})
    sqlndcg.labels_from_events(events, rules={"click": 1, "purchase": 3}, impressions=shown, con=con)
    assert once(copies, events, shown)

    ratings = pd.DataFrame({"query_id": ["q1"] * 6, "doc_id": ["a", "a", "b", "b", "c", "c"],
                            "annotator": ["ann", "bob"] * 3, "rel": [2, 2, 0, 1, 3, 3]})
    copies.clear()
    sqlndcg.agreement(ratings, con=con)  # three statements over one input
    assert once(copies, ratings)

    copies.clear()
    sqlndcg.positions(RUN, QRELS, k=2, con=con)
    assert once(copies, RUN, QRELS)
    assert leftovers(con) == []


def test_tables_are_gone_after_an_error(con):
    # refused after the per-query table was made (the empty query q3 is found in it)
    qrels = pd.concat([QRELS, pd.DataFrame({"query_id": ["q3"], "doc_id": ["x"], "rel": [0]})], ignore_index=True)
    with pytest.raises(EmptyQueryError):
        sqlndcg.evaluate(RUN, qrels, ["ndcg@2"], con=con, empty="error", queries="judged")
    assert leftovers(con) == []
    # refused after the runs' union and the per-query table were made
    with pytest.raises(SettingError, match="baseline='nobody' is not a system"):
        sqlndcg.compare({"base": RUN, "new": OTHER}, QRELS, ["ndcg@2"], baseline="nobody", con=con)
    assert leftovers(con) == []
    assert not con.in_transaction


def test_a_session_drops_what_it_made_and_leaves_a_given_engine_open(con):
    with pytest.raises(RuntimeError):
        with Session(con) as ses:
            src = ses.resolve(RUN, "run")
            ses.register(src)
            ses.register(src)  # a second time: nothing more
            ses.materialize(ses.table_name("sqlndcg_test"), f"SELECT * FROM {src.sql}")
            assert len(leftovers(con)) == 2
            raise RuntimeError("a step failed")
    assert leftovers(con) == []
    eng = SQLiteEngine(con)
    with Session(eng) as ses:
        assert ses.eng is eng
    assert con.execute("SELECT 1").fetchone() == (1,)  # the caller's connection stays open


def test_engine_errors_are_said_once_naming_the_engine(con):
    with pytest.raises(sqlndcg.errors.InputError, match=r"^SQLite could not compute the result: no such table"):
        with Session(con) as ses, ses.explained("could not compute the result"):
            ses.fetch("SELECT * FROM nowhere")
    with pytest.raises(sqlndcg.errors.InputError, match=r"^SQLite failed: no such table"):
        with Session(con) as ses:
            ses.fetch("SELECT * FROM nowhere")
