"""Pictures of results: NDCG@k against k per system, per-query differences against a baseline, metrics over time.

Needs matplotlib, an optional extra: ``pip install 'sqlndcg[plots]'``. It is imported only when a plot is drawn,
and figures are drawn without pyplot (``matplotlib.figure.Figure`` on the Agg canvas): no window, no global state,
safe in servers and threads. Every function returns the figure and, given ``file``, writes it as PNG or SVG (by
the file's suffix).
"""

from __future__ import annotations

import math
import operator
from pathlib import Path

from ..errors import MissingExtra, SettingError
from ..core.metrics import metric_column, metric_range
from ..core.metrics import parse_metric

FORMATS = {".png": "png", ".svg": "svg"}
#: The HTML report's PNGs: 110 dots per inch, so text drawn at 8 pt (the smallest here) is 12 px on the page.
SCREEN_DPI = 110
#: The widest figure, in inches: 11 in at SCREEN_DPI is 1,210 px, what the report shows unscaled on a 1280 px
#: screen. A wider figure would be shrunk to fit, and its text with it; panels wrap onto more rows instead.
MAX_WIDTH = 11.0
#: The smallest text of a figure (ticks, legends), in points.
SMALL_TEXT = 8
_WIN, _LOSS, _TIE, _BAND = "#2a7f3f", "#b23a3a", "#9a9a9a", "#4c72b0"


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


def _parts(result):
    """(summary rows, settings) of a Result or a Comparison."""
    summary = getattr(result, "summary", None)
    settings = getattr(result, "settings", None)
    if summary is None or settings is None:
        raise SettingError(f"expected an evaluation result or a comparison, got {type(result).__name__}")
    return summary.to_dicts(), settings


#: More panels than this are unreadable: the caller picks some with where=.
MAX_PANELS = 12


def _line_column(settings: dict, groups: list[str], system: str | None, exclude=()) -> str | None:
    """The group column drawn as one line per value: ``system`` if named, the comparison's system column, a group
    column called ``system``, or the only group column left; several candidates and no name is an error."""
    candidates = [g for g in groups if g not in exclude]
    if system is not None:
        if system not in candidates:
            raise SettingError(f"system={system!r} is not a group column of the result (its group_by: {groups})")
        return system
    for name in (settings.get("system"), "system"):
        if name in candidates:
            return name
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    raise SettingError(f"the result is grouped by {candidates}: name the column drawn as one line per value with "
                       f"system= (the others become panels, or pick their values with where=)")


def _filtered(rows: list[dict], groups: list[str], where: dict | None) -> list[dict]:
    """The rows whose group columns hold the values of ``where`` ({column: value or [values]})."""
    if not where:
        return rows
    unknown = [c for c in where if c not in groups]
    if unknown:
        raise SettingError(f"where= names {unknown}, which are not group columns of the result (its group_by: {groups})")
    wanted = {c: set(v) if isinstance(v, (list, tuple, set)) else {v} for c, v in where.items()}
    kept = [r for r in rows if all(r[c] in vs for c, vs in wanted.items())]
    if not kept:
        raise SettingError(f"no group of the result matches where={where!r}")
    return kept


def _panels(rows: list[dict], facets: list[str]) -> list[tuple]:
    keys = sorted({tuple(r[f] for f in facets) for r in rows}, key=lambda k: tuple(map(_sortable, k)))
    if len(keys) > MAX_PANELS:
        raise SettingError(f"{len(keys)} panels, one per value of {facets}: too many to read; pick some with "
                           f"where={{{facets[0]!r}: ...}}")
    return keys


def _colors(values) -> dict:
    """One colour per line value, the same in every panel."""
    palette = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974",
               "#64b5cd"]
    return {v: palette[i % len(palette)] for i, v in enumerate(sorted(set(values), key=_sortable))}


def _legend_outside(fig, axes, title: str | None) -> None:
    """One legend for the figure, right of the panels (centred, clear of the title), so it never covers a line."""
    handles, labels = {}, []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    if labels:
        fig.legend([handles[label] for label in labels], labels, title=title, loc="outside right center",
                   fontsize=SMALL_TEXT + 1)


def _grid(fig, count: int):
    columns = min(count, 3)
    rows = math.ceil(count / columns)
    return fig.subplots(rows, columns, squeeze=False).ravel().tolist()


def _canonical(names, settings: dict, what: str) -> list[str]:
    """The result columns of metric names as evaluate() takes them (``ap`` finds the column ``map``), each required
    in the result."""
    chosen = list(settings["metrics"]) if names is None else ([names] if isinstance(names, str) else list(names))
    out = []
    for name in chosen:
        column = metric_column(name, settings)
        if column is None:
            raise SettingError(f"metric {name!r} is not in the {what} (its metrics: {list(settings['metrics'])})")
        out.append(column)
    return out


