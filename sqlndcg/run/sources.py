"""Inputs (table names, files, data frames) turned into something a FROM clause can name.

Files are read by DuckDB's own readers; TREC's whitespace-separated run and qrels formats by a small template
over DuckDB's line reader. Other engines take their own tables, and data frames where they read them natively.
A source knows how to describe itself (through the engine) so that missing columns fail early, by name.
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import duckdb

from ..core import render
from .engines.base import Engine, MissingRelation
from ..errors import InputError, SettingError
from ..core import templates

PARQUET = (".parquet", ".pq")
CSV = (".csv",)
TSV = (".tsv", ".tab")
TREC_RUN = ".run"
TREC_QRELS = (".qrels", ".qrel")
#: A file of another extension is TREC when its first line (not blank, not a comment) among these has TREC's fields.
FIRST_LINES = 1000
FORMATS = ("parquet", "csv", "tsv", "trec_run", "trec_qrels", "trec_diversity")

#: (field count, integer fields, numeric fields) of each TREC format, 1-based.
TREC_LAYOUT = {"trec_run": (6, (4,), (5,)), "trec_qrels": (4, (), (4,)), "trec_diversity": (4, (), (4,))}
TREC_FIELDS = {"trec_run": "query_id Q0 doc_id rank score tag", "trec_qrels": "query_id 0 doc_id rel",
               "trec_diversity": "query_id intent doc_id rel"}

#: Delimiters a CSV/TSV header line may be split by, to say which one a misread file uses.
DELIMITERS = (";", "\t", ",", "|")


@dataclass(frozen=True)
class Reading:
    """How CSV and TSV files are split (the file options declared in settings.sql, _file_options_declared): the
    field delimiter (None: ',' for CSV, a tab for TSV) and the decimal separator of their numbers (None: '.')."""

    delimiter: str | None = None
    decimal: str | None = None

    @classmethod
    def of(cls, delimiter=None, decimal=None) -> "Reading":
        """The options as given to a verb, checked: a SettingError names the keyword and what it takes."""
        if delimiter == "\\t":  # a tab written as the two characters \t (a shell's '\t')
            delimiter = "\t"
        if delimiter is not None and (not isinstance(delimiter, str) or not delimiter
                                      or len(delimiter.encode()) > 4 or set(delimiter) & set("\r\n\"'")):
            raise SettingError(f"delimiter={delimiter!r}: the field delimiter of CSV and TSV files is a character "
                               "(at most 4 bytes) that is not a line end or a quote, such as ';', '|' or a tab")
        if decimal is not None and decimal not in (".", ","):
            raise SettingError(f"decimal={decimal!r}: the decimal separator of numbers in CSV and TSV files is '.' "
                               "(the default) or ','")
        return cls(delimiter, decimal)


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
    decimal: str | None = None  # the literal of a CSV/TSV file's decimal separator, when not '.'
    file: str | None = None  # the path a CSV/TSV/TREC source reads (a copy with LF line ends: use_lf_copy)
    kind: str | None = None  # that file's format: csv, tsv, trec_run, trec_qrels, trec_diversity
    reading: Reading = Reading()
    sniffed: str | None = None  # how the format was told when the suffix did not tell it, said when misread
    # The SQL that reads the input as given, when `sql` reads something made in the session (a copy of the file):
    # what the statement shown has instead (scoring.Prepared.shown_inputs).
    shown_sql: str | None = None
    rows_checked: bool = False  # a delimited file's rows were counted against its lines (refuse_joined_lines)
    # Cheap to read a second time (a Parquet file, a base table, an Arrow-backed frame): the SQL may read it once per
    # use instead of holding a copy (dialects/rules.sql, reread).
    rereadable: bool = False
    table: str | None = None  # the engine's table of that exact name, which may carry unique constraints
    relation: tuple | None = None  # the parts of the table or view name this input reads, to tell broken from missing

    def register(self, eng: Engine) -> None:
        """A frame made readable as ``frame_name`` (run.session.Session registers it once and unregisters it)."""
        if self.frame is not None:
            try:
                eng.register(cast(str, self.frame_name), self.frame)  # a frame always comes with its name
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
            _, bad = eng.fetch(templates.delimited_bad_lines(self.delimited_path, self.delimiter, 5))
        except eng.errors:
            return None
        if not bad:
            return None
        shown = "; ".join(f"line {n} has {got} field(s): {brief(line)}" for n, line, got, _, _ in bad)
        return f"{bad[0][4]} line(s) do not have the header's {bad[0][3]} fields: {shown}"

    def read_from(self, path: str) -> None:
        """Read the file at ``path`` (the user's, or the copy use_lf_copy made) as this source's format."""
        literal = file_literal(path)
        self.file = str(path)
        if self.kind in ("csv", "tsv"):
            self.delimiter = render.string_literal(self.reading.delimiter or ("\t" if self.kind == "tsv" else ","))
            self.decimal = render.string_literal(self.reading.decimal) if self.reading.decimal == "," else None
            self.delimited_path = literal
            self.sql = templates.read_csv(literal, self.delimiter, self.kind == "csv", self.decimal)
        else:
            self.trec_path, self.trec_format = literal, self.kind
            self.sql = {"trec_run": templates.read_trec_run, "trec_diversity": templates.read_trec_diversity}.get(
                cast(str, self.kind), templates.read_trec_qrels)(literal)

    def use_lf_copy(self, eng: Engine) -> bool:
        """After DuckDB refused this file: when the file mixes CRLF and LF line ends (DuckDB's reader takes either
        kind, not both), read a copy with LF line ends from now on (the same lines, numbered alike), and say True;
        the statement shown still reads the file itself. False when that is not the cause."""
        copy = eng.lf_copy(self.file) if self.file and self.shown_sql is None else None
        if copy is None:
            return False
        shown = self.sql
        self.read_from(copy)
        self.shown_sql = shown
        return True

    def describe(self, eng: Engine, own_connection: bool = False) -> dict[str, str]:
        """:meth:`_describe`, over a copy with LF line ends when the file mixes CRLF and LF (use_lf_copy)."""
        try:
            return self._describe(eng, own_connection)
        except InputError:
            if not self.use_lf_copy(eng):
                raise
        return self._describe(eng, own_connection)

    def refuse_joined_lines(self, eng: Engine) -> None:
        """A CSV/TSV file's rows must be its lines (blank lines, comments and the header aside): a quote left open
        in a CSV joins the lines up to the next quote into one row, silently. Refused, naming the line."""
        if not self.delimited_path or self.rows_checked:
            return
        options = (self.delimited_path, self.delimiter, self.kind == "csv", self.decimal)
        try:
            skip, comment, quote = eng.fetch(templates.delimited_sniffed(*options))[1][0]
            comment = render.string_literal(comment) if comment else None
            rows, lines = eng.fetch(templates.delimited_counts(*options, int(skip), comment,
                                                quote is not None))[1][0]
            rows = lines if quote is None else rows  # no quoting: each line is a row
            if rows != lines:
                opened, opening, closed = eng.fetch(templates.delimited_open_quote(*options))[1][0]
        except eng.errors as exc:
            raise InputError(f"{self.label}: cannot be read: {self._explain(eng) or _first_line(exc)}") from None
        if rows != lines:
            fmt = f"{self.role}_format='tsv'" if self.role in ("run", "judgments") else "a TSV file"
            if opened is not None:
                until = f"runs on to line {closed}" if closed else "no later line closes"
                raise InputError(
                    f"{self.label}, line {opened}: a quote opens a field in {brief(opening)} that {until}, so "
                    f"{lines:,} lines were read as {rows:,} rows, where each line is one row: a quote inside an id "
                    f"or value must be doubled (\"\") in a CSV file, or read the file without quoting ({fmt}, with "
                    "its delimiter); a value holding a line break needs a Parquet file or a data frame")
            raise InputError(f"{self.label}: {lines:,} lines hold rows (blank and comment lines aside), but DuckDB "
                             f"read {rows:,} rows from them: {self._explain(eng) or 'fix the file'}")
        self.rows_checked = True

    def reading_hint(self, eng: Engine) -> str | None:
        """How the file was read, when that may be why it lacks the columns asked for: a format told from its first
        line (sniffed), a header line another delimiter splits, numbers written with a decimal comma."""
        if not self.delimited_path:
            return self.sniffed
        try:
            lines = [line for (line,) in eng.fetch(templates.first_lines(self.delimited_path, 5))[1]]
        except (InputError, *eng.errors):  # type: ignore[misc]  # mypy cannot read a starred tuple of exceptions
            return self.sniffed
        if not lines:
            return self.sniffed
        used = self.reading.delimiter or ("\t" if self.kind == "tsv" else ",")
        fields = len(lines[0].split(used))
        splits = {d: len(lines[0].split(d)) for d in DELIMITERS if d != used}
        better = max(splits, key=splits.__getitem__)
        split_by = better if splits[better] > fields else used
        decimal = self.reading.decimal != "," and any(
            _DECIMAL_COMMA.fullmatch(field.strip()) for line in lines[1:] for field in line.split(split_by))
        if split_by != used:
            return (f"it was read as {cast(str, self.kind).upper()} split on {used!r}, but its first line {brief(lines[0])} "
                    f"splits on {better!r} into {splits[better]} fields: give delimiter={better!r}"
                    + (", and for its numbers written with a decimal comma (0,5) give decimal=','" if decimal else ""))
        return ("its numbers are written with a decimal comma (0,5): give decimal=','" if decimal
                else self.sniffed)

    def _describe(self, eng: Engine, own_connection: bool = False) -> dict[str, str]:
        """Column name -> the engine's type; fails with the reason the engine gives, attributed to this input.
        An input without rows (a header-only file, an empty table) is refused here, before its column types
        (guessed from nothing) can mislead: a run that answered nothing is more likely a wrong export than a
        system that scores 0 everywhere."""
        try:
            columns = eng.columns(self.sql)
            has_rows = eng.has_rows(self.sql)
        except MissingRelation as missing:
            kind = eng.named_relation(list(self.relation)) if self.relation else None
            if kind:  # there, but what it reads is not: a view whose table was dropped or renamed
                raise InputError(
                    f"{self.label}: the {kind} exists in the {eng.name} connection but cannot be read: "
                    f"{_first_line(missing)}" + ("; a view reads the tables it was made from: recreate them, or "
                                                 "the view" if kind == "view" else "")) from None
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
        self.refuse_joined_lines(eng)
        if self.delimited_path and len(columns) == 1:
            explained = self._explain(eng)
            if explained:
                raise InputError(f"{self.label}: cannot be read: {explained}")
        if not has_rows:
            hint = self.reading_hint(eng) if self.file else None  # a TREC file of one line read as CSV: a header
            raise InputError(f"{self.label} has no rows (a header only, or an empty table); there is nothing to "
                             "evaluate" + (f" ({hint})" if hint else ""))
        return columns


#: A number written with a decimal comma: 0,5 or -12,25.
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")


def hinted(exc: InputError, eng: Engine, *srcs: Source) -> InputError:
    """An error about one of ``srcs`` (its label first), with what :meth:`Source.reading_hint` says of it."""
    text = str(exc)
    for src in srcs:
        if src is not None and text.startswith(src.label):
            hint = src.reading_hint(eng)
            if hint:
                return type(exc)(f"{text} ({hint})")
    return exc


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


def _file_format(path: Path, role: str, fmt: str | None, eng: Engine) -> tuple[str, str | None, str]:
    """The file's format; how it was told, when its first line told it; the path to read (a copy with LF line ends
    when the file mixes CRLF and LF: Engine.lf_copy)."""
    read = str(path)
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"{role} format {fmt!r} is not known; choose one of {', '.join(FORMATS)}")
        return fmt, None, read
    suffixes = [s.lower() for s in path.suffixes]
    last = suffixes[-1] if suffixes else ""
    if last in (".gz", ".zst") and len(suffixes) > 1:
        last = suffixes[-2]
    for suffixes_of, kind in ((PARQUET, "parquet"), (CSV, "csv"), (TSV, "tsv"), ((TREC_RUN,), "trec_run"),
                              (TREC_QRELS, "trec_qrels")):
        if last in suffixes_of:
            return kind, None, read
    # Anything else (.txt, no extension): TREC if the first line has TREC's field count for this role.
    trec = "trec_run" if role == "run" else "trec_qrels"
    try:
        first = _first_fields(eng, read)
    except (InputError, *eng.errors) as exc:  # type: ignore[misc]  # mypy cannot read a starred tuple of exceptions
        read = eng.lf_copy(read) or read
        if read == str(path):
            raise exc if isinstance(exc, InputError) else InputError(
                f"{role} file {str(path)!r} cannot be read: {_first_line(exc)}") from None
        first = _first_fields(eng, read)
    expected = TREC_LAYOUT[trec][0]
    if first and (first[0][0] == expected or (trec == "trec_run" and first[0][0] > expected)):
        return trec, None, read
    kind = "tsv" if last == ".txt" else "csv"
    fields = f"{first[0][0]} whitespace-separated field(s)" if first else "no line that is not blank or a comment"
    suffix = f"its suffix {last!r}" if last else "its name"
    return kind, (f"it was read as {kind.upper()}: {suffix} names no format, and its first line has {fields}, where "
                  f"a TREC {'run' if trec == 'trec_run' else 'qrels'} line has {'at least ' if trec == 'trec_run' else ''}"
                  f"{expected} ({TREC_FIELDS[trec]!r}); if it is a TREC file, fix its lines, or give "
                  f"{role}_format={trec!r} to see each line that is not"), read


def _first_fields(eng: Engine, path: str):
    """The field count of the file's first line that is not blank or a comment (none: no such line)."""
    literal = file_literal(path)
    # The first lines usually tell; the whole file is read only when they are all blank or comments.
    return (eng.fetch(templates.first_fields(literal, FIRST_LINES))[1]
            or eng.fetch(templates.first_fields(literal))[1])


