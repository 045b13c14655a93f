"""What :func:`sqlndcg.audit_sample` returns: the queries to send to human judges (in draw order) and the strata
they were drawn from, with the settings, warnings and the SQL."""

from __future__ import annotations

from dataclasses import dataclass, field

from .results import Table, settings_text


@dataclass(frozen=True)
class AuditSample:
    """``sample`` (per sampled query: the strata columns, ``stratum``, the query id, ``draw`` (its place in its
    stratum's seeded hash order), ``model_value`` and ``spread`` when model labels were given,
    ``inclusion_probability`` and ``weight`` = 1 / inclusion_probability); ``strata`` (per stratum: ``queries``,
    ``audited`` before, ``available``, ``sd`` of the model metric, ``spread_low``/``spread_high`` by disagreement,
    ``quota``, ``sampled``, ``share`` of the available queries, ``inclusion_probability``, ``weight``);
    ``settings``, ``warnings``, ``sql`` (the sample's statement)."""

    sample: Table
    strata: Table
    settings: dict
    sql: str
    warnings: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values."""
        return {"sample": self.sample.to_dicts(), "strata": self.strata.to_dicts(), "settings": dict(self.settings),
                "warnings": list(self.warnings), "sql": self.sql}

    def __str__(self) -> str:
        lines = [self.strata.to_text(max_rows=1000), "", self.sample.to_text(max_rows=1000),
                 f"({settings_text(self.settings)})"]
        return "\n".join(lines + [f"warning: {w}" for w in self.warnings])


@dataclass(frozen=True)
class StratifiedPPI:
    """What :func:`sqlndcg.ppi_stratified` returns: ``summary`` (per metric the stratified prediction-powered
    ``mean``, ``ci_low``, ``ci_high``; ``naive_mean`` and ``human_mean`` combined the same way; ``audited``,
    ``unaudited``, ``strata``), ``strata`` (ppi_evaluate's summary per stratum), ``per_query`` (its pairs),
    ``settings``, ``warnings``, ``sql`` (the combining statement)."""

    summary: Table
    strata: Table
    per_query: Table
    settings: dict
    sql: str
    warnings: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"summary": self.summary.to_dicts(), "strata": self.strata.to_dicts(),
                "per_query": self.per_query.to_dicts(), "settings": dict(self.settings),
                "warnings": list(self.warnings), "sql": self.sql}

    def __str__(self) -> str:
        lines = [self.summary.to_text(max_rows=1000), "", self.strata.to_text(max_rows=1000),
                 f"({settings_text(self.settings)})"]
        return "\n".join(lines + [f"warning: {w}" for w in self.warnings])
