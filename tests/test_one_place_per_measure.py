"""One place per measure: a family's file in sql/macros/measures/ declares everything about it, and what Python
knows of measures (metric_range, the trec_eval command's tables, the docs' measure table) is derived from that
declaration. Adding a measure is its file (and its kind in registry.sql's list, as Jinja cannot list a folder)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import sqlndcg
from sqlndcg.core import measures, render
from tools import measure_docs
from sqlndcg.core.metrics import metric_range
from sqlndcg.verbs import trec_eval

MEASURE_DIR = Path(__file__).resolve().parent.parent / "sql" / "macros" / "measures"
DOC = Path(__file__).resolve().parent.parent / "docs" / "SEMANTICS.md"


def _typed(about: dict, keys: dict, where: str) -> None:
    assert set(about) == set(keys), f"{where}: keys {sorted(set(about) ^ set(keys))} differ from the declared ones"
    for key, kind in keys.items():
        assert isinstance(about[key], kind), f"{where}: {key} is {about[key]!r}, not {kind}"


@pytest.mark.parametrize("kind", list(measures.declarations()))
def test_every_declaration_is_complete(kind):
    about = measures.declarations()[kind]
    _typed(about, measures.KEYS, kind)
    assert about["help"] and about["summary"] in measures.SUMMARIES
    assert all(isinstance(v, (int, float)) for v in about["params"].values())
    assert set(about["domains"]) <= set(about["params"])
    if about["range"] is not None:
        lo, hi = about["range"]
        assert lo < hi
    for family in about["trec_eval"]:
        where = f"{kind}: trec_eval {family.get('name')}"
        _typed(family, measures.TREC_EVAL_KEYS, where)
        assert family["params"] in measures.TREC_EVAL_PARAMS, where
        assert set(family["nicknames"]) <= set(trec_eval.NICKNAME_NAMES), where
        style, param = family["params"], family["param"]
        if style in ("cutoffs", "levels", "coefficients", "beta_squared"):
            assert family["defaults"], f"{where}: {style} needs the defaults trec_eval prints"
        if style == "cutoffs":
            assert about["k"] and all(isinstance(c, int) and c > 0 for c in family["defaults"]), where
        if style in ("levels", "named", "beta_squared"):
            assert param in about["params"], f"{where}: {param!r} is not a parameter of {kind}"
        if style == "coefficients":
            assert len(param) == len(family["defaults"]) and set(param) <= set(about["params"]), where
            assert family["collection_size"] in (None, *about["params"]), where
        if style == "averaged_levels":
            assert param in measures.declarations()[family["of"]]["params"], where


def test_the_registry_lists_every_family_a_file_declares():
    declared = {m for path in MEASURE_DIR.glob("*.sql")
                for m in re.findall(r"macro default__measure_(\w+)\(\)", path.read_text(encoding="utf-8"))}
    assert declared == set(render.call("_measure_families"))


def test_value_macros_read_only_the_accessor():
    """A value macro gets its per-query aggregates as `a.<name>` expressions; the statement's aliases (rm, rt, jq, it,
    idl, rq) and private column names stay in per_query.sql and registry.sql."""
    for path in MEASURE_DIR.glob("*.sql"):
        if path.name == "registry.sql":
            continue
        text = path.read_text(encoding="utf-8")
        for name, body in re.findall(r"macro default__value_(\w+)\(.*?\)(.*?)endmacro", text, re.S):
            assert not re.search(r"\b(rm|rt|jq|it|idl|rq)\.", body), f"{path.name}: value_{name} reads a private column"


def test_trec_eval_families_have_one_name_and_one_place_each():
    families = [f for about in measures.declarations().values() for f in about["trec_eval"]]
    families += list(trec_eval.NOT_MEASURES)
    assert len({f["name"] for f in families}) == len(families)
    assert len({f["order"] for f in families}) == len(families)


def test_metric_range_is_the_declared_range():
    for kind, about in measures.declarations().items():
        name = sqlndcg.parse_metric(kind).name
        assert metric_range(name) == (None if about["range"] is None else tuple(map(float, about["range"])))
    assert metric_range("ndcg@10") == (0.0, 1.0) and metric_range("dcg@5") is None


def test_the_docs_measure_table_is_the_generated_one():
    text = DOC.read_text(encoding="utf-8")
    assert measure_docs.with_table(text) == text, "run python -m tools.measure_docs"


def test_nothing_is_rendered_at_import():
    import subprocess
    import sys

    code = ("import sqlndcg.core.metrics, sqlndcg.verbs.trec_eval, sqlndcg.core.render as r; "
            "assert r.package.cache_info().currsize == 0, 'rendered at import'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# ----------------------------------------------------------------------------------------------------------------
# adding a measure: one file (and its registration line) in a copy of the SQL tree

NEW_MEASURE = """{#-
  num_unjudged_ret: retrieved documents without a judgment (no label, or a negative one). A measure written only
  by this test, to show that its file is all a measure needs. trec_eval: num_unjudged_ret. ir_measures: none.
-#}
{%- macro default__measure_num_unjudged_ret() -%}
{{ return({'help': 'number of retrieved documents without a judgment', 'binary': true, 'summary': 'sum',
           'needs': ['totals'], 'trec_eval': [{'name': 'num_unjudged_ret', 'order': 99, 'integer': true}]}) }}
{%- endmacro -%}
{%- macro default__value_num_unjudged_ret(m, p, a) -%}{{ return('(' ~ a.n ~ ' - ' ~ a.judged_all ~ ')') }}{%- endmacro -%}
"""


@pytest.fixture
def one_more_measure(tmp_path, monkeypatch):
    sql = tmp_path / "sql"
    shutil.copytree(render.SQL_DIR, sql)
    (sql / "macros" / "measures" / "num_unjudged_ret.sql").write_text(NEW_MEASURE, encoding="utf-8")
    registry = sql / "macros" / "measures" / "registry.sql"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace("'rbp', 'rbp_resid', 'unj',", "'rbp', 'rbp_resid', 'unj', 'num_unjudged_ret',", 1),
                        encoding="utf-8")

    def forget():
        measures.forget()
        trec_eval.tables.cache_clear()

    monkeypatch.setattr(render, "SQL_DIR", sql)
    forget()
    yield tmp_path
    monkeypatch.undo()
    forget()


RUN = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "a", "d"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
JUDGMENTS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "d"], "rel": [1, 0, -1]})


def test_a_new_measure_file_is_evaluated_printed_by_trec_eval_and_documented(one_more_measure):
    assert "num_unjudged_ret" in measures.declarations()
    # evaluate() computes it
    res = sqlndcg.evaluate(RUN, JUDGMENTS, ["num_unjudged_ret", "num_ret"])
    got = {row["query_id"]: row["num_unjudged_ret"] for row in res.per_query.to_dicts()}
    assert got == {"q1": 1, "q2": 2}  # q1: c has no label; q2: a has none, d is -1

    # the trec_eval command knows it, in all_trec too, and prints it as its declaration says (integer, summed)
    assert "num_unjudged_ret" in trec_eval.tables().nicknames["all_trec"]
    assert [line.name for line in trec_eval.select(["num_unjudged_ret"])] == ["num_unjudged_ret"]
    qrels, run = one_more_measure / "qrels", one_more_measure / "run"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in JUDGMENTS.itertuples(index=False)))
    run.write_text("".join(f"{q} Q0 {d} {i} {s} x\n" for i, (q, d, s) in enumerate(RUN.itertuples(index=False))))
    out = trec_eval.compute(trec_eval.Options(str(qrels), str(run), measures=["num_unjudged_ret"], per_query=True))
    assert out.per_query == [("num_unjudged_ret", "q1", "1"), ("num_unjudged_ret", "q2", "2")]
    assert out.summary == [("num_unjudged_ret", "all", "3")]

    # the docs' table lists it, and metric_range claims no range it did not declare
    assert "| `num_unjudged_ret` | number of retrieved documents without a judgment | - | `num_unjudged_ret` |" \
        in measure_docs.table()
    assert metric_range("num_unjudged_ret") is None


# ----------------------------------------------------------------------------------------------------------------
# adding a measure with a shared aggregate of its own: still its file and its registration line, no edit of
# statements/per_query.sql (which calls the aggregate's hooks, as it calls ERR's cascade and NCG's gain sums)

POOLED_MEASURE = """{#-
  pooled@k: retrieved documents within k whose label is negative (pooled, judged unusable). A measure written only
  by this test, with a shared aggregate (`negatives`) of its own: a column on the ranked rows, summed in rank order.
-#}
{%- macro default__measure_pooled() -%}
{{ return({'help': 'negative labels within k', 'k': true, 'needs': ['negatives'], 'summary': 'sum'}) }}
{%- endmacro -%}
{%- macro default__value_pooled(m, p, a) -%}{{ return(a.pooled) }}{%- endmacro -%}
{%- macro default__shared_negatives(p) -%}
{{ return({'labels': ['_rel'], 'stages': ['scored', 'positioned'],
           'rank_sums': [{'name': '_negsum', 'term': '_neg', 'value': 'pooled'}]}) }}
{%- endmacro -%}
{%- macro default__shared_negatives_columns(stage, p, f) -%}
{%- set rel = 'r._rel' if f.join_first else 'COALESCE(l._rel, 0)' -%}
{{ return(['CASE WHEN ' ~ rel ~ ' < 0 THEN 1 ELSE 0 END AS _neg'] if stage == 'scored' else ['_neg']) }}
{%- endmacro -%}
"""


@pytest.fixture
def pooled_measure(tmp_path, monkeypatch):
    sql = tmp_path / "sql"
    shutil.copytree(render.SQL_DIR, sql)
    (sql / "macros" / "measures" / "pooled.sql").write_text(POOLED_MEASURE, encoding="utf-8")
    registry = sql / "macros" / "measures" / "registry.sql"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace("'err', 'ncg',", "'err', 'ncg', 'pooled',", 1), encoding="utf-8")
    monkeypatch.setattr(render, "SQL_DIR", sql)
    measures.forget()
    yield
    monkeypatch.undo()
    measures.forget()


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite"])
def test_a_new_shared_aggregate_is_in_its_measures_file(pooled_measure, dialect):
    import duckdb
    import sqlite3

    con = duckdb.connect() if dialect == "duckdb" else sqlite3.connect(":memory:")
    for name, frame in (("runs", RUN), ("qrels", JUDGMENTS)):
        if dialect == "duckdb":
            con.register(name, frame)
        else:
            frame.to_sql(name, con, index=False)
    for metric, expected in (("pooled@1", {"q1": 0, "q2": 0}), ("pooled", {"q1": 0, "q2": 1})):
        res = sqlndcg.evaluate("runs", "qrels", [metric], con=con)
        assert {row["query_id"]: row[metric] for row in res.per_query.to_dicts()} == expected, (dialect, metric)
