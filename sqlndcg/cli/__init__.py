"""Command line: ``sqlndcg evaluate``, ``sqlndcg sql`` (mirroring :func:`evaluate` and :func:`to_sql`),
``sqlndcg trec_eval`` (trec_eval's own command line, computed in SQL), and the verbs of :mod:`.compare` and
:mod:`.judgments`.

One package, one way for everything every verb shares (:mod:`.common`): the settings flags are generated from the
one declaration of the settings (``_settings_declared()`` in ``sql/macros/spec/settings.sql``), so a setting added there
is a flag of every verb that takes settings; one table writer (:mod:`.output`); every error is one line on
standard error and exit status 2, the traceback only with ``--debug``.

Only the parser of the verb named on the command line is built, and nothing heavy is imported before a verb
runs, so ``sqlndcg --help`` renders no template and imports no engine.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from typing import Protocol

from .. import __version__
from ..errors import SettingError, SqlndcgError
from . import audit as cli_audit
from . import compare as cli_compare
from . import explain as cli_explain
from . import fairness as cli_fairness
from . import interleaving as cli_interleaving
from . import beyond as cli_beyond
from . import diversity as cli_diversity
from . import judge_check as cli_judge_check
from . import judgments as cli_judgments
from . import online as cli_online
from . import overlap as cli_overlap
from . import power as cli_power
from . import system_order as cli_system_order
from .common import (DATABASES, add_file_flags, add_memory_flags, add_ppi_flags, add_verb_parser, add_setting_flags,
                     add_verb_flags, file_options_from, flag_of, run_verb, settings_from)
from .output import write_table

__all__ = ["main", "flag_of", "parser_for"]

FORMATS = ("table", "tsv", "csv", "json", "parquet")

#: The verbs of this module, with their one-line help.
VERBS = {
    "evaluate": "compute metrics and print them",
    "sql": "print the SQL instead",
    "trec_eval": "trec_eval's command line and output, computed in SQL",
}


class _Parser(argparse.ArgumentParser):
    """argparse with sqlndcg's way of failing: one line naming the flag, what it allows and where to read more,
    exit status 2, never the whole usage (the verbs' parsers are of this class too)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _build_evaluate(p, name: str) -> None:
    p.add_argument("--run", required=True, action="append" if name == "evaluate" else "store",
                   help="run: Parquet, CSV, TSV or TREC run file (or a table with --database)"
                   + ("; repeat for several runs, one block each" if name == "evaluate" else ""))
    p.add_argument("--judgments", "--qrels", required=True, help="judgments: Parquet, CSV, TSV or TREC qrels file (or a table with --database)")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="metric, repeatable or comma-separated: ndcg@10, p@5, map, mrr@10, P(rel=2)@5, rbp(p=0.95) ...")
    add_setting_flags(p)
    add_file_flags(p)
    p.add_argument("--database", help=f"where the tables named by --run/--judgments live: {DATABASES}")
    add_memory_flags(p)
    if name == "evaluate":
        p.add_argument("--per-query", action="store_true", help="print one row per query too (csv/tsv/parquet: only those)")
        p.add_argument("--format", choices=FORMATS + ("text",), default="table",
                       help="table (default), tsv, csv, json (summary, per-query rows, settings and account), parquet")
        p.add_argument("--output", "-o", help="write to this file instead of standard output")
        p.add_argument("--bootstrap", choices=("percentile", "bca"),
                       help="add a seeded bootstrap interval beside the t interval")
        p.add_argument("--seed", type=int, default=0, help="the seed of the bootstrap and of --sample (default 0)")
        p.add_argument("--sample", type=float, metavar="FRACTION",
                       help="score only this share of the queries (0 < FRACTION <= 1), chosen by a hash of the query id "
                       "and --seed (the same queries on every engine); intervals with the finite-population correction")
        p.add_argument("--query-weights", help="query id, weight (and group columns): a weighted summary")
        p.add_argument("--weight-column", help="the weight column of --query-weights (default: weight)")
        p.add_argument("--partitions", type=int, help="evaluate the queries in N disjoint buckets, one pass "
                       "each (same numbers; for inputs larger than memory)")
        add_ppi_flags(p)
    else:
        p.add_argument("--dialect", default="duckdb", help="target SQL dialect (any sqlglot dialect)")
        p.add_argument("--id-type", choices=("text", "integer"),
                       help="without --database, what the id columns hold (default text: ids compared as text "
                            "in byte order; integer: numeric tie order)")


