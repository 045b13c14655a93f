"""Command line for the click tools: ``sqlndcg propensities LOG`` and ``sqlndcg click_labels LOG``, mirroring
:func:`sqlndcg.propensities` and :func:`sqlndcg.click_labels` (docs/online.md).

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
}
COMMANDS = tuple(VERBS)
_COLUMNS = ("impression_id", "query_id", "doc_id", "position", "click", "propensity", "randomized", "team")


def build(name: str, p) -> None:
    """The flags of one click verb."""
    p.add_argument("log", help="impression log: Parquet, CSV or TSV file (or a table with --database), one row per "
                               "shown document")
    if name == "propensities":
        p.add_argument("--method", default="randomized", help="randomized (default), em or logged")
        p.add_argument("--bootstrap", type=int, default=100, help="em: bootstrap replicates for the interval (0: none)")
        p.add_argument("--seed", type=int, default=0, help="em: the bootstrap's seed")
        p.add_argument("--plot", help="draw the propensities into this image file (.png or .svg; needs matplotlib)")
    else:
        p.add_argument("--method", help="em (default without --propensities) or ips")
        p.add_argument("--propensities", help="ips: a table or file of position, propensity; or 'logged'")
        p.add_argument("--rel", default="rel", help="name of the label column written")
    p.add_argument("--max-position", type=int, help="leave out rows deeper than this position")
    p.add_argument("--iterations", type=int, default=200, help="em: at most this many iterations (default 200)")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="em: stop when no theta(p)/theta(1) moves more than this (default 1e-4)")
    p.add_argument("--group-by", action="append", default=[], help="grouping column (repeat for several)")
    for column in _COLUMNS:
        p.add_argument(f"--{column.replace('_', '-')}-column", dest=column, default=column,
                       help=f"the log's {column} column (default {column})")
    p.add_argument("--database", help=f"where the table named by LOG lives: {DATABASES}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="write the table to this file (.parquet, else CSV) instead of printing it")
    p.set_defaults(online_command=name)


def _run(args) -> None:
    from ..verbs.click_labels import click_labels
    from ..verbs.propensities import propensities

    with database(args) as con:
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
