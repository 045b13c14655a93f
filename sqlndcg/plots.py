"""Pictures of results: NDCG@k against k per system, per-query differences against a baseline, metrics over time.

Needs matplotlib, an optional extra: ``pip install 'sqlndcg[plots]'``. It is imported only when a plot is drawn,
and figures are drawn without pyplot (``matplotlib.figure.Figure`` on the Agg canvas): no window, no global state,
safe in servers and threads. Every function returns the figure and, given ``file``, writes it as PNG or SVG (by
the file's suffix).
"""

from __future__ import annotations

import math
from pathlib import Path

from .errors import SettingError, SqlndcgError
from .intervals import metric_range
from .metrics import parse_metric

FORMATS = {".png": "png", ".svg": "svg"}
_WIN, _LOSS, _TIE, _BAND = "#2a7f3f", "#b23a3a", "#9a9a9a", "#4c72b0"


class MissingExtra(SqlndcgError, ImportError):
    """An optional dependency (an extra) is not installed."""


def _figure(width: float, height: float):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtra("plots need matplotlib, an optional extra: pip install 'sqlndcg[plots]'") from None
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _format(file) -> str:
    suffix = Path(file).suffix.lower()
    if suffix not in FORMATS:
        raise SettingError(f"plot file {str(file)!r}: name it .png or .svg (the suffix picks the format)")
    return FORMATS[suffix]


def save(fig, file) -> None:
    """Write a figure as PNG (150 dpi) or SVG, by the suffix of ``file``."""
    import matplotlib

    fmt = _format(file)
    # SVG text stays text (searchable, small); no dates or versions in the files, so the same plot is the same bytes.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "sqlndcg"}):
        fig.savefig(file, format=fmt, dpi=150, metadata={"Software": None} if fmt == "png" else {"Date": None})


def _finish(fig, file):
    if file is not None:
        save(fig, file)
    return fig


def _label(row: dict, groups: list[str]) -> str:
    return ", ".join(str(row[g]) for g in groups) if groups else "all"


def _parts(result):
    """(summary rows, settings) of a Result or a Comparison."""
    summary = getattr(result, "summary", None)
    settings = getattr(result, "settings", None)
    if summary is None or settings is None:
        raise SettingError(f"expected an evaluation result or a comparison, got {type(result).__name__}")
    return summary.to_dicts(), settings


def plot_cutoffs(result, kind: str = "ndcg", file=None, *, title: str | None = None):
    """A metric against its cutoff (NDCG@1, NDCG@2, ..., NDCG@K), one line per group (system), with the 95% t
    interval of each mean as a band. ``result`` is an evaluation (or comparison) whose metrics include
    ``<kind>@k`` for several k: ``evaluate(run, qrels, [f"ndcg@{k}" for k in range(1, 11)], group_by="system")``.
    """
    rows, settings = _parts(result)
    cutoffs = []
    for name in settings["metrics"]:
        m = parse_metric(name)
        if m.kind == kind and m.k is not None and m.rel is None and not m.params:
            cutoffs.append((m.k, name))
    if not cutoffs:
        raise SettingError(f"no {kind}@k metric in the result (its metrics: {list(settings['metrics'])}); evaluate "
                           f"{kind}@1 .. {kind}@K to plot {kind} against k")
    cutoffs.sort()
    groups = [g for g in settings.get("group_by", [])]
    fig = _figure(6.4, 4.2)
    ax = fig.add_subplot()
    ks = [k for k, _ in cutoffs]
    for row in rows:
        means = [row[name] for _, name in cutoffs]
        line, = ax.plot(ks, [math.nan if v is None else v for v in means], marker="o", label=_label(row, groups))
        lows = [row[f"{name}_ci_low"] for _, name in cutoffs]
        highs = [row[f"{name}_ci_high"] for _, name in cutoffs]
        if all(v is not None for v in lows + highs):
            ax.fill_between(ks, lows, highs, color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xlabel("cutoff k")
    ax.set_ylabel(f"mean {kind}@k")
    ax.set_xticks(ks)
    if metric_range(cutoffs[0][1]) == (0.0, 1.0):
        ax.set_ylim(0.0, 1.0)
    ax.grid(True, alpha=0.3)
    ax.legend(title=", ".join(groups) if groups else None, loc="best")
    ax.set_title(title or f"{kind}@k for k = {ks[0]}..{ks[-1]} (bands: 95% t interval of the mean)", fontsize=10)
    return _finish(fig, file)


def plot_differences(comparison, file=None, *, metrics=None, title: str | None = None):
    """Per-query differences (system - baseline) of a :class:`~sqlndcg.compare.Comparison`: one panel per
    (stratum, system) and metric, queries sorted by their difference as bars (green: the system wins, red: it
    loses, grey: a tie), the mean difference as a dashed line and its 95% t interval as a band."""
    s = comparison.settings
    chosen = list(s["metrics"]) if metrics is None else ([metrics] if isinstance(metrics, str) else list(metrics))
    unknown = [m for m in chosen if m not in s["metrics"]]
    if unknown:
        raise SettingError(f"metrics {unknown} are not in the comparison (its metrics: {list(s['metrics'])})")
    strata, system = list(s["strata"]), s["system"]
    keys = []
    for r in comparison.table.to_dicts():
        key = tuple(r[g] for g in strata) + (r[system],)
        if key not in keys:
            keys.append(key)
    stats = {tuple(r[g] for g in strata) + (r[system], r["metric"]): r for r in comparison.table.to_dicts()}
    diffs: dict[tuple, list[float]] = {}
    for r in comparison.differences.to_dicts():
        if r["difference"] is not None:
            diffs.setdefault(tuple(r[g] for g in strata) + (r[system], r["metric"]), []).append(r["difference"])
    fig = _figure(max(4.2 * len(chosen), 5.0), max(2.9 * len(keys), 3.2))
    axes = fig.subplots(len(keys), len(chosen), squeeze=False)
    adjusted = s["correction"] if s["correction"] != "none" else "unadjusted"
    for i, key in enumerate(keys):
        for j, metric in enumerate(chosen):
            ax = axes[i][j]
            st = stats[key + (metric,)]
            values = sorted(diffs.get(key + (metric,), []))
            scale = [abs(v) for v in values]
            colors = []
            for v, r in zip(values, scale):
                tie = abs(v) <= 1e-12 * (r + 1e-300) or v == 0.0
                colors.append(_TIE if tie else (_WIN if v > 0 else _LOSS))
            xs = list(range(1, len(values) + 1))
            ax.bar(xs, values, color=colors, width=0.85)
            ax.axhline(0.0, color="black", linewidth=0.8)
            if st["difference"] is not None:
                ax.axhline(st["difference"], color=_BAND, linestyle="--", linewidth=1.2,
                           label=f"mean {st['difference']:+.4f}")
            if st["t_low"] is not None:
                ax.axhspan(st["t_low"], st["t_high"], color=_BAND, alpha=0.15, label="95% t interval")
            who = ", ".join(str(k) for k in key)
            p = st["randomization_p_adjusted"]
            ax.set_title(f"{who} - {st['baseline']}: {metric}\nW/T/L {st['wins']}/{st['ties']}/{st['losses']}, "
                         f"p (perm, {adjusted}) = {'n/a' if p is None else format(p, '.3g')}", fontsize=9)
            ax.set_xlabel("queries, sorted by difference", fontsize=8)
            ax.set_ylabel(f"{metric}: system - baseline", fontsize=8)
            lohi = metric_range(metric)
            if lohi is not None:
                span = lohi[1] - lohi[0]
                ax.set_ylim(-span * 1.02, span * 1.02)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=7, loc="upper left")
            ax.grid(True, axis="y", alpha=0.3)
    if title:
        fig.suptitle(title)
    return _finish(fig, file)