def resolve(obj, role: str, eng: Engine | None, fmt: str | None = None, reading: Reading | None = None) -> Source:
    """Classify one input; nothing is read yet except, for an unknown file extension, its first line. ``reading``:
    how CSV/TSV files are split (delimiter, decimal separator)."""
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
                      table=obj if kind == "table" else None, relation=(obj,))
    parts = _qualified(obj) if not fmt and eng is not None else None
    if parts and eng is not None:  # trec.run: a schema's table wins over a file of that name (and the .run suffix)
        kind = eng.named_relation(parts)  # None: none, or an engine that cannot tell
        if kind or (not eng.reads_files and not os.path.isfile(obj)):
            return Source(role, f"{role} table {obj!r}", table_sql(parts, eng), rereadable=kind == "table",
                          relation=tuple(parts))
        if not os.path.exists(obj):
            raise InputError(_neither(role, obj, parts, eng))
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
        kind, sniffed, read = _file_format(path, role, fmt, eng)
        if kind == "parquet":
            return Source(role, label, templates.read_parquet(file_literal(path)), rereadable=True)
        return file_source(role, label, kind, path, read, reading or Reading(), sniffed)
    if isinstance(obj, (str, tuple, list)):
        return Source(role, f"{role} table {obj!r}", table_sql(obj, eng),
                      relation=tuple(obj) if isinstance(obj, (tuple, list)) else (obj,))
    raise InputError(
        f"{role}: cannot use a {type(obj).__name__}; pass a table name, a file path, or a pandas/polars/pyarrow table"
    )


