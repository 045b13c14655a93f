"""Time sqlndcg against its peers on the same Parquet files, and check that they compute the same numbers.

    python benchmarks/compare_peers.py --rows 1_000_000 --docs 100            # NDCG@10, every tool, 3 repetitions
    python benchmarks/compare_peers.py --rows 1_000_000 --metric-set 14       # NDCG and P at 1,3,5,10,20,100, MAP, MRR
    python benchmarks/compare_peers.py --data benchmarks/data/<dir> --tools sqlndcg,polars --repeat 5 --json out.json

Each measurement runs in a fresh child process (this script with --child), so its peak memory (the child's VmHWM from
/proc/self/status, read right after the work; ru_maxrss is not used, as Linux carries the forking parent's size into
it) is that tool's alone and no tool warms a cache for another. The repetitions are interleaved (every tool
once, then every tool again, in a rotated order). The time is the tool's work inside the child (reading the files
included, Python start-up and imports excluded); the memory is the child's peak resident set, imports included.

Tools (and the sqlndcg configuration each one is checked against):
  sqlndcg        sqlndcg.evaluate(run.parquet, judgments.parquet) end to end, default settings (exponential gain),
                 input checks on; per-query values, summary and account
  sqlndcg_trec   the same with preset="trec_eval" (linear gain): the reference for pytrec_eval and ranx
  sql            the per-query statement alone: sqlndcg.to_sql(run.parquet, judgments.parquet), executed in DuckDB
                 and fetched as Arrow (rendering not timed)                             -> checked against sqlndcg
  pytrec_eval    read the files with pyarrow, build its dicts of dicts (string ids), RelevanceEvaluator.evaluate
                                                                                     -> checked against sqlndcg_trec
  ranx           pandas DataFrames (ids as str objects, as ranx requires), Qrels/Run.from_df, ranx.evaluate
                 (make_comparable=True), per-query scores                              -> checked against sqlndcg_trec
  polars         as a strong polars user writes it, lazily: scan_parquet; per query, group_by().agg() of the doc
                 ids sort_by((score, doc_id) desc).head(max k) (whole lists for ap, rr); int_ranges positions;
                 explode; left join the judgments on those rows; DCG; IDCG from each query's top gains the same way
                                                                                       -> checked against sqlndcg
  duckdb         NDCG@k and P@k written by hand in DuckDB SQL: each query's top k by the top-N aggregate
                 max_by(doc_id, (score, doc_id), k), labels joined on the k rows, the ideal by max(rel, k) summed
                 as a list                                                             -> checked against sqlndcg
  pandas         as a pandas user writes it: sort every row by (query, score desc, doc_id desc), cumcount
                 positions, cut at max k, merge the judgments, DCG, IDCG from sorted gains -> checked against sqlndcg
  floor          DuckDB reads every run column, GROUP BY query (fetched), and reads the judgments: the least any
                 per-query evaluation over these files must do (no check)
  spark          (only when named in --tools) a local SparkSession (--spark-master, default local[2]); timed:
                 spark.read.parquet of both files, temp views, sqlndcg.evaluate("run_view", "judgments_view",
                 con=spark) end to end. The session's start-up (JVM launch, SparkContext) is timed separately and
                 is not in the time; the memory is the Python child's peak plus the driver JVM's (VmHWM of each)
                                                                                       -> checked against sqlndcg
  spark_sql      (when named) the per-query statement alone on the same kind of session: to_sql(..., con=spark) run
                 with spark.sql and collected as Arrow                                -> checked against sqlndcg
  spark_df       (when named) NDCG@k as a PySpark user writes it with DataFrames: ROW_NUMBER over each query's
                 (score, doc_id) desc, top k, left join the labels, ideal by a window over the judgments
                                                                                       -> checked against sqlndcg

The check compares every tool's per-query values with its sqlndcg reference on every query (the query sets must
be equal too) to --tolerance (1e-9). A disagreement is printed loudly; with --strict it makes the exit status 1.
Tools killed for using more than --max-rss of memory or running longer than --timeout are reported as such.
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

ALL_TOOLS = ["sqlndcg", "sqlndcg_trec", "sql", "pytrec_eval", "ranx", "polars", "duckdb", "pandas", "floor",
             "spark", "spark_sql", "spark_df"]
DEFAULT_TOOLS = [t for t in ALL_TOOLS if not t.startswith("spark")]  # Spark (a JVM) only when asked for
REFERENCE = {"sql": "sqlndcg", "polars": "sqlndcg", "duckdb": "sqlndcg", "pandas": "sqlndcg",
             "spark": "sqlndcg", "spark_sql": "sqlndcg", "spark_df": "sqlndcg",
             "pytrec_eval": "sqlndcg_trec", "ranx": "sqlndcg_trec"}
CUTOFFS = (1, 3, 5, 10, 20, 100)
CUTOFF_ONLY = {"duckdb": ("ndcg", "p"), "spark_df": ("ndcg",)}  # peers written for these kinds, each with a cutoff
METRIC_SET_14 = [f"ndcg@{k}" for k in CUTOFFS] + [f"p@{k}" for k in CUTOFFS] + ["ap", "rr"]


# ----------------------------------------------------------------------------------------------------------------
# metrics: the names each tool uses
# ----------------------------------------------------------------------------------------------------------------

def parse_metric(name: str) -> tuple[str, int | None]:
    """'ndcg@10' -> ('ndcg', 10); 'ap' -> ('ap', None). Only the kinds every peer here implements."""
    m = re.fullmatch(r"(ndcg|p|ap|rr)(?:@(\d+))?", name)
    if not m:
        raise SystemExit(f"metric {name!r}: this benchmark knows ndcg@k, p@k, ap (MAP), rr (MRR)")
    kind, k = m.group(1), m.group(2)
    if kind == "p" and k is None:
        raise SystemExit("p needs a cutoff (p@k)")
    return kind, int(k) if k else None


def computes(tool: str, metrics: list[str], asked: bool) -> bool:
    """Whether ``tool`` computes every metric; a tool the default list holds is left out (said), a named one
    stops the run."""
    kinds = CUTOFF_ONLY.get(tool)
    if kinds is None or all(kind in kinds and k for kind, k in map(parse_metric, metrics)):
        return True
    what = " and ".join(f"{kind}@k" for kind in kinds)
    if asked:
        raise SystemExit(f"--tools {tool}: it computes {what} only, not {','.join(metrics)}")
    print(f"({tool} left out: it computes {what} only)")
    return False


def pytrec_measure(name: str) -> tuple[str, str]:
    """(the measure to ask for, the key pytrec_eval answers with)."""
    kind, k = parse_metric(name)
    if kind == "ndcg":
        return ("ndcg_cut." + str(k), f"ndcg_cut_{k}") if k else ("ndcg", "ndcg")
    if kind == "p":
        return "P." + str(k), f"P_{k}"
    if kind == "ap":
        return ("map_cut." + str(k), f"map_cut_{k}") if k else ("map", "map")
    if k:
        raise SystemExit("pytrec_eval has no rr@k; use rr")
    return "recip_rank", "recip_rank"


def ranx_metric(name: str) -> str:
    kind, k = parse_metric(name)
    base = {"ndcg": "ndcg", "p": "precision", "ap": "map", "rr": "mrr"}[kind]
    return f"{base}@{k}" if k else base


# ----------------------------------------------------------------------------------------------------------------
# the tools (run inside the child process); each returns {query_id (str): {metric: value}} or a table
# ----------------------------------------------------------------------------------------------------------------

def _duck_con(args):
    import duckdb

    con = duckdb.connect()
    # Spill beside the data (git-ignored), in a directory of this child's own, never DuckDB's ./.tmp.
    spill = Path(args.run).resolve().parent / f".spill-{os.getpid()}"
    con.execute("SET temp_directory = $dir", {"dir": str(spill)})
    free = shutil.disk_usage(spill.parent).free  # bounded: running out is DuckDB's error, not a full disk
    con.execute("SET max_temp_directory_size = $size", {"size": f"{int(free * 0.7) // 2**20}MiB"})
    atexit.register(shutil.rmtree, spill, True)
    if args.memory_limit:
        con.execute("SET memory_limit = $limit", {"limit": args.memory_limit})
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}")
    return con


def _arrow(con, sql: str):
    """The result of ``sql`` as an Arrow table, fetched from a relation (DuckDB 2's to_arrow_table, DuckDB 1's
    arrow): Arrow from a DB-API cursor makes an extra copy of the rows."""
    relation = con.sql(sql)
    return (getattr(relation, "to_arrow_table", None) or relation.arrow)()


def _values_from_arrow(table, metrics):
    """An Arrow table with query_id and metric columns -> the uniform values table (query_id as text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = {"query_id": pc.cast(table.column("query_id"), pa.string())}
    for m in metrics:
        cols[m] = pc.cast(table.column(m), pa.float64())
    return pa.table(cols)


def tool_sqlndcg(args, metrics, trec: bool):
    import sqlndcg

    con = _duck_con(args)
    kwargs = {"preset": "trec_eval"} if trec else {}
    start = time.perf_counter()
    res = sqlndcg.evaluate(args.run, args.judgments, metrics, con=con, partitions=args.partitions or 1, **kwargs)
    elapsed = time.perf_counter() - start
    return elapsed, (lambda: _values_from_arrow(res.per_query.to_arrow(), metrics))


def tool_sql(args, metrics):
    import sqlndcg

    con = _duck_con(args)
    sql = sqlndcg.to_sql(args.run, args.judgments, metrics, con=con)  # the statement reads the Parquet files
    start = time.perf_counter()
    table = _arrow(con, sql)
    elapsed = time.perf_counter() - start
    return elapsed, (lambda: _values_from_arrow(table, metrics))


def tool_floor(args, metrics):
    con = _duck_con(args)
    start = time.perf_counter()
    _arrow(con, f"""SELECT query_id, count(*) AS n, max(doc_id) AS d, max(score) AS s
                    FROM read_parquet({_sql_text(args.run)}) GROUP BY query_id""")
    con.execute(f"""SELECT count(*), max(query_id), max(doc_id), sum(rel)
                    FROM read_parquet({_sql_text(args.judgments)})""").fetchall()
    return time.perf_counter() - start, None


def tool_pytrec_eval(args, metrics):
    import pyarrow.parquet as pq
    import pytrec_eval

    asked = {}
    for m in metrics:
        measure, key = pytrec_measure(m)
        asked[m] = (measure, key)
    start = time.perf_counter()
    run, qrels = {}, {}
    t = pq.read_table(args.run, columns=["query_id", "doc_id", "score"])
    for q, d, s in zip(map(str, t.column("query_id").to_pylist()), map(str, t.column("doc_id").to_pylist()),
                       t.column("score").to_pylist()):
        inner = run.get(q)
        if inner is None:
            inner = run[q] = {}
        inner[d] = s
    del t
    t = pq.read_table(args.judgments, columns=["query_id", "doc_id", "rel"])
    for q, d, r in zip(map(str, t.column("query_id").to_pylist()), map(str, t.column("doc_id").to_pylist()),
                       t.column("rel").to_pylist()):
        inner = qrels.get(q)
        if inner is None:
            inner = qrels[q] = {}
        inner[d] = int(r)
    del t
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure for measure, _ in asked.values()})
    out = evaluator.evaluate(run)
    elapsed = time.perf_counter() - start

    def values():
        import pyarrow as pa

        qids = list(out)
        cols = {"query_id": pa.array(qids, pa.string())}
        for m, (_, key) in asked.items():
            cols[m] = pa.array([out[q][key] for q in qids], pa.float64())
        return pa.table(cols)

    return elapsed, values


