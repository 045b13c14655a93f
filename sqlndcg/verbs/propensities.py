"""Examination propensities theta(p) of the position-based model, from an impression log: ``randomized`` (CTR
ratios over shuffled positions), ``em`` (expectation-maximisation over every impression) or ``logged``. The SQL is
``sql/macros/online/propensities.sql`` and ``em.sql`` (also the dbt macro ``sqlndcg.propensities``); the model and
when each method is unbiased are in docs/online.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core import templates
from ..present.online import Propensities
from ..present.results import FormattedSQL, Table
from .clicklog import LogColumns, log_settings, open_log
from .judgments import Runner

if TYPE_CHECKING:
    from typing_extensions import Unpack

METHODS: tuple[str, ...] = tuple(templates.propensities_methods())
_NEEDS = {"randomized": ("randomized",), "logged": ("propensity",), "em": ()}


def propensities(
    log,
    *,
    method: str = "randomized",
    max_position: int | None = None,
    iterations: int = 200,
    tolerance: float = 1e-4,
    bootstrap: int = 100,
    seed: int = 0,
    con=None,
    log_format: str | None = None,
    **columns: Unpack[LogColumns],
) -> Propensities:
    """Examination propensities theta(p), theta(1) = 1, per group and position, from an impression log (one row
    per shown document: ``impression_id``, ``query_id``, ``doc_id``, ``position`` 1 = top, ``click`` 0/1).

    ``method="randomized"``: CTR(p) / CTR(1) over the rows flagged ``randomized`` (positions shuffled uniformly),
    with a delta-method 95% interval. ``method="em"``: expectation-maximisation of the position-based model over
    every row, at most ``iterations`` iterations (one SQL statement each) until no theta(p) / theta(1) moves
    more than ``tolerance``, with a seeded Poisson bootstrap over impressions (``bootstrap`` replicates, 0 for
    none) for the interval. ``method="logged"``: the mean of the logged ``propensity`` column per position.
    Positions deeper than ``max_position`` are left out. The log's columns are named by keywords
    (``click="clicked"``, ``group_by="day"``: :class:`~sqlndcg.verbs.clicklog.LogColumns`).

    >>> import sqlndcg
    >>> theta = sqlndcg.propensities(sqlndcg.example("clicks"), method="randomized", max_position=3)
    >>> [(r["position"], round(r["propensity"], 2)) for r in theta.table]
    [(1, 1.0), (2, 0.6), (3, 0.47)]
    """
    given = {"method": method, "max_position": max_position, "iterations": iterations, "tolerance": tolerance,
             "bootstrap": bootstrap, "seed": seed}
    with Runner.session(con) as runner:
        dialect = runner.dialect
        _, lp = open_log(runner, log, log_format, "propensities", log_settings(columns),
                         _NEEDS.get(method, ()))
        pp = templates.propensities_plan(lp, given, dialect=dialect)
        settings = dict(pp["settings"])
        if pp["method"] == "em":
            state = run_em(runner, pp, settings)
            table = runner.fetch(templates.em_result_sql(pp, state, dialect=dialect), settings)
            ran = dict(pp, iterations=settings["iterations_run"])
            statement = FormattedSQL(lambda: templates.em_unrolled_sql(ran, dialect=dialect), dialect)
        else:
            sql = (templates.propensities_randomized_sql if pp["method"] == "randomized"
                   else templates.propensities_logged_sql)(pp, dialect=dialect)
            table = runner.fetch(sql, settings)
            statement = FormattedSQL(sql, dialect)
        account = runner.fetch(templates.propensities_account_sql(pp, dialect=dialect))
    return Propensities(Table(table.columns, table.rows, settings), settings, statement, account)


def run_em(runner: Runner, pp: dict, settings: dict) -> str:
    """EM as statements (sql/macros/online/em.sql): the start state, then one statement per iteration until no
    theta(p) / theta(1) moved more than the tolerance (or the iterations ran out). Returns the last state's table
    (dropped when the session ends); the iterations run, whether they converged and the last movement go in
    ``settings``."""
    ses, dialect = runner.ses, runner.dialect
    with ses.explained("could not compute the result"):
        state = ses.table_name("sqlndcg_em")
        ses.materialize(state, templates.em_start_sql(pp, dialect=dialect))
        moved, done = float("inf"), 0
        while done < pp["iterations"] and moved > pp["tolerance"]:
            following = ses.table_name("sqlndcg_em")
            ses.materialize(following, templates.em_step(pp, state, dialect=dialect))
            ses.drop(state)
            state, done = following, done + 1
            moved = ses.fetch(templates.em_movement_sql(state, dialect=dialect))[1][0][0] or 0.0
    settings.update(iterations_run=done, converged=moved <= pp["tolerance"], last_movement=moved)
    return state
