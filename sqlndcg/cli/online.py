"""Command line for the click tools: ``sqlndcg propensities LOG``, ``sqlndcg click_labels LOG`` and ``sqlndcg
counterfactual LOG --run RUN``, mirroring :func:`sqlndcg.propensities`, :func:`sqlndcg.click_labels` and
:func:`sqlndcg.counterfactual` (docs/online.md).

``build(name, parser)`` adds a verb's flags; ``run(args)`` runs it and returns the exit status (2 with one
``sqlndcg: error: ...`` line on a mistake, the traceback with ``--debug``).
"""

from __future__ import annotations

from .common import DATABASES, database, run_verb
from .output import emit_table

#: The verbs of this module, with their one-line help.
VERBS = {
    "propensities": "position bias from a click log: examination propensity per position (randomized, em, logged)",
    "click_labels": "judgments from a click log, debiased for position (PBM gamma by EM, or clicks / propensity)",
    "counterfactual": "a new ranking's metrics estimated from old clicks (IPS, clipped, SNIPS), with intervals",
}
COMMANDS = tuple(VERBS)
_COLUMNS = ("impression_id", "query_id", "doc_id", "position", "click", "propensity", "randomized", "team")


def build(name: str, p) -> None:
    """The flags of one click verb."""
    p.add_argument("log", help="impression log: Parquet, CSV or TSV file (or a table with --database), one row per "
                               "shown document")
    if name == "counterfactual":
        _build_counterfactual(p)
    elif name == "propensities":
        p.add_argument("--method", default="randomized", help="randomized (default), em or logged")
        p.add_argument("--bootstrap", type=int, default=100, help="em: bootstrap replicates for the interval (0: none)")
        p.add_argument("--seed", type=int, default=0, help="em: the bootstrap's seed")
        p.add_argument("--plot", help="draw the propensities into this image file (.png or .svg; needs matplotlib)")
    else:
        p.add_argument("--method", help="em (default without --propensities) or ips")
        p.add_argument("--propensities", help="ips: a table or file of position, propensity; or 'logged'")
        p.add_argument("--rel", default="rel", help="name of the label column written")
    p.add_argument("--max-position", type=int, help="leave out rows deeper than this position")
    if name == "counterfactual":
        _common_flags(p, name)
        return
    p.add_argument("--iterations", type=int, default=200, help="em: at most this many iterations (default 200)")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="em: stop when no theta(p)/theta(1) moves more than this (default 1e-4)")
    _common_flags(p, name)


def _common_flags(p, name: str) -> None:
    """The flags every click verb has: groups, the log's column names, where the log lives and the output."""
    p.add_argument("--group-by", action="append", default=[], help="grouping column (repeat for several)")
    for column in _COLUMNS:
        p.add_argument(f"--{column.replace('_', '-')}-column", dest=column, default=column,
                       help=f"the log's {column} column (default {column})")
    p.add_argument("--database", help=f"where the table named by LOG lives: {DATABASES}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="write the table to this file (.parquet, else CSV) instead of printing it")
    p.set_defaults(online_command=name)


def _build_counterfactual(p) -> None:
    p.add_argument("--run", required=True, help="the new ranking: query_id, doc_id, score (file or table)")
    p.add_argument("--baseline", help="a second ranking to compare with on the same logs (paired)")
    p.add_argument("--propensities", required=True, help="a table or file of position, propensity; or 'logged'")
    p.add_argument("-m", "--metrics", default="dcg@10",
                   help="comma-separated: dcg@k, dcg, p@k, clicks@k, clicks, rbp, rbp(p=0.8) (default dcg@10)")
    p.add_argument("--estimator", default="ips", help="ips (default), clipped (with --clip) or snips")
    p.add_argument("--clip", type=float, help="clipped: the floor of theta, in (0, 1]")
    p.add_argument("--resample", default="queries", help="the bootstrap resamples queries (default) or impressions")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates for the intervals (0: none)")
    p.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    p.add_argument("--level", type=float, default=0.95, help="the intervals' level (default 0.95)")
    p.add_argument("--score-column", dest="score", default="score", help="the runs' score column (default score)")
    p.add_argument("--per-query", action="store_true", help="print the per-query values instead of the summary")


def _run_counterfactual(args, con):
    from ..verbs.counterfactual import counterfactual

    result = counterfactual(
        args.log, args.run, baseline=args.baseline, propensities=args.propensities,
        metrics=[m for m in args.metrics.split(",") if m.strip()], estimator=args.estimator, clip=args.clip,
        resample=args.resample, bootstrap=args.bootstrap, seed=args.seed, level=args.level,
        max_position=args.max_position, score=args.score, con=con, group_by=args.group_by,
        **{c: getattr(args, c) for c in _COLUMNS})
    if args.per_query:
        return result.per_query
    if args.format == "text" and not args.output:
        print(result)
        return None
    return result.summary


def _run(args) -> None:
    from ..verbs.click_labels import click_labels
    from ..verbs.propensities import propensities

    with database(args) as con:
        if args.online_command == "counterfactual":
            table = _run_counterfactual(args, con)
            if table is not None:
                emit_table(table, args.output, args.format)
            return
        common = {"con": con, "max_position": args.max_position, "iterations": args.iterations,
                  "tolerance": args.tolerance, "group_by": args.group_by, **{c: getattr(args, c) for c in _COLUMNS}}
        if args.online_command == "propensities":
            result = propensities(args.log, method=args.method, bootstrap=args.bootstrap, seed=args.seed, **common)
            table = result.table
            if args.plot:
                result.plot(args.plot)
            if args.format == "text" and not args.output:
                print(result)
                return
        else:
            table = click_labels(args.log, method=args.method, propensities=args.propensities, rel=args.rel, **common)
    emit_table(table, args.output, args.format)


def run(args) -> int:
    """Run the click verb ``args`` names: 0 on success, 2 with one error line on stderr on a mistake."""
    return run_verb(_run, args)