def tool_ranx(args, metrics):
    import pandas as pd
    import ranx

    names = {m: ranx_metric(m) for m in metrics}
    start = time.perf_counter()
    run_df = pd.read_parquet(args.run, columns=["query_id", "doc_id", "score"])
    qrels_df = pd.read_parquet(args.judgments, columns=["query_id", "doc_id", "rel"])
    for df in (run_df, qrels_df):  # ranx asserts object (Python str) ids
        df["query_id"] = df["query_id"].astype(str).astype(object)
        df["doc_id"] = df["doc_id"].astype(str).astype(object)
    run_df["score"] = run_df["score"].astype("float64")
    qrels_df["rel"] = qrels_df["rel"].astype("int64")
    qrels = ranx.Qrels.from_df(qrels_df, q_id_col="query_id", doc_id_col="doc_id", score_col="rel")
    run = ranx.Run.from_df(run_df, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    del run_df, qrels_df
    ranx.evaluate(qrels, run, list(names.values()), make_comparable=True)
    elapsed = time.perf_counter() - start

    def values():
        import pyarrow as pa

        scores = run.scores  # {metric: {query: value}}
        qids = list(scores[names[metrics[0]]])
        cols = {"query_id": pa.array(qids, pa.string())}
        for m, rn in names.items():
            cols[m] = pa.array([float(scores[rn][q]) for q in qids], pa.float64())
        return pa.table(cols)

    return elapsed, values


def _plan(metrics):
    """The parsed metrics and the depth every one of them reads (None when one reads whole lists: ap, rr)."""
    parsed = [parse_metric(m) for m in metrics]
    ks = [k for _, k in parsed]
    depth = max(ks) if all(k is not None for k in ks) else None
    return parsed, depth


def _sql_text(value) -> str:
    """A SQL string literal (a file path), quotes doubled."""
    return "'" + str(value).replace("'", "''") + "'"


def polars_frame(run, judgments, metrics, exponential: bool = True):
    """Per-query values as a strong polars user writes them, lazily: each query's best documents by
    group_by().agg(sort_by().head(depth)) (no window over every row, no sort of every row), positions by
    int_ranges, explode, the labels joined on those rows only and gains computed there; the ideal the same way
    over the judgments. A metric without a cutoff (ap, rr) ranks whole lists. One row per judged query (0 for one
    the run lacks)."""
    import polars as pl

    parsed, depth = _plan(metrics)
    judg = pl.scan_parquet(judgments).select("query_id", "doc_id", "rel")
    ranked_docs = pl.col("doc_id").sort_by(["score", "doc_id"], descending=[True, True])
    ranked = (pl.scan_parquet(run).group_by("query_id").agg(ranked_docs.head(depth) if depth else ranked_docs)
              .with_columns(pos=pl.int_ranges(1, pl.col("doc_id").list.len() + 1))
              .explode(["doc_id", "pos"])
              .join(judg, on=["query_id", "doc_id"], how="left"))
    per_run = ranked.group_by("query_id").agg(_polars_run_aggs(parsed, exponential))
    if any(kind == "ap" for kind, _ in parsed):
        per_judged = judg.group_by("query_id").agg(_R=(pl.col("rel") >= 1).sum())
    else:
        per_judged = judg.select("query_id").unique()
    ndcg_ks = sorted({k for kind, k in parsed if kind == "ndcg"}, key=lambda k: k or 0)
    if ndcg_ks:
        deepest = None if None in ndcg_ks else max(ndcg_ks)
        best = pl.col("rel").sort(descending=True)
        ideal = (judg.filter(pl.col("rel") > 0).group_by("query_id").agg(best.head(deepest) if deepest else best)
                 .with_columns(pos=pl.int_ranges(1, pl.col("rel").list.len() + 1)).explode(["rel", "pos"])
                 .group_by("query_id")
                 .agg([(_polars_gain(exponential) / _polars_log_pos()).filter(pl.col("pos") <= k if k else pl.lit(True))
                       .sum().alias(f"_idcg{k}") for k in ndcg_ks]))
        per_judged = per_judged.join(ideal, on="query_id", how="left")
    out = per_judged.join(per_run, on="query_id", how="left")
    return out.select("query_id", *[_polars_value(kind, k).alias(m) for (kind, k), m in zip(parsed, metrics)])


def _polars_gain(exponential: bool):
    """The gain of a positive label (every other label and an unjudged document gain 0)."""
    import polars as pl

    rel = pl.col("rel").cast(pl.Float64)
    return 2.0 ** rel - 1.0 if exponential else rel


def _polars_log_pos():
    import polars as pl

    return (pl.col("pos") + 1).cast(pl.Float64).log(2)


def _polars_run_aggs(parsed, exponential: bool):
    """The sums over each ranked list (labels joined, NULL when unjudged) that the metrics need."""
    import polars as pl

    aggs = {}
    for kind, k in parsed:
        within = pl.col("pos") <= k if k else pl.lit(True)
        hit_pos = pl.col("pos").filter((pl.col("rel") >= 1) & within)
        if kind == "ndcg":
            gains = _polars_gain(exponential) / _polars_log_pos()
            aggs[f"_dcg{k}"] = gains.filter((pl.col("rel") > 0) & within).sum()
        elif kind == "p":
            aggs[f"_hits{k}"] = hit_pos.len()
        elif kind == "rr":
            aggs[f"_first{k}"] = hit_pos.min()
        elif kind == "ap":  # the n-th relevant document in rank order has seen n relevant ones
            ranked_hits = hit_pos.sort()
            aggs[f"_apsum{k}"] = (ranked_hits.cum_count() / ranked_hits).sum()
    return [agg.alias(name) for name, agg in aggs.items()]


def _polars_value(kind, k):
    import polars as pl

    if kind == "ndcg":
        idcg = pl.col(f"_idcg{k}").fill_null(0.0)
        return pl.when(idcg > 0).then(pl.col(f"_dcg{k}").fill_null(0.0) / idcg).otherwise(0.0)
    if kind == "p":
        return pl.col(f"_hits{k}").fill_null(0) / k
    if kind == "rr":
        return (1.0 / pl.col(f"_first{k}")).fill_null(0.0)
    return pl.when(pl.col("_R") > 0).then(pl.col(f"_apsum{k}").fill_null(0.0) / pl.col("_R")).otherwise(0.0)


def duckdb_sql(run, judgments, metrics, exponential: bool = True) -> str:
    """Per-query NDCG@k and P@k as a strong DuckDB user writes them by hand: each query's k best documents by the
    top-N aggregate max_by(doc_id, (score, doc_id), k) (computed once, positions by range), the labels joined on
    those k rows only, and every judged query's k best grades by max(rel, k) in the same pass that lists the
    judged queries, summed as a list (no second unnest). One row per judged query (0 for one the run lacks)."""
    parsed, depth = _plan(metrics)
    if depth is None or any(kind not in ("ndcg", "p") for kind, _ in parsed):
        raise SystemExit("the duckdb peer computes ndcg@k and p@k only")
    run_sql, judgments_sql = f"read_parquet({_sql_text(run)})", f"read_parquet({_sql_text(judgments)})"
    gain = "pow(2.0, {0}) - 1" if exponential else "{0}"
    ks = sorted({k for _, k in parsed})
    run_sums = ",\n         ".join(
        [f"sum(({gain.format('j.rel')}) / log2(pos + 1)) FILTER (WHERE j.rel > 0 AND pos <= {k}) AS dcg{k}"
         for k in ks if ("ndcg", k) in parsed]
        + [f"count(*) FILTER (WHERE j.rel >= 1 AND pos <= {k}) AS hits{k}" for k in ks if ("p", k) in parsed])
    ideal = ",\n         ".join(
        f"list_sum(list_transform(grades[1:{k}], lambda g, i: ({gain.format('g')}) / log2(i + 1))) AS idcg{k}"
        for k in ks if ("ndcg", k) in parsed) or "0 AS _none"
    values = ",\n       ".join(
        (f"CASE WHEN idcg{k} > 0 THEN coalesce(dcg{k}, 0) / idcg{k} ELSE 0.0 END" if kind == "ndcg"
         else f"coalesce(hits{k}, 0) / {k}.0") + f' AS "{m}"' for (kind, k), m in zip(parsed, metrics))
    return f"""WITH top AS (
  SELECT query_id, max_by(doc_id, (score, doc_id), {depth}) AS docs FROM {run_sql} GROUP BY query_id
), ranked AS (
  SELECT query_id, unnest(docs) AS doc_id, unnest(range(1, len(docs) + 1)) AS pos FROM top
), per_run AS (
  SELECT r.query_id,
         {run_sums}
  FROM ranked r LEFT JOIN {judgments_sql} j ON j.query_id = r.query_id AND j.doc_id = r.doc_id
  GROUP BY r.query_id
), judged AS (
  SELECT query_id, max(rel, {depth}) FILTER (WHERE rel > 0) AS grades FROM {judgments_sql} GROUP BY query_id
), ideal AS (
  SELECT query_id,
         {ideal}
  FROM judged
)
SELECT query_id,
       {values}
FROM ideal LEFT JOIN per_run USING (query_id)"""


def tool_polars(args, metrics):
    start = time.perf_counter()
    table = polars_frame(args.run, args.judgments, metrics, exponential=not args.linear).collect().to_arrow()
    elapsed = time.perf_counter() - start
    return elapsed, (lambda: _values_from_arrow(table, metrics))


def tool_duckdb(args, metrics):
    con = _duck_con(args)
    sql = duckdb_sql(args.run, args.judgments, metrics, exponential=not args.linear)
    start = time.perf_counter()
    table = _arrow(con, sql)
    elapsed = time.perf_counter() - start
    return elapsed, (lambda: _values_from_arrow(table, metrics))


def tool_pandas(args, metrics):
    import numpy as np
    import pandas as pd

    parsed, prune = _plan(metrics)
    kinds = {kind for kind, _ in parsed}
    exponential = not args.linear
    start = time.perf_counter()
    run = pd.read_parquet(args.run, columns=["query_id", "doc_id", "score"])
    judg = pd.read_parquet(args.judgments, columns=["query_id", "doc_id", "rel"])
    run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], ignore_index=True)
    run["pos"] = run.groupby("query_id", sort=False).cumcount() + 1
    if prune:
        run = run[run["pos"] <= prune]
    rel = judg["rel"].to_numpy(dtype="float64")
    judg["gain"] = np.where(rel > 0, (2.0 ** rel - 1.0) if exponential else rel, 0.0)
    judg["relevant"] = (rel >= 1).astype("int64")
    scored = run.merge(judg[["query_id", "doc_id", "gain", "relevant"]], on=["query_id", "doc_id"], how="left")
    scored["gain"] = scored["gain"].fillna(0.0)
    scored["relevant"] = scored["relevant"].fillna(0).astype("int64")
    scored = scored.sort_values(["query_id", "pos"], ignore_index=True)
    pos = scored["pos"].to_numpy(dtype="float64")
    scored["_dg"] = scored["gain"].to_numpy() / np.log2(pos + 1.0)
    if "ap" in kinds:
        seen = scored.groupby("query_id", sort=False)["relevant"].cumsum().to_numpy()
        scored["_prec"] = np.where(scored["relevant"].to_numpy() == 1, seen / pos, 0.0)
    grouped_cols = {}
    for kind, k in parsed:
        within = scored["pos"] <= k if k else pd.Series(True, index=scored.index)
        if kind == "ndcg":
            scored[f"_dcg{k}"] = scored["_dg"].where(within, 0.0)
            grouped_cols[f"_dcg{k}"] = "sum"
        elif kind == "p":
            scored[f"_hits{k}"] = scored["relevant"].where(within, 0)
            grouped_cols[f"_hits{k}"] = "sum"
        elif kind == "rr":
            scored[f"_first{k}"] = scored["pos"].where(within & (scored["relevant"] == 1))
            grouped_cols[f"_first{k}"] = "min"
        elif kind == "ap":
            scored[f"_apsum{k}"] = scored["_prec"].where(within, 0.0)
            grouped_cols[f"_apsum{k}"] = "sum"
    per_run = scored.groupby("query_id", sort=False).agg(grouped_cols)
    ideal = judg[judg["gain"] > 0].sort_values(["query_id", "gain"], ascending=[True, False], ignore_index=True)
    ideal["pos"] = ideal.groupby("query_id", sort=False).cumcount() + 1
    ideal["_dg"] = ideal["gain"].to_numpy() / np.log2(ideal["pos"].to_numpy(dtype="float64") + 1.0)
    per_query = judg.groupby("query_id", sort=False).agg(_R=("relevant", "sum"))
    for kind, k in parsed:
        if kind == "ndcg":
            within = ideal["pos"] <= k if k else True
            per_query[f"_idcg{k}"] = ideal["_dg"].where(within, 0.0).groupby(ideal["query_id"]).sum()
    out = per_query.join(per_run, how="left")
    result = pd.DataFrame({"query_id": out.index})
    for (kind, k), m in zip(parsed, metrics):
        if kind == "ndcg":
            idcg = out[f"_idcg{k}"].fillna(0.0).to_numpy()
            dcg = out[f"_dcg{k}"].fillna(0.0).to_numpy()
            result[m] = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
        elif kind == "p":
            result[m] = out[f"_hits{k}"].fillna(0).to_numpy() / k
        elif kind == "rr":
            result[m] = (1.0 / out[f"_first{k}"]).fillna(0.0).to_numpy()
        elif kind == "ap":
            big_r = out["_R"].to_numpy()
            result[m] = np.where(big_r > 0, out[f"_apsum{k}"].fillna(0.0).to_numpy() / np.maximum(big_r, 1), 0.0)
    elapsed = time.perf_counter() - start

    def values():
        import pyarrow as pa

        return _values_from_arrow(pa.Table.from_pandas(result, preserve_index=False), metrics)

    return elapsed, values


