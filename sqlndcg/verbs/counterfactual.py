"""Counterfactual (off-policy) metrics of a new ranking on old click logs: IPS, clipped IPS and the self-normalised
ratio, with bootstrap intervals and a paired comparison with a baseline ranking on the same logs. The SQL is
``sql/macros/online/counterfactual*.sql`` (also the dbt macro ``sqlndcg.counterfactual``); the estimators and when
they are unbiased are in docs/online.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..core import templates
from ..present.online import Counterfactual
from ..present.results import FormattedSQL
from .click_labels import check_propensities, propensity_table
from .clicklog import LogColumns, log_settings, open_log
from .judgments import Runner

if TYPE_CHECKING:
    from typing_extensions import Unpack


def counterfactual(
    log,
    run,
    *,
    propensities,
    metrics: Sequence[str] | str = ("dcg@10",),
    estimator: str = "ips",
    clip: float | None = None,
    baseline=None,
    resample: str = "queries",
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    max_position: int | None = None,
    score: str = "score",
    propensity_position: str = "position",
    propensity_column: str = "propensity",
    con=None,
    log_format: str | None = None,
    run_format: str | None = None,
    baseline_format: str | None = None,
    propensities_format: str | None = None,
    **columns: Unpack[LogColumns],
) -> Counterfactual:
    """The metrics a new ranking ``run`` (``query_id``, ``doc_id``, ``score``, ranked as :func:`sqlndcg.evaluate`
    ranks it) would get, estimated from an impression log's clicks under the position-based model.

    ``metrics``: ``dcg@k`` (or ``dcg``), ``p@k``, ``clicks@k`` (or ``clicks``), ``rbp`` / ``rbp(p=0.8)``, with the
    click probability of an examined document as its relevance. ``propensities``: theta per position, a
    :class:`~sqlndcg.Propensities` result or a table of position, propensity (and the log's group columns it
    has), or ``"logged"`` for the log's column. ``estimator``: ``"ips"`` (each click on d weighs 1 / the mean of
    theta over the rows that showed d), ``"clipped"`` (theta floored at ``clip``) or ``"snips"`` (the ratio to the
    estimated relevance shown). ``baseline``: a second ranking, compared on the same logs (paired). Intervals: a
    Poisson bootstrap over ``resample="queries"`` or ``"impressions"`` (``bootstrap`` replicates from ``seed``;
    0 for none). The log's columns are named by keywords (:class:`~sqlndcg.verbs.clicklog.LogColumns`); the runs
    use the log's ``query_id`` and ``doc_id`` names.

    >>> import sqlndcg
    >>> theta = sqlndcg.propensities(sqlndcg.example("clicks"), method="randomized")
    >>> res = sqlndcg.counterfactual(sqlndcg.example("clicks"), sqlndcg.example("clicks_run"), propensities=theta,
    ...                              metrics=["dcg@5", "clicks@5"], bootstrap=0)
    >>> [(r["metric"], round(r["value"], 3), round(r["naive"], 3), r["unknown"]) for r in res.summary]
    [('dcg@5', 1.176, 0.739, 18), ('clicks@5', 1.729, 1.048, 18)]
    """
    logged, table = propensity_table(propensities)
    given = {"metrics": metrics, "estimator": estimator, "clip": clip, "resample": resample, "bootstrap": bootstrap,
             "seed": seed, "level": level, "max_position": max_position, "score": score,
             "propensity_position": propensity_position, "propensity_column": propensity_column,
             "propensities": "logged" if logged else (None if table is None else "table")}
    with Runner.session(con) as runner:
        dialect = runner.dialect
        _, lp = open_log(runner, log, log_format, "counterfactual", log_settings(columns),
                         ("propensity",) if logged else ())
        ran, base, props = runner.inputs((run, "run", run_format), (baseline, "baseline", baseline_format),
                                         (table, "propensities", propensities_format))
        assert ran is not None
        cp = templates.counterfactual_plan(lp, ran.described, None if base is None else base.described,
                                           None if props is None else props.described, given, dialect=dialect)
        for r in (ran, base):
            if r is not None:
                runner.check(r, cp["run_checks"], cp["run_identity"], cp["run_identity"], "(query, document) pairs",
                             "; a run lists each document once per query")
        if props is not None:
            check_propensities(runner, props, cp)
        settings = dict(cp["settings"])
        per_query_sql = templates.counterfactual_per_query_sql(cp, dialect=dialect)
        summary_sql = templates.counterfactual_summary_sql(cp, dialect=dialect)
        per_query = runner.fetch(per_query_sql, settings)
        summary = runner.fetch(summary_sql, settings)
        account = runner.fetch(templates.counterfactual_account_sql(cp, dialect=dialect))
    return Counterfactual(per_query, summary, settings, FormattedSQL(summary_sql, dialect),
                          FormattedSQL(per_query_sql, dialect), account)
