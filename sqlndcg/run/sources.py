"""Inputs (table names, files, data frames) turned into something a FROM clause can name.

Files are read by DuckDB's own readers; TREC's whitespace-separated run and qrels formats by a small template
over DuckDB's line reader. Other engines take their own tables, and data frames where they read them natively.
A source knows how to describe itself (through the engine) so that missing columns fail early, by name.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..core import render
from .engines.base import Engine, MissingRelation
from ..errors import InputError

PARQUET = (".parquet", ".pq")
CSV = (".csv",)
TSV = (".tsv", ".tab")
TREC_RUN = ".run"
TREC_QRELS = (".qrels", ".qrel")
#: A file of another extension is TREC when its first line (not blank, not a comment) among these has TREC's fields.
FIRST_LINES = 1000
FORMATS = ("parquet", "csv", "tsv", "trec_run", "trec_qrels")

#: (field count, integer fields, numeric fields) of each TREC format, 1-based.
TREC_LAYOUT = {"trec_run": (6, (4,), (5,)), "trec_qrels": (4, (), (4,))}


@dataclass
class Source:
    """One input: its role ("run" or "judgments"), a label for messages, and SQL that names its rows."""

    role: str
    label: str
    sql: str
    frame: object = None  # a data frame to register under `frame_name` (which `sql` quotes) before use
    frame_name: str | None = None
    trec_path: str | None = None  # the literal path of a TREC file, checked line by line
    trec_format: str | None = None
    delimited_path: str | None = None  # the literal path and delimiter of a CSV/TSV file, to explain failures
    delimiter: str | None = None
    # Cheap to read a second time (a Parquet file, a base table, an Arrow-backed frame): the SQL may read it once per
    # use instead of holding a copy (dialect.sql, reread).
    rereadable: bool = False
    table: str | None = None  # the engine's table of that exact name, which may carry unique constraints

    def register(self, eng: Engine) -> None:
        """A frame made readable as ``frame_name`` (run.session.Session registers it once and unregisters it)."""
        if self.frame is not None:
            try:
                eng.register(self.frame_name, self.frame)
            except InputError as exc:
                raise InputError(f"{self.label}: {exc}") from None
            except Exception as exc:  # engines raise many types for objects they cannot read
                raise InputError(
                    f"{self.label}: {eng.name} cannot read a {type(self.frame).__name__}; pass a table name, a "
                    f"file path (DuckDB), or a frame the engine reads ({_first_line(exc)})"
                ) from None

    def _explain(self, eng: Engine) -> str | None:
        """For a delimited file DuckDB could not read: the lines whose field count differs from the header's."""
        if not self.delimited_path:
            return None
        try:
            _, bad = eng.fetch(render.call("sqlndcg_delimited_bad_lines", self.delimited_path, self.delimiter, 5))
        except eng.errors:
            return None
        if not bad:
            return None
        shown = "; ".join(f"line {n} has {got} field(s): {brief(line)}" for n, line, got, _, _ in bad)
        return f"{bad[0][4]} line(s) do not have the header's {bad[0][3]} fields: {shown}"

    def describe(self, eng: Engine, own_connection: bool = False) -> dict[str, str]:
        """Column name -> the engine's type; fails with the reason the engine gives, attributed to this input.
        An input without rows (a header-only file, an empty table) is refused here, before its column types
        (guessed from nothing) can mislead: a run that answered nothing is more likely a wrong export than a
        system that scores 0 everywhere."""
        try:
            columns = eng.columns(self.sql)
            has_rows = eng.has_rows(self.sql)
        except MissingRelation:
            where = (
                "sqlndcg opened a new, empty in-memory DuckDB because no con= was given"
                if own_connection
                else f"no table or view of that name in the {eng.name} connection given as con="
            )
            files = ", and there is no file at that path" if eng.reads_files else ""
            raise InputError(
                f"{self.label}: {where}{files}; pass con= with the connection that has the table"
                + (", or a path to a Parquet, CSV/TSV or TREC file" if eng.reads_files else "")
            ) from None
        except eng.errors as exc:
            raise InputError(f"{self.label}: cannot be read: {self._explain(eng) or _first_line(exc)}") from None
        if self.delimited_path and len(columns) == 1:
            explained = self._explain(eng)
            if explained:
                raise InputError(f"{self.label}: cannot be read: {explained}")
        if not has_rows:
            raise InputError(f"{self.label} has no rows (a header only, or an empty table); there is nothing to "
                             "evaluate")
        return columns