_SPARK = {}  # the child's SparkSession, stopped by child_main after the values are written


def _peak_kib_of(pid) -> int:
    """VmHWM of a process (KiB), 0 if unreadable."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _spark_session(args):
    """A local SparkSession for one child; its start-up (JVM launch, SparkContext) is timed apart."""
    from pyspark.sql import SparkSession

    t0 = time.perf_counter()
    spark = (SparkSession.builder.master(args.spark_master).appName("sqlndcg-compare-peers")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", str(args.spark_partitions))
             .config("spark.driver.memory", args.spark_driver_memory)
             .config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    startup = time.perf_counter() - t0
    _SPARK["session"] = spark
    spark.sparkContext.setLogLevel("ERROR")
    jvm_pid = int(spark._jvm.java.lang.ProcessHandle.current().pid())
    jvm_max_heap = int(spark._jvm.java.lang.Runtime.getRuntime().maxMemory())
    info = {"startup_s": round(startup, 3), "jvm_pid": jvm_pid, "jvm_peak_kib": _peak_kib_of(jvm_pid),
            "jvm_max_heap_mib": jvm_max_heap // (1024 * 1024), "master": args.spark_master,
            "shuffle_partitions": args.spark_partitions, "driver_memory": args.spark_driver_memory,
            "pyspark": __import__("pyspark").__version__}
    return spark, info


def tool_spark(args, metrics):
    """sqlndcg.evaluate(con=SparkSession): read + evaluate timed (checks, per-query values, summary, account)."""
    import sqlndcg

    spark, info = _spark_session(args)
    start = time.perf_counter()
    spark.read.parquet(str(args.run)).createOrReplaceTempView("run_view")
    spark.read.parquet(str(args.judgments)).createOrReplaceTempView("judgments_view")
    t_read = time.perf_counter()
    res = sqlndcg.evaluate("run_view", "judgments_view", metrics, con=spark)
    elapsed = time.perf_counter() - start
    info.update(read_and_views_s=round(t_read - start, 3), evaluate_s=round(time.perf_counter() - t_read, 3))
    return elapsed, (lambda: _values_from_arrow(res.per_query.to_arrow(), metrics)), info


def tool_spark_sql(args, metrics):
    """The per-query statement alone on Spark (rendered before the clock starts), collected as Arrow."""
    import sqlndcg

    spark, info = _spark_session(args)
    spark.read.parquet(str(args.run)).createOrReplaceTempView("run_view")
    spark.read.parquet(str(args.judgments)).createOrReplaceTempView("judgments_view")
    sql = sqlndcg.to_sql("run_view", "judgments_view", metrics, con=spark)
    start = time.perf_counter()
    table = spark.sql(sql).toArrow()
    elapsed = time.perf_counter() - start
    return elapsed, (lambda: _values_from_arrow(table, metrics)), info


def spark_df_frame(run, judg, metrics, exponential: bool = True):
    """NDCG@k written by hand with PySpark DataFrames, as a Spark user would (ROW_NUMBER over each query's
    (score, doc_id) desc cut at k, which Spark plans as a WindowGroupLimit; labels joined on the top k and gains
    computed there; the ideal by the same window over the positive judgments): the peer for sqlndcg on Spark.
    ``run``, ``judg``: DataFrames. One row per judged query."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    parsed, depth = _plan(metrics)
    if any(kind != "ndcg" or k is None for kind, k in parsed):
        raise SystemExit("spark_df computes ndcg@k only")
    judg = judg.select("query_id", "doc_id", "rel")

    def dcg_at(k):  # of positive labels at positions <= k (rows past depth are already cut)
        rel = F.col("rel").cast("double")
        gain = F.pow(F.lit(2.0), rel) - 1.0 if exponential else rel
        keep = F.col("rel") > 0 if k == depth else (F.col("rel") > 0) & (F.col("pos") <= k)
        return F.sum(F.when(keep, gain / F.log2(F.col("pos") + 1.0)))

    by_score = Window.partitionBy("query_id").orderBy(F.col("score").desc(), F.col("doc_id").desc())
    top = (run.select("query_id", "doc_id", "score").withColumn("pos", F.row_number().over(by_score))
           .where(F.col("pos") <= depth))
    ks = sorted({k for _, k in parsed})
    dcg = (top.join(judg, ["query_id", "doc_id"], "left").groupBy("query_id")
           .agg(*[dcg_at(k).alias(f"dcg{k}") for k in ks]))
    by_rel = Window.partitionBy("query_id").orderBy(F.col("rel").desc())
    idcg = (judg.where(F.col("rel") > 0).withColumn("pos", F.row_number().over(by_rel)).where(F.col("pos") <= depth)
            .groupBy("query_id").agg(*[dcg_at(k).alias(f"idcg{k}") for k in ks]))
    judged = judg.select("query_id").distinct()
    return judged.join(idcg, "query_id", "left").join(dcg, "query_id", "left").select(
        "query_id", *[F.when(F.col(f"idcg{k}") > 0, F.coalesce(F.col(f"dcg{k}"), F.lit(0.0)) / F.col(f"idcg{k}"))
                      .otherwise(0.0).alias(m) for (_, k), m in zip(parsed, metrics)])


