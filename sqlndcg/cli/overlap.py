"""Command line for the overlap between systems' rankings: ``sqlndcg overlap``, mirroring :func:`sqlndcg.overlap`.

    sqlndcg overlap --run runs.csv --system-column system --baseline bm25 -m rbo@10,jaccard@10 --p 0.9
"""

from __future__ import annotations

import io
import json

from .common import DATABASES, add_setting_flags, database, run_verb, settings_from
from .output import emit_text, write_table

#: The verbs of this module, with their one-line help.
VERBS = {"overlap": "how different each system's rankings are from a baseline's (RBO, Jaccard), no labels needed"}

#: The evaluation settings that mean something for overlap (sql/macros/beyond/overlap.sql).
SETTINGS = ("ties", "short_lists", "lower_is_better", "id_order", "group_by", "query_id", "doc_id", "score", "rank")


def build(name: str, p) -> None:
    """The flags of ``overlap``."""
    p.add_argument("--run", required=True, help="every system's rankings in one run: Parquet, CSV or TSV (or a table "
                   "with --database), a system column telling them apart")
    p.add_argument("--system-column", "--system", dest="system", default="system",
                   help="the column that tells the systems apart (default: system)")
    p.add_argument("--baseline", required=True, help="the system the others are compared with")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="measure, repeatable or comma-separated: rbo@10, rbo_ext@10, jaccard@10, rbo, rbo_ext, "
                        "jaccard (default: rbo@10,jaccard@10)")
    p.add_argument("--p", type=float, default=0.9,
                   help="RBO's persistence, 0 < p < 1: the expected depth read is 1 / (1 - p) (default: 0.9)")
    p.add_argument("--run-format", choices=("parquet", "csv", "tsv"), help="read the run in this format whatever its suffix")
    add_setting_flags(p, only=SETTINGS, helps={"group_by": "a column beyond the system that splits the run (e.g. ds)"})
    p.add_argument("--database", help=f"where the table named by --run lives: {DATABASES}")
    p.add_argument("--per-query", action="store_true", help="print one row per (group, system, query) instead")
    p.add_argument("--account", action="store_true", help="print the account (queries one side lacks, short lists) "
                   "as a table too (csv, json)")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", "-o", help="write to this file instead of standard output")


def _run(args) -> None:
    from ..verbs.overlap import overlap

    metrics = [m.strip() for part in (args.metrics or ["rbo@10,jaccard@10"]) for m in part.split(",") if m.strip()]
    settings = settings_from(args)
    with database(args) as con:
        res = overlap(args.run, baseline=args.baseline, system=args.system, metrics=metrics, p=args.p, con=con,
                      run_format=args.run_format, **settings)
    out = io.StringIO()
    if args.format == "json":
        json.dump(res.to_dict(), out, indent=2, default=str)
        out.write("\n")
    elif args.per_query:
        write_table(res.per_query, args.format if args.format != "text" else "table", out)
    elif args.format == "text":
        out.write(str(res) + "\n")
    else:
        write_table(res.summary, args.format, out)
        if args.account:
            write_table(res.account, args.format, out)
    emit_text(out.getvalue(), args.output)


def run(args) -> int:
    """Run ``sqlndcg overlap``: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
