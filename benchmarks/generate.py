"""Generate a seeded run and judgments as two Parquet files, fast at any size (DuckDB range() + hash()).

    python benchmarks/generate.py --rows 10_000_000 --docs 100 --judged 0.3 --seed 1
    python benchmarks/generate.py --queries 1000 --docs 50 --ids text --tie-rate 0.2 --out /tmp/small

Writes ``run.parquet`` (query_id, doc_id, score) and ``judgments.parquet`` (query_id, doc_id, rel), plus
``meta.json`` with the parameters, into ``--out`` (default: ``benchmarks/data/<a name made of the parameters>``).

Every value is a function of (seed, query, document, purpose) through DuckDB's one-argument ``hash()``; nothing depends on the
thread count or on row order, so the same parameters and seed give the same rows (and, with the same DuckDB
version, the same file bytes: the rows are written in (query, document) order).

The data:
- ``queries`` queries with ``docs`` retrieved documents each (``--rows`` = queries * docs).
- score: a uniform double in [0, 1) (53 random bits). ``--tie-rate`` t: documents are paired (0-1, 2-3, ...) and
  a pair shares one score with probability t, so a share t of the scores collides with another document's score
  in the same query (the rest collide with probability ~docs^2 / 2^53, i.e. never).
- judgments: each retrieved document is judged with probability ``--judged``; each query also has
  ``--unretrieved`` judged documents that the run does not contain. Labels follow ``--grades`` ("grade:share,...").
- ids: ``int``: query_id = q (BIGINT), doc_id = 10^12 + q * (docs + unretrieved) + d (BIGINT, all 13 digits, so
  string order equals numeric order, which trec_eval's tie rule needs); ``text``: 'q000042' and 'd000000004211'
  (zero-padded, so again string order equals numeric order). Document ids are unique across queries.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE / "data"
DOC_BASE = 10**12
FORMAT_VERSION = 2  # bump when the generated rows change for the same parameters


def parse_grades(text: str) -> list[tuple[int, float]]:
    """'0:0.7,1:0.15,2:0.1,3:0.05' -> [(0, 0.7), (1, 0.15), (2, 0.1), (3, 0.05)] (shares must sum to 1)."""
    out = []
    for part in text.split(","):
        grade, share = part.split(":")
        out.append((int(grade), float(share)))
    total = sum(s for _, s in out)
    if abs(total - 1) > 1e-9 or any(s < 0 for _, s in out):
        raise SystemExit(f"--grades shares must be >= 0 and sum to 1, got {total} in {text!r}")
    return out


def int_arg(text: str) -> int:
    return int(float(text.replace("_", ""))) if "e" in text.lower() else int(text.replace("_", ""))


def default_name(p: dict) -> str:
    grades = hashlib.sha1(p["grades"].encode()).hexdigest()[:6]
    return (f"q{p['queries']}_d{p['docs']}_j{p['judged']:g}_u{p['unretrieved']}_t{p['tie_rate']:g}_"
            f"g{grades}_{p['ids']}_s{p['seed']}")


def _uniform(seed: int, key: str, purpose: int) -> str:
    """SQL for a uniform double in [0, 1): 53 bits of hash(hash(key) + a constant per (seed, purpose)).

    One-argument hash() of distinct integers is well mixed; DuckDB's many-argument hash() is not (its combine
    leaves values for neighbouring arguments correlated), so it is not used."""
    salt = (seed * 1_000_003 + purpose * 7_919) % (2**62)
    return f"(CAST(hash(hash({key}) + {salt}) >> 11 AS DOUBLE) / 9007199254740992.0)"


def _grade_sql(u: str, grades: list[tuple[int, float]]) -> str:
    """A CASE that maps a uniform u to a grade with the given shares (cumulative thresholds)."""
    cases, cum = [], 0.0
    for grade, share in grades[:-1]:
        cum += share
        cases.append(f"WHEN {u} < {cum!r} THEN {grade}")
    return f"CAST(CASE {' '.join(cases)} ELSE {grades[-1][0]} END AS INTEGER)"


def _id_sql(kind: str, expr: str, ids: str, width: int) -> str:
    if ids == "int":
        return f"CAST({expr} AS BIGINT)"
    prefix = "q" if kind == "query" else "d"
    return f"'{prefix}' || lpad(CAST({expr} AS VARCHAR), {width}, '0')"


def generate(out: Path, *, queries: int, docs: int, grades: str = "0:0.7,1:0.15,2:0.1,3:0.05",
             tie_rate: float = 0.0, judged: float = 0.3, unretrieved: int = 5, ids: str = "int", seed: int = 1,
             threads: int | None = None, memory_limit: str | None = None, force: bool = False,
             quiet: bool = False) -> Path:
    """Write run.parquet, judgments.parquet and meta.json into ``out``; skip when meta.json already matches."""
    import duckdb

    params = dict(queries=queries, docs=docs, grades=grades, tie_rate=tie_rate, judged=judged,
                  unretrieved=unretrieved, ids=ids, seed=seed, format_version=FORMAT_VERSION)
    out = Path(out)
    meta_path = out / "meta.json"
    if not force and meta_path.exists() and (out / "run.parquet").exists() and (out / "judgments.parquet").exists():
        old = json.loads(meta_path.read_text())
        if old.get("params") == params:
            if not quiet:
                print(f"{out}: already generated with these parameters")
            return out
    if ids not in ("int", "text"):
        raise SystemExit("--ids must be int or text")
    if not (0 <= tie_rate <= 1 and 0 <= judged <= 1):
        raise SystemExit("--tie-rate and --judged are shares in [0, 1]")
    g = parse_grades(grades)
    out.mkdir(parents=True, exist_ok=True)
    per_query = docs + unretrieved
    qw = max(6, len(str(max(queries - 1, 0))))
    dw = 12
    if queries * per_query >= 9 * DOC_BASE:
        raise SystemExit("too many documents for 13-digit ids")

    con = duckdb.connect()
    # Sorting a billion rows spills: into the (git-ignored) output directory, never DuckDB's ./.tmp.
    con.execute("SET temp_directory = $dir", {"dir": str(out / ".spill")})
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    qid = _id_sql("query", "q", ids, qw)
    doc_number = f"q * {per_query} + d"
    did = _id_sql("doc", f"{DOC_BASE} + {doc_number}" if ids == "int" else doc_number, ids, dw)
    key = f"CAST(q * {per_query} + d AS UBIGINT)"  # the document's number, unique over all queries
    pair = f"CAST(q * {per_query} + (d // 2) * 2 AS UBIGINT)"  # documents 2i and 2i+1 of a query share it
    tied = f"{_uniform(seed, pair, 1)} < {tie_rate!r}"
    score = f"CASE WHEN {tied} THEN {_uniform(seed, pair, 2)} ELSE {_uniform(seed, key, 3)} END"
    is_judged = f"{_uniform(seed, key, 4)} < {judged!r}"
    grade = _grade_sql(_uniform(seed, key, 5), g)
    started = time.perf_counter()
    run_tmp, judg_tmp = out / "run.parquet.tmp", out / "judgments.parquet.tmp"
    con.execute(f"""
        COPY (
          SELECT {qid} AS query_id, {did} AS doc_id, {score} AS score
          FROM range({queries}) AS t(q), range({docs}) AS u(d)
          ORDER BY q, d
        ) TO '{run_tmp}' (FORMAT parquet, COMPRESSION zstd)""")
    con.execute(f"""
        COPY (
          SELECT {qid} AS query_id, {did} AS doc_id, {grade} AS rel
          FROM range({queries}) AS t(q), range({per_query}) AS u(d)
          WHERE d >= {docs} OR {is_judged}
          ORDER BY q, d
        ) TO '{judg_tmp}' (FORMAT parquet, COMPRESSION zstd)""")
    run_rows = con.execute(f"SELECT count(*) FROM read_parquet('{run_tmp}')").fetchone()[0]
    judg_rows, judg_queries = con.execute(
        f"SELECT count(*), count(DISTINCT query_id) FROM read_parquet('{judg_tmp}')").fetchone()
    os.replace(run_tmp, out / "run.parquet")
    os.replace(judg_tmp, out / "judgments.parquet")
    elapsed = time.perf_counter() - started
    meta = dict(params=params, run_rows=run_rows, judgment_rows=judg_rows, judged_queries=judg_queries,
                seconds=round(elapsed, 2), duckdb=duckdb.__version__)
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    con.close()
    shutil.rmtree(out / ".spill", ignore_errors=True)
    if not quiet:
        print(f"{out}: {run_rows:,} run rows, {judg_rows:,} judgments over {judg_queries:,} queries "
              f"in {elapsed:.1f} s")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The data parameters (shared with compare_peers.py)."""
    parser.add_argument("--rows", type=int_arg, default=None,
                        help="run rows; queries = rows // docs (default 1_000_000 unless --queries)")
    parser.add_argument("--queries", type=int_arg, default=None, help="number of queries (overrides --rows)")
    parser.add_argument("--docs", type=int_arg, default=100, help="retrieved documents per query (default 100)")
    parser.add_argument("--grades", default="0:0.7,1:0.15,2:0.1,3:0.05",
                        help="label mix of judged documents, grade:share,... (default %(default)s)")
    parser.add_argument("--tie-rate", type=float, default=0.1,
                        help="share of scores that equal another document's score in the same query "
                             "(default %(default)s)")
    parser.add_argument("--judged", type=float, default=0.3,
                        help="share of retrieved documents that have a judgment (default %(default)s)")
    parser.add_argument("--unretrieved", type=int_arg, default=5,
                        help="judged documents per query that the run does not retrieve (default %(default)s)")
    parser.add_argument("--ids", choices=("int", "text"), default="int", help="id type (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)


def params_from_args(args) -> dict:
    queries = args.queries if args.queries is not None else (args.rows or 1_000_000) // args.docs
    return dict(queries=queries, docs=args.docs, grades=args.grades, tie_rate=args.tie_rate, judged=args.judged,
                unretrieved=args.unretrieved, ids=args.ids, seed=args.seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default benchmarks/data/<name from the parameters>)")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit, e.g. 8GB")
    parser.add_argument("--force", action="store_true", help="regenerate even if meta.json matches")
    args = parser.parse_args()
    params = params_from_args(args)
    out = args.out or DEFAULT_DIR / default_name(params)
    generate(out, threads=args.threads, memory_limit=args.memory_limit, force=args.force, **params)
    print(out)


if __name__ == "__main__":
    main()