def tool_spark_df(args, metrics):
    """spark_df_frame on a fresh local session (its start-up not timed), reading the Parquet files included."""
    spark, info = _spark_session(args)
    start = time.perf_counter()
    out = spark_df_frame(spark.read.parquet(str(args.run)), spark.read.parquet(str(args.judgments)), metrics,
                         exponential=not args.linear)
    table = out.toArrow()
    elapsed = time.perf_counter() - start
    return elapsed, (lambda: _values_from_arrow(table, metrics)), info


def tool_sqlndcg_stages(args, metrics):
    """sqlndcg.evaluate with the engine's stages timed (functions wrapped by name; missing names are skipped)."""
    import importlib

    import sqlndcg

    timings: dict[str, float] = {}
    calls: dict[str, int] = {}
    each: dict[str, list[float]] = {}
    wrapped = [
        ("sqlndcg.verbs.scoring", "prepare", "prepare (resolve, describe, checks, render)"),
        ("sqlndcg.run.checks", "check_trec_lines", "  checks: TREC line check"),
        ("sqlndcg.run.checks", "check_run", "  checks: run rows (NULL, non-finite)"),
        ("sqlndcg.run.checks", "check_judgments", "  checks: judgment rows (NULL, non-finite, range)"),
        ("sqlndcg.verbs.scoring", "_checked_account", "  account + repeated (query, doc) pairs, one pass"),
        ("sqlndcg.verbs.scoring", "execute", "execute (per-query table, summary)"),
        ("sqlndcg.verbs.scoring", "_fetch", "  _fetch (per-query rows, summary as Arrow)"),
        ("sqlndcg.verbs.scoring", "_refuse_bad_numbers", "  non-finite / empty scan"),
        ("sqlndcg.verbs.scoring", "_summary", "  summary"),
    ]

    def wrap(fn, label):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                timings[label] = timings.get(label, 0.0) + time.perf_counter() - t0
                calls[label] = calls.get(label, 0) + 1
                each.setdefault(label, []).append(round(time.perf_counter() - t0, 3))
        return timed

    for module, name, label in wrapped:
        mod = importlib.import_module(module)
        fn = getattr(mod, name, None)
        if fn is not None:
            setattr(mod, name, wrap(fn, label))
    con = _duck_con(args)
    start = time.perf_counter()
    sqlndcg.evaluate(args.run, args.judgments, metrics, con=con, partitions=args.partitions or 1)
    total = time.perf_counter() - start
    stages = {label: (round(timings[label], 3), calls[label], each[label]) for _, _, label in wrapped
              if label in timings}
    return total, None, stages


