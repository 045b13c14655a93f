"""What :func:`sqlndcg.beyond_accuracy` returns: the per-list measures, the summary per group, settings and SQL."""

from __future__ import annotations

from dataclasses import dataclass

from .results import Table, settings_text


@dataclass(frozen=True)
class BeyondResult:
    """``per_query`` (one row per list: the group columns, query_id and a column per per-list measure: novelty,
    ild, long_tail), ``summary`` (one row per group: lists, then each measure: per-list ones as their mean over the
    lists with ``<name>_ci_low``/``<name>_ci_high``, coverage and gini as the group's values), ``settings``, ``sql``."""

    per_query: Table
    summary: Table
    settings: dict
    statement: object  # the SQL of the summary: text, or a FormattedSQL formatted on first use

    @property
    def table(self) -> Table:
        """The per-list table (as ``per_query``)."""
        return self.per_query

    @property
    def sql(self) -> str:
        """The statement that computed ``summary``, formatted to read and paste."""
        return str(self.statement)

    def means(self) -> dict:
        """metric -> its value, for a result of one group (no group_by): the summary's only row."""
        rows = self.summary.to_dicts()
        return {name: rows[0][name] for name in self.settings["metrics"]} if len(rows) == 1 else {}

    def beside(self, accuracy) -> Table:
        """A weekly report's table: per group, the accuracy means of ``accuracy`` (a :func:`sqlndcg.evaluate`
        result with the same ``group_by``: its queries and each metric's mean) and then these measures (lists, each
        value): accuracy and diversity side by side. Groups one side lacks get None on the other's columns."""
        from ..errors import SettingError

        groups = list(self.settings["group_by"])
        theirs = accuracy.summary
        if any(g not in theirs.columns for g in groups):
            raise SettingError(f"beside: the accuracy result has no group column {groups}: evaluate it with "
                               f"group_by={groups}, as these measures were")
        suffixes = ("_count", "_std", "_ci_low", "_ci_high")
        left = [c for c in theirs.columns if c not in groups and not c.endswith(suffixes)]
        right = ["lists"] + list(self.settings["metrics"])
        rows: dict[tuple, dict] = {}
        for table, names in ((theirs, left), (self.summary, right)):
            for r in table.to_dicts():
                key = tuple(str(r[g]) for g in groups)
                rows.setdefault(key, {g: r[g] for g in groups}).update({n: r[n] for n in names})
        columns = tuple(groups + left + right)
        return Table(columns, [tuple(row.get(c) for c in columns) for _, row in sorted(rows.items())])

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values: the tables, settings and the SQL."""
        return {"per_query": self.per_query.to_dicts(), "summary": self.summary.to_dicts(),
                "settings": dict(self.settings), "sql": self.sql}

    def __str__(self) -> str:
        return f"{self.summary.to_text()}\n({settings_text(self.settings)})"
