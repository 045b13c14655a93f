"""One exact evaluation at the source article's scale, in a fresh process: its time, peak memory and the
read-and-group floor on the same files (issue 29: 100M run rows within 8x the floor and 6 GB at memory_limit=4GB;
1B rows in under 5 minutes at 8GB).

    .venv/bin/python benchmarks/generate.py --rows 100_000_000 --docs 10 --unretrieved 0
    .venv/bin/python benchmarks/at_scale.py --rows 100_000_000 --memory-limit 4GB
    .venv/bin/python benchmarks/at_scale.py --rows 1_000_000_000 --memory-limit 8GB --sample 0.01

Prints a Markdown report (the machine, the commit, the command, each figure) and saves it under
benchmarks/results/ (--out). The evaluation (NDCG@10, default settings, input checks and account) runs in a child
process so its peak resident memory (VmHWM) is its own; the floor (shared peers' `floor` when ../shared is there,
else the same query here) runs in another.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

CHILD = r"""
import json, sys, time
import duckdb
data, memory_limit, sample, what = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
run, judgments = f"{data}/run.parquet", f"{data}/judgments.parquet"
start = time.perf_counter()
if what == "floor":
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute(f"SELECT count(*) FROM (SELECT query_id, max(score), max(doc_id) FROM read_parquet('{run}') GROUP BY 1)")
    con.execute(f"SELECT max(rel) + max(doc_id) + max(query_id) FROM read_parquet('{judgments}')").fetchall()
    out = {}
else:
    import sqlndcg
    res = sqlndcg.evaluate(run, judgments, ["ndcg@10"], memory_limit=memory_limit,
                           sample=float(sample) if sample else None, seed=1)
    out = {"summary": res.summary.to_dicts(), "account": res.account.to_dicts(), "settings": res.settings}
out["seconds"] = time.perf_counter() - start
out["peak_rss_gib"] = int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]) / 2**20
print(json.dumps(out, default=str))
"""


def child(data: Path, memory_limit: str, sample: str, what: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(data), memory_limit, sample, what],
                          capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--docs", type=int, default=10)
    p.add_argument("--memory-limit", default="4GB")
    p.add_argument("--sample", default="", help="also evaluate this hashed share of the queries")
    p.add_argument("--data", help="existing generate.py output (default: its name for --rows/--docs, unretrieved 0)")
    p.add_argument("--out", help="report file (default: benchmarks/results/at_scale_<rows>_<limit>_<commit>.md)")
    args = p.parse_args()
    data = Path(args.data) if args.data else (
        HERE / "data" / f"q{args.rows // args.docs}_d{args.docs}_j0.3_u0_t0.1_gd02846_int_s1")
    if not (data / "run.parquet").exists():
        print(f"{data} is missing: run benchmarks/generate.py --rows {args.rows} --docs {args.docs} --unretrieved 0")
        return 2
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=REPO).stdout.strip()
    lines = [f"# benchmarks/at_scale.py, {datetime.datetime.now().isoformat(timespec='seconds')}",
             f"command: .venv/bin/python {' '.join(['benchmarks/at_scale.py'] + sys.argv[1:])}",
             f"sqlndcg: checkout at {commit}; machine: {os.cpu_count()} cores, {platform.platform()}; "
             f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
             f"data: {data}", ""]
    floor = child(data, args.memory_limit, "", "floor")
    full = child(data, args.memory_limit, "", "evaluate")
    runs = [("read-and-group floor", floor), (f"evaluate(), NDCG@10, memory_limit={args.memory_limit}", full)]
    if args.sample:
        runs.append((f"evaluate(..., sample={args.sample})", child(data, args.memory_limit, args.sample, "evaluate")))
    lines += ["| run | seconds | peak RSS GiB | x floor |", "|---|---|---|---|"]
    for name, r in runs:
        if "error" in r:
            lines.append(f"| {name} | failed: {r['error'][:300]} | | |")
            continue
        ratio = r["seconds"] / floor["seconds"] if "seconds" in floor else float("nan")
        lines.append(f"| {name} | {r['seconds']:.1f} | {r['peak_rss_gib']:.2f} | {ratio:.1f} |")
    for name, r in runs[1:]:
        if "summary" in r:
            lines += ["", f"{name}: summary {r['summary']}", f"account {r['account']}"]
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(args.out) if args.out else HERE / "results" / f"at_scale_{args.rows}_{args.memory_limit}_{commit}.md"
    out.write_text(text)
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
