"""Annotator agreement (Cohen's and Fleiss' kappa, Krippendorff's alpha) and label aggregation, computed in SQL.

The definitions, including how missing ratings are treated, head ``sql/macros/judgments/agreement.sql`` (also the
dbt macros ``sqlndcg.agreement`` and ``sqlndcg.aggregate_labels``) and ``docs/judgments.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .judgments import Runner, group_list
from ..present.results import Table
from ..core import templates

STATISTICS: tuple[str, ...] = tuple(templates.agreement_statistics())
METHODS: tuple[str, ...] = tuple(templates.aggregate_methods())
TIES: tuple[str, ...] = tuple(templates.aggregate_ties())


@dataclass(frozen=True)
class Agreement:
    """Agreement overall (one row per group), per query, and per pair of annotators (Cohen's kappa)."""

    overall: Table
    per_query: Table
    pairs: Table
    settings: dict

    def least_consistent(self, n: int = 10) -> Table:
        """The n queries of each group with the lowest ``rank_by`` statistic (undefined ones last)."""
        rows = tuple(r for r in self.per_query.rows
                     if r[self.per_query.columns.index("least_consistent_rank")] <= n)
        rank = self.per_query.columns.index("least_consistent_rank")
        groups = len(self.settings.get("group_by", []))
        rows = tuple(sorted(rows, key=lambda r: (tuple(str(v) for v in r[:groups]), r[rank])))
        return Table(self.per_query.columns, rows, self.settings)

    def __str__(self) -> str:
        shown = ("units", "ratings", "annotators", "observed_agreement") + STATISTICS
        groups = tuple(self.settings.get("group_by", []))
        keep = [self.overall.columns.index(c) for c in groups + shown]
        overall = Table(tuple(self.overall.columns[i] for i in keep),
                        tuple(tuple(r[i] for i in keep) for r in self.overall.rows))
        worst = self.least_consistent(5)
        cols = groups + (self.settings["columns"]["query_id"], "units", "observed_agreement", self.settings["rank_by"])
        idx = [worst.columns.index(c) for c in cols]
        worst = Table(cols, tuple(tuple(r[i] for i in idx) for r in worst.rows))
        return f"{overall}\n\nleast consistent queries (by {self.settings['rank_by']}):\n{worst}"


def _settings(group_by, query_id, doc_id, annotator, rel) -> dict:
    return {"group_by": group_list(group_by), "query_id": query_id, "doc_id": doc_id, "annotator": annotator,
            "rel": rel}


def agreement(
    judgments,
    *,
    annotator: str = "annotator",
    rank_by: str = "alpha_ordinal",
    group_by: Sequence[str] | str = (),
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    rel: str = "rel",
    con=None,
    judgments_format: str | None = None,
) -> Agreement:
    """How far annotators agree: Cohen's kappa (unweighted, linear, quadratic; for two annotators, and per pair),
    Fleiss' kappa and Krippendorff's alpha (nominal, ordinal, interval), overall and per query, with the least
    consistent queries ranked by ``rank_by``. One row per (query, document, annotator); a NULL label is a missing
    rating.

    >>> import pandas as pd, sqlndcg
    >>> ratings = pd.DataFrame({"query_id": ["q1"] * 6, "doc_id": ["a", "a", "b", "b", "c", "c"],
    ...                         "annotator": ["ann", "bob"] * 3, "rel": [2, 2, 0, 1, 3, 3]})
    >>> res = sqlndcg.agreement(ratings)
    >>> round(res.overall.to_dicts()[0]["cohen_kappa_quadratic"], 4)
    0.8571
    """
    given = {**_settings(group_by, query_id, doc_id, annotator, rel), "rank_by": rank_by}
    with Runner.session(con) as runner:
        inp, = runner.inputs((judgments, "judgments", judgments_format))
        tables = {}
        for by in ("all", "query", "pair"):
            plan = templates.agreement_plan(inp.described, {**given, "by": by}, dialect=runner.ses.dialect)
            if by == "all":
                runner.check(inp, plan["checks"], plan["identity"], plan["keys"], plan["key_meaning"],
                             "; each annotator rates a (query, document) once")
            tables[by] = runner.fetch(templates.agreement_sql(plan, dialect=runner.ses.dialect), plan["settings"])
    settings = {k: v for k, v in plan["settings"].items() if k != "by"}
    return Agreement(tables["all"], tables["query"], tables["pair"], settings)


def aggregate_labels(
    judgments,
    *,
    method: str = "majority",
    tie: str = "lower",
    annotator: str = "annotator",
    group_by: Sequence[str] | str = (),
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    rel: str = "rel",
    con=None,
    judgments_format: str | None = None,
) -> Table:
    """One label per (group, query, document) from several annotators' ratings: ``majority`` (the most frequent
    label), ``mean`` or ``median``. ``tie`` decides equally frequent labels (majority) and the two middle labels of
    an even count (median): ``lower`` (default), ``higher`` or ``mean``. Missing ratings (NULL) are left out.
    The result has ``rel``, ``ratings`` (how many) and ``spread`` (largest minus smallest rating).

    >>> import pandas as pd, sqlndcg
    >>> ratings = pd.DataFrame({"query_id": ["q1"] * 5, "doc_id": ["a", "a", "a", "b", "b"],
    ...                         "annotator": ["x", "y", "z", "x", "y"], "rel": [2, 2, 3, 0, 1]})
    >>> [(r["doc_id"], r["rel"]) for r in sqlndcg.aggregate_labels(ratings)]
    [('a', 2.0), ('b', 0.0)]
    """
    given = {**_settings(group_by, query_id, doc_id, annotator, rel), "method": method, "tie": tie}
    with Runner.session(con) as runner:
        inp, = runner.inputs((judgments, "judgments", judgments_format))
        plan = templates.aggregate_plan(inp.described, given, dialect=runner.ses.dialect)
        runner.check(inp, plan["checks"], plan["identity"], plan["keys"], plan["key_meaning"],
                     "; each annotator rates a (query, document) once")
        return runner.fetch(templates.aggregate_labels_sql(plan, dialect=runner.ses.dialect), plan["settings"])