#: The largest max_k. NDCG@1..max_k is one metric per k, each a column of the statement and a point of the plot:
#: 100 takes 1.5 s on the bundled example; 1000 took 13 s and 770 MB there (and far more on real runs), and a
#: hundred ticks already fill the plot's axis.
MAX_K = 100


def checked_max_k(max_k, name: str = "max_k") -> int:
    """``max_k`` as a whole number from 0 (no cutoff plot; None too) to :data:`MAX_K`, else one line naming
    ``name`` (the keyword, or the CLI's ``--max-k``), the bound and why there is one."""
    if max_k is None:
        return 0
    try:
        value = operator.index(max_k) if not isinstance(max_k, bool) else None
    except TypeError:
        value = None
    if value is None or not 0 <= value <= MAX_K:
        raise SettingError(f"{name} must be a whole number from 1 to {MAX_K} (0: no cutoff plot), got {max_k!r}: the "
                           f"cutoff plot evaluates and draws NDCG@k for every k up to it, and past {MAX_K} that is "
                           "slow (1000: 13 s and 770 MB on the bundled example) and unreadable")
    return value


def plot_cutoffs(result, kind: str = "ndcg", file=None, *, system: str | None = None, where: dict | None = None,
                 title: str | None = None):
    """A metric against its cutoff (NDCG@1, NDCG@2, ..., NDCG@K), one line per system with the 95% t interval of
    each mean as a band. ``result`` is an evaluation (or comparison) whose metrics include ``<kind>@k`` for
    several k: ``evaluate(run, qrels, [f"ndcg@{k}" for k in range(1, 11)], group_by="system")``. The other group
    columns (days, segments) become one panel per value; ``where={"ds": "2024-01-02"}`` keeps some of them.
    """
    rows, settings = _parts(result)
    kind = parse_metric(f"{kind}@1").kind
    cutoffs = []
    for name in settings["metrics"]:
        m = parse_metric(name)
        if m.kind == kind and m.k is not None and m.rel is None and not m.params:
            cutoffs.append((m.k, name))
    if not cutoffs:
        raise SettingError(f"no {kind}@k metric in the result (its metrics: {list(settings['metrics'])}); evaluate "
                           f"{kind}@1 .. {kind}@K to plot {kind} against k")
    cutoffs.sort()
    groups = list(settings.get("group_by", []))
    rows = _filtered(rows, groups, where)
    line_by = _line_column(settings, groups, system)
    facets = [g for g in groups if g != line_by]
    keys = _panels(rows, facets)
    colors = _colors(r[line_by] for r in rows) if line_by else {}
    columns = min(len(keys), 3)  # the legend takes 1.6 in right of the panels
    fig = _figure(min((4.6 if columns == 1 else 3.1) * columns + 1.6, MAX_WIDTH), 3.6 * math.ceil(len(keys) / 3))
    axes = _grid(fig, len(keys))
    ks = [k for k, _ in cutoffs]
    for ax, key in zip(axes, keys):
        members = sorted((r for r in rows if tuple(r[f] for f in facets) == key),
                         key=lambda r: _sortable(r[line_by]) if line_by else 0)
        for row in members:
            color = colors.get(row[line_by]) if line_by else None
            means = [row[name] for _, name in cutoffs]
            line, = ax.plot(ks, [math.nan if v is None else v for v in means], marker="o", color=color,
                            label=str(row[line_by]) if line_by else "all queries")
            lows = [row[f"{name}_ci_low"] for _, name in cutoffs]
            highs = [row[f"{name}_ci_high"] for _, name in cutoffs]
            if all(v is not None for v in lows + highs):
                ax.fill_between(ks, lows, highs, color=line.get_color(), alpha=0.15, linewidth=0)
        ax.set_xlabel("cutoff k")
        ax.set_ylabel(f"mean {kind}@k")
        _integer_ticks(ax, ks)
        if metric_range(cutoffs[0][1]) == (0.0, 1.0):
            ax.set_ylim(0.0, 1.0)
        ax.grid(True, alpha=0.3)
        if facets:
            ax.set_title(", ".join(f"{f}={v}" for f, v in zip(facets, key)), fontsize=9)
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    _legend_outside(fig, axes, line_by)
    fig.suptitle(title or f"{kind}@k for k = {ks[0]}..{ks[-1]}, one line per {line_by or 'evaluation'} "
                 "(bands: 95% t interval of the mean)", fontsize=10)
    return _finish(fig, file)


def _integer_ticks(ax, ks: list[int]) -> None:
    """A tick per cutoff while they read (up to 20), else a few round ones: 100 labels would overlap."""
    if len(ks) <= 20:
        ax.set_xticks(ks)
    else:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))


