"""SQLite (Python's standard library): columns are classed by the values they hold (SQLite types are per value),
and the few functions some builds lack (LN, POWER, SQRT; STDDEV_SAMP always) are registered on the connection.
Data frames are copied into temporary tables (executemany, a batch at a time)."""

from __future__ import annotations

import hashlib
import math
import sqlite3

from .base import MissingRelation
from .dbapi import DBAPIEngine
from ...core import templates


class _StddevSamp:
    """The sample standard deviation, as DuckDB and PostgreSQL compute it (NULL with fewer than two values)."""

    def __init__(self):
        self.values = []

    def step(self, value):
        if value is not None:
            self.values.append(float(value))

    def finalize(self):
        n = len(self.values)
        if n < 2:
            return None
        mean = math.fsum(self.values) / n
        return math.sqrt(math.fsum((v - mean) ** 2 for v in self.values) / (n - 1))


def _md5_hex(text):
    return None if text is None else hashlib.md5(str(text).encode("utf-8")).hexdigest()


class SQLiteEngine(DBAPIEngine):
    name = "SQLite"
    dialect = "sqlite"
    errors = (sqlite3.Error,)
    frames_as_temporary_tables = True
    placeholder = "?"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        con.create_aggregate("STDDEV_SAMP", 1, _StddevSamp)
        con.create_function("sqlndcg_md5", 1, _md5_hex, deterministic=True)  # sample= (dialects/rules.sql, md5_hex)
        try:
            con.execute("SELECT LN(2), POWER(2, 3), SQRT(4), FLOOR(1.5)").fetchall()
        except sqlite3.OperationalError:  # built without SQLITE_ENABLE_MATH_FUNCTIONS
            con.create_function("LN", 1, lambda x: None if x is None or x <= 0 else math.log(x), deterministic=True)
            con.create_function("POWER", 2, lambda a, b: None if a is None or b is None else float(a) ** b,
                                deterministic=True)
            con.create_function("SQRT", 1, lambda x: None if x is None or x < 0 else math.sqrt(x), deterministic=True)
            con.create_function("FLOOR", 1, lambda x: None if x is None else math.floor(x), deterministic=True)

    def _load(self, name, columns, batches):
        """The inserts in one transaction, committed when the connection had none open (a transaction of the
        caller's stays theirs to end)."""
        ours = not self.con.in_transaction
        try:
            super()._load(name, columns, batches)
        except BaseException:
            if ours and self.con.in_transaction:
                self.con.rollback()
            raise
        if ours and self.con.in_transaction:
            self.con.commit()

    def columns(self, relation_sql):
        try:
            names = self.fetch(templates.no_rows(relation_sql))[0]
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                raise MissingRelation(str(exc)) from None
            raise
        if not names:
            return {}
        probes = ", ".join(
            f"MIN(typeof({self.quote(n)})) AS lo{i}, MAX(typeof({self.quote(n)})) AS hi{i}" for i, n in enumerate(names))
        row = self.fetch(f"SELECT {probes} FROM {relation_sql} AS input_rows WHERE 1 = 1")[1][0]
        types = {}
        for i, name in enumerate(names):
            seen = {row[2 * i], row[2 * i + 1]} - {None, "null"}
            types[name] = "integer" if seen == {"integer"} else (
                "real" if seen <= {"integer", "real"} and seen else ("text" if seen == {"text"} else "+".join(sorted(seen)) or "null"))
        return types

    def column_class(self, type_name):
        return {"integer": "integer", "real": "number", "text": "text"}.get(type_name, "other")
