"""Command line for the judgment tools: ``sqlndcg labels``, ``sqlndcg agreement``, ``sqlndcg aggregate`` and
``sqlndcg positions``, mirroring :func:`sqlndcg.labels_from_events`, :func:`sqlndcg.agreement`,
:func:`sqlndcg.aggregate_labels` and :func:`sqlndcg.positions`.

``build(name, parser)`` adds a verb's flags (those that are evaluation settings generated from their declaration
by :func:`.common.add_setting_flags`); ``run(args)`` runs the chosen one and returns the exit status (2 with one
``sqlndcg: error: ...`` line on a mistake, the traceback with ``--debug``).
"""

from __future__ import annotations

from ..errors import SettingError
from .common import DATABASES, add_setting_flags, add_verb_parser, add_verb_flags, database, run_verb, settings_from
from .output import emit_table, save_table, write_table

#: The verbs of this module, with their one-line help.
VERBS = {
    "labels": "turn an event log into judgments (click=1, purchase=3, watch time, rates)",
    "agreement": "annotator agreement: Cohen's and Fleiss' kappa, Krippendorff's alpha",
    "aggregate": "one label per (query, document) from several annotators",
    "positions": "mean label, gain, share relevant and judged at each rank position",
}
COMMANDS = tuple(VERBS)


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


def _common(p, role_help: str, rel_help: str) -> None:
    add_setting_flags(p, only=("group_by", "query_id", "doc_id", "rel"),
                      helps={"group_by": "grouping column (e.g. ds, system)", "rel": rel_help})
    p.add_argument("--database", help=f"where the tables named by {role_help} live: {DATABASES}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="write the result to this file (.parquet, else CSV) instead of printing it")


def build(name: str, p) -> None:
    """The flags of one judgment verb."""
    if name == "labels":
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
        _common(p, "--events/--impressions", "name of the label column written")
    elif name in ("agreement", "aggregate"):
        p.add_argument("file", nargs="?", help="the ratings (the same as --judgments)")
        p.add_argument("--judgments", help="ratings, one row per (query, document, annotator or label source)")
        p.add_argument("--annotator-column", "--annotator", default="annotator", dest="annotator",
                       help="the column naming who gave each label: an annotator, or a label source (human, a model)")
        if name == "agreement":
            p.add_argument("--between", nargs=2, metavar=("FIRST", "SECOND"),
                           help="compare two label sources (values of the annotator column) on the pairs both labelled")
            p.add_argument("--confusion", action="store_true",
                           help="print the confusion matrix and the per-grade table of each pair of sources")
            p.add_argument("--rank-by", default="alpha_ordinal", help="statistic that ranks the least consistent queries")
            p.add_argument("--least", type=int, default=10, help="how many least consistent queries to list")
            p.add_argument("--per-query", action="store_true", help="print every query's row (else the least consistent)")
            p.add_argument("--pairs", action="store_true", help="print Cohen's kappa per pair of annotators too")
        else:
            p.add_argument("--method", default="majority", help="majority (default), mean or median")
            p.add_argument("--tie", default="lower", help="ties (majority) and even counts (median): lower, higher, mean")
        _common(p, "--judgments", "the ratings' label column")
    else:
        p.add_argument("--run", required=True)
        p.add_argument("--judgments", "--qrels", required=True)
        p.add_argument("-k", type=int, default=10, help="deepest position (default 10)")
        add_setting_flags(p, only=("gain", "threshold", "ties", "lower_is_better", "score", "rank"))
        p.add_argument("--plot", help="draw --plot-column by position into this image file (needs matplotlib)")
        p.add_argument("--plot-column", default="mean_gain")
        _common(p, "--run/--judgments", "relevance label column of the judgments")
    p.set_defaults(judgments_command=name)


def add_commands(subparsers) -> None:
    """Add the judgment verbs, with every flag, to a parser's subparsers."""
    for name, helptext in VERBS.items():
        p = add_verb_parser(subparsers, name, helptext)
        build(name, p)
        add_verb_flags(p)


def _run(args) -> None:
    with database(args) as con:
        _run_in(args, con)


def _run_in(args, con) -> None:
    # (the modules agreement and positions are shadowed by their functions in the package namespace)
    from ..verbs.agreement import aggregate_labels, agreement
    from ..verbs.labels import labels_from_events
    from ..verbs.positions import positions

    common = {"con": con, **settings_from(args)}  # the settings flags this verb has, those given
    command = args.judgments_command
    if command in ("agreement", "aggregate"):
        if args.file and args.judgments and args.file != args.judgments:
            raise SettingError(f"{command}: give the ratings once, as a file or with --judgments, not both")
        args.judgments = args.judgments or args.file
        if not args.judgments:
            raise SettingError(f"{command} needs the ratings: sqlndcg {command} FILE (or --judgments FILE)")
    if command == "labels":
        table = labels_from_events(
            args.events, impressions=args.impressions,
            rules=None if args.rules is None else _pairs("--rules", args.rules, str),
            thresholds=None if args.thresholds is None else _pairs("--thresholds", args.thresholds, float),
            rate=None if args.rate is None else [c.strip() for c in args.rate.split(",")],
            resolve=args.resolve, unknown_events=args.unknown_events, event=args.event, value=args.value,
            time=args.time, **common)
    elif command == "aggregate":
        table = aggregate_labels(args.judgments, method=args.method, tie=args.tie, annotator=args.annotator,
                                 **common)
    elif command == "agreement":
        res = agreement(args.judgments, annotator=args.annotator, between=args.between, rank_by=args.rank_by,
                        **common)
        if args.format == "text":
            print(res.overall.to_text())
            print(f"\nleast consistent queries (by {args.rank_by}):")
        else:
            write_table(res.overall, args.format)
        table = res.per_query if args.per_query else res.least_consistent(args.least)
        write_table(table, args.format)
        if args.pairs:
            write_table(res.pairs, args.format)
        if args.between or args.confusion:
            _print_sources(res, args)
        save_table(res.per_query, args.output)
        return
    else:
        table = positions(args.run, args.judgments, k=args.k, **common)
        if args.plot:
            table.plot(args.plot_column, path=args.plot)
    emit_table(table, args.output, args.format)


def _print_sources(res, args) -> None:
    """With --between: the coverage of each source (and a note when their grade scales differ); with --confusion:
    each pair's confusion matrix and per-grade table (the long tables with --format csv or json)."""
    from ..verbs.sources import confusion_matrices

    text = args.format == "text"
    if text:
        print("\nlabels of each source (shared: the other labelled it too):")
    write_table(res.coverage, args.format)
    if text and res.settings.get("grade_scales"):
        print(f"note: {res.settings['grade_scales']}")
    if not args.confusion:
        return
    if not text:
        write_table(res.confusion, args.format)
        write_table(res.per_grade, args.format)
        return
    for title, matrix in confusion_matrices(res.confusion, res.settings.get("group_by", [])):
        print(f"\nconfusion matrix ({title}):")
        print(matrix.to_text())
    print("\nper grade of the first source (agreement = recall, mean_difference = the second's bias):")
    print(res.per_grade.to_text())


def run(args) -> int:
    """Run the judgment verb ``args`` names: 0 on success, 2 with one error line on stderr on a mistake (the
    traceback with --debug)."""
    return run_verb(_run, args)
