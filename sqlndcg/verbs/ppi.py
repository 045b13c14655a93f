"""Prediction-powered metrics: a metric computed with model labels on every query, corrected by a human audit of
some queries (PPI: Angelopoulos et al., Science 2023; PPI++: Angelopoulos, Duchi & Zrnic, 2023). The per-query
values are :func:`sqlndcg.evaluate`'s (SQL); the correction is one SQL statement, ``sql/macros/ppi/ppi.sql``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..core import templates
from ..errors import DataError, SettingError
from ..present.ppi import PPIResult
from ..core.settings import settings_of
from ..core.spec import make_spec
from ..present.results import Result, Table
from . import scoring
from .compare import _systems_input
from .judgments import Runner

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.settings import Settings

#: Below this power-tuning factor the model labels barely move the estimate: the result says so.
LOW_LAMBDA = 0.1


def ppi_evaluate(
    run,
    model_labels,
    audit,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    ppi: str = "ppi++",
    interval: str = "normal",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    **settings: Unpack[Settings],
) -> PPIResult:
    """The metrics' means over every query with model labels (``model_labels``, judgments as evaluate reads them)
    corrected by human labels on the audited queries (``audit``: judgments of those queries only), with 95%
    intervals that account for both (docs/judgments.md, "Model judges: prediction-powered metrics").

    Per (group, metric), n audited queries (Y human value, Yh model value) and N others (Yu model value), as
    ppi_py's ``ppi_mean_ci``: lam = 1 (``ppi="ppi"``) or clip(cov(Y, Yh) / ((1 + n/N) var(Yh u Yu)), 0, 1)
    (``"ppi++"``); mean = lam mean(Yu) + mean(Y - lam Yh); se^2 = lam^2 var(Yu)/N + var(Y - lam Yh)/n;
    interval mean -+ 1.96 se (``interval="normal"``, ppi_py's) or, for small audits, mean -+ t se with t Student's
    97.5% quantile at n - 1 degrees of freedom (``interval="t"``: a conservative convention of sqlndcg's, not
    ppi_py's). ``effective_human_labels`` = var(Y) / se^2, the audited queries a human-only mean
    would need for the same width. ``settings`` are evaluate's (``group_by``, ``gain``, ...).

    >>> import pandas as pd, sqlndcg
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q3", "q3"], "doc_id": ["a", "b"] * 3,
    ...                     "score": [2.0, 1.0] * 3})
    >>> model = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q3", "q3"], "doc_id": ["a", "b"] * 3,
    ...                       "rel": [1, 0, 1, 1, 1, 0]})
    >>> audit = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b"] * 2, "rel": [1, 0, 0, 1]})
    >>> res = sqlndcg.ppi_evaluate(run, model, audit, ["p@1"], ppi="ppi")
    >>> row = res.summary.to_dicts()[0]
    >>> (row["naive_mean"], row["mean"], row["audited"])
    (1.0, 0.5, 2)
    """
    return _ppi(run, model_labels, audit, metrics, (ppi, interval), None, con, run_format, judgments_format,
                dict(settings))


def ppi_compare(
    runs,
    model_labels,
    audit,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    baseline,
    system: str = "system",
    ppi: str = "ppi++",
    interval: str = "normal",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    **settings: Unpack[Settings],
) -> PPIResult:
    """:func:`ppi_evaluate` of paired differences, as :func:`sqlndcg.compare` pairs them: ``runs`` holds every
    system's lists (a ``system`` column; or a dict ``{name: run}``, as compare takes it), and per (group, system other than ``baseline``, metric) the summary has
    the prediction-powered mean of the per-query difference system - baseline (model values on every query both
    systems have, human values on the audited ones) and its interval, the naive ones beside them, and a
    ``baseline`` column. ``per_query`` has each system's own values. ``interval`` as :func:`ppi_evaluate`'s.

    >>> import pandas as pd, sqlndcg
    >>> runs = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query_id": ["q1", "q1", "q2", "q2"] * 2,
    ...                      "doc_id": ["x", "y"] * 4, "score": [2.0, 1.0] * 2 + [1.0, 2.0] * 2})
    >>> model = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["x", "y"] * 2, "rel": [1, 0, 1, 0]})
    >>> audit = model[model.query_id == "q1"]
    >>> r = sqlndcg.ppi_compare(runs, model, audit, ["p@1"], baseline="a", ppi="ppi").summary.to_dicts()[0]
    >>> (r["system"], r["baseline"], r["naive_mean"], r["mean"])
    ('b', 'a', -1.0, -1.0)
    """
    given: dict = dict(settings)
    groups = given.pop("group_by", None) or []
    given["group_by"] = ([groups] if isinstance(groups, str) else list(groups)) + [system]
    return _ppi(runs, model_labels, audit, metrics, (ppi, interval), str(baseline), con, run_format,
                judgments_format, given)


def _ppi(run, model_labels, audit, metrics, modes: tuple[str, str], baseline: str | None, con, run_format,
         judgments_format, settings: dict) -> PPIResult:
    """ppi_evaluate (baseline None) or ppi_compare: the checks, evaluate twice, the PPI statement."""
    _check_modes(*modes)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    with Runner.session(con) as runner:
        return _ppi_in(runner, run, model_labels, audit, names, modes, baseline, run_format, judgments_format,
                       settings)


def check_hand_over(verb: str, audit, chosen: str, given: dict, free: dict, takes: str) -> None:
    """evaluate's and compare's refusals before they hand a call over: ``chosen`` (ppi= or interval=, as given)
    needs ``audit=``; a keyword of ``free`` (the verb's keywords PPI does not take, with their defaults) set to
    something else than its default is refused. ``takes`` says what the prediction-powered side does take."""
    if audit is None:
        raise SettingError(f"{verb}: {chosen} corrects model labels by a human audit: pass the human labels of the "
                           "audited queries as audit=")
    changed = sorted(k for k, default in free.items()
                     if ((given[k] is not None) if default is None else given[k] != default))
    if changed:
        raise SettingError(f"{verb}: {changed[0]}= is not available with audit= (prediction-powered {takes})")


def _check_modes(ppi: str, interval: str) -> None:
    """Refuse an unknown ppi= or interval=."""
    if ppi not in ("ppi", "ppi++"):
        raise SettingError(f"ppi must be 'ppi' (lam = 1) or 'ppi++' (the power-tuned lam), got {ppi!r}")
    if interval not in ("normal", "t"):
        raise SettingError(f"interval must be 'normal' (z = 1.96, as ppi_py) or 't' (Student's t with the audited "
                           f"queries less one as degrees of freedom, for small audits), got {interval!r}")


def _ppi_in(runner: Runner, run, model_labels, audit, names: list, modes: tuple[str, str], baseline: str | None,
            run_format, judgments_format, settings: dict) -> PPIResult:
    """_ppi in the runner's session, whose tables (the per-query ones) a caller may read on (ppi_stratified)."""
    ppi, interval = modes
    spec = make_spec(names, **settings_of("evaluate", settings))
    model_in, audit_in = runner.inputs((model_labels, "model_labels", judgments_format),
                                       (audit, "audit", judgments_format))
    assert model_in is not None and audit_in is not None
    rel = settings.get("rel", "rel")
    scales = [runner.rows(templates.ppi_grades_sql(i.described["sql"], rel, dialect=runner.dialect))[0]
              for i in (model_in, audit_in)]
    if scales[1][0] is None:
        raise DataError(f"{audit_in.label}: the audit is empty; it holds the human labels of the audited "
                        "queries, at least one")
    if tuple(scales[0]) != tuple(scales[1]):
        raise DataError(f"the model labels grade from {scales[0][0]} to {scales[0][1]} and the audit from "
                        f"{scales[1][0]} to {scales[1][1]}: the two sources must use the same grade scale "
                        "(map one onto the other first)")
    if baseline is not None:  # a dict of runs: one table with the system column, as compare makes it
        run, _ = _systems_input(runner.ses, run, settings["group_by"][-1], run_format)
    # evaluate's statement, twice; the per-query tables stay in the engine for the PPI statement.
    (model, model_pq), (human, human_pq) = [_scored(runner, spec, run, labels, run_format, judgments_format, tag)
                                            for labels, tag in ((model_labels, "model"), (audit, "audit"))]
    groups = list(model.settings.get("group_by") or [])
    query = model.per_query.columns[len(groups)]
    if baseline is not None:
        systems = sorted({str(v) for v in model.per_query.column(groups[-1])})
        if baseline not in systems or len(systems) < 2:
            raise SettingError(f"baseline {baseline!r} must be one of the systems in the {groups[-1]!r} column, "
                               f"with at least one other; they are {systems}")
    p = {"model": model_pq, "human": human_pq,
         "groups": groups, "query": query, "metrics": list(model.settings["metrics"]), "ppi": ppi,
         "baseline": baseline, "interval": interval}
    missing = runner.rows(templates.ppi_missing_sql(p, dialect=runner.dialect))
    if missing:
        shown = ", ".join("/".join(str(v) for v in r) for r in missing[:5])
        raise DataError(f"{audit_in.label}: {len(missing)} audited queries have no model-labelled value "
                        f"(the model labels lack them): {shown}")
    sql = templates.ppi_summary_sql(p, dialect=runner.dialect)
    out_settings = dict(model.settings, ppi=ppi, interval=interval, audit=audit_in.label,
                        **({"baseline": baseline} if baseline is not None else {}))
    summary = runner.fetch(sql, out_settings)
    pairs = runner.fetch(templates.ppi_pairs_sql(p, dialect=runner.dialect), out_settings)
    return PPIResult(pairs, summary, out_settings, sql, _warnings(summary, groups))


def _scored(runner: Runner, spec, run, labels, run_format, judgments_format, tag: str) -> tuple[Result, str]:
    """evaluate(run, labels) in the runner's session (scoring's prepare and execute, as evaluate runs them), its
    per-query table kept under a name of the session (dropped as it closes): the result and that (quoted) name."""
    prepared = scoring.prepare(runner.ses, spec, run, labels, run_format=run_format, judgments_format=judgments_format)
    name = runner.ses.table_name(f"sqlndcg_{tag}_per_query")
    return scoring.execute(runner.ses, prepared, per_query_table=name), name


def _warnings(summary: Table, groups: list[str]) -> list[str]:
    out = []
    for r in summary.to_dicts():
        who = ", ".join(f"{g}={r[g]}" for g in groups)
        where = f"{r['metric']}" + (f" ({who})" if who else "")
        if r["lam"] is None:
            out.append(f"{where}: every query is audited; the human labels alone give the mean")
        elif r["lam"] < LOW_LAMBDA:
            out.append(f"{where}: the model labels add little (lam = {r['lam']:.3f}): their per-query values barely "
                       "track the human ones, so the interval is about the audit's alone")
    return out