def _build_trec_eval(t) -> None:
    t.description = ("trec_eval [-q] [-c] [-n] [-l N] [-M N] [-J] [-N N] [-m MEASURE[.PARAMS]]... "
                     "[--trec-eval-version 10|9] [--database URL] QRELS RUN: prints what trec_eval "
                     "10.0 prints; --trec-eval-version 9 prints what trec_eval 9.x (pytrec_eval) does")
    # trec_eval's own flags (-M, -J, -l), not the settings': it reproduces trec_eval's command line
    t.add_argument("-q", dest="per_query", action="store_true", help="print every query's values, then the summary")
    t.add_argument("-c", dest="complete", action="store_true",
                   help="average over every judged query (a query missing from the run scores 0)")
    t.add_argument("-n", dest="no_summary", action="store_true", help="no summary (the 'all' lines)")
    t.add_argument("-l", dest="level", type=int, default=1, help="the relevance level: labels >= it are relevant")
    t.add_argument("-M", dest="depth", type=int, help="evaluate only the top N documents of each query")
    t.add_argument("-J", dest="judged_only", action="store_true", help="drop unjudged documents before ranking")
    t.add_argument("-N", dest="collection_size", type=int, default=0, help="documents in the collection (utility)")
    t.add_argument("-m", dest="measures", action="append", default=[],
                   help="measure, family.params or nickname (official, all_trec, set); repeatable")
    t.add_argument("--trec-eval-version", dest="trec_eval_version", default="10", metavar="{10,9}",
                   help="the trec_eval to reproduce: 10 (10.0, the default) or 9 (9.x, which pytrec_eval wraps: "
                   "iprec_at_recall and 11pt_avg reach floor(x * R + 0.9) relevant documents instead of round(x * R), "
                   "-q -c prints no lines for judged queries the run lacks, all_trec without rbp, rbp_resid, unj)")
    t.add_argument("--database", help="compute in this database: a DuckDB file, sqlite:///file.db or "
                   "postgresql://user@host/db (the files are read by DuckDB, then loaded into temporary tables there)")
    # trec_eval's other flags, taken with their arguments so that they are not read as the files: what sqlndcg
    # does not provide is refused by name (trec_eval_flags)
    t.add_argument("-R", dest="rel_format", default="qrels", metavar="FORMAT",
                   help="the qrels' format: qrels (the default; trec_eval's prefs and qrels_jg are not provided)")
    t.add_argument("-T", dest="results_format", default="trec_results", metavar="FORMAT",
                   help="the run's format: trec_results (the default, the only one)")
    t.add_argument("-Z", dest="zscores", metavar="FILE", help="trec_eval's z-scores: not provided (refused)")
    t.add_argument("-D", dest="debug_level", metavar="LEVEL", help="trec_eval's debugging output: not provided (refused)")
    t.add_argument("-o", dest="old_format", action="store_true", help="obsolete in trec_eval, and ignored")
    t.add_argument("qrels", help="qrels file ('query iteration doc label'); .gz is read too")
    t.add_argument("run", help="run file ('query Q0 doc rank score tag'), or - for standard input")
    t.add_argument("extra", nargs="*", help=argparse.SUPPRESS)  # more words than the two files: trec_eval_flags


class VerbModule(Protocol):
    """What a module of verbs has: their names and help (``VERBS``), and how each is built and run."""

    VERBS: dict[str, str]

    def build(self, name: str, p) -> None: ...

    def run(self, args) -> int: ...


#: Every verb: name -> (the module that builds and runs it, its one-line help).

_MODULES: tuple[VerbModule, ...] = (sys.modules[__name__], cli_judgments, cli_online, cli_interleaving, cli_overlap,
                                     cli_compare, cli_explain, cli_power, cli_diversity, cli_beyond, cli_fairness,
                                     cli_system_order, cli_audit, cli_judge_check)


def _verbs() -> dict[str, tuple[VerbModule, str]]:
    return {name: (module, helptext) for module in _MODULES for name, helptext in module.VERBS.items()}


def build(name: str, p) -> None:
    """The flags of one of this module's verbs."""
    if name == "trec_eval":
        _build_trec_eval(p)
    else:
        _build_evaluate(p, name)


def _verb_in(argv) -> str | None:
    """The verb named on the command line: its first word that is not a flag (the top-level flags take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def parser_for(argv=None, every_verb: bool = False) -> argparse.ArgumentParser:
    """The parser, with the flags of the verb ``argv`` names (of every verb with ``every_verb``): the others are
    listed by name and help only, so ``sqlndcg --help`` builds no settings flags and renders nothing."""
    chosen = _verb_in(argv or [])
    parser = _Parser(prog="sqlndcg", description="Ranking metrics computed in SQL (DuckDB).")
    parser.add_argument("--version", action="version", version=f"sqlndcg {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, helptext) in _verbs().items():
        p = add_verb_parser(sub, name, helptext)
        if every_verb or name == chosen:
            module.build(name, p)
            add_verb_flags(p)
    return parser


def _parser() -> argparse.ArgumentParser:
    """The parser with every verb's flags."""
    return parser_for(every_verb=True)


