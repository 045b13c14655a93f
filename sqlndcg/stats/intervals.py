"""Intervals that respect the metric: a seeded bootstrap interval of each summary mean, beside the t interval.

The t interval of the summary (computed in SQL, ``sql/macros/statements/summary.sql``) is symmetric around the mean and can
leave the metric's range: an rr@10 whose queries mostly score 1 gets an upper bound above 1, and two queries give
an interval wider than [0, 1]. A percentile bootstrap interval is made of resampled means, so it always lies
within the observed values, hence within the metric's range; BCa corrects it for bias and skew. docs/compare.md
says when to use which. The bootstrap is :func:`sqlndcg.stats.paired.bootstrap_intervals` (SplitMix64 from ``seed``;
NumPy, when installed, only makes it faster), run on the per-query values a result already holds: one value per
query, small.
"""

from __future__ import annotations

import dataclasses

from ..core.metrics import metric_range
from .methods import BOOTSTRAPS as METHODS
from .paired import bootstrap_intervals
from ..present.results import Result, Table
from ..core import templates



def _bounds(metric: str, values: list[float]) -> tuple[float, float] | None:
    """The metric's range, when every value lies in it (a gain map with negative gains can leave it)."""
    lohi = metric_range(metric)
    if lohi is None or not all(lohi[0] <= v <= lohi[1] for v in values):
        return None
    return lohi


def _query_key(value):
    return (type(value).__name__, value)


def bootstrap_summary(result: Result, *, method: str = "percentile", resamples: int = 10000, seed: int = 0) -> Table:
    """Per group and metric: the mean, the number of queries, the 95% t interval (from the summary) and the 95%
    bootstrap interval (``method`` "percentile" or "bca", ``resamples`` resamples drawn from ``seed``), named in
    the ``bootstrap_method`` column. Values are resampled in query-id order, so the same result and seed give
    the same interval on every run. NULL values (``empty="skip"``) are left out, as the mean leaves them out.

    >>> import sqlndcg
    >>> res = sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), ["rr@10"], group_by="tag")
    >>> [(r["tag"], round(r["t_high"], 4), round(r["bootstrap_high"], 4)) for r in bootstrap_summary(res)]
    [('bm25', 0.5524, 0.5313), ('rerank', 1.0807, 1.0)]
    """
    if method not in METHODS:
        from ..errors import SettingError

        raise SettingError(f"method={method!r} is not known; choose one of {', '.join(METHODS)}")
    groups = list(result.settings.get("group_by", []))
    metrics = list(result.settings["metrics"])
    query = result.settings["columns"]["query_id"]
    values: dict[tuple, list[dict]] = {}
    for r in result.per_query.to_dicts():
        values.setdefault(tuple(r[g] for g in groups), []).append(r)
    rows: list[tuple] = []
    samples: list[tuple[int, list[float], tuple[float, float] | None]] = []
    for s in result.summary.to_dicts():
        key = tuple(s[g] for g in groups)
        ordered = sorted(values.get(key, []), key=lambda r: _query_key(r[query]))
        for m in metrics:
            xs = [float(r[m]) for r in ordered if r[m] is not None]
            if len(xs) >= 2:
                samples.append((len(rows), xs, _bounds(m, xs)))
            rows.append(key + (m, s[m], s[f"{m}_count"], s[f"{m}_ci_low"], s[f"{m}_ci_high"], None, None, method))
    # every interval at once (the same numbers as one bootstrap_interval each; samples of one size share resamples)
    found = bootstrap_intervals([xs for _, xs, _ in samples], resamples=resamples, seed=seed, method=method,
                                bounds=[lohi for _, _, lohi in samples]) if samples else []
    for (i, _, _), (low, high) in zip(samples, found):
        rows[i] = rows[i][:-3] + (low, high, method)
    columns = tuple(groups) + ("metric", "mean", "queries", "t_low", "t_high", "bootstrap_low", "bootstrap_high",
                               "bootstrap_method")
    return Table(columns, tuple(rows), result.settings)


def with_bootstrap(result: Result, *, method: str = "percentile", resamples: int = 10000, seed: int = 0) -> Result:
    """The result with two more summary columns per metric, ``<metric>_bootstrap_low`` and
    ``<metric>_bootstrap_high`` (beside ``<metric>_ci_low``/``_ci_high``, the t interval), and the bootstrap's
    method, resamples and seed recorded in the settings. What ``evaluate(..., bootstrap=...)`` can return.

    >>> import sqlndcg
    >>> res = with_bootstrap(sqlndcg.evaluate(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"],
    ...                                       group_by="tag"))
    >>> res.summary.columns[-2:], res.settings["bootstrap"]
    (('ndcg@5_bootstrap_low', 'ndcg@5_bootstrap_high'), {'method': 'percentile', 'resamples': 10000, 'seed': 0})
    """
    long = bootstrap_summary(result, method=method, resamples=resamples, seed=seed)
    groups = list(result.settings.get("group_by", []))
    metrics = list(result.settings["metrics"])
    found = {tuple(r[g] for g in groups) + (r["metric"],): (r["bootstrap_low"], r["bootstrap_high"]) for r in long}
    low, high = templates.bootstrap_suffixes()  # the summary's column names are stated in outputs.sql
    extra = tuple(c for m in metrics for c in (m + low, m + high))
    rows = []
    for s in result.summary.to_dicts():
        key = tuple(s[g] for g in groups)
        rows.append(tuple(s.values()) + tuple(v for m in metrics for v in found[key + (m,)]))
    settings = {**result.settings, "bootstrap": {"method": method, "resamples": resamples, "seed": seed}}
    summary = Table(result.summary.columns + extra, tuple(rows), settings)
    return dataclasses.replace(result, summary=summary, settings=settings)
