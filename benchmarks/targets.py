"""Every speed target of the project in one run: each measured side by side with what it is compared to, printed as
the figure, the target and whether it is met.

    .venv/bin/python benchmarks/targets.py                     # latency, comparisons, 10M run rows, Spark (2M)
    .venv/bin/python benchmarks/targets.py --skip large,spark  # latency and comparisons only (a minute)
    .venv/bin/python benchmarks/targets.py --rows 100_000_000 --memory-limit 4GB --skip latency,compare,spark
    .venv/bin/python benchmarks/targets.py --rows 200_000 --repeat 2 --skip latency,compare,spark   # a smoke run

The parts:
  latency   fresh processes: `import sqlndcg`, `sqlndcg --help`, `sqlndcg trec_eval -q -m all_trec` on trec_eval's
            shipped test files (tests/trec_eval_10/test); in one process: evaluate on the bundled example (warm: the
            median after three calls), the first to_sql in a dialect not used before. Medians of --repeat runs.
  compare   benchmarks/compare_speed.py: compare (2 metrics, 5 days x 2,984 queries x 2 systems) and the report.
  large     issue 29's ratios on generated Parquet (--rows, --docs 100 and generate.py's other options, or --data),
            all in this one process, warm, interleaved (every contender once per round, each round in its own
            seeded shuffle; the medians are kept): the per-query statement (to_sql executed in DuckDB, fetched
            as Arrow), evaluate() with its checks, summary and account, both for NDCG@10 and for 14 metrics
            (NDCG and P at 1,3,5,10,20,100, AP, RR), evaluate(sample=0.01) (its mean is a sample's, not
            checked); the reference peers of ../shared/peers/ndcg_peers.py (found
            beside the repository: lazy polars, hand-written DuckDB SQL, the read-and-group floor) when that file
            exists; and the benchmarks' own peers (compare_peers.py's `polars` and `duckdb`), which must be at
            least as fast as the shared ones.
  spark     the same on one warm local[2] SparkSession (--spark-rows, default 2M): the statement through
            spark.sql, evaluate(con=spark), the shared pyspark_ndcg and compare_peers.py's spark_df peer.
Before any timing, every contender's mean NDCG@10 is checked against evaluate()'s to 1e-9; a difference stops the
run (exit status 1). Figures move with the machine's load: compare the ratios, which are measured in the same run.
Memory is not measured here (one process): compare_peers.py measures each tool's peak in a process of its own.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare_peers  # noqa: E402
import generate  # noqa: E402
from compare_peers import METRIC_SET_14  # noqa: E402

ROOT = HERE.parent
PY = sys.executable
CLI = [PY, "-m", "sqlndcg"]
TREC = ROOT / "tests" / "trec_eval_10" / "test"


def _wall(cmd: list[str], repeat: int) -> float:
    """The median wall time of a fresh process running ``cmd`` (output discarded; a failure stops the run)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


_IN_PROCESS = r"""
import json, statistics, sys, time
t = time.perf_counter(); import sqlndcg; imported = time.perf_counter() - t
run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
args = dict(metrics=["ndcg@5", "p@5", "map", "mrr@10"], group_by=["tag"])
for _ in range(3):
    sqlndcg.evaluate(run, qrels, **args)
warm = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter(); sqlndcg.evaluate(run, qrels, **args); warm.append(time.perf_counter() - t)
t = time.perf_counter(); sqlndcg.to_sql("runs", "qrels", ["ndcg@10"], dialect="snowflake"); dialect = time.perf_counter() - t
print(json.dumps({"import": imported, "evaluate": statistics.median(warm), "dialect": dialect}))
"""


def latency(args) -> list[tuple]:
    inside = [json.loads(subprocess.run([PY, "-c", _IN_PROCESS, str(max(args.repeat, 10))], check=True,
                                        capture_output=True, text=True, cwd=ROOT).stdout)
              for _ in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in inside) for k in inside[0]}
    python = _wall([PY, "-c", "pass"], args.repeat)
    help_s = _wall(CLI + ["--help"], args.repeat)
    trec = _wall(CLI + ["trec_eval", "-q", "-m", "all_trec", str(TREC / "qrels.test"), str(TREC / "results.test")],
                 args.repeat)
    return [
        ("import sqlndcg", med["import"], "s", 0.25),
        ("sqlndcg --help (wall, Python's own start included)", help_s, "s", 0.3),
        ("  of which Python starting", python, "s", None),
        ("sqlndcg trec_eval -q -m all_trec (wall)", trec, "s", 0.6),
        ("evaluate on the example, warm", med["evaluate"], "s", 0.06),
        ("first to_sql in a new dialect (snowflake)", med["dialect"], "s", 0.15),
    ]


