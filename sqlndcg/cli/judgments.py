"""Command line for the judgment tools: ``sqlndcg labels``, ``sqlndcg agreement``, ``sqlndcg aggregate`` and
``sqlndcg positions``, mirroring :func:`sqlndcg.labels_from_events`, :func:`sqlndcg.agreement`,
:func:`sqlndcg.aggregate_labels` and :func:`sqlndcg.positions`.

``add_commands(subparsers)`` adds the verbs to the main parser; ``run(args)`` runs the chosen one and returns the
exit status (2 with one ``sqlndcg: error: ...`` line on a mistake).
"""

from __future__ import annotations

import csv
import json
import sys

from ..errors import SettingError

COMMANDS = ("labels", "agreement", "aggregate", "positions")


def _pairs(flag: str, text: str, key) -> dict:
    """``a:1,b:2`` -> {a: 1.0, b: 2.0}, keys converted by `key`."""
    try:
        out = {}
        for pair in text.split(","):
            name, value = pair.rsplit(":", 1)
            out[key(name.strip())] = float(value)
        return out
    except ValueError:
        raise SettingError(f"{flag} {text!r}: write it as a list of name:grade pairs, e.g. "
                           + ("click:1,add_to_cart:2,purchase:3" if key is str else "60:1,180:2")) from None


def _gain(text: str | None):
    if text is None or text in ("exponential", "linear"):
        return text
    return _pairs("--gain", text, float)


