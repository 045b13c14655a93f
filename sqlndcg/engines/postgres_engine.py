"""PostgreSQL through psycopg (3, or 2): column types from the result's type OIDs. Data frames are copied into
temporary tables (COPY ... FROM STDIN with psycopg 3, executemany with psycopg 2)."""

from __future__ import annotations

from .. import render
from .base import MissingRelation, classify
from .dbapi import DBAPIEngine


class PostgresEngine(DBAPIEngine):
    name = "PostgreSQL"
    dialect = "postgres"
    frames_as_temporary_tables = True
    placeholder = "%s"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        errors = []
        for module in ("psycopg", "psycopg2"):
            try:
                errors.append(__import__(module).Error)
            except ImportError:
                pass
        self.errors = tuple(errors)

    def fetch(self, sql):
        try:
            return super().fetch(sql)
        except self.errors:
            self._rollback()
            raise

    def _load(self, name, columns, batches):
        cur = self.con.cursor()
        try:
            if not hasattr(cur, "copy"):  # psycopg 2
                super()._load(name, columns, batches)
                return
            with cur.copy(render.call("sqlndcg_frame_copy", name, [c["name"] for c in columns],
                                      dialect=self.dialect)) as copy:
                for rows in batches:
                    for row in rows:
                        copy.write_row(row)
        except BaseException:  # an engine error, or a value that cannot be copied: the transaction is aborted
            self._rollback()
            raise
        finally:
            cur.close()

    def _rollback(self):
        if not getattr(self.con, "autocommit", True):
            self.con.rollback()

    def columns(self, relation_sql):
        cur = self.con.cursor()
        try:
            cur.execute(f"SELECT * FROM {relation_sql} AS input_rows LIMIT 0")
            return {d[0]: self._type_name(d[1]) for d in cur.description}
        except self.errors as exc:
            self._rollback()
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
