"""Before a team switches from human labels to a model's: one check that composes the model-judge verbs.
:func:`judge_check` runs :func:`sqlndcg.agreement` (the two sources on the pairs both labelled),
:func:`sqlndcg.system_order` (do they rank the systems the same way), :func:`sqlndcg.ppi_evaluate` or
:func:`sqlndcg.ppi_compare` (the model's labels on every query corrected by the people's) and, given a width,
:func:`sqlndcg.audit_size`; the findings (:mod:`sqlndcg.verbs.judge_findings`) read their numbers. No statistic of
its own and no SQL of its own: each part is the verb's result, unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from ..core import templates
from ..errors import DataError, InputError, SettingError
from ..present.judge_check import JudgeCheck
from ..present.ppi import PPIResult
from ..present.results import Table
from .agreement import agreement
from .audit_size import audit_size
from .judge_findings import THRESHOLDS, findings
from .judgments import Input, Runner
from .ppi import ppi_compare, ppi_evaluate
from .system_order import label_sources, system_order

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.settings import Settings


def judge_check(
    runs,
    judgments,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    source: str = "source",
    reference="human",
    candidate=None,
    system: str = "system",
    baseline=None,
    width: float | None = None,
    ppi: str = "ppi++",
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    **settings: Unpack[Settings],
) -> JudgeCheck:
    """What a team moving from human labels to a model's would want to see before the switch, in one result.

    ``judgments`` holds every label, its column ``source`` naming who gave it: ``reference`` (the people) and
    ``candidate`` (the model; may be left out when the column holds one source besides the reference). ``runs``
    holds every system's lists (a ``system`` column). The parts, each the named verb's result on the labels of
    those two sources:

    - ``agreement``: :func:`sqlndcg.agreement` between reference and candidate on the (query, document) pairs both
      labelled (kappas, Krippendorff's alpha, the mean signed difference candidate - reference, per-grade bias);
    - ``order``: :func:`sqlndcg.system_order` of the systems under each (tau-b, tau-AP, flipped pairs with
      compare's p-values), on the queries both judged;
    - ``corrected``: :func:`sqlndcg.ppi_evaluate` per system (``group_by`` the system), or with ``baseline``
      :func:`sqlndcg.ppi_compare` of each system's difference from it: the candidate's labels on every query, the
      reference's as the audit (``ppi="ppi++"`` or ``"ppi"``); None when the two grade on different scales
      (PPI needs one; the findings say so);
    - ``audit``: with ``width``, :func:`sqlndcg.audit_size` per row of the corrected summary, its per-query pairs
      as the pilot (None without ``width``);
    - ``findings``: plain sentences read off those numbers with the thresholds of
      :mod:`sqlndcg.verbs.judge_findings`.

    Every query the reference judged must be judged by the candidate too (the audit is a sample of the model's
    queries). ``settings`` are evaluate's (``gain``, ``query_id``, ``doc_id``, ``rel``, ...), given to every part;
    ``group_by`` is refused (run one check per group).

    >>> import pandas as pd, sqlndcg
    >>> runs = pd.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "query_id": ["q1", "q1", "q2", "q2", "q3", "q3"] * 2,
    ...                      "doc_id": ["x", "y"] * 6, "score": [2.0, 1.0] * 3 + [1.0, 2.0] * 3})
    >>> labels = pd.DataFrame({"source": ["llm"] * 6 + ["human"] * 4,
    ...                        "query_id": ["q1", "q1", "q2", "q2", "q3", "q3", "q1", "q1", "q2", "q2"],
    ...                        "doc_id": ["x", "y"] * 5, "rel": [1, 0, 1, 1, 0, 1, 1, 0, 1, 0]})
    >>> res = sqlndcg.judge_check(runs, labels, ["p@1"], candidate="llm")
    >>> res.order.correlation.to_dicts()[0]["tau_b"], res.findings[0]
    (1.0, 'llm grades 0.50 higher on human grade 0 (2 pairs)')
    """
    if settings.get("group_by"):
        raise SettingError("judge_check does not take group_by=: run one check per group (filter the runs and the "
                           "judgments to it)")
    if isinstance(runs, Mapping):
        raise SettingError("judge_check takes the runs as one table with a system column (system=), not a dict: "
                           "ppi_evaluate groups one run by its systems")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    with Runner.session(con) as runner:
        (labels,) = runner.inputs((judgments, "judgments", judgments_format))
        assert labels is not None
        query = str(settings.get("judgments_query_id") or settings.get("query_id") or "query_id")
        candidate = checked_sources(runner, labels, source, reference, candidate, query)
        columns = [c["name"] for c in labels.described["columns"]]
        p = {"judgments": labels.described["sql"], "source": source, "query": query, "columns": columns,
             "shared": False}
        # the two sources' labels stay in the engine as tables of this session; every part reads them there
        kept = {key: runner.keep(templates.system_order_labels_sql(dict(p, value=value), dialect=runner.dialect),
                                 f"sqlndcg_{key}_labels", "judgments", f"{labels.label}, the labels of {shown}")
                for key, value, shown in (("human", str(reference), repr(str(reference))),
                                          ("model", str(candidate), repr(str(candidate))),
                                          ("both", [str(reference), str(candidate)],
                                           f"{str(reference)!r} and {str(candidate)!r}"))}
        judged = {key: {v for (v,) in runner.rows(templates.system_order_values_sql(kept[key].sql, query,
                                                                                    dialect=runner.dialect))}
                  for key in ("human", "model")}
        checked_queries(labels.label, judged["human"], judged["model"], reference, candidate, query)
        common = dict(con=runner.ses.eng, **settings)
        agreed = agreement(kept["both"], annotator=source, between=(str(reference), str(candidate)),
                           query_id=query, doc_id=str(settings.get("judgments_doc_id") or settings.get("doc_id")
                                                      or "doc_id"),
                           rel=str(settings.get("rel") or "rel"), con=runner.ses.eng)
        order = system_order(runs, kept["both"], names, source=source, reference=str(reference), system=system,
                             run_format=run_format, **common)
        corrected: PPIResult | None = None
        sizes: Table | None = None
        if agreed.settings.get("grade_scales"):  # PPI would refuse: the agreement and the order still say why
            pass
        elif baseline is None:
            corrected = ppi_evaluate(runs, kept["model"], kept["human"], names, ppi=ppi, run_format=run_format,
                                     **dict(common, group_by=[system]))
        else:
            corrected = ppi_compare(runs, kept["model"], kept["human"], names, baseline=baseline, system=system,
                                    ppi=ppi, run_format=run_format, **common)
    if corrected is not None and width is not None:
        sizes = audit_sizes(corrected, width, system)
    out = {"source": source, "reference": str(reference), "candidate": str(candidate), "system": system,
           "baseline": None if baseline is None else str(baseline), "metrics": list(order.settings["metrics"]),
           "ppi": ppi, "width": width, "judgments": labels.label, "thresholds": dict(THRESHOLDS)}
    return JudgeCheck(agreed, order, corrected, sizes, findings(agreed, order, corrected, sizes, out), out)


def checked_sources(runner: Runner, labels: Input, source: str, reference, candidate, query: str):
    """The refusals about the sources: system_order's (the source column, the reference, another source), the
    query column, and the candidate (needed when the column holds several sources besides the reference).
    Returns the candidate."""
    columns = [c["name"] for c in labels.described["columns"]]
    sources = label_sources(runner, labels, source, reference)
    if query not in columns:
        raise InputError(f"{labels.label} has no query id column {query!r}; its columns are {', '.join(columns)}")
    where, shown, others = f"the column {source!r} of {labels.label}", ", ".join(map(repr, sources)), sources[1:]
    if candidate is None:
        if len(others) != 1:
            raise SettingError(f"{where} holds {shown}: name the model source to check with candidate= (one of "
                               f"{', '.join(map(repr, others))})")
        candidate = others[0]
    elif str(candidate) not in others:
        raise SettingError(f"candidate={candidate!r} is not a label source other than the reference: {where} "
                           f"holds {shown}")
    return candidate


def checked_queries(label: str, ours: set, theirs: set, reference, candidate, query: str) -> None:
    """The other refusals, on the queries each source judged: no query both judged; queries the reference judged
    that the candidate did not (the human labels audit a sample of the model's queries)."""
    shared = ours & theirs
    if not shared:
        raise DataError(f"{label}: no query of column {query!r} is judged by both {str(reference)!r} "
                        f"({len(ours)} queries) and {str(candidate)!r} ({len(theirs)} queries), so there is "
                        "nothing to check")
    lacking = sorted(ours - theirs, key=str)
    if lacking:
        raise DataError(f"{label}: {len(lacking)} of the {len(ours)} queries {str(reference)!r} judged (column "
                        f"{query!r}) have no label from {str(candidate)!r}, e.g. {', '.join(map(repr, lacking[:5]))}; "
                        "the human labels audit the model's, so label them with the model too or leave them out")


def audit_sizes(corrected, width: float, system: str) -> Table:
    """audit_size per row of the corrected summary, that row's per-query pairs as the pilot (for a difference:
    the system's pairs minus the baseline's, query by query). A row no audit reaches says why in ``note``."""
    pairs = corrected.per_query.to_dicts()
    baseline = corrected.settings.get("baseline")
    query = corrected.per_query.columns[1]
    rows: list[tuple] = []
    for r in corrected.summary.to_dicts():
        mine = [p for p in pairs if str(p[system]) == str(r[system]) and p["metric"] == r["metric"]]
        if baseline is not None:
            base = {p[query]: p for p in pairs if str(p[system]) == str(baseline) and p["metric"] == r["metric"]}
            mine = [{query: p[query], "metric": p["metric"], "audited": p["audited"],
                     "model_value": p["model_value"] - base[p[query]]["model_value"],
                     "human_value": None if not p["audited"] else
                     p["human_value"] - base[p[query]]["human_value"]}
                    for p in mine if p[query] in base]
        pilot = Table((query, "metric", "model_value", "human_value", "audited"),
                      tuple((p[query], p["metric"], p["model_value"], p["human_value"], p["audited"]) for p in mine))
        try:
            s = audit_size(pilot, width=width, ppi=corrected.settings["ppi"])
            rows.append((r[system], r["metric"], s.queries, s.audited, s.expected_width, s.lam, s.human_only,
                         s.saving, None))
        except (SettingError, InputError) as e:
            rows.append((r[system], r["metric"], len(mine), None, None, None, None, None, str(e)))
    return Table((system, "metric", "queries", "audited", "expected_width", "lam", "human_only", "saving", "note"),
                 tuple(rows), {"width": width})
