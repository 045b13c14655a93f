"""Command line for team-draft interleaving: ``sqlndcg interleave``, ``sqlndcg multileave`` and
``sqlndcg interleaving_credit``, mirroring :func:`sqlndcg.interleave`, :func:`sqlndcg.multileave` and
:func:`sqlndcg.interleaving_credit`."""

from __future__ import annotations


from ..errors import SettingError
from .common import DATABASES, database, run_verb
from .output import emit_table, write_table

#: The verbs of this module, with their one-line help.
VERBS = {
    "interleave": "team-draft interleaved lists of two runs, reproducible from a seed",
    "multileave": "team-draft multileaved lists of 2 to 9 runs, reproducible from a seed",
    "interleaving_credit": "wins, ties, preference, sign test and interval from interleaved clicks",
}
COMMANDS = tuple(VERBS)

_COLUMNS = {"interleave": ("query_id", "doc_id", "score", "impression_id"),
            "multileave": ("query_id", "doc_id", "score", "impression_id"),
            "interleaving_credit": ("impression_id", "query_id", "doc_id", "position", "click", "team")}


def build(name: str, p) -> None:
    """The flags of one interleaving verb."""
    if name in ("interleave", "multileave"):
        if name == "interleave":
            p.add_argument("--run-a", required=True, help="ranker A's run: Parquet, CSV or TSV (or a table with --database)")
            p.add_argument("--run-b", required=True, help="ranker B's run")
        else:
            p.add_argument("--run", action="append", required=True, metavar="NAME=RUN",
                           help="a named run (file or table), repeated for each of 2 to 9 runs")
        p.add_argument("--impressions", help="impression_id, query_id: one list per impression (else per query)")
        p.add_argument("-k", type=int, default=10, help="length of the interleaved lists (default 10)")
        p.add_argument("--seed", type=int, default=0, help="the seed of the coin flips (default 0)")
    else:
        p.add_argument("--log", required=True, help="impression log with a team column: Parquet, CSV or TSV (or a table)")
        p.add_argument("--no-clicks", choices=("tie", "drop"), default="tie",
                       help="impressions without clicks: ties (default) or left out")
        p.add_argument("--teams", help="a multileaved log's team names, comma-separated: credit per pair of them")
        p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of the interval (default 1000)")
        p.add_argument("--seed", type=int, default=0, help="the seed of the bootstrap (default 0)")
        p.add_argument("--group-by", action="append", default=[], help="grouping column (e.g. ds, segment); repeatable")
        p.add_argument("--account", action="store_true", help="print the account (impressions read, left out) too")
    for column in _COLUMNS[name]:
        p.add_argument(f"--{column.replace('_', '-')}-column", dest=column, default=column,
                       help=f"the {column} column (default: {column})")
    p.add_argument("--database", help=f"where the tables named live: {DATABASES}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="write the result to this file (.parquet, else CSV) instead of printing it")


def _run(args) -> None:
    from ..verbs.interleaving import interleave, interleaving_credit, multileave

    columns = {c: getattr(args, c) for c in _COLUMNS[args.command]}
    with database(args) as con:
        if args.command == "interleave":
            res = interleave(args.run_a, args.run_b, k=args.k, seed=args.seed, impressions=args.impressions, con=con,
                             **columns)
        elif args.command == "multileave":
            res = multileave(_named_runs(args.run), k=args.k, seed=args.seed, impressions=args.impressions, con=con,
                             **columns)
        else:
            teams = None if args.teams is None else [t.strip() for t in args.teams.split(",")]
            res = interleaving_credit(args.log, no_clicks=args.no_clicks, teams=teams, bootstrap=args.bootstrap,
                                      seed=args.seed, group_by=args.group_by, con=con, **columns)
    emit_table(res.table, args.output, args.format)
    if getattr(args, "account", False) and not args.output:
        write_table(res.account, args.format)


def _named_runs(given: list[str]) -> dict[str, str]:
    """``["bm25=bm25.csv", ...]`` -> {"bm25": "bm25.csv", ...}; a run without a name or named twice is refused."""
    runs: dict[str, str] = {}
    for item in given:
        name, sep, run = item.partition("=")
        if not sep or not name or not run or name in runs:
            raise SettingError(f"--run {item!r}: give each run as NAME=FILE_OR_TABLE, each name once "
                               "(e.g. --run bm25=bm25.csv --run dense=dense.csv --run hybrid=hybrid.csv)")
        runs[name] = run
    return runs


def run(args) -> int:
    """Run the interleaving verb ``args`` names: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