def compare(args) -> list[tuple]:
    done = subprocess.run([PY, str(HERE / "compare_speed.py"), "--steps", "compare2,report"], check=True,
                          capture_output=True, text=True, cwd=ROOT)
    out = {}
    for line in done.stdout.splitlines():  # "compare2     1.23 s (CPU ...)  peak   345.6 MiB ..."
        parts = line.split()
        if parts and parts[0] in ("compare2", "report"):
            out[parts[0]] = (float(parts[1]), float(parts[parts.index("peak") + 1]))
    return [
        ("compare, 2 metrics, 194k run rows", out["compare2"][0], "s", 2.0),
        ("sqlndcg report on it", out["report"][0], "s", 10.0),
        ("  its peak memory", out["report"][1], "MiB", 400.0),
    ]


# ----------------------------------------------------------------------------------------------------------------
# the large part: issue 29's ratios, in this process, interleaved
# ----------------------------------------------------------------------------------------------------------------

SHARED_PEERS = ROOT.parent / "shared" / "peers" / "ndcg_peers.py"
NDCG10 = ["ndcg@10"]
TOLERANCE = 1e-9


def shared_peers():
    """../shared/peers/ndcg_peers.py imported from beside the repository, or None when it is not there."""
    if not SHARED_PEERS.exists():
        return None
    spec = importlib.util.spec_from_file_location("ndcg_peers", SHARED_PEERS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _data(args, spark: bool = False) -> tuple[str, str, int]:
    """(run, judgments, run rows): --data, or generate.py's files for the part (made once, then reused)."""
    import pyarrow.parquet as pq

    if args.data is not None and not spark:
        where = args.data
    else:
        shape = {"rows": args.spark_rows, "queries": None} if spark else {}
        params = generate.params_from_args(argparse.Namespace(**{**vars(args), **shape}))
        where = generate.generate(generate.DEFAULT_DIR / generate.default_name(params), quiet=True, **params)
    run, judgments = where / "run.parquet", where / "judgments.parquet"
    rows = pq.ParquetFile(run).metadata.num_rows
    print(f"data: {where} ({rows:,} run rows, {pq.ParquetFile(judgments).metadata.num_rows:,} judgments)",
          flush=True)
    return str(run), str(judgments), rows


def _duckdb(args):
    """A fresh DuckDB connection for one call (as the shared peers open one), with --memory-limit if given."""
    import duckdb

    con = duckdb.connect()
    if args.memory_limit:
        con.execute("SET memory_limit = $limit", {"limit": args.memory_limit})
    return con


def _mean(table, metric: str = "ndcg@10") -> float:
    import pyarrow.compute as pc

    return pc.mean(table.column(metric)).as_py()


def large_contenders(args, run: str, judgments: str, shared) -> dict:
    """name -> a call that does the work once and returns its mean NDCG@10 (None: nothing to check)."""
    import polars as pl
    import sqlndcg

    def evaluate(metrics):
        return lambda: _mean(sqlndcg.evaluate(run, judgments, metrics, memory_limit=args.memory_limit)
                             .per_query.to_arrow())

    def statement(metrics):
        sql = sqlndcg.to_sql(run, judgments, metrics, con=_duckdb(args))  # rendered once, not timed
        return lambda: _mean(compare_peers._arrow(_duckdb(args), sql))

    def sampled():  # a 1% sample: its mean is not the whole input's (nothing to check)
        sqlndcg.evaluate(run, judgments, NDCG10, memory_limit=args.memory_limit, sample=0.01, seed=1)

    own_duckdb_sql = f"SELECT avg(\"ndcg@10\") FROM ({compare_peers.duckdb_sql(run, judgments, NDCG10)})"
    found = {
        "the statement": statement(NDCG10),
        "evaluate()": evaluate(NDCG10),
        "evaluate(), sample=0.01": sampled,
        "the statement, 14 metrics": statement(METRIC_SET_14),
        "evaluate(), 14 metrics": evaluate(METRIC_SET_14),
        "benchmarks' polars": lambda: compare_peers.polars_frame(run, judgments, NDCG10)
        .select(pl.col("ndcg@10").mean()).collect().item(),
        "benchmarks' DuckDB SQL": lambda: _duckdb(args).execute(own_duckdb_sql).fetchone()[0],
    }
    if shared is not None:
        def floor():  # nothing to check
            shared.floor(run, judgments)

        found.update({
            "shared lazy polars": lambda: shared.polars_ndcg(run, judgments, 10),
            "shared DuckDB SQL": lambda: shared.duckdb_ndcg(run, judgments, 10),
            "shared floor (read and group)": floor,
        })
    return found


def check_means(means: dict, reference: str) -> None:
    """Every contender's mean NDCG@10 against the reference's; any difference over TOLERANCE stops the run."""
    want = means[reference]
    wrong = []
    for name, got in means.items():
        if got is None:
            continue
        ok = abs(got - want) <= TOLERANCE
        print(f"  mean NDCG@10 {got:.15f}  {name}{'' if ok else '   !!! DIFFERS from ' + reference + ' !!!'}")
        if not ok:
            wrong.append(name)
    if wrong:
        print(f"!!! {', '.join(wrong)}: mean NDCG@10 differs from {reference}'s ({want!r}) by more than "
              f"{TOLERANCE:g}; no timing is meaningful until they compute the same numbers !!!", flush=True)
        raise SystemExit(1)


def _timed(contenders: dict, repeat: int, reference: str) -> dict:
    """The warm-up round, the check of the means, then the timed rounds: name -> median seconds. Each round runs
    every contender once in its own seeded shuffle (so no contender always follows the same one, whose threads
    may still be winding down), after a collection and a pause."""
    print("warm-up round (untimed), the means checked before timing:", flush=True)
    names = list(contenders)
    means = {name: contenders[name]() for name in names}
    check_means(means, reference)
    times: dict = {name: [] for name in names}
    for rep in range(repeat):
        order = random.Random(rep).sample(names, len(names))
        for name in order:
            gc.collect()
            time.sleep(0.1)
            start = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - start)
        print(f"  round {rep + 1}: " + ", ".join(f"{n} {times[n][-1]:.3f}" for n in order) + " (s)", flush=True)
    for name, ts in times.items():
        print(f"  {name:<32} median {statistics.median(ts):.3f} s  (min {min(ts):.3f}, max {max(ts):.3f})")
    return {name: statistics.median(ts) for name, ts in times.items()}