def _common(p, role_help: str) -> None:
    p.add_argument("--group-by", action="append", default=[], help="grouping column, repeatable (e.g. ds, system)")
    p.add_argument("--query-id-column", default="query_id", dest="query_id", help="query id column")
    p.add_argument("--doc-id-column", default="doc_id", dest="doc_id", help="document id column")
    p.add_argument("--database", help=f"a DuckDB database file holding the tables named by {role_help}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="also write the result to this file (.csv, or .parquet)")


def add_commands(subparsers) -> None:
    """Add the judgment verbs to the ``sqlndcg`` parser's subparsers."""
    p = subparsers.add_parser("labels", help="turn an event log into judgments (click=1, purchase=3, watch time, rates)")
    p.add_argument("--events", required=True, help="event log: Parquet, CSV or TSV file (or a table with --database)")
    p.add_argument("--impressions", help="shown documents (query, document, group columns): labelled 0 without events")
    p.add_argument("--rules", help="event grades, e.g. click:1,add_to_cart:2,purchase:3")
    p.add_argument("--thresholds", help="grades of a measured value strictly above each threshold, e.g. 60:1,180:2")
    p.add_argument("--rate", help="numerator,denominator columns: the label is their ratio of sums")
    p.add_argument("--resolve", default="strongest", help="repeated events: strongest (default), most_frequent, latest")
    p.add_argument("--unknown-events", default="error", help="event types the rules lack: error (default) or ignore")
    p.add_argument("--event-column", default="event", dest="event")
    p.add_argument("--value-column", default="value", dest="value")
    p.add_argument("--time-column", dest="time", help="orders events for --resolve latest")
    p.add_argument("--rel-column", default="rel", dest="rel", help="name of the label column written")
    _common(p, "--events/--impressions")
    p.set_defaults(judgments_command="labels")

    for name, helptext in (("agreement", "annotator agreement: Cohen's and Fleiss' kappa, Krippendorff's alpha"),
                           ("aggregate", "one label per (query, document) from several annotators")):
        p = subparsers.add_parser(name, help=helptext)
        p.add_argument("--judgments", required=True, help="ratings, one row per (query, document, annotator)")
        p.add_argument("--annotator-column", default="annotator", dest="annotator")
        p.add_argument("--rel-column", default="rel", dest="rel")
        if name == "agreement":
            p.add_argument("--rank-by", default="alpha_ordinal", help="statistic that ranks the least consistent queries")
            p.add_argument("--least", type=int, default=10, help="how many least consistent queries to list")
            p.add_argument("--per-query", action="store_true", help="print every query's row (else the least consistent)")
            p.add_argument("--pairs", action="store_true", help="print Cohen's kappa per pair of annotators too")
        else:
            p.add_argument("--method", default="majority", help="majority (default), mean or median")
            p.add_argument("--tie", default="lower", help="ties (majority) and even counts (median): lower, higher, mean")
        _common(p, "--judgments")
        p.set_defaults(judgments_command=name)

    p = subparsers.add_parser("positions", help="mean label, gain, share relevant and judged at each rank position")
    p.add_argument("--run", required=True)
    p.add_argument("--judgments", "--qrels", required=True)
    p.add_argument("-k", type=int, default=10, help="deepest position (default 10)")
    p.add_argument("--gain", help="exponential (default), linear, or a map 1:1,2:3,3:7")
    p.add_argument("--threshold", type=float, help="label from which a document is relevant (default 1)")
    p.add_argument("--ties", help="doc_id (default), average or rank")
    p.add_argument("--score-column", default="score", dest="score")
    p.add_argument("--rank-column", default="rank", dest="rank")
    p.add_argument("--rel-column", default="rel", dest="rel")
    p.add_argument("--plot", help="draw --plot-column by position into this image file (needs matplotlib)")
    p.add_argument("--plot-column", default="mean_gain")
    _common(p, "--run/--judgments")
    p.set_defaults(judgments_command="positions")


def _write(table, fmt: str, out=None) -> None:
    out = out or sys.stdout
    if fmt == "csv":
        writer = csv.writer(out)
        writer.writerow(table.columns)
        writer.writerows(table.rows)
    elif fmt == "json":
        json.dump(table.to_dicts(), out, indent=2, default=str)
        out.write("\n")
    else:
        out.write(table.to_text(max_rows=10**9) + "\n")


def _save(table, path: str | None) -> None:
    if not path:
        return
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        pq.write_table(table.to_arrow(), path)
    else:
        with open(path, "w", newline="", encoding="utf-8") as f:
            _write(table, "csv", f)


def _run(args, con) -> None:
    # (the modules agreement and positions are shadowed by their functions in the package namespace)
    from ..verbs.agreement import aggregate_labels, agreement
    from ..verbs.labels import labels_from_events
    from ..verbs.positions import positions

    common = {"group_by": args.group_by, "query_id": args.query_id, "doc_id": args.doc_id, "con": con}
    command = args.judgments_command
    if command == "labels":
        table = labels_from_events(
            args.events, impressions=args.impressions,
            rules=None if args.rules is None else _pairs("--rules", args.rules, str),
            thresholds=None if args.thresholds is None else _pairs("--thresholds", args.thresholds, float),
            rate=None if args.rate is None else [c.strip() for c in args.rate.split(",")],
            resolve=args.resolve, unknown_events=args.unknown_events, event=args.event, value=args.value,
            time=args.time, rel=args.rel, **common)
    elif command == "aggregate":
        table = aggregate_labels(args.judgments, method=args.method, tie=args.tie,
                                           annotator=args.annotator, rel=args.rel, **common)
    elif command == "agreement":
        res = agreement(args.judgments, annotator=args.annotator, rel=args.rel, rank_by=args.rank_by,
                                  **common)
        if args.format == "text":
            print(res.overall.to_text())
            print(f"\nleast consistent queries (by {args.rank_by}):")
        else:
            _write(res.overall, args.format)
        table = res.per_query if args.per_query else res.least_consistent(args.least)
        _write(table, args.format)
        if args.pairs:
            _write(res.pairs, args.format)
        _save(res.per_query, args.output)
        return
    else:
        table = positions(
            args.run, args.judgments, k=args.k, gain=_gain(args.gain), threshold=args.threshold, ties=args.ties,
            score=args.score, rank=args.rank, rel=args.rel, **common)
        if args.plot:
            table.plot(args.plot_column, path=args.plot)
    _write(table, args.format)
    _save(table, args.output)


def run(args) -> int:
    """Run the verb ``add_commands`` added; 0 on success, 2 (with one error line on stderr) on a mistake."""
    from ..run.connect import run_verb

    return run_verb(_run, args)
