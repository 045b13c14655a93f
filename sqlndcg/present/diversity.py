"""What :func:`sqlndcg.diversity` returns: the measures per query, their means, the settings and the SQL. It shares
:class:`~sqlndcg.present.results.Result`'s reading side (per_query, summary, account, settings, sql, to_dict,
summary_text, account_text), so what :func:`sqlndcg.evaluate` returns for a diversity list reads as its results do."""

from __future__ import annotations

from dataclasses import dataclass

from .results import Table, settings_text


@dataclass(frozen=True)
class DiversityResult:
    """``table`` (one row per query: query_id and a column per metric), ``summary`` (queries and the means),
    ``settings`` and ``sql``."""

    table: Table
    summary: Table
    settings: dict
    statement: object  # the SQL that computed the table: text, or a FormattedSQL formatted on first use
    judged_queries: int = 0  # the queries the judgments hold (ndeval -c averages over them)

    @property
    def sql(self) -> str:
        """The statement that computed ``table``, formatted to read and paste."""
        return str(self.statement)

    @property
    def per_query(self) -> Table:
        """``table`` under :class:`~sqlndcg.present.results.Result`'s name."""
        return self.table

    @property
    def account(self) -> Table:
        """Per group (none: one row): the queries scored, and the queries the judgments hold."""
        groups = list(self.settings.get("group_by") or [])
        rows = tuple(tuple(r[g] for g in groups) + (r["queries"], self.judged_queries)
                     for r in self.summary.to_dicts())
        return Table(tuple(groups) + ("scored_queries", "judged_queries"), rows)

    def summary_text(self) -> str:
        """One line per (group, metric): the mean and how many queries it averages (nnrbp: those with a relevant
        intent)."""
        groups = list(self.settings.get("group_by") or [])
        counts: dict[tuple, int] = {}
        for r in self.per_query.to_dicts():
            key = tuple(r[g] for g in groups)
            for m in self.settings["metrics"]:
                counts[key + (m,)] = counts.get(key + (m,), 0) + (r[m] is not None)
        rows = tuple(tuple(r[g] for g in groups) + (m, r[m], counts.get(tuple(r[g] for g in groups) + (m,), 0))
                     for r in self.summary.to_dicts() for m in self.settings["metrics"])
        return Table(tuple(groups) + ("metric", "mean", "queries"), rows).to_text(max_rows=1000)

    def account_text(self) -> str:
        """The account in words: queries scored (those both in the run and in the judgments, as ndeval scores)."""
        groups = list(self.settings.get("group_by") or [])
        return "\n".join((", ".join(f"{g}={r[g]}" for g in groups) + ": " if groups else "")
                         + f"{r['scored_queries']:,} queries scored of {r['judged_queries']:,} judged "
                         f"(queries={self.settings.get('queries')!r})" for r in self.account.to_dicts())

    def means(self) -> dict:
        """metric -> its mean over the queries (nnrbp over those with a relevant intent)."""
        row = self.summary.to_dicts()[0]
        return {name: row[name] for name in self.settings["metrics"]}

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values: the table, summary, settings and the SQL."""
        return {"table": self.table.to_dicts(), "per_query": self.table.to_dicts(), "summary": self.summary.to_dicts(),
                "settings": dict(self.settings), "account": self.account.to_dicts(), "sql": self.sql}

    def __str__(self) -> str:
        return f"{self.table.to_text()}\n({settings_text(self.settings)})\nmeans:\n{self.summary.to_text()}"
