"""Which queries to audit next: a stratified sample of a budget of queries for human judges, by query segment or
by how much the systems disagree under the model labels, the same on every engine for the same seed. The SQL is
``sql/macros/ppi/audit.sql``; docs/judgments.md, "Which queries to audit next"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..core import templates
from ..errors import DataError, InputError, SettingError
from ..present.audit import AuditSample
from .evaluate import evaluate
from .judgments import Runner

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.settings import Settings

BY = (None, "segment", "disagreement")
ALLOCATIONS = ("proportional", "neyman")


def audit_sample(
    queries_or_run,
    budget: int,
    *,
    strata: Sequence[str] | str | None = None,
    by: str | None = None,
    bins: int = 4,
    allocation: str = "proportional",
    seed: int = 0,
    audited=None,
    model_labels=None,
    metric: str = "ndcg@10",
    system: str = "system",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    audited_format: str | None = None,
    **settings: Unpack[Settings],
) -> AuditSample:
    """``budget`` queries to send to human judges, stratified, drawn in the order of MD5('<seed>:<query id>')
    within each stratum (the same queries on every engine for the same seed).

    ``queries_or_run``: a table with a ``query_id`` column and the ``strata`` columns (one row or more per query;
    a run works), or, with ``model_labels`` (judgments from a model), a run (every system's lists, a ``system``
    column) that evaluate scores on ``metric`` with the model labels. ``by="segment"`` (the default when
    ``strata`` names columns): a stratum per combination of their values. ``by="disagreement"``: per query the
    spread (max - min over the systems) of the model-labelled metric, cut at its quantiles into ``bins`` strata
    (1: the systems agree most). Allocation: ``"proportional"`` to the not yet audited queries of each stratum, or
    ``"neyman"`` (proportional to size x sd of the model metric), rounded by largest remainder with at least one
    per stratum while the budget lasts, summing to ``budget`` exactly. ``audited``: queries already audited (a
    table with a ``query_id`` column, e.g. their judgments): never drawn again. ``settings`` are evaluate's
    (``query_id`` names the query id column of every input; ``gain``, ...).

    PPI (:func:`sqlndcg.ppi_evaluate`) takes the audited queries as a uniform random sample of the evaluated ones.
    Proportional allocation keeps the inclusion probabilities equal up to rounding; when they differ by more (Neyman,
    or strata forced to one query), the result warns: ppi_evaluate's mean would then lean towards the oversampled
    strata; :func:`sqlndcg.ppi_stratified` (PPI per stratum, combined by the strata's shares) is the estimate
    for such an audit.

    >>> import pandas as pd, sqlndcg
    >>> q = pd.DataFrame({"query_id": [f"q{i}" for i in range(10)], "market": ["de"] * 6 + ["fr"] * 4})
    >>> s = sqlndcg.audit_sample(q, 5, strata="market", seed=1)
    >>> [(r["stratum"], r["sampled"]) for r in s.strata.to_dicts()]
    [('de', 3), ('fr', 2)]
    """
    names = [strata] if isinstance(strata, str) else list(strata or [])
    query_id = str(settings.get("query_id") or "query_id")
    if settings.get("group_by"):
        raise SettingError("audit_sample takes its groups as strata=, not group_by=")
    _check_settings(budget, by, names, bins, allocation, model_labels, seed)
    if by is None and names:
        by = "segment"
    with Runner.session(con) as runner:
        inp, done = runner.inputs((queries_or_run, "queries" if model_labels is None else "run", run_format),
                                  (audited, "audited", audited_format))
        assert inp is not None
        columns = [c["name"] for c in inp.described["columns"]]
        for c in [query_id] + names + ([system] if by == "disagreement" else []):
            if c not in columns:
                raise InputError(f"{inp.label}: no column {c!r} (its columns: {', '.join(columns)})"
                                 + ("; by='disagreement' compares systems: name their column with system="
                                    if c == system else ""))
        if done is not None and query_id not in [c["name"] for c in done.described["columns"]]:
            raise InputError(f"{done.label}: no column {query_id!r} (its columns: "
                             f"{', '.join(c['name'] for c in done.described['columns'])}); the audited queries are "
                             "named by the query id column")
        source, query, value = inp.described["sql"], query_id, None
        if model_labels is not None:
            groups = [system] if system in columns else []
            given: dict = dict(settings, group_by=groups)
            model = evaluate(queries_or_run, model_labels, [metric], con=con, run_format=run_format,
                             judgments_format=judgments_format, **given)
            (pq,) = runner.inputs((model.per_query.to_arrow(), "model_per_query", None))
            assert pq is not None
            source, query = pq.described["sql"], model.per_query.columns[len(groups)]
            value = list(model.settings["metrics"])[0]
        p = {"source": source, "query": query, "strata": names, "value": value,
             "segments": inp.described["sql"] if model_labels is not None and names else None,
             "segments_query": query_id,
             "bins": bins if by == "disagreement" else None, "audited": None if done is None else done.described["sql"],
             "audited_query": query_id, "allocation": allocation, "budget": int(budget), "seed": int(seed)}
        repeated = runner.rows(templates.audit_repeated_sql(p, dialect=runner.dialect))
        if repeated:
            shown = ", ".join(str(r[0]) for r in repeated[:5])
            raise DataError(f"{inp.label}: {len(repeated)} queries have more than one value of the strata columns "
                            f"{', '.join(names)} (a query belongs to one stratum): {shown}")
        out = dict(budget=int(budget), by=by, strata=names, allocation=allocation, seed=int(seed),
                   **({"metric": value, "bins": bins} if value else {}),
                   **({"audited": done.label} if done is not None else {}))
        table = runner.fetch(templates.audit_strata_sql(p, dialect=runner.dialect), out)
        available = sum(int(r["available"]) for r in table.to_dicts())
        if budget > available:
            raise DataError(f"budget={budget} is more than the {available} queries not yet audited in {inp.label}: "
                            "lower the budget (every query would be audited)")
        sql = templates.audit_sample_sql(p, dialect=runner.dialect)
        sample = runner.fetch(sql, out)
    return AuditSample(sample, table, out, sql, _warnings(table, int(budget)))


def _check_settings(budget, by, names, bins, allocation, model_labels, seed) -> None:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise SettingError(f"budget= must be a whole number of queries >= 1, got {budget!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SettingError(f"seed= must be a whole number, got {seed!r}")
    if by not in BY:
        raise SettingError(f"by={by!r} is not known; choose 'segment' (the strata columns), 'disagreement' or None")
    if by == "segment" and not names:
        raise SettingError("by='segment' needs strata= the segment column(s) of the queries")
    if allocation not in ALLOCATIONS:
        raise SettingError(f"allocation={allocation!r} is not known; choose 'proportional' or 'neyman'")
    if by == "disagreement" and model_labels is None:
        raise SettingError("by='disagreement' needs model_labels= (the model's judgments) and a run of several "
                           "systems: the strata are how far the systems' model-labelled metric differs per query")
    if allocation == "neyman" and model_labels is None:
        raise SettingError("allocation='neyman' needs model_labels=: it weighs each stratum by the sd of the "
                           "model-labelled metric")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
        raise SettingError(f"bins= must be a whole number >= 2, got {bins!r}")


def _warnings(table, budget: int) -> list[str]:
    rows = [r for r in table.to_dicts() if r["available"]]
    total = sum(r["available"] for r in rows)
    off = [r for r in rows if abs(r["sampled"] - budget * r["available"] / total) >= 1]
    if not off:
        return []
    shown = ", ".join(f"{r['stratum']} {r['inclusion_probability']:.3g}" for r in off[:5])
    return [f"the inclusion probabilities differ beyond rounding (uniform: {budget / total:.3g}; {shown}): "
            "ppi_evaluate takes the audit as a uniform sample, so its mean would lean towards the oversampled "
            "strata: estimate with ppi_stratified(..., strata=the same strata), or draw the audit with "
            "allocation='proportional'"]
