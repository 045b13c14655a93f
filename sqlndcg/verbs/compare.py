"""Comparing systems honestly: :func:`compare` pairs every system with a baseline query by query.

The per-query work is SQL (``sql/macros/statements/compare.sql``): the systems are evaluated together in one statement
(the system is a group column), the per-query table is kept in the engine, and one template computes, per
(system, metric), the pairs, both means, the mean difference with its 95% t interval, wins/ties/losses and the
queries present on one side only. Python then adds the small statistics of the per-query differences it fetches
(one value per query): the paired t test's p-value, the paired randomization test, the bootstrap interval, and
the Holm (or Bonferroni) correction across every reported test (:mod:`sqlndcg.stats.paired`). With query weights, the
means, the interval and all three tests are weighted (the summary's weighted mean and Kish effective n; sign
flips and resamples of the weighted mean). docs/compare.md says what each number means and when to use which
interval.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence, cast

from . import scoring
from ..stats import paired
from ..stats.methods import BOOTSTRAPS, CORRECTIONS
from ..core import render
from ..run import sources
from ..run.progress import announce
from ..run.session import Session
from ..stats import distributions
from ..errors import InputError, MetricError, SettingError
from ..core.metrics import metric_range
from ..present.results import FormattedSQL, Result, Table

if TYPE_CHECKING:
    from typing_extensions import Unpack
from ..core.settings import Settings, settings_of
from ..core.spec import make_spec
from ..core import templates



@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` returns.

    ``table``: one row per (group..., system, metric) against the baseline (columns in docs/compare.md);
    ``differences``: one row per (group..., system, metric, query) with both values and their difference;
    ``per_query``, ``summary``, ``account``: the evaluation of every system (the baseline included), as
    :func:`sqlndcg.evaluate` gives them (with query weights, the summary is weighted too and ``differences`` has
    each pair's ``weight``); ``settings``: the evaluation's settings (``query_weights`` among them when given) and
    the comparison's (system, baseline, correction, permutations, seed, bootstrap, resamples); ``sql``: the paired
    statement.
    """

    table: Table
    differences: Table
    per_query: Table
    summary: Table
    account: Table
    settings: dict
    statement: object = field(repr=False)  # the paired statement: text, or FormattedSQL formatted on first use

    @property
    def sql(self) -> str:
        """The paired statement, formatted to read."""
        return str(self.statement)

    def __iter__(self):
        return iter(self.table.to_dicts())

    def __len__(self) -> int:
        return len(self.table)

    def to_dicts(self) -> list[dict]:
        return self.table.to_dicts()

    def to_pandas(self):
        """The comparison table as a pandas DataFrame (one row per system and metric)."""
        return self.table.to_pandas()

    @property
    def result(self) -> Result:
        """The evaluation of every system as a :class:`~sqlndcg.present.results.Result` (for summaries and plots)."""
        evaluation = {k: v for k, v in self.settings.items() if k not in _COMPARE_KEYS}
        return Result(self.per_query, self.summary, evaluation, "", self.account)

    def diffs(self, system, metric: str, **groups) -> list[float]:
        """The per-query differences (system - baseline) of one system and metric, in query order; ``groups``
        picks a stratum (e.g. ``ds="2026-11-01"``) when the comparison has group_by columns."""
        out = []
        for r in self.differences.to_dicts():
            if (str(r[self.settings["system"]]) == str(system) and r["metric"] == metric
                    and all(str(r[g]) == str(v) for g, v in groups.items()) and r["difference"] is not None):
                out.append(r["difference"])
        return out

    def shown(self) -> Table:
        """The comparison table as people read it (the text below and the HTML report): one cell per interval,
        signed differences, the change in percent, W/T/L; every value a string."""
        s = self.settings
        strata = list(s["strata"])
        weighted = bool(s.get("query_weights"))
        rows = []
        for r in self.table.to_dicts():
            rows.append(tuple(r[g] for g in strata) + (
                r[s["system"]], r["metric"], _num(r["baseline_mean"]), _num(r["mean"]), _signed(r["difference"]),
                _interval(r["t_low"], r["t_high"]), _interval(r["bootstrap_low"], r["bootstrap_high"]),
                _percent(r["relative_change"]), _dz(r["effect_size"]), _p(r["t_p"]), _p(r["t_p_adjusted"]),
                _p(r["randomization_p"]), _p(r["randomization_p_adjusted"]),
                f"{r['wins']}/{r['ties']}/{r['losses']}",
                f"{r['pairs']} ({'' if r['effective_pairs'] is None else r['effective_pairs']})" if weighted
                else str(r["pairs"]),
            ))
        adj = s["correction"] if s["correction"] != "none" else "unadjusted"
        header = tuple(strata) + (
            s["system"], "metric", f"base={s['baseline']}", "mean", "diff", "95% CI (t)",
            f"95% CI (bootstrap {s['bootstrap']})", "change", "d_z", "p (t)", f"p (t, {adj})", "p (perm)",
            f"p (perm, {adj})", "W/T/L", "pairs (effective)" if weighted else "pairs",
        )
        return Table(header, tuple(rows))

    def heading(self) -> str:
        """One line: how the comparison was made (pairing, tests, bootstrap, correction)."""
        s = self.settings
        weighted = ""
        if s.get("query_weights"):
            w = s["query_weights"]
            weighted = (f"; queries weighted by column {w['weight']!r} of {w['input']} (weighted means, intervals "
                        "with the effective number of pairs, weighted tests; W/T/L count queries)")
        return (f"Compared with baseline {s['baseline']!r}, paired by query (queries={s['queries']!r}){weighted}; "
                f"randomization test: {s['permutations']} sign flips (exact when 2^pairs <= that), seed {s['seed']}; "
                f"bootstrap: {s['resamples']} resamples, seed {s['seed']}; {s['correction']} correction over "
                f"{len(self.table)} comparison(s) per test.")

    def notes(self) -> list[str]:
        """What the table leaves out: queries with a value on one side only, judged queries missing from a run."""
        s = self.settings
        strata = list(s["strata"])
        notes = []
        for r in self.table.to_dicts():
            who = ", ".join([f"{g}={r[g]}" for g in strata] + [f"{s['system']}={r[s['system']]}"])
            if r["only_baseline"] or r["only_system"]:
                notes.append(f"{who}, {r['metric']}: {r['only_baseline']} queries have a value for the baseline "
                             f"only and {r['only_system']} for the system only (left out of the pairs)")
        seen = set()
        for r in self.table.to_dicts():
            key = tuple(r[g] for g in strata) + (r[s["system"]],)
            if key in seen:
                continue
            seen.add(key)
            who = ", ".join([f"{g}={r[g]}" for g in strata] + [f"{s['system']}={r[s['system']]}"])
            if r["missing_from_run"] or r["baseline_missing_from_run"]:
                rule = "scored 0 and paired" if s["queries"] == "judged" else "not scored"
                notes.append(f"{who}: {r['missing_from_run']} judged queries missing from the system's run and "
                             f"{r['baseline_missing_from_run']} from the baseline's ({rule}, queries={s['queries']!r})")
        return notes

    def text(self) -> str:
        """The comparison as a fixed-width table, with a header saying how it was made."""
        lines = [self.heading(), self.shown().to_text(max_rows=10**6)]
        notes = self.notes()
        if notes:
            lines.append("\n".join(notes))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def plot(self, file=None, **kwargs):
        """The per-query differences against the baseline (:func:`sqlndcg.plots.plot_differences`)."""
        from ..present.plots import plot_differences

        return plot_differences(self, file, **kwargs)


