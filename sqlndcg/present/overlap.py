"""What :func:`sqlndcg.overlap` returns: how different each system's rankings are from the baseline's, per query
and summarised, with the settings, the SQL that ran and an account of the queries each side lacks."""

from __future__ import annotations

from dataclasses import dataclass

from .results import Table, settings_text


@dataclass(frozen=True)
class Overlap:
    """``per_query`` (per group, system and query: each measure, ``length`` and ``baseline_length``), ``summary``
    (per group and system: each measure's mean, count, std and 95% t interval), ``settings``, ``sql`` and
    ``account`` (per group and system: the queries, those only one side has, the short lists)."""

    per_query: Table
    summary: Table
    settings: dict
    statement: object  # the per-query SQL: text, or a FormattedSQL formatted on first use
    account: Table

    @property
    def sql(self) -> str:
        """The statement that computed ``per_query``, formatted to read and paste."""
        return str(self.statement)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values: summary, per-query rows, settings, account and the SQL."""
        return {"summary": self.summary.to_dicts(), "per_query": self.per_query.to_dicts(),
                "settings": dict(self.settings), "account": self.account.to_dicts(), "sql": self.sql}

    def summary_text(self) -> str:
        """One line per (group, system, measure): the mean, its 95% interval and the queries it averages."""
        groups = list(self.settings["group_by"]) + [self.settings["system"]]
        rows = []
        for r in self.summary.to_dicts():
            for m in self.settings["metrics"]:
                ci = "" if r[f"{m}_ci_low"] is None else f"[{r[f'{m}_ci_low']:.4f}, {r[f'{m}_ci_high']:.4f}]"
                rows.append(tuple(r[g] for g in groups) + (r["baseline"], m, r[m], ci, r[f"{m}_count"]))
        header = tuple(groups) + ("baseline", "metric", "mean", "95% CI", "queries")
        return Table(header, tuple(rows)).to_text(max_rows=1000)

    def account_text(self) -> str:
        """The account in words, one line per group and system."""
        groups, system = list(self.settings["group_by"]), self.settings["system"]
        lines = []
        for a in self.account.to_dicts():
            who = ", ".join(f"{g}={a[g]}" for g in groups)
            line = ((who + ": ") if who else "") + (
                f"{a[system]} against {a['baseline']}: {_count(a['queries'], 'query', 'queries')}, "
                f"{a['in_both']} in both, {a['only_in_baseline']} only in {a['baseline']} and "
                f"{a['only_in_system']} only in {a[system]} (scored 0)")
            if a["short_lists"] is not None:
                line += (f"; lists shorter than {max(m for m in _cutoffs(self.settings['metrics']))}: "
                         f"{a['short_lists']} of {a[system]}'s, {a['baseline_short_lists']} of {a['baseline']}'s")
            lines.append(line)
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"{self.summary_text()}\n({settings_text(self.settings)})\n{self.account_text()}"


def _cutoffs(metrics) -> list[int]:
    return [int(m.split("@")[1]) for m in metrics if "@" in m]


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"
