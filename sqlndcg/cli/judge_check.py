"""Command line for the check before switching from human labels to a model's: ``sqlndcg judge-check``, mirroring
:func:`sqlndcg.judge_check`.

    sqlndcg judge-check runs.parquet judgments.parquet --source source --reference human --candidate llm -m ndcg@10
"""

from __future__ import annotations


from .common import DATABASES, add_setting_flags, database, run_verb, settings_from
from .output import emit_text, result_text

#: The verbs of this module, with their one-line help.
VERBS = {"judge-check": "before switching to model labels: agreement, system order, corrected means, audit size"}


def build(name: str, p) -> None:
    """The flags of ``judge-check``."""
    p.add_argument("runs", help="every system's rankings in one run: Parquet, CSV or TSV (or a table with "
                   "--database), a system column telling them apart")
    p.add_argument("judgments", help="the labels of every source, a source column telling them apart")
    p.add_argument("--source", default="source", help="the judgments' column that tells the label sources apart "
                   "(default: source)")
    p.add_argument("--reference", default="human", help="the people's source, the truth (default: human)")
    p.add_argument("--candidate", help="the model's source (needed when the column holds several besides the "
                   "reference)")
    p.add_argument("--system", default="system", help="the runs' column that tells the systems apart (default: system)")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="metric, repeatable or comma-separated (default: ndcg@10)")
    p.add_argument("--baseline", help="correct each system's difference from this one (ppi_compare) instead of "
                   "each system's mean")
    p.add_argument("--width", type=float, help="also say how many audited queries give a 95%% interval this wide")
    p.add_argument("--ppi", choices=("ppi++", "ppi"), default="ppi++", help="the correction (default: ppi++)")
    p.add_argument("--run-format", choices=("parquet", "csv", "tsv"), help="read the runs in this format")
    p.add_argument("--judgments-format", choices=("parquet", "csv", "tsv"), help="read the judgments in this format")
    add_setting_flags(p, only=("gain", "queries", "query_id", "doc_id", "rel", "score"))
    p.add_argument("--database", help=f"where the tables named by RUNS and JUDGMENTS live: {DATABASES}")
    p.add_argument("--format", choices=("text", "json"), default="text", help="how to print the result")
    p.add_argument("--output", "-o", help="write to this file instead of standard output")


def _run(args) -> None:
    from ..verbs.judge_check import judge_check

    metrics = [m.strip() for part in (args.metrics or ["ndcg@10"]) for m in part.split(",") if m.strip()]
    with database(args) as con:
        res = judge_check(args.runs, args.judgments, metrics, source=args.source, reference=args.reference,
                          candidate=args.candidate, system=args.system, baseline=args.baseline, width=args.width,
                          ppi=args.ppi, con=con, run_format=args.run_format, judgments_format=args.judgments_format,
                          **settings_from(args))
    emit_text(result_text(res, args.format), args.output)


def run(args) -> int:
    """Run ``sqlndcg judge-check``: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
