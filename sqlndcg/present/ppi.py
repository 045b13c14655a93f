"""What :func:`sqlndcg.ppi_evaluate` returns: the prediction-powered summary (corrected means and intervals, the
naive ones beside them), the per-query pairs of model and human values, the settings, warnings and the SQL."""

from __future__ import annotations

from dataclasses import dataclass, field

from .results import Table, settings_text


@dataclass(frozen=True)
class PPIResult:
    """``summary`` (per group and metric: ``mean``, ``ci_low``, ``ci_high`` corrected; ``naive_mean``,
    ``naive_ci_low``, ``naive_ci_high`` from the model labels alone; ``human_mean``, ``lam``, ``audited``,
    ``unaudited``, ``effective_human_labels``), ``per_query`` (per group, query and metric: ``model_value``,
    ``human_value`` (None when not audited), ``audited``), ``settings``, ``warnings`` and ``sql``."""

    per_query: Table
    summary: Table
    settings: dict
    sql: str
    warnings: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values."""
        return {"summary": self.summary.to_dicts(), "per_query": self.per_query.to_dicts(),
                "settings": dict(self.settings), "warnings": list(self.warnings), "sql": self.sql}

    def __str__(self) -> str:
        lines = [self.summary.to_text(max_rows=1000), f"({settings_text(self.settings)})"]
        return "\n".join(lines + [f"warning: {w}" for w in self.warnings])
