"""Command line for comparisons: ``sqlndcg compare`` and ``sqlndcg report``, mirroring :func:`sqlndcg.compare`
and :func:`sqlndcg.verbs.report.report`.

``build(name, parser)`` adds a verb's flags (the evaluation settings' flags generated from their declaration by
:func:`.common.add_setting_flags`); ``run(args)`` runs the chosen one and returns the exit status (2 with one
``sqlndcg: error: ...`` line on a mistake, the traceback with ``--debug``).

    sqlndcg compare --run bm25=bm25.run --run rerank=rerank.run --qrels q.qrels -m ndcg@10,map --plot diff.png
    sqlndcg compare --run runs.parquet --system system --baseline bm25 --judgments qrels.parquet -m ndcg@10
    sqlndcg compare --run runs.parquet --baseline bm25 --judgments qrels.parquet --query-weights traffic.csv
    sqlndcg report --run runs.run --system tag --baseline bm25 --qrels q.qrels -m ndcg@5,map --output report.html
"""

from __future__ import annotations

import os
import sys

from ..errors import SettingError, SqlndcgError
from .common import (DATABASES, add_file_flags, add_ppi_flags, add_setting_flags, database, file_options_from, run_verb,
                     settings_from)
from .output import write_table

#: The verbs of this module, with their one-line help.
VERBS = {
    "compare": "compare systems with a baseline: paired tests, intervals, plots",
    "report": "write a self-contained HTML report: summary, comparison, plots",
}
COMMANDS = tuple(VERBS)


def _inputs(p) -> None:
    from ..present.plots import MAX_K
    from ..stats.methods import BOOTSTRAPS, CORRECTIONS

    p.add_argument("--run", action="append", required=True, metavar="[NAME=]RUN",
                   help="a run, repeatable: NAME=FILE (or NAME=TABLE with --database) per system, or one run "
                        "holding every system in the --system column")
    p.add_argument("--judgments", "--qrels", required=True, help="judgments: Parquet, CSV, TSV or TREC qrels file")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="metric, repeatable or comma-separated: ndcg@10, p@5, map, mrr@10 ...")
    p.add_argument("--baseline", help="the system the others are compared with (default: the first --run NAME=)")
    p.add_argument("--system", default="system", help="the column that tells the systems apart (default: system)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiple-comparison correction over every reported test: holm, bonferroni (family-wise), "
                        "bh (Benjamini-Hochberg, false discovery rate) or none (default: holm)")
    p.add_argument("--permutations", type=int, default=10000,
                   help="random sign flips of the randomization test (exact enumeration when 2^queries <= this)")
    p.add_argument("--bootstrap", choices=BOOTSTRAPS, default="percentile", help="bootstrap interval method")
    p.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization test and the bootstrap")
    p.add_argument("--query-weights", metavar="FILE",
                   help="query id, weight (and stratum columns): weighted means, interval and tests")
    p.add_argument("--weight-column", default="weight", help="the weight column of --query-weights (default: weight)")
    add_file_flags(p)
    p.add_argument("--database", help=f"where the tables named by --run/--judgments live: {DATABASES}")
    p.add_argument("--max-k", type=int, default=10,
                   help=f"NDCG@1..max-k in the cutoff plot, at most {MAX_K}; 0 for none (default 10)")
    p.add_argument("--time", help="the group column plotted on the x axis over time (default: the --group-by column holding dates)")
    add_setting_flags(p, helps={"group_by": "a stratum column (e.g. ds): queries are paired within each"})


