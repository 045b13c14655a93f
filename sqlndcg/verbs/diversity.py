"""Intent-aware and novelty-aware measures (alpha-nDCG, ERR-IA, P-IA, subtopic recall, NRBP, MAP-IA) exactly as
ndeval, the TREC Web track's program, computes them: :func:`diversity`. The SQL is
``sql/macros/diversity/diversity.sql`` (also the dbt macro ``sqlndcg.diversity``); the definitions, ndeval's
conventions and when to use each measure are in docs/diversity.md."""

from __future__ import annotations

import os
from typing import Sequence

from ..core import templates
from ..present.diversity import DiversityResult
from ..present.results import FormattedSQL
from .judgments import Input, Runner

#: ndeval's 21 measures, in the order it prints them.
NDEVAL_METRICS = tuple(f"{kind}@{k}" for kind in ("err_ia", "nerr_ia", "alpha_dcg", "alpha_ndcg") for k in (5, 10, 20)) \
    + ("nrbp", "nnrbp", "map_ia") + tuple(f"{kind}@{k}" for kind in ("p_ia", "strec") for k in (5, 10, 20))

#: File suffixes read by their own format; any other judgments file is read as TREC diversity qrels.
_OWN_FORMATS = (".parquet", ".pq", ".csv", ".tsv", ".tab")


def diversity(
    run,
    judgments,
    *,
    metrics: Sequence[str] | str | None = None,
    alpha: float = 0.5,
    beta: float = 0.5,
    threshold: float = 1,
    depth: int | None = None,
    order_by: str | None = None,
    queries: str = "both",
    preset: str | None = None,
    ideal_depth: int | None = None,
    group_by: Sequence[str] | str | None = None,
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    rank: str = "rank",
    intent: str = "intent",
    rel: str = "rel",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
) -> DiversityResult:
    """Per query (both in the run and in the judgments, as ndeval scores them), the diversity ``metrics``
    (default: ndeval's 21: err_ia, nerr_ia, alpha_dcg, alpha_ndcg at 5, 10, 20, nrbp, nnrbp, map_ia, p_ia and
    strec at 5, 10, 20; ndeval's spellings such as ``alpha-nDCG@10`` are read too) of ``run`` (query_id, doc_id,
    score) against ``judgments`` with an ``intent`` column (query_id, intent, doc_id, rel; a TREC diversity
    qrels file ``qid intent doc rel``). A document is relevant to an intent when rel >= ``threshold``.

    ``alpha`` (redundancy, 0.5) and ``beta`` (NRBP's patience, 0.5) are ndeval's; the run is ranked by score
    descending, equal scores by document id descending in byte order (ndeval -traditional), or by its ``rank``
    column (``order_by="rank"``, or ``preset="ndeval"``: ndeval's default); ``depth`` cuts each list (ndeval -M);
    ``queries="run"`` adds the run's queries the judgments lack, all 0, as ndeval prints them, and a column
    ``judged`` (1 when the judgments hold the query). ``group_by`` (columns of the run, e.g. a system column)
    scores each group's lists apart against the same judgments: a row per (group, query), a summary row per group.
    ``.table`` has a row per query, ``.summary`` the means (nnrbp, undefined for a query without relevant
    intents, is NULL there and left out of its mean), ``.sql`` the statement.

    >>> import pandas as pd, sqlndcg
    >>> run = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": 1, "intent": [1, 2, 2], "doc_id": ["a", "a", "c"], "rel": 1})
    >>> row = sqlndcg.diversity(run, qrels, metrics=["alpha_ndcg@5", "strec@5", "p_ia@5"]).table.to_dicts()[0]
    >>> round(row["alpha_ndcg@5"], 6), row["strec@5"], row["p_ia@5"]
    (0.971727, 1.0, 0.3)
    """
    given = {"metrics": None if metrics is None else ([metrics] if isinstance(metrics, str) else list(metrics)),
             "alpha": alpha, "beta": beta, "threshold": threshold, "depth": depth, "order_by": order_by,
             "queries": queries, "preset": preset, "ideal_depth": ideal_depth, "group_by": group_by,
             "query_id": query_id, "doc_id": doc_id, "score": score, "rank": rank, "intent": intent, "rel": rel}
    with Runner.session(con) as runner:
        run_in, judged_in = runner.inputs((run, "run", run_format),
                                          (judgments, "judgments", judgments_format_of(judgments, judgments_format)))
        assert run_in is not None and judged_in is not None
        return scored(runner, run_in, judged_in, given)[0]


def judgments_format_of(judgments, judgments_format: str | None) -> str | None:
    """A judgments file of no format of its own (not Parquet, CSV, TSV) is read as TREC diversity qrels."""
    if judgments_format is None and isinstance(judgments, (str, os.PathLike)) and os.path.isfile(judgments) and \
            not any(str(judgments).lower().endswith(s) for s in _OWN_FORMATS):
        return "trec_diversity"
    return judgments_format


def scored(runner: Runner, run_in: Input, judged_in: Input, given: dict,
           keep: str | None = None) -> tuple[DiversityResult, dict]:
    """The inputs checked and scored in ``runner``'s session, and the plan; ``keep`` (a quoted table name): the
    per-query table is kept there under that name (dropped as the session closes), read back for the result."""
    dialect = runner.dialect
    plan = templates.diversity_plan(run_in.described, judged_in.described, given, dialect=dialect)
    runner.check(run_in, plan["run_checks"], plan["run_identity"], plan["run_identity"],
                 "(query, document) pairs" if not plan["groups"] else "(group, query, document) rows",
                 "; a run lists each document once per query")
    runner.check(judged_in, plan["judgment_checks"], plan["judgment_identity"], plan["judgment_identity"],
                 "(query, intent, document) triples", "; judge each document once per intent")
    intents, relevant, judged = runner.rows(templates.diversity_facts_sql(plan, dialect=dialect))[0]
    if plan["ideal"] and given.get("ideal_depth") is None:
        plan = templates.diversity_plan(run_in.described, judged_in.described, given,
                                        {"intents": int(intents), "relevant": int(relevant)}, dialect=dialect)
    sql = templates.diversity_sql(plan, dialect=dialect)
    if keep is None:
        table = runner.fetch(sql, plan["settings"])
        summary = runner.fetch(templates.diversity_summary_sql(plan, dialect=dialect), plan["settings"])
    else:
        with runner.ses.explained("could not compute the result"):
            runner.ses.materialize(keep, sql)
        table = runner.fetch(templates.diversity_rows_sql(plan, keep, dialect=dialect), plan["settings"])
        summary = runner.fetch(templates.diversity_summary_sql(plan, keep, dialect=dialect), plan["settings"])
    return DiversityResult(table, summary, dict(plan["settings"]), FormattedSQL(sql, dialect), int(judged)), plan


def is_diversity_metric(name) -> bool:
    """Whether ``name`` names a diversity measure (alpha_ndcg@10, nrbp, ...): evaluate hands such lists here."""
    return bool(templates.diversity_is_metric(name))


__all__ = ["diversity", "is_diversity_metric", "NDEVAL_METRICS"]
