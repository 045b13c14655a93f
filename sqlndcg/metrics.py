"""Metric names people type (``nDCG@10``, ``P(rel=2)@5``, ``MAP``) parsed into one canonical form.

The canonical name doubles as the result column name, so ``"NDCG@10"`` and ``"ndcg@10"`` give the same column.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

from .errors import MetricError

#: Per-query metric kinds, with what each means (shown in errors and docs).
KINDS: dict[str, str] = {
    "cg": "cumulative gain: sum of relevance labels in the top k",
    "dcg": "discounted cumulative gain",
    "idcg": "DCG of the ideal ranking",
    "ndcg": "normalized DCG = DCG / IDCG",
    "p": "precision: relevant documents in the top k, divided by k",
    "r": "recall: relevant documents in the top k, divided by all relevant",
    "ap": "average precision (MAP is its mean)",
    "rr": "reciprocal rank of the first relevant document (MRR is its mean)",
    "hit": "1 if any relevant document is in the top k",
    "judged": "share of the top k that has a judgment",
}

#: Kinds that treat labels as binary, so they take a per-metric threshold: ``P(rel=2)@5``.
BINARY_KINDS = frozenset({"p", "r", "ap", "rr", "hit"})

#: Kinds whose value is a sum of per-position contributions; only these are defined under ``ties="average"``.
ADDITIVE_KINDS = frozenset({"cg", "dcg", "idcg", "ndcg", "p", "r", "judged"})

#: The largest cutoff: a 32-bit integer is the widest every SQL engine compares without surprises.
MAX_K = 2**31 - 1

#: Other spellings accepted on input (ir_measures, trec_eval, common usage).
_ALIASES = {
    "map": "ap",
    "mrr": "rr",
    "recip_rank": "rr",
    "precision": "p",
    "recall": "r",
    "ndcg_cut": "ndcg",
    "map_cut": "ap",
    "hits": "hit",
    "hitrate": "hit",
    "hit_rate": "hit",
    "success": "hit",
}

_PATTERN = re.compile(
    r"""^\s*(?P<kind>[a-z_]+)\s*
        (?:\(\s*rel\s*=\s*(?P<rel>[0-9]+(?:\.[0-9]+)?)\s*\))?\s*
        (?:[@_]\s*(?P<k>[+-]?[0-9]+))?\s*$""",
    re.VERBOSE,
)


@dataclass(frozen=True, order=True)
class Metric:
    """One per-query metric: a kind, a cutoff (``None`` = full depth) and, for binary kinds, a threshold."""

    kind: str
    k: int | None = None
    rel: float | None = None  # per-metric relevance threshold; None means the evaluation's ``threshold``

    @property
    def name(self) -> str:
        """Canonical name, also the result column: ``ndcg@10``, ``ap``, ``p(rel=2)@5``."""
        rel = "" if self.rel is None else f"(rel={_number(self.rel)})"
        cut = "" if self.k is None else f"@{self.k}"
        return f"{self.kind}{rel}{cut}"

    def __str__(self) -> str:
        return self.name


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _known() -> str:
    kinds = ", ".join(f"{k}@k ({v})" for k, v in KINDS.items())
    return f"known metrics: {kinds}; also map, mrr, and P(rel=2)@5 for a per-metric threshold"


def _validated(metric: Metric, label: str | None = None) -> Metric:
    """The one check of a metric's fields, whether parsed from a name or built by hand (they end up in SQL).
    ``label`` is what the user wrote, for messages."""
    kind, k, rel = metric.kind, metric.k, metric.rel
    if not isinstance(kind, str) or kind not in KINDS:
        raise MetricError(f"unknown metric {label or kind!r}; {_known()}")
    label = label or kind
    if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= MAX_K):
        raise MetricError(
            f"metric {label!r}: the cutoff k must be an integer from 1 to {MAX_K} (or none for the full list), "
            f"got {k!r}"
        )
    if rel is not None:
        if kind not in BINARY_KINDS:
            raise MetricError(
                f"metric {label!r}: a (rel=...) threshold applies only to {sorted(BINARY_KINDS)}, "
                f"whose labels are binary; {kind} uses the graded labels"
            )
        if isinstance(rel, bool) or not isinstance(rel, (int, float)) or not 0 < rel < float("inf"):
            raise MetricError(f"metric {label!r}: the relevance threshold must be a positive number, got {rel!r}")
    return Metric(kind, None if k is None else int(k), None if rel is None else float(rel))


def parse_metric(text: str | Metric) -> Metric:
    """Parse one metric name; raise :class:`MetricError` naming what is allowed."""
    if isinstance(text, Metric):
        return _validated(text)
    if not isinstance(text, str):
        raise MetricError(f"a metric name must be a string like 'ndcg@10', got {text!r}")
    m = _PATTERN.match(text.lower())
    if not m:
        raise MetricError(f"cannot read metric {text!r}; write it like 'ndcg@10', 'p@5', 'map'; {_known()}")
    kind = _ALIASES.get(m["kind"], m["kind"])
    k = None if m["k"] is None else int(m["k"])
    rel = None if m["rel"] is None else float(m["rel"])
    return _validated(Metric(kind, k, rel), label=text)


def parse_metrics(names) -> tuple[Metric, ...]:
    """Parse a list of names (or one comma-separated string), keeping the first of any repeats, in order."""
    if isinstance(names, (str, Metric)):
        names = [part for part in str(names).split(",") if part.strip()] if isinstance(names, str) else [names]
    parsed = [parse_metric(n) for n in names]
    if not parsed:
        raise MetricError(f"no metrics requested; {_known()}")
    return tuple(dict.fromkeys(parsed))
