"""What the interleaving tools return (:func:`sqlndcg.interleave`, :func:`sqlndcg.interleaving_credit`): a table,
the settings, the SQL that ran and an account of what was read and left out."""

from __future__ import annotations

from dataclasses import dataclass

from .results import Table, settings_text


@dataclass(frozen=True)
class OnlineResult:
    """``table`` (the lists, or the credit per group), ``settings``, ``sql`` and ``account``."""

    table: Table
    settings: dict
    statement: object  # the SQL that computed the table: text, or a FormattedSQL formatted on first use
    account: Table

    @property
    def sql(self) -> str:
        """The statement that computed ``table``, formatted to read and paste."""
        return str(self.statement)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values: the table, settings, account and the SQL."""
        return {"table": self.table.to_dicts(), "settings": dict(self.settings), "account": self.account.to_dicts(),
                "sql": self.sql}

    def __str__(self) -> str:
        return f"{self.table.to_text()}\n({settings_text(self.settings)})\naccount:\n{self.account.to_text()}"
