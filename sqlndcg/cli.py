"""Command line: ``sqlndcg evaluate`` and ``sqlndcg sql``, mirroring :func:`evaluate` and :func:`to_sql`."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from . import api
from .errors import SettingError, SqlndcgError
from .spec import EMPTIES, GAINS, IDEALS, PRESETS, QUERIES, SHORT_LISTS, TIES


def _gain(text: str):
    """``exponential``, ``linear``, or a map ``1:1,2:3,3:7``."""
    if text in GAINS:
        return text
    try:
        return {float(g): float(v) for g, v in (pair.split(":") for pair in text.split(","))}
    except ValueError:
        raise SettingError(f"--gain {text!r}: use exponential, linear, or a map like 1:1,2:3,3:7") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sqlndcg", description="Ranking metrics computed in SQL (DuckDB).")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, helptext in (("evaluate", "compute metrics and print them"), ("sql", "print the SQL instead")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--run", required=True, help="run: Parquet, CSV, TSV or TREC run file (or a table with --database)")
        p.add_argument("--judgments", "--qrels", required=True, help="judgments: Parquet, CSV, TSV or TREC qrels file")
        p.add_argument("-m", "--metric", action="append", dest="metrics",
                       help="metric, repeatable or comma-separated: ndcg@10, p@5, map, mrr@10, P(rel=2)@5 ...")
        p.add_argument("--preset", choices=sorted(PRESETS))
        p.add_argument("--gain", type=str, help="exponential (default), linear, or a map 1:1,2:3,3:7")
        p.add_argument("--ideal", choices=IDEALS)
        p.add_argument("--ties", choices=TIES)
        p.add_argument("--short-lists", choices=SHORT_LISTS)
        p.add_argument("--empty", choices=EMPTIES)
        p.add_argument("--queries", choices=QUERIES)
        p.add_argument("--threshold", type=float)
        p.add_argument("--group-by", action="append", default=[], help="grouping column, repeatable (e.g. tag)")
        for col in ("query-id", "doc-id", "score", "rank", "rel"):
            p.add_argument(f"--{col}-column", dest=col.replace("-", "_"), help=f"name of the {col} column")
        p.add_argument("--run-format", choices=("parquet", "csv", "tsv", "trec_run"))
        p.add_argument("--judgments-format", choices=("parquet", "csv", "tsv", "trec_qrels"))
        p.add_argument("--database", help="a DuckDB database file holding the tables named by --run/--judgments")
        if name == "evaluate":
            p.add_argument("--per-query", action="store_true", help="print one row per query too")
            p.add_argument("--format", choices=("text", "csv", "json"), default="text")
        else:
            p.add_argument("--dialect", default="duckdb", help="target SQL dialect (any sqlglot dialect)")
    return parser


def _settings(args) -> dict:
    out = dict(
        metrics=[m for part in (args.metrics or ["ndcg@10"]) for m in part.split(",") if m.strip()],
        preset=args.preset, gain=_gain(args.gain) if args.gain else None, ideal=args.ideal, ties=args.ties,
        short_lists=args.short_lists, empty=args.empty, queries=args.queries, threshold=args.threshold,
        group_by=args.group_by, run_format=args.run_format, judgments_format=args.judgments_format,
    )
    out.update({k: getattr(args, k) for k in ("query_id", "doc_id", "score", "rank", "rel") if getattr(args, k)})
    return out


def _write(table, fmt: str, out) -> None:
    if fmt == "csv":
        writer = csv.writer(out)
        writer.writerow(table.columns)
        writer.writerows(table.rows)
    elif fmt == "json":
        json.dump(table.to_dicts(), out, indent=2, default=str)
        out.write("\n")
    else:
        out.write(table.to_text(max_rows=10**9) + "\n")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    con = None
    try:
        if args.database:
            import duckdb

            con = duckdb.connect(args.database, read_only=True)
        settings = _settings(args)
        if args.command == "sql":
            print(api.to_sql(args.run, args.judgments, dialect=args.dialect, con=con, **settings))
            return 0
        res = api.evaluate(args.run, args.judgments, con=con, **settings)
        if args.format == "text":
            print(res)
            if args.per_query:
                print()
                _write(res.per_query, "text", sys.stdout)
        else:
            _write(res.per_query if args.per_query else res.summary, args.format, sys.stdout)
        return 0
    except SqlndcgError as exc:
        print(f"sqlndcg: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if con is not None:
            con.close()


if __name__ == "__main__":
    sys.exit(main())
