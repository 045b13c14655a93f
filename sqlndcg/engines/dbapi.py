"""Any DB-API 2.0 connection: run SQL through a cursor. Subclasses say how to read column types."""

from __future__ import annotations

from .base import Engine, classify


class DBAPIEngine(Engine):
    name = "DB-API connection"

    def fetch(self, sql):
        cur = self.con.cursor()
        try:
            cur.execute(sql)
            if cur.description is None:
                return [], []
            return [d[0] for d in cur.description], [tuple(r) for r in cur.fetchall()]
        finally:
            cur.close()

    def columns(self, relation_sql):
        cur = self.con.cursor()
        try:
            cur.execute(f"SELECT * FROM {relation_sql} AS input_rows LIMIT 0")
            return {d[0]: str(d[1]) for d in cur.description}
        finally:
            cur.close()

    def column_class(self, type_name):
        return classify(type_name, ("int", "integer", "bigint", "smallint", "tinyint"),
                        ("double", "float", "real", "numeric", "decimal"), ("varchar", "text", "char", "string"))
