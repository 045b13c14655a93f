"""Every speed target of the project in one run: each measured side by side with what it is compared to, printed as
the figure, the target and whether it is met.

    .venv/bin/python benchmarks/targets.py                     # latency, comparisons, 10M run rows
    .venv/bin/python benchmarks/targets.py --skip large        # latency and comparisons only (a minute)
    .venv/bin/python benchmarks/targets.py --rows 100_000_000 --memory-limit 4GB --skip latency,compare

The parts call the project's other benchmarks, so each figure is measured one way:
  latency   fresh processes: `import sqlndcg`, `sqlndcg --help`, `sqlndcg trec_eval -q -m all_trec` on trec_eval's
            shipped test files (tests/trec_eval_10/test); in one process: evaluate on the bundled example (warm: the
            median after three calls), the first to_sql in a dialect not used before. Medians of --repeat runs.
  compare   benchmarks/compare_speed.py: compare (2 metrics, 5 days x 2,984 queries x 2 systems) and the report.
  large     benchmarks/compare_peers.py on generated Parquet (--rows, 100 documents per query): the per-query
            statement, evaluate() with its checks and their stages, the polars top-k peer (and the full-sort one
            as a second row), NDCG@10 and the 14-metric set.
Figures move with the machine's load: compare the ratios, which are measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
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
        ("evaluate on the example, warm", med["evaluate"], "s", 0.03),
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


def _peers(args, tools: str, extra: list[str]) -> dict:
    """compare_peers.py's JSON for ``tools`` on its generated data (made once, then reused from its folder)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = Path(f.name)
    cmd = [PY, str(HERE / "compare_peers.py"), "--rows", str(args.rows), "--docs", "100", "--tools", tools,
           "--repeat", str(args.repeat), "--json", str(path)] + extra
    if args.memory_limit:
        cmd += ["--memory-limit", args.memory_limit]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=sys.stderr)
    found = json.loads(path.read_text())
    path.unlink()
    return found


def _median(found: dict, tool: str) -> float:
    return next(row["median_s"] for row in found["results"] if row["tool"] == tool)


def large(args) -> list[tuple]:
    one = _peers(args, "sqlndcg,sql,polars_topk,polars", ["--stages"])
    fourteen = _peers(args, "sqlndcg", ["--metric-set", "14", "--no-check"])
    topk, statement, whole = _median(one, "polars_topk"), _median(one, "sql"), _median(one, "sqlndcg")
    checks = sum(seconds for label, (seconds, _, _) in (one.get("stages") or {}).items()
                 if "account" in label or "checks:" in label)
    rows = f"{args.rows:,} run rows"
    return [
        (f"{rows}: the statement / polars top-k", statement / topk, "x", 1.0),
        (f"{rows}: evaluate() with checks / polars top-k", whole / topk, "x", 1.5),
        (f"{rows}: checks and account (one run) / the statement", checks / statement, "x", 0.5),
        (f"{rows}: 14 metrics / NDCG@10 (evaluate)", _median(fourteen, "sqlndcg") / whole, "x", 2.0),
        (f"{rows}: polars top-k", topk, "s", None),
        (f"{rows}: polars sorting every row (second row)", _median(one, "polars"), "s", None),
        (f"{rows}: the statement", statement, "s", None),
        (f"{rows}: evaluate()", whole, "s", None),
    ]


PARTS = {"latency": latency, "compare": compare, "large": large}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: " + ", ".join(PARTS))
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, the median is kept (default 3)")
    parser.add_argument("--rows", type=int, default=10_000_000, help="run rows of the large part (default 10M)")
    parser.add_argument("--memory-limit", default=None, help="DuckDB's memory limit in the large part")
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    print(f"| {'measure':<60} | {'measured':>12} | {'target':>10} | met |")
    print(f"|{'-' * 62}|{'-' * 14}|{'-' * 12}|-----|")
    for name, part in PARTS.items():
        if name in skip:
            continue
        for label, value, unit, target in part(args):
            shown = f"{value:.3f} {unit}" if unit != "MiB" else f"{value:.0f} MiB"
            goal = "" if target is None else (f"<= {target:g} {unit}")
            met = "" if target is None else ("yes" if value <= target else "no")
            print(f"| {label:<60} | {shown:>12} | {goal:>10} | {met:^3} |", flush=True)


if __name__ == "__main__":
    main()
