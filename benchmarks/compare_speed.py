"""Time and peak memory of `sqlndcg.compare` and `sqlndcg.verbs.report.report` on a daily comparison of two systems.

    .venv/bin/python benchmarks/compare_speed.py                       # every step, each in its own child process
    .venv/bin/python benchmarks/compare_speed.py --steps compare2 --profile 25   # cProfile, top 25 by own time
    .venv/bin/python benchmarks/compare_speed.py --no-numpy            # the pure-Python statistics (reference)
    .venv/bin/python benchmarks/compare_speed.py --steps report --stages   # seconds per stage of the report
    .venv/bin/python benchmarks/compare_speed.py --steps report --what-if-bars   # with the plots.py change proposed

The data (generated in memory, fixed seed, not timed): `--queries` queries (default 2,984) x `--days` days (5, a
`ds` column) x two systems ("base", "new"), 3 to 10 retrieved documents per ranking (about 6.5, so ~194k run
rows by default), every document judged 0-3 as in tests/test_compare.py's `synthetic`; "new" ranks relevant
documents a little higher. The steps, each a fresh child process so that its peak memory is its own:

* compare2: ``compare(run, judgments, ["ndcg@10", "ap"], group_by=["ds"], baseline="base")``
* compare4: the same with ``["ndcg@10", "ap", "p@10", "rr@10"]``
* report:   ``sqlndcg.verbs.report.report(...)`` with the 2 metrics (also NDCG@1..10 per system and the plots)

Printed per step: seconds of the call (wall clock; the data generation excluded), its CPU seconds (all threads of
the process, DuckDB's included: on a busy machine the steadier figure) and the process's peak resident
memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``, which includes the interpreter, imports and the data).
``digest``: a CRC-32 of every row's (randomization p, bootstrap interval, t p) for compare, of the page's length for
the report; equal digests across versions, or with ``--no-numpy``, mean the same numbers to the bit.
``--no-numpy`` hides NumPy from sqlndcg.stats.paired only (pandas still needs it), to time the pure-Python reference.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
import zlib

STEPS = {
    "compare2": ["ndcg@10", "ap"],
    "compare4": ["ndcg@10", "ap", "p@10", "rr@10"],
    "report": ["ndcg@10", "ap"],
}


def make_data(queries: int, days: int, seed: int):
    """(run with a system column, judgments) as pandas frames, ~6.5 documents per ranking."""
    import pandas as pd

    rng = random.Random(seed)
    day_names = [f"2026-11-{d + 1:02d}" for d in range(days)]
    qrels = []
    cols = {"system": [], "ds": [], "query_id": [], "doc_id": [], "score": []}
    for q in range(queries):
        qid = f"q{q:05d}"
        rels = [rng.choice([0, 0, 0, 1, 1, 2, 3]) for _ in range(10)]
        qrels += [(qid, f"d{d}", rel) for d, rel in enumerate(rels)]
        for day in day_names:
            for skill, system in enumerate(("base", "new")):
                docs = rng.randint(3, 10)
                for d in rng.sample(range(10), docs):
                    cols["system"].append(system)
                    cols["ds"].append(day)
                    cols["query_id"].append(qid)
                    cols["doc_id"].append(f"d{d}")
                    cols["score"].append(rng.random() + 0.1 * skill * rels[d])
    return pd.DataFrame(cols), pd.DataFrame(qrels, columns=["query_id", "doc_id", "rel"])


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _time_stages(stages: dict) -> None:
    """Wrap what compare() and report() call with timers (wall seconds, summed per name into ``stages``)."""
    import functools

    import importlib

    from sqlndcg.stats import paired
    from sqlndcg.present import plots

    compare_module = importlib.import_module("sqlndcg.verbs.compare")  # sqlndcg.compare is the function
    report_module = importlib.import_module("sqlndcg.verbs.report")

    def timed(module, name, label=None):
        function = getattr(module, name)

        @functools.wraps(function)
        def wrapper(*a, **k):
            start = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                key = label or name
                stages[key] = stages.get(key, 0.0) + time.perf_counter() - start
        setattr(module, name, wrapper)

    timed(compare_module, "_statistics", "compare: Python statistics")
    timed(paired, "randomization_test", "randomization tests")
    timed(paired, "bootstrap_interval", "bootstrap intervals")
    timed(report_module, "compare", "report: compare")
    timed(report_module, "evaluate_systems", "report: NDCG@1..k")
    timed(report_module, "bootstrap_summary", "report: bootstrap summary")
    for name in ("plot_cutoffs", "plot_differences", "plot_over_time"):
        timed(plots, name, f"report: {name}")
    timed(report_module, "_png", "report: PNG encoding (all plots)")


def _bars_as_one_collection() -> None:
    """What-if for sqlndcg/plots.py (not changed here): plot_differences draws one bar per query with ax.bar, one
    Rectangle artist each (~30,000 for this data); the same rectangles as one PolyCollection give the same PNG
    pixels. Replaces Axes.bar for plot_differences' call only (width, color)."""
    import matplotlib.axes
    from matplotlib.collections import PolyCollection

    def bar(self, xs, values, color=None, width=0.8, **kwargs):
        half = width / 2
        verts = [((x - half, 0.0), (x - half, v), (x + half, v), (x + half, 0.0)) for x, v in zip(xs, values)]
        self.add_collection(PolyCollection(verts, facecolors=color, edgecolors="none"))
        self.autoscale_view()

    matplotlib.axes.Axes.bar = bar


