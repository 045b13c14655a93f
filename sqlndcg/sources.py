"""Inputs (table names, files, data frames) turned into something a FROM clause can name.

Files are read by DuckDB's own readers; TREC's whitespace-separated run and qrels formats by a small template
over DuckDB's line reader. A source knows how to describe itself so that missing columns fail early, by name.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import duckdb

from . import render
from .errors import InputError

PARQUET = (".parquet", ".pq")
CSV = (".csv",)
TSV = (".tsv", ".tab")
TREC_RUN = ".run"
TREC_QRELS = (".qrels", ".qrel")
FORMATS = ("parquet", "csv", "tsv", "trec_run", "trec_qrels")

#: (field count, integer fields, numeric fields) of each TREC format, 1-based.
TREC_LAYOUT = {"trec_run": (6, (4,), (5,)), "trec_qrels": (4, (), (4,))}


@dataclass
class Source:
    """One input: its role ("run" or "judgments"), a label for messages, and SQL that names its rows."""

    role: str
    label: str
    sql: str
    frame: object = None  # a data frame to register under `sql` before use
    trec_path: str | None = None  # the literal path of a TREC file, checked line by line
    trec_format: str | None = None
    delimited_path: str | None = None  # the literal path and delimiter of a CSV/TSV file, to explain failures
    delimiter: str | None = None

    def register(self, con: duckdb.DuckDBPyConnection) -> None:
        if self.frame is not None:
            try:
                con.register(self.sql.strip('"'), self.frame)
            except Exception as exc:  # duckdb raises several types for unsupported objects
                raise InputError(
                    f"{self.label}: DuckDB cannot read a {type(self.frame).__name__}; pass a table name, a file "
                    f"path, or a pandas/polars/pyarrow table ({exc})"
                ) from None

    def _explain(self, con: duckdb.DuckDBPyConnection) -> str | None:
        """For a delimited file DuckDB could not read: the lines whose field count differs from the header's."""
        if not self.delimited_path:
            return None
        try:
            bad = con.execute(
                render.call("sqlndcg_delimited_bad_lines", self.delimited_path, self.delimiter, 5)
            ).fetchall()
        except duckdb.Error:
            return None
        if not bad:
            return None
        shown = "; ".join(f"line {n} has {got} field(s): {brief(line)}" for n, line, got, _, _ in bad)
        return f"{bad[0][4]} line(s) do not have the header's {bad[0][3]} fields: {shown}"

    def unregister(self, con: duckdb.DuckDBPyConnection) -> None:
        if self.frame is not None:
            try:
                con.unregister(self.sql.strip('"'))
            except duckdb.Error:
                pass

    def describe(self, con: duckdb.DuckDBPyConnection, own_connection: bool = False) -> dict[str, str]:
        """Column name -> DuckDB type; fails with the reason DuckDB gives, attributed to this input.
        An input without rows is refused here, before its column types (guessed from nothing) can mislead."""
        try:
            rel = con.sql(render.call("sqlndcg_select_all", self.sql))
            has_rows = con.execute(render.call("sqlndcg_any_row", self.sql)).fetchall()
        except duckdb.CatalogException:
            where = (
                "sqlndcg opened a new, empty in-memory DuckDB because no con= was given"
                if own_connection
                else "no table or view of that name in the DuckDB connection given as con="
            )
            raise InputError(
                f"{self.label}: {where}, and there is no file at that path; pass con= with the connection that "
                "has the table, or a path to a Parquet, CSV/TSV or TREC file"
            ) from None
        except duckdb.Error as exc:
            raise InputError(f"{self.label}: cannot be read: {self._explain(con) or _first_line(exc)}") from None
        if self.delimited_path and len(rel.columns) == 1:
            explained = self._explain(con)
            if explained:
                raise InputError(f"{self.label}: cannot be read: {explained}")
        if not has_rows:
            raise InputError(f"{self.label} has no rows; there is nothing to evaluate")
        return dict(zip(rel.columns, (str(t) for t in rel.types)))


