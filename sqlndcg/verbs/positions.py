"""Where relevance sits in the ranking: per group and position 1..k, the mean label, mean gain, share relevant and
share judged, computed in SQL (``sql/macros/judgments/positions.sql``, also the dbt macro ``sqlndcg.positions``),
with a plot where matplotlib is installed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.settings import PositionSettings, settings_of
from ..errors import MissingDependency, SqlndcgError
from ..run.checks import refuse_order_conflict
from .judgments import Runner, group_list
from ..present.results import Table
from ..core import templates

if TYPE_CHECKING:
    from typing_extensions import Unpack

OUTPUTS: tuple[str, ...] = tuple(templates.positions_outputs())


class Positions(Table):
    """One row per (group, position); :meth:`plot` draws a column against the position, one line per group."""

    def plot(self, column: str = "mean_gain", ax=None, path: str | None = None):
        """Draw ``column`` (``mean_gain``, ``mean_label``, ``share_relevant``, ``share_judged``, ...) by position, one
        line per group, on ``ax`` (a new figure when None); with ``path``, also save the figure there. Returns
        the axes. Needs matplotlib (an optional dependency)."""
        if column not in self.columns or column in ("position",):
            raise SqlndcgError(f"positions plot: no column {column!r}; choose one of "
                               f"{', '.join(c for c in OUTPUTS if c != 'position')}")
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise MissingDependency(
                "positions().plot() draws with matplotlib, which is not installed: pip install 'sqlndcg[plots]' "
                "(an optional extra), or use the table itself (to_pandas(), to_text())") from None
        groups = list(self.settings.get("group_by", []))
        if ax is None:
            ax = Figure(figsize=(6, 3.5)).subplots()
        lines: dict[tuple, list[tuple[int, float]]] = {}
        for row in self.to_dicts():
            lines.setdefault(tuple(row[g] for g in groups), []).append((row["position"], row[column]))
        for key, points in lines.items():
            points = [(x, y) for x, y in points if y is not None]
            label = ", ".join(f"{g}={v}" for g, v in zip(groups, key)) or None
            ax.plot([x for x, _ in points], [y for _, y in points], marker="o", label=label)
        ax.set_xlabel("position")
        ax.set_ylabel(column)
        ax.set_xticks(sorted({r["position"] for r in self.to_dicts()}))
        ax.set_title(f"{column} by position")
        if groups:
            ax.legend()
        if path is not None:
            ax.figure.savefig(path, bbox_inches="tight")
        return ax


def positions(
    run,
    judgments,
    *,
    k: int = 10,
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    **settings: Unpack[PositionSettings],
) -> Positions:
    """Per group and rank position 1..k: how many lists reach it (``lists``), ``mean_label`` (unjudged count 0),
    ``mean_gain``, ``share_relevant`` (rel >= threshold), ``share_judged`` and ``mean_judged_label``, over the
    run's lists whose query has judgments. The ranking is :func:`sqlndcg.evaluate`'s (score descending, ties by
    doc id descending in byte order), and the settings mean what they mean there.

    >>> import sqlndcg
    >>> pos = sqlndcg.positions(sqlndcg.example("run"), sqlndcg.example("qrels"), k=3, group_by="tag")
    >>> [(r["tag"], r["position"], r["lists"]) for r in pos][:3]
    [('bm25', 1, 11), ('bm25', 2, 11), ('bm25', 3, 11)]
    """
    given = {key: value for key, value in settings_of("positions", settings, PositionSettings).items()
             if value is not None or key in ("score", "rank")}
    given["group_by"] = group_list(given.get("group_by", ()))
    with Runner.session(con) as runner:
        r, j = runner.inputs((run, "run", run_format), (judgments, "judgments", judgments_format))
        plan = templates.positions_plan(r.described, j.described, k, given, dialect=runner.ses.dialect)
        for inp, declared in ((r, plan["run_checks"]), (j, plan["judgment_checks"])):
            runner.check(inp, declared["problems"], declared["identity"], declared["identity"],
                         declared["key_meaning"], declared["hint"], profile=(templates.profile, templates.offending_rows))
            with runner.ses.explained("could not compute the result"):
                refuse_order_conflict(runner.ses.eng, inp.source, declared.get("order_conflict"))
            if declared["unique_ranks"]:
                runner.check(inp, [], declared["identity"], declared["unique_ranks"],
                             "ranks within a query", "; ties='rank' needs distinct ranks")
        table = runner.fetch(templates.positions_sql(plan, dialect=runner.ses.dialect), plan["settings"])
    return Positions(table.columns, table.rows, table.settings)