def build(name: str, p) -> None:
    """The flags of ``compare`` or ``report``."""
    _inputs(p)
    if name == "compare":
        p.add_argument("--format", choices=("text", "csv", "json"), default="text")
        p.add_argument("--differences", action="store_true", help="print the per-query differences instead")
        p.add_argument("--plot", metavar="FILE", help="per-query differences against the baseline, .png or .svg")
        p.add_argument("--plot-cutoffs", metavar="FILE", help="NDCG@k against k = 1..--max-k per system, .png or .svg")
        p.add_argument("--plot-time", metavar="FILE", help="every metric over --time (needs --group-by), one line per system, .png or .svg")
        p.add_argument("--fail-if-worse", action="append", metavar="METRIC[:MARGIN]",
                       help="regression gate, repeatable: exit 1 when a system is significantly worse than the "
                            "baseline by more than MARGIN on METRIC (one-sided paired t test, --correction over "
                            "every gated row; docs/compare.md)")
        p.add_argument("--gate-alpha", type=float, default=0.025,
                       help="the gate's one-sided level (default: 0.025, the upper end of the 95%% interval)")
        add_ppi_flags(p)
    else:
        p.add_argument("--output", "-o", required=True, metavar="FILE", help="the HTML file to write")
        p.add_argument("--title", help="the report's title")
    p.set_defaults(compare_command=name)


def _runs(values: list[str], database: bool):
    """``[NAME=]RUN`` values -> a dict of runs, or the one run as it is."""
    named = {}
    for value in values:
        name, sep, path = value.partition("=")
        if sep and name and "/" not in name and os.sep not in name and not os.path.exists(value):
            if name in named:
                raise SettingError(f"--run {value!r}: the name {name!r} is given twice")
            named[name] = path
        elif len(values) == 1:
            return value
        else:
            raise SettingError(f"--run {value!r}: with several runs, name each one: --run NAME=FILE")
    return named


def _settings(args) -> dict:
    out = settings_from(args)
    out.update(metrics=[m.strip() for part in (args.metrics or ["ndcg@10"]) for m in part.split(",") if m.strip()],
               system=args.system, **file_options_from(args))
    if args.query_weights is not None:
        out.update(query_weights=args.query_weights, weight_column=args.weight_column)
    return out


def _compare_settings(args) -> dict:
    return dict(baseline=args.baseline, correction=args.correction, permutations=args.permutations,
                seed=args.seed, bootstrap=args.bootstrap, resamples=args.resamples)


def _max_k(args) -> int:
    """--max-k checked before any work; --plot-cutoffs needs at least 1."""
    from ..present.plots import MAX_K, checked_max_k

    max_k = checked_max_k(args.max_k, "--max-k")
    if getattr(args, "plot_cutoffs", None) and not max_k:
        raise SettingError(f"--plot-cutoffs draws NDCG@1..--max-k: give --max-k from 1 to {MAX_K}, not 0")
    return max_k


def _run(args) -> int | None:
    args.max_k = _max_k(args)
    with database(args) as con:
        return _run_in(args, con)


def _gates(args, metrics: list[str]) -> list[str]:
    """The --fail-if-worse values, checked before anything runs (each on a compared metric)."""
    from ..core.metrics import parse_metrics
    from ..verbs.gate import parse_gate

    gates = getattr(args, "fail_if_worse", None) or []
    if gates and not 0.0 < args.gate_alpha < 1.0:
        raise SettingError(f"--gate-alpha must be between 0 and 1, got {args.gate_alpha}")
    from ..verbs.diversity import is_diversity_metric

    # the diversity measures (alpha_ndcg@10, ...) are named as given; the others as parse_metrics names them
    accuracy = [m for m in metrics if not is_diversity_metric(m)]
    compared = [m for m in metrics if is_diversity_metric(m)] + ([m.name for m in parse_metrics(accuracy)]
                                                                  if accuracy else [])
    for text in gates:
        try:
            metric, _ = parse_gate(text)
        except SqlndcgError as exc:
            raise SettingError(f"--fail-if-worse: {exc}") from None
        if metric not in compared:
            raise SettingError(f"--fail-if-worse {text!r}: {metric} is not among the compared metrics "
                               f"({', '.join(compared)}); add it to -m")
    return gates


