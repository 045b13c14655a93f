"""The measure registry: one file per family under sql/macros/measures, each with its definition on top; and the
values of the measures pytrec_eval lacks (rbp, rbp_resid, unj), worked by hand from trec_eval's definitions."""

from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd
import pytest

import sqlndcg
from sqlndcg import cli
from sqlndcg.verbs import evaluate as api
from sqlndcg.core.metrics import MEASURES
from sqlndcg.core.spec import SETTINGS

MEASURE_DIR = Path(__file__).resolve().parent.parent / "sql" / "macros" / "measures"

# One query worked by hand. Labels: a=2, b=0, c=1, d=-1 (judged unusable: trec_eval's "pooled, unjudged"),
# e=3 (never retrieved). Run: a and z tie at 1.0, so z (the larger id) comes first: z, a, c, d, b.
JUDGMENTS = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 2, "doc_id": ["a", "b", "c", "d", "e", "a", "b"],
                          "rel": [2, 0, 1, -1, 3, 0, 1.7]})
RUN = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 3, "doc_id": ["a", "z", "c", "d", "b", "a", "b", "c"],
                    "score": [1.0, 1.0, 0.5, 0.4, 0.3, 1.0, 2.0, 3.0]})


def values(metrics):
    res = sqlndcg.evaluate(RUN, JUDGMENTS, metrics, preset="trec_eval")
    return {row["query_id"]: row for row in res.per_query.to_dicts()}


def test_rbp_by_hand():
    got = values(["rbp", "rbp(p=0.5)"])
    # q1: the largest label is 3, so gains are rel/3: a (2/3) at position 2, c (1/3) at position 3
    assert got["q1"]["rbp"] == pytest.approx(0.1 * (2 / 3 * 0.9 + 1 / 3 * 0.9 ** 2))
    assert got["q1"]["rbp(p=0.5)"] == pytest.approx(0.5 * (2 / 3 * 0.5 + 1 / 3 * 0.25))
    # q2: order c, b, a; b's 1.7 reads as 1 under preset="trec_eval", the largest label is 1: no scaling
    assert got["q2"]["rbp"] == pytest.approx(0.1 * 0.9)


def test_rbp_resid_by_hand():
    got = values(["rbp_resid"])
    # q1: unjudged at positions 1 (z, no label) and 4 (d, label -1); 5 documents
    assert got["q1"]["rbp_resid"] == pytest.approx(0.9 ** 5 + 0.1 * (1 + 0.9 ** 3))
    # q2: c (position 1) is unjudged; 3 documents
    assert got["q2"]["rbp_resid"] == pytest.approx(0.9 ** 3 + 0.1 * 1)


def test_unj_by_hand():
    got = values(["unj@2", "unj@5", "unj@10"])
    assert (got["q1"]["unj@2"], got["q1"]["unj@5"], got["q1"]["unj@10"]) == pytest.approx((0.5, 0.4, 0.2))
    assert got["q2"]["unj@5"] == pytest.approx(0.2)  # a short list is padded with judged documents


def test_utility_counts_the_collection_size():
    got = values(["utility", "utility(a=2,b=-1,c=-0.5,d=0.1,n=100)"])
    # q1: 5 retrieved, 2 relevant retrieved (a, c), R = 3 (a, c, e)
    assert got["q1"]["utility"] == pytest.approx(2 - 3)
    # the column is named as asked; the canonical name leaves out parameters at their defaults (b=-1)
    assert sqlndcg.parse_metric("utility(a=2,b=-1,c=-0.5,d=0.1,n=100)").name == "utility(a=2,c=-0.5,d=0.1,n=100)"
    assert got["q1"]["utility(a=2,b=-1,c=-0.5,d=0.1,n=100)"] == pytest.approx(2 * 2 - 3 - 0.5 * 1 + 0.1 * (100 + 2 - 5 - 3))


def test_parameters_have_a_canonical_name():
    assert sqlndcg.parse_metric("RBP(p=0.90)").name == "rbp"
    assert sqlndcg.parse_metric("rbp(p=0.95)").name == "rbp(p=0.95)"
    assert sqlndcg.parse_metric("iprec_at_recall(recall=0.1)").name == "iprec_at_recall(recall=0.1)"
    assert sqlndcg.parse_metric("P(rel=2)@5").name == "p(rel=2)@5"
    with pytest.raises(sqlndcg.MetricError, match="has no parameter 'q'"):
        sqlndcg.parse_metric("rbp(q=1)")
    with pytest.raises(sqlndcg.MetricError, match="takes no cutoff"):
        sqlndcg.parse_metric("bpref@10")


@pytest.mark.parametrize("kind", list(MEASURES))
def test_every_family_is_declared_in_one_file_with_its_definition_on_top(kind):
    about = MEASURES[kind]
    files = [p for p in MEASURE_DIR.glob("*.sql") if f"default__measure_{kind}()" in p.read_text()]
    assert len(files) == 1, f"{kind} must be declared in exactly one file"
    text = files[0].read_text()
    assert text.startswith("{#-"), "a measure file opens with its definition"
    assert f"default__value_{kind}(" in text
    before = text[:text.index(f"default__measure_{kind}()")]
    # the definition: the file's opening comment, or the comment just above the declaration
    definitions = text.split("-#}")[0] + before[before.rindex("{#-"):]
    for family in about["trec_eval"]:
        assert family["name"] in definitions, f"{kind}: its definition does not name trec_eval's {family['name']}"
    assert about["help"] and about["summary"] in ("mean", "gm", "sum")


def test_api_keywords_and_cli_flags_come_from_the_settings_declaration():
    import typing

    from sqlndcg.core.settings import Settings

    assert set(typing.get_type_hints(Settings)) == set(SETTINGS)
    for verb in (api.evaluate, api.to_sql):
        settings = [p for p in inspect.signature(verb).parameters.values() if p.kind is p.VAR_KEYWORD]
        assert len(settings) == 1 and "Settings" in str(settings[0].annotation)
    parser = cli._parser()
    evaluate = parser._subparsers._group_actions[0].choices["evaluate"]
    flags = {option for action in evaluate._actions for option in action.option_strings}
    assert {cli.flag_of(name, about) for name, about in SETTINGS.items()} <= flags
    assert "--judgments-query-id-column" in flags


@pytest.mark.parametrize("ir_name, kind", [("NumQ", "num_q"), ("NumRet", "num_ret"), ("NumRel", "num_rel"),
                                          ("NumRelRet", "num_rel_ret"), ("SetP", "set_p"), ("SetR", "set_recall"),
                                          ("SetF", "set_f"), ("Rprec", "rprec"), ("Bpref", "bpref"),
                                          ("infAP", "infap")])
def test_ir_measures_plain_names_read_as_ir_measures_reads_them(ir_name, kind):
    """The docs' measure table lists each measure's ir_measures name: a plain one is accepted with its meaning."""
    assert sqlndcg.parse_metric(ir_name).kind == kind
    assert MEASURES[kind]["ir_measures"] == ir_name


def test_a_name_two_tools_read_differently_is_refused_naming_both():
    with pytest.raises(sqlndcg.MetricError, match=r"hits@k is a hit rate in some tools .* and a count in ranx"):
        sqlndcg.parse_metric("hits@10")
    with pytest.raises(sqlndcg.MetricError, match="hits@k"):
        sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), ["HITS@5"])
    assert sqlndcg.parse_metric("success@10").name == "hit@10"
