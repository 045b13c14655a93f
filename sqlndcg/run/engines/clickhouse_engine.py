"""ClickHouse, embedded through chdb's DB-API connection (the same SQL runs on a ClickHouse server)."""

from __future__ import annotations

from .base import MissingRelation, classify
from .dbapi import DBAPIEngine


def unwrapped(type_name: str) -> str:
    """A ClickHouse column type without the wrappers that leave its values' type as it is:
    ``LowCardinality(Nullable(String))`` -> ``String`` (Nullable outside or inside LowCardinality)."""
    t = type_name.strip()
    for wrapper in ("nullable(", "lowcardinality(", "nullable("):
        if t.lower().startswith(wrapper) and t.endswith(")"):
            t = t[len(wrapper):-1].strip()
    return t


class ClickHouseEngine(DBAPIEngine):
    name = "ClickHouse"
    dialect = "clickhouse"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        import chdb

        self.errors = tuple(e for e in (getattr(chdb, "ChdbError", None), RuntimeError, Exception) if e)[:2]

    def columns(self, relation_sql):
        try:
            rows = self.fetch(f"DESCRIBE (SELECT * FROM {relation_sql} AS input_rows)")[1]
        except Exception as exc:
            if "UNKNOWN_TABLE" in str(exc) or "doesn't exist" in str(exc) or "does not exist" in str(exc):
                raise MissingRelation(str(exc)) from None
            raise
        return {r[0]: r[1] for r in rows}

    def column_class(self, type_name):
        return classify(unwrapped(type_name), ("int8", "int16", "int32", "int64", "int128", "int256", "uint8", "uint16",
                                    "uint32", "uint64", "uint128", "uint256"),
                        ("float32", "float64", "decimal", "decimal32", "decimal64", "decimal128"),
                        ("string", "fixedstring"))

    def materialize(self, name, sql, summed=True):
        self.execute(f"CREATE TABLE {name} ENGINE = Memory AS {sql}")
