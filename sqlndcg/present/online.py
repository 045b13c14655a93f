"""Results of the click tools: examination propensities (:class:`Propensities`), with the settings, the SQL that
computed them and an account of the log's rows read and left out."""

from __future__ import annotations

from dataclasses import dataclass

from .results import Table, settings_text


@dataclass(frozen=True)
class Propensities:
    """What :func:`sqlndcg.propensities` returns: ``table`` (per group and position: ``propensity``, its 95%
    interval ``lower`` .. ``upper``, the ``impressions`` and ``clicks`` it rests on), ``settings`` (the method and
    how it ran), ``sql`` and ``account`` (the log's rows and impressions read, and those left out and why)."""

    table: Table
    settings: dict
    statement: object  # the SQL: text, or a FormattedSQL formatted on first use
    account: Table

    @property
    def sql(self) -> str:
        """The statement that computes ``table`` (for em: its iterations unrolled, as dbt runs them)."""
        return str(self.statement)

    def to_dicts(self) -> list[dict]:
        return self.table.to_dicts()

    def account_text(self) -> str:
        """The account in words."""
        a = self.account.to_dicts()[0]
        left = {k: v for k, v in a.items() if k not in ("rows_read", "impressions_read") and v}
        out = f"read {a['rows_read']:,} rows of {a['impressions_read']:,} impressions"
        if left:
            out += "; left out: " + ", ".join(f"{v:,} rows {k.replace('_', ' ')}" for k, v in left.items())
        return out

    def plot(self, file=None, *, title: str | None = None):
        """theta(p) against the position with its interval, one line per group (matplotlib, an optional extra)."""
        from .plots import plot_propensities

        return plot_propensities(self, file, title=title)

    def __str__(self) -> str:
        return f"{self.table.to_text(max_rows=1000)}\n({settings_text(self.settings)})\n{self.account_text()}"


class ClickLabels(Table):
    """What :func:`sqlndcg.click_labels` returns: the labels, a :class:`Table` that ``evaluate`` and ``compare`` take
    as judgments, with the ``sql`` that computed them (EM's iterations unrolled) and an ``account`` of the log's rows
    and impressions read and left out."""

    def __init__(self, table: Table, statement: object, account: Table) -> None:
        super().__init__(table.columns, () if table._arrow is not None else table.rows, table.settings,
                         arrow=table._arrow)
        self.statement = statement
        self.account = account

    @property
    def sql(self) -> str:
        return str(self.statement)


@dataclass(frozen=True)
class Counterfactual:
    """What :func:`sqlndcg.counterfactual` returns: ``per_query`` (per group, query and metric: the estimate
    ``value``, with a baseline also ``baseline`` and ``difference``, the ``naive`` click metric, ``impressions``,
    ``clicks``, the ``unknown`` documents and their ``unknown_weight`` share, ``ess`` and
    ``clipped_weight_share``), ``summary`` (per group and metric, impression-weighted, with the bootstrap interval
    ``ci_low`` .. ``ci_high``; with a baseline the difference's interval and ``p_value``), ``settings``, ``sql``
    (the summary's statement), ``per_query_sql`` and ``account`` (per group: rows and impressions read, queries
    logged, those a ranking lacks, run queries without impressions)."""

    per_query: Table
    summary: Table
    settings: dict
    statement: object  # the summary's SQL: text, or a FormattedSQL formatted on first use
    per_query_statement: object
    account: Table

    @property
    def sql(self) -> str:
        """The statement that computes ``summary`` (its bootstrap included)."""
        return str(self.statement)

    @property
    def per_query_sql(self) -> str:
        """The statement that computes ``per_query``."""
        return str(self.per_query_statement)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values."""
        return {"per_query": self.per_query.to_dicts(), "summary": self.summary.to_dicts(),
                "settings": dict(self.settings), "account": self.account.to_dicts(), "sql": self.sql}

    def __str__(self) -> str:
        return (f"{self.summary.to_text()}\n({settings_text(self.settings)})\naccount:\n"
                f"{self.account.to_text()}")
