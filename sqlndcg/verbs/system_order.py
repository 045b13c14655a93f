"""Do two label sources rank systems the same way? :func:`system_order` evaluates every system with each source's
labels (a model's, the humans'), as :func:`sqlndcg.compare` does, and compares each source's order of the systems
with the reference's: Kendall's tau-b, tau-AP and the pairs whose winner flips with compare's p-values under each.
The per-query values are evaluate's as compare computes them, kept in the engine with each source's labels
and the p-values (compare's, from Python: a few rows written into the SQL); the means, ranks, tau, tau-AP and flips are
``sql/macros/judgments/system_order.sql``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Mapping, Sequence

from ..core import templates
from ..core.settings import settings_of
from ..core.spec import make_spec
from ..errors import DataError, InputError, SettingError
from ..present.system_order import SystemOrder
from . import scoring
from .compare import _PPI_FREE, _group_by, _systems_input, compare
from .judgments import Input, Runner

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.settings import Settings

#: test= -> compare's column holding that test's (unadjusted) p-value
TESTS = {"t": "t_p", "randomization": "randomization_p"}
QUERY_SETS = ("shared", "own")


def system_order(
    runs,
    judgments,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    source: str = "source",
    reference="human",
    system: str = "system",
    test: str = "t",
    query_set: str = "shared",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    **settings: Unpack[Settings],
) -> SystemOrder:
    """Whether each label source in ``judgments`` (its column ``source``: "human", a model's name) orders the
    systems of ``runs`` (a ``system`` column, or a dict ``{name: run}``, as :func:`sqlndcg.compare` takes them) as
    the ``reference`` source does.

    Per (group, metric, source): each system's mean over queries and rank (1 = the highest mean); per source other
    than the reference: Kendall's tau-b and tau-AP (the reference as the truth; ties: docs/judgments.md) between
    the systems' means, and every pair of systems whose winner flips, with the mean differences and the p-values of
    compare's paired ``test`` ("t" or "randomization", unadjusted) under each source. ``query_set="shared"`` (the
    default) evaluates every source on the queries every source judged, so a flip is a disagreement about the
    same queries; ``"own"`` lets each source use the queries it judged. ``settings`` are compare's and evaluate's
    (``group_by``, ``gain``, ``permutations``, ``seed``, ...).

    >>> import pandas as pd, sqlndcg
    >>> runs = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query_id": ["q1", "q1", "q2", "q2"] * 2,
    ...                      "doc_id": ["x", "y"] * 4, "score": [2.0, 1.0] * 2 + [1.0, 2.0] * 2})
    >>> labels = pd.DataFrame({"source": ["human"] * 4 + ["model"] * 4, "query_id": ["q1", "q1", "q2", "q2"] * 2,
    ...                        "doc_id": ["x", "y"] * 4, "rel": [1, 0, 1, 0, 0, 1, 0, 1]})
    >>> res = sqlndcg.system_order(runs, labels, ["p@1"])
    >>> [(r["source"], r["tau_b"], r["flipped"]) for r in res.correlation.to_dicts()]
    [('model', -1.0, 1)]
    """
    if test not in TESTS:
        raise SettingError(f"test={test!r} is not known; choose one of {', '.join(TESTS)}")
    if query_set not in QUERY_SETS:
        raise SettingError(f"query_set={query_set!r} is not known; choose 'shared' (the queries every source "
                           "judged) or 'own' (each source's judged queries)")
    if not isinstance(source, str) or not source:
        raise SettingError(f"source= must name the judgments' column that tells the label sources apart, got {source!r}")
    if settings.get("query_weights") is not None:
        raise SettingError("system_order does not weigh queries (query_weights=): the means and the orders are over "
                           "the queries unweighted; compare(..., query_weights=) weighs one comparison")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    with Runner.session(con) as runner:
        (labels,) = runner.inputs((judgments, "judgments", judgments_format))
        assert labels is not None
        columns = [c["name"] for c in labels.described["columns"]]
        sources = label_sources(runner, labels, source, reference)
        query = str(settings.get("judgments_query_id") or settings.get("query_id") or "query_id")
        doc = str(settings.get("judgments_doc_id") or settings.get("doc_id") or "doc_id")
        if query in columns and doc in columns:  # else evaluate names the missing column
            runner.check(labels, [], [], [source, query, doc], "labels of a source",
                         "; each source labels a (query, document) once: aggregate a source's labels first "
                         "(sqlndcg.aggregate_labels)")
        p = {"judgments": labels.described["sql"], "source": source, "query": query, "sources": len(sources),
             "columns": [c for c in columns if c != source], "shared": query_set == "shared"}
        _check_shared(runner, p, query_set)
        systems = _systems(runner, runs, system, run_format)
        given = settings_of("compare", {k: v for k, v in settings.items() if k not in _PPI_FREE})
        strata = _group_by(given, system)
        spec = make_spec(names, group_by=[*strata, system], **given)
        run, _ = _systems_input(runner.ses, runs, system, run_format)
        runner.ses.register(run)  # here, till the session ends: compare's own sessions read it, not register it
        run = dataclasses.replace(run, frame=None, frame_name=None)
        tables, pvalues, evaluated = [], [], {}
        for i, value in enumerate(sources):
            # the source's labels, its per-query values and (below) the pairs' p-values stay in the engine
            labels_src = runner.keep(templates.system_order_labels_sql(dict(p, value=value), dialect=runner.dialect),
                                     f"sqlndcg_labels_{i}", "judgments", f"{labels.label}, the labels of {value!r}")
            done = [compare(run, labels_src, names, baseline=b, system=system, con=runner.ses.eng, **settings)
                    for b in systems[:-1]]
            evaluated = done[0].settings
            prepared = scoring.prepare(runner.ses, spec, run, labels_src)
            name = runner.ses.table_name(f"sqlndcg_per_query_{i}")
            scoring.execute(runner.ses, prepared, per_query_table=name, summary=False)
            tables.append({"source": value, "sql": name})
            pvalues.extend(_pvalues(done, value, systems, system, strata, TESTS[test]))
        q = {"per_query": tables, "groups": strata, "system": system, "metrics": list(evaluated["metrics"]),
             "source": source, "reference": str(reference)}
        means_sql = templates.system_order_means_sql(q, dialect=runner.dialect)
        out = {k: v for k, v in evaluated.items() if k not in ("baseline", "correction", "bootstrap", "resamples")}
        out.update(group_by=strata, system=system, source=source, reference=str(reference), test=test, query_set=query_set,
                   sources=sources)
        means = runner.fetch(means_sql, out)
        means_name = runner.ses.table_name("sqlndcg_means")
        with runner.ses.explained("could not compute the result"):
            runner.ses.materialize(means_name, means_sql)
        pv_columns = list(strata) + ["source", "metric", "system_a", "system_b", "p"]
        if strata and pvalues:  # the groups as the engine writes them as text, to join on whatever their type
            texts = {tuple(r[:len(strata)]): tuple(r[len(strata):]) for r in
                     runner.rows(templates.system_order_groups_sql(means_name, strata, dialect=runner.dialect))}
            pvalues = [texts.get(tuple(r[:len(strata)]), (None,) * len(strata)) + tuple(r[len(strata):])
                       for r in pvalues]
        pv_sql = (templates.system_order_rows_sql(pv_columns, pvalues, dialect=runner.dialect) if pvalues else None)
        r = dict(q, means=means_name, pvalues=None if pv_sql is None else f"({pv_sql})")
        corr_sql = templates.system_order_correlation_sql(r, dialect=runner.dialect)
        flips_sql = templates.system_order_flips_sql(r, dialect=runner.dialect)
        correlation = runner.fetch(corr_sql, out)
        flips = runner.fetch(flips_sql, out)
        # as shown: over tables named means and pvalues (res.means and the pairs' p-values, stored under those names)
        shown = dict(r, means="means", pvalues="pvalues")
        statements = {"means": means_sql,
                      "correlation": templates.system_order_correlation_sql(shown, dialect=runner.dialect),
                      "flips": templates.system_order_flips_sql(shown, dialect=runner.dialect)}
    return SystemOrder(means, correlation, flips, out, statements)


def label_sources(runner: Runner, labels: Input, source: str, reference) -> list[str]:
    """The label sources of the column ``source`` of ``labels``, the reference first; refuses a missing column, a
    reference that is not one of them and a column holding only the reference (judge_check's refusals too)."""
    columns = [c["name"] for c in labels.described["columns"]]
    if not isinstance(source, str) or source not in columns:
        raise InputError(f"{labels.label} has no source column {source!r}; its columns are "
                         f"{', '.join(columns)}. Name the column that tells the label sources apart with source=")
    found = [str(v) for (v,) in runner.rows(templates.system_order_values_sql(labels.described["sql"], source,
                                                                              dialect=runner.dialect))]
    if str(reference) not in found:
        raise SettingError(f"reference={reference!r} is not a label source: the column {source!r} of {labels.label} "
                           f"holds {', '.join(map(repr, found)) or 'no value'}")
    others = [v for v in found if v != str(reference)]
    if not others:
        raise SettingError(f"the column {source!r} of {labels.label} holds only the reference {str(reference)!r}: "
                           "there is no other label source to compare with it")
    return [str(reference)] + others


def _check_shared(runner: Runner, p: dict, query_set: str) -> None:
    """Refuse a source that judged no query (of the shared set, under query_set='shared')."""
    counts = runner.rows(templates.system_order_queries_sql(p, dialect=runner.dialect))
    column = 2 if query_set == "shared" else 1
    empty = [r for r in counts if not r[column]]
    if empty:
        shown = "; ".join(f"{r[0]!r} judged {r[1]} queries" for r in counts)
        raise DataError(f"no query is judged by every label source, so the sources cannot be compared on the same "
                        f"queries ({shown}); use query_set='own' to let each source use its own queries"
                        if query_set == "shared" else f"source {empty[0][0]!r} judged no query ({shown})")


def _systems(runner: Runner, runs, system: str, run_format) -> list:
    """The systems of the runs, at least two."""
    if isinstance(runs, Mapping):
        found: list = list(runs)
    else:
        (run,) = runner.inputs((runs, "run", run_format))
        assert run is not None
        present = [c["name"] for c in run.described["columns"]]
        if system not in present:
            raise InputError(f"{run.label} has no system column {system!r}; its columns are "
                             f"{', '.join(present)}. Name it with system=")
        found = [v for (v,) in runner.rows(templates.system_order_values_sql(run.described["sql"], system,
                                                                             dialect=runner.dialect))]
    if len(found) < 2:
        raise SettingError(f"system_order needs at least two systems to order; the {system!r} column holds "
                           f"{', '.join(map(repr, found)) or 'none'}")
    return found


def _pvalues(done, value: str, systems: list, system: str, strata: list[str], column: str) -> list[tuple]:
    """Every pair's p-value under one source, both orders of the pair: compare with baseline systems[i] gives the
    pairs (systems[j], systems[i]) for j > i."""
    rows = []
    for i, comparison in enumerate(done):
        later = {str(s) for s in systems[i + 1:]}
        for rec in comparison.table.to_dicts():
            a, b = str(rec[system]), str(systems[i])
            if a not in later:
                continue
            g = tuple(rec[k] for k in strata)
            rows.append(g + (value, rec["metric"], a, b, rec[column]))
            rows.append(g + (value, rec["metric"], b, a, rec[column]))
    return rows
