"""Apache Spark through a SparkSession: the distributed engine users move to when one machine is not enough.
The same SQL runs on a local session, a cluster or Databricks; tables are the metastore's, frames are Spark's."""

from __future__ import annotations

from .base import Engine, MissingRelation, classify


class SparkEngine(Engine):
    name = "Spark"
    dialect = "spark"

    def __init__(self, con, **kwargs):
        super().__init__(con, **kwargs)
        from pyspark.errors import PySparkException

        self.errors = (PySparkException,)
        self._cached = {}

    def fetch(self, sql):
        df = self.con.sql(sql)
        return list(df.columns), [tuple(r) for r in df.collect()]

    def execute(self, sql):
        self.con.sql(sql)

    def fetch_arrow(self, sql):
        return self.con.sql(sql).toArrow()

    def columns(self, relation_sql):
        from pyspark.errors import AnalysisException

        try:
            schema = self.con.sql(f"SELECT * FROM {relation_sql} AS input_rows LIMIT 0").schema
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

        if not isinstance(frame, DataFrame):
            try:
                frame = self.con.createDataFrame(frame)
            except Exception as exc:
                super().register(name, frame)
                raise exc
        frame.createOrReplaceTempView(name)

    def unregister(self, name):
        self.con.catalog.dropTempView(name)

    def materialize(self, name, sql):
        df = self.con.sql(sql).cache()
        df.count()
        df.createOrReplaceTempView(name.strip("`"))
        self._cached[name] = df

    def drop(self, name):
        self.con.catalog.dropTempView(name.strip("`"))
        df = self._cached.pop(name, None)
        if df is not None:
            df.unpersist()