def brief(value, limit: int = 60) -> str:
    """A value as Python would write it, cut short so one huge id cannot flood a message."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 20]}...{text[-8:]} ({len(text)} chars)"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _is_frame(obj) -> bool:
    module = type(obj).__module__.split(".")[0]
    return module in {"pandas", "polars", "pyarrow"}


def table_sql(name, con: duckdb.DuckDBPyConnection | None, dialect: str = "duckdb") -> str:
    """A table name quoted part by part: ``"schema"."table"``; an exact existing name is taken whole."""
    if isinstance(name, (tuple, list)):
        parts = list(name)
    elif con is not None and _table_exists(con, name):
        parts = [name]
    else:
        parts = name.split(".") if 1 <= name.count(".") <= 2 and all(name.split(".")) else [name]
    if not all(isinstance(p, str) and p for p in parts):
        raise InputError(f"table name {name!r}: every part must be a non-empty string")
    return ".".join(render.quote(p, dialect) for p in parts)


def _table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    found = con.execute(
        "SELECT 1 FROM duckdb_tables() WHERE table_name = $name "
        "UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $name LIMIT 1",
        {"name": name},
    ).fetchall()
    return bool(found)


def _file_format(path: Path, role: str, fmt: str | None, con: duckdb.DuckDBPyConnection) -> str:
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"{role} format {fmt!r} is not known; choose one of {', '.join(FORMATS)}")
        return fmt
    suffixes = [s.lower() for s in path.suffixes]
    last = suffixes[-1] if suffixes else ""
    if last in (".gz", ".zst") and len(suffixes) > 1:
        last = suffixes[-2]
    if last in PARQUET:
        return "parquet"
    if last in CSV:
        return "csv"
    if last in TSV:
        return "tsv"
    if last == TREC_RUN:
        return "trec_run"
    if last in TREC_QRELS:
        return "trec_qrels"
    # Anything else (.txt, no extension): TREC if the first line has TREC's field count for this role.
    trec = "trec_run" if role == "run" else "trec_qrels"
    literal = render.string_literal(str(path))
    try:
        first = con.execute(render.call("sqlndcg_first_fields", literal)).fetchall()
    except duckdb.Error as exc:
        raise InputError(f"{role} file {str(path)!r} cannot be read: {_first_line(exc)}") from None
    if first and first[0][0] == TREC_LAYOUT[trec][0]:
        return trec
    return "tsv" if last == ".txt" else "csv"


def resolve(obj, role: str, con: duckdb.DuckDBPyConnection | None, fmt: str | None = None) -> Source:
    """Classify one input; nothing is read yet except, for an unknown file extension, its first line."""
    if obj is None:
        raise InputError(f"no {role} given: pass a table name, a file path or a data frame")
    if isinstance(obj, duckdb.DuckDBPyRelation):
        raise InputError(
            f"{role}: a DuckDB relation belongs to the connection that made it; save it as a view "
            "(relation.create_view('name')) and pass the name with con= that connection"
        )
    if _is_frame(obj):
        name = render.quote(f"sqlndcg_{role}_{uuid.uuid4().hex[:12]}")
        return Source(role, f"{role} ({type(obj).__name__})", name, frame=obj)
    if isinstance(obj, str) and not fmt and con is not None and _table_exists(con, obj):
        return Source(role, f"{role} table {obj!r}", render.quote(obj))
    if isinstance(obj, os.PathLike) or (isinstance(obj, str) and (fmt or _looks_like_path(obj))):
        path = Path(obj)
        if not path.is_file():
            raise InputError(f"{role} file {str(path)!r} does not exist (or is not a file)")
        if path.stat().st_size == 0:
            raise InputError(f"{role} file {str(path)!r} is empty: it has no rows")
        scratch = con or duckdb.connect()
        kind = _file_format(path, role, fmt, scratch)
        literal = render.string_literal(str(path))
        label = f"{role} file {str(path)!r}"
        if kind == "parquet":
            return Source(role, label, render.call("sqlndcg_read_parquet", literal))
        if kind in ("csv", "tsv"):
            delimiter = render.string_literal("\t" if kind == "tsv" else ",")
            return Source(role, label, render.call("sqlndcg_read_csv", literal, delimiter),
                          delimited_path=literal, delimiter=delimiter)
        reader = "sqlndcg_read_trec_run" if kind == "trec_run" else "sqlndcg_read_trec_qrels"
        return Source(role, label, render.call(reader, literal), trec_path=literal, trec_format=kind)
    if isinstance(obj, (str, tuple, list)):
        return Source(role, f"{role} table {obj!r}", table_sql(obj, con))
    raise InputError(
        f"{role}: cannot use a {type(obj).__name__}; pass a table name, a file path, or a pandas/polars/pyarrow table"
    )


def is_table_name(obj) -> bool:
    """True for what :func:`resolve` would take as a table name (no file is looked at)."""
    return isinstance(obj, (tuple, list)) or (isinstance(obj, str) and not _looks_like_path(obj))


def _looks_like_path(text: str) -> bool:
    """A string is a file path if such a file exists, or if it has a path separator or a known file suffix."""
    if os.path.exists(text) or os.sep in text or "/" in text:
        return True
    suffix = Path(text).suffix.lower()
    return suffix in PARQUET + CSV + TSV + TREC_QRELS + (TREC_RUN, ".txt", ".gz")
