"""Result columns carry the names the caller asked for ('map' stays 'map', 'MRR@10' is not 'rr@10'), the settings
their canonical names (issue 28): in the per-query table, the summary, the SQL, the comparison, its gates and the
command line; two spellings of one metric are two columns, unless only their case differs (refused)."""

from __future__ import annotations

import json

import duckdb
import pytest

import sqlndcg
from sqlndcg.cli import main
from sqlndcg.errors import MetricError, SettingError

RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
ASKED = ["nDCG@5", "map", "MRR@10", "P(rel=2)@5"]
CANONICAL = ["ndcg@5", "ap", "rr@10", "p(rel=2)@5"]


@pytest.fixture(scope="module")
def asked():
    return sqlndcg.evaluate(RUN, QRELS, ASKED, group_by="tag")


@pytest.fixture(scope="module")
def canonical():
    return sqlndcg.evaluate(RUN, QRELS, CANONICAL, group_by="tag")


def test_columns_are_named_as_asked_with_the_canonical_names_in_the_settings(asked, canonical):
    assert asked.per_query.columns == ("tag", "query_id", *ASKED)
    assert asked.settings["metrics"] == ASKED
    assert asked.settings["canonical_metrics"] == dict(zip(ASKED, CANONICAL))
    assert canonical.settings["canonical_metrics"] == dict(zip(CANONICAL, CANONICAL))
    renamed = [dict(zip(("tag", "query_id", *CANONICAL), r)) for r in asked.per_query.rows]
    assert renamed == canonical.per_query.to_dicts()
    assert asked.summary.columns[:3] == ("tag", "queries", "nDCG@5")
    assert "map_ci_low" in asked.summary.columns and "MRR@10_count" in asked.summary.columns
    assert [r["map"] for r in asked.summary.to_dicts()] == [r["ap"] for r in canonical.summary.to_dicts()]
    text = str(asked)
    assert "  map  " in text and "canonical_metrics={'nDCG@5': 'ndcg@5', 'map': 'ap'" in text
    assert "canonical_metrics" not in str(canonical)  # nothing renamed, nothing said


def test_the_sql_names_its_columns_as_asked():
    sql = sqlndcg.to_sql("runs", "qrels", ["map", "MRR@10"])
    assert '"map"' in sql and '"MRR@10"' in sql and '"ap"' not in sql


def test_two_spellings_of_one_metric_are_two_columns_of_the_same_values():
    res = sqlndcg.evaluate(RUN, QRELS, ["map", "ap", "ndcg_cut_5", "ndcg@5"], group_by="tag")
    assert res.per_query.columns[2:] == ("map", "ap", "ndcg_cut_5", "ndcg@5")
    for r in res.per_query.to_dicts():
        assert r["map"] == r["ap"] and r["ndcg_cut_5"] == r["ndcg@5"]
    # the same spelling twice is one column, as before
    assert sqlndcg.evaluate(RUN, QRELS, ["map", "map"], group_by="tag").per_query.columns == ("tag", "query_id", "map")


def test_spellings_that_differ_only_in_case_are_refused_naming_both():
    with pytest.raises(MetricError, match=r"metrics 'ndcg@5' and 'NDCG@5' are one metric \(ndcg@5\) spelled twice"):
        sqlndcg.evaluate(RUN, QRELS, ["ndcg@5", "NDCG@5"])


def test_compare_and_its_gates_name_the_metrics_as_asked():
    c = sqlndcg.compare(RUN, QRELS, ["map", "MRR@10"], system="tag", baseline="bm25", permutations=100,
                        resamples=100)
    assert [r["metric"] for r in c] == ["map", "MRR@10"]
    assert c.diffs("rerank", "map") and "map" in c.text()
    for gate, gated in (("map:0.5", "map"), ("ap:0.5", "map"), ("rr@10", "MRR@10"), ("MRR@10", "MRR@10")):
        result = sqlndcg.gate(c, gate)
        assert [r["metric"] for r in result.rows] == [gated], gate
    with pytest.raises(SettingError, match=r"gate 'p@5': p@5 is not among the compared metrics \(map, MRR@10\)"):
        sqlndcg.gate(c, "p@5")
    assert c.result.settings["canonical_metrics"] == {"map": "ap", "MRR@10": "rr@10"}


def test_the_command_line_prints_the_names_asked(capsys):
    assert main(["evaluate", "--run", RUN, "--judgments", QRELS, "-m", "map,MRR@10", "--group-by", "tag",
                 "--per-query", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["per_query"][0]) == ["tag", "query_id", "map", "MRR@10"]
    assert out["settings"]["canonical_metrics"] == {"map": "ap", "MRR@10": "rr@10"}
    assert main(["compare", "--run", RUN, "--judgments", QRELS, "-m", "map", "--system", "tag", "--baseline", "bm25",
                 "--permutations", "100", "--resamples", "100", "--fail-if-worse", "ap:0.9"]) == 0
    captured = capsys.readouterr()
    assert "gates passed: 1 row(s) checked" in captured.err and " map " in captured.out


def test_plots_find_a_metric_by_either_name(tmp_path, asked):
    pytest.importorskip("matplotlib")
    from sqlndcg.present import plots

    assert plots._canonical(["ap", "map", "rr@10"], asked.settings, "result") == ["map", "map", "MRR@10"]
    with pytest.raises(SettingError, match="metric 'p@5' is not in the result"):
        plots._canonical(["p@5"], asked.settings, "result")


def test_dbt_summary_of_a_per_query_model_reads_the_columns_as_named():
    """summary(per_query=...) reads one column per metric, named as its metrics= spell them (the per-query model was
    built with the same list): rendered from the same macros dbt calls, run on DuckDB."""
    from sqlndcg.core import render

    res = sqlndcg.evaluate(RUN, QRELS, ["map", "MRR@10"], group_by="tag")
    con = duckdb.connect()
    con.register("pq", res.per_query.to_arrow())
    spec = render.call("_spec", ["map", "MRR@10"], {"group_by": ["tag"]})
    outputs = render.call("_output_columns", spec)
    got = con.execute(render.call("_summary_sql", "pq", outputs, None)).fetchall()
    names = [d[0] for d in con.description]
    assert "map" in names and "MRR@10_ci_high" in names
    assert [dict(zip(names, r))["map"] for r in got] == pytest.approx([r["map"] for r in res.summary.to_dicts()])
