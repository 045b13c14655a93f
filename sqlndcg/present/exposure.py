"""What :func:`sqlndcg.exposure` returns: the fairness measures per query, each group's exposure, their means with
intervals, the settings, the SQL and an account of what was read."""

from __future__ import annotations

from dataclasses import dataclass

from .results import Table, settings_text


@dataclass(frozen=True)
class Exposure:
    """``per_query`` (one row per group_by and query), ``groups`` (one row per query and group), ``summary`` (per
    group_by and measure: queries, mean, std, ci_low, ci_high), ``settings``, ``sql`` and ``account``."""

    per_query: Table
    groups: Table
    summary: Table
    settings: dict
    statement: object  # the SQL that computed per_query: text, or a FormattedSQL formatted on first use
    account: Table

    @property
    def sql(self) -> str:
        """The statement that computed ``per_query``, formatted to read and paste."""
        return str(self.statement)

    @property
    def table(self) -> Table:
        """``per_query``, under the name the other tools' results use."""
        return self.per_query

    def means(self) -> dict:
        """measure -> its mean over the queries (without group_by; with it, of the first group's rows)."""
        out: dict = {}
        for row in self.summary.to_dicts():
            out.setdefault(row["measure"], row["mean"])
        return out

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values."""
        return {"per_query": self.per_query.to_dicts(), "groups": self.groups.to_dicts(),
                "summary": self.summary.to_dicts(), "settings": dict(self.settings),
                "account": self.account.to_dicts(), "sql": self.sql}

    def __str__(self) -> str:
        return (f"{self.per_query.to_text()}\n({settings_text(self.settings)})\nsummary:\n{self.summary.to_text()}"
                f"\naccount:\n{self.account.to_text()}")
