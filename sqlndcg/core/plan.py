"""The plan's keys, stated once on the Python side.

The plan is built by one Jinja macro (``plan`` in sql/macros/plan/plan.sql), so that dbt and Python share one builder;
it stays plain data (a dict) because that is what the templates, dbt and the render cache take. These TypedDicts
mirror it so Python reads it by declared keys, and :func:`checked` refuses a plan whose keys differ from the
mirror (tests/test_plan.py renders the macro and compares, so a key added on one side fails until the other has
it). What varies per call (the bucket of a partitioned pass, the longest run list the checks found) is not in
the plan: it is passed to the statement macros as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, TypedDict, cast


class OutputGroup(TypedDict):
    """A group column as the per-query table holds it (output_columns in sql/macros/outputs/outputs.sql)."""

    name: str
    output: str  # quoted


class OutputMetric(TypedDict):
    """A metric's columns in the per-query table (``column``) and in the summary (every ``*_column``), quoted."""

    name: str
    emptyable: bool  # empty='skip' (or 'error') can leave it NULL
    column: str
    count_column: str
    std_column: str
    ci_low_column: str
    ci_high_column: str


class Outputs(TypedDict):
    """What the statements over a per-query table read (summary, comparison, weights, generic tests): the
    ``output_columns`` macro (sql/macros/outputs/outputs.sql) gives it from a spec alone, and every plan has these keys."""

    spec: dict
    groups: list[OutputGroup]
    metrics: list[OutputMetric]
    query_output: str
    queries_output: str


class OutputColumns(Outputs):
    """What ``output_columns(spec, system)`` returns: the shape, and each table's column names in order."""

    per_query: list[str]
    summary: list[str]
    added: list[str]  # the summary columns Python adds (the bootstrap interval)
    account: list[str]
    compare: Optional[list[str]]  # with a system column, else None


class Group(OutputGroup):
    alias: str  # _g0, _g1, ...: the internal name inside the statements
    run_column: str
    judgments_column: str
    shared: bool  # the judgments have this column too (judged per group)


class Metric(OutputMetric):
    kind: str
    k: Optional[int]
    suffix: str  # the cutoff as the internal column names spell it ('all' for none)
    params: dict[str, Any]
    id: str  # _m0, _m1, ...: prefix of the measure's own aggregates
    summary_rule: str
    threshold_index: Optional[int]


class Cutoff(TypedDict):
    k: Optional[int]
    suffix: str
    kinds: list[str]
    needs: list[str]
    needs_ideal: bool


class Plan(Outputs):
    groups: list[Group]  # type: ignore[misc]  # the output groups, with their internal names
    metrics: list[Metric]  # type: ignore[misc]
    settings: dict
    run: str
    judgments: str
    run_rereadable: bool
    judgments_rereadable: bool
    run_query_id: str
    run_doc_id: str
    judgments_query_id: str
    judgments_doc_id: str
    rel: str
    order_by: str  # 'score' or 'rank'
    score: Optional[str]
    rank: Optional[str]
    query_ids_as_text: bool
    doc_ids_as_text: bool
    run_doc_ids_integer: bool
    id_order: str
    gain: str
    gain_map: Any
    ideal: str
    ties: str
    short_lists: str
    empty: str
    queries: str
    thresholds: list[float]
    cutoffs: list[Cutoff]
    needs: list[str]
    labels: str
    depth: Optional[int]
    judged_only: bool
    unjudged_grade: int | None
    iprec_reach: str
    prune_k: Optional[int]
    checked_within: Optional[int]
    many_lists: bool  # DuckDB: the run holds many lists (evaluate() counts them; top_n in dialects/rules.sql)
    sample: Optional[dict]  # {fraction, seed}: every statement reads only the sampled queries (per_query.sql)
    top_table: Optional[str]  # the run's ranked top, made once by a checked evaluation for its passes (run_top.sql)


def keys_of(mirror: Any) -> set[str]:
    """The keys a TypedDict declares, its bases' included (``Any``: a TypedDict class has no type of its own)."""
    return set(mirror.__required_keys__) | set(mirror.__optional_keys__)


def checked(plan: Mapping[str, Any]) -> Plan:
    """The plan the macro returned, refused if its keys are not the mirror's (a key added on one side only)."""
    differ = set(plan) ^ keys_of(Plan)
    if differ:
        raise AssertionError(f"the plan macro and sqlndcg.core.plan.Plan disagree on {sorted(differ)}")
    return cast(Plan, plan)