def large(args) -> list[tuple]:
    shared = shared_peers()
    print(f"\n## large: NDCG@10, one process, warm, {args.repeat} interleaved rounds", flush=True)
    if shared is None:
        print(f"({SHARED_PEERS} is absent: the ratios below are against the benchmarks' own peers)")
    run, judgments, n = _data(args)
    med = _timed(large_contenders(args, run, judgments, shared), args.repeat, "evaluate()")
    rows = f"{n:,} rows"
    duck = "shared DuckDB SQL" if shared else "benchmarks' DuckDB SQL"
    lazy = "shared lazy polars" if shared else "benchmarks' polars"
    found = [
        (f"{rows}: the statement / {duck}", med["the statement"] / med[duck], "x", 1.0),
        (f"{rows}: the statement / {lazy}", med["the statement"] / med[lazy], "x", 0.6),
        (f"{rows}: evaluate() / {lazy}", med["evaluate()"] / med[lazy], "x", 1.0),
        (f"{rows}: evaluate(), sample=0.01 / evaluate()", med["evaluate(), sample=0.01"] / med["evaluate()"], "x", 0.1),
        (f"{rows}: 14 metrics / NDCG@10, evaluate()", med["evaluate(), 14 metrics"] / med["evaluate()"], "x", 2.0),
        (f"{rows}: 14 metrics / NDCG@10, the statement",
         med["the statement, 14 metrics"] / med["the statement"], "x", None),
    ]
    if shared:
        found += [
            (f"{rows}: the statement / the floor", med["the statement"] / med["shared floor (read and group)"],
             "x", None),
            (f"{rows}: benchmarks' polars / shared lazy polars", med["benchmarks' polars"] / med[lazy], "x", 1.0),
            (f"{rows}: benchmarks' DuckDB SQL / shared DuckDB SQL", med["benchmarks' DuckDB SQL"] / med[duck],
             "x", 1.0),
        ]
    return found + [(f"{rows}: {name}", seconds, "s", None) for name, seconds in med.items()]


# ----------------------------------------------------------------------------------------------------------------
# the spark part: one warm local session
# ----------------------------------------------------------------------------------------------------------------

def _spark_session(args):
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(args.spark_master).appName("sqlndcg-targets")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.driver.memory", "8g").config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_contenders(spark, shared) -> dict:
    from pyspark.sql import functions as F

    import sqlndcg

    sql = sqlndcg.to_sql("run_view", "judgments_view", NDCG10, con=spark)
    found = {
        "the statement on Spark": lambda: _mean(spark.sql(sql).toArrow()),
        "evaluate(con=spark)": lambda: _mean(sqlndcg.evaluate("run_view", "judgments_view", NDCG10, con=spark)
                                             .per_query.to_arrow()),
        "benchmarks' PySpark": lambda: compare_peers.spark_df_frame(
            spark.table("run_view"), spark.table("judgments_view"), NDCG10).agg(F.avg("ndcg@10")).collect()[0][0],
    }
    if shared is not None:
        found["shared PySpark"] = lambda: shared.pyspark_ndcg(spark, "run_view", "judgments_view", 10)
    return found