def file_source(role: str, label: str, kind: str, path: Path, read: str, reading: Reading,
                sniffed: str | None = None) -> Source:
    """A CSV, TSV or TREC file as a source, reading ``read`` (the file, or a copy of it with LF line ends)."""
    delimiter = reading.delimiter or ("\t" if kind == "tsv" else ",")
    if kind in ("csv", "tsv") and reading.decimal == "," and delimiter == ",":
        raise SettingError(f"decimal=',' with {label} split on ',': a number written 0,5 would be split into two "
                           "fields; give the file's delimiter too, e.g. delimiter=';'")
    src = Source(role, label, "", kind=kind, reading=reading, sniffed=sniffed)
    src.read_from(read)
    if read != str(path):  # the statement shown reads the file as given
        given = Source(role, label, "", kind=kind, reading=reading)
        given.read_from(str(path))
        src.shown_sql = given.sql
    return src


def is_table_name(obj) -> bool:
    """True for what :func:`resolve` would take as a table name (no file is looked at)."""
    return isinstance(obj, (tuple, list)) or (isinstance(obj, str) and not _looks_like_path(obj))


def _neither(role: str, name: str, parts: list[str], eng: Engine) -> str:
    """The message for a name that is no file and no table: both readings, and how to give either."""
    where = ("the new, empty in-memory DuckDB sqlndcg opened because no con= was given" if eng.owned
             else f"the {eng.name} connection given as con=")
    named = ", ".join(f"{what} {part!r}" for what, part in zip(("database", "schema", "table")[-len(parts):], parts))
    return (f"{role} {name!r} is neither a file (the path does not exist) nor a table or view in {where} "
            f"({named}): pass the path of an existing file, or the name of a table"
            + (" with con= the connection that has it" if eng.owned else " that connection has"))


def _qualified(obj) -> list[str] | None:
    """The parts of a name that may be schema-qualified (``trec.run``, ``db.trec.run``): a string of two or three
    non-empty parts with no path separator, else None."""
    if not isinstance(obj, str) or os.sep in obj or "/" in obj or not 1 <= obj.count(".") <= 2:
        return None
    parts = obj.split(".")
    return parts if all(p.strip() for p in parts) else None


def _looks_like_path(text: str) -> bool:
    """A string is a file path if such a file exists, or if it has a path separator or a known file suffix."""
    if os.path.exists(text) or os.sep in text or "/" in text:
        return True
    suffix = Path(text).suffix.lower()
    return suffix in PARQUET + CSV + TSV + TREC_QRELS + (TREC_RUN, ".txt", ".gz")
