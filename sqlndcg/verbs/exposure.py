"""Exposure fairness of rankings over the groups (providers, or any attribute) of their documents:
:func:`exposure`. Each group's exposure under a browsing model (RBP, the DCG discount, TREC Fair's), the disparity
of mean exposure between groups (Singh & Joachims, KDD 2018), attention-weighted rank fairness against a target
distribution (TREC Fair Ranking 2021-2022) and, with judgments, expected exposure (EE-L, EE-D, EE-R; Diaz et al.,
CIKM 2020) of deterministic or sampled (stochastic) rankings. The SQL is ``sql/macros/fairness/`` (also the dbt
macro ``sqlndcg.exposure``); the definitions and when to use each measure are in docs/fairness.md."""

from __future__ import annotations

from typing import Sequence

from ..core import templates
from ..errors import DataError
from ..present.exposure import Exposure
from ..present.results import FormattedSQL
from .judgments import Runner, group_list

#: How far the target's shares may sum from 1.
TARGET_TOLERANCE = 1e-6


def exposure(
    run,
    items,
    *,
    group_column: str = "provider",
    browsing: str = "rbp",
    p: float = 0.5,
    k: int | None = None,
    judgments=None,
    target=None,
    group_by: Sequence[str] | str = (),
    sample: str | None = None,
    missing: str = "error",
    ties: str = "doc_id",
    id_order: str = "native",
    lower_is_better: bool = False,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    rel: str = "rel",
    share: str = "share",
    con=None,
    run_format: str | None = None,
    items_format: str | None = None,
    judgments_format: str | None = None,
    target_format: str | None = None,
) -> Exposure:
    """Exposure fairness per query (and per ``group_by``, e.g. a system column) of ``run`` (query_id, doc_id,
    score; ranked by score descending, equal scores by doc id descending) over the groups ``items`` gives its
    documents (doc_id, ``group_column``).

    ``browsing`` weighs rank r: ``"rbp"`` p^(r-1) (patience ``p``), ``"dcg"`` 1/log2(r+1), ``"trec_fair"``
    1/log2(max(r, 2)); 0 below the cutoff ``k``. Equal scores are ordered by doc id descending (``id_order`` as
    evaluate's), or with ``ties="average"`` share the mean weight of their positions; ``lower_is_better`` ranks
    the lowest score first. With ``sample`` (a column of the run), each sample is one
    ranking of a stochastic ranker and a document's exposure is its mean over the query's samples.
    ``.per_query``: samples, documents, groups, exposure (the total), disparity_difference and disparity_ratio
    (max - min and min / max over the groups of the mean exposure per document), awrf (1 - the Jensen-Shannon
    divergence, base 2, of the groups' exposure shares from ``target``: a table (``group_column``, ``share``),
    ``"items"``, the groups' shares among the items (default), or ``"uniform"``); with ``judgments`` (query_id,
    doc_id, rel), relevant (documents with rel > 0), ee_l, ee_d, ee_r (Diaz et al.'s expected exposure loss,
    disparity and relevance; NULL for a query without relevant documents). ``.groups`` has each group's documents,
    exposure, share, mean_exposure and target_share; ``.summary`` the mean, std and 95% t interval of each measure.
    A run document the items lack is an error (``missing="error"``), or counts in a group ``'(unknown)'``
    (``missing="unknown"``).

    >>> import pandas as pd, sqlndcg
    >>> run = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> items = pd.DataFrame({"doc_id": ["a", "b", "c", "d"], "provider": ["x", "y", "x", "y"]})
    >>> row = sqlndcg.exposure(run, items).per_query.to_dicts()[0]
    >>> row["exposure"], row["disparity_difference"], round(row["awrf"], 6)
    (1.875, 0.3125, 0.979279)
    """
    if isinstance(target, str) and target in ("items", "uniform"):
        kind, target = target, None
    else:
        kind = "items" if target is None else "table"
    given = {"group_column": group_column, "browsing": browsing, "p": p, "k": k, "group_by": group_list(group_by),
             "sample": sample, "missing": missing, "target": kind, "ties": ties, "id_order": id_order,
             "lower_is_better": lower_is_better, "query_id": query_id, "doc_id": doc_id,
             "score": score, "rel": rel, "share": share}
    with Runner.session(con) as runner:
        dialect = runner.dialect
        run_in, items_in, judged_in, target_in = runner.inputs(
            (run, "run", run_format), (items, "items", items_format), (judgments, "judgments", judgments_format),
            (target, "target", target_format))
        assert run_in is not None and items_in is not None
        plan = templates.exposure_plan(run_in.described, items_in.described,
                                       None if judged_in is None else judged_in.described,
                                       None if target_in is None else target_in.described, given, dialect=dialect)
        keys = list(plan["run_identity"])
        runner.check(run_in, plan["run_checks"], keys, keys, "rankings' documents",
                     "; a ranking (query" + (", sample" if sample else "") + ") lists each document once")
        runner.check(items_in, plan["item_checks"], plan["item_identity"], plan["item_identity"], "documents",
                     "; the items give each document one group")
        if judged_in is not None:
            runner.check(judged_in, plan["judgment_checks"], plan["judgment_identity"], plan["judgment_identity"],
                         "(query, document) pairs", "; judge each document once per query")
        if target_in is not None:
            runner.check(target_in, plan["target_checks"], plan["target_identity"], plan["target_identity"],
                         "groups", "; give each group one share")
        missing_docs, example, total, lowest = runner.rows(templates.exposure_facts_sql(plan, dialect=dialect))[0]
        if missing_docs and missing == "error":
            raise DataError(f"{items_in.label}: {missing_docs} document(s) of the run have no row (e.g. {example!r}); "
                            f"add them to the items, or pass missing='unknown' to count them in a group '(unknown)'")
        if target_in is not None:
            if lowest is not None and lowest < 0:
                raise DataError(f"{target_in.label}: shares must be 0 or more, got {lowest!r}")
            if total is None or abs(total - 1) > TARGET_TOLERANCE:
                raise DataError(f"{target_in.label}: the shares must sum to 1, they sum to {total!r}")
        settings = dict(plan["settings"])
        sql = templates.exposure_sql(plan, dialect=dialect)
        per_query = runner.fetch(sql, settings)
        groups = runner.fetch(templates.exposure_groups_sql(plan, dialect=dialect), settings)
        summary = runner.fetch(templates.exposure_summary_sql(plan, dialect=dialect), settings)
        account = runner.fetch(templates.exposure_account_sql(plan, dialect=dialect))
    return Exposure(per_query, groups, summary, settings, FormattedSQL(sql, dialect), account)


__all__ = ["exposure"]
