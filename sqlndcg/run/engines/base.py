"""The engine interface: run SQL, read an input's columns, hold a temporary result, translate errors.

Everything else (the SQL itself, the checks, the summary, the account) is rendered from the templates for the
engine's dialect, so an engine module only says how to talk to its connection.
"""

from __future__ import annotations

import shutil

from ...errors import InputError
from ...core import render
from ...core import templates


def driver_errors(*modules: str) -> tuple[type[BaseException], ...]:
    """The DB-API ``Error`` class of each driver module that is installed: the exceptions a connection of any of them
    raises (a connection's own driver is always importable; the others may be absent)."""
    import importlib

    found = []
    for module in modules:
        try:
            found.append(importlib.import_module(module).Error)
        except ImportError:
            pass
    return tuple(found)


class MissingRelation(Exception):
    """The engine says the table or view does not exist."""


class Engine:
    """One connection to one engine. Subclasses set ``name`` and ``dialect`` and implement the methods below."""

    name = "engine"
    dialect = "duckdb"
    #: Engine-specific exception types worth turning into sqlndcg errors.
    errors: tuple[type[BaseException], ...] = ()
    #: Whether local files (Parquet, CSV, TREC) can be read here (DuckDB's readers).
    reads_files = False

    def __init__(self, con, *, dialect: str | None = None, owned: bool = False) -> None:
        self.con = con
        self.owned = owned
        #: Files read here: absolute path -> (the label messages call it by, the path as given): sources.resolve.
        self.files: dict[str, tuple[str, str]] = {}
        #: Directories holding copies of files made to be read here (lf_copy), removed at close.
        self.copies: list[str] = []
        if dialect:
            self.dialect = render.known_dialect(dialect)

    # -- running SQL ------------------------------------------------------------------------------------------------
    def fetch(self, sql: str) -> tuple[list[str], list[tuple]]:
        """Column names and rows of a query."""
        raise NotImplementedError

    def execute(self, sql: str) -> None:
        self.fetch(sql)

    def fetch_arrow(self, sql: str, small: bool = False):
        """The result as a pyarrow Table (columnar), where the engine can give one. ``small``: a few rows (an account,
        a summary), which an engine may fetch the way that costs least for a long statement."""
        import pyarrow as pa

        names, rows = self.fetch(sql)
        return pa.Table.from_pylist([dict(zip(names, r)) for r in rows]) if rows else pa.table(
            {n: pa.array([], pa.null()) for n in names})

    # -- inputs -----------------------------------------------------------------------------------------------------
    def columns(self, relation_sql: str) -> dict[str, str]:
        """Column name -> the engine's type name, for a FROM-clause expression. Raises MissingRelation."""
        raise NotImplementedError

    def column_class(self, type_name: str) -> str:
        """'integer', 'number', 'text' or 'other', as the plan templates class columns."""
        raise NotImplementedError

    def has_rows(self, relation_sql: str) -> bool:
        return bool(self.fetch(templates.any_row(relation_sql, dialect=self.dialect))[1])

    def relation_kind(self, name: str) -> str | None:
        """"table" (stored, cheap to read twice) or "view" for a relation of that exact name, else None."""
        return None

    def named_relation(self, parts: list[str]) -> str | None:
        """"table" or "view" for the relation a name of parts (``["trec", "run"]``) names, else None (unknown)."""
        return self.relation_kind(parts[0]) if len(parts) == 1 else None

    def unique_keys(self, name: str) -> list[tuple[str, list[str]]]:
        """The (kind, columns) of the constraints that make rows of the table ``name`` unique and that the engine
        enforces ("PRIMARY KEY", "UNIQUE"): an input they cover skips the check for repeated keys. None known: []."""
        return []

    def register(self, name: str, frame) -> None:
        """Make a data frame readable as the table ``name`` (unquoted) until :meth:`unregister`: in place where the
        engine reads frames (DuckDB, Spark, DataFusion), as a temporary table copied from it elsewhere (SQLite,
        PostgreSQL: dbapi.py). An engine that can do neither refuses with an InputError."""
        raise InputError(
            f"{self.name} cannot read a {type(frame).__module__}.{type(frame).__name__} here; pass a table name "
            f"that {self.name} has"
        )

    def unregister(self, name: str) -> None:
        pass

    def lf_copy(self, path: str) -> str | None:
        """A copy of the text file ``path`` with LF line ends only, for an engine whose file reader refuses a file
        that mixes CRLF and LF line ends (DuckDB's); None when the file does not mix them or the engine reads no
        files. The copy is removed when the engine closes."""
        return None

    # -- temporary results ------------------------------------------------------------------------------------------
    def materialize(self, name: str, sql: str, summed: bool = True) -> None:
        """The rows of ``sql`` kept as the table ``name``. ``summed``: a later statement sums them (Spark keeps
        such a table in one partition, so the sums add in one order); the run's ranked top is not."""
        self.execute(templates.materialize(name, sql, dialect=self.dialect))

    def append(self, name: str, sql: str) -> None:
        self.execute(templates.append(name, sql, dialect=self.dialect))

    def drop(self, name: str) -> None:
        self.execute(templates.drop(name, dialect=self.dialect))

    def quote(self, name: str) -> str:
        return render.quote(name, self.dialect)

    def close(self) -> None:
        for directory in self.copies:
            shutil.rmtree(directory, ignore_errors=True)
        self.copies = []
        if self.owned:
            self.con.close()

    def resource_error(self, exc: BaseException):
        """A ResourceError when ``exc`` says the engine ran out of memory or disk, else None."""
        return None

    def describe_error(self, exc: BaseException) -> str:
        text = str(exc).strip()
        return text.splitlines()[0] if text else type(exc).__name__


def classify(type_name: str, integers: tuple[str, ...], numbers: tuple[str, ...], texts: tuple[str, ...]) -> str:
    """Class a type name by its prefix (case-insensitive): the first list it matches. An engine whose type names wrap
    the type (ClickHouse's Nullable(...)) unwraps it first (its engine module)."""
    t = type_name.strip().lower()
    for cls, names in (("integer", integers), ("number", numbers), ("text", texts)):
        if any(t == n or t.startswith(n + "(") for n in names):
            return cls
    return "other"
