"""Command line for ``sqlndcg power``, mirroring :func:`sqlndcg.power`: how many queries the paired t test
needs to detect a difference (``--difference``), or which difference a number of queries detects
(``--queries``), from a pilot's per-query differences or their standard deviation (``--sd``).

The pilot (``--pilot FILE_OR_TABLE``) is either the output of ``sqlndcg compare --differences --format csv``
(a ``difference`` column; ``--metric`` and ``--candidate`` pick rows when it holds several), or per-query values
of exactly two systems, as ``sqlndcg evaluate --per-query --group-by system --format csv`` writes them (a
``--system`` column, a ``--query-id-column`` column and one column per metric, named by ``--metric``).
"""

from __future__ import annotations

import json
import sys

from ..errors import SettingError
from .common import DATABASES, database, run_verb

#: The verbs of this module, with their one-line help.
VERBS = {"power": "queries needed to detect a difference (or the difference a number of queries detects)"}
COMMANDS = tuple(VERBS)


def build(name: str, p) -> None:
    """The flags of ``power``."""
    p.add_argument("--pilot", metavar="FILE_OR_TABLE",
                   help="per-query differences (sqlndcg compare --differences) or per-query values of two systems")
    p.add_argument("--sd", type=float, help="the standard deviation of the per-query differences, instead of --pilot")
    p.add_argument("-m", "--metric", help="the metric of the pilot to use (a metric column or a value of 'metric')")
    p.add_argument("--difference", type=float, help="the difference to detect (system - baseline, metric's scale)")
    p.add_argument("--queries", type=int, help="a number of queries: print the minimum detectable difference")
    p.add_argument("--alpha", type=float, default=0.05, help="the test's level (default: 0.05)")
    p.add_argument("--power", type=float, default=0.8, help="the chance of detecting the difference (default: 0.8)")
    p.add_argument("--alternative", choices=("two-sided", "larger", "smaller"), default="two-sided",
                   help="the paired t test's alternative (default: two-sided)")
    p.add_argument("--system", default="system", help="the pilot's column that tells the systems apart (default: system)")
    p.add_argument("--candidate", help="the system whose differences to use, when the pilot holds several")
    p.add_argument("--query-id-column", dest="query_id", default="query_id", help="the pilot's query id column (default: query_id)")
    p.add_argument("--pilot-format", choices=("parquet", "csv", "tsv"))
    p.add_argument("--database", help=f"where a table named by --pilot lives: {DATABASES}")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _run(args) -> None:
    from ..verbs.power import power

    if (args.pilot is None) == (args.sd is None):
        raise SettingError("power needs exactly one of --pilot FILE_OR_TABLE and --sd NUMBER")
    if (args.difference is None) == (args.queries is None):
        raise SettingError("power needs exactly one of --difference (queries needed) and --queries (minimum "
                           "detectable difference)")
    with database(args) as con:
        result = power(args.pilot, difference=args.difference, queries=args.queries, sd=args.sd, alpha=args.alpha,
                       power=args.power, alternative=args.alternative, metric=args.metric, system=args.system,
                       candidate=args.candidate, query_id=args.query_id, con=con, pilot_format=args.pilot_format)
    if args.format == "json":
        json.dump(result.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(result)


_FLAGS = {"metric=": "--metric", "candidate=": "--candidate", "difference=": "--difference", "queries=": "--queries",
          "sd=": "--sd", "alpha=": "--alpha", "power=": "--power"}


def _explain(exc, args) -> str:
    """The Python keywords a message names, as this verb's flags."""
    text = f" {exc}"
    for keyword, flag in _FLAGS.items():
        text = text.replace(f" {keyword}", f" {flag} ")
    return text.replace("  ", " ").strip()


def run(args) -> int:
    """Run ``power``: 0, or 2 with one error line on stderr (the traceback with --debug)."""
    return run_verb(_run, args, explain=_explain)
