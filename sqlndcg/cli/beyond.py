"""Command line for the beyond-accuracy measures: ``sqlndcg beyond`` (:func:`sqlndcg.beyond_accuracy`): per group
the lists, coverage, gini and the per-list measures' means with their intervals (``--per-list``: a row per list).
Every number is computed in SQL (sql/macros/beyond/catalog.sql); this module only prints them."""

from __future__ import annotations


from .common import DATABASES, database, run_verb
from .output import emit_table

VERBS = {
    "beyond": "beyond-accuracy measures of lists (coverage, gini, novelty, ild, long_tail) from a run and an items table",
}
COMMANDS = tuple(VERBS)


def build(name: str, p) -> None:
    """The flags of ``sqlndcg beyond``."""
    p.add_argument("--run", required=True, help="the run (query_id, doc_id, score): a file or a table with --database")
    p.add_argument("--items", required=True, help="the items table (doc_id, category, popularity): a file or a table")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="measures, comma-separated (coverage@10,gini@10,novelty@10,ild@10,long_tail@10); repeatable")
    p.add_argument("--group-by", action="append", dest="group_by", help="a group column (system, ...); repeatable")
    p.add_argument("--head-share", type=float, default=0.2, help="the short head's share of the catalog (default 0.2)")
    p.add_argument("--category-column", dest="category", default="category", help="the items' category column")
    p.add_argument("--popularity-column", dest="popularity", default="popularity", help="the items' popularity column")
    p.add_argument("--per-list", action="store_true", help="print a row per list (the per-list measures)")
    p.add_argument("--database", help=f"where the tables named live: {DATABASES}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="write the result to this file (.parquet, else CSV) instead of printing it")


def _run(args) -> None:
    from ..verbs.beyond import beyond_accuracy

    metrics = [m.strip() for given in (args.metrics or ["coverage@10,gini@10"]) for m in given.split(",") if m.strip()]
    with database(args) as con:
        res = beyond_accuracy(args.run, args.items, metrics=metrics, group_by=args.group_by,
                              head_share=args.head_share, category=args.category, popularity=args.popularity,
                              con=con)
    table = res.per_query if args.per_list else res.summary
    emit_table(table, args.output, args.format)


def run(args) -> int:
    """Run ``sqlndcg beyond``: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
