"""Evaluate the adversarial dataset (tests/adversarial.py) on a Spark that is not this test process's own: a
standalone cluster (``--master spark://...``, a classic driver) or a Spark Connect server (``--remote sc://...``).
Run as a separate process by tests/test_spark_cluster.py: a process holds one classic SparkContext, and a Connect
session switches pyspark into Connect mode for the whole process. Prints one JSON object."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sqlndcg  # noqa: E402
from adversarial import COMBINATIONS  # noqa: E402
from test_engines import frames  # noqa: E402


def session(args):
    from pyspark.sql import SparkSession

    if args.remote:
        return SparkSession.builder.remote(args.remote).getOrCreate()
    return (SparkSession.builder.master(args.master).appName("sqlndcg-tests-cluster")
            .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.executor.memory", "512m").config("spark.sql.shuffle.partitions", "2").getOrCreate())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--master")
    parser.add_argument("--remote")
    parser.add_argument("--combination", action="append", required=True)
    args = parser.parse_args()
    spark = session(args)
    out = {"session": type(spark).__module__, "results": {}}
    for ids in ("text", "int"):
        run_df, qrels_df = frames(ids)
        spark.createDataFrame(run_df).createOrReplaceTempView(f"run_{ids}")
        spark.createDataFrame(qrels_df).createOrReplaceTempView(f"qrels_{ids}")
        for name in args.combination:
            metrics, settings = COMBINATIONS[name]
            res = sqlndcg.evaluate(f"run_{ids}", f"qrels_{ids}", metrics=metrics, group_by="system", con=spark,
                                   **settings)
            out["results"][f"{ids}/{name}"] = {part: {"columns": list(getattr(res, part).columns),
                                                      "rows": [list(r) for r in getattr(res, part).rows]}
                                               for part in ("per_query", "summary", "account")}
    run_df, qrels_df = frames("text")  # pandas frames straight in: sqlndcg hands them to the session
    res = sqlndcg.evaluate(run_df, qrels_df, metrics=["ndcg@10", "ap"], group_by="system", con=spark)
    out["frames"] = {part: {"columns": list(getattr(res, part).columns),
                            "rows": [list(r) for r in getattr(res, part).rows]} for part in ("per_query", "summary")}
    out["to_sql_starts"] = sqlndcg.to_sql("run_text", "qrels_text", ["ndcg@10"], con=spark)[:40]
    if args.master:  # the executors that did the work (counted after it: a worker may register late)
        out["executors"] = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1  # minus the driver
    print(json.dumps(out, default=str))
    spark.stop()


if __name__ == "__main__":
    main()
