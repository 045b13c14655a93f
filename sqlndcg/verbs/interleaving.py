"""Team-draft interleaving (Radlinski, Kurup & Joachims, CIKM 2008): :func:`interleave` builds the interleaved
lists of two runs, :func:`interleaving_credit` credits a log of interleaved impressions with clicks. The SQL is
``sql/macros/online/interleaving.sql`` and ``interleaving_credit.sql`` (also the dbt macros ``sqlndcg.interleave``
and ``sqlndcg.interleaving_credit``); the rules are in docs/interleaving.md."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

from ..core import templates
from ..errors import SettingError
from ..present.interleaving import OnlineResult
from ..present.results import FormattedSQL, Table
from ..stats.interleaving import credit_rows
from .clicklog import LogColumns, log_settings, open_log
from .judgments import Runner


def interleave(
    run_a,
    run_b,
    *,
    k: int = 10,
    seed: int = 0,
    impressions=None,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    impression_id: str = "impression_id",
    con=None,
    run_a_format: str | None = None,
    run_b_format: str | None = None,
    impressions_format: str | None = None,
) -> OnlineResult:
    """Team-draft interleaved lists of two runs (``query_id``, ``doc_id``, ``score``; each ranked as
    :func:`sqlndcg.evaluate` ranks it: score descending, equal scores by doc id descending): per query, or per
    impression of ``impressions`` (a table of ``impression_id``, ``query_id``), at most ``k`` rows of
    ``query_id``, [``impression_id``,] ``position`` (1 = top), ``doc_id`` and ``team`` ('a' or 'b').

    Round r's coin (which team picks first) is the first bit of MD5("<seed>:<id>:<r>"), id the impression id (or
    the query id): a serving system reproduces the lists. A list ends at ``k`` or when either run has no document
    left that is not listed, so each prefix's team sizes differ by at most one. ``.account`` counts the queries,
    those in one run only (they get no list) and, with impressions, the impressions without a list.

    >>> import pandas as pd, sqlndcg
    >>> a = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]})
    >>> b = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["y", "w", "x"], "score": [3.0, 2.0, 1.0]})
    >>> [(r["position"], r["doc_id"], r["team"]) for r in sqlndcg.interleave(a, b, k=4).table]
    [(1, 'y', 'b'), (2, 'x', 'a'), (3, 'z', 'a')]
    """
    given = {"k": k, "seed": seed, "query_id": query_id, "doc_id": doc_id, "score": score,
             "impression_id": impression_id}
    return _leave([(run_a, "run_a", run_a_format), (run_b, "run_b", run_b_format)], ["a", "b"],
                  (impressions, "impressions", impressions_format), given, con)


def multileave(
    runs: Mapping[str, object],
    *,
    k: int = 10,
    seed: int = 0,
    impressions=None,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    impression_id: str = "impression_id",
    con=None,
    impressions_format: str | None = None,
) -> OnlineResult:
    """Team-draft multileaving (Schuth et al., CIKM 2014) of 2 to 9 runs, ``runs={name: run}``: as
    :func:`interleave`, but in round r the runs pick in the order of MD5("<seed>:<id>:<r>:<j>"), j the run's
    number from 1 in the order given (then of j), and ``team`` holds the run's name. A list ends at ``k`` or when any
    run has no document left that is not listed, so in every prefix the runs' counts differ by at most one.

    >>> import pandas as pd, sqlndcg
    >>> run = lambda docs: pd.DataFrame({"query_id": "q", "doc_id": docs, "score": [3.0, 2.0, 1.0]})
    >>> lists = sqlndcg.multileave({"x": run(["a", "b", "c"]), "y": run(["b", "c", "d"]), "z": run(["d", "e", "a"])}, k=6)
    >>> [(r["position"], r["doc_id"], r["team"]) for r in lists.table]
    [(1, 'a', 'x'), (2, 'b', 'y'), (3, 'd', 'z'), (4, 'c', 'x')]
    """
    if not isinstance(runs, Mapping):
        raise SettingError("multileave: runs must map run names to runs, e.g. {'bm25': run1, 'dense': run2, "
                           f"'hybrid': run3}}, got {type(runs).__name__}")
    given = {"k": k, "seed": seed, "query_id": query_id, "doc_id": doc_id, "score": score,
             "impression_id": impression_id}
    roles = [f"run_{name}" if str(name).isidentifier() else f"run_{i + 1}" for i, name in enumerate(runs)]
    return _leave([(run, role, None) for run, role in zip(runs.values(), roles)], list(runs),
                  (impressions, "impressions", impressions_format), given, con)


def _leave(wanted: list[tuple], teams: list, shown_wanted: tuple, given: dict, con) -> OnlineResult:
    """The lists of interleave (teams a, b) or multileave (the runs' names): inputs resolved and checked, the
    statement run, the account fetched."""
    with Runner.session(con) as runner:
        dialect = runner.dialect
        *runs, shown = runner.inputs(*wanted, shown_wanted)
        plan = templates.interleave_plan([r.described for r in runs if r is not None], teams,
                                         None if shown is None else shown.described, given, dialect=dialect)
        for run in runs:
            assert run is not None
            runner.check(run, plan["run_checks"], plan["run_identity"], plan["run_identity"],
                         "(query, document) pairs", "; a run lists each document once per query")
        if shown is not None:
            runner.check(shown, plan["impression_checks"], plan["impression_identity"], [given["impression_id"]],
                         "impression ids", "; an impressions table lists each impression once, with its query")
        sql = templates.interleave_sql(plan, dialect=dialect)
        table = runner.fetch(sql, plan["settings"])
        account = runner.fetch(templates.interleave_account_sql(plan, dialect=dialect))
    return OnlineResult(table, dict(plan["settings"]), FormattedSQL(sql, dialect), account)


#: The credit table's columns after the group columns.
CREDIT_COLUMNS = ("impressions", "wins_a", "wins_b", "ties", "preference", "ci_low", "ci_high", "p_value")
_ACCOUNT_COLUMNS = ("impressions_read", "without_team", "without_clicks", "clicks_outside_teams")


def interleaving_credit(
    log,
    *,
    no_clicks: str = "tie",
    teams: Sequence[str] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    group_by: Sequence[str] | str = (),
    impression_id: str = "impression_id",
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    position: str = "position",
    click: str = "click",
    team: str = "team",
    con=None,
    log_format: str | None = None,
) -> OnlineResult:
    """Credit of team-draft interleaving from a log of interleaved impressions (one row per shown document:
    ``impression_id``, ``query_id``, ``doc_id``, ``position``, ``click`` 0/1, ``team`` 'a'/'b', NULL for neither).

    Per impression, A wins when more clicks fell on team A's documents than on B's, B wins in the opposite case,
    else it is a tie; an impression without clicks is a tie (``no_clicks="tie"``) or left out (``"drop"``). Per
    group, ``.table`` has impressions, wins_a, wins_b, ties, preference = (wins_a + ties / 2) / impressions - 1/2
    (Chapelle et al., TOIS 2012), its percentile bootstrap interval over impressions (``ci_low``, ``ci_high``:
    ``bootstrap`` resamples from ``seed``, ``level``; 0 resamples for none) and ``p_value``, the exact two-sided
    sign test of wins_a against wins_b (ties dropped). ``.account`` counts per group the impressions read, those
    without any team row (left out), those without clicks, and clicks on documents of neither team.

    A multileaved log (:func:`multileave`: team holds the runs' names) is credited per pair of runs with
    ``teams=[names]`` (Schuth et al., CIKM 2014): one row per group and pair, ``team_a`` and ``team_b`` naming the
    pair (in the order given), wins_a counting the impressions with more clicks on team_a's documents.

    >>> import pandas as pd, sqlndcg
    >>> log = pd.DataFrame({"impression_id": [1, 1, 2, 2, 3, 3], "query_id": ["q"] * 6,
    ...                     "doc_id": ["x", "y"] * 3, "position": [1, 2] * 3, "click": [1, 0, 1, 0, 0, 0],
    ...                     "team": ["a", "b", "a", "b", "b", "a"]})
    >>> [(r["wins_a"], r["wins_b"], r["ties"], round(r["preference"], 3)) for r in sqlndcg.interleaving_credit(log).table]
    [(2, 0, 1, 0.333)]
    """
    columns = {**templates.click_log_declared(), "impression_id": impression_id, "query_id": query_id,
               "doc_id": doc_id, "position": position, "click": click, "team": team}
    del columns["group_by"]
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise SettingError(f"interleaving_credit: bootstrap must be a whole number of resamples, 0 or more, "
                           f"got {bootstrap!r}")
    if not 0 < level < 1:
        raise SettingError(f"interleaving_credit: level must be between 0 and 1, got {level!r}")
    with Runner.session(con) as runner:
        dialect = runner.dialect
        inp, lp = open_log(runner, log, log_format, "interleaving_credit", log_settings(cast(LogColumns, {**columns, "group_by": group_by})),
                           ("team",))
        plan = templates.interleaving_credit_plan(inp.described, lp, no_clicks, teams, dialect=dialect)
        runner.check(inp, plan["team_checks"], lp["shown"])
        sql = templates.interleaving_credit_sql(plan, dialect=dialect)
        counts = runner.fetch(sql)
    groups = list(plan["settings"]["group_by"])
    pair = ["team_a", "team_b"] if plan["named"] else []
    settings = {**plan["settings"], "bootstrap": bootstrap, "seed": seed, "level": level}
    dicts = counts.to_dicts()
    keys = [tuple(r[g] for g in groups + pair) for r in dicts]
    rows = credit_rows(keys, [(r["wins_a"], r["wins_b"], r["ties"]) for r in dicts], resamples=bootstrap,
                       seed=seed, level=level)
    first = tuple(plan["teams"][:2])  # the account is the same for every pair of a group: the first pair's rows
    account = Table(tuple(groups) + _ACCOUNT_COLUMNS, [tuple(r[g] for g in groups) + tuple(r[c] for c in _ACCOUNT_COLUMNS)
                                                       for r in dicts if not pair or (r["team_a"], r["team_b"]) == first])
    return OnlineResult(Table(tuple(groups + pair) + CREDIT_COLUMNS, rows, settings), settings,
                        FormattedSQL(sql, dialect), account)