def _bars(ax, xs, values, colors, width: float) -> None:
    """Bars from 0 to each value as one collection: thousands of queries draw as one artist, not one Rectangle
    each (the same pixels, a fraction of the time and memory)."""
    from matplotlib.collections import PolyCollection

    half = width / 2
    verts = [((x - half, 0.0), (x - half, v), (x + half, v), (x + half, 0.0)) for x, v in zip(xs, values)]
    ax.add_collection(PolyCollection(verts, facecolors=colors, edgecolors="none"))
    ax.autoscale_view()


def plot_differences(comparison, file=None, *, metrics=None, title: str | None = None):
    """Per-query differences (system - baseline) of a :class:`~sqlndcg.verbs.compare.Comparison`: one panel per
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
    # at most 3 panels side by side (MAX_WIDTH); more metrics wrap onto more rows per system, evenly (4 as 2 x 2)
    rows_per_key = math.ceil(len(chosen) / 3)
    columns = math.ceil(len(chosen) / rows_per_key)
    fig = _figure(max(3.6 * columns, 5.0), max(2.9 * len(keys) * rows_per_key, 3.2))
    axes = fig.subplots(len(keys) * rows_per_key, columns, squeeze=False)
    for i in range(len(keys)):
        for j in range(len(chosen), rows_per_key * columns):
            axes[i * rows_per_key + j // columns][j % columns].set_visible(False)
    adjusted = s["correction"] if s["correction"] != "none" else "unadjusted"
    for i, key in enumerate(keys):
        for j, metric in enumerate(chosen):
            ax = axes[i * rows_per_key + j // columns][j % columns]
            st = stats[key + (metric,)]
            values = sorted(diffs.get(key + (metric,), []))
            scale = [abs(v) for v in values]
            colors = []
            for v, r in zip(values, scale):
                tie = abs(v) <= 1e-12 * (r + 1e-300) or v == 0.0
                colors.append(_TIE if tie else (_WIN if v > 0 else _LOSS))
            xs = list(range(1, len(values) + 1))
            _bars(ax, xs, values, colors, width=0.85)
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
            ax.set_xlabel("queries, sorted by difference", fontsize=SMALL_TEXT + 1)
            ax.set_ylabel(f"{metric}: system - baseline", fontsize=SMALL_TEXT + 1)
            lohi = metric_range(metric)
            if lohi is not None:
                span = lohi[1] - lohi[0]
                ax.set_ylim(-span * 1.02, span * 1.02)
            ax.tick_params(labelsize=SMALL_TEXT)
            ax.legend(fontsize=SMALL_TEXT, loc="upper left")
            ax.grid(True, axis="y", alpha=0.3)
    if title:
        fig.suptitle(title)
    return _finish(fig, file)


def _sortable(value):
    return (type(value).__name__, value)


def _time_column(rows: list[dict], groups: list[str], time: str | None) -> str:
    """The x axis: the named group column, else the one group column holding dates or times (or ISO text)."""
    import datetime

    if time is not None:
        if time not in groups:
            raise SettingError(f"time={time!r} is not a group column of the result (its group_by: {groups}); "
                               f"evaluate with group_by=[..., {time!r}]")
        return time
    def is_time(value) -> bool:
        if isinstance(value, (datetime.date, datetime.datetime)):
            return True
        try:  # ISO dates and times kept as text ('2026-11-01', as dbt and logs often write days)
            return isinstance(value, str) and len(value) >= 10 and bool(datetime.datetime.fromisoformat(value))
        except ValueError:
            return False

    dated = [g for g in groups if rows and all(is_time(r[g]) for r in rows)]
    if len(dated) == 1:
        return dated[0]
    raise SettingError(f"name the time column with time= (CLI --time): the result's group columns {groups} hold "
                       + ("no date or time values" if not dated else f"several date columns {dated}"))


def time_column(result, time: str | None = None) -> str | None:
    """The column :func:`plot_over_time` would put on its x axis (``time`` checked), or None when the result has
    no date/time group column and none is named."""
    rows, settings = _parts(result)
    groups = list(settings.get("group_by", []))
    try:
        return _time_column(rows, groups, time)
    except SettingError:
        if time is not None:
            raise
        return None


def plot_over_time(result, metrics=None, file=None, *, time: str | None = None, system: str | None = None,
                   where: dict | None = None, title: str | None = None):
    """Each metric's mean over time for grouped (e.g. daily) results: x is the ``time`` group column (named, or
    the one date/time group column), one line per system with the 95% t interval as a band, one panel per metric
    (``metrics``: a name or a list, names as :func:`sqlndcg.evaluate` takes them; default all). Other group
    columns become panels too; ``where={"segment": "mobile"}`` keeps some of their values."""
    rows, settings = _parts(result)
    groups = list(settings.get("group_by", []))
    chosen = _canonical(metrics, settings, "result")
    time = _time_column(rows, groups, time)
    rows = _filtered(rows, groups, where)
    line_by = _line_column(settings, groups, system, exclude=(time,))
    facets = [g for g in groups if g not in (time, line_by)]
    keys = _panels(rows, facets)
    if len(keys) * len(chosen) > MAX_PANELS:
        raise SettingError(f"{len(keys) * len(chosen)} panels ({len(chosen)} metrics x {len(keys)} values of "
                           f"{facets}): too many to read; pass fewer metrics= or pick values with where=")
    times = sorted({r[time] for r in rows}, key=_sortable)
    position = {t: i for i, t in enumerate(times)}
    colors = _colors(r[line_by] for r in rows) if line_by else {}
    panels = [(metric, key) for metric in chosen for key in keys]
    fig = _figure(min(max(6.4, 0.45 * len(times) + 3) * min(len(panels), 2), MAX_WIDTH),
                  3.6 * math.ceil(len(panels) / 2))
    columns = min(len(panels), 2)
    axes = fig.subplots(math.ceil(len(panels) / columns), columns, squeeze=False).ravel().tolist()
    for ax, (metric, key) in zip(axes, panels):
        lines: dict = {}
        for r in rows:
            if tuple(r[f] for f in facets) == key:
                lines.setdefault(r[line_by] if line_by else None, []).append(r)
        for value, members in sorted(lines.items(), key=lambda kv: _sortable(kv[0])):
            members.sort(key=lambda r: position[r[time]])
            xs = [position[r[time]] for r in members]
            ys = [math.nan if r[metric] is None else r[metric] for r in members]
            line, = ax.plot(xs, ys, marker="o", color=colors.get(value),
                            label=str(value) if line_by else "all queries")
            lows = [r[f"{metric}_ci_low"] for r in members]
            highs = [r[f"{metric}_ci_high"] for r in members]
            if all(v is not None for v in lows + highs):
                ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.15, linewidth=0)
        step = math.ceil(len(times) / 12)  # a label for every day while a dozen fit, else every step-th
        ax.set_xticks(range(0, len(times), step))
        ax.set_xticklabels([str(t) for t in times[::step]], rotation=45 if len(times) > 6 else 0,
                           ha="right" if len(times) > 6 else "center", fontsize=SMALL_TEXT)
        ax.set_xlabel(time)
        ax.set_ylabel(f"mean {metric}")
        if metric_range(metric) == (0.0, 1.0):
            ax.set_ylim(0.0, 1.0)
        ax.grid(True, alpha=0.3)
        ax.set_title(", ".join([metric] + [f"{f}={v}" for f, v in zip(facets, key)]), fontsize=9)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    _legend_outside(fig, axes, line_by)
    fig.suptitle(title or f"by {time}, one line per {line_by or 'evaluation'} (bands: 95% t interval of the mean)",
                 fontsize=10)
    return _finish(fig, file)


def plot_propensities(result, file=None, *, title: str | None = None):
    """Examination propensities theta(p) against the position (a :class:`~sqlndcg.present.online.Propensities`),
    one line per group, its interval as a band (none for logged propensities, whose band is their range)."""
    settings = result.settings
    groups = list(settings.get("group_by", []))
    rows = result.table.to_dicts()
    lines: dict[tuple, list[dict]] = {}
    for row in rows:
        lines.setdefault(tuple(row[g] for g in groups), []).append(row)
    fig = _figure(6.0, 3.8)
    ax = fig.subplots()
    for key, members in lines.items():
        members = sorted(members, key=operator.itemgetter("position"))
        xs = [r["position"] for r in members]
        line, = ax.plot(xs, [math.nan if r["propensity"] is None else r["propensity"] for r in members], marker="o",
                        label=", ".join(str(v) for v in key) or "propensity")
        if all(r["lower"] is not None and r["upper"] is not None for r in members):
            ax.fill_between(xs, [r["lower"] for r in members], [r["upper"] for r in members], color=line.get_color(),
                            alpha=0.15, linewidth=0)
    ax.set_xlabel("position")
    ax.set_ylabel("examination propensity θ(p)")
    _integer_ticks(ax, sorted({r["position"] for r in rows}))
    ax.set_ylim(bottom=0.0)
    ax.grid(True, alpha=0.3)
    if groups:
        ax.legend(fontsize=SMALL_TEXT, title=", ".join(groups))
    band = {"randomized": "95% delta-method interval", "em": "95% bootstrap interval",
            "logged": "range of the logged values"}[settings["method"]]
    fig.suptitle(title or f"Position bias ({settings['method']}; band: {band})", fontsize=10)
    return _finish(fig, file)