def _settings(args) -> dict:
    out = {"metrics": [m for part in (args.metrics or ["ndcg@10"]) for m in part.split(",") if m.strip()],
           **file_options_from(args), **settings_from(args)}
    for name in ("bootstrap", "seed", "sample", "query_weights", "weight_column", "partitions", "audit", "ppi",
                 "interval"):
        if getattr(args, name, None) is not None:
            out[name] = getattr(args, name)
    return out


def _named(results: list[tuple[str, object]], attribute: str):
    """One table of several runs' rows, with a leading `run` column (or the table itself for one run)."""
    from ..present.results import Table

    if len(results) == 1:
        return getattr(results[0][1], attribute)
    tables = [(name, getattr(res, attribute)) for name, res in results]
    columns = ("run",) + tables[0][1].columns
    rows = tuple((name,) + tuple(row) for name, table in tables for row in table.rows)
    return Table(columns, rows, tables[0][1].settings)


def _run_name(run: str, taken: set) -> str:
    name = os.path.basename(run) if os.path.exists(run) else run
    base, i = name, 2
    while name in taken:
        name, i = f"{base}#{i}", i + 1
    taken.add(name)
    return name


def _emit(args, results) -> None:
    fmt = "table" if args.format == "text" else args.format
    if fmt == "parquet":
        if not args.output:
            raise SettingError("--format parquet writes a file: give --output FILE")
        import pyarrow.parquet as pq

        pq.write_table(_named(results, "per_query" if args.per_query else "summary").to_arrow(), args.output)
        return
    buffer = io.StringIO()
    if fmt == "json":
        json.dump({"runs": [
            {"run": name, **res.to_dict()} for name, res in results
        ]} if len(results) > 1 else results[0][1].to_dict(), buffer, indent=2, default=str)
        buffer.write("\n")
    elif fmt == "table":
        for i, (name, res) in enumerate(results):
            if len(results) > 1:
                buffer.write(("\n" if i else "") + f"== run {name} ==\n")
            buffer.write(str(res) + "\n")
            if args.per_query:
                buffer.write("\n")
                write_table(res.per_query, "table", buffer)
    else:
        write_table(_named(results, "per_query" if args.per_query else "summary"), fmt, buffer)
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as out:
            out.write(buffer.getvalue())
    else:
        sys.stdout.write(buffer.getvalue())


def _explain_file(exc: SqlndcgError, args) -> str:
    """A file that could not be read: say which formats exist and how to choose one."""
    text = str(exc)
    # a file read in the wrong format: unreadable, or read as one column or as columns DuckDB had to name itself
    misread = re.search(r"its columns are \['[^']*'\]|'column0", text) is not None
    told = "--delimiter" in text or "-format=" in text  # the file's own reading was already explained
    if " file " in text and ("cannot be read" in text or "has no rows" in text or misread) and not told:
        from ..core.spec import file_options_declared

        formats = file_options_declared()["run_format"]["values"]
        text += (f" (formats: {', '.join(formats)}; the suffix decides, .txt and others are sniffed as TREC, "
                 "then TSV/CSV; choose one with --run-format / --judgments-format)")
    return text


def _trec_eval(args) -> int:
    from ..verbs import trec_eval

    trec_eval.check_flags(rel_format=args.rel_format, results_format=args.results_format, zscores=args.zscores,
                          debug_level=args.debug_level, files=[args.qrels, args.run, *args.extra],
                          measures=args.measures)
    options = trec_eval.Options(
        qrels=args.qrels, run=args.run, measures=args.measures, per_query=args.per_query,
        complete=args.complete, no_summary=args.no_summary, level=args.level, depth=args.depth,
        judged_only=args.judged_only, collection_size=args.collection_size, database=args.database,
        version=args.trec_eval_version)
    return trec_eval.run(options)


def _evaluate_or_sql(args) -> None:
    from ..run.connect import open_database
    from ..verbs.evaluate import evaluate, to_sql

    # `sql` without a database takes table names on trust (no connection); evaluate always runs in one.
    con = None
    if args.command == "evaluate" or args.database:
        con = open_database(args.database, memory_limit=args.memory_limit, temp_directory=args.temp_directory)
    try:
        settings = _settings(args)
        if args.command == "sql":
            print(to_sql(args.run, args.judgments, dialect=args.dialect, con=con, id_type=args.id_type, **settings))
            return
        taken: set = set()
        results = [(_run_name(run, taken), evaluate(run, args.judgments, con=con, **settings)) for run in args.run]
        _emit(args, results)
    finally:
        if con is not None:
            con.close()


def run(args) -> int:
    """Run one of this module's verbs (0, or 2 with one error line; the traceback with --debug)."""
    if args.command == "trec_eval":
        return run_verb(_trec_eval, args)
    return run_verb(_evaluate_or_sql, args, explain=_explain_file)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser_for(argv).parse_args(argv)
    module, _ = _verbs()[args.command]
    return module.run(args)


if __name__ == "__main__":
    sys.exit(main())
