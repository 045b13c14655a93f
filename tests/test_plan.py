"""The plan's typed mirror (sqlndcg/core/plan.py) states the keys the `plan` macro returns: adding a key on one
side fails here until the other has it."""

from __future__ import annotations

import pytest

from sqlndcg.core import plan as typed
from sqlndcg.core import render
from sqlndcg.core.spec import make_spec

SPECS = [
    (["ndcg@10", "p@5", "map@10", "rr@10"], {"group_by": ["system", "day"]}),
    (["ndcg", "judged@5", "rndcg"], {"preset": "trec_eval", "short_lists": "truncate"}),
    (["rbp", "iprec_at_recall"], {"ideal": "retrieved", "depth": 5, "judged_only": True}),
]


def _plans():
    for metrics, settings in SPECS:
        spec = make_spec(metrics, **settings).plain()
        yield render.call("_plan", render.call("_assumed_facts", spec, '"runs"', '"qrels"', "text"))
        run = {"sql": '"runs"', "label": "run", "rereadable": True,
               "columns": [{"name": n, "type": "VARCHAR", "class": "text"} for n in ("query_id", "doc_id", "system", "day")]
               + [{"name": "score", "type": "DOUBLE", "class": "number"}]}
        judgments = {"sql": '"qrels"', "label": "judgments",
                     "columns": [{"name": n, "type": "BIGINT", "class": "integer"} for n in ("query_id", "doc_id", "rel", "day")]}
        yield render.call("_plan", render.call("_facts", spec, run, judgments))


@pytest.mark.parametrize("plan", list(_plans()))
def test_the_mirror_states_the_plan_keys(plan):
    assert set(plan) == typed.keys_of(typed.Plan)
    assert typed.checked(plan) is plan
    for m in plan["metrics"]:
        assert set(m) == typed.keys_of(typed.Metric)
    for g in plan["groups"]:
        assert set(g) == typed.keys_of(typed.Group)
    for c in plan["cutoffs"]:
        assert set(c) == typed.keys_of(typed.Cutoff)


def test_a_key_on_one_side_only_is_refused():
    plan = next(_plans())
    with pytest.raises(AssertionError, match="longest_list"):
        typed.checked({**plan, "longest_list": 3})
    with pytest.raises(AssertionError, match="prune_k"):
        typed.checked({k: v for k, v in plan.items() if k != "prune_k"})


def test_per_call_values_are_arguments():
    """A partition's bucket and the longest list change the statement, not the plan."""
    plan = next(_plans())
    whole = render.call("_per_query_sql", plan, False)
    bucket = render.call("_per_query_sql", plan, False, {"index": 1, "count": 4})
    assert whole != bucket and "= 1" in bucket
    short = render.call("_per_query_sql", plan, True, None, 3, dialect="postgres")  # no list longer than k: no cut
    assert "list_cut" in render.call("_per_query_sql", plan, dialect="postgres") and "list_cut" not in short
    assert "top_lists" in render.call("_per_query_sql", plan) and "list_cut" not in render.call("_per_query_sql", plan)
    assert render.call("_account_sql", plan, False, {"index": 0, "count": 2}) != render.call("_account_sql", plan)


def test_output_columns_states_the_plan_shape():
    """output_columns (outputs.sql) gives, from a spec alone, the shape every plan carries."""
    for metrics, settings in SPECS:
        spec = make_spec(metrics, **settings).plain()
        out = render.call("_output_columns", spec, settings["group_by"][0] if "group_by" in settings else None)
        assert set(out) == typed.keys_of(typed.OutputColumns)
        plan = render.call("_plan", render.call("_assumed_facts", spec, '"runs"', '"qrels"', "text"))
        for key in typed.keys_of(typed.Outputs) - {"groups", "metrics", "spec"}:
            assert plan[key] == out[key]
        assert [{k: g[k] for k in typed.keys_of(typed.OutputGroup)} for g in plan["groups"]] == out["groups"]
        assert [{k: m[k] for k in typed.keys_of(typed.OutputMetric)} for m in plan["metrics"]] == out["metrics"]


def test_output_columns_name_the_tables_columns():
    import sqlglot
    from sqlglot import exp

    import sqlndcg
    from sqlndcg.stats.intervals import with_bootstrap

    metrics = ["ndcg@5", "p@5", "map"]
    res = sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), metrics, group_by="tag")
    spec = make_spec(metrics, group_by=["tag"]).plain()
    out = render.call("_output_columns", spec, "tag")
    assert list(res.per_query.columns) == out["per_query"]
    assert list(res.summary.columns) == out["summary"]
    assert list(res.account.columns) == out["account"]
    assert list(with_bootstrap(res, resamples=10).summary.columns) == out["summary"] + out["added"]
    paired = sqlglot.parse_one(render.call("_paired_sql", '"pq"', out, "tag", "bm25"), read="duckdb")
    assert isinstance(paired, exp.Select)  # the statement's own (outermost) SELECT names the columns
    assert [c.strip('"') for c in paired.named_selects] == out["compare"]