def _sortable(value):
    return (type(value).__name__, value)


def plot_over_time(result, metric: str | None = None, file=None, *, time: str | None = None,
                   title: str | None = None):
    """A metric's mean over time for grouped (e.g. daily) results: x is the ``time`` group column (default: the
    first group_by column), one line per combination of the other group columns (systems, segments), with the
    95% t interval as a band. ``result`` is an evaluation or comparison grouped by ``time``."""
    rows, settings = _parts(result)
    groups = list(settings.get("group_by", []))
    metric = metric or settings["metrics"][0]
    if metric not in settings["metrics"]:
        raise SettingError(f"metric {metric!r} is not in the result (its metrics: {list(settings['metrics'])})")
    time = time or (groups[0] if groups else None)
    if time is None or time not in groups:
        raise SettingError(f"plot_over_time needs a result grouped by a time column (time={time!r}); its group_by "
                           f"is {groups}: evaluate with group_by=['ds', 'system'], say")
    others = [g for g in groups if g != time]
    times = sorted({r[time] for r in rows}, key=_sortable)
    position = {t: i for i, t in enumerate(times)}
    lines: dict[tuple, list[dict]] = {}
    for r in rows:
        lines.setdefault(tuple(r[g] for g in others), []).append(r)
    fig = _figure(max(6.4, 0.45 * len(times) + 3), 4.2)
    ax = fig.add_subplot()
    for key, members in sorted(lines.items(), key=lambda kv: tuple(map(_sortable, kv[0]))):
        members.sort(key=lambda r: position[r[time]])
        xs = [position[r[time]] for r in members]
        ys = [math.nan if r[metric] is None else r[metric] for r in members]
        line, = ax.plot(xs, ys, marker="o", label=", ".join(map(str, key)) if key else metric)
        lows = [r[f"{metric}_ci_low"] for r in members]
        highs = [r[f"{metric}_ci_high"] for r in members]
        if all(v is not None for v in lows + highs):
            ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xticks(range(len(times)))
    ax.set_xticklabels([str(t) for t in times], rotation=45 if len(times) > 6 else 0, ha="right" if len(times) > 6 else "center", fontsize=8)
    ax.set_xlabel(time)
    ax.set_ylabel(f"mean {metric}")
    if metric_range(metric) == (0.0, 1.0):
        ax.set_ylim(0.0, 1.0)
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(title=", ".join(others), loc="best")
    ax.set_title(title or f"{metric} by {time} (bands: 95% t interval of the mean)", fontsize=10)
    return _finish(fig, file)
