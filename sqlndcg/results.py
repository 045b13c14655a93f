"""Results as plain values: tables of rows that convert to pandas, Arrow or polars on request.

Results hold no connection: they can be kept, pickled and compared after the engine is gone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


@dataclass(frozen=True)
class Table:
    """Named columns and their rows; ``settings`` records what produced them."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    settings: dict = field(default_factory=dict, compare=False)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.to_dicts())

    def column(self, name: str) -> list:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def to_dicts(self) -> list[dict]:
        return [dict(zip(self.columns, r)) for r in self.rows]

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame.from_records(list(self.rows), columns=list(self.columns))

    def to_arrow(self):
        import pyarrow as pa

        return pa.table({c: self.column(c) for c in self.columns})

    def to_polars(self):
        import polars as pl

        return pl.DataFrame({c: self.column(c) for c in self.columns}, strict=False)

    def to_text(self, max_rows: int = 50) -> str:
        """A fixed-width table for terminals and logs."""
        shown = [tuple(_cell(v) for v in r) for r in self.rows[:max_rows]]
        widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(self.columns)]
        line = lambda cells: "  ".join(  # noqa: E731
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        )
        out = [line(self.columns), line(["-" * w for w in widths])] + [line(r) for r in shown]
        if len(self.rows) > max_rows:
            out.append(f"... {len(self.rows) - max_rows} more rows")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True)
class Result:
    """What :func:`sqlndcg.evaluate` returns: per-query values, their summary, the settings, and the SQL."""

    per_query: Table
    summary: Table
    settings: dict
    sql: str
    account: Table  # per group: rows and queries that went in, and what was left out (sql/sqlndcg_account.sql)

    def account_text(self) -> str:
        """The account in words, one line per group."""
        groups = list(self.settings.get("group_by", []))
        lines = []
        for a in self.account.to_dicts():
            who = ", ".join(f"{g}={a[g]}" for g in groups)
            lines.append(
                (f"{who}: " if who else "")
                + f"{a['scored_queries']} queries scored; {a['run_rows']} run rows in {a['run_queries']} queries, "
                f"{a['run_queries_without_judgments']} of them without judgments (not scored); "
                f"{a['judged_queries']} judged queries, {a['judged_queries_missing_from_run']} missing from the run "
                f"(scored 0 under queries='judged'); {a['retrieved_unjudged']} retrieved documents unjudged (gain 0)"
            )
        return "\n".join(lines)

    def summary_text(self) -> str:
        """One line per (group, metric): mean, 95% confidence interval, and how many queries it averages."""
        groups = list(self.settings.get("group_by", []))
        rows = []
        for r in self.summary.to_dicts():
            for m in self.settings["metrics"]:
                ci = "" if r[f"{m}_ci_low"] is None else f"[{r[f'{m}_ci_low']:.4f}, {r[f'{m}_ci_high']:.4f}]"
                rows.append(tuple(r[g] for g in groups) + (m, r[m], ci, r[f"{m}_count"]))
        return Table(tuple(groups) + ("metric", "mean", "95% CI", "queries"), tuple(rows)).to_text(max_rows=1000)

    def __str__(self) -> str:
        described = ", ".join(f"{k}={v}" for k, v in self.settings.items() if k not in ("metrics", "columns"))
        return f"{self.summary_text()}\n({described})\n{self.account_text()}"
