"""Metrics and settings, validated once into an immutable :class:`Spec`; everything downstream trusts it.

The declaration of every setting and the presets (``sql/macros/spec/settings.sql``) and the validation
(``sql/macros/spec/spec.sql``) live in the SQL package, where dbt models call them too; this module gives the result
Python types. Nothing is
rendered at import: the declaration's constants (``SETTINGS``, ``PRESETS``, ``GAINS``, ...) are read from the
templates on first use and kept, so importing the package (or the command line's ``--help``) stays quick.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

from .metrics import Metric, plain
from . import templates


@cache
def settings_declared() -> dict[str, dict]:
    """Every setting: allowed values or kind, default, and what it decides (declared once, in settings.sql)."""
    return templates.settings_declared()


@cache
def file_options_declared() -> dict[str, dict]:
    """How input files are read (format, delimiter, decimal separator): keywords and flags of every verb that reads
    files, declared once in settings.sql next to the settings."""
    return templates.file_options_declared()


@cache
def presets() -> dict[str, dict[str, object]]:
    """Named bundles of settings that reproduce a well-known tool exactly (SEMANTICS.md, "Presets")."""
    return templates.presets()


def _values(name: str):
    return lambda: tuple(settings_declared()[name]["values"])


#: The module's constants, each computed from the templates on first access (PEP 562), then kept in globals().
_LAZY = {
    "SETTINGS": settings_declared,
    "PRESETS": presets,
    "GAINS": _values("gain"),
    "IDEALS": _values("ideal"),
    "TIES": _values("ties"),
    "SHORT_LISTS": _values("short_lists"),
    "EMPTIES": _values("empty"),
    "QUERIES": _values("queries"),
    # 2**rel must stay finite in a DOUBLE (max ~1.8e308) with room for sums of many documents.
    "MAX_EXPONENTIAL_REL": lambda: templates.max_exponential_rel(),
    # The settings that name columns.
    "COLUMN_SETTINGS": lambda: tuple(name for name, about in settings_declared().items() if about.get("column")),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = _LAZY[name]()
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


@dataclass(frozen=True)
class Columns:
    """Where each input field lives; judgments_query_id/judgments_doc_id are resolved (never None)."""

    query_id: str
    doc_id: str
    score: str | None
    rank: str | None
    rel: str
    judgments_query_id: str
    judgments_doc_id: str

    @property
    def jq(self) -> str:
        return self.judgments_query_id

    @property
    def jd(self) -> str:
        return self.judgments_doc_id


@dataclass(frozen=True)
class Spec:
    """What to compute and how: a typed view of the validated spec the templates built (kept in ``data``)."""

    data: MappingProxyType = field(repr=False, compare=True)

    @classmethod
    def from_data(cls, data: dict) -> "Spec":
        return cls(MappingProxyType(dict(data)))

    @property
    def metrics(self) -> tuple[Metric, ...]:
        return tuple(Metric.from_plain(m) for m in self.data["metrics"])

    @property
    def columns(self) -> Columns:
        return Columns(**self.data["columns"])

    @property
    def group_by(self) -> tuple[str, ...]:
        return tuple(self.data["group_by"])

    @property
    def gain(self) -> str:
        return self.data["gain"]

    @property
    def gain_map(self) -> dict[float, float] | None:
        return {g: v for g, v in self.data["gain_map"]} if self.data["gain"] == "map" else None

    def __getattr__(self, name: str):
        # Every declared setting that the spec holds as a plain value (group_by and gain have properties above).
        if name != "data" and not name.startswith("__") and name in settings_declared() and name in self.data:
            return self.data[name]
        raise AttributeError(name)

    def threshold_of(self, metric: Metric) -> float:
        return self.threshold if metric.rel is None else metric.rel

    def plain(self) -> dict:
        """The spec as the templates take it."""
        return dict(self.data)

    def settings(self) -> dict[str, object]:
        """Every setting that changes a number, as plain values (recorded next to every result)."""
        return templates.recorded_settings(self.plain())


def make_spec(metrics, **settings) -> Spec:
    """Validate names and settings (the keywords of SETTINGS); explicit settings override the preset, the preset
    overrides defaults. Settings left out or given as None count as not given, except optional columns (score,
    rank, ...), where None means 'none'."""
    declared = settings_declared()
    given = {k: v for k, v in settings.items() if v is not None or declared.get(k, {}).get("optional")}
    if isinstance(given.get("group_by"), tuple):
        given["group_by"] = list(given["group_by"])
    return Spec.from_data(templates.spec(plain(metrics), given))
