"""Metrics and settings, validated once into an immutable :class:`Spec`; everything downstream trusts it.

The declaration of every setting, the presets and the validation live in the SQL package
(``sql/macros/spec.sql``), where dbt models call them too; this module gives the result Python types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from . import render
from .metrics import Metric, plain

#: Every setting: allowed values or kind, default, and what it decides (declared once, in spec.sql).
SETTINGS: dict[str, dict] = render.call("settings_declared")

#: Named bundles of settings that reproduce a well-known tool exactly (SEMANTICS.md, "Presets").
PRESETS: dict[str, dict[str, object]] = render.call("presets")

GAINS = tuple(SETTINGS["gain"]["values"])
IDEALS = tuple(SETTINGS["ideal"]["values"])
TIES = tuple(SETTINGS["ties"]["values"])
SHORT_LISTS = tuple(SETTINGS["short_lists"]["values"])
EMPTIES = tuple(SETTINGS["empty"]["values"])
QUERIES = tuple(SETTINGS["queries"]["values"])

#: 2**rel must stay finite in a DOUBLE (max ~1.8e308) with room for sums of many documents.
MAX_EXPONENTIAL_REL = render.call("max_exponential_rel")

#: The settings that name columns.
COLUMN_SETTINGS = tuple(name for name, about in SETTINGS.items() if about.get("column"))


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
        if name != "data" and (name in SETTINGS or name == "preset") and name in self.data:
            return self.data[name]
        raise AttributeError(name)

    def threshold_of(self, metric: Metric) -> float:
        return self.threshold if metric.rel is None else metric.rel

    def plain(self) -> dict:
        """The spec as the templates take it."""
        return dict(self.data)

    def settings(self) -> dict[str, object]:
        """Every setting that changes a number, as plain values (recorded next to every result)."""
        return render.call("recorded_settings", self.plain())


def make_spec(metrics, **settings) -> Spec:
    """Validate names and settings (the keywords of SETTINGS); explicit settings override the preset, the preset
    overrides defaults. Settings given as None count as not given, except column names, where None means 'none'."""
    given = {k: v for k, v in settings.items() if v is not None or k in ("score", "rank")}
    if isinstance(given.get("group_by"), tuple):
        given["group_by"] = list(given["group_by"])
    return Spec.from_data(render.call("spec", plain(metrics), given))