def _peak_kib() -> int:
    """This process's peak resident set since its exec (VmHWM): unlike ru_maxrss, which Linux carries over from
    the forked parent's image, it is the tool's own."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def child_main(args) -> None:
    metrics = args.metrics.split(",")
    tool = args.child
    extra = None
    spark_info = None
    if tool == "sqlndcg":
        elapsed, values = tool_sqlndcg(args, metrics, trec=False)
    elif tool == "sqlndcg_trec":
        elapsed, values = tool_sqlndcg(args, metrics, trec=True)
    elif tool == "sqlndcg_stages":
        elapsed, values, extra = tool_sqlndcg_stages(args, metrics)
    elif tool.startswith("spark"):
        elapsed, values, spark_info = globals()["tool_" + tool](args, metrics)
    else:
        elapsed, values = globals()["tool_" + tool](args, metrics)
    peak = _peak_kib()  # before the values are written out for the check (not the tool's work)
    if spark_info is not None:  # the driver JVM is a separate process: its peak counts too
        spark_info["python_peak_kib"] = peak
        spark_info["jvm_peak_kib"] = max(spark_info["jvm_peak_kib"], _peak_kib_of(spark_info["jvm_pid"]))
        peak += spark_info["jvm_peak_kib"]
    if args.values and values is not None:
        import pyarrow.parquet as pq

        pq.write_table(values(), args.values)
    if "session" in _SPARK:
        _SPARK.pop("session").stop()
    print(json.dumps({"seconds": elapsed, "stages": extra, "peak_kib": peak, "spark": spark_info}))


# ----------------------------------------------------------------------------------------------------------------
# the parent: children, memory, timing, the agreement check, the table
# ----------------------------------------------------------------------------------------------------------------

def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_rss_kib(pid: int) -> int:
    """Resident set of a process and all its descendants (the spark child's driver JVM is one)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += _rss_kib(p)
        todo.extend(children.get(p, ()))
    return total


def run_child(tool: str, args, metrics: list[str], values_path: str | None) -> dict:
    """Run one measurement in a child process; watch its memory and time; return what happened."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", tool, "--run", str(args.run_path),
           "--judgments", str(args.judgments_path), "--metrics", ",".join(metrics)]
    if tool in ("pytrec_eval", "ranx"):
        cmd.append("--linear")
    if args.memory_limit:
        cmd += ["--memory-limit", args.memory_limit]
    if args.partitions:
        cmd += ["--partitions", str(args.partitions)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    if values_path:
        cmd += ["--values", values_path]
    if tool == "spark":
        cmd += ["--spark-master", args.spark_master, "--spark-partitions", str(args.spark_partitions),
                "--spark-driver-memory", args.spark_driver_memory]
    env = dict(os.environ)
    if args.sqlndcg_src:
        env["PYTHONPATH"] = os.pathsep.join([str(args.sqlndcg_src)] + [p for p in [env.get("PYTHONPATH")] if p])
    if args.threads:
        env.update(POLARS_MAX_THREADS=str(args.threads), NUMBA_NUM_THREADS=str(args.threads),
                   OMP_NUM_THREADS=str(args.threads))
    limit_kib = int(args.max_rss * 1024 * 1024)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        # its own process group, so that a kill also ends what it started (the spark child's driver JVM)
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, start_new_session=True)
        killed = None
        polled_kib = 0
        rss = _tree_rss_kib if tool == "spark" else _rss_kib
        polls = 0
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if killed is None and (tool != "spark" or polls % 10 == 0):  # the tree scan: every 0.5 s
                    polled_kib = max(polled_kib, rss(proc.pid))
                    if polled_kib > limit_kib:
                        killed = f"out of memory (> {args.max_rss:g} GiB RSS, killed)"
                    elif time.perf_counter() - started > args.timeout:
                        killed = f"out of time (> {args.timeout:g} s, killed)"
                    if killed:
                        os.killpg(proc.pid, signal.SIGKILL)
                polls += 1
                time.sleep(0.05)
        except BaseException:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            raise
        if tool == "spark":  # the child is gone: end a driver JVM it may have left behind (e.g. when it failed)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    # peak memory: the child's own VmHWM when it finishes; else the largest RSS seen while polling (ru_maxrss of
    # the child would include the parent's resident set at fork time, so it is kept only for the record)
    result = {"tool": tool, "wall": wall, "peak_rss_mib": polled_kib / 1024, "ru_maxrss_mib": usage.ru_maxrss / 1024,
              "status": "ok"}
    if killed:
        result["status"] = killed
    elif proc.returncode != 0:
        tail = stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        if proc.returncode == -signal.SIGKILL:
            result["status"] = "killed by SIGKILL (the kernel's OOM killer?)"
        else:
            result["status"] = "failed: " + tail[0][:200]
    else:
        payload = json.loads(stdout.strip().splitlines()[-1])
        result["seconds"] = payload["seconds"]
        result["peak_rss_mib"] = payload["peak_kib"] / 1024
        if payload.get("stages"):
            result["stages"] = payload["stages"]
        if payload.get("spark"):
            result["spark"] = payload["spark"]
    return result


def compare_values(tool: str, ref_tool: str, values_path: str, ref_path: str, metrics: list[str], tol: float) -> dict:
    """Every query's value of every metric, tool vs reference."""
    import numpy as np
    import pyarrow.parquet as pq

    a = pq.read_table(values_path).to_pandas().set_index("query_id")
    b = pq.read_table(ref_path).to_pandas().set_index("query_id")
    only_tool = sorted(set(a.index) - set(b.index))
    only_ref = sorted(set(b.index) - set(a.index))
    common = a.index.intersection(b.index)
    a, b = a.loc[common], b.loc[common]
    report = {"tool": tool, "reference": ref_tool, "queries": len(common), "only_in_tool": len(only_tool),
              "only_in_reference": len(only_ref), "metrics": {}, "ok": not only_tool and not only_ref}
    for m in metrics:
        x, y = a[m].to_numpy(dtype="float64"), b[m].to_numpy(dtype="float64")
        both_nan = np.isnan(x) & np.isnan(y)
        diff = np.where(both_nan, 0.0, np.abs(x - y))
        diff = np.where(np.isnan(diff), np.inf, diff)
        bad = np.flatnonzero(diff > tol)
        entry = {"max_abs_diff": float(diff.max()) if len(diff) else 0.0, "queries_over_tolerance": int(len(bad))}
        if len(bad):
            report["ok"] = False
            worst = bad[np.argsort(-diff[bad])][:5]
            entry["examples"] = [{"query_id": str(common[i]), tool: float(x[i]), ref_tool: float(y[i])} for i in worst]
        report["metrics"][m] = entry
    bad_any = set()
    for m in metrics:
        x, y = a[m].to_numpy(dtype="float64"), b[m].to_numpy(dtype="float64")
        d = np.abs(x - y)
        bad_any.update(str(q) for q in common[~((d <= tol) | (np.isnan(x) & np.isnan(y)))])
    report["_bad_queries"] = sorted(bad_any)
    if only_tool or only_ref:
        report["examples_only_in_tool"] = only_tool[:5]
        report["examples_only_in_reference"] = only_ref[:5]
    return report


def tied_among(run_path, rep: dict) -> tuple[int, int] | None:
    """(how many of the disagreeing queries have two documents with the same score, how many disagree)."""
    import duckdb

    bad = rep.get("_bad_queries")
    if not bad:
        return None
    con = duckdb.connect()
    con.execute("CREATE TEMP TABLE bad(q VARCHAR)")
    con.executemany("INSERT INTO bad VALUES (?)", [(q,) for q in bad])
    n = con.execute(f"""SELECT count(*) FROM (
            SELECT CAST(query_id AS VARCHAR) AS q FROM read_parquet('{run_path}')
            WHERE CAST(query_id AS VARCHAR) IN (SELECT q FROM bad)
            GROUP BY 1 HAVING count(*) > count(DISTINCT score))""").fetchone()[0]
    con.close()
    return n, len(bad)


def machine() -> dict:
    import duckdb

    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = subprocess.run(["free", "-g"], capture_output=True, text=True).stdout.strip()
    except OSError:
        mem = "?"
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"), "nproc": os.cpu_count(),
            "cpu": cpu, "free_g": mem, "python": platform.python_version(), "duckdb": duckdb.__version__,
            "platform": platform.platform()}


