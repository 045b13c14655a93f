"""The one table writer of the command line: every verb prints and saves its tables through it."""

from __future__ import annotations

import csv
import io
import json
import sys

#: What --format may ask of a table (evaluate adds parquet, written to --output only).
TABLE_FORMATS = ("table", "text", "tsv", "csv", "json")


def write_table(table, fmt: str, out=None) -> None:
    """``table`` as csv or tsv (a header row, None as empty), json (a list of row objects), or fixed-width text
    (``table``/``text``), every row."""
    out = out or sys.stdout
    if fmt in ("csv", "tsv"):
        writer = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(["" if v is None else v for v in row] for row in table.rows)
    elif fmt == "json":
        json.dump(table.to_dicts(), out, indent=2, default=str)
        out.write("\n")
    else:
        out.write(table.to_text(max_rows=10**9) + "\n")


def save_table(table, path: str | None) -> None:
    """Also write ``table`` to ``path``: Parquet for ``.parquet``, else CSV."""
    if not path:
        return
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        pq.write_table(table.to_arrow(), path)
    else:
        with open(path, "w", newline="", encoding="utf-8") as f:
            write_table(table, "csv", f)


def result_text(res, fmt: str, table=None) -> str:
    """A verb's result as one printout: json (its ``to_dict()``), text (its ``str``, the page it reads as), or
    ``table`` (one of its tables) in a table format."""
    if fmt == "json":
        return json.dumps(res.to_dict(), indent=2, default=str) + "\n"
    if fmt == "text" or table is None:
        return str(res) + "\n"
    out = io.StringIO()
    write_table(table, fmt, out)
    return out.getvalue()


def emit_text(text: str, output: str | None) -> None:
    """A verb's whole printout written to ``output`` (saying so on standard error) or to standard output."""
    if output:
        with open(output, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        print(f"sqlndcg: wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def emit_table(table, output: str | None, fmt: str) -> None:
    """A verb's table written to ``output`` (saying so on standard error) or printed in ``fmt``."""
    if output:
        save_table(table, output)
        print(f"sqlndcg: wrote {len(table.rows):,} rows to {output}", file=sys.stderr)
    else:
        write_table(table, fmt)
