"""What :func:`sqlndcg.system_order` returns: each label source's order of the systems, how far it agrees with the
reference's (Kendall's tau-b, tau-AP) and the pairs of systems whose winner flips."""

from __future__ import annotations

from dataclasses import dataclass, field

from .results import Table, settings_text


@dataclass(frozen=True)
class SystemOrder:
    """``means``: per (group, metric, source, system) ``queries``, ``mean`` and ``rank`` (1 = best under that
    source); ``correlation``: per (group, metric, source other than the reference) ``systems``, ``tau_b``,
    ``tau_ap``, ``concordant`` and ``flipped`` (pairs); ``flips``: per (group, metric, source) every pair whose
    winner flips, ``system_a`` the reference's winner, ``reference_difference`` (> 0) and ``source_difference``
    (< 0) of the means a - b, ``reference_p`` and ``source_p`` of compare's paired test under each; ``settings``;
    ``statements``: the SQL of the means (over the session's per-query tables), correlation and flips (over tables
    named ``means``, holding ``means``, and ``pvalues``: group..., source, metric, system_a, system_b, p); ``sql``:
    the correlation's."""

    means: Table
    correlation: Table
    flips: Table
    settings: dict
    statements: dict = field(default_factory=dict, repr=False)

    @property
    def sql(self) -> str:
        """The correlation statement (tau-b, tau-AP, flipped pairs) over a table named ``means`` (``self.means``)."""
        return str(self.statements.get("correlation", ""))

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values."""
        return {"means": self.means.to_dicts(), "correlation": self.correlation.to_dicts(),
                "flips": self.flips.to_dicts(), "settings": dict(self.settings)}

    def heading(self) -> str:
        s = self.settings
        where = ("the queries every source judged" if s["query_set"] == "shared"
                 else "each source's own judged queries")
        return (f"Systems ranked under each source of column {s['source']!r} against the reference "
                f"{s['reference']!r}, on {where}; p-values: compare's {s['test']!r} test (unadjusted), per source.")

    def findings(self) -> list[str]:
        """One line per (group, metric, source): the correlations, and how many flips either source's test calls
        significant at 0.05 (a flip neither calls significant is a pair the queries cannot tell apart)."""
        groups = list(self.settings.get("group_by") or [])
        src = self.settings["source"]
        lines = []
        for r in self.correlation.to_dicts():
            key = tuple(r[g] for g in groups) + (r["metric"], r[src])
            mine = [f for f in self.flips.to_dicts() if tuple(f[g] for g in groups) + (f["metric"], f[src]) == key]
            strong = sum(1 for f in mine if any(f[c] is not None and f[c] < 0.05 for c in ("reference_p", "source_p")))
            pairs = r["systems"] * (r["systems"] - 1) // 2
            where = ", ".join([f"{g}={r[g]}" for g in groups] + [str(r["metric"]), f"{src}={r[src]}"])
            lines.append(f"{where}: tau_b {_num(r['tau_b'])}, tau_ap {_num(r['tau_ap'])} over {r['systems']} systems; "
                         f"{r['flipped']} of {pairs} pairs flip, {strong} of them with p < 0.05 under either source")
        return lines

    def __str__(self) -> str:
        parts = [self.heading(), *self.findings(), "", "Agreement with the reference's order:",
                 self.correlation.to_text(max_rows=10**6), "", "Pairs whose winner flips:",
                 self.flips.to_text(max_rows=10**6) if len(self.flips) else "(none)", "",
                 "Means and ranks:", self.means.to_text(max_rows=10**6), f"({settings_text(self.settings)})"]
        return "\n".join(parts)


def _num(v) -> str:
    return "-" if v is None else f"{v:.3f}"
