"""Metric names people type (``nDCG@10``, ``P(rel=2)@5``, ``MAP``, ``rbp(p=0.95)``) in their canonical form.

The measures live in the SQL package, one file per family (``sql/macros/measures/``: the definition on top, its
SQL below, registered once in ``registry.sql``); the parser is ``sql/macros/spec/spec.sql``. dbt models and Python read
names the same way; this module gives them Python types. A result column carries the name as the caller spelled it (``"NDCG@10"``,
``"map"``), and the settings its canonical name (``ndcg@10``, ``ap``); :func:`metric_column` finds one from the
other.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import measures
from . import templates


def _measures() -> dict[str, dict]:
    return measures.declarations()


def _kinds() -> dict[str, str]:
    return {kind: about["help"] for kind, about in measures.declarations().items()}


def _flagged(flag: str) -> frozenset[str]:
    return frozenset(kind for kind, about in measures.declarations().items() if about[flag])


#: The module's constants, computed from the templates on first use (so importing renders nothing):
#: MEASURES every family's declaration; KINDS what each kind means (shown in errors and docs); BINARY_KINDS kinds
#: that read labels as binary, so they take a per-metric threshold (``P(rel=2)@5``); ADDITIVE_KINDS kinds whose
#: value is a sum of per-position contributions (the only ones defined under ``ties="average"``);
#: EMPTYABLE_KINDS kinds that ``empty`` can leave NULL; MAX_K the largest cutoff (a 32-bit integer is the widest
#: every SQL engine compares without surprises).
_CONSTANTS = {
    "MEASURES": _measures,
    "KINDS": _kinds,
    "BINARY_KINDS": lambda: _flagged("binary"),
    "ADDITIVE_KINDS": lambda: _flagged("additive"),
    "EMPTYABLE_KINDS": lambda: _flagged("emptyable"),
    "MAX_K": lambda: templates.max_k(),
}


def __getattr__(name: str):
    """The constants above, each computed on first use and then read from the templates' cache."""
    if name in _CONSTANTS:
        return _CONSTANTS[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True, order=True)
class Metric:
    """One per-query metric: a kind, a cutoff (``None`` = full depth) and, for binary kinds, a threshold."""

    kind: str
    k: int | None = None
    rel: float | None = None  # per-metric relevance threshold; None means the evaluation's ``threshold``
    params: tuple[tuple[str, float], ...] = ()  # the measure's own parameters: (("p", 0.95),) for rbp(p=0.95)

    @property
    def name(self) -> str:
        """Canonical name, also the result column: ``ndcg@10``, ``ap``, ``p(rel=2)@5``."""
        return templates.parse_metric(self.plain())["name"]

    def plain(self) -> dict:
        """The metric as the templates take it (they validate every field)."""
        return {"kind": self.kind, "k": self.k, "rel": self.rel, "params": dict(self.params)}

    def __str__(self) -> str:
        return self.name

    @classmethod
    def from_plain(cls, data: dict) -> "Metric":
        return cls(data["kind"], data["k"], data["rel"], tuple(sorted((data.get("params") or {}).items())))


def plain(names) -> object:
    """Names as the templates take them: strings stay, :class:`Metric` objects become mappings."""
    if isinstance(names, Metric):
        return names.plain()
    if isinstance(names, (list, tuple)):
        return [n.plain() if isinstance(n, Metric) else n for n in names]
    return names


def parse_metric(text: str | Metric) -> Metric:
    """Parse one metric name; raise :class:`~sqlndcg.errors.MetricError` naming what is allowed."""
    return Metric.from_plain(templates.parse_metric(plain(text)))


def parse_metrics(names) -> tuple[Metric, ...]:
    """Parse a list of names (or one comma-separated string), keeping the first of any repeats, in order."""
    return tuple(Metric.from_plain(m) for m in templates.parse_metrics(plain(names)))


def metric_column(name: str, settings: dict) -> str | None:
    """The result column that holds the metric ``name``, in a result with these ``settings``: the column of that
    spelling, else the first whose canonical name is ``name``'s (``map`` finds the column ``ap``, and ``ap`` the
    column ``map``: columns are named as the evaluation's metrics= spelled them, ``canonical_metrics`` records
    each one's canonical name). None when the result has no such metric."""
    columns = list(settings.get("metrics", ()))
    if name in columns:
        return name
    wanted = parse_metric(name).name
    canonical = settings.get("canonical_metrics") or {}
    for column in columns:
        try:
            found = canonical.get(column) or parse_metric(column).name
        except Exception:  # noqa: BLE001 - a column no metric name reads as (an upper bound): not this one
            continue
        if found == wanted:
            return column
    return None


def metric_range(metric: str) -> tuple[float, float] | None:
    """The range every per-query value of the metric lies in, as its measure declares it: (0.0, 1.0) for ndcg,
    p, r, ap, rr, hit, ...; None when the metric has no fixed range (cg, dcg, idcg, ...).

    >>> metric_range("ndcg@10"), metric_range("MRR@10"), metric_range("dcg@5")
    ((0.0, 1.0), (0.0, 1.0), None)
    """
    try:
        kind = parse_metric(metric).kind
    except Exception:  # a name the parser no longer knows: no range is claimed
        return None
    lohi = measures.declarations()[kind]["range"]
    return None if lohi is None else (float(lohi[0]), float(lohi[1]))