def sqlndcg_version(src: Path | None) -> str:
    """Where sqlndcg comes from, and the git commit of the checkout (marked dirty when sqlndcg/ or sql/ differ)."""
    where = src or HERE.parent
    text = str(where)
    try:
        commit = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        if src is None:
            dirty = subprocess.run(["git", "-C", str(HERE.parent), "status", "--porcelain", "--", "sqlndcg", "sql"],
                                   capture_output=True, text=True).stdout.strip()
            text += f" (checkout at {commit}{', with uncommitted changes' if dirty else ''})"
        else:
            stamp = Path(src) / "COMMIT"
            exported = stamp.read_text().strip()[:9] if stamp.exists() else "unknown commit (no COMMIT file)"
            text += f" (exported from {exported}; the repository's HEAD is now {commit})"
    except OSError:
        pass
    return text


def fmt_mem(mib: float) -> str:
    return f"{mib / 1024:.2f} GiB" if mib >= 1024 else f"{mib:.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    generate.add_arguments(parser)
    parser.add_argument("--data", type=Path, default=None,
                        help="a directory with run.parquet and judgments.parquet (else generated from the data "
                             "parameters into benchmarks/data/)")
    parser.add_argument("--tools", default=",".join(DEFAULT_TOOLS),
                        help="comma-separated, from: " + ", ".join(ALL_TOOLS) + " (default: all but spark)")
    parser.add_argument("--metrics", default="ndcg@10", help="comma-separated: ndcg@k, p@k, ap, rr (default ndcg@10)")
    parser.add_argument("--metric-set", choices=("14",), default=None,
                        help="14: NDCG and P at 1,3,5,10,20,100, MAP (ap) and MRR (rr); overrides --metrics")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per tool, interleaved (default 3)")
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit for sqlndcg, sql and floor")
    parser.add_argument("--partitions", type=int, default=None,
                        help="sqlndcg.evaluate(partitions=N): the queries in N buckets, one pass each")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for DuckDB, polars and numba (default: each library's own, all cores)")
    parser.add_argument("--max-rss", type=float, default=16.0,
                        help="kill a tool whose resident memory exceeds this many GiB (default 16)")
    parser.add_argument("--timeout", type=float, default=900.0, help="kill a tool after this many seconds")
    parser.add_argument("--tolerance", type=float, default=1e-9)
    parser.add_argument("--no-check", action="store_true", help="skip the agreement check")
    parser.add_argument("--stages", action="store_true",
                        help="also run sqlndcg.evaluate once with its stages timed, and print them")
    parser.add_argument("--strict", action="store_true", help="exit 1 when any tool disagrees or fails")
    parser.add_argument("--json", type=Path, default=None, help="save the results here")
    parser.add_argument("--sqlndcg-src", type=Path, default=None,
                        help="import sqlndcg from this directory (holding sqlndcg/ and sql/, e.g. an export of one "
                             "commit: git archive HEAD sqlndcg sql | tar -x -C DIR && git rev-parse HEAD > DIR/COMMIT)"
                             " instead of the installed one")
    parser.add_argument("--spark-master", default="local[2]", help="the spark tool's master (default local[2])")
    parser.add_argument("--spark-partitions", type=int, default=4,
                        help="the spark tool's spark.sql.shuffle.partitions (default 4: measured best of 2..8 "
                             "on 2 cores at 10M rows)")
    parser.add_argument("--spark-driver-memory", default="8g", help="the spark tool's spark.driver.memory (8g)")
    # child mode (internal)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--run", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--judgments", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--values", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--linear", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        child_main(args)
        return

    metrics = METRIC_SET_14 if args.metric_set == "14" else args.metrics.split(",")
    for m in metrics:
        parse_metric(m)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in ALL_TOOLS]
    if unknown:
        raise SystemExit(f"unknown tools {unknown}; choose from {ALL_TOOLS}")
    tools = [t for t in tools if computes(t, metrics, asked=args.tools != parser.get_default("tools"))]

    if args.data is None:
        params = generate.params_from_args(args)
        args.data = generate.DEFAULT_DIR / generate.default_name(params)
        generate.generate(args.data, **params)
    args.run_path = args.data / "run.parquet"
    args.judgments_path = args.data / "judgments.parquet"
    meta_path = args.data / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    import pyarrow.parquet as pq

    run_rows = pq.ParquetFile(args.run_path).metadata.num_rows
    judgment_rows = pq.ParquetFile(args.judgments_path).metadata.num_rows
    info = machine()
    info["sqlndcg"] = sqlndcg_version(args.sqlndcg_src)
    print(f"data: {args.data} ({run_rows:,} run rows, {judgment_rows:,} judgments)")
    print(f"metrics: {','.join(metrics)}; tools: {','.join(tools)}; repeat {args.repeat}")
    print(f"sqlndcg: {info['sqlndcg']}")
    print(f"machine: {info['nproc']} cores, {info['cpu']}, DuckDB {info['duckdb']}, Python {info['python']}; "
          f"{info['date']}")

    workdir = tempfile.mkdtemp(prefix="sqlndcg_bench_")
    values_paths: dict[str, str] = {}
    runs: dict[str, list[dict]] = {t: [] for t in tools}
    for rep in range(args.repeat):
        order = tools[rep % len(tools):] + tools[:rep % len(tools)]
        for tool in order:
            vp = None
            if rep == 0 and not args.no_check and tool != "floor":
                vp = os.path.join(workdir, f"{tool}.parquet")
            r = run_child(tool, args, metrics, vp)
            runs[tool].append(r)
            if r["status"] == "ok" and vp:
                values_paths[tool] = vp
            shown = f"{r['seconds']:.2f} s" if r["status"] == "ok" else r["status"]
            print(f"  rep {rep + 1} {tool:<13} {shown:>12}   peak {fmt_mem(r['peak_rss_mib'])}", flush=True)

    stages = None
    if args.stages:
        r = run_child("sqlndcg_stages", args, metrics, None)
        stages = r.get("stages")
        print(f"\nsqlndcg.evaluate stages (one run, {r.get('seconds', float('nan')):.2f} s in all; indented "
              "lines are inside the line above):")
        for label, (sec, n, each) in (stages or {}).items():
            split = f": {' + '.join(f'{x:.2f}' for x in each)}" if n > 1 else ""
            print(f"  {label:<48} {sec:8.2f} s  ({n} call{'s' if n != 1 else ''}{split})")

    # the agreement check
    checks = []
    failed_check = False
    if not args.no_check:
        print("\nagreement check (per query, every metric, tolerance %g):" % args.tolerance)
        for tool in tools:
            ref = REFERENCE.get(tool)
            if ref is None:
                continue
            if tool not in values_paths:
                print(f"  {tool:<13} not checked: it did not finish")
                continue
            if ref not in values_paths:  # the reference was not among the timed tools: compute it, untimed
                vp = os.path.join(workdir, f"{ref}.parquet")
                r = run_child(ref, args, metrics, vp)
                if r["status"] != "ok":
                    print(f"  {tool:<13} not checked: the reference {ref} failed ({r['status']})")
                    failed_check = True
                    continue
                values_paths[ref] = vp
            rep = compare_values(tool, ref, values_paths[tool], values_paths[ref], metrics, args.tolerance)
            checks.append(rep)
            if rep["ok"]:
                worst = max(e["max_abs_diff"] for e in rep["metrics"].values())
                print(f"  {tool:<13} AGREES with {ref} on all {rep['queries']:,} queries "
                      f"(largest difference {worst:.1e})")
            else:
                failed_check = True
                print(f"  {tool:<13} !!! DISAGREES with {ref} !!!  queries compared: {rep['queries']:,}, only in "
                      f"{tool}: {rep['only_in_tool']}, only in {ref}: {rep['only_in_reference']}")
                tied = tied_among(args.run_path, rep)
                if tied is not None:
                    rep["disagreeing_queries_with_tied_scores"] = tied
                    print(f"      of the {tied[1]:,} disagreeing queries, {tied[0]:,} have tied scores in the run "
                          f"(ties order by doc_id descending in sqlndcg and trec_eval; {tool}'s tie order may differ)")
                for m, e in rep["metrics"].items():
                    if e["queries_over_tolerance"]:
                        print(f"      {m}: {e['queries_over_tolerance']:,} queries differ, largest by "
                              f"{e['max_abs_diff']:.3g}; e.g. {e['examples'][:3]}")

    # the table
    ok_times = {t: [r["seconds"] for r in rs if r["status"] == "ok"] for t, rs in runs.items()}
    base = statistics.median(ok_times["sqlndcg"]) if ok_times.get("sqlndcg") else None
    rows = []
    for tool in tools:
        times = ok_times[tool]
        peak = max(r["peak_rss_mib"] for r in runs[tool])
        failures = [r["status"] for r in runs[tool] if r["status"] != "ok"]
        row = {"tool": tool, "runs": len(runs[tool]), "ok_runs": len(times), "peak_rss_mib": round(peak, 1),
               "times": [round(x, 3) for x in times], "failures": failures}
        if times:
            med = statistics.median(times)
            row.update(median_s=round(med, 3), min_s=round(min(times), 3), rows_per_s=run_rows / med,
                       ratio=(med / base) if base else None)
        rows.append(row)
    print(f"\n{run_rows:,} run rows, {judgment_rows:,} judgments; metrics {','.join(metrics)}; "
          f"{args.repeat} repetitions")
    header = f"| {'tool':<13} | {'median':>9} | {'min':>9} | {'peak memory':>11} | {'rows/s':>8} | {'x sqlndcg':>9} |"
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for row in rows:
        if "median_s" in row:
            ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else "-"
            rate = row["rows_per_s"]
            rate_s = f"{rate / 1e6:.1f}M" if rate >= 1e6 else f"{rate / 1e3:.0f}k"
            note = f" ({len(row['failures'])} failed: {row['failures'][0]})" if row["failures"] else ""
            print(f"| {row['tool']:<13} | {row['median_s']:>7.2f} s | {row['min_s']:>7.2f} s | "
                  f"{fmt_mem(row['peak_rss_mib']):>11} | {rate_s:>8} | {ratio:>9} |{note}")
        else:
            print(f"| {row['tool']:<13} | {row['failures'][0]} (peak {fmt_mem(row['peak_rss_mib'])})")
    for row in rows:
        sp = [r["spark"] for r in runs[row["tool"]] if r.get("spark")]
        if sp:
            def med(key, sp=sp):  # spark_sql and spark_df time one step: they have no read/evaluate split
                return round(statistics.median(x[key] for x in sp), 3) if all(key in x for x in sp) else None

            row["spark"] = {"startup_s_median": med("startup_s"),
                            "read_and_views_s_median": med("read_and_views_s"),
                            "evaluate_s_median": med("evaluate_s"),
                            "jvm_peak_mib": round(max(x["jvm_peak_kib"] for x in sp) / 1024, 1),
                            "python_peak_mib": round(max(x["python_peak_kib"] for x in sp) / 1024, 1),
                            **{k: sp[0][k] for k in ("master", "shuffle_partitions", "driver_memory",
                                                     "jvm_max_heap_mib", "pyspark")}}
            s_ = row["spark"]
            split = (f" in the time: read.parquet + views {s_['read_and_views_s_median']:.2f} s, evaluate "
                     f"{s_['evaluate_s_median']:.2f} s (medians);" if s_["evaluate_s_median"] is not None else "")
            print(f"\n{row['tool']}: {s_['master']}, shuffle partitions {s_['shuffle_partitions']}, driver memory "
                  f"{s_['driver_memory']} (JVM max heap {s_['jvm_max_heap_mib']} MiB), pyspark {s_['pyspark']}; "
                  f"session start-up (JVM launch, SparkContext; not in the time) median {s_['startup_s_median']:.2f} s;"
                  f"{split} peak memory: driver JVM "
                  f"{fmt_mem(s_['jvm_peak_mib'])}, Python {fmt_mem(s_['python_peak_mib'])} (the table adds them)")

    if args.json:
        args.json.write_text(json.dumps({
            "machine": info, "data": str(args.data), "params": meta.get("params"), "run_rows": run_rows,
            "judgment_rows": judgment_rows, "metrics": metrics, "repeat": args.repeat,
            "memory_limit": args.memory_limit, "partitions": args.partitions, "threads": args.threads, "results": rows, "runs": runs,
            "checks": [{k: v for k, v in c.items() if k != "_bad_queries"} for c in checks], "stages": stages}, indent=2, default=str) + "\n")
        print(f"saved {args.json}")
    any_failed = any(row["failures"] for row in rows)
    if args.strict and (failed_check or any_failed):
        sys.exit(1)


if __name__ == "__main__":
    main()
