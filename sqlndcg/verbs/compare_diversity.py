""":func:`sqlndcg.compare` of the diversity measures (alpha_ndcg@k, err_ia@k, nrbp, ...: :mod:`.diversity`).

The seam: the per-query values come from the diversity statement (``sql/macros/diversity/diversity.sql``, every
system scored in one statement with the system as a group), kept as a table of the session; the paired
statements of ``sql/macros/statements/compare.sql`` read that table through a small plan naming its group,
query and metric columns, and Python adds the p-values, the bootstrap and the correction exactly as for the
other metrics (:func:`.compare._statistics`)."""

from __future__ import annotations

import inspect
from typing import Sequence

from . import compare as plain
from .diversity import diversity, is_diversity_metric, judgments_format_of, scored
from .judgments import Input, Runner
from ..core import render, templates
from ..errors import SettingError
from ..present.results import FormattedSQL, Table
from ..run import sources
from ..run.session import Session


def is_diversity_list(metrics) -> bool:
    """Whether ``metrics`` names a diversity measure (a mixed list is refused by :func:`compare_diversity`)."""
    names = [metrics] if isinstance(metrics, str) else list(metrics) if isinstance(metrics, (list, tuple)) else []
    return any(is_diversity_metric(n) for n in names)


def compare_diversity(runs, judgments, metrics: Sequence[str] | str, *, baseline, system: str, correction: str,
                      permutations: int, seed: int, bootstrap: str, resamples: int, con, dialect, run_format,
                      judgments_format, delimiter, decimal, query_weights, settings: dict) -> plain.Comparison:
    """compare() with diversity measures: see :func:`sqlndcg.compare` (``settings``: diversity()'s, plus group_by
    for strata)."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not all(is_diversity_metric(n) for n in names):
        raise SettingError("the diversity measures (alpha_ndcg@k, err_ia@k, nrbp, ...) read judgments with an intent "
                           f"column and are compared apart: ask for them in a list of their own, got {names}")
    if query_weights is not None:
        raise SettingError("query_weights= is not available with the diversity measures in compare()")
    given = dict(settings)
    strata = plain._group_by(given, system)
    known = set(inspect.signature(diversity).parameters) - {"run", "judgments", "metrics", "con", "run_format",
                                                             "judgments_format", "group_by"}
    unknown = sorted(set(given) - known)
    if unknown:
        raise SettingError(f"{unknown[0]} is not a setting of the diversity measures; theirs are "
                           f"{', '.join(sorted(known))}")
    given.update({"metrics": names, "group_by": [*strata, system]})
    with Session(con, dialect, sources.Reading.of(delimiter, decimal)) as ses:
        runner = Runner(ses)
        run, union_sql = plain._systems_input(ses, runs, system, run_format)
        judged = ses.resolve(judgments, "judgments", judgments_format_of(judgments, judgments_format))
        run_in = Input(run, ses.described(run, ses.describe(run)))
        judged_in = Input(judged, ses.described(judged, ses.describe(judged)))
        name = ses.table_name("sqlndcg_per_query")
        result = scored(runner, run_in, judged_in, given, keep=name)
        div = result.settings
        query_id = div["columns"]["query_id"]
        systems = sorted({r[system] for r in result.table.to_dicts()}, key=plain._query_key)
        plain._check_baseline(baseline, systems, system)
        plan = {"groups": [{"name": g, "output": render.quote(g, ses.dialect)} for g in [*strata, system]],
                "query_output": render.quote(query_id, ses.dialect),
                "metrics": [{"name": m, "column": render.quote(m, ses.dialect)} for m in div["metrics"]]}
        templates.compare_parts(plan, system, dialect=ses.dialect)
        table_columns, table_rows = ses.fetch(templates.paired_sql(name, plan, system, str(baseline),
                                                                   dialect=ses.dialect))
        diff_columns, diff_rows = ses.fetch(templates.paired_differences_sql(name, plan, system, str(baseline),
                                                                             dialect=ses.dialect))
        shown_run = run_in.described if union_sql is None else {**run_in.described, "sql": f"({union_sql})"}
        shown_plan = templates.diversity_plan(shown_run, judged_in.described, {**given, "ideal_depth":
                                              div["ideal_depth"]}, dialect=ses.dialect)
        shown = FormattedSQL(templates.paired_sql(f"({templates.diversity_sql(shown_plan, dialect=ses.dialect)})",
                                                  plan, system, str(baseline), dialect=ses.dialect), ses.dialect)
    account = _account(result.table, strata, system, result.judged_queries)
    compare_settings = {"system": system, "baseline": baseline, "strata": strata, "correction": correction,
                        "permutations": permutations, "seed": seed, "bootstrap": bootstrap, "resamples": resamples}
    spec_settings = {**div, "group_by": [*strata, system]}
    differences = Table(tuple(diff_columns), tuple(tuple(r) for r in diff_rows), spec_settings)
    table = plain._statistics(table_columns, table_rows, differences, account, strata, system, baseline,
                              compare_settings, spec_settings)
    return plain.Comparison(table, differences, result.table, result.summary, account,
                            {**spec_settings, **compare_settings}, shown)


def _account(per_query: Table, strata: list[str], system: str, judged: int) -> Table:
    """Per (stratum, system): the judged queries scored, and those of the judgments its run lacks (judged minus
    scored: under queries='both' such a query has no row; under 'run' the rows with judged = 1 count)."""
    counts: dict[tuple, int] = {}
    for r in per_query.to_dicts():
        key = tuple(r[g] for g in strata) + (r[system],)
        counts[key] = counts.get(key, 0) + (1 if r.get("judged", 1) else 0)
    columns = tuple(strata) + (system, "judged_queries_scored", "judged_queries_missing_from_run")
    rows = tuple(key + (n, judged - n if not strata else None) for key, n in sorted(
        counts.items(), key=lambda item: tuple(plain._query_key(v) for v in item[0])))
    return Table(columns, rows)
