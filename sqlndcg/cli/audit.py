"""Command line for the audit tools, mirroring :func:`sqlndcg.audit_sample` and :func:`sqlndcg.audit_size`:

    sqlndcg audit-sample --queries queries.csv --budget 50 --strata market --seed 7
    sqlndcg audit-sample --queries runs.csv --model-labels llm.qrels --by disagreement -m ndcg@10 --budget 50
    sqlndcg audit-size --width 0.05 --queries 5000 --sd-human 0.3 --sd-model 0.3 --correlation 0.8
    sqlndcg audit-size --width 0.05 --pilot pairs.csv     (ppi_evaluate's per-query pairs)
"""

from __future__ import annotations

import sys

from .common import DATABASES, add_setting_flags, database, run_verb, settings_from
from .output import emit_text, result_text

#: The verbs of this module, with their one-line help.
VERBS = {"audit-sample": "a stratified, seeded sample of queries to send to human judges",
         "audit-size": "how many audited queries a prediction-powered interval of a given width needs"}


#: The evaluation settings that apply to the model-labelled metric.
SETTINGS = ("preset", "gain", "ties", "threshold", "doc_id", "score", "rel")


def build(name: str, p) -> None:
    """The flags of ``audit-sample`` or ``audit-size``."""
    if name == "audit-size":
        _build_size(p)
        return
    p.add_argument("--queries", "--run", dest="queries", required=True,
                   help="the queries (a query id column and the strata columns), or with --model-labels a run "
                        "(Parquet, CSV, TSV, or a table with --database)")
    p.add_argument("--budget", type=int, required=True, help="how many queries to draw")
    p.add_argument("--strata", action="append", help="a segment column of the queries (repeatable)")
    p.add_argument("--by", choices=("segment", "disagreement"), help="strata by the segment columns, or by how far "
                   "the systems' model-labelled metric differs per query (needs --model-labels)")
    p.add_argument("--bins", type=int, default=4, help="disagreement strata: quantile bins (default: 4)")
    p.add_argument("--allocation", choices=("proportional", "neyman"), default="proportional",
                   help="proportional to the strata's sizes (default), or Neyman (size x sd of the model metric)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the draw (default: 0)")
    p.add_argument("--audited", help="queries already audited (a query id column, e.g. their judgments): skipped")
    p.add_argument("--model-labels", help="the model's judgments: the run is scored with them on --metric")
    p.add_argument("-m", "--metric", default="ndcg@10", help="the model-labelled metric (default: ndcg@10)")
    p.add_argument("--system-column", dest="system", default="system", help="the run's system column (default: system)")
    p.add_argument("--query-id-column", dest="query_id", default="query_id", help="the query id column (default: query_id)")
    add_setting_flags(p, only=SETTINGS)
    p.add_argument("--database", help=f"where the tables named by --queries, --audited, --model-labels live: {DATABASES}")
    p.add_argument("--strata-table", action="store_true", help="csv/json: print the per-stratum table instead")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", "-o", help="write to this file instead of standard output")


def _build_size(p) -> None:
    p.add_argument("--width", type=float, required=True, help="the interval's full width (high - low), metric's scale")
    p.add_argument("--pilot", metavar="FILE_OR_TABLE", help="ppi_evaluate's per-query pairs (metric, model_value, "
                   "human_value, audited)")
    p.add_argument("--queries", type=int, help="queries evaluated, audited or not (default: the pilot's)")
    p.add_argument("--ppi", choices=("ppi", "ppi++"), help="lam = 1, or the power-tuned lam (default: ppi++)")
    p.add_argument("-m", "--metric", help="the pilot's metric, when it holds several")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - the interval's level (default: 0.05)")
    p.add_argument("--sd-human", type=float, help="sd of the human per-query values (instead of --pilot)")
    p.add_argument("--sd-model", type=float, help="sd of the model per-query values")
    p.add_argument("--correlation", type=float, help="correlation of the human and model per-query values")
    p.add_argument("--sd-rectifier", type=float, help="sd of Y - lam Yh, with --lam (a fixed lam)")
    p.add_argument("--lam", type=float, help="a fixed lam, with --sd-rectifier")
    p.add_argument("--pilot-format", choices=("parquet", "csv", "tsv"))
    p.add_argument("--database", help=f"where a table named by --pilot lives: {DATABASES}")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _sample(args) -> None:
    from ..verbs.audit import audit_sample

    with database(args) as con:
        res = audit_sample(args.queries, args.budget, strata=args.strata, by=args.by, bins=args.bins,
                           allocation=args.allocation, seed=args.seed, audited=args.audited,
                           model_labels=args.model_labels, metric=args.metric, system=args.system,
                           query_id=args.query_id, con=con,
                           **{k: v for k, v in settings_from(args).items() if k in SETTINGS})
    emit_text(result_text(res, args.format, res.strata if args.strata_table else res.sample), args.output)
    for w in res.warnings if args.format != "text" else []:
        print(f"sqlndcg: warning: {w}", file=sys.stderr)


def _size(args) -> None:
    from ..verbs.audit_size import audit_size

    with database(args) as con:
        res = audit_size(args.pilot, width=args.width, queries=args.queries, ppi=args.ppi, metric=args.metric,
                         alpha=args.alpha, sd_human=args.sd_human, sd_model=args.sd_model,
                         correlation=args.correlation, sd_rectifier=args.sd_rectifier, lam=args.lam, con=con,
                         pilot_format=args.pilot_format)
    sys.stdout.write(result_text(res, args.format))


_FLAGS = {"budget=": "--budget", "strata=": "--strata", "by=": "--by", "bins=": "--bins", "allocation=": "--allocation",
          "seed=": "--seed", "model_labels=": "--model-labels", "metric=": "--metric", "system=": "--system-column",
          "width=": "--width", "queries=": "--queries", "sd_human=": "--sd-human", "sd_model=": "--sd-model",
          "correlation=": "--correlation", "sd_rectifier=": "--sd-rectifier", "lam=": "--lam", "pilot=": "--pilot",
          "alpha=": "--alpha"}


def _explain(exc, args) -> str:
    """The Python keywords a message names, as this verb's flags."""
    text = f" {exc}"
    for keyword, flag in _FLAGS.items():
        text = text.replace(f" {keyword}", f" {flag} ").replace(f"({keyword}", f"({flag} ")
    return text.replace("  ", " ").strip()


def run(args) -> int:
    """Run ``audit-sample`` or ``audit-size``: 0, or 2 with one error line on stderr (the traceback with --debug)."""
    return run_verb(_size if args.command == "audit-size" else _sample, args, explain=_explain)
