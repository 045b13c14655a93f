"""Debiased labels from an impression log, as judgments: the position-based model's gamma(query, document) by EM,
or clicks weighted by 1 / theta(position). The SQL is ``sql/macros/online/click_labels.sql`` (also the dbt macro
``sqlndcg.click_labels``); docs/online.md says when each is unbiased."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core import templates
from ..errors import DataError
from ..present.online import ClickLabels, Propensities
from ..present.results import FormattedSQL
from .clicklog import LogColumns, log_settings, open_log
from .judgments import Input, Runner, show_row
from .propensities import run_em

if TYPE_CHECKING:
    from typing_extensions import Unpack


def click_labels(
    log,
    *,
    method: str | None = None,
    propensities=None,
    max_position: int | None = None,
    iterations: int = 200,
    tolerance: float = 1e-4,
    rel: str = "rel",
    propensity_position: str = "position",
    propensity_column: str = "propensity",
    con=None,
    log_format: str | None = None,
    propensities_format: str | None = None,
    **columns: Unpack[LogColumns],
) -> ClickLabels:
    """Judgments from clicks: one row per (group, query, document) shown, with the label ``rel`` and its support,
    ``impressions`` and ``clicks``, ready for :func:`sqlndcg.evaluate` as judgments (the labels are fractions:
    evaluate them with ``gain="linear"``).

    ``method="em"`` (the default without ``propensities``): the position-based model's gamma(q, d), fitted with the
    propensities by EM (at most ``iterations``, until theta(p) / theta(1) moves at most ``tolerance``), scaled to
    theta(1) = 1: the click probability of d at the top. ``method="ips"`` (the default with ``propensities``):
    sum(click / theta(position)) / impressions, theta from ``propensities``, a :class:`~sqlndcg.Propensities`
    result or a table of position and propensity (and the log's group columns it has), or ``"logged"`` for the
    log's propensity column. Rows deeper than ``max_position`` are left out. The result is a :class:`Table` with
    ``.sql`` (the statement; EM's iterations unrolled) and ``.account`` (rows and impressions read, rows deeper than
    ``max_position``). The log's columns are named by
    keywords (``click="clicked"``, ``group_by="day"``: :class:`~sqlndcg.verbs.clicklog.LogColumns`).

    >>> import sqlndcg
    >>> labels = sqlndcg.click_labels(sqlndcg.example("clicks"), propensities="logged")
    >>> [(r["query_id"], r["doc_id"], round(r["rel"], 3), r["impressions"], r["clicks"]) for r in labels][:2]
    [('q1', 'd1_1', 0.403, 47, 9), ('q1', 'd1_4', 0.394, 47, 6)]
    """
    logged, table = propensity_table(propensities)
    given = {"method": method or ("em" if propensities is None else "ips"), "max_position": max_position,
             "iterations": iterations, "tolerance": tolerance, "rel": rel, "propensity_position": propensity_position,
             "propensity_column": propensity_column,
             "propensities": "logged" if logged else (None if table is None else "table")}
    with Runner.session(con) as runner:
        dialect = runner.dialect
        _, lp = open_log(runner, log, log_format, "click_labels", log_settings(columns),
                         ("propensity",) if logged else ())
        (props,) = runner.inputs((table, "propensities", propensities_format))
        cp = templates.click_labels_plan(lp, None if props is None else props.described, given, dialect=dialect)
        settings = dict(cp["settings"])
        if props is not None:
            check_propensities(runner, props, cp)
        if cp["method"] == "em":
            state = run_em(runner, cp["em"], settings)
            out = runner.fetch(templates.click_labels_em_sql(cp, state, dialect=dialect), settings)
            ran = dict(cp, em=dict(cp["em"], iterations=settings["iterations_run"]))
            statement = FormattedSQL(lambda: templates.click_labels_em_unrolled_sql(ran, dialect=dialect), dialect)
        else:
            sql = templates.click_labels_ips_sql(cp, dialect=dialect)
            out = runner.fetch(sql, settings)
            statement = FormattedSQL(sql, dialect)
        account = runner.fetch(templates.propensities_account_sql(cp["em"], dialect=dialect))
    return ClickLabels(out, statement, account)


def propensity_table(propensities):
    """``propensities=`` as the tools take it -> (whether it is 'logged', the table or None): a
    :class:`~sqlndcg.Propensities` result gives its table."""
    logged = isinstance(propensities, str) and propensities == "logged"
    table = None if propensities is None or logged else propensities
    return logged, table.table.to_arrow() if isinstance(table, Propensities) else table


def check_propensities(runner: Runner, props: Input, cp: dict) -> None:
    """Refuse a propensity table with NULLs, propensities outside (0, 1] or a position twice (per group), or
    without a propensity for a position the log shows (within max_position), naming the rows."""
    t = cp["table"]
    runner.check(props, t["checks"], t["shown"], t["keys"], "positions", "; one propensity per position")
    missing = runner.rows(templates.click_labels_unmatched(cp, 5, dialect=runner.dialect))
    if missing:
        names = [g["name"] for g in t["groups"]] + ["position"]
        raise DataError(f"{props.label} has no propensity for positions the log shows: "
                        + ", ".join(f"{show_row(names, r[:-1])} in {r[-1]} row(s)" for r in missing)
                        + "; estimate them too, or leave the deeper rows out with max_position=")
