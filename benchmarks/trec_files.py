"""TREC text files as people have them: `sqlndcg trec_eval` beside trec_eval 10.0 itself, and evaluate() on the
TREC files beside the same rows as Parquet.

    .venv/bin/python benchmarks/trec_files.py                         # 2M run lines (20,000 queries x 100)
    .venv/bin/python benchmarks/trec_files.py --rows 10_000_000 --repeat 3

The rows are the project's generated data (benchmarks/generate.py, made once into benchmarks/data), written out as
a TREC run (`query Q0 doc rank score tag`, one space between fields) and qrels (`query 0 doc label`) next to it, with
the extension `.txt` (so the format is told from the first lines, as for most files people have). trec_eval 10.0
is built from the vendored source (tests/trec_eval_10, `make`); its output and `sqlndcg trec_eval`'s must be the
same, byte for byte, or the run stops. Each tool runs in a fresh process; medians of --repeat runs, wall clock.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402  (the benchmarks' own data)

PY = sys.executable
EVALUATE = r"""
import sys, time
import sqlndcg
t = time.perf_counter()
sqlndcg.evaluate(sys.argv[1], sys.argv[2], ["ndcg@10"])
print(time.perf_counter() - t)
"""


def trec_files(data: Path) -> tuple[Path, Path]:
    """The run and qrels of ``data`` as TREC text (written once, next to the Parquet files)."""
    import duckdb

    run, qrels = data / "run.trec.txt", data / "qrels.trec.txt"
    if not run.exists() or not qrels.exists():
        con = duckdb.connect()
        con.execute(f"""COPY (SELECT query_id || ' Q0 ' || doc_id || ' '
                                     || ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC)
                                     || ' ' || score || ' bench' AS line
                              FROM read_parquet('{data / "run.parquet"}') ORDER BY query_id, score DESC, doc_id DESC)
                        TO '{run}' (HEADER false, QUOTE '', DELIMITER '\t')""")
        con.execute(f"""COPY (SELECT query_id || ' 0 ' || doc_id || ' ' || CAST(rel AS BIGINT) AS line
                              FROM read_parquet('{data / "judgments.parquet"}') ORDER BY query_id, doc_id)
                        TO '{qrels}' (HEADER false, QUOTE '', DELIMITER '\t')""")
    return run, qrels


def build_trec_eval(into: Path) -> Path:
    shutil.copytree(ROOT / "tests" / "trec_eval_10", into, dirs_exist_ok=True)
    subprocess.run(["make", "trec_eval"], cwd=into, check=True, capture_output=True)
    return into / "trec_eval"


def timed(cmd: list[str], out: Path | None = None) -> float:
    start = time.perf_counter()
    with open(out or "/dev/null", "wb") as sink:
        subprocess.run(cmd, check=True, stdout=sink, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=generate.int_arg, default=2_000_000, help="run lines (100 per query)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    params = generate.params_from_args(argparse.Namespace(
        rows=args.rows, queries=None, docs=100, grades="0:0.7,1:0.15,2:0.1,3:0.05", tie_rate=0.1, judged=0.3,
        unretrieved=5, ids="int", seed=1))
    data = generate.generate(generate.DEFAULT_DIR / generate.default_name(params), **params)
    run, qrels = trec_files(data)
    lines = sum(1 for _ in open(run, "rb"))
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_trec_eval(Path(tmp) / "trec_eval_10")
        want, got = Path(tmp) / "trec_eval.out", Path(tmp) / "sqlndcg.out"
        times: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            times.setdefault("trec_eval 10.0", []).append(timed([str(binary), str(qrels), str(run)], want))
            times.setdefault("sqlndcg trec_eval", []).append(
                timed([PY, "-m", "sqlndcg", "trec_eval", str(qrels), str(run)], got))
            if want.read_bytes() != got.read_bytes():
                raise SystemExit("sqlndcg trec_eval and trec_eval 10.0 printed different output")
            for label, inputs in (("evaluate(), TREC files", (run, qrels)),
                                  ("evaluate(), Parquet", (data / "run.parquet", data / "judgments.parquet"))):
                done = subprocess.run([PY, "-c", EVALUATE, str(inputs[0]), str(inputs[1])], check=True,
                                      capture_output=True, cwd=ROOT)
                times.setdefault(label, []).append(float(done.stdout))
    print(f"{lines:,} run lines, {args.repeat} repetitions (medians; trec_eval outputs identical)")
    for label, seconds in times.items():
        print(f"  {label:24s} {statistics.median(seconds):7.2f} s   (min {min(seconds):.2f})")


if __name__ == "__main__":
    main()
