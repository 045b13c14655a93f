"""sqlndcg: ranking metrics (NDCG, P, R, MAP, MRR, ...) computed in SQL.

One set of Jinja SQL templates (shipped as ``sqlndcg/sql``) is the single source of truth: rendered for each
engine's dialect (dbt-style dispatch variants where dialects differ), run in DuckDB here, on warehouses and Spark
through their connections, and loaded by dbt; sqlglot reads the rendered SQL in its dialect to format it (and to
refuse what that dialect cannot express).

The layers, each importing only those below it::

    cli/      the command line: one parser per verb, one table writer
    verbs/    evaluate, to_sql, compare, report, trec_eval, labels, agreement, positions, propensities, click_labels,
              counterfactual, interleaving, diversity, exposure, ppi, audit_sample, audit_size, judge_check
    stats/    paired tests, bootstrap intervals, the t distribution (pure Python; NumPy only speeds them up)
    present/  results (tables, the SQL that ran) and plots
    run/      the session with an engine: connections, inputs (sources), input checks, engines/
    core/     metric names, settings (the spec) and the template renderer over sql/
    errors    the exceptions every layer raises

The public names below are imported on first use, so ``import sqlndcg`` (and ``sqlndcg --help``) stays quick.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from .errors import DataError, EmptyQueryError, InputError, MetricError, ResourceError, SettingError, SqlndcgError

__version__ = "0.1.0"

_EXAMPLES = Path(__file__).resolve().parent / "examples"

#: public name -> (module, attribute; None for the module itself)
_LAZY = {
    "evaluate": ("sqlndcg.verbs.evaluate", "evaluate"),
    "to_sql": ("sqlndcg.verbs.evaluate", "to_sql"),
    "explain": ("sqlndcg.verbs.explain", "explain"),
    "compare": ("sqlndcg.verbs.compare", "compare"),
    "Comparison": ("sqlndcg.verbs.compare", "Comparison"),
    "gate": ("sqlndcg.verbs.gate", "gate"),
    "power": ("sqlndcg.verbs.power", "power"),
    "report": ("sqlndcg.verbs.report", "report"),
    "bootstrap_summary": ("sqlndcg.stats.intervals", "bootstrap_summary"),
    "agreement": ("sqlndcg.verbs.agreement", "agreement"),
    "aggregate_labels": ("sqlndcg.verbs.agreement", "aggregate_labels"),
    "Agreement": ("sqlndcg.verbs.agreement", "Agreement"),
    "labels_from_events": ("sqlndcg.verbs.labels", "labels_from_events"),
    "positions": ("sqlndcg.verbs.positions", "positions"),
    "propensities": ("sqlndcg.verbs.propensities", "propensities"),
    "click_labels": ("sqlndcg.verbs.click_labels", "click_labels"),
    "counterfactual": ("sqlndcg.verbs.counterfactual", "counterfactual"),
    "Counterfactual": ("sqlndcg.present.online", "Counterfactual"),
    "Propensities": ("sqlndcg.present.online", "Propensities"),
    "interleave": ("sqlndcg.verbs.interleaving", "interleave"),
    "multileave": ("sqlndcg.verbs.interleaving", "multileave"),
    "interleaving_credit": ("sqlndcg.verbs.interleaving", "interleaving_credit"),
    "diversity": ("sqlndcg.verbs.diversity", "diversity"),
    "overlap": ("sqlndcg.verbs.overlap", "overlap"),
    "Overlap": ("sqlndcg.present.overlap", "Overlap"),
    "beyond_accuracy": ("sqlndcg.verbs.beyond", "beyond_accuracy"),
    "exposure": ("sqlndcg.verbs.exposure", "exposure"),
    "Exposure": ("sqlndcg.present.exposure", "Exposure"),
    "ppi_evaluate": ("sqlndcg.verbs.ppi", "ppi_evaluate"),
    "ppi_compare": ("sqlndcg.verbs.ppi", "ppi_compare"),
    "PPIResult": ("sqlndcg.present.ppi", "PPIResult"),
    "system_order": ("sqlndcg.verbs.system_order", "system_order"),
    "SystemOrder": ("sqlndcg.present.system_order", "SystemOrder"),
    "audit_sample": ("sqlndcg.verbs.audit", "audit_sample"),
    "AuditSample": ("sqlndcg.present.audit", "AuditSample"),
    "audit_size": ("sqlndcg.verbs.audit_size", "audit_size"),
    "ppi_stratified": ("sqlndcg.verbs.ppi_stratified", "ppi_stratified"),
    "judge_check": ("sqlndcg.verbs.judge_check", "judge_check"),
    "JudgeCheck": ("sqlndcg.present.judge_check", "JudgeCheck"),
    "StratifiedPPI": ("sqlndcg.present.audit", "StratifiedPPI"),
    "Positions": ("sqlndcg.verbs.positions", "Positions"),
    "KINDS": ("sqlndcg.core.metrics", "KINDS"),
    "Metric": ("sqlndcg.core.metrics", "Metric"),
    "parse_metric": ("sqlndcg.core.metrics", "parse_metric"),
    "parse_metrics": ("sqlndcg.core.metrics", "parse_metrics"),
    "Result": ("sqlndcg.present.results", "Result"),
    "Table": ("sqlndcg.present.results", "Table"),
    "PRESETS": ("sqlndcg.core.spec", "PRESETS"),
    "plots": ("sqlndcg.plots", None),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'sqlndcg' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def example(name: str) -> str:
    """Path of a bundled example file: ``example("run")`` (TREC run), ``example("qrels")`` (TREC qrels) or
    ``example("clicks")`` (an impression log of 1,000 impressions, half of them with their top 5 shuffled, whose
    users examine position p with probability 1 / p^0.8, the ``propensity`` column) or ``example("clicks_run")``
    (a new ranker's run over the click log's queries, with documents the log never shows) or
    ``example("recommendations")`` (two recommenders' lists, a ``system`` column) and ``example("items")`` (their
    catalog: doc_id, category, popularity, for :func:`beyond_accuracy`) or ``example("model_qrels")`` (a model
    judge's grades of the qrels' documents: the human grade + 1, capped at 3, for 30% of them, chosen by a hash of
    query and document; docs/judgments.md) and ``example("audit_qrels")`` (the human grades of the odd-numbered
    queries, q1, q3, ..., q11: the audit of :func:`ppi_evaluate`)."""
    files = {"run": "example.run", "qrels": "example.qrels", "clicks": "clicks.csv", "clicks_run": "clicks_run.csv",
             "recommendations": "recommendations.csv", "items": "items.csv", "model_qrels": "model.qrels",
             "audit_qrels": "audit.qrels"}
    if name not in files:
        raise InputError(f"no example {name!r}; choose one of {sorted(files)}")
    return str(_EXAMPLES / files[name])


__all__ = [
    "compare", "Comparison", "gate", "power", "report", "bootstrap_summary",
    "labels_from_events", "agreement", "aggregate_labels", "Agreement", "positions", "Positions",
    "propensities", "Propensities", "click_labels", "counterfactual", "Counterfactual",
    "interleave", "multileave", "interleaving_credit", "diversity", "overlap", "Overlap", "beyond_accuracy",
    "exposure", "Exposure", "ppi_evaluate", "ppi_compare", "PPIResult",
    "system_order", "SystemOrder",
    "audit_sample", "AuditSample", "audit_size", "ppi_stratified", "StratifiedPPI",
    "judge_check", "JudgeCheck",
    "evaluate", "to_sql", "example", "Result", "Table", "Metric", "parse_metric", "parse_metrics", "KINDS",
    "PRESETS", "SqlndcgError", "MetricError", "SettingError", "InputError", "DataError", "EmptyQueryError",
    "ResourceError",
]
