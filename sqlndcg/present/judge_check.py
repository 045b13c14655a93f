"""What :func:`sqlndcg.judge_check` returns: the model-judge verbs' results for one candidate against the reference,
the findings read off them, and one readable page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .results import Table


def _pick(table: Table, columns) -> Table:
    """The columns of a table that it has, in the given order."""
    keep = [c for c in columns if c in table.columns]
    idx = [table.columns.index(c) for c in keep]
    return Table(tuple(keep), tuple(tuple(r[i] for i in idx) for r in table.rows))


@dataclass(frozen=True)
class JudgeCheck:
    """``agreement`` (:class:`~sqlndcg.Agreement` between reference and candidate), ``order``
    (:class:`~sqlndcg.SystemOrder`), ``corrected`` (:class:`~sqlndcg.PPIResult` of ppi_evaluate per system, or of
    ppi_compare against the baseline; None when the sources' grade scales differ), ``audit`` (per row of the corrected summary, audit_size's answer for
    ``settings["width"]``: ``queries``, ``audited``, ``expected_width``, ``lam``, ``human_only``, ``saving``,
    ``note`` when no audit reaches it; None without a width), ``findings`` (sentences) and ``settings``."""

    agreement: Any
    order: Any
    corrected: Any
    audit: Table | None
    findings: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values."""
        return {"findings": list(self.findings), "settings": dict(self.settings),
                "agreement": {"pairs": self.agreement.pairs.to_dicts(), "overall": self.agreement.overall.to_dicts(),
                              "per_grade": self.agreement.per_grade.to_dicts(),
                              "coverage": self.agreement.coverage.to_dicts()},
                "order": self.order.to_dict(),
                "corrected": None if self.corrected is None else self.corrected.to_dict(),
                "audit": None if self.audit is None else self.audit.to_dicts()}

    def __str__(self) -> str:
        s = self.settings
        ref, cand, system = s["reference"], s["candidate"], s["system"]
        units = self.agreement.pairs.to_dicts()[0]["units"]
        overall = _pick(self.agreement.overall, ("units", "observed_agreement", "mean_difference", "cohen_kappa",
                                                 "cohen_kappa_quadratic", "alpha_ordinal"))
        grades = _pick(self.agreement.per_grade, ("grade", "units", "agreement", "mean_b", "mean_difference"))
        what = (f"{system} - {s['baseline']}" if s["baseline"] is not None else f"each {system}")
        corrected = Table(()) if self.corrected is None else _pick(self.corrected.summary, (system, "metric", "naive_mean", "naive_ci_low", "naive_ci_high",
                                                   "mean", "ci_low", "ci_high", "lam", "audited", "unaudited",
                                                   "effective_human_labels"))
        lines = [f"Judge check: {cand!r} against {ref!r} (column {s['source']!r} of {s['judgments']})", "",
                 "Findings:"]
        lines += [f"- {f}" for f in self.findings] or ["- none crosses the thresholds"]
        lines += ["", f"Agreement on the {units} (query, document) pairs both labelled (differences {cand} - {ref}):",
                  overall.to_text(max_rows=10**6), "", f"Per grade of {ref} ({cand}'s mean grade there):",
                  grades.to_text(max_rows=10**6), "",
                  f"System order under {cand} against {ref}, on the queries both judged "
                  f"(p-values: compare's {self.order.settings['test']!r} test):",
                  _pick(self.order.correlation, ("metric", "systems", "tau_b", "tau_ap", "concordant",
                                                 "flipped")).to_text(max_rows=10**6),
                  "Pairs whose winner flips:" if len(self.order.flips) else "No pair's winner flips.",
                  *([_pick(self.order.flips, ("metric", "system_a", "system_b", "reference_difference",
                                              "source_difference", "reference_p", "source_p")).to_text(
                      max_rows=10**6)] if len(self.order.flips) else []), "",
                  f"Corrected means of {what} ({s['ppi']}: {cand} labels on every query, {ref} labels as the audit; "
                  "naive: the model labels alone):",
                  corrected.to_text(max_rows=10**6) if self.corrected is not None else
                  "(left out: the two sources grade on different scales)"]
        if self.audit is not None:
            lines += ["", f"Audited queries for a 95% interval {s['width']:g} wide ({s['ppi']}, the above as pilot; "
                      f"human_only: {ref} labels alone):",
                      _pick(self.audit, (system, "metric", "queries", "audited", "expected_width", "human_only",
                                         "saving")).to_text(max_rows=10**6)]
            lines += [f"{r[system]}, {r['metric']}: {r['note']}" for r in self.audit.to_dicts() if r["note"]]
        lines += ["", "(thresholds: " + ", ".join(f"{k} {v:g}" for k, v in s["thresholds"].items()) + ")"]
        return "\n".join(lines)
