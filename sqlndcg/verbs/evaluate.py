"""The public verbs: :func:`evaluate` runs the metrics in DuckDB, :func:`to_sql` returns the SQL it runs (both
through :mod:`.scoring`, which reads, checks and plans the inputs and runs the statement)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Sequence, cast

from . import scoring
from .beyond import beyond_accuracy, is_beyond_metric
from .diversity import diversity, is_diversity_metric
from ..errors import MetricError, SettingError
from ..present.diversity import DiversityResult
from ..present.results import Result
from ..run.sources import Reading
from ..core.settings import Settings, settings_of
from ..core.spec import make_spec
from ..stats.sample import sample_of

if TYPE_CHECKING:
    from typing_extensions import Unpack

MetricNames = Sequence[str] | str


def evaluate(
    run,
    judgments,
    metrics: MetricNames = ("ndcg@10",),
    *,
    con=None,
    dialect: str | None = None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    query_weights=None,
    weight_column: str = "weight",
    memory_limit: str | None = None,
    temp_directory: str | None = None,
    max_temp_size: str | None = None,
    max_result_rows: int | None = scoring.MAX_RESULT_ROWS,
    partitions: int = 1,
    bootstrap: str | None = None,
    resamples: int = 10000,
    seed: int = 0,
    sample: float | None = None,
    items=None,
    items_format: str | None = None,
    audit=None,
    ppi: str | None = None,
    interval: str | None = None,
    **settings: Unpack[Settings],
) -> Result | DiversityResult:
    """Evaluate a run against judgments; every metric and cutoff comes from one SQL statement run in DuckDB.

    ``run`` and ``judgments`` are each a DuckDB table/view name (looked up in ``con``), a file path (Parquet,
    CSV, TSV, TREC run/qrels), or a pandas/polars/pyarrow table; ``run_format``/``judgments_format`` name a file's
    format whatever its suffix, ``delimiter`` and ``decimal`` how CSV/TSV files are split (``delimiter=";"``,
    ``decimal=","`` for numbers written 0,5). ``query_weights`` (same kinds of input: query
    id, ``weight_column``, optionally group columns) makes the summary's means weighted (see summary.sql).
    ``memory_limit``, ``temp_directory`` and ``max_temp_size`` bound DuckDB's memory and spilling (e.g. "4GB");
    a per-query result above ``max_result_rows`` rows (None: no limit) is refused before it starts.
    ``partitions`` (DuckDB) evaluates the queries in that many disjoint buckets, one after another, so each pass
    holds a fraction of the inputs: the same numbers, for inputs whose sorts and hash tables outgrow memory.
    ``bootstrap`` ("percentile" or "bca") adds a seeded bootstrap interval beside the t interval (docs/compare.md
    says when each fits). ``sample`` (0 < sample <= 1) scores only the queries a hash of their id and ``seed``
    chooses (the same on every engine and every day): the summary's intervals are those of the whole input's
    mean, with the finite-population correction; the settings say it is a sample, of how many queries, and the
    checks and the account read the sampled queries (what went in). ``items`` (an items table: item id as
    ``doc_id``, a category, a popularity) with metrics that are all beyond-accuracy measures (coverage@k, gini@k,
    novelty@k, ild@k, long_tail@k) hands the call to :func:`sqlndcg.beyond_accuracy`: ``judgments`` may be None and
    are not read (docs/beyond.md). ``audit`` (human judgments of some queries; ``judgments`` then the model's on
    every query) hands the call to :func:`sqlndcg.ppi_evaluate` with ``ppi`` ("ppi++", the default, or "ppi") and
    ``interval`` ("normal", the default, or "t" for small audits): the prediction-powered means and intervals, the naive ones beside them (docs/judgments.md). ``settings`` are
    those of docs/SEMANTICS.md (:class:`~sqlndcg.core.settings.Settings`, declared in sql/macros/spec/settings.sql);
    ``preset`` ("trec_eval", "sklearn") fills the ones not given.

    >>> import sqlndcg
    >>> res = sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5", "p@5", "map"],
    ...                        group_by="tag")
    >>> [(row["tag"], round(row["ndcg@5"], 4)) for row in res.summary]
    [('bm25', 0.1916), ('rerank', 0.4913)]
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics) if isinstance(metrics, (list, tuple)) else []
    if audit is not None or ppi is not None or interval is not None:
        return _ppi(run, judgments, names, audit, ppi, con, run_format, judgments_format, locals(), dict(settings))
    if items is not None or (names and any(is_beyond_metric(n) for n in names)):
        return _beyond(run, names, items, con, run_format, items_format, dict(settings))
    if names and any(is_diversity_metric(n) for n in names):
        # Intent-aware measures read judgments with an intent column: a statement of their own (diversity.py).
        if not all(is_diversity_metric(n) for n in names):
            raise MetricError("the diversity measures (alpha_ndcg@k, err_ia@k, nrbp, ...) read judgments with an "
                              "intent column and are evaluated apart: ask for them in a list of their own, "
                              f"got {names}")
        known = set(inspect.signature(diversity).parameters) - {"run", "judgments", "metrics"}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise SettingError(f"{unknown[0]} is not a setting of the diversity measures; theirs are "
                               f"{', '.join(sorted(known - {'con', 'run_format', 'judgments_format'}))}")
        extra = cast(dict, settings)
        return diversity(run, judgments, metrics=names, con=con, run_format=run_format,
                         judgments_format=judgments_format, **extra)
    spec = make_spec(metrics, **settings_of("evaluate", settings))
    chosen_sample = sample_of(sample, seed)
    if chosen_sample and (bootstrap is not None or query_weights is not None):
        raise SettingError("sample= gives the t interval with the finite-population correction of a sample of "
                           "queries; it is not available with " + ("bootstrap=" if bootstrap is not None else
                           "query_weights= (a weighted mean's correction differs)"))
    if bootstrap is not None and query_weights is not None:
        # The summary's means are weighted; a bootstrap of unweighted means beside them would disagree with them.
        raise SettingError("bootstrap= with query_weights= is not available in evaluate(): the weighted summary "
                           "has its t interval with Kish's effective n; sqlndcg.compare(..., query_weights=, "
                           "bootstrap=) gives a weighted bootstrap of paired differences")
    result = scoring.evaluate(spec, run, judgments, con=con, dialect=dialect, run_format=run_format,
                           judgments_format=judgments_format, reading=Reading.of(delimiter, decimal),
                           query_weights=query_weights,
                           weight_column=weight_column, memory_limit=memory_limit, temp_directory=temp_directory,
                           max_temp_size=max_temp_size, max_result_rows=max_result_rows, partitions=partitions,
                           sample=chosen_sample)
    if bootstrap is None:
        return result
    from ..stats.intervals import with_bootstrap

    return with_bootstrap(result, method=bootstrap, resamples=resamples, seed=seed)


