"""PostgreSQL through psycopg (3, or 2): column types from the result's type OIDs. Data frames are copied into
temporary tables (COPY ... FROM STDIN with psycopg 3, executemany with psycopg 2).

The connection is the caller's, and so is its transaction. One sqlndcg call (one engine, from its creation to
:meth:`PostgresEngine.close`) runs inside a SAVEPOINT when the caller has a transaction open: a failed statement
rolls back to it (never further), and it is released at the end. When the caller has none, the call runs in a
transaction of its own, committed on success and rolled back on error, so nothing is left open.
"""

from __future__ import annotations

import sys
import uuid

from ...core import render
from ...errors import InputError
from .base import MissingRelation, classify, driver_errors
from .dbapi import DBAPIEngine
from ...core import templates

#: libpq's transaction states (psycopg 3's pq.TransactionStatus and psycopg 2's TRANSACTION_STATUS_* alike).
IDLE, ACTIVE, INTRANS, INERROR, UNKNOWN = range(5)


class PostgresEngine(DBAPIEngine):
    name = "PostgreSQL"
    dialect = "postgres"
    frames_as_temporary_tables = True
    placeholder = "%s"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        self.errors = driver_errors("psycopg", "psycopg2")
        # An exception being handled where sqlndcg was called is the caller's, not a failure of this call.
        self._outer_exception = sys.exc_info()[1]
        self._savepoint: str | None = None
        self._own = False
        self._begin()

    # -- the caller's transaction -----------------------------------------------------------------------------------
    def _status(self) -> int:
        try:
            status = getattr(getattr(self.con, "info", None), "transaction_status", None)
            if status is None and hasattr(self.con, "get_transaction_status"):
                status = self.con.get_transaction_status()
        except self.errors:  # psycopg 2 on a closed connection
            status = None
        return UNKNOWN if status is None else int(status)

    def _run(self, sql: str) -> None:
        """A statement that starts or ends the transaction or savepoint (not through fetch: no recovery loop)."""
        cur = self.con.cursor()
        try:
            cur.execute(sql)
        finally:
            cur.close()

    def _begin(self) -> None:
        status = self._status()
        if status == INERROR:
            raise InputError("the PostgreSQL connection's transaction was aborted by an earlier error; end it "
                             "(con.rollback()) before calling sqlndcg")
        if status == UNKNOWN or getattr(self.con, "closed", False):
            raise InputError("the PostgreSQL connection is closed or broken; pass an open connection")
        try:
            if status in (INTRANS, ACTIVE):
                self._savepoint = self.quote(f"sqlndcg_{uuid.uuid4().hex[:12]}")
                self._run(f"SAVEPOINT {self._savepoint}")
            else:
                self._own = True
                self._start_own()
        except self.errors as exc:
            raise InputError(f"PostgreSQL could not start sqlndcg's "
                             f"{'savepoint' if self._savepoint else 'transaction'}: {self.describe_error(exc)}") from None

    def _start_own(self) -> None:
        # Without autocommit the driver opens the transaction with the first statement; with it, BEGIN does.
        if getattr(self.con, "autocommit", False):
            self._run("BEGIN")

    def _end_own(self, commit: bool) -> None:
        if self._status() not in (INTRANS, INERROR):
            return
        commit = commit and self._status() == INTRANS
        if getattr(self.con, "autocommit", False):
            self._run("COMMIT" if commit else "ROLLBACK")
        elif commit:
            self.con.commit()
        else:
            self.con.rollback()

    def _recover(self) -> None:
        """After a statement failed: the transaction usable again (for the clean-up that follows), undoing only
        what this call did. Never raises: the first error is the one to report."""
        try:
            if self._status() != INERROR:
                return
            if self._savepoint:
                self._run(f"ROLLBACK TO SAVEPOINT {self._savepoint}")
            elif self._own:
                self._end_own(commit=False)
                self._start_own()
        except Exception:  # noqa: BLE001 - a broken connection: the caller sees the first error
            pass

    def close(self):
        """Release the savepoint (rolled back to first on error), or commit (roll back on error) the call's own
        transaction. An error is an exception on its way out of the call, or a transaction left aborted."""
        current = sys.exc_info()[1]
        failed = current is not None and current is not self._outer_exception
        savepoint, own = self._savepoint, self._own
        self._savepoint, self._own = None, False
        try:
            if savepoint:
                if failed or self._status() == INERROR:
                    self._run(f"ROLLBACK TO SAVEPOINT {savepoint}")
                self._run(f"RELEASE SAVEPOINT {savepoint}")
            elif own:
                self._end_own(commit=not failed)
        except self.errors as exc:
            if not failed:
                raise InputError(f"PostgreSQL could not end sqlndcg's "
                                 f"{'savepoint' if savepoint else 'transaction'}: {self.describe_error(exc)}") from None
        finally:
            super().close()

    # -- running SQL ------------------------------------------------------------------------------------------------
    def fetch(self, sql):
        try:
            return super().fetch(sql)
        except BaseException:
            self._recover()
            raise

    def _load(self, name, columns, batches):
        cur = self.con.cursor()
        try:
            if not hasattr(cur, "copy"):  # psycopg 2
                super()._load(name, columns, batches)
                return
            with cur.copy(templates.frame_copy(name, [c["name"] for c in columns],
                                      dialect=self.dialect)) as copy:
                for rows in batches:
                    for row in rows:
                        copy.write_row(row)
        except BaseException:  # an engine error, or a value that cannot be copied: the transaction is aborted
            self._recover()
            raise
        finally:
            cur.close()

    def relation_kind(self, name):
        found = self._catalog(templates.postgres_relation_kind, name)
        return found[0][0] if found else None

    def unique_keys(self, name):
        return [(kind, list(columns)) for kind, columns in self._catalog(templates.postgres_unique_keys, name)]

    def _catalog(self, macro, name: str) -> list[tuple]:
        """A catalog query about the relation of exactly ``name`` (bound, quoted as the statements quote it)."""
        cur = self.con.cursor()
        try:
            cur.execute(macro(self.placeholder), (render.quote(name, self.dialect),))
            return cur.fetchall()
        except self.errors:
            self._recover()
            raise
        finally:
            cur.close()

    def columns(self, relation_sql):
        cur = self.con.cursor()
        try:
            cur.execute(templates.no_rows(relation_sql))
            return {d[0]: self._type_name(d[1]) for d in cur.description}
        except self.errors as exc:
            self._recover()
            if getattr(exc, "sqlstate", None) == "42P01" or getattr(exc, "pgcode", None) == "42P01":
                raise MissingRelation(str(exc)) from None
            raise
        finally:
            cur.close()

    def _type_name(self, oid) -> str:
        types = getattr(getattr(self.con, "adapters", None), "types", None)
        info = types.get(oid) if types is not None else None
        if info is not None:
            return info.name
        return {20: "int8", 21: "int2", 23: "int4", 700: "float4", 701: "float8", 1700: "numeric", 25: "text",
                1043: "varchar", 1042: "bpchar"}.get(oid, str(oid))

    def column_class(self, type_name):
        return classify(type_name, ("int2", "int4", "int8", "smallint", "integer", "bigint"),
                        ("float4", "float8", "numeric", "real", "double precision"),
                        ("text", "varchar", "bpchar", "character varying", "name"))
