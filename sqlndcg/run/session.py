"""One verb call's hold on one engine: every verb (evaluate, to_sql, compare, the judgment tools, trec_eval) runs
its SQL through a :class:`Session`.

A session picks the engine from the connection (:func:`~sqlndcg.run.engines.for_connection`), registers each input
once however many steps read it (a frame copied into SQLite or PostgreSQL is copied once per call), describes the
inputs as the templates take them, runs and fetches SQL, and turns what the engine raises into sqlndcg errors in one
place (:meth:`Session.error`). What it made (registered frames, tables) is gone when it closes, after an error too;
it closes the engine only when it opened it.

    with Session(con) as ses:
        run = ses.resolve(run, "run")
        columns = ses.describe(run)
        rows = ses.fetch(templates.some_macro(..., dialect=ses.dialect))[1]
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import cast

from ..core import render
from ..errors import InputError, SqlndcgError
from . import sources
from .engines import Engine, for_connection


class Session:
    """The engine for ``con`` (when None, a connection of its own to the process's in-memory DuckDB, closed with
    the session) for one verb call. ``limits`` (memory_limit, temp_directory, max_temp_size) apply to DuckDB;
    ``reading`` says how its CSV and TSV files are split."""

    def __init__(self, con=None, dialect: str | None = None, reading: sources.Reading | None = None,
                 **limits) -> None:
        self.eng: Engine = for_connection(con, dialect, **limits)
        #: How CSV and TSV files are split here (delimiter, decimal separator): every file input the same way.
        self.reading = reading or sources.Reading()
        #: The engine was made here (not given as an Engine), so the session ends it.
        self._opened = self.eng is not con
        #: sqlndcg opened a new, empty DuckDB: an input's table cannot be there (Source.describe says so).
        self.own_connection = con is None
        self._frames: list[str] = []  # the names frames are registered under here
        self._tables: list[str] = []  # tables made here and not dropped yet, quoted

    @classmethod
    def of(cls, ses) -> "Session":
        """``ses`` itself, or a session over an engine given instead (a caller that made the engine ends it)."""
        return ses if isinstance(ses, Session) else cls(ses)

    @property
    def dialect(self) -> str:
        return self.eng.dialect

    @property
    def name(self) -> str:
        return self.eng.name

    # -- inputs -----------------------------------------------------------------------------------------------------
    def resolve(self, obj, role: str, fmt: str | None = None) -> sources.Source:
        return sources.resolve(obj, role, self.eng, fmt, self.reading)

    def register(self, *srcs: sources.Source) -> None:
        """Make the inputs that are frames readable until the session closes; a frame already registered in this
        session is not registered again."""
        for src in srcs:
            if src is not None and src.frame is not None and src.frame_name not in self._frames:
                src.register(self.eng)
                self._frames.append(cast(str, src.frame_name))  # a frame always comes with its name

    def register_frame(self, name: str, frame) -> None:
        """A frame as the table ``name`` (unquoted, the caller's choice) until the session closes."""
        self._frames.append(name)  # first: a table left half-made is dropped at close too
        self.eng.register(name, frame)

    def describe(self, src: sources.Source) -> dict[str, str]:
        """Column name -> the engine's type (registering the input first); see :meth:`sources.Source.describe`."""
        self.register(src)
        return src.describe(self.eng, self.own_connection)

    def described(self, src: sources.Source, columns: dict[str, str]) -> dict:
        """An input as the plan templates take it: its SQL, a label for messages, its columns and their classes, and
        the column its format ranks by (a TREC run: the score, as trec_eval reads it; its rank field is ignored)."""
        return {
            "sql": src.sql,
            "label": src.label,
            "columns": [{"name": n, "type": t, "class": self.eng.column_class(t)} for n, t in columns.items()],
            "rereadable": src.rereadable,
            "ranks_by": "score" if src.trec_format == "trec_run" else None,
        }

    # -- running SQL ------------------------------------------------------------------------------------------------
    def fetch(self, sql: str) -> tuple[list[str], list[tuple]]:
        return self.eng.fetch(sql)

    def fetch_arrow(self, sql: str, small: bool = False):
        return self.eng.fetch_arrow(sql, small)

    def table_name(self, prefix: str) -> str:
        """A new table name, quoted for the engine."""
        return render.quote(f"{prefix}_{uuid.uuid4().hex[:12]}", self.dialect)

    def materialize(self, name: str, sql: str, summed: bool = True) -> None:
        """The result of ``sql`` as the table ``name`` (quoted), dropped at close unless dropped before;
        ``summed``: see Engine.materialize."""
        self.eng.materialize(name, sql, summed)
        self._tables.append(name)

    def append(self, name: str, sql: str) -> None:
        self.eng.append(name, sql)

    def drop(self, name: str) -> None:
        self._tables.remove(name)
        self.eng.drop(name)

    # -- errors -----------------------------------------------------------------------------------------------------
    def error(self, exc: BaseException, doing: str = "failed", subject: str | None = None) -> SqlndcgError:
        """What the engine raised as a sqlndcg error: out of memory or disk as the engine's ResourceError, anything
        else an InputError '<subject, else the engine> <doing>: <the engine's first line>'."""
        return self.eng.resource_error(exc) or InputError(
            f"{subject or self.name} {doing}: {self.eng.describe_error(exc)}")

    @contextmanager
    def explained(self, doing: str, subject: str | None = None):
        """Engine errors raised in the block as :meth:`error` says; sqlndcg's own errors pass as they are."""
        try:
            yield
        except SqlndcgError:
            raise
        except self.eng.errors as exc:
            raise self.error(exc, doing, subject) from None

    # -- the end ----------------------------------------------------------------------------------------------------
    def __enter__(self) -> "Session":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        # Explained before the engine closes (DuckDB reads its limits for an out-of-memory message): whatever the
        # engine raised outside the steps that explain their own failures, never a traceback from deep inside.
        translated = None
        if exc is not None and not isinstance(exc, SqlndcgError) and isinstance(exc, self.eng.errors):
            translated = self.error(exc)
        self.close(failed=exc is not None)
        if translated is not None:
            raise translated from None

    def close(self, failed: bool = False) -> None:
        """Drop the tables made and unregister the frames registered here, then end the engine if opened here.
        A table that cannot be dropped is an error only when nothing failed before: the first error is the one to
        report."""
        problem = None
        try:
            for name in reversed(self._tables):
                try:
                    self.eng.drop(name)
                except Exception as exc:  # noqa: BLE001
                    if problem is None and not failed:
                        problem = self.error(exc) if isinstance(exc, self.eng.errors) else exc
            for name in reversed(self._frames):
                try:
                    self.eng.unregister(name)
                except Exception:  # noqa: BLE001 - already gone: nothing to undo
                    pass
        finally:
            self._tables, self._frames = [], []
            if self._opened:
                self.eng.close()
        if problem is not None:
            raise problem
