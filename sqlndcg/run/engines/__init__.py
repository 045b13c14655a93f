"""Where the SQL runs: one small interface (:class:`~sqlndcg.run.engines.base.Engine`) and one module per engine.

:func:`for_connection` picks the engine from the connection a user passes: a DuckDB connection (or none: an
in-memory DuckDB, shared by the calls of a process), a DB-API connection (sqlite3, psycopg, chdb, PyMySQL,
mysqlclient, mysql.connector, snowflake.connector or fakesnow's), a ``pyspark.sql.SparkSession`` or a
``datafusion.SessionContext``. Adding an engine is one module here plus one line in ``_KINDS``.
"""

from __future__ import annotations

from importlib import import_module

from ...errors import SettingError
from .base import Engine

#: (module the connection's type comes from, engine module, engine class)
_KINDS = (
    ("sqlite3", "sqlite_engine", "SQLiteEngine"),
    ("psycopg", "postgres_engine", "PostgresEngine"),
    ("psycopg2", "postgres_engine", "PostgresEngine"),
    ("chdb", "clickhouse_engine", "ClickHouseEngine"),
    ("pyspark", "spark_engine", "SparkEngine"),
    ("datafusion", "datafusion_engine", "DataFusionEngine"),
    ("pymysql", "mysql_engine", "MySQLEngine"),
    ("MySQLdb", "mysql_engine", "MySQLEngine"),
    ("mysql", "mysql_engine", "MySQLEngine"),  # mysql.connector
    ("snowflake", "snowflake_engine", "SnowflakeEngine"),  # snowflake.connector
    ("fakesnow", "snowflake_engine", "SnowflakeEngine"),  # fakesnow's stand-in for it
)


def for_connection(con=None, dialect: str | None = None, **limits) -> Engine:
    """The engine for ``con``; ``None``: a connection of its own to the process's in-memory DuckDB
    (closed with the engine; a new database when limits are given). ``limits``
    (memory_limit, temp_directory, max_temp_size) apply to DuckDB."""
    limits = {k: v for k, v in limits.items() if v is not None}
    if con is None:
        import duckdb

        from .duckdb_engine import DuckDBEngine, shared_connection

        if not limits:  # the process's shared in-memory database, a connection of the call's own
            cursor, shared_limits = shared_connection()
            return DuckDBEngine(cursor, owned=True, dialect=dialect, shared_limits=shared_limits)
        return DuckDBEngine(duckdb.connect(), owned=True, dialect=dialect, **limits)
    if isinstance(con, Engine):
        return con
    import duckdb

    if isinstance(con, duckdb.DuckDBPyConnection):
        from .duckdb_engine import DuckDBEngine

        return DuckDBEngine(con, dialect=dialect, **limits)
    if limits:
        raise SettingError(f"{', '.join(sorted(limits))} apply to DuckDB; set memory and spilling on the "
                           f"{type(con).__module__.split('.')[0]} side")
    root = type(con).__module__.split(".")[0]
    for module, engine_module, cls in _KINDS:
        if root == module:
            return getattr(import_module(f".{engine_module}", __name__), cls)(con, dialect=dialect)
    if hasattr(con, "cursor") and dialect:
        from .dbapi import DBAPIEngine

        return DBAPIEngine(con, dialect=dialect)
    raise SettingError(
        "con must be a DuckDB connection, a DB-API connection (sqlite3, psycopg, chdb, pymysql, snowflake.connector), "
        f"a SparkSession or a DataFusion SessionContext, got {type(con).__module__}.{type(con).__name__}; for "
        "another DB-API connection also pass dialect= (a sqlglot dialect name)"
    )
