"""Snowflake through the user's ``snowflake.connector`` connection (and fakesnow's stand-in for one, which runs
Snowflake's SQL on DuckDB through sqlglot: how the tests run this module). Column types come from the result's
metadata (NUMBER with scale 0 is an integer); a missing table is Snowflake's error 2003 (SQL state 42S02).
Unquoted names are upper case in Snowflake: a table created as ``run`` with a column ``query_id`` is ``RUN`` with
``QUERY_ID``, and names are case-sensitive in sqlndcg, so such a table is named ``"RUN"`` with
``query_id="QUERY_ID"`` (a message says so when a name differs only in case). The statements' own unquoted
aliases come back upper case too, and are given back the case the statement wrote them in. Inputs are tables or
views.

Text ids are compared in the ``utf8`` collation (byte order) whatever a column's own collation
(sql/macros/dialects/snowflake.sql). fakesnow cannot run ``COLLATE(x, 'utf8')`` (sqlglot has no DuckDB collation
for it, and DuckDB's text order is byte order already), so on a fakesnow connection the statements go without it.
"""

from __future__ import annotations

from .base import MissingRelation, driver_errors
from .dbapi import DBAPIEngine

#: snowflake.connector's type codes (constants.FIELD_TYPES) that hold numbers, text; FIXED (0) is NUMBER.
_FIXED, _REAL, _TEXT = 0, 1, 2
#: "Object does not exist or not authorized" (SQL compilation error 002003, SQL state 42S02).
_MISSING_ERRNO, _MISSING_SQLSTATE = 2003, "42S02"


class SnowflakeEngine(DBAPIEngine):
    name = "Snowflake"
    dialect = "snowflake"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        self.errors = driver_errors("snowflake.connector")
        #: fakesnow's connection: Snowflake's SQL run on DuckDB through sqlglot (tests, users' own test suites).
        self.emulated = type(con).__module__.split(".")[0] == "fakesnow"
        if self.emulated:
            self.name = "Snowflake (fakesnow)"

    def _sql(self, sql: str) -> str:
        return _without_utf8_collation(sql) if self.emulated else sql

    def fetch(self, sql):
        cur = self.con.cursor()
        try:
            cur.execute(self._sql(sql))
            description = cur.description  # read once: fakesnow describes the statement again on each read
            if description is None:
                return [], []
            return _unfolded(sql, [d[0] for d in description]), [tuple(r) for r in cur.fetchall()]
        finally:
            cur.close()

    def columns(self, relation_sql):
        from ...core import templates

        cur = self.con.cursor()
        try:
            cur.execute(self._sql(templates.no_rows(relation_sql)))
            cur.fetchall()
            return {d[0]: _type_name(d) for d in cur.description}
        except self.errors as exc:
            if getattr(exc, "errno", None) == _MISSING_ERRNO or getattr(exc, "sqlstate", None) == _MISSING_SQLSTATE:
                raise MissingRelation(self.describe_error(exc)) from None
            raise
        finally:
            cur.close()

    def column_class(self, type_name):
        return {"integer": "integer", "number": "number", "text": "text"}.get(type_name, "other")

    def describe_error(self, exc):
        text = str(getattr(exc, "msg", None) or exc).strip()
        return text.splitlines()[0] if text else type(exc).__name__


def _type_name(description) -> str:
    """'integer', 'number', 'text', or the type code: a column of ``cursor.description`` (name, type_code,
    display_size, internal_size, precision, scale, null_ok)."""
    code, scale = description[1], description[5]
    if code == _FIXED:
        return "integer" if not scale else "number"
    if code == _REAL:
        return "number"
    if code == _TEXT:
        return "text"
    return f"type {code}"


def _unfolded(sql: str, names: list[str]) -> list[str]:
    """The result's column names as ``sql`` wrote them: Snowflake folds an unquoted alias (``AS judged``) to upper
    case (``JUDGED``); a quoted one (``"ndcg@10"``, a user's column) keeps its case and is left alone."""
    if not any(n == n.upper() != n.lower() for n in names):
        return names
    from sqlglot.tokens import TokenType
    from sqlglot.dialects.snowflake import Snowflake

    written: dict[str, str] = {}
    quoted: set[str] = set()
    for token in Snowflake().tokenize(sql):
        if token.token_type == TokenType.IDENTIFIER:
            quoted.add(token.text)
        elif token.text.isidentifier():
            written.setdefault(token.text.upper(), token.text)
    return [n if n in quoted else written.get(n, n) for n in names]


def _without_utf8_collation(sql: str) -> str:
    """``sql`` with ``COLLATE(x, 'utf8')`` written ``x``: fakesnow refuses the collation, and under it text compares
    as DuckDB's does, byte by byte. Statements without it go as they are."""
    if "'utf8'" not in sql.lower():
        return sql
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read="snowflake")
    for node in list(tree.find_all(exp.Collate)):
        spec = node.expression
        if isinstance(spec, exp.Literal) and spec.is_string and spec.name.lower() == "utf8":
            node.replace(node.this)
    return tree.sql(dialect="snowflake")