def spark(args) -> list[tuple]:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("\n## spark: skipped, pyspark is not installed")
        return []
    shared = shared_peers()
    print(f"\n## spark: NDCG@10, one warm {args.spark_master} session, {args.repeat} interleaved rounds", flush=True)
    run, judgments, n = _data(args, spark=True)
    session = _spark_session(args)
    try:
        session.read.parquet(run).createOrReplaceTempView("run_view")
        session.read.parquet(judgments).createOrReplaceTempView("judgments_view")
        med = _timed(spark_contenders(session, shared), args.repeat, "evaluate(con=spark)")
    finally:
        session.stop()
    rows = f"Spark, {n:,} rows"
    peer = "shared PySpark" if shared else "benchmarks' PySpark"
    found = [
        (f"{rows}: the statement / {peer}", med["the statement on Spark"] / med[peer], "x", 1.1),
        (f"{rows}: evaluate(con=spark) / the statement", med["evaluate(con=spark)"] / med["the statement on Spark"],
         "x", 1.5),
    ]
    if shared:
        found.append((f"{rows}: benchmarks' PySpark / shared PySpark", med["benchmarks' PySpark"] / med[peer],
                      "x", 1.0))
    return found + [(f"{rows}: {name}", seconds, "s", None) for name, seconds in med.items()]


PARTS = {"latency": latency, "compare": compare, "large": large, "spark": spark}


def header(args) -> None:
    """The machine, the commit and the command, before anything is measured."""
    import polars

    info = compare_peers.machine()
    mem = next((int(line.split()[1]) / 2**20 for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# benchmarks/targets.py, {info['date']}")
    python = os.path.relpath(PY) if not os.path.relpath(PY).startswith("..") else PY
    print(f"command: {' '.join([python] + sys.argv)}  (in {os.getcwd()})")
    print(f"sqlndcg: {compare_peers.sqlndcg_version(None)}")
    print(f"machine: {info['nproc']} cores ({info['cpu']}), {mem:.0f} GiB, {info['platform']}; load average {load}")
    print(f"versions: Python {info['python']}, DuckDB {info['duckdb']}, polars {polars.__version__}")
    print(f"shared peers: {SHARED_PEERS if SHARED_PEERS.exists() else 'absent (' + str(SHARED_PEERS) + ')'}",
          flush=True)


def table(found: list[tuple]) -> None:
    print(f"\n| {'measure':<66} | {'measured':>12} | {'target':>10} | met |")
    print(f"|{'-' * 68}|{'-' * 14}|{'-' * 12}|-----|")
    for label, value, unit, target in found:
        digits = 0 if unit == "MiB" else 4 if abs(value) < 0.1 else 3  # enough to see which side of a target
        shown = f"{value:.{digits}f} {unit}"
        goal = "" if target is None else (f"<= {target:g} {unit}")
        met = "" if target is None else ("yes" if value <= target else "no")
        print(f"| {label:<66} | {shown:>12} | {goal:>10} | {met:^3} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: " + ", ".join(PARTS))
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, the median is kept (default 3)")
    generate.add_arguments(parser)  # --rows, --docs and the rest of the generated data's shape
    parser.set_defaults(rows=10_000_000)
    next(a for a in parser._actions if a.dest == "rows").help = "run rows of the large part (default 10M)"
    parser.add_argument("--data", type=Path, default=None,
                        help="the large part on this directory's run.parquet and judgments.parquet instead")
    parser.add_argument("--memory-limit", default=None,
                        help="DuckDB's memory limit for sqlndcg and the benchmarks' DuckDB peer in the large part "
                             "(the shared DuckDB peer opens its own connection, without one)")
    parser.add_argument("--spark-rows", type=generate.int_arg, default=2_000_000,
                        help="run rows of the spark part (default 2M)")
    parser.add_argument("--spark-master", default="local[2]", help="the spark part's master (default local[2])")
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    unknown = skip - set(PARTS)
    if unknown:
        raise SystemExit(f"--skip {','.join(sorted(unknown))}: the parts are {', '.join(PARTS)}")
    header(args)
    found: list[tuple] = []
    try:
        for name, part in PARTS.items():
            if name not in skip:
                found += part(args)
    finally:
        table(found)


if __name__ == "__main__":
    main()
