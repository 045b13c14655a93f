"""DuckDB column types as the plan templates classify columns (integer, number, text, other): DuckDB types
name every input read through DuckDB, whichever engine then runs the statement."""

from __future__ import annotations

_INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                  "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}
_NUMERIC_TYPES = _INTEGER_TYPES | {"FLOAT", "DOUBLE", "REAL"}
_TEXT_TYPES = {"VARCHAR"}


def column_class(duck_type: str) -> str:
    """A DuckDB type as the plan templates classify columns: integer, number, text or other."""
    if is_integer_type(duck_type):
        return "integer"
    if is_numeric_type(duck_type):
        return "number"
    return "text" if duck_type.upper() in _TEXT_TYPES else "other"


def is_integer_type(duck_type: str) -> bool:
    return duck_type.upper() in _INTEGER_TYPES


def is_numeric_type(duck_type: str) -> bool:
    t = duck_type.upper()
    return t in _NUMERIC_TYPES or t.startswith("DECIMAL")