def brief(value, limit: int = 60) -> str:
    """A value as Python would write it, cut short so one huge id cannot flood a message."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 20]}...{text[-8:]} ({len(text)} chars)"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _is_frame(obj) -> bool:
    module = type(obj).__module__.split(".")[0]
    # a DuckDB relation is a frame to another engine (copied there); resolve() refuses it on DuckDB itself
    return (module in {"pandas", "polars", "pyarrow", "pyspark", "datafusion"}
            or isinstance(obj, duckdb.DuckDBPyRelation))


def table_sql(name, eng: Engine | None, dialect: str = "duckdb") -> str:
    """A table name quoted part by part: ``"schema"."table"``; an exact existing name is taken whole."""
    dialect = eng.dialect if eng is not None else dialect
    if isinstance(name, (tuple, list)):
        parts = list(name)
    elif eng is not None and eng.relation_kind(name):
        parts = [name]
    else:
        parts = name.split(".") if 1 <= name.count(".") <= 2 and all(name.split(".")) else [name]
    if not all(isinstance(p, str) and p for p in parts):
        raise InputError(f"table name {name!r}: every part must be a non-empty string")
    return ".".join(render.quote(p, dialect) for p in parts)


def file_literal(path) -> str:
    """A file's path as the SQL literal the readers take (sql/local/readers.sql): absolute, so that DuckDB reads the
    file Python found, not a leading ~ as the home directory nor relative to a connection's file_search_path."""
    return render.string_literal(str(Path(path).absolute()))


def _file_format(path: Path, role: str, fmt: str | None, eng: Engine) -> str:
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
    literal = file_literal(path)
    try:
        # The first lines usually tell; the whole file is read only when they are all blank or comments.
        first = (eng.fetch(render.call("sqlndcg_first_fields", literal, FIRST_LINES))[1]
                 or eng.fetch(render.call("sqlndcg_first_fields", literal))[1])
    except eng.errors as exc:
        raise InputError(f"{role} file {str(path)!r} cannot be read: {_first_line(exc)}") from None
    expected = TREC_LAYOUT[trec][0]
    if first and (first[0][0] == expected or (trec == "trec_run" and first[0][0] > expected)):
        return trec
    return "tsv" if last == ".txt" else "csv"


def resolve(obj, role: str, eng: Engine | None, fmt: str | None = None) -> Source:
    """Classify one input; nothing is read yet except, for an unknown file extension, its first line."""
    if isinstance(obj, Source):
        return obj
    if obj is None:
        raise InputError(f"no {role} given: pass a table name, a file path or a data frame")
    if isinstance(obj, duckdb.DuckDBPyRelation) and (eng is None or isinstance(eng.con, duckdb.DuckDBPyConnection)):
        raise InputError(
            f"{role}: a DuckDB relation belongs to the connection that made it; save it as a view "
            "(relation.create_view('name')) and pass the name with con= that connection"
        )
    dialect = eng.dialect if eng is not None else "duckdb"
    if _is_frame(obj):
        name = f"sqlndcg_{role}_{uuid.uuid4().hex[:12]}"
        return Source(role, f"{role} ({type(obj).__name__})", render.quote(name, dialect), frame=obj, frame_name=name,
                      rereadable=type(obj).__module__.split(".")[0] in {"pyarrow", "polars"})
    kind = eng.relation_kind(obj) if isinstance(obj, str) and not fmt and eng is not None else None
    if kind:
        return Source(role, f"{role} table {obj!r}", render.quote(obj, dialect), rereadable=kind == "table",
                      table=obj if kind == "table" else None)
    if isinstance(obj, os.PathLike) or (isinstance(obj, str) and (fmt or _looks_like_path(obj))):
        path = Path(obj)
        if not path.is_file():
            raise InputError(f"{role} file {str(path)!r} does not exist (or is not a file)" + (
                "; a path names one file, read as written: * ? [ ] ~ are not expanded (to evaluate several files "
                "together, load them into one table or data frame and pass that)" if set("*?[]~") & set(str(path))
                else ""))
        if path.stat().st_size == 0:
            raise InputError(f"{role} file {str(path)!r} is empty: it has no rows")
        if eng is not None and not eng.reads_files:
            raise InputError(
                f"{role} file {str(path)!r}: files are read by DuckDB, but this evaluation runs on {eng.name}; load "
                f"the file into a {eng.name} table and pass its name, or evaluate the file with DuckDB (no con=)"
            )
        if eng is None:
            from .engines import for_connection

            eng = for_connection(None)
        label = f"{role} file {str(path)!r}"
        eng.files[str(path.absolute())] = (label, str(path))  # how the engine's messages name it (csv_problem)
        kind = _file_format(path, role, fmt, eng)
        literal = file_literal(path)
        if kind == "parquet":
            return Source(role, label, render.call("sqlndcg_read_parquet", literal), rereadable=True)
        if kind in ("csv", "tsv"):
            delimiter = render.string_literal("\t" if kind == "tsv" else ",")
            return Source(role, label, render.call("sqlndcg_read_csv", literal, delimiter),
                          delimited_path=literal, delimiter=delimiter)
        reader = "sqlndcg_read_trec_run" if kind == "trec_run" else "sqlndcg_read_trec_qrels"
        return Source(role, label, render.call(reader, literal), trec_path=literal, trec_format=kind)
    if isinstance(obj, (str, tuple, list)):
        return Source(role, f"{role} table {obj!r}", table_sql(obj, eng))
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
