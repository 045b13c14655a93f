"""Results as columnar tables: Arrow from the engine, Python values, pandas or polars on request.

A per-query result of tens of millions of rows stays a few Arrow buffers; nothing becomes one Python object per
value unless asked (``rows``, ``to_dicts``). Results hold no connection: they can be kept, pickled and compared
after the engine is gone.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from functools import cached_property

from ..errors import MissingDependency


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def _frames(library: str):
    """pandas or polars, which only the ``frames`` extra installs: a missing one is named with that extra, not
    left to a bare "No module named ..." from deep inside."""
    try:
        return importlib.import_module(library)
    except ImportError as exc:
        broken = "" if getattr(exc, "name", None) in (library, None) else f" (importing it failed: {exc})"
        raise MissingDependency(f"to_{library}() needs {library}, an optional extra: "
                                f"pip install 'sqlndcg[frames]'{broken}") from None


class FormattedSQL:
    """SQL text formatted for people only when someone reads it (formatting costs more than a small evaluation)."""

    def __init__(self, raw, dialect: str) -> None:
        # raw: the text, or a function giving it (rendering the statement shown is also left until it is read)
        self._raw, self.dialect = raw, dialect
        self._text: str | None = None

    @property
    def raw(self) -> str:
        if callable(self._raw):
            self._raw = self._raw()
        return self._raw

    def __getstate__(self):
        return {"_raw": self.raw, "dialect": self.dialect, "_text": self._text}  # a pickled result holds the text

    def __str__(self) -> str:
        if self._text is None:
            from ..core.render import pretty, sqlglot_has

            # an engine sqlglot has no dialect for (DataFusion) is shown the SQL as it ran
            self._text = pretty(self.raw, self.dialect) if sqlglot_has(self.dialect) else self.raw
        return self._text


class Table:
    """Named columns and their values; ``settings`` records what produced them.

    Built from an engine's Arrow result (:meth:`from_arrow`), or from Python rows: ``Table(columns, rows)``.
    """

    def __init__(self, columns, rows=(), settings: dict | None = None, *, arrow=None) -> None:
        self.columns = tuple(arrow.column_names) if arrow is not None else tuple(columns)
        self.settings = settings if settings is not None else {}
        self._arrow = arrow
        if arrow is None:
            self.__dict__["rows"] = tuple(tuple(r) for r in rows)

    @classmethod
    def from_arrow(cls, arrow, settings: dict | None = None) -> "Table":
        return cls(None, settings=settings, arrow=arrow)

    @cached_property
    def rows(self) -> tuple[tuple, ...]:
        """Every row as a tuple of Python values (materialized on first use)."""
        columns = [self._arrow.column(i).to_pylist() for i in range(self._arrow.num_columns)]
        return tuple(zip(*columns)) if columns else ()

    def __eq__(self, other) -> bool:
        return isinstance(other, Table) and self.columns == other.columns and self.rows == other.rows

    def __repr__(self) -> str:
        return f"Table(columns={self.columns!r}, rows={len(self)})"

    def __len__(self) -> int:
        return self._arrow.num_rows if self._arrow is not None else len(self.rows)

    def __iter__(self):
        return iter(self.to_dicts())

    def __getstate__(self):
        return {"columns": self.columns, "settings": self.settings, "_arrow": self._arrow,
                "rows": None if self._arrow is not None else self.rows}

    def __setstate__(self, state):
        self.columns, self.settings, self._arrow = state["columns"], state["settings"], state["_arrow"]
        if state["rows"] is not None:
            self.__dict__["rows"] = state["rows"]

    def column(self, name: str) -> list:
        if self._arrow is not None:
            return self._arrow.column(name).to_pylist()
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def to_dicts(self) -> list[dict]:
        if self._arrow is not None:
            return self._arrow.to_pylist()
        return [dict(zip(self.columns, r)) for r in self.rows]

    def to_arrow(self):
        """The values as a pyarrow Table (no copy when the engine gave Arrow)."""
        if self._arrow is not None:
            return self._arrow
        import pyarrow as pa

        return pa.table({c: pa.array(self.column(c)) for c in self.columns})

    def to_pandas(self):
        pd = _frames("pandas")
        if self._arrow is not None:
            return self._arrow.to_pandas()
        return pd.DataFrame.from_records(list(self.rows), columns=list(self.columns))

    def to_polars(self):
        pl = _frames("polars")
        if self._arrow is not None:
            return pl.from_arrow(self._arrow)
        return pl.DataFrame({c: self.column(c) for c in self.columns}, strict=False)

    def to_text(self, max_rows: int = 50) -> str:
        """A fixed-width table for terminals and logs."""
        head = self._arrow.slice(0, max_rows) if self._arrow is not None else None
        source = Table.from_arrow(head).rows if head is not None else self.rows[:max_rows]
        shown = [tuple(_cell(v) for v in r) for r in source]
        widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(self.columns)]
        line = lambda cells: "  ".join(  # noqa: E731
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        )
        out = [line(self.columns), line(["-" * w for w in widths])] + [line(r) for r in shown]
        if len(self) > max_rows:
            out.append(f"... {len(self) - max_rows} more rows")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True)
class Result:
    """What :func:`sqlndcg.evaluate` returns: per-query values, their summary, the settings, and the SQL."""

    per_query: Table
    summary: Table
    settings: dict
    statement: object  # the SQL that ran: text, or a FormattedSQL formatted on first use
    account: Table  # per group: rows and queries that went in, and what was left out (sql/macros/statements/account.sql)
    #: Inputs whose (query, document) pairs a constraint the engine enforces makes unique, so they were not counted
    #: for repeats: role -> the constraint ('PRIMARY KEY (query_id, doc_id)').
    unique_by_constraint: dict = field(default_factory=dict)

    @property
    def sql(self) -> str:
        """The statement that computed ``per_query``, formatted to read and paste."""
        return str(self.statement)

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values: summary, per-query rows, settings, account and the SQL."""
        settings = dict(self.settings)
        if isinstance(settings.get("gain"), dict):  # a gain map: JSON object keys are text
            settings["gain"] = {str(g): v for g, v in settings["gain"].items()}
        out = {"summary": self.summary.to_dicts(), "per_query": self.per_query.to_dicts(), "settings": settings,
               "account": self.account.to_dicts(), "sql": self.sql}
        if self.unique_by_constraint:
            out["unique_by_constraint"] = dict(self.unique_by_constraint)
        return out

    def account_text(self) -> str:
        """The account in words, one line per group."""
        groups = list(self.settings.get("group_by", []))
        queries = self.settings.get("queries", "judged")
        rule = "scored 0" if queries == "judged" else "not scored"
        within = self.settings.get("checked_within")
        lines, absent = [], []
        for a in self.account.to_dicts():
            who = ", ".join(f"{g}={a[g]}" for g in groups)
            if a["run_rows"] == 0 and a["judged_queries"] > 0:
                # a judged group the run lacks (a system absent on a day, a day no system ran, an empty run)
                if who:
                    absent.append(who)
                lines.append(
                    (f"{who}: absent from the run (0 run rows)" if who else "the run has no rows")
                    + f": all {_count(a['judged_queries'], 'judged query', 'judged queries')} missing from the run, "
                    f"{rule} (queries={queries!r}); {_count(a['scored_queries'], 'query', 'queries')} scored"
                )
                continue
            lines.append(
                (f"{who}: " if who else "")
                + f"{_count(a['scored_queries'], 'query', 'queries')} scored; "
                f"{_count(a['run_rows'], 'run row', 'run rows')} in {_count(a['run_queries'], 'query', 'queries')}, "
                f"{a['run_queries_without_judgments']} of them without judgments (not scored); "
                f"{_count(a['judged_queries'], 'judged query', 'judged queries')}, "
                f"{a['judged_queries_missing_from_run']} missing from the run ({rule} under queries={queries!r}); "
                f"{_count(a['retrieved_unjudged'], 'retrieved document', 'retrieved documents')} unjudged"
                + (f" within the top {within}" if within else "") + " (gain 0)"
            )
        for role, constraint in self.unique_by_constraint.items():
            lines.append(f"{role}: (query, document) pairs unique by constraint, {constraint}: not checked for repeats")
        if absent:
            lines.insert(0, f"{_count(len(absent), 'judged group', 'judged groups')} absent from the run, their judged queries {rule} "
                            f"(queries={queries!r}): " + "; ".join(absent))
        return "\n".join(lines)

    def summary_text(self) -> str:
        """One line per (group, metric): mean, 95% confidence interval, and how many queries it averages."""
        groups = list(self.settings.get("group_by", []))
        boot = self.settings.get("bootstrap")
        rows = []
        metrics = list(self.settings["metrics"])
        if self.settings.get("unjudged_bounds"):  # each metric's upper bound, a summary column of its own
            metrics += [f"{m}_upper" for m in self.settings["metrics"]]
        for r in self.summary.to_dicts():
            for m in metrics:
                ci = "" if r[f"{m}_ci_low"] is None else f"[{r[f'{m}_ci_low']:.4f}, {r[f'{m}_ci_high']:.4f}]"
                row = tuple(r[g] for g in groups) + (m, r[m], ci)
                if boot:
                    low, high = r.get(f"{m}_bootstrap_low"), r.get(f"{m}_bootstrap_high")
                    row += ("" if low is None else f"[{low:.4f}, {high:.4f}]",)
                rows.append(row + (r[f"{m}_count"],))
        header = ("metric", "mean", "95% CI (t)") + ((f"95% CI ({boot['method']} bootstrap)",) if boot else ())
        if not boot:
            header = ("metric", "mean", "95% CI")
        return Table(tuple(groups) + header + ("queries",), tuple(rows)).to_text(max_rows=1000)

    def __str__(self) -> str:
        return f"{self.summary_text()}\n({settings_text(self.settings)})\n{self.account_text()}"


def settings_text(settings: dict) -> str:
    """Settings as people read them (printed results, the report): the metric list left out (the table shows it),
    canonical names only for the columns named otherwise ('map': 'ap')."""
    shown = {k: v for k, v in settings.items()
             if k not in ("metrics", "columns", "canonical_metrics", "diversity_metrics", "diversity_account")}
    renamed = {m: c for m, c in settings.get("canonical_metrics", {}).items() if m != c}
    if renamed:
        shown["canonical_metrics"] = renamed
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def _count(n: int, one: str, many: str) -> str:
    """``1 query``, ``2 queries``: the account reads as sentences."""
    return f"{n:,} {one if n == 1 else many}"
