"""Beyond-accuracy measures of recommendation lists, per system or any group: catalog coverage, the Gini index of
item exposure, novelty, intra-list diversity and the long tail's share (:func:`beyond_accuracy`). The SQL is
``sql/macros/beyond/catalog.sql`` (also the dbt macro ``sqlndcg.beyond_accuracy``); definitions, references and
when to use each measure are in docs/beyond.md."""

from __future__ import annotations

from typing import Sequence

from ..core import templates
from ..errors import DataError
from ..present.beyond import BeyondResult
from ..present.results import FormattedSQL
from .judgments import Runner, group_list


def beyond_accuracy(
    run,
    items,
    *,
    metrics: Sequence[str] | str = ("coverage@10", "gini@10"),
    group_by: Sequence[str] | str | None = None,
    head_share: float = 0.2,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    category: str = "category",
    popularity: str = "popularity",
    con=None,
    run_format: str | None = None,
    items_format: str | None = None,
) -> BeyondResult:
    """Per group of ``run`` (``group_by``, e.g. "system"), beyond-accuracy ``metrics`` of its lists (``query_id``:
    a list, e.g. a user's; ``doc_id``: an item; ``score``), from ``items``, the catalog (``doc_id``, a
    ``category`` for ild, a ``popularity`` for novelty and long_tail: interactions or any positive count, made
    shares of their sum). Each list is ranked as :func:`sqlndcg.evaluate` ranks it (score descending, equal scores
    by item id descending) and cut at k; a shorter list keeps what it has.

    ``coverage@k``: distinct items in any top k / items in the table. ``gini@k``: Gini index of the exposure of
    every catalog item (the lists with it in their top k; 0 for items never shown). ``novelty@k``: mean of -log2 of
    the items' popularity shares, per list. ``ild@k``: the share of a list's pairs of items of different categories
    (NULL under 2 items). ``long_tail@k``: the share of a list outside the short head, the round(``head_share`` x
    n) most popular items. ``.per_query`` has a row per list, ``.summary`` per group the lists, the per-list
    measures' means with their 95% t interval, coverage and gini. Items of the run missing from ``items`` are an
    error.

    >>> import pandas as pd, sqlndcg
    >>> run = pd.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> items = pd.DataFrame({"doc_id": ["a", "b", "c", "d"], "category": ["x", "x", "y", "y"],
    ...                       "popularity": [4, 2, 1, 1]})
    >>> row = sqlndcg.beyond_accuracy(run, items, metrics=["coverage@2", "gini@2", "ild@2"]).summary.to_dicts()[0]
    >>> row["coverage@2"], row["gini@2"], row["ild@2"]
    (0.75, 0.375, 0.5)
    """
    given = {"metrics": [metrics] if isinstance(metrics, str) else list(metrics), "group_by": group_list(group_by),
             "head_share": head_share, "query_id": query_id, "doc_id": doc_id, "score": score, "category": category,
             "popularity": popularity}
    with Runner.session(con) as runner:
        dialect = runner.dialect
        run_in, items_in = runner.inputs((run, "run", run_format), (items, "items", items_format))
        assert run_in is not None and items_in is not None
        plan = templates.beyond_plan(run_in.described, items_in.described, given, dialect=dialect)
        runner.check(run_in, plan["run_checks"], plan["run_identity"], plan["run_identity"],
                     "(list, item) pairs", "; a list holds each item once")
        runner.check(items_in, plan["item_checks"], plan["item_identity"], plan["item_identity"],
                     "item ids", "; the items table lists each item once")
        missing = runner.rows(templates.beyond_missing_sql(plan, dialect=dialect))
        if missing:
            shown = ", ".join(repr(r[0]) for r in missing)
            raise DataError(f"{items_in.label}: {missing[0][1]} item(s) of the run are not in the items table "
                            f"(column {doc_id!r}), e.g. {shown}; the catalog measures need every recommended item "
                            "in the catalog: add them to the items table")
        per_list = runner.fetch(templates.beyond_sql(plan, dialect=dialect), plan["settings"])
        sql = templates.beyond_summary_sql(plan, dialect=dialect)
        summary = runner.fetch(sql, plan["settings"])
    return BeyondResult(per_list, summary, dict(plan["settings"]), FormattedSQL(sql, dialect))


def is_beyond_metric(name) -> bool:
    """Whether ``name`` names a beyond-accuracy measure (coverage@10, novelty@5, ...): evaluate hands such lists
    here."""
    return bool(templates.beyond_is_metric(name))


__all__ = ["beyond_accuracy", "is_beyond_metric"]