def _run_in(args, con) -> int | None:
    from ..present import plots
    from ..verbs.compare import compare, evaluate_systems
    from ..verbs.report import report

    runs = _runs(args.run, bool(args.database))
    settings = _settings(args)
    metrics = settings.pop("metrics")
    if args.compare_command == "report":
        report(runs, args.judgments, metrics, file=args.output, max_k=args.max_k, time=args.time, title=args.title,
               con=con, **settings, **_compare_settings(args))
        print(f"wrote {args.output}")
        return None
    if any(getattr(args, k, None) is not None for k in ("audit", "ppi", "interval")):
        _run_ppi(args, con, runs, metrics, settings)
        return None
    gates = _gates(args, metrics)
    comparison = compare(runs, args.judgments, metrics, con=con, **settings, **_compare_settings(args))
    table = comparison.differences if args.differences else comparison.table
    if args.format == "text" and not args.differences:
        print(comparison)
    else:
        write_table(table, args.format, sys.stdout)
    if args.plot:
        plots.plot_differences(comparison, args.plot)
    if args.plot_cutoffs:
        curve = evaluate_systems(runs, args.judgments, [f"ndcg@{k}" for k in range(1, args.max_k + 1)], con=con,
                                 **settings)
        plots.plot_cutoffs(curve, file=args.plot_cutoffs, system=comparison.settings["system"])
    if args.plot_time:
        if not args.group_by:
            raise SettingError("--plot-time needs results over time: a --group-by column such as ds (and --time ds "
                               "unless it holds dates)")
        plots.plot_over_time(comparison.result, None, args.plot_time, time=args.time,
                             system=comparison.settings["system"])
    if gates:
        return _report_gates(comparison, gates, args.gate_alpha)
    return None


def _run_ppi(args, con, runs, metrics: list[str], settings: dict) -> None:
    """compare --audit: the prediction-powered differences (compare refuses what ppi_compare cannot honour)."""
    from ..verbs.compare import compare

    for flag in ("plot", "plot_cutoffs", "plot_time", "fail_if_worse", "differences"):
        if getattr(args, flag):
            raise SettingError(f"--{flag.replace('_', '-')} is not available with --audit (the prediction-powered "
                               "comparison prints its summary and per-query pairs)")
    ppi = {k: getattr(args, k) for k in ("audit", "ppi", "interval") if getattr(args, k) is not None}
    result = compare(runs, args.judgments, metrics, con=con, **settings, **_compare_settings(args), **ppi)
    if args.format == "text":
        print(result)
    elif args.format == "json":
        import json

        print(json.dumps(result.to_dict(), indent=2, default=str))  # type: ignore[attr-defined]
    else:
        write_table(result.summary, args.format, sys.stdout)


def _report_gates(comparison, gates: list[str], alpha: float) -> int:
    """1 with one line per failing row on stderr when a gate fails (pytest's convention: 1 = checks failed, 2 =
    usage or input error), else 0 with one line saying what passed."""
    from ..verbs.gate import gate

    result = gate(comparison, *gates, alpha=alpha)
    sys.stdout.flush()
    for line in result.reasons():
        print(f"sqlndcg: gate failed: {line}", file=sys.stderr)
    if result.passed:
        print(f"sqlndcg: gates passed: {len(result.rows)} row(s) checked ({', '.join(gates)}; one-sided alpha "
              f"{alpha:g}, {result.correction} correction)", file=sys.stderr)
        return 0
    return 1


def run(args) -> int:
    """Run ``compare`` or ``report``: 0 on success, 1 when a --fail-if-worse gate fails, 2 with one error line on
    stderr on a mistake (the traceback with --debug)."""
    return run_verb(_run, args)


def main(argv=None) -> int:
    """``sqlndcg compare|report ...`` (the main command line, which includes these verbs)."""
    from . import main as sqlndcg_main

    return sqlndcg_main(argv)


if __name__ == "__main__":
    sys.exit(main())
