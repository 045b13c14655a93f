"""Time sqlndcg.evaluate on generated data, stage by stage, in DuckDB.

    python benchmarks/bench_evaluate.py --rows 10_000_000 --docs 100

Generates `rows` run rows (`rows / docs` queries with `docs` scored documents each) and judgments for ~20% of the
retrieved documents plus some unretrieved ones, as DuckDB tables, then times: the input checks, the per-query
query alone (what a warehouse would run), and the whole evaluate() call (checks + query + summary + account).
"""

from __future__ import annotations

import argparse
import time

import duckdb

import sqlndcg
from sqlndcg.verbs import scoring
from sqlndcg.core.spec import make_spec


def generate(con, rows: int, docs: int, seed: int = 1) -> None:
    queries = rows // docs
    con.execute(f"SELECT setseed({1 / (seed + 1)})")
    con.execute(
        f"""CREATE OR REPLACE TABLE run AS
        SELECT q AS query_id, d AS doc_id, round(random() * 100, 1) AS score
        FROM range({queries}) AS t(q), range({docs}) AS u(d)"""
    )
    con.execute(
        f"""CREATE OR REPLACE TABLE qrels AS
        SELECT q AS query_id, d AS doc_id, CAST(floor(random() * 4) AS INTEGER) AS rel
        FROM range({queries}) AS t(q), range({docs} + 20) AS u(d)
        WHERE random() < 0.2"""
    )


def timed(label: str, fn):
    start = time.perf_counter()
    out = fn()
    print(f"{label:<40} {time.perf_counter() - start:8.2f} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=1_000_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--metrics", default="ndcg@10")
    args = parser.parse_args()
    con = duckdb.connect()
    timed(f"generate {args.rows:,} run rows", lambda: generate(con, args.rows, args.docs))
    metrics = args.metrics.split(",")
    spec = make_spec(metrics)
    prepared = timed("prepare (read columns, check rows)", lambda: scoring.prepare(con, spec, "run", "qrels"))
    sql = prepared.sql
    timed("per-query SQL alone", lambda: con.execute(sql).fetchall())
    res = timed("evaluate() end to end", lambda: sqlndcg.evaluate("run", "qrels", metrics, con=con))
    print(res.summary_text())


if __name__ == "__main__":
    main()
