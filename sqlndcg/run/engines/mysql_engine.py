"""MySQL and MariaDB through the user's DB-API connection: PyMySQL, mysqlclient (``MySQLdb``) or MySQL
Connector/Python. Column types come from the result's field type codes (the protocol's, shared by the three
drivers); a missing table is MySQL's error 1146. Text ids are compared in ``utf8mb4_bin`` and ordered as bytes
whatever the column's or database's collation (sql/macros/dialect.sql, sql/macros/dialects/mysql.sql). Inputs
are tables or views, and data frames, copied into temporary tables (executemany, a batch at a time). The caller's
transaction stays theirs: the temporary tables sqlndcg makes are created and dropped without committing it."""

from __future__ import annotations

from .base import MissingRelation, classify, driver_errors
from .dbapi import DBAPIEngine

#: The protocol's field type codes (MySQL's enum_field_types) and the type names the engine reports them as.
_FIELD_TYPES = {
    0: "decimal", 1: "tinyint", 2: "smallint", 3: "int", 4: "float", 5: "double", 8: "bigint", 9: "mediumint",
    13: "year", 16: "bit", 246: "decimal", 15: "varchar", 253: "varchar", 254: "char",
    # TEXT columns arrive as BLOB codes (a binary BLOB too: its bytes compare as bytes, as text ids do here)
    249: "text", 250: "text", 251: "text", 252: "text",
}

#: ER_NO_SUCH_TABLE, and ER_BAD_DB_ERROR (a schema-qualified name whose database does not exist).
_MISSING = (1146, 1049)


def _errno(exc: BaseException) -> int | None:
    code = getattr(exc, "errno", None)  # mysql.connector
    if code is None and exc.args and isinstance(exc.args[0], int):  # PyMySQL, MySQLdb: (code, message)
        code = exc.args[0]
    return code


class MySQLEngine(DBAPIEngine):
    name = "MySQL"
    dialect = "mysql"
    frames_as_temporary_tables = True
    placeholder = "%s"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        self.errors = driver_errors("pymysql", "MySQLdb", "mysql.connector")
        if self._server().lower().find("mariadb") >= 0:
            self.name = "MariaDB"

    def _server(self) -> str:
        try:
            return str(self.fetch("SELECT VERSION()")[1][0][0])
        except self.errors:
            return ""

    def drop(self, name):
        """sqlndcg's tables here are temporary (sql/local/session.sql); DROP TEMPORARY TABLE, unlike DROP TABLE,
        does not commit the caller's open transaction."""
        self.execute(f"DROP TEMPORARY TABLE IF EXISTS {name}")

    def describe_error(self, exc):
        text = str(exc.args[1]) if len(exc.args) > 1 and isinstance(exc.args[1], str) else str(exc)
        return text.strip().splitlines()[0] if text.strip() else type(exc).__name__

    def columns(self, relation_sql):
        from ...core import templates

        cur = self.con.cursor()
        try:
            cur.execute(templates.no_rows(relation_sql))
            cur.fetchall()
            return {d[0]: _FIELD_TYPES.get(int(d[1]), str(d[1])) for d in cur.description}
        except self.errors as exc:
            if _errno(exc) in _MISSING:
                raise MissingRelation(self.describe_error(exc)) from None
            raise
        finally:
            cur.close()

    def column_class(self, type_name):
        return classify(type_name, ("tinyint", "smallint", "mediumint", "int", "bigint", "year", "bit"),
                        ("decimal", "float", "double"), ("varchar", "char", "text"))
