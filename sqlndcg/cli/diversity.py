"""Command line for the diversity measures: ``sqlndcg diversity`` (:func:`sqlndcg.diversity`, a table) and
``sqlndcg ndeval QRELS RUN``, which prints what ndeval 4.5 (the TREC Web track's program) prints, byte for byte:
its CSV lines ``runid,topic,ERR-IA@5,...`` per topic of the run (in topic order; a topic the qrels lack prints
zeros) and the ``amean`` line, the sums over those lines divided by the topics both files hold (-c: the qrels'
topics). Every number is computed in SQL (sql/macros/diversity/diversity.sql); this module only prints them."""

from __future__ import annotations

import math
import sys

from ..errors import InputError
from .common import DATABASES, database, run_verb
from .output import emit_table

VERBS = {
    "diversity": "intent-aware measures (alpha-nDCG, ERR-IA, P-IA, strec, NRBP, MAP-IA) from qrels with intents",
    "ndeval": "ndeval's output (TREC Web diversity), byte for byte: sqlndcg ndeval QRELS RUN",
}
COMMANDS = tuple(VERBS)

#: ndeval's column names, in its order, and the sqlndcg metric of each.
NDEVAL_COLUMNS = tuple(f"{name}@{k}" for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)) \
    + ("NRBP", "nNRBP", "MAP-IA") + tuple(f"{name}@{k}" for name in ("P-IA", "strec") for k in (5, 10, 20))


def build(name: str, p) -> None:
    """The flags of one diversity verb."""
    if name == "ndeval":
        p.add_argument("qrels", help="TREC diversity qrels: 'topic intent docno judgment'")
        p.add_argument("run", help="TREC run: 'topic Q0 docno rank score tag'")
        p.add_argument("-alpha", "--alpha", type=float, default=0.5, help="redundancy intolerance (default 0.5)")
        p.add_argument("-beta", "--beta", type=float, default=0.5, help="NRBP's patience (default 0.5)")
        p.add_argument("-traditional", "--traditional", action="store_true",
                       help="rank by score, then docno descending (default: by the rank field, as ndeval)")
        p.add_argument("-M", dest="depth", type=int, help="cut each list at this depth")
        p.add_argument("-c", dest="complete", action="store_true", help="average over every qrels topic")
    else:
        p.add_argument("--run", required=True, help="the run: a file or a table with --database")
        p.add_argument("--judgments", required=True, help="judgments with an intent column, or TREC diversity qrels")
        p.add_argument("-m", "--metric", action="append", dest="metrics", help="a measure (alpha_ndcg@10, ...); repeatable")
        p.add_argument("--alpha", type=float, default=0.5, help="redundancy intolerance (default 0.5)")
        p.add_argument("--beta", type=float, default=0.5, help="NRBP's patience (default 0.5)")
        p.add_argument("--intent-column", dest="intent", default="intent", help="the intent column (default: intent)")
        p.add_argument("--database", help=f"where the tables named live: {DATABASES}")
        p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
        p.add_argument("--output", help="write the result to this file (.parquet, else CSV) instead of printing it")


def _topic(text: str) -> int:
    """ndeval's parseTopic: a topic number, after a task prefix ending in '-' (wt09-1 is 1)."""
    digits = text if text[:1].isdigit() else text.partition("-")[2]
    if not digits.isdigit():
        raise InputError(f"run topic {text!r}: ndeval reads topics as numbers (a prefix such as 'wt09-' aside)")
    return int(digits)


def _number(x) -> str:
    """printf's %.6f, and glibc's -nan for ndeval's 0/0."""
    return "-nan" if x is None or (isinstance(x, float) and math.isnan(x)) else "%.6f" % x


def _runid(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.split():
                fields = line.split()
                return fields[5] if len(fields) > 5 else ""
    raise InputError(f'run file "{path}" is empty')


def ndeval_lines(res, runid: str, complete: bool) -> list[str]:
    """ndeval's lines from a diversity result over the run's queries (queries='run', its 21 measures)."""
    from ..verbs.diversity import NDEVAL_METRICS

    rows = sorted(res.table.to_dicts(), key=lambda r: _topic(str(r["query_id"])))
    judged = res.judged_queries if complete else sum(1 for r in rows if r["judged"])
    lines = ["runid,topic," + ",".join(NDEVAL_COLUMNS)]
    totals = [0.0] * len(NDEVAL_METRICS)
    for r in rows:
        values = [float("nan") if r[m] is None else r[m] for m in NDEVAL_METRICS]
        totals = [t + v for t, v in zip(totals, values)]
        lines.append(f"{runid},{_topic(str(r['query_id']))}," + ",".join(_number(v) for v in values))
    means = [t / judged if judged else float("nan") for t in totals]
    lines.append(f"{runid},amean," + ",".join(_number(v) for v in means))
    return lines


def _run(args) -> None:
    from ..verbs.diversity import NDEVAL_METRICS, diversity

    if args.command == "ndeval":
        res = diversity(args.run, args.qrels, metrics=list(NDEVAL_METRICS), alpha=args.alpha, beta=args.beta,
                        depth=args.depth, order_by="score" if args.traditional else "rank", queries="run",
                        run_format="trec_run", judgments_format="trec_diversity")
        sys.stdout.write("".join(line + "\n" for line in ndeval_lines(res, _runid(args.run), args.complete)))
        return
    with database(args) as con:
        res = diversity(args.run, args.judgments, metrics=args.metrics, alpha=args.alpha, beta=args.beta,
                        intent=args.intent, con=con)
    emit_table(res.table, args.output, args.format)


def run(args) -> int:
    """Run the diversity verb ``args`` names: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
