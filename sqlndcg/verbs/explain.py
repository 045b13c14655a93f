"""Why two sets of settings (two presets, say trec_eval and sklearn) give different numbers: per query and metric,
the settings whose switch alone changes the number, computed by evaluating a, b and a with each differing setting
switched to b's value, all in one session. With ``query``, one query's arithmetic: its ranking with gains and
discounts, the ideal ranking, and each metric as numbers (the source material's worked example)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from ..core.metrics import parse_metric
from ..core import templates
from ..core.settings import Settings, settings_of
from ..core.spec import make_spec, settings_declared
from ..errors import SettingError, SqlndcgError
from ..run.session import Session
from ..run.sources import Reading
from .scoring import execute, prepare

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: A number that changed by less than this did not change (sums in another order differ in the last bits).
TOL = 1e-12
#: One-query view: the most positions shown.
MAX_POSITIONS = 100


def _switchable() -> list[str]:
    """The settings that change numbers (not the preset itself, not column names or grouping)."""
    return [n for n, d in settings_declared().items()
            if n != "preset" and not d.get("column") and not d.get("columns")]


def _given(side, name: str) -> dict:
    """A side as evaluate() keywords: a preset's name, or a dict of settings (which may name a preset); None: no
    setting of its own (evaluate()'s defaults, or the settings every side shares)."""
    if side is None:
        return {}
    if isinstance(side, str):
        return {"preset": side}
    if isinstance(side, Mapping):
        unknown = sorted(set(side) - set(_switchable()) - {"preset"})
        if unknown:
            raise SettingError(f"explain {name}=: unknown setting(s) {', '.join(unknown)}; settings: "
                               f"{', '.join(['preset'] + _switchable())}")
        return dict(side)
    raise SettingError(f"explain {name}= takes a preset's name or a dict of settings, not {type(side).__name__}")


def _effective(metrics, given: dict) -> dict:
    """Every switchable setting's value once the preset and defaults are applied."""
    spec = make_spec(metrics, **given)
    return {n: (spec.gain_map if n == "gain" and spec.gain == "map" else spec.data[n])
            for n in _switchable() if n in spec.data}


def _differs(x, y) -> bool:
    if x is None or y is None:
        return (x is None) != (y is None)
    return abs(x - y) > TOL


@dataclass
class Explanation:
    """Per (query, metric) differences between a and b and the settings they come from (``rows``), per setting and
    metric how many queries its switch alone changes (``summary``); ``str()`` is the report."""

    metrics: list[str]
    a: dict
    b: dict
    differing: dict  # setting -> (a value, b value)
    rows: list[dict] = field(default_factory=list)
    summary: list[dict] = field(default_factory=list)
    not_alone: dict = field(default_factory=dict)  # setting -> why it cannot be switched alone
    queries: int = 0

    def to_dict(self) -> dict:
        means = [{"setting": r["setting"], "metric": r["metric"], "queries": r["queries"],
                  "mean_change": _mean_of(r["changes"])} for r in self.summary]
        return {"a": self.a, "b": self.b, "differing": {s: list(v) for s, v in self.differing.items()},
                "queries": self.queries, "summary": means, "rows": self.rows, "not_alone": self.not_alone}

    def __str__(self) -> str:
        out = [f"a: {_show(self.a)}", f"b: {_show(self.b)}"]
        if not self.differing:
            return "\n".join(out + ["the settings are the same: no number differs"])
        out.append("differing settings: " + "; ".join(f"{s} {_value(x)} -> {_value(y)}"
                                                       for s, (x, y) in self.differing.items()))
        for m in self.metrics:
            changed = [r for r in self.rows if r["metric"] == m]
            out.append(f"{m}: {len(changed)} of {_queries(self.queries)} differ{_mean([r['change'] for r in changed])}")
            for line in self.summary:
                if line["metric"] == m:
                    out.append(f"  {line['setting']}: {_queries(line['queries'])}{_mean(line['changes'])}")
        for s, why in self.not_alone.items():
            out.append(f"{s}: not evaluated alone ({why}); its share is in 'together'")
        return "\n".join(out)


def _show(settings: dict) -> str:
    return ", ".join(f"{k}={_value(v)}" for k, v in settings.items()) or "defaults"


def _value(v) -> str:
    return str(v) if not isinstance(v, Mapping) else "{" + ", ".join(f"{g:g}: {x:g}" for g, x in v.items()) + "}"


def _queries(n: int) -> str:
    return f"{n} quer{'y' if n == 1 else 'ies'}"


def _mean_of(changes) -> float | None:
    numbers = [c for c in changes if c is not None]
    return sum(numbers) / len(numbers) if numbers else None


def _mean(changes) -> str:
    mean = _mean_of(changes)
    numbers = [c for c in changes if c is not None]
    text = f", mean change {mean:+.6f}" if numbers else ""
    missing = len(changes) - len(numbers)
    return text + (f" ({missing} scored on one side only)" if missing else "")


def _shared(settings: dict) -> tuple[dict, dict]:
    """The settings every side shares, given as explain()'s keywords: the switchable ones (and the preset) given,
    which each side's own override, and the columns (and group_by), which no side changes."""
    declared = settings_declared()
    columns = {n: v for n, v in settings.items() if declared[n].get("column") or declared[n].get("columns")}
    values = {n: v for n, v in settings.items() if n not in columns and v is not None}
    return values, columns


def _per_query(ses: Session, metrics, given: dict, run, judgments, formats, columns: dict) -> dict:
    """{query: {metric: value}} for one set of settings; a query is its id, or (group values..., id). Each row holds
    every metric under its column (as ``metrics`` spell it) and under its canonical name ('dcg@3')."""
    spec = make_spec(metrics, **given, **columns)
    prepared = prepare(ses, spec, run, judgments, **formats)
    result = execute(ses, prepared, None, summary=False)
    group_by, query_id = list(spec.group_by), spec.columns.query_id
    out = {}
    for r in result.per_query.to_dicts():
        for column, canonical in result.settings["canonical_metrics"].items():
            r.setdefault(canonical, r[column])
        out[tuple(r[g] for g in group_by) + (r[query_id],) if group_by else r[query_id]] = r
    return out


def explain(
    run,
    judgments,
    metrics: Sequence[str] | str = ("ndcg@10",),
    *,
    a=None,
    b="sklearn",
    query=None,
    con=None,
    run_format: str | None = None,
    judgments_format: str | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    **settings: Unpack[Settings],
):
    """Where the numbers under ``a`` and ``b`` (preset names, or dicts of settings) differ, per query and metric,
    and which differing setting causes each difference (switched alone from a toward b); a difference no single
    switch explains is reported as 'together' (settings that interact). With ``query``, that query's arithmetic
    under ``a`` (and ``b`` when given) instead, one view per ranking of it (each value of the group columns it is
    scored under): a :class:`QueryExplanation`.

    Every setting of :func:`sqlndcg.evaluate` is a keyword here too, shared by both sides (``group_by`` names the
    columns that split the run into rankings, system or day: a query is then (their values..., query id)); each
    side's own settings override them. ``a=None`` (the default) is evaluate()'s defaults (exponential gain), or the
    shared settings' preset when one is given.

    >>> import sqlndcg
    >>> ex = sqlndcg.explain(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], a="trec_eval",
    ...                      b={"preset": "trec_eval", "gain": "exponential"}, group_by="tag")
    >>> list(ex.differing), {tuple(r["causes"]) for r in ex.rows}
    (['gain'], {('gain',)})
    """
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    given = settings_of("explain", settings)
    group_by = given.pop("group_by", ())
    shared, columns = _shared(given)
    columns["group_by"] = [group_by] if isinstance(group_by, str) else list(group_by)
    ga = {**shared, **_given(a, "a")}
    gb = None if b is None else {**shared, **_given(b, "b")}
    ea = _effective(metrics, ga)
    formats = {"run_format": run_format, "judgments_format": judgments_format}
    reading = Reading.of(delimiter, decimal)
    if query is not None:
        return _one_query(run, judgments, metrics, query, [ga] + ([gb] if gb is not None else []), con, formats,
                          columns, reading)
    if gb is None:
        raise SettingError("explain compares two sets of settings: give b= (or query= for one query's arithmetic)")
    eb = _effective(metrics, gb)
    differing = {s: (ea[s], eb[s]) for s in ea if ea[s] != eb[s]}
    ex = Explanation(metrics, ga, gb, differing)
    with Session(con, reading=reading) as ses:
        run_src, judgments_src = run, judgments
        full_a = {s: ea[s] for s in ea}
        va = _per_query(ses, metrics, full_a, run_src, judgments_src, formats, columns)
        vb = _per_query(ses, metrics, {s: eb[s] for s in eb}, run_src, judgments_src, formats, columns)
        single = {}
        for s, (_, to) in differing.items():
            try:
                single[s] = _per_query(ses, metrics, {**full_a, s: to}, run_src, judgments_src, formats, columns)
            except SqlndcgError as e:
                ex.not_alone[s] = str(e).splitlines()[0]
    _attribute(ex, va, vb, single)
    return ex


def _attribute(ex: Explanation, va: dict, vb: dict, single: dict) -> None:
    """Fill ex.rows and ex.summary: each differing (query, metric), the settings whose single switch changes it,
    and what is left when their single changes are added up ('together')."""
    queries = sorted(set(va) | set(vb), key=str)
    ex.queries = len(queries)
    per_setting: dict[tuple[str, str], list] = {}
    for m in ex.metrics:
        for q in queries:
            x, y = va.get(q, {}).get(m), vb.get(q, {}).get(m)
            for s, values in single.items():
                z = values.get(q, {}).get(m)
                if _differs(x, z):
                    per_setting.setdefault((s, m), []).append(None if x is None or z is None else z - x)
            if not _differs(x, y):
                continue
            causes = [s for s, values in single.items() if _differs(x, values.get(q, {}).get(m))]
            change = None if x is None or y is None else y - x
            parts = [single[s].get(q, {}).get(m) for s in causes]
            together = None
            if change is not None and all(p is not None for p in parts):
                rest = change - sum(p - x for p in parts)
                together = rest if abs(rest) > 1e-9 else None
            elif not causes:
                together = change
            if together is not None or not causes:
                per_setting.setdefault(("together", m), []).append(together)
            ex.rows.append({"query_id": q, "metric": m, "a": x, "b": y, "change": change, "causes": causes,
                            "together": together})
    for (s, m), changes in per_setting.items():
        ex.summary.append({"setting": s, "metric": m, "queries": len(changes), "changes": changes})
    order = list(ex.differing) + ["together"]
    ex.summary.sort(key=lambda r: (ex.metrics.index(r["metric"]), order.index(r["setting"])))


# -- one query ---------------------------------------------------------------------------------------------------

@dataclass
class QueryExplanation:
    """One query's ranking, ideal ranking and metric arithmetic under each side's settings; ``str()`` prints it."""

    query_id: object
    views: list[dict]

    def to_dict(self) -> dict:
        return {"query_id": self.query_id, "views": self.views}

    def __str__(self) -> str:
        out = []
        for v in self.views:
            ranking = "".join(f", {g}={value}" for g, value in v.get("group", {}).items())
            out.append(f"query {self.query_id}{ranking} under {_show(v['settings'])}")
            out.append(_table(["pos", "doc", "label", "gain", "discount", "contribution", "DCG"], v["ranking"]))
            out.append("ideal ranking:")
            out.append(_table(["pos", "doc", "label", "gain", "discount", "contribution", "IDCG"], v["ideal"]))
            out.extend(v["arithmetic"])
            out.append("")
        return "\n".join(out).rstrip()


def _table(header, rows) -> str:
    cells = [header] + [[_cell(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells)


def _cell(c) -> str:
    if c is None:
        return "-"
    if isinstance(c, float):
        return f"{c:g}" if c.is_integer() and abs(c) < 1e9 else f"{c:.6f}"
    return str(c)


def _discount(i: int) -> float:
    return 1.0 / math.log2(i + 1)


def _one_query(run, judgments, metrics, query, sides: list[dict], con, formats, columns: dict,
               reading: Reading | None = None) -> QueryExplanation:
    views = []
    with Session(con, reading=reading) as ses:
        for given in sides:
            views.extend(_views(ses, run, judgments, metrics, query, given, formats, columns))
    return QueryExplanation(query, views)


def _cuts(metrics) -> list[str]:
    """The DCG and IDCG values an NDCG metric's arithmetic shows ('ndcg@3': dcg@3 and idcg@3), unless asked for."""
    asked = {parse_metric(m).name for m in metrics}
    cuts = []
    for m in map(parse_metric, metrics):
        if m.kind == "ndcg":
            cuts += [f"dcg@{m.k}", f"idcg@{m.k}"] if m.k is not None else ["dcg", "idcg"]
    return [c for c in cuts if c not in asked]


def _views(ses, run_src, judgments_src, metrics, query, given, formats, columns) -> list[dict]:
    """The query's view under the settings ``given``: one per ranking of it (each value of the group columns under
    which it is scored), in the order of those values."""
    group_by = columns["group_by"]
    spec = make_spec(metrics, **given, **columns)
    prepared = prepare(ses, spec, run_src, judgments_src, **formats)
    shared = [g["name"] for g in prepared.plan["groups"] if g["shared"]]
    key = str(query)
    ranking = [r for r in _rows(ses, templates.explain_ranking(prepared.plan, MAX_POSITIONS, prepared.longest_list, dialect=ses.dialect))
               if str(r["_q"]) == key]
    labels = [r for r in _rows(ses, templates.explain_labels(prepared.plan, dialect=ses.dialect)) if str(r["_q"]) == key]
    cuts = _cuts(metrics)
    longest = max([r["_pos"] for r in ranking] + [0])  # of the query's rankings, the longest (and its ideal's)
    deepest = min(MAX_POSITIONS, longest if spec.data["ideal"] == "retrieved" else
                  sum(1 for r in labels if r["_gain"] > 0))
    asked = {parse_metric(m).name for m in metrics}
    cuts += [c for c in [f"dcg@{i}" for i in range(1, longest + 1)] + [f"idcg@{i}" for i in range(1, deepest + 1)]
             if c not in asked]
    per = _per_query(ses, list(dict.fromkeys(list(metrics) + cuts)), given, run_src, judgments_src, formats,
                     columns)
    scored = sorted((k for k in per if str(k[-1] if group_by else k) == key), key=str)
    if not scored:
        raise SettingError(f"explain: query {query!r} is not scored under {_show(given)} (not in the judgments"
                           f"{', or not in the run (queries=both)' if spec.data['queries'] == 'both' else ''})")
    views = []
    for found in scored:
        group = dict(zip(group_by, found[:-1])) if group_by else {}
        view = _view(spec, [r for r in ranking if all(r[g] == v for g, v in group.items())],
                     [r for r in labels if all(r[g] == group[g] for g in shared)], per[found], metrics)
        views.append({"settings": given, **({"group": group} if group_by else {}), **view})
    return views


def _view(spec, ranking: list[dict], labels: list[dict], values: dict, metrics) -> dict:
    """One ranking's rows, its ideal ranking's and the metrics' arithmetic, from the values evaluate() gave."""
    ideal = (sorted(({"_d": r["_d"], "_rel": r["_rel"], "_gain": r["_gain"]} for r in ranking),
                    key=lambda r: -r["_gain"]) if spec.data["ideal"] == "retrieved"
             else [r for r in labels if r["_gain"] > 0])
    n, n_ideal = len(ranking), min(len(ideal), MAX_POSITIONS)
    rows, previous = [], 0.0
    for i, r in enumerate(ranking, 1):
        dcg = values[f"dcg@{i}"]
        rows.append([i, r["_d"], r["_rel"], float(r["_gain"]), _discount(i), dcg - previous, dcg])
        previous = dcg
    ideal_rows, previous = [], 0.0
    for i, r in enumerate(ideal[:n_ideal], 1):
        idcg = values.get(f"idcg@{i}")
        ideal_rows.append([i, r["_d"], r["_rel"], float(r["_gain"]), _discount(i), None if idcg is None else
                           idcg - previous, idcg])
        previous = idcg or previous
    return {"ranking": rows, "ideal": ideal_rows, "arithmetic": [_arithmetic(m, values, n) for m in metrics]}


def _rows(ses, sql: str) -> list[dict]:
    columns, rows = ses.fetch(sql)
    return [dict(zip(columns, r)) for r in rows]


def _arithmetic(metric: str, values: dict, n: int) -> str:
    """'NDCG@3 = 8.892789 / 10.392789 = 0.855669' for the DCG family, else the metric's value."""
    value = values.get(metric)
    parsed = parse_metric(metric)
    name, k = parsed.kind, ("" if parsed.k is None else str(parsed.k))
    shown = metric.upper() if name in ("ndcg", "dcg", "idcg", "cg", "p", "r") else metric
    if value is None:
        return f"{shown} = NULL (nothing to find: empty setting)"
    if name == "ndcg":
        dcg, idcg = values[f"dcg@{k}" if k else "dcg"], values[f"idcg@{k}" if k else "idcg"]
        if idcg:
            return f"{shown} = {dcg:.6f} / {idcg:.6f} = {value:.6f}"
    if name == "p" and k:
        return f"{shown} = {value * int(k):g} relevant / {k} = {value:.6f}"
    return f"{shown} = {value:.6f}"
