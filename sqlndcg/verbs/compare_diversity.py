""":func:`sqlndcg.compare` of the diversity measures (alpha_ndcg@k, err_ia@k, nrbp, ...: :mod:`.diversity`).

The seam: the per-query values come from the diversity statement (``sql/macros/diversity/diversity.sql``, every
system scored in one statement with the system as a group), kept as a table of the session; the paired
statements of ``sql/macros/statements/compare.sql`` read that table through a small plan naming its group,
query and metric columns, and Python adds the p-values, the bootstrap and the correction exactly as for the
other metrics (:func:`.compare._statistics`)."""

from __future__ import annotations

import inspect
import math
import uuid
from contextlib import contextmanager
from typing import Iterator, Sequence

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
        result, div_plan = scored(runner, run_in, judged_in, given, keep=name)
        div = result.settings
        systems = sorted({r[system] for r in result.table.to_dicts()}, key=plain._query_key)
        plain._check_baseline(baseline, systems, system)
        plan = templates.diversity_table_plan(div_plan, dialect=ses.dialect)
        templates.compare_parts(plan, system, dialect=ses.dialect)
        summary = runner.fetch(templates.summary_sql(name, plan, dialect=ses.dialect), div)
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
    return plain.Comparison(table, differences, result.table, summary, account,
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


def account_text(comparison: plain.Comparison) -> str:
    """The account of a comparison in words: evaluate's (Result.account_text) when it has one; the diversity
    measures' queries scored per system otherwise, and after evaluate's in a mixed comparison."""
    account, s = comparison.account, comparison.settings
    lines = [comparison.result.account_text()] if "run_rows" in account.columns else []
    div = s.get("diversity_account")
    if lines and div is None:  # no diversity measure
        return lines[0]
    rows = div if div is not None else account.to_dicts()
    groups = [*s["strata"], s["system"]]
    measures = ", ".join(s.get("diversity_metrics") or s["metrics"])
    for r in rows:
        lines.append(", ".join(f"{g}={r[g]}" for g in groups) + f": {measures}: {r['judged_queries_scored']:,} "
                     f"queries scored (in the run and in the judgments, as ndeval scores them)"
                     + ("" if r["judged_queries_missing_from_run"] is None else
                        f", {r['judged_queries_missing_from_run']:,} judged queries missing from the run (not scored)"))
    return "\n".join(lines)


#: A mixed list's settings that only the diversity measures read, and those both sides read (column names, strata);
#: every other setting is the accuracy metrics' (queries=, gain=, preset=, ...).
DIVERSITY_ONLY = ("alpha", "beta", "threshold", "intent", "ideal_depth", "order_by")
SHARED = ("query_id", "doc_id", "score", "rel", "group_by")


@contextmanager
def ad_hoc_judgments(judgments, *, con=None, judgments_format=None, query_id="query_id", doc_id="doc_id",
                     rel="rel") -> Iterator[object]:
    """Judgments with an intent column as ad hoc judgments (query, document, rel): each document's largest grade
    over the query's intents (_diversity_ad_hoc_sql), what the accuracy metrics of a mixed list read. Yields what
    evaluate and compare take as judgments: with ``con``, a table of that connection (dropped on leaving); without,
    a pyarrow table."""
    with Runner.session(con) as runner:
        (judged_in,) = runner.inputs((judgments, "judgments", judgments_format_of(judgments, judgments_format)))
        assert judged_in is not None
        sql = templates.diversity_ad_hoc_sql(judged_in.described, query_id, doc_id, rel, dialect=runner.dialect)
        if con is None:
            yield runner.fetch(sql).to_arrow()
            return
        name = f"sqlndcg_ad_hoc_{uuid.uuid4().hex[:12]}"
        with runner.ses.explained("could not compute the result"):
            runner.ses.materialize(render.quote(name, runner.dialect), sql)
        yield name


def split_settings(settings: dict) -> tuple[dict, dict]:
    """A mixed list's settings -> (the accuracy metrics', the diversity measures')."""
    accuracy = {k: v for k, v in settings.items() if k not in DIVERSITY_ONLY}
    div = {k: v for k, v in settings.items() if k in DIVERSITY_ONLY or k in SHARED}
    return accuracy, div


def compare_mixed(runs, judgments, metrics: list[str], *, con=None, judgments_format=None, query_weights=None,
                  settings: dict, **common) -> plain.Comparison:
    """compare() of a list mixing accuracy metrics and diversity measures on judgments with intents: the accuracy
    ones on the ad hoc judgments (each document's largest grade over the intents), the diversity ones on the
    judgments themselves, one table: rows in the list's order, the correction over every test of both."""
    accuracy_names = [m for m in metrics if not is_diversity_metric(m)]
    div_names = [m for m in metrics if is_diversity_metric(m)]
    if query_weights is not None:
        raise SettingError("query_weights= is not available with the diversity measures in compare()")
    accuracy_settings, div_settings = split_settings(settings)
    columns = {k: settings[k] for k in ("query_id", "doc_id", "rel") if settings.get(k) is not None}
    with ad_hoc_judgments(judgments, con=con, judgments_format=judgments_format, **columns) as ad_hoc:
        a = plain.compare(runs, ad_hoc, accuracy_names, con=con, **common, **accuracy_settings)
    d = compare_diversity(runs, judgments, div_names, con=con, judgments_format=judgments_format,
                          query_weights=None, settings=div_settings, **common)
    return merged(a, d, metrics)


def merged(a: plain.Comparison, d: plain.Comparison, metrics: list[str]) -> plain.Comparison:
    """Two comparisons of the same systems (accuracy metrics, diversity measures) as one: the tables and the
    differences stacked in the list's order, the p-values adjusted again over every test of both (the metrics
    asked for as one family, unjudged upper bounds as another, as compare() does), per-query values and summaries
    side by side per (stratum, system, query) and per (stratum, system)."""
    s = a.settings
    strata, system = list(s["strata"]), s["system"]
    query_id = s["columns"]["query_id"]
    order = {m: i for i, m in enumerate(metrics)}
    rank = lambda r: tuple(plain._query_key(r[g]) for g in [*strata, system]) + (  # noqa: E731
        order.get(r["metric"], len(order)), r["metric"])
    records = sorted(a.table.to_dicts() + d.table.to_dicts(), key=rank)
    for family in ([i for i, r in enumerate(records) if r["metric"] in order],
                   [i for i, r in enumerate(records) if r["metric"] not in order]):
        for name in ("t_p", "randomization_p"):
            ps = [records[i][name] for i in family]
            adjusted = plain._adjust([math.nan if p is None else p for p in ps], s["correction"]) if family else []
            for i, p in zip(family, adjusted):
                records[i][name + "_adjusted"] = p
    table = Table(a.table.columns, tuple(tuple(r[c] for c in a.table.columns) for r in records), a.table.settings)
    diff_rows = sorted(a.differences.to_dicts() + d.differences.to_dicts(),
                       key=lambda r: rank(r) + (plain._query_key(r[query_id]),))
    for r in diff_rows:
        r["metric_index"] = order.get(r["metric"], len(order))
    differences = Table(a.differences.columns, tuple(tuple(r[c] for c in a.differences.columns) for r in diff_rows),
                        a.differences.settings)
    div_metrics = [m for m in d.settings["metrics"]]
    per_query = _side_by_side(a.per_query, d.per_query, [*strata, system, query_id], div_metrics, a.settings)
    extra = [c for m in div_metrics for c in (m, f"{m}_count", f"{m}_std", f"{m}_ci_low", f"{m}_ci_high")]
    summary = _side_by_side(a.summary, d.summary, [*strata, system], extra, a.settings)
    shown = [m for m in metrics]
    settings = {**s, "metrics": shown + [m for m in s["metrics"] if m not in order],
                "diversity_metrics": div_metrics, "diversity_account": d.account.to_dicts(),
                "diversity": {k: d.settings[k] for k in ("alpha", "beta", "threshold", "order_by", "queries",
                                                          "ideal_depth")},
                "judgments_for_accuracy": "each document's largest grade over the intents"}
    statement = f"-- the accuracy metrics, on the ad hoc judgments\n{a.sql};\n\n-- the diversity measures\n{d.sql}"
    return plain.Comparison(table, differences, per_query, summary, a.account, settings, statement)


def _side_by_side(left: Table, right: Table, keys: list[str], columns: list[str], settings: dict) -> Table:
    """``left``'s rows with ``right``'s ``columns`` beside them, matched on ``keys`` (a row either side lacks:
    NULLs), in key order."""
    found: dict[tuple, list] = {}
    for r in left.to_dicts():
        found.setdefault(tuple(r[k] for k in keys), [None, None])[0] = r
    for r in right.to_dicts():
        found.setdefault(tuple(r[k] for k in keys), [None, None])[1] = r
    names = tuple(left.columns) + tuple(c for c in columns if c not in left.columns)
    rows = []
    for key in sorted(found, key=lambda k: tuple(plain._query_key(v) for v in k)):
        mine, theirs = found[key]
        row = dict(zip(keys, key))
        row.update(mine or {})
        row.update({c: (theirs or {}).get(c) for c in columns})
        rows.append(tuple(row.get(c) for c in names))
    return Table(names, tuple(rows), settings)
