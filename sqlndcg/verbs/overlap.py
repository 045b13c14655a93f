"""How different two systems' rankings are, before anyone labels anything: rank-biased overlap (``rbo@k``, and its
extrapolation ``rbo_ext@k``; Webber, Moffat & Zobel, TOIS 2010) and Jaccard (``jaccard@k``) of each system's lists
against the baseline's, per query and summarised. The SQL is ``sql/macros/beyond/overlap.sql`` (also the dbt
macros ``sqlndcg.overlap``, ``overlap_summary``, ``overlap_account``); docs/beyond.md says what each measure rewards."""

from __future__ import annotations

from typing import Sequence

from ..core import templates
from ..errors import SettingError
from ..present.overlap import Overlap
from ..present.results import FormattedSQL, Table
from .judgments import Runner


def overlap(
    run,
    *,
    baseline,
    system: str = "system",
    metrics: Sequence[str] | str = ("rbo@10", "jaccard@10"),
    p: float = 0.9,
    group_by: Sequence[str] | str = (),
    ties: str = "doc_id",
    short_lists: str = "pad",
    lower_is_better: bool = False,
    id_order: str = "native",
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    score: str = "score",
    rank: str | None = None,
    con=None,
    run_format: str | None = None,
) -> Overlap:
    """Each system's rankings against the ``baseline``'s, no labels needed: ``run`` holds every system's lists
    (``system`` column, ``query_id``, ``doc_id``, ``score``, or ``rank`` when named), each list ranked as
    :func:`sqlndcg.evaluate` ranks it (score descending, equal scores by doc id descending).

    Per (group, system, query), with A_d and B_d the lists' first d documents and X_d = |A_d n B_d|:
    ``rbo@k`` = (1 - p) sum_{d<=k} p^(d-1) X_d / d, ``rbo_ext@k`` the paper's extrapolation (1 for equal lists),
    ``jaccard@k`` = |A_k n B_k| / |A_k u B_k|; without @k the whole lists. ``p`` (0 < p < 1) is the persistence:
    the expected depth read is 1 / (1 - p). A list shorter than k counts the documents it has
    (``short_lists="pad"``), or every measure is taken at n = min(k, |A|, |B|) (``"truncate"``); a query one side
    lacks scores 0 and the account counts it. ``.summary`` has per group and system each measure's mean, count, std
    and 95% t interval, as evaluate's summary.

    >>> import pandas as pd, sqlndcg
    >>> run = pd.DataFrame({"system": ["bm25"] * 3 + ["dense"] * 3, "query_id": "q",
    ...                     "doc_id": ["a", "b", "c", "b", "a", "d"], "score": [3.0, 2.0, 1.0] * 2})
    >>> res = sqlndcg.overlap(run, baseline="bm25", metrics=["rbo@3", "jaccard@3"], p=0.5)
    >>> [(r["system"], round(r["rbo@3"], 4), r["jaccard@3"]) for r in res.per_query]
    [('dense', 0.3333, 0.5)]
    """
    given = {"metrics": [metrics] if isinstance(metrics, str) else list(metrics), "p": p, "system": system,
             "baseline": baseline, "group_by": [group_by] if isinstance(group_by, str) else list(group_by or ()),
             "ties": ties, "short_lists": short_lists, "lower_is_better": lower_is_better, "id_order": id_order,
             "query_id": query_id, "doc_id": doc_id, "score": score, "rank": rank}
    with Runner.session(con) as runner:
        dialect, ses = runner.dialect, runner.ses
        (inp,) = runner.inputs((run, "run", run_format))
        assert inp is not None
        plan = templates.overlap_plan(inp.described, given, dialect=dialect)
        runner.check(inp, plan["checks"], plan["identity"], plan["identity"], "documents of a list",
                     "; a system's list holds each document once per query")
        if plan["rank_keys"]:
            runner.check(inp, [], plan["identity"], plan["rank_keys"], "ranks",
                         "; ties='rank' needs distinct ranks within each list (ties='doc_id' orders equal ranks by "
                         "doc id)")
        problem = templates.overlap_systems_problem(plan, runner.rows(templates.overlap_systems_sql(plan, dialect=dialect)),
                                                    dialect=dialect)
        if problem:
            raise SettingError(problem)
        sql = templates.overlap_sql(plan, dialect=dialect)
        settings = dict(plan["settings"])
        name = ses.table_name("sqlndcg_overlap")
        with ses.explained("could not compute the overlap"):
            ses.materialize(name, sql)
            order = [g["output"] for g in plan["summary"]["groups"][:-1]] + [plan["summary"]["query_output"]]
            per_query = Table.from_arrow(ses.fetch_arrow(templates.select_all(name, order, dialect=dialect)), settings)
            summary = Table.from_arrow(ses.fetch_arrow(templates.summary_sql(name, plan["summary"], None, True,
                                                                             dialect=dialect), True), settings)
            account = Table.from_arrow(ses.fetch_arrow(templates.overlap_account_sql(plan, dialect=dialect), True),
                                       settings)
    return Overlap(per_query, summary, settings, FormattedSQL(sql, dialect), account)
