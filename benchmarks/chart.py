"""Time against input size, one line per tool, from compare_peers.py's JSON results (log-log).

    python benchmarks/chart.py benchmarks/results/10M_ndcg10.json benchmarks/results/100M_ndcg10_4GB.json \
        benchmarks/results/1B_ndcg10_p20.json --out benchmarks/results/time_vs_size.png

Each file contributes the median time of every tool that finished; a tool that failed or ran out of memory at a
size is marked with an x at the top of the chart. Peak memory is printed beside each point.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def points(paths: list[str]) -> dict[str, list[tuple[int, float | None, float | None]]]:
    """tool -> [(run rows, median seconds or None if it failed, peak MiB)]"""
    out: dict[str, list] = {}
    for path in paths:
        data = json.loads(Path(path).read_text())
        for r in data["results"]:
            seconds = r.get("median_s") if r.get("ok_runs") else None
            out.setdefault(r["tool"], []).append((data["run_rows"], seconds, r.get("peak_rss_mib")))
    return {tool: sorted(p) for tool, p in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="compare_peers.py --json files")
    parser.add_argument("--out", default="benchmarks/results/time_vs_size.png")
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = points(args.results)
    finished = [s for p in found.values() for _, s, _ in p if s]
    top = max(finished) * 2
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for tool, pts in found.items():
        done = [(n, s, m) for n, s, m in pts if s]
        if done:
            line, = ax.plot([n for n, _, _ in done], [s for _, s, _ in done], marker="o", label=tool)
            for n, s, m in done:
                if m:
                    ax.annotate(f"{m / 1024:.1f} GiB", (n, s), textcoords="offset points", xytext=(4, -10),
                                fontsize=7, color=line.get_color())
            color = line.get_color()
        else:
            color = None
        failed = [n for n, s, _ in pts if not s]
        if failed:
            ax.scatter(failed, [top] * len(failed), marker="x", color=color, label=f"{tool}: did not finish")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("run rows")
    ax.set_ylabel("seconds (median, end to end)")
    ax.set_title("NDCG@10, one 2-core machine")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
