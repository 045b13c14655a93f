"""sqlndcg: ranking metrics (NDCG, P, R, MAP, MRR, ...) computed in SQL.

One set of Jinja SQL templates (shipped as ``sqlndcg/sql``) is the single source of truth; it runs in DuckDB
here, is transpiled by sqlglot for warehouses, and is loaded by dbt.
"""

from __future__ import annotations

from pathlib import Path

from .api import evaluate, to_sql
from .compare import Comparison, compare
from .intervals import bootstrap_summary
from .agreement import Agreement, aggregate_labels, agreement
from .labels import labels_from_events
from .positions import Positions, positions
from .errors import DataError, EmptyQueryError, InputError, MetricError, ResourceError, SettingError, SqlndcgError
from .metrics import KINDS, Metric, parse_metric, parse_metrics
from .results import Result, Table
from .spec import PRESETS

__version__ = "0.1.0"

_EXAMPLES = Path(__file__).resolve().parent / "examples"


def example(name: str) -> str:
    """Path of a bundled example file: ``example("run")`` (TREC run) or ``example("qrels")`` (TREC qrels)."""
    files = {"run": "example.run", "qrels": "example.qrels"}
    if name not in files:
        raise InputError(f"no example {name!r}; choose one of {sorted(files)}")
    return str(_EXAMPLES / files[name])


__all__ = [
    "compare", "Comparison", "bootstrap_summary",
    "labels_from_events", "agreement", "aggregate_labels", "Agreement", "positions", "Positions",
    "evaluate", "to_sql", "example", "Result", "Table", "Metric", "parse_metric", "parse_metrics", "KINDS",
    "PRESETS", "SqlndcgError", "MetricError", "SettingError", "InputError", "DataError", "EmptyQueryError",
    "ResourceError",
]
