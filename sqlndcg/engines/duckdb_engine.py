"""DuckDB: the embedded default, and the only engine that reads local files (Parquet, CSV, TREC)."""

from __future__ import annotations

import duckdb

from .. import checks
from .base import Engine, MissingRelation


class DuckDBEngine(Engine):
    name = "DuckDB"
    dialect = "duckdb"
    errors = (duckdb.Error,)
    reads_files = True

    def fetch(self, sql):
        cur = self.con.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()

    def execute(self, sql):
        self.con.execute(sql)

    def fetch_arrow(self, sql):
        return self.con.execute(sql).arrow()

    def columns(self, relation_sql):
        try:
            rel = self.con.sql(f"SELECT * FROM {relation_sql} AS input_rows LIMIT 0")
        except duckdb.CatalogException as exc:
            raise MissingRelation(str(exc)) from None
        return dict(zip(rel.columns, (str(t) for t in rel.types)))

    def column_class(self, type_name):
        return checks.column_class(type_name)

    def table_exists(self, name):
        found = self.con.execute(
            "SELECT 1 FROM duckdb_tables() WHERE table_name = $name "
            "UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $name LIMIT 1",
            {"name": name},
        ).fetchall()
        return bool(found)

    def register(self, name, frame):
        self.con.register(name, frame)

    def unregister(self, name):
        try:
            self.con.unregister(name)
        except duckdb.Error:
            pass
