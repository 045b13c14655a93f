"""labels_from_events(): hand-made logs with repeated, conflicting and missing events become the labels the rules
say, and those judgments give the NDCG computed by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import sqlndcg
from sqlndcg import DataError, InputError, SettingError
from sqlndcg.core import render

RULES = {"click": 1, "add_to_cart": 2, "purchase": 3}

# q1: a clicked twice then bought; b put in the cart, then clicked; d clicked once; c shown, no event.
# q2: e clicked three times and bought once; f bought.
LOG = pd.DataFrame(
    [("q1", "a", "click", 1), ("q1", "a", "click", 2), ("q1", "a", "purchase", 3),
     ("q1", "b", "add_to_cart", 5), ("q1", "b", "click", 6),
     ("q1", "d", "click", 1),
     ("q2", "e", "click", 1), ("q2", "e", "click", 2), ("q2", "e", "click", 3), ("q2", "e", "purchase", 4),
     ("q2", "f", "purchase", 1)],
    columns=["query_id", "doc_id", "event", "ts"])
SHOWN = pd.DataFrame([("q1", d) for d in "abcd"] + [("q2", d) for d in "efg"], columns=["query_id", "doc_id"])
RUN = pd.DataFrame([("q1", "c", 4.0), ("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "d", 1.0),
                    ("q2", "g", 3.0), ("q2", "e", 2.0), ("q2", "f", 1.0)], columns=["query_id", "doc_id", "score"])


def labels_of(table) -> dict:
    return {(r["query_id"], r["doc_id"]): (r["rel"], r["events"]) for r in table}


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_strongest_event_wins_and_shown_documents_without_events_are_zero():
    got = sqlndcg.labels_from_events(LOG, rules=RULES, impressions=SHOWN)
    assert labels_of(got) == {("q1", "a"): (3, 3), ("q1", "b"): (2, 2), ("q1", "c"): (0, 0), ("q1", "d"): (1, 1),
                              ("q2", "e"): (3, 4), ("q2", "f"): (3, 1), ("q2", "g"): (0, 0)}
    assert got.settings["resolve"] == "strongest" and got.settings["rules"] == {k: float(v) for k, v in RULES.items()}
    # without impressions, documents without events are simply absent (unjudged)
    assert ("q1", "c") not in labels_of(sqlndcg.labels_from_events(LOG, rules=RULES))


def test_most_frequent_and_latest_resolve_conflicts_as_stated():
    frequent = labels_of(sqlndcg.labels_from_events(LOG, rules=RULES, resolve="most_frequent"))
    assert frequent[("q1", "a")][0] == 1  # click twice beats purchase once
    assert frequent[("q1", "b")][0] == 2  # one each: the larger grade
    assert frequent[("q2", "e")][0] == 1
    latest = labels_of(sqlndcg.labels_from_events(LOG, rules=RULES, resolve="latest", time="ts"))
    assert latest[("q1", "a")][0] == 3 and latest[("q1", "b")][0] == 1 and latest[("q2", "e")][0] == 3
    same_time = LOG.assign(ts=0)  # every event at once: the larger grade
    assert labels_of(sqlndcg.labels_from_events(same_time, rules=RULES, resolve="latest", time="ts"))[("q1", "b")][0] == 2


def test_the_labels_give_the_hand_computed_ndcg():
    labels = sqlndcg.labels_from_events(LOG, rules=RULES, impressions=SHOWN).to_pandas()
    res = sqlndcg.evaluate(RUN, labels, ["ndcg@4"])
    got = {r["query_id"]: r["ndcg@4"] for r in res.per_query}
    # q1 ranks c(0) a(3) b(2) d(1); q2 ranks g(0) e(3) f(3); exponential gain 2^rel - 1
    assert math.isclose(got["q1"], dcg([0, 7, 3, 1]) / dcg([7, 3, 1, 0]), abs_tol=1e-12)
    assert math.isclose(got["q2"], dcg([0, 7, 7]) / dcg([7, 7, 0]), abs_tol=1e-12)


# --- recommendations by watch time: > 60 s -> 1, > 180 s -> 2, a completed view -> 3 -----------------------------

WATCH = pd.DataFrame(
    [("u1", "v1", "watch", 45.0), ("u1", "v1", "watch", 75.0),    # best view 75 s: 1
     ("u1", "v2", "watch", 180.0),                                 # exactly 180 s is not above 180: 1
     ("u1", "v3", "watch", 200.0), ("u1", "v3", "complete", None),  # completed: 3
     ("u1", "v4", "watch", 30.0),                                  # under a minute: 0
     ("u2", "v1", "watch", 181.0)],                                # 2
    columns=["query_id", "doc_id", "event", "value"])


def test_watch_time_thresholds_and_a_completed_view():
    got = labels_of(sqlndcg.labels_from_events(WATCH, rules={"watch": 0, "complete": 3}, thresholds={60: 1, 180: 2}))
    assert {k: v[0] for k, v in got.items()} == {("u1", "v1"): 1, ("u1", "v2"): 1, ("u1", "v3"): 3, ("u1", "v4"): 0,
                                                 ("u2", "v1"): 2}
    only_time = labels_of(sqlndcg.labels_from_events(WATCH.dropna(), thresholds={60: 1, 180: 2}))
    assert only_time[("u1", "v3")][0] == 2
    run = pd.DataFrame([("u1", "v4", 4), ("u1", "v3", 3), ("u1", "v2", 2), ("u1", "v1", 1)],
                       columns=["query_id", "doc_id", "score"])
    res = sqlndcg.evaluate(run, sqlndcg.labels_from_events(WATCH, rules={"watch": 0, "complete": 3},
                                                           thresholds={60: 1, 180: 2}).to_pandas(),
                           ["ndcg@3"], queries="both")
    assert math.isclose(res.per_query.to_dicts()[0]["ndcg@3"], dcg([0, 7, 1]) / dcg([7, 1, 1]), abs_tol=1e-12)


# --- ads by conversion rate -------------------------------------------------------------------------------------

def test_a_rate_is_summed_numerators_over_summed_denominators():
    ads = pd.DataFrame([("k1", "ad1", 2, 100), ("k1", "ad1", 1, 50), ("k1", "ad2", 0, 80), ("k1", "ad3", 3, 20)],
                       columns=["query_id", "doc_id", "conversions", "impressions"])
    got = {r["doc_id"]: r for r in sqlndcg.labels_from_events(ads, rate=["conversions", "impressions"])}
    assert got["ad1"]["rel"] == 3 / 150 and got["ad1"]["conversions"] == 3 and got["ad1"]["impressions"] == 150
    assert got["ad2"]["rel"] == 0 and got["ad3"]["rel"] == 0.15
    run = pd.DataFrame([("k1", "ad1", 3), ("k1", "ad2", 2), ("k1", "ad3", 1)], columns=["query_id", "doc_id", "score"])
    labels = sqlndcg.labels_from_events(ads, rate=["conversions", "impressions"]).to_pandas()
    res = sqlndcg.evaluate(run, labels, ["ndcg@3"], gain="linear")
    assert math.isclose(res.per_query.to_dicts()[0]["ndcg@3"], dcg([0.02, 0, 0.15]) / dcg([0.15, 0.02, 0]),
                        abs_tol=1e-12)


def test_group_columns_label_each_day_separately():
    log = pd.concat([LOG.assign(ds="d1"), LOG.iloc[:3].assign(ds="d2", event="click")], ignore_index=True)
    got = {(r["ds"], r["query_id"], r["doc_id"]): r["rel"] for r in
           sqlndcg.labels_from_events(log, rules=RULES, group_by="ds")}
    assert got[("d1", "q1", "a")] == 3 and got[("d2", "q1", "a")] == 1 and ("d2", "q1", "b") not in got


def test_files_and_integer_ids(tmp_path: Path):
    path = tmp_path / "events.csv"
    pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 10, 20], "event": ["click", "purchase", "click"]}).to_csv(
        path, index=False)
    got = sqlndcg.labels_from_events(str(path), rules=RULES)
    assert got.rows == ((1, 10, 3.0, 2), (2, 20, 1.0, 1))


# --- bad input, named ----------------------------------------------------------------------------------------------

def test_an_event_type_the_rules_lack_is_refused_or_ignored():
    log = pd.concat([LOG, pd.DataFrame([("q1", "a", "share", 9)], columns=LOG.columns)], ignore_index=True)
    with pytest.raises(DataError, match=r"column 'event' holds an event type that rules= does not grade .*"
                                        r"in 1 row\(s\), e.g. \(query_id='q1', doc_id='a', event='share'\)"):
        sqlndcg.labels_from_events(log, rules=RULES)
    got = labels_of(sqlndcg.labels_from_events(log, rules=RULES, unknown_events="ignore"))
    assert got[("q1", "a")] == (3, 3)


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({}, SettingError, r"needs rules=\{event: grade\}"),
    ({"rules": RULES, "resolve": "first"}, SettingError,
     r"resolve='first' is not allowed; choose one of 'strongest', 'most_frequent', 'latest'"),
    ({"rules": RULES, "unknown_events": "drop"}, SettingError, r"choose one of 'error', 'ignore'"),
    ({"rules": RULES, "resolve": "latest"}, SettingError, r"resolve='latest' needs time="),
    ({"rules": {"click": -1}}, SettingError, r"grades must be 0 or more"),
    ({"rules": {"click": float("nan")}}, SettingError, r"must be a finite number"),
    ({"thresholds": {-5: 1}}, SettingError, r"the threshold -5 is negative"),
    ({"rate": ["a"]}, SettingError, r"rate must name two columns"),
    ({"rate": ["a", "b"], "rules": RULES}, SettingError, r"cannot be combined"),
    ({"rules": RULES, "event": "action"}, InputError,
     r"events \(DataFrame\) has no event column 'action'; its columns are \['query_id', 'doc_id', 'event', 'ts'\]"),
    ({"rules": RULES, "query_id": "Query_ID"}, InputError, r"no query id column 'Query_ID'.*did you mean 'query_id'"),
    ({"rules": RULES, "rel": "query_id"}, SettingError, r"two columns named 'query_id'"),
])
def test_bad_settings_are_refused_naming_what_is_allowed(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        sqlndcg.labels_from_events(LOG, **kwargs)


def test_negative_nan_and_missing_measurements_are_refused():
    for bad, pattern in ((-3.0, r"column 'value' is negative"), (float("inf"), r"column 'value' is NaN or infinite"),
                         (None, r"column 'value' is NULL")):
        log = WATCH.dropna().copy()
        log["value"] = [bad] + list(log["value"][1:])
        with pytest.raises(DataError, match=pattern):
            sqlndcg.labels_from_events(log, thresholds={60: 1})
    ads = pd.DataFrame([("k", "ad1", 1, 0), ("k", "ad2", 1, 10)], columns=["query_id", "doc_id", "c", "i"])
    with pytest.raises(DataError, match=r"denominator 'i' sums to 0 for 1 document\(s\), e.g. \(query_id='k', doc_id='ad1'\)"):
        sqlndcg.labels_from_events(ads, rate=["c", "i"])
    with pytest.raises(DataError, match=r"column 'i' is negative"):
        sqlndcg.labels_from_events(ads.assign(i=[-1, 10]), rate=["c", "i"])


def test_user_values_reach_sql_as_literals_and_quoted_names():
    log = pd.DataFrame({"q'id": ["q1", "q1"], 'doc "id"': ["a", "b"], "event": ["it's'); DROP TABLE x; --", "x\\y"]})
    got = sqlndcg.labels_from_events(log, rules={"it's'); DROP TABLE x; --": 2, "x\\y": 1}, query_id="q'id",
                                     doc_id='doc "id"')
    assert got.rows == (("q1", "a", 2.0, 1), ("q1", "b", 1.0, 1))
    for dialect in ("spark", "bigquery", "mysql", "clickhouse"):
        assert render.call("text_literal", "it's\\", dialect=dialect) == "'it\\'s\\\\'"
    assert render.call("text_literal", "it's\\") == "'it''s\\'"


# --- the dbt macro -------------------------------------------------------------------------------------------------

class Column:
    def __init__(self, name, kind):
        self.name, self.dtype, self.kind = name, kind, kind

    def is_integer(self): return self.kind == "integer"
    def is_number(self): return self.kind == "double"
    def is_float(self): return self.kind == "double"
    def is_numeric(self): return False
    def is_string(self): return self.kind == "varchar"


class Relation:
    """What ref('events') gives a dbt macro: an object that renders as the quoted table name."""

    def __init__(self, name, columns):
        self.name, self.columns = name, columns

    def __str__(self):
        return self.name


def test_the_dbt_macro_renders_from_relations_and_equals_python(monkeypatch):
    import duckdb

    from sqlndcg.core.render import _Adapter

    monkeypatch.setattr(_Adapter, "get_columns_in_relation", lambda self, relation: relation.columns, raising=False)
    con = duckdb.connect()
    for name, frame in (("events", LOG), ("shown", SHOWN)):
        con.register(f"{name}_frame", frame)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM {name}_frame")
    events = Relation('"events"', [Column("query_id", "varchar"), Column("doc_id", "varchar"),
                                   Column("event", "varchar"), Column("ts", "integer")])
    shown = Relation('"shown"', [Column("query_id", "varchar"), Column("doc_id", "varchar")])
    sql = render.call("labels_from_events", events=events, impressions=shown, rules=RULES)
    want = sqlndcg.labels_from_events("events", rules=RULES, impressions="shown", con=con)
    assert [tuple(r) for r in con.execute(sql).fetchall()] == list(want.rows)
    problems = render.call("labels_from_events_problems", events=events, rules={"click": 1})
    found = con.execute(problems).fetchall()
    assert len(found) == 4 and all("does not grade" in p for p, _ in found)
    with pytest.raises(SettingError, match=r"labels_from_events: unknown setting 'rule'"):
        render.call("labels_from_events", events=events, rule=RULES)
    with pytest.raises(SettingError, match=r"events= must be a relation"):
        render.call("labels_from_events", events="events", rules=RULES)
    for dialect in ("postgres", "spark", "sqlite", "clickhouse", "bigquery"):
        assert "WITH _event_rows AS" in render.call("labels_from_events", events=events, impressions=shown,
                                                   rules=RULES, resolve="most_frequent", dialect=dialect)


# --- the command line, on the bundled examples -------------------------------------------------------------------

EXAMPLES = Path(sqlndcg.__file__).resolve().parent / "examples"


def cli(*argv: str) -> int:
    import argparse

    from sqlndcg.cli import judgments as cli_judgments

    parser = argparse.ArgumentParser(prog="sqlndcg")
    cli_judgments.add_commands(parser.add_subparsers(dest="command", required=True))
    return cli_judgments.run(parser.parse_args(list(argv)))


def test_cli_labels_writes_what_the_api_computes(tmp_path, capsys):
    out = labels_file = tmp_path / "labels.csv"
    status = cli("labels", "--events", str(EXAMPLES / "watch_events.csv"), "--impressions",
                 str(EXAMPLES / "recommendations.csv"), "--rules", "play:0,complete:3", "--thresholds", "60:1,180:2",
                 "--value-column", "seconds", "--output", str(out), "--format", "csv")
    assert status == 0
    api = sqlndcg.labels_from_events(str(EXAMPLES / "watch_events.csv"), rules={"play": 0, "complete": 3},
                                     thresholds={60: 1, 180: 2}, value="seconds",
                                     impressions=str(EXAMPLES / "recommendations.csv"))
    written = pd.read_csv(out)
    assert list(written["rel"]) == api.column("rel") and len(written) == 96
    out = capsys.readouterr()  # the rows go to the file, not the terminal, which gets one line saying so
    assert out.out == "" and out.err == f"sqlndcg: wrote 96 rows to {labels_file}\n"


def test_cli_verbs_run_the_three_scenarios(tmp_path, capsys):
    assert cli("agreement", "--judgments", str(EXAMPLES / "annotations.csv"), "--least", "2", "--pairs") == 0
    text = capsys.readouterr().out
    assert "least consistent queries (by alpha_ordinal)" in text and "q07" in text and "annotator_a" in text
    labels = tmp_path / "search_labels.csv"
    assert cli("aggregate", "--judgments", str(EXAMPLES / "annotations.csv"), "--output", str(labels)) == 0
    assert cli("positions", "--run", str(EXAMPLES / "search_run.csv"), "--judgments", str(labels), "-k", "3",
               "--group-by", "system", "--plot", str(tmp_path / "p.png"), "--format", "json") == 0
    assert (tmp_path / "p.png").exists() and '"position": 3' in capsys.readouterr().out
    assert cli("labels", "--events", str(EXAMPLES / "ad_stats.csv"), "--rate", "conversions,impressions") == 0


def test_cli_errors_are_one_line_and_status_2(capsys):
    assert cli("labels", "--events", str(EXAMPLES / "ad_stats.csv"), "--rules", "click") == 2
    assert capsys.readouterr().err.startswith("sqlndcg: error: --rules 'click': write it as")
    assert cli("labels", "--events", str(EXAMPLES / "watch_events.csv"), "--rules", "play:1", "--resolve", "oldest") == 2
    assert "choose one of 'strongest', 'most_frequent', 'latest'" in capsys.readouterr().err


# --- a real dbt project ---------------------------------------------------------------------------------------------

@pytest.mark.engine
def test_the_macros_build_in_a_real_dbt_project(tmp_path):
    """dbt-duckdb builds models calling labels_from_events, agreement, aggregate_labels and positions from this
    package; their rows equal the Python API's."""
    import os
    import subprocess
    import sys

    import duckdb

    repo = Path(__file__).resolve().parent.parent
    project = tmp_path / "proj"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    for name in ("watch_events", "recommendations", "annotations", "search_run", "ad_stats"):
        (project / "seeds" / f"{name}.csv").write_text((EXAMPLES / f"{name}.csv").read_text())
    (project / "dbt_project.yml").write_text(
        "name: judgments_test\nversion: '1.0.0'\nconfig-version: 2\nprofile: judgments_test\n"
        "models:\n  judgments_test:\n    +materialized: table\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {repo}\n")
    (project / "profiles.yml").write_text(
        f"judgments_test:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{project / 'db.duckdb'}'\n      threads: 1\n")
    models = {
        "watch_labels": "{{ sqlndcg.labels_from_events(events=ref('watch_events'), impressions=ref('recommendations'), "
                        "rules={'play': 0, 'complete': 3}, thresholds={60: 1, 180: 2}, value='seconds') }}",
        "ad_labels": "{{ sqlndcg.labels_from_events(events=ref('ad_stats'), rate=['conversions', 'impressions']) }}",
        "agreement_by_query": "{{ sqlndcg.agreement(judgments=ref('annotations'), by='query') }}",
        "search_labels": "{{ sqlndcg.aggregate_labels(judgments=ref('annotations'), method='median') }}",
        "search_positions": "{{ sqlndcg.positions(run=ref('search_run'), judgments=ref('search_labels'), k=5, "
                            "group_by=['system']) }}",
    }
    for name, sql in models.items():
        (project / "models" / f"{name}.sql").write_text(sql + "\n")
    dbt = str(Path(sys.executable).with_name("dbt"))
    for args in (["deps"], ["build"]):
        done = subprocess.run([dbt, *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                              capture_output=True, text=True, cwd=project, timeout=600, env={**os.environ})
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    with duckdb.connect(str(project / "db.duckdb"), read_only=True) as con:
        def rows(table):
            return [tuple(r) for r in con.execute(f'SELECT * FROM "{table}"').fetchall()]

        want = sqlndcg.labels_from_events("watch_events", impressions="recommendations", con=con,
                                          rules={"play": 0, "complete": 3}, thresholds={60: 1, 180: 2}, value="seconds")
        assert rows("watch_labels") == list(want.rows)
        want = sqlndcg.labels_from_events("ad_stats", rate=["conversions", "impressions"], con=con)
        assert rows("ad_labels") == list(want.rows)
        got = rows("agreement_by_query")
        want = sqlndcg.agreement("annotations", con=con).per_query.rows
        assert len(got) == len(want) and all(
            (a is None and b is None) or a == b or abs(a - b) < 1e-12
            for g, w in zip(got, want) for a, b in zip(g, w))
        assert rows("search_labels") == list(sqlndcg.aggregate_labels("annotations", method="median", con=con).rows)
        assert rows("search_positions") == list(
            sqlndcg.positions("search_run", "search_labels", k=5, group_by="system", con=con).rows)
