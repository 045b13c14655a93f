"""Turn a validated :class:`Spec` plus facts about the inputs into the plain-data plan the templates read.

The plan holds only lists, dicts, strings and validated numbers, with every identifier already quoted, so the
same templates render from Python and from dbt without either side pasting raw user text into SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from .metrics import BINARY_KINDS
from .render import quote
from .spec import Spec


@dataclass(frozen=True)
class InputFacts:
    """What the inputs look like, learned by reading them (or assumed when only SQL is wanted)."""

    run_sql: str
    judgments_sql: str
    ids_as_text: bool = False
    shared_groups: tuple[str, ...] = ()  # group columns the judgments have too (judgments differ per group)


def _suffix(k: int | None) -> str:
    return "all" if k is None else str(k)


def build_plan(spec: Spec, facts: InputFacts) -> dict:
    cols = spec.columns
    binary = [m for m in spec.metrics if m.kind in BINARY_KINDS]
    thresholds = list(dict.fromkeys(spec.threshold_of(m) for m in binary))
    cutoffs = list(dict.fromkeys(m.k for m in spec.metrics))
    full_depth = any(k is None for k in cutoffs)
    prune = not full_depth and spec.ideal == "judgments"
    metrics = []
    for m in spec.metrics:
        metrics.append(
            {
                "name": m.name,
                "kind": m.kind,
                "k": m.k,
                "suffix": _suffix(m.k),
                "threshold_index": thresholds.index(spec.threshold_of(m)) if m.kind in BINARY_KINDS else None,
                "column": quote(m.name),
                "count_column": quote(f"{m.name}_count"),
                "std_column": quote(f"{m.name}_std"),
            }
        )
    groups = [
        {
            "alias": f"_g{i}",
            "run_column": quote(name),
            "judgments_column": quote(name),
            "output": quote(name),
            "shared": name in facts.shared_groups,
            "name": name,
        }
        for i, name in enumerate(spec.group_by)
    ]
    return {
        "run": facts.run_sql,
        "judgments": facts.judgments_sql,
        "run_query_id": quote(cols.query_id),
        "run_doc_id": quote(cols.doc_id),
        "judgments_query_id": quote(cols.jq),
        "judgments_doc_id": quote(cols.jd),
        "rel": quote(cols.rel),
        "order_by": "score" if cols.score else "rank",
        "score": quote(cols.score) if cols.score else None,
        "rank": quote(cols.rank) if cols.rank else None,
        "ids_as_text": facts.ids_as_text,
        "groups": groups,
        "gain": "map" if spec.gain_map is not None else spec.gain,
        "gain_map": [list(pair) for pair in spec.gain] if spec.gain_map is not None else [],
        "ideal": spec.ideal,
        "ties": spec.ties,
        "short_lists": spec.short_lists,
        "empty": spec.empty,
        "queries": spec.queries,
        "thresholds": thresholds,
        "cutoffs": [
            {
                "k": k,
                "suffix": _suffix(k),
                "kinds": sorted({m.kind for m in spec.metrics if m.k == k}),
                "needs_ideal": any(m.kind in ("ndcg", "idcg") for m in spec.metrics if m.k == k),
            }
            for k in cutoffs
        ],
        "prune_k": max(cutoffs) if prune else None,
        "metrics": metrics,
        "query_output": quote(cols.query_id),
        "queries_output": quote("queries"),
    }