_COMPARE_KEYS = ("system", "baseline", "strata", "correction", "permutations", "seed", "bootstrap", "resamples")


def _num(v) -> str:
    return "" if v is None else f"{v:.4f}"


def _signed(v) -> str:
    return "" if v is None else f"{v:+.4f}"


def _interval(lo, hi) -> str:
    return "" if lo is None or hi is None else f"[{lo:+.4f}, {hi:+.4f}]"


def _percent(v) -> str:
    return "" if v is None else f"{100 * v:+.1f}%"


def _dz(v) -> str:
    return "" if v is None else f"{v:+.2f}"


def _p(v) -> str:
    if v is None:
        return ""
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


def _check_compare_settings(correction, permutations, seed, bootstrap, resamples) -> None:
    if correction not in CORRECTIONS:
        raise SettingError(f"correction={correction!r} is not known; choose one of {', '.join(CORRECTIONS)}")
    if bootstrap not in BOOTSTRAPS:
        raise SettingError(f"bootstrap={bootstrap!r} is not known; choose one of {', '.join(BOOTSTRAPS)}")
    for name, value in (("permutations", permutations), ("resamples", resamples)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SettingError(f"{name}= must be a positive integer, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SettingError(f"seed= must be an integer, got {seed!r}")


def _group_by(settings: dict, system: str) -> list[str]:
    group_by = settings.pop("group_by", None) or []
    group_by = [group_by] if isinstance(group_by, str) else list(group_by)
    if system in group_by:
        group_by.remove(system)
    return group_by


def _systems_input(ses: Session, runs, system: str, run_format) -> tuple[sources.Source, str | None]:
    """The run to evaluate and, for a dict of runs, the SQL of their union: one input as it is, or a dict of runs
    as one table of the session (dropped as it closes) with a system column holding each run's name, labelled by
    the systems' names in messages."""
    if not isinstance(runs, Mapping):
        return ses.resolve(runs, "run", run_format), None
    if len(runs) < 2:
        raise SettingError(f"compare needs at least two runs to compare, got {len(runs)}")
    names = list(runs)
    for name in names:
        if not isinstance(name, str) or not name:
            raise SettingError(f"the runs' names (the dict's keys) must be non-empty strings, got {name!r}")
    srcs = [ses.resolve(runs[name], "run", run_format) for name in names]
    for name, src in zip(names, srcs):
        src.label = f"{src.label} (system {name!r})"
    shared: list[str] = []  # the columns every run has
    for i, src in enumerate(srcs):
        columns = list(ses.describe(src))
        if system in columns:
            raise InputError(
                f"{src.label} already has a column {system!r}; pass the runs as one input with "
                f"system={system!r}, or name the system column differently with system="
            )
        shared = columns if i == 0 else [c for c in shared if c in columns]
    if all(src.trec_format == "trec_run" for src in srcs):
        # a TREC run's rank field is no ranking (trec_eval ranks by the score): the union ranks by the score alone
        shared = [c for c in shared if c != "rank"]
    inputs = [{"name": name, "sql": src.sql} for name, src in zip(names, srcs)]
    union = templates.compare_union_sql(inputs, shared, system, dialect=ses.dialect)
    table = f"sqlndcg_runs_{uuid.uuid4().hex[:12]}"
    with ses.explained("cannot be put together in one table (do their columns have the same types?)",
                       subject=f"the runs of {', '.join(map(repr, names))}"):
        ses.materialize(render.quote(table, ses.dialect), union)
    run = ses.resolve(table, "run")  # read as a table of that name is read (sources.resolve)
    run.label = f"the runs of systems {', '.join(map(repr, names))}"
    if any(src.shown_sql for src in srcs):  # the statement shown reads the files, not the session's copies of them
        union = templates.compare_union_sql([{"name": name, "sql": src.shown_sql or src.sql}
                                                  for name, src in zip(names, srcs)], shared, system, dialect=ses.dialect)
    return run, union


def _system_missing(exc: InputError, system: str) -> InputError:
    """The system column is a group column of the evaluation, named by compare's own keyword: a run without it is
    told to name it with system= (the command line: --system), not group_by=."""
    missing = f" has no group_by column {system!r}"
    text = str(exc)
    if missing not in text:
        return exc
    return InputError(text.replace(missing, f" has no system column {system!r}")
                      .replace("Name the right one with group_by=.", "Name the right one with system=."))


def _query_key(value):
    """Query ids sort by type, then value, so integer and text ids both give one fixed order."""
    return (type(value).__name__, value)


def _t_p(mean, std, n) -> float:
    """Two-sided p of the paired t test from the SQL's moments (n: the effective number of pairs, = pairs without
    weights); SciPy's degenerate cases except that identical systems (every difference 0) give 1.0 rather than
    NaN (no evidence of a difference)."""
    if mean is None or std is None or n is None or n < 2:
        return math.nan
    n = int(n)
    if std == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    return distributions.t_two_sided_p(mean / (std / math.sqrt(n)), n - 1)


def _adjust(pvalues: list[float], correction: str) -> list[float | None]:
    """Adjusted p-values over the finite ones (a test without pairs has none)."""
    index = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    given = [pvalues[i] for i in index]
    if correction == "holm":
        adjusted = paired.holm(given)
    elif correction == "bonferroni":
        adjusted = paired.bonferroni(given)
    elif correction == "bh":
        adjusted = paired.benjamini_hochberg(given)
    else:
        adjusted = given
    out: list[float | None] = [None] * len(pvalues)
    for i, a in zip(index, adjusted):
        out[i] = a
    return out


def _difference_bounds(metric: str):
    lohi = metric_range(metric)
    return None if lohi is None else (lohi[0] - lohi[1], lohi[1] - lohi[0])


def _refuse_beyond(metrics) -> None:
    """A beyond-accuracy measure (coverage@k, novelty@k, ...) reads an items table, not judgments: say where it is."""
    from .beyond import is_beyond_metric

    names = [metrics] if isinstance(metrics, str) else list(metrics) if isinstance(metrics, (list, tuple)) else []
    found = [n for n in names if is_beyond_metric(n)]
    if found:
        raise MetricError(f"{found[0]} is a beyond-accuracy measure: it reads the lists and an items table, not "
                          "judgments, and compare does not test it; sqlndcg.beyond_accuracy(runs, items, "
                          "group_by=system) gives it per system with its interval (docs/beyond.md)")


def compare(
    runs,
    judgments,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    baseline=None,
    system: str = "system",
    correction: str = "holm",
    permutations: int = 10000,
    seed: int = 0,
    bootstrap: str = "percentile",
    resamples: int = 10000,
    con=None,
    dialect: str | None = None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    query_weights=None,
    weight_column: str = "weight",
    audit=None,
    ppi: str | None = None,
    interval: str | None = None,
    **settings: Unpack[Settings],
) -> Comparison:
    """Compare systems with a baseline, query by query, on every metric.

    ``runs`` is a dict ``{name: run}`` (each a table name, file or frame, as :func:`sqlndcg.evaluate` takes) or
    one run with a ``system`` column. ``baseline`` names the system the others are compared with (default: the
    dict's first run; with one input it must be given). Every setting of :func:`sqlndcg.evaluate` applies
    (``queries=``, ``gain=``, ``preset=``, ``group_by=`` for strata within which queries are paired, ...).

    For each system, stratum and metric: both means over the paired queries, the mean difference with its 95%
    t interval and a seeded bootstrap interval (``bootstrap="percentile"`` or ``"bca"``), the relative change,
    the paired t test's p-value, a paired randomization test's p-value (``permutations`` random sign flips from
    ``seed``, exact enumeration when 2^pairs <= permutations), both adjusted by ``correction`` ("holm",
    "bonferroni", "bh" (Benjamini-Hochberg) or "none") across every reported comparison, win/tie/loss counts, and the queries present on
    one side only (counted, not paired).

    The diversity measures (``alpha_ndcg@10``, ``err_ia@20``, ``nrbp``, ... of :func:`sqlndcg.diversity`, in a list
    of their own, judgments with an intent column) are compared the same way on their per-query values; the
    settings are then diversity()'s (``alpha=``, ``queries=``, ...), ``group_by=`` strata, no query weights.

    ``query_weights`` (a table, file or frame of query id, ``weight_column`` and optionally stratum columns, as
    :func:`sqlndcg.evaluate` takes it) weighs the queries: both means, the mean difference and its interval become
    weighted (sum(w d) / sum(w), the interval with Kish's effective n, as the weighted summary), and so do the t
    test, the randomization test (sign flips of the weighted mean) and the bootstrap (resampled weighted means);
    win/tie/loss counts stay counts. Every compared query needs a weight (0 leaves it out), and the weights may not
    depend on the system. Equal weights give the unweighted comparison.

    ``audit`` (human judgments of some queries; ``judgments`` then the model's on every query) hands the call to
    :func:`sqlndcg.ppi_compare` with ``ppi`` ("ppi++", the default, or "ppi") and ``interval`` ("normal" or "t"):
    the prediction-powered mean differences and intervals, the naive ones beside them (docs/judgments.md).

    >>> import sqlndcg
    >>> c = sqlndcg.compare(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5", "p@5"],
    ...                     system="tag", baseline="bm25")
    >>> [(r["metric"], round(r["difference"], 4), r["wins"], r["ties"], r["losses"]) for r in c]
    [('ndcg@5', 0.2996, 10, 2, 0), ('p@5', 0.1, 5, 6, 1)]
    """
    if audit is not None or ppi is not None or interval is not None:
        return _ppi(runs, judgments, metrics, audit, (ppi, interval), locals(), dict(settings))
    _check_compare_settings(correction, permutations, seed, bootstrap, resamples)
    if not isinstance(system, str) or not system:
        raise SettingError(f"system= must name the column that tells the systems apart, got {system!r}")
    if isinstance(runs, Mapping):
        if baseline is None and runs:
            baseline = next(iter(runs))
    from . import compare_diversity  # it reads this module's helpers

    if compare_diversity.is_diversity_list(metrics):
        # Intent-aware measures: per-query values from the diversity statement, the same paired statistics; a
        # list mixing them with accuracy metrics: those on the ad hoc judgments (compare_diversity.compare_mixed).
        common = dict(baseline=baseline, system=system, correction=correction, permutations=permutations, seed=seed,
                      bootstrap=bootstrap, resamples=resamples, dialect=dialect, run_format=run_format,
                      delimiter=delimiter, decimal=decimal)
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        if all(compare_diversity.is_diversity_metric(m) for m in names):
            return compare_diversity.compare_diversity(runs, judgments, names, con=con, judgments_format=judgments_format,
                                                       query_weights=query_weights, settings=dict(settings), **common)
        return compare_diversity.compare_mixed(runs, judgments, names, con=con, judgments_format=judgments_format,
                                               query_weights=query_weights, settings=dict(settings), **common)
    _refuse_beyond(metrics)
    given = settings_of("compare", settings)
    strata = _group_by(given, system)
    spec = make_spec(metrics, group_by=[*strata, system], **given)
    with Session(con, dialect, sources.Reading.of(delimiter, decimal)) as ses:
        run, union_sql = _systems_input(ses, runs, system, run_format)
        try:
            prepared = scoring.prepare(ses, spec, run, judgments, judgments_format=judgments_format,
                                      query_weights=query_weights, weight_column=weight_column)
        except InputError as exc:
            raise _system_missing(exc, system) from None
        templates.compare_parts(prepared.plan, system, prepared.weights_plan, dialect=ses.dialect)
        shown = _standalone_sql(ses, prepared, union_sql, system, baseline)
        # The per-query table stays for the paired statements, which read it without computing the metrics twice.
        # execute() refuses a scored query without a weight (every system's, so every compared one).
        name = ses.table_name("sqlndcg_per_query")
        result = scoring.execute(ses, prepared, per_query_table=name)
        systems = _check_systems(result, baseline, system, strata, spec.columns.query_id, spec.queries,
                                 lambda s: [v for (v,) in ses.fetch(templates.some_system_queries(run.sql, system, spec.columns.query_id, str(s), 4, dialect=ses.dialect))[1]])
        plan, weights = prepared.plan, prepared.weights_plan
        announce(f"pairing {len(systems)} systems' queries")
        table_columns, table_rows = ses.fetch(templates.paired_sql(name, plan, system, str(baseline), weights, dialect=ses.dialect))
        diff_columns, diff_rows = ses.fetch(templates.paired_differences_sql(name, plan, system, str(baseline),
                                                       weights, dialect=ses.dialect))

    spec_settings = result.settings
    compare_settings = {"system": system, "baseline": baseline, "strata": strata, "correction": correction,
                        "permutations": permutations, "seed": seed, "bootstrap": bootstrap, "resamples": resamples}
    differences = Table(tuple(diff_columns), tuple(tuple(r) for r in diff_rows), spec_settings)
    bounds = {m["name"] for m in plan["metrics"] if "bound_of" in m}
    table = _statistics(table_columns, table_rows, differences, result.account, strata, system, baseline,
                        compare_settings, spec_settings, weighted=weights is not None, bounds=bounds)
    return Comparison(table, differences, result.per_query, result.summary, result.account,
                      {**spec_settings, **compare_settings}, shown)


#: compare's keywords that ppi_compare does not take, and their defaults (any other given is refused with an audit).
_PPI_FREE = {"correction": "holm", "permutations": 10000, "seed": 0, "bootstrap": "percentile", "resamples": 10000,
             "dialect": None, "delimiter": None, "decimal": None, "query_weights": None, "weight_column": "weight"}


def _ppi(runs, judgments, metrics, audit, modes: tuple, given: dict, settings: dict) -> Comparison:
    """compare's hand-over to ppi_compare: ``judgments`` are the model's labels, ``audit`` the humans'."""
    from .ppi import check_hand_over, ppi_compare

    ppi, interval = modes
    check_hand_over("compare", audit, f"ppi={ppi!r}" if ppi is not None else f"interval={interval!r}", given,
                    _PPI_FREE, "differences take the metrics' settings, system=, baseline= and the inputs' formats")
    if isinstance(runs, Mapping) and given["baseline"] is None and runs:
        given["baseline"] = next(iter(runs))
    if given["baseline"] is None:
        raise SettingError("compare: with audit=, name the baseline system (baseline=)")

    return cast(Comparison, ppi_compare(runs, judgments, audit, metrics, baseline=given["baseline"],
                                        system=given["system"], ppi=ppi or "ppi++", interval=interval or "normal",
                                        con=given["con"], run_format=given["run_format"],
                                        judgments_format=given["judgments_format"], **settings))


def _standalone_sql(ses: Session, prepared, union_sql: str | None, system: str, baseline):
    """The paired statement as one statement over the inputs themselves (the per-query statement inlined, the runs'
    union too), so it runs as shown wherever the inputs are: files are read by path. Formatted when read."""
    plan = prepared.plan if union_sql is None else {**prepared.plan, "run": f"({union_sql})", "run_rereadable": False}
    per_query = templates.per_query_sql(plan, False, None, prepared.longest_list, dialect=ses.dialect)
    return FormattedSQL(prepared.shown(templates.paired_sql(f"({per_query})", prepared.plan, system,
                                                  str(baseline), prepared.weights_plan, dialect=ses.dialect)), ses.dialect)


def _few(ids, n: int = 3, counted: bool = True) -> str:
    """A few ids (the first n in order) as messages show them, and how many there are (``counted``: ``ids`` are
    all of them, not the first n + 1 only)."""
    shown = sorted(ids, key=_query_key)
    more = (f", ... ({len(shown):,} in all)" if counted else ", ...") if len(shown) > n else ""
    return ", ".join(sources.brief(i) for i in shown[:n]) + more


def _check_systems(result: Result, baseline, system: str, strata: list[str], query_id: str, queries: str,
                   queries_of) -> list:
    """The systems scored (sorted), once the baseline is one of the run's, every system has a scored query and
    shares one with the baseline (within a stratum): else a comparison of no pairs, every number empty.
    ``queries_of(system)``: a few of that system's query ids in the run."""
    per_query = result.per_query
    keys: dict = {}
    for row in zip(*(per_query.column(c) for c in (system, *strata, query_id))):
        keys.setdefault(row[0], set()).add(row[1:])
    in_run = (result.account.column(system) if system in result.account.columns else list(keys))
    _check_baseline(baseline, sorted(set(in_run) | set(keys), key=_query_key), system)
    named = {str(s): s for s in in_run}
    for s in [named.get(str(baseline), baseline)] + [s for s in named.values() if str(s) != str(baseline)]:
        if s not in keys:
            who = "the baseline" if str(s) == str(baseline) else "system"
            others = "; ".join(f"system {o!r} has {len(k):,} scored ({_few({q[-1] for q in k})})"
                               for o, k in keys.items())
            raise InputError(f"{who} {s!r} has no query scored and so none to pair: none of its queries "
                             f"({_few(queries_of(s), counted=False)}) has judgments, and queries={queries!r} scores only the "
                             f"queries a run shares with the judgments; {others}. The runs answer different query "
                             "sets, or write the ids differently from the judgments (1 and '001', 'Q1' and 'q1')")
    base = keys[named.get(str(baseline), baseline)]
    for s, mine in keys.items():
        if str(s) != str(baseline) and not mine & base:
            within = " within any stratum" if strata else ""
            shown = (lambda k: k[-1]) if not strata else (lambda k: k)
            raise InputError(
                f"system {s!r} and the baseline {baseline!r} share no query{within}, so no query can be paired: "
                f"{s!r} has {len(mine):,} ({_few({shown(k) for k in mine})}), {baseline!r} {len(base):,} "
                f"({_few({shown(k) for k in base})}); the runs answer different query sets, or write the ids "
                "differently (1 and '001', 'Q1' and 'q1')")
    return sorted(keys, key=_query_key)


def _check_baseline(baseline, systems: list, system: str) -> None:
    shown = ", ".join(repr(s) for s in systems)
    if baseline is None:
        raise SettingError(f"compare needs baseline=, the system the others are compared with; the {system!r} "
                           f"column holds {shown}")
    if str(baseline) not in {str(s) for s in systems}:
        raise SettingError(f"baseline={baseline!r} is not a system of the run; the {system!r} column holds {shown}")
    if len(systems) < 2:
        raise SettingError(f"compare needs at least two systems; the {system!r} column holds only {shown}")


def _statistics(columns, rows, differences: Table, account: Table, strata: list[str], system: str, baseline,
                s: dict, spec_settings: dict, weighted: bool = False, bounds=frozenset()) -> Table:
    """The SQL's paired table, with the p-values, bootstrap intervals and the correction added. Weighted: the t
    test on the SQL's weighted moments and effective n, the randomization test and bootstrap of the weighted mean
    (queries of weight 0 take no part in them). ``bounds``: the metrics that are upper bounds (unjudged_bounds),
    corrected as a family of their own, so describing the bounds never weakens the tests of the metrics."""
    by_test: dict[tuple, list[tuple]] = {}
    for r in differences.to_dicts():
        if r["difference"] is None:
            continue
        key = tuple(str(r[g]) for g in strata) + (str(r[system]), r["metric"])
        weight = r["weight"] if weighted else 1.0
        by_test.setdefault(key, []).append((_query_key(r[spec_settings["columns"]["query_id"]]), r["difference"],
                                            weight))
    missing = {}
    for a in account.to_dicts():
        missing[tuple(str(a[g]) for g in strata) + (str(a[system]),)] = a["judged_queries_missing_from_run"]

    records = [dict(zip(columns, r)) for r in rows]
    samples = []  # per record: (differences, weights, how many take part)
    for rec in records:
        key = tuple(str(rec[g]) for g in strata) + (str(rec[system]), rec["metric"])
        found = sorted(by_test.get(key, []), key=lambda item: item[0])
        diffs = [d for _, d, _ in found]
        weights = [w for _, _, w in found] if weighted else None
        n = rec["pairs"]
        assert n == len(diffs), f"{key}: {n} pairs in SQL, {len(diffs)} differences fetched"
        samples.append((diffs, weights, n if weights is None else sum(1 for w in weights if w is not None and w > 0)))
    # Every test in one call each: samples of one size share their sign flips and resamples (the same bits as one
    # call per test).
    tested = [i for i, (_, _, counted) in enumerate(samples) if counted >= 1]
    perm = dict(zip(tested, paired.randomization_tests(
        [samples[i][0] for i in tested], permutations=s["permutations"], seed=s["seed"],
        weights=[samples[i][1] for i in tested])))
    resampled = [i for i, (_, _, counted) in enumerate(samples) if counted >= 2]
    boot = dict(zip(resampled, paired.bootstrap_intervals(
        [samples[i][0] for i in resampled], resamples=s["resamples"], seed=s["seed"], method=s["bootstrap"],
        bounds=[_difference_bounds(records[i]["metric"]) for i in resampled],
        weights=[samples[i][1] for i in resampled])))
    t_ps, perm_ps = [], []
    for i, rec in enumerate(records):
        if rec["effective_pairs"] is not None:
            rec["effective_pairs"] = int(rec["effective_pairs"])
        rec["t_p"] = _t_p(rec["difference"], rec["difference_std"], rec["effective_pairs"])
        rec["randomization_p"] = perm.get(i, math.nan)
        rec["bootstrap_low"], rec["bootstrap_high"] = boot.get(i, (None, None))
        stratum = tuple(str(rec[g]) for g in strata)
        rec["missing_from_run"] = missing.get(stratum + (str(rec[system]),))
        rec["baseline_missing_from_run"] = missing.get(stratum + (str(baseline),))
        t_ps.append(rec["t_p"])
        perm_ps.append(rec["randomization_p"])
    t_adjusted: list[float | None] = [None] * len(records)
    perm_adjusted: list[float | None] = [None] * len(records)
    for family in ([i for i, r in enumerate(records) if r["metric"] not in bounds],
                   [i for i, r in enumerate(records) if r["metric"] in bounds]):
        for ps, adjusted in ((t_ps, t_adjusted), (perm_ps, perm_adjusted)):
            for i, p in zip(family, _adjust([ps[i] for i in family], s["correction"]) if family else []):
                adjusted[i] = p
    out_columns = tuple(strata) + (
        system, "baseline", "metric", "pairs", "effective_pairs", "baseline_mean", "mean", "difference",
        "difference_std", "t_low", "t_high", "bootstrap_low", "bootstrap_high", "bootstrap_method", "relative_change",
        "effect_size", "t_p", "t_p_adjusted", "randomization_p", "randomization_p_adjusted", "correction",
        "wins", "ties", "losses", "only_baseline", "only_system", "missing_from_run", "baseline_missing_from_run",
    )
    out_rows = []
    for rec, ta, pa in zip(records, t_adjusted, perm_adjusted):
        rec["t_p_adjusted"], rec["randomization_p_adjusted"] = ta, pa
        rec["bootstrap_method"], rec["correction"] = s["bootstrap"], s["correction"]
        for k in ("t_p", "randomization_p"):
            if isinstance(rec[k], float) and math.isnan(rec[k]):
                rec[k] = None
        out_rows.append(tuple(rec[c] for c in out_columns))
    return Table(out_columns, tuple(out_rows), spec_settings)


def evaluate_systems(runs, judgments, metrics: Sequence[str] | str = ("ndcg@10",), *, system: str = "system",
                     con=None, dialect: str | None = None, run_format: str | None = None,
                     judgments_format: str | None = None, delimiter: str | None = None, decimal: str | None = None,
                     query_weights=None, weight_column: str = "weight", **settings) -> Result:
    """:func:`sqlndcg.evaluate` of several runs at once, grouped by ``system``: ``runs`` is a dict
    ``{name: run}`` (or one run with a ``system`` column). Used for the NDCG@k curve of the report;
    ``query_weights`` weighs the summary as :func:`sqlndcg.evaluate` does.

    >>> import sqlndcg
    >>> from sqlndcg.verbs.compare import evaluate_systems
    >>> res = evaluate_systems(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@1"], system="tag")
    >>> [r["tag"] for r in res.summary]
    ['bm25', 'rerank']
    """
    settings = dict(settings)
    strata = _group_by(settings, system)
    spec = make_spec(metrics, group_by=[*strata, system], **settings)
    with Session(con, dialect, sources.Reading.of(delimiter, decimal)) as ses:
        run, _ = _systems_input(ses, runs, system, run_format)
        prepared = scoring.prepare(ses, spec, run, judgments, judgments_format=judgments_format,
                                  query_weights=query_weights, weight_column=weight_column)
        return scoring.execute(ses, prepared)
