"""Command line for whether label sources rank systems the same way: ``sqlndcg system-order``, mirroring
:func:`sqlndcg.system_order`.

    sqlndcg system-order runs.parquet judgments.parquet --source source --reference human -m ndcg@10
"""

from __future__ import annotations


from .common import DATABASES, add_setting_flags, database, run_verb, settings_from
from .output import emit_text, result_text

#: The verbs of this module, with their one-line help.
VERBS = {"system-order": "whether model labels rank systems as human labels do: Kendall's tau, tau-AP, flipped pairs"}


def build(name: str, p) -> None:
    """The flags of ``system-order``."""
    p.add_argument("runs", help="every system's rankings in one run: Parquet, CSV or TSV (or a table with "
                   "--database), a system column telling them apart")
    p.add_argument("judgments", help="the labels of every source, a source column telling them apart")
    p.add_argument("--system", default="system", help="the runs' column that tells the systems apart (default: system)")
    p.add_argument("--source", default="source", help="the judgments' column that tells the label sources apart "
                   "(default: source)")
    p.add_argument("--reference", default="human", help="the source whose order is the truth (default: human)")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="metric, repeatable or comma-separated (default: ndcg@10)")
    p.add_argument("--test", choices=("t", "randomization"), default="t",
                   help="compare's paired test whose p-values the flips show (default: t)")
    p.add_argument("--query-set", choices=("shared", "own"), default="shared",
                   help="shared: every source on the queries every source judged (default); own: each its own")
    p.add_argument("--run-format", choices=("parquet", "csv", "tsv"), help="read the runs in this format")
    p.add_argument("--judgments-format", choices=("parquet", "csv", "tsv"), help="read the judgments in this format")
    add_setting_flags(p, only=("group_by", "gain", "queries", "query_id", "doc_id", "rel", "score"),
                      helps={"group_by": "a column beyond the system that splits the runs (e.g. ds)"})
    p.add_argument("--database", help=f"where the tables named by RUNS and JUDGMENTS live: {DATABASES}")
    p.add_argument("--table", choices=("correlation", "flips", "means"), default="correlation",
                   help="the table --format csv prints (default: correlation)")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", "-o", help="write to this file instead of standard output")


def _run(args) -> None:
    from ..verbs.system_order import system_order

    metrics = [m.strip() for part in (args.metrics or ["ndcg@10"]) for m in part.split(",") if m.strip()]
    with database(args) as con:
        res = system_order(args.runs, args.judgments, metrics, source=args.source, reference=args.reference,
                           system=args.system, test=args.test, query_set=args.query_set, con=con,
                           run_format=args.run_format, judgments_format=args.judgments_format, **settings_from(args))
    emit_text(result_text(res, args.format, getattr(res, args.table)), args.output)


def run(args) -> int:
    """Run ``sqlndcg system-order``: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
