"""What :func:`sqlndcg.diversity` returns: the measures per query, their means, the settings and the SQL."""

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

    def means(self) -> dict:
        """metric -> its mean over the queries (nnrbp over those with a relevant intent)."""
        row = self.summary.to_dicts()[0]
        return {name: row[name] for name in self.settings["metrics"]}

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values: the table, summary, settings and the SQL."""
        return {"table": self.table.to_dicts(), "summary": self.summary.to_dicts(), "settings": dict(self.settings),
                "sql": self.sql}

    def __str__(self) -> str:
        return f"{self.table.to_text()}\n({settings_text(self.settings)})\nmeans:\n{self.summary.to_text()}"
