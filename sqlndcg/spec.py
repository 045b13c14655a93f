"""Metrics and settings, validated once into an immutable :class:`Spec`; everything downstream trusts it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Mapping

from .errors import MetricError, SettingError
from .metrics import ADDITIVE_KINDS, Metric, parse_metrics

GAINS = ("exponential", "linear")
IDEALS = ("judgments", "retrieved")
TIES = ("doc_id", "average", "rank")
SHORT_LISTS = ("pad", "truncate")
EMPTIES = ("zero", "skip", "error")
QUERIES = ("judged", "both")

#: Named bundles of settings that reproduce a well-known tool exactly (see SEMANTICS.md, "Presets").
PRESETS: dict[str, dict[str, object]] = {
    "trec_eval": dict(gain="linear", ideal="judgments", ties="doc_id", short_lists="pad", empty="zero",
                      queries="judged"),
    "sklearn": dict(gain="linear", ideal="retrieved", ties="average"),
}

#: 2**rel must stay finite in a DOUBLE (max ~1.8e308) with room for sums of many documents.
MAX_EXPONENTIAL_REL = 1000


@dataclass(frozen=True)
class Columns:
    """Where each input field lives; the defaults are SEMANTICS.md's names."""

    query_id: str = "query_id"
    doc_id: str = "doc_id"
    score: str | None = "score"
    rank: str | None = "rank"
    rel: str = "rel"
    judgments_query_id: str | None = None  # defaults to query_id
    judgments_doc_id: str | None = None  # defaults to doc_id

    @property
    def jq(self) -> str:
        return self.judgments_query_id or self.query_id

    @property
    def jd(self) -> str:
        return self.judgments_doc_id or self.doc_id


@dataclass(frozen=True)
class Spec:
    """What to compute and how: the single validated object the renderer reads."""

    metrics: tuple[Metric, ...]
    gain: str | tuple[tuple[float, float], ...] = "exponential"
    ideal: str = "judgments"
    ties: str = "doc_id"
    short_lists: str = "pad"
    empty: str = "zero"
    queries: str = "judged"
    threshold: float = 1.0
    group_by: tuple[str, ...] = ()
    columns: Columns = field(default_factory=Columns)
    preset: str | None = None

    @property
    def gain_map(self) -> dict[float, float] | None:
        return dict(self.gain) if isinstance(self.gain, tuple) else None

    def threshold_of(self, metric: Metric) -> float:
        return self.threshold if metric.rel is None else metric.rel

    def settings(self) -> dict[str, object]:
        """Every setting that changes a number, as plain values (recorded next to every result)."""
        out = {
            "gain": self.gain_map if self.gain_map is not None else self.gain,
            "ideal": self.ideal,
            "ties": self.ties,
            "short_lists": self.short_lists,
            "empty": self.empty,
            "queries": self.queries,
            "threshold": self.threshold,
            "group_by": list(self.group_by),
            "metrics": [m.name for m in self.metrics],
            "columns": {k: v for k, v in asdict(self.columns).items() if v is not None},
        }
        if self.preset:
            out["preset"] = self.preset
        return out


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise SettingError(f"{name}={value!r} is not allowed; choose one of {', '.join(map(repr, allowed))}")
    return value


def _finite_number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SettingError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _gain(value) -> str | tuple[tuple[float, float], ...]:
    if isinstance(value, Mapping):
        if not value:
            raise SettingError("gain={} is empty; map each relevance grade to its gain, e.g. {1: 1, 2: 3, 3: 7}")
        pairs = []
        for grade, g in value.items():
            grade = _finite_number(f"gain map grade {grade!r}", grade)
            g = _finite_number(f"gain map value for grade {grade:g}", g)
            if grade <= 0 or g < 0:
                raise SettingError(
                    f"gain map {{{grade:g}: {g:g}}}: grades must be positive and gains non-negative "
                    "(grades <= 0 always have gain 0)"
                )
            pairs.append((grade, g))
        return tuple(sorted(pairs))
    return _choice("gain", value, GAINS)


