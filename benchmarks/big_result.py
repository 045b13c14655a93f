"""A large per-query result: many systems scored on every judged query (queries="judged"), kept columnar.

    python benchmarks/big_result.py --systems 100 --judged-queries 200_000        # 20M per-query rows

The run: `--systems` systems, each answering `--answered` of the judged queries with `--docs` documents;
the judgments: `--judged-queries` queries with `--judgments` judged documents each. Under queries="judged",
every system is scored on every judged query (an unanswered one scores 0), so the per-query result has
systems x judged-queries rows while the run is small: the cost measured is producing and holding that result.

Prints the time of `sqlndcg.evaluate` (checks, per-query table, summary, account), the result's row count and
Arrow size, and the process's peak resident memory (VmHWM) after the call and after `to_pandas()` if asked.
The input is generated in memory by DuckDB (seeded `hash()`), not timed.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import time


def peak_rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


def int_arg(text: str) -> int:
    return int(text.replace("_", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int_arg, default=100)
    parser.add_argument("--judged-queries", type=int_arg, default=200_000)
    parser.add_argument("--answered", type=int_arg, default=2_000, help="judged queries each system answers")
    parser.add_argument("--docs", type=int_arg, default=10)
    parser.add_argument("--judgments", type=int_arg, default=3, help="judged documents per query")
    parser.add_argument("--memory-limit", default=None)
    parser.add_argument("--pandas", action="store_true", help="also convert the per-query table to pandas")
    args = parser.parse_args()

    import duckdb

    import sqlndcg
    from sqlndcg.run.engines.duckdb_engine import set_limits

    con = duckdb.connect()
    # The limits sqlndcg sets on a connection of its own: spilling into a private, bounded directory (removed
    # afterwards), never DuckDB's ./.tmp; the memory limit if given.
    spill, _ = set_limits(con, private=True, memory_limit=args.memory_limit)
    atexit.register(shutil.rmtree, spill, True)
    # Seeded and order-free: every value is a hash of its coordinates.
    con.execute(
        "CREATE TABLE run AS SELECT s AS system, (hash(s * 7919 + a) % ?) AS query_id, d AS doc_id, "
        "(hash(s * 1000003 + a * 101 + d) % 1000000) / 1e6 AS score "
        "FROM range(?) t(s), range(?) u(a), range(?) v(d)",
        [args.judged_queries, args.systems, args.answered, args.docs],
    )
    # A system's answered queries may repeat (hash collisions): keep one list per (system, query).
    con.execute("CREATE TABLE run1 AS SELECT system, query_id, doc_id, max(score) AS score FROM run "
                "GROUP BY ALL")
    con.execute(
        "CREATE TABLE judgments AS SELECT q AS query_id, d AS doc_id, (hash(q * 31 + d) % 4) AS rel "
        "FROM range(?) t(q), range(?) u(d)",
        [args.judged_queries, args.judgments],
    )
    run_rows = con.execute("SELECT count(*) FROM run1").fetchone()[0]
    before = peak_rss_mib()
    t0 = time.perf_counter()
    result = sqlndcg.evaluate("run1", "judgments", ["ndcg@10"], group_by="system", queries="judged", con=con)
    seconds = time.perf_counter() - t0
    table = result.per_query.to_arrow()
    print(f"run rows {run_rows:,}; judgments {args.judged_queries * args.judgments:,}; "
          f"memory_limit {args.memory_limit or 'DuckDB default'}")
    print(f"evaluate: {seconds:.2f} s; per-query rows {table.num_rows:,} ({table.nbytes / 2**20:,.0f} MiB as Arrow); "
          f"peak RSS {peak_rss_mib():,.0f} MiB (before the call: {before:,.0f} MiB)")
    if args.pandas:
        t0 = time.perf_counter()
        frame = result.per_query.to_pandas()
        print(f"to_pandas: {time.perf_counter() - t0:.2f} s, {len(frame):,} rows; peak RSS {peak_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