def child(args) -> None:
    if args.what_if_bars:
        _bars_as_one_collection()
    if args.no_numpy:
        from sqlndcg.stats import paired

        paired._numpy = lambda: None
    import sqlndcg
    import sqlndcg.verbs.report

    run, qrels = make_data(args.queries, args.days, args.seed)
    metrics = STEPS[args.child]
    kwargs = dict(group_by=["ds"], baseline="base", system="system")
    if args.child == "report":
        call = lambda: sqlndcg.verbs.report.report(run, qrels, metrics, **kwargs)  # noqa: E731
    else:
        call = lambda: sqlndcg.compare(run, qrels, metrics, **kwargs)  # noqa: E731
    stages: dict[str, float] = {}
    if args.stages:
        _time_stages(stages)
    before = peak_mib()
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        start, cpu = time.perf_counter(), time.process_time()
        profiler.runcall(call)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(args.profile)
        stats.sort_stats("cumulative").print_stats(args.profile)
    else:
        start, cpu = time.perf_counter(), time.process_time()
        out = call()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        if args.child != "report":
            # a fingerprint of the statistics, to check that two implementations agree
            digest = [(r["randomization_p"], r["bootstrap_low"], r["bootstrap_high"], r["t_p"]) for r in out]
        else:
            digest = len(out)
    if stages:
        print("  stages (s): " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()), file=sys.stderr)
    print(json.dumps({"step": args.child, "rows": len(run), "seconds": round(seconds, 3), "cpu": round(cpu, 3),
                      "peak_mib_before_call": round(before, 1), "peak_mib": round(peak_mib(), 1),
                      "digest": None if args.profile else repr(digest)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=2984)
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", default=",".join(STEPS), help="comma-separated: " + ", ".join(STEPS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-numpy", action="store_true", help="sqlndcg.stats.paired without NumPy (the reference)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile the call, print the top N")
    parser.add_argument("--what-if-bars", action="store_true",
                        help="draw plot_differences' bars as one PolyCollection (a proposed plots.py change)")
    parser.add_argument("--stages", action="store_true", help="also print the seconds of each stage (stderr)")
    parser.add_argument("--child", choices=list(STEPS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    base = [sys.executable, os.path.abspath(__file__), "--queries", str(args.queries), "--days", str(args.days),
            "--seed", str(args.seed)] + (["--no-numpy"] if args.no_numpy else []) + \
        (["--profile", str(args.profile)] if args.profile else []) + (["--stages"] if args.stages else []) + \
        (["--what-if-bars"] if args.what_if_bars else [])
    for _ in range(args.repeat):
        for step in args.steps.split(","):
            done = subprocess.run(base + ["--child", step], capture_output=True, text=True)
            if done.stderr and (args.profile or args.stages or done.returncode):
                print(done.stderr, file=sys.stderr)
            done.check_returncode()
            result = json.loads(done.stdout.strip().splitlines()[-1])
            digest = result.pop("digest")
            print(f"{step:9s} {result['seconds']:8.2f} s (CPU {result['cpu']:.2f} s)  "
                  f"peak {result['peak_mib']:7.1f} MiB  (before the call {result['peak_mib_before_call']:.1f} MiB; {result['rows']} run rows)"
                  + (f"  digest {zlib.crc32(digest.encode()):08x}" if digest else ""), flush=True)


if __name__ == "__main__":
    main()