def _column(name: str, value, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise SettingError(f"{name} must be a non-empty column name, got {value!r}")
    return value


def make_spec(
    metrics,
    *,
    preset: str | None = None,
    gain=None,
    ideal: str | None = None,
    ties: str | None = None,
    short_lists: str | None = None,
    empty: str | None = None,
    queries: str | None = None,
    threshold: float | None = None,
    group_by=(),
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str | None = "score",
    rank: str | None = "rank",
    rel: str = "rel",
    judgments_query_id: str | None = None,
    judgments_doc_id: str | None = None,
) -> Spec:
    """Validate names and settings; explicit settings override the preset, the preset overrides defaults."""
    chosen: dict[str, object] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise SettingError(f"preset={preset!r} is not known; choose one of {', '.join(map(repr, PRESETS))}")
        chosen.update(PRESETS[preset])
    given = dict(gain=gain, ideal=ideal, ties=ties, short_lists=short_lists, empty=empty, queries=queries)
    chosen.update({k: v for k, v in given.items() if v is not None})
    defaults = Spec(metrics=())
    if isinstance(group_by, str):
        group_by = (group_by,)
    group_by = tuple(_column("group_by column", g) for g in group_by)
    if len(set(group_by)) != len(group_by):
        raise SettingError(f"group_by names a column twice: {list(group_by)}")
    columns = Columns(
        query_id=_column("query_id", query_id),
        doc_id=_column("doc_id", doc_id),
        score=_column("score", score, optional=True),
        rank=_column("rank", rank, optional=True),
        rel=_column("rel", rel),
        judgments_query_id=_column("judgments_query_id", judgments_query_id, optional=True),
        judgments_doc_id=_column("judgments_doc_id", judgments_doc_id, optional=True),
    )
    clash = set(group_by) & {columns.query_id, columns.doc_id, columns.score, columns.rank}
    if clash:
        raise SettingError(f"group_by column(s) {sorted(clash)} are also the query, document, score or rank column")
    spec = Spec(
        metrics=parse_metrics(metrics),
        gain=_gain(chosen.get("gain", defaults.gain)),
        ideal=_choice("ideal", chosen.get("ideal", defaults.ideal), IDEALS),
        ties=_choice("ties", chosen.get("ties", defaults.ties), TIES),
        short_lists=_choice("short_lists", chosen.get("short_lists", defaults.short_lists), SHORT_LISTS),
        empty=_choice("empty", chosen.get("empty", defaults.empty), EMPTIES),
        queries=_choice("queries", chosen.get("queries", defaults.queries), QUERIES),
        threshold=_finite_number("threshold", defaults.threshold if threshold is None else threshold),
        group_by=group_by,
        columns=columns,
        preset=preset,
    )
    if spec.threshold <= 0:
        raise SettingError(
            f"threshold={spec.threshold:g}: must be positive (a document is relevant when rel >= threshold; "
            "unjudged documents count as rel 0, so threshold 0 would make them relevant)"
        )
    if spec.ties == "average":
        bad = [m.name for m in spec.metrics if m.kind not in ADDITIVE_KINDS]
        if bad:
            raise MetricError(
                f"ties='average' is defined only for metrics that add up per-position contributions "
                f"({', '.join(sorted(ADDITIVE_KINDS))}); {', '.join(bad)} cannot use it. "
                "Use ties='doc_id' for those, or evaluate them in a separate call."
            )
    if spec.ties == "rank" and not spec.columns.rank:
        raise SettingError("ties='rank' orders by the run's rank column, but rank=None was given")
    if spec.ties != "rank" and not spec.columns.score and not spec.columns.rank:
        raise SettingError("the run needs a score column (higher is better) or a rank column (1 is best)")
    return spec


def with_order(spec: Spec, *, has_score: bool, has_rank: bool) -> Spec:
    """Drop the score or rank column the run does not have (known only once the input is read)."""
    cols = spec.columns
    score = cols.score if has_score else None
    rank = cols.rank if has_rank else None
    if spec.ties == "rank":
        score = None
    elif score:
        rank = None
    return replace(spec, columns=replace(cols, score=score, rank=rank))