#: evaluate's keywords that ppi_evaluate takes, and their defaults (any other given is refused with an audit).
_PPI_FREE = {"dialect": None, "delimiter": None, "decimal": None, "query_weights": None, "weight_column": "weight",
             "memory_limit": None, "temp_directory": None, "max_temp_size": None,
             "max_result_rows": scoring.MAX_RESULT_ROWS, "partitions": 1, "bootstrap": None, "resamples": 10000,
             "seed": 0, "sample": None, "items": None, "items_format": None}


def _ppi(run, judgments, names: list, audit, ppi, con, run_format, judgments_format, given: dict,
         settings: dict) -> Result:
    """evaluate's hand-over to ppi_evaluate: ``judgments`` are the model's labels, ``audit`` the humans'."""
    from .ppi import check_hand_over, ppi_evaluate

    check_hand_over("evaluate", audit, f"ppi={ppi!r}" if ppi is not None else f"interval={given['interval']!r}",
                    given, _PPI_FREE, "metrics take the metrics' settings and the inputs' formats")

    return cast(Result, ppi_evaluate(run, judgments, audit, names, ppi=ppi or "ppi++",
                                     interval=given["interval"] or "normal", con=con,
                                     run_format=run_format, judgments_format=judgments_format, **settings))


def _beyond(run, names: list, items, con, run_format, items_format, settings: dict) -> Result:
    """evaluate's hand-over to beyond_accuracy: every metric one of its measures, and an items table."""
    if not names or not all(is_beyond_metric(n) for n in names):
        raise MetricError("the beyond-accuracy measures (coverage@k, gini@k, novelty@k, ild@k, long_tail@k) read the "
                          "run and an items table, not judgments, and are evaluated apart: ask for them in a list of "
                          f"their own with items=, and for accuracy metrics in another call; got {names}")
    if items is None:
        raise SettingError(f"evaluate: {names[0]} reads an items table (item id as doc_id, a category, a "
                           "popularity): pass it as items=")
    known = set(inspect.signature(beyond_accuracy).parameters) - {"run", "items", "metrics"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise SettingError(f"{unknown[0]} is not a setting of the beyond-accuracy measures; theirs are "
                           f"{', '.join(sorted(known - {'con', 'run_format', 'items_format'}))}")
    return cast(Result, beyond_accuracy(run, items, metrics=names, con=con, run_format=run_format,
                                        items_format=items_format, **settings))


def to_sql(
    run,
    judgments,
    metrics: MetricNames = ("ndcg@10",),
    *,
    dialect: str | None = None,
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    id_type: str | None = None,
    **settings: Unpack[Settings],
) -> str:
    """The per-query SQL statement that :func:`evaluate` runs, formatted, in ``dialect`` (via sqlglot; default:
    the dialect of ``con``, else DuckDB's).

    Table names without ``con`` are taken on trust, including what their id columns hold: ``id_type="text"``
    (the default) compares ids as text in byte order, whatever the warehouse's collation (an integer column then
    ties in text order, as trec_eval's); ``id_type="integer"`` for integer ids in numeric order. With ``con``, or
    files and frames, the column types are read instead.

    >>> import sqlndcg
    >>> sql = sqlndcg.to_sql(run="runs", judgments="qrels", metrics=["ndcg@10"])
    >>> sql.startswith("WITH run_rows AS")
    True
    """
    spec = make_spec(metrics, **settings_of("to_sql", settings))
    return scoring.sql_only(spec, run, judgments, con=con, dialect=dialect, run_format=run_format,
                           judgments_format=judgments_format, reading=Reading.of(delimiter, decimal),
                           id_type=id_type)
