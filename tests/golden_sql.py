"""Golden SQL: the statement sqlndcg writes for each dialect and scenario, one file each under tests/golden/, so a
change to the SQL is reviewed in a diff. The test (tests/test_transpiled.py) compares; to accept a change:

    .venv/bin/python tests/golden_sql.py            # rewrite every golden file, then review `git diff tests/golden`
"""

from __future__ import annotations

import sys
from pathlib import Path

import sqlndcg

GOLDEN = Path(__file__).resolve().parent / "golden"

#: Every dialect the package writes: those with a dialect file (sql/macros/dialects/: their own fragments) and one
#: without (oracle: the portable DuckDB SQL transpiled by sqlglot).
DIALECTS = ["duckdb", "postgres", "redshift", "snowflake", "bigquery", "spark", "databricks", "trino", "clickhouse",
            "sqlite", "tsql", "mysql", "datafusion", "oracle"]

#: scenario -> to_sql keywords (table names taken on trust: the run has a score column).
SCENARIOS = {
    "defaults": dict(metrics=["ndcg@10", "p@5", "ap", "rr@10"], group_by="system"),
    "trec_eval": dict(metrics=["ndcg@10", "p@10", "map", "recip_rank"], preset="trec_eval"),
    "average_truncate_map": dict(metrics=["ndcg@5", "ndcg", "p@3", "judged@5"], ties="average",
                                 short_lists="truncate", ideal="retrieved", gain={1: 1, 2: 3, 3: 7}),
    # every metric has a cutoff: each list's top k by score alone first (list_cut), then ranked
    "cutoffs": dict(metrics=["ndcg@10", "p@5", "map@10", "rr@10"], group_by="system"),
}


def render(dialect: str, scenario: str) -> str:
    return sqlndcg.to_sql("runs", "qrels", dialect=dialect, **SCENARIOS[scenario]) + "\n"


def path(dialect: str, scenario: str) -> Path:
    return GOLDEN / dialect / f"{scenario}.sql"


def update() -> int:
    for dialect in DIALECTS:
        for scenario in SCENARIOS:
            target = path(dialect, scenario)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(render(dialect, scenario), encoding="utf-8")
    print(f"wrote {len(DIALECTS) * len(SCENARIOS)} golden files under {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(update())
