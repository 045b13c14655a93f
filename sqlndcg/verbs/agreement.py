"""Annotator agreement (Cohen's and Fleiss' kappa, Krippendorff's alpha) and label aggregation, computed in SQL.

The definitions, including how missing ratings are treated, head ``sql/macros/judgments/agreement.sql`` (also the
dbt macros ``sqlndcg.agreement`` and ``sqlndcg.aggregate_labels``) and ``docs/judgments.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .judgments import Runner, group_list
from .sources import check_sources, scales_note
from ..present.results import Table
from ..core import templates

STATISTICS: tuple[str, ...] = tuple(templates.agreement_statistics())
METHODS: tuple[str, ...] = tuple(templates.aggregate_methods())
TIES: tuple[str, ...] = tuple(templates.aggregate_ties())


@dataclass(frozen=True)
class Agreement:
    """Agreement overall (one row per group), per query, and per pair of annotators (Cohen's kappa, the mean
    signed difference second minus first); the label sources side by side: ``confusion`` (per pair, grade under
    each), ``per_grade`` (per pair and grade of the first: recall, precision, the second's mean grade and bias) and
    ``coverage`` (per source: units labelled, shared, only its own, grade scale)."""

    overall: Table
    per_query: Table
    pairs: Table
    settings: dict
    confusion: Table = field(default_factory=lambda: Table(()))
    per_grade: Table = field(default_factory=lambda: Table(()))
    coverage: Table = field(default_factory=lambda: Table(()))

    def largest_differences(self, n: int = 10) -> Table:
        """The n queries of each group where the two sources differ most: largest absolute mean signed difference
        first, then the lowest observed agreement (queries with exactly two sources; others are left out)."""
        cols = self.per_query.columns
        diff, agree = cols.index("mean_difference"), cols.index("observed_agreement")
        groups = len(self.settings.get("group_by", []))
        rows = [r for r in self.per_query.rows if r[diff] is not None]
        rows.sort(key=lambda r: (tuple(str(v) for v in r[:groups]), -abs(r[diff]),
                                 r[agree] if r[agree] is not None else 2.0))
        taken: dict[tuple, int] = {}
        kept = []
        for r in rows:
            key = tuple(str(v) for v in r[:groups])
            taken[key] = taken.get(key, 0) + 1
            if taken[key] <= n:
                kept.append(r)
        return Table(cols, tuple(kept), self.settings)

    def least_consistent(self, n: int = 10) -> Table:
        """The n queries of each group with the lowest ``rank_by`` statistic (undefined ones last)."""
        rows = tuple(r for r in self.per_query.rows
                     if r[self.per_query.columns.index("least_consistent_rank")] <= n)
        rank = self.per_query.columns.index("least_consistent_rank")
        groups = len(self.settings.get("group_by", []))
        rows = tuple(sorted(rows, key=lambda r: (tuple(str(v) for v in r[:groups]), r[rank])))
        return Table(self.per_query.columns, rows, self.settings)

    def __str__(self) -> str:
        shown = ("units", "ratings", "annotators", "observed_agreement", "mean_difference") + STATISTICS
        groups = tuple(self.settings.get("group_by", []))
        keep = [self.overall.columns.index(c) for c in groups + shown]
        overall = Table(tuple(self.overall.columns[i] for i in keep),
                        tuple(tuple(r[i] for i in keep) for r in self.overall.rows))
        worst = self.least_consistent(5)
        cols = groups + (self.settings["columns"]["query_id"], "units", "observed_agreement", self.settings["rank_by"])
        idx = [worst.columns.index(c) for c in cols]
        worst = Table(cols, tuple(tuple(r[i] for i in idx) for r in worst.rows))
        text = f"{overall}\n\nleast consistent queries (by {self.settings['rank_by']}):\n{worst}"
        if self.settings.get("between") and len(self.coverage.columns):
            text += f"\n\nlabels of each source (shared: the other labelled it too):\n{self.coverage}"
            if self.settings.get("grade_scales"):
                text += f"\nnote: {self.settings['grade_scales']}"
        return text


def _settings(group_by, query_id, doc_id, annotator, rel) -> dict:
    return {"group_by": group_list(group_by), "query_id": query_id, "doc_id": doc_id, "annotator": annotator,
            "rel": rel}


def agreement(
    judgments,
    *,
    annotator: str = "annotator",
    between: Sequence | None = None,
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
    rating. The ``annotator`` column may name label sources (``annotator="source"``: a person, a model judge);
    ``between=("human", "llm")`` compares those two on the (query, document) pairs both labelled, oriented first
    to second (differences are second minus first), and ``coverage`` says how many pairs only one labelled.

    >>> import pandas as pd, sqlndcg
    >>> ratings = pd.DataFrame({"query_id": ["q1"] * 6, "doc_id": ["a", "a", "b", "b", "c", "c"],
    ...                         "annotator": ["ann", "bob"] * 3, "rel": [2, 2, 0, 1, 3, 3]})
    >>> res = sqlndcg.agreement(ratings)
    >>> round(res.overall.to_dicts()[0]["cohen_kappa_quadratic"], 4)
    0.8571
    """
    if between is not None and not isinstance(between, (str, bytes, dict)):
        between = list(between)
    given = {**_settings(group_by, query_id, doc_id, annotator, rel), "rank_by": rank_by, "between": between}
    with Runner.session(con) as runner:
        inp, = runner.inputs((judgments, "judgments", judgments_format))
        dialect = runner.ses.dialect
        tables = {}
        for by in ("all", "query", "pair", *templates.agreement_source_tables()):
            plan = templates.agreement_plan(inp.described, {**given, "by": by}, dialect=dialect)
            if by == "all":
                runner.check(inp, plan["checks"], plan["identity"], plan["keys"], plan["key_meaning"],
                             "; each annotator rates a (query, document) once")
                if between is not None:
                    every = templates.agreement_plan(inp.described, {**given, "between": None, "by": "coverage"},
                                                     dialect=dialect)
                    check_sources(runner.fetch(templates.agreement_sql(every, dialect=dialect)), between,
                                  annotator, inp.described["label"])
            tables[by] = runner.fetch(templates.agreement_sql(plan, dialect=dialect), plan["settings"])
    settings = {k: v for k, v in plan["settings"].items() if k != "by"}
    if between is not None:
        check_sources(tables["coverage"], between, annotator, inp.described["label"], shared=True)
    settings["grade_scales"] = scales_note(tables["coverage"])
    return Agreement(tables["all"], tables["query"], tables["pair"], settings, tables["confusion"],
                     tables["grade"], tables["coverage"])


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
