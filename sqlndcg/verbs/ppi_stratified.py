"""Prediction-powered metrics from an audit drawn with unequal inclusion probabilities across strata (Neyman
allocation, strata by model disagreement: :func:`sqlndcg.audit_sample`): PPI per stratum (:func:`ppi_evaluate`
with the strata as groups), combined by the strata's shares of the queries in SQL
(``sql/macros/ppi/stratified.sql``; Fisch et al., NeurIPS 2024)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..core import templates
from ..errors import DataError, SettingError
from ..present.audit import StratifiedPPI
from .judgments import Runner
from .ppi import _check_modes, _ppi_in

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.settings import Settings


def ppi_stratified(
    run,
    model_labels,
    audit,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    strata: Sequence[str] | str,
    ppi: str = "ppi++",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    **settings: Unpack[Settings],
) -> StratifiedPPI:
    """:func:`ppi_evaluate` for an audit that is a uniform sample within each stratum but not across them: per
    stratum (the values of the run's ``strata`` columns) the PPI mean m_h and its standard error se_h, each with
    its own lam; then, with w_h the stratum's share of the queries (audited or not), mean = sum w_h m_h and
    se^2 = sum w_h^2 se_h^2, interval mean -+ 1.96 se. Queries are those both the run and the labels have
    (``queries="both"``), so each stratum holds its own. Every stratum needs at least 2 audited queries and one
    not audited.

    >>> import pandas as pd, sqlndcg
    >>> qs = [f"q{i}" for i in range(8)]
    >>> run = pd.DataFrame({"query_id": [q for q in qs for _ in "ab"], "doc_id": list("ab") * 8, "score": [2.0, 1.0] * 8,
    ...                     "market": [m for m in "xxxxyyyy" for _ in "ab"]})
    >>> model = run[["query_id", "doc_id"]].assign(rel=[1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0])
    >>> audit = model[model.query_id.isin(["q0", "q1", "q4", "q5", "q6"])].assign(rel=[1, 0, 0, 1, 1, 1, 0, 1, 1, 0])
    >>> r = sqlndcg.ppi_stratified(run, model, audit, ["p@1"], strata="market", ppi="ppi").summary.to_dicts()[0]
    >>> (r["naive_mean"], round(r["mean"], 4), r["strata"])  # x: 0.5 + (0 - 1)/2 = 0; y: 1 + 0 = 1
    (0.75, 0.5, 2)
    """
    names = [strata] if isinstance(strata, str) else list(strata or [])
    if not names:
        raise SettingError("ppi_stratified needs strata= the run's stratum column(s)")
    if settings.get("group_by"):
        raise SettingError("ppi_stratified takes its groups as strata=, not group_by=")
    if settings.get("queries", "both") != "both":
        raise SettingError("ppi_stratified scores the queries both the run and the labels have (queries='both'), so "
                           "that each stratum holds its own queries")
    given: dict = dict(settings, group_by=names, queries="both")
    _check_modes(ppi, "normal")
    metric_names = [metrics] if isinstance(metrics, str) else list(metrics)
    with Runner.session(con) as runner:
        per = _ppi_in(runner, run, model_labels, audit, metric_names, (ppi, "normal"), None, run_format,
                      judgments_format, given)
        bad = [r for r in per.summary.to_dicts() if r["lam"] is None or r["audited"] < 2]
        if bad:
            shown = ", ".join("/".join(str(r[c]) for c in names) + f" ({r['audited']} audited, {r['unaudited']} not)"
                              for r in bad[:5])
            raise DataError(f"every stratum needs at least 2 audited queries and 1 not audited; {len(bad)} do not: "
                            f"{shown}")
        # the per-stratum summary stays in the engine, a table of the session, for the combining statement
        table = runner.ses.table_name("sqlndcg_ppi_strata")
        with runner.ses.explained("could not compute the result"):
            runner.ses.materialize(table, per.sql)
        sql = templates.ppi_stratified_sql({"summary": table}, dialect=runner.dialect)
        out = dict(per.settings, strata=names)
        out.pop("group_by", None)
        summary = runner.fetch(sql, out)
    return StratifiedPPI(summary, per.summary, per.per_query, out, sql, list(per.warnings))
