"""Apache Spark through a SparkSession: the distributed engine users move to when one machine is not enough.
The same SQL runs on a local session, a cluster or Databricks; tables are the metastore's, frames are Spark's."""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

from .base import Engine, MissingRelation, classify
from ...core import templates

#: The Python loggers pyspark (4 and later) writes a failed query to, with the JVM's stack trace, before it raises
#: the error: a missing table printed that ahead of sqlndcg's one-line message. They are disabled while sqlndcg
#: talks to Spark, and only then (restored after, whatever the user set); the JVM's log4j level is not touched
#: (SparkContext.setLogLevel is global and overrides the user's log settings).
QUERY_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
_quiet_lock = threading.Lock()
_quiet_depth = 0
_quiet_saved: list[tuple[logging.Logger, bool]] = []


def _query_loggers() -> list[logging.Logger]:
    """The loggers as pyspark makes them (a PySparkLogger: a plain logger of that name would break its calls)."""
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # pyspark 3 logs no query context
        return []
    return [PySparkLogger.getLogger(name) for name in QUERY_LOGGERS]


@contextmanager
def quiet():
    """pyspark's query loggers off for the block; nested and concurrent blocks (threads) restore them once, when the
    last one ends."""
    global _quiet_depth, _quiet_saved
    with _quiet_lock:
        if _quiet_depth == 0:
            _quiet_saved = [(logger, logger.disabled) for logger in _query_loggers()]
            for logger, _ in _quiet_saved:
                logger.disabled = True
        _quiet_depth += 1
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_depth -= 1
            if _quiet_depth == 0:
                for logger, disabled in _quiet_saved:
                    logger.disabled = disabled
                _quiet_saved = []


class SparkEngine(Engine):
    name = "Spark"
    dialect = "spark"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        from pyspark.errors import PySparkException

        self.errors = (PySparkException,)
        self._cached = {}

    def fetch(self, sql):
        with quiet():
            df = self.con.sql(sql)
            return list(df.columns), [tuple(r) for r in df.collect()]

    def execute(self, sql):
        with quiet():
            self.con.sql(sql)

    def fetch_arrow(self, sql, small=False):
        with quiet():
            return self.con.sql(sql).toArrow()

    def columns(self, relation_sql):
        from pyspark.errors import AnalysisException

        try:
            with quiet():
                schema = self.con.sql(templates.no_rows(relation_sql)).schema
        except AnalysisException as exc:
            if "TABLE_OR_VIEW_NOT_FOUND" in str(exc):
                raise MissingRelation(str(exc)) from None
            raise
        return {f.name: f.dataType.simpleString() for f in schema.fields}

    def column_class(self, type_name):
        return classify(type_name, ("tinyint", "smallint", "int", "bigint"), ("float", "double", "decimal"),
                        ("string", "varchar", "char"))

    def register(self, name, frame):
        from pyspark.sql import DataFrame

        with quiet():
            if not isinstance(frame, DataFrame):
                try:
                    frame = self.con.createDataFrame(frame)
                except Exception as exc:
                    super().register(name, frame)
                    raise exc
            frame.createOrReplaceTempView(name)

    def unregister(self, name):
        self.con.catalog.dropTempView(name)

    def materialize(self, name, sql, summed=True):
        """The rows computed once and kept (a local checkpoint: the view's plan is the kept rows, not the statement).
        A cached DataFrame is not enough: Spark substitutes the cache only where the plan matches, and a later
        statement reading the view inside a CTE (the summary) recomputed the whole per-query statement. A table
        that is ``summed`` later is one partition (one row per query is small next to the inputs): the summary's
        sums then add in one order, the same bits from run to run; others (the run's ranked top) keep Spark's."""
        with quiet():
            df = self.con.sql(sql)
            df = (df.coalesce(1) if summed else df).localCheckpoint(eager=True)
            df.createOrReplaceTempView(name.strip("`"))
        self._cached[name] = df

    def drop(self, name):
        self.con.catalog.dropTempView(name.strip("`"))
        df = self._cached.pop(name, None)
        if df is not None:
            df.unpersist()
