"""A self-contained HTML report of a comparison: the summary (t and bootstrap intervals), the paired comparison
against the baseline, the account of what went in, and the plots (NDCG@k per system, the per-query differences,
and the metrics over time when the comparison is grouped by a time column), embedded as base64 PNG so the file
travels alone (mail it, attach it to a ticket). Plots need the ``plots`` extra (matplotlib).
"""

from __future__ import annotations

import base64
import html
import io
import os
from typing import Sequence

from ..errors import SettingError
from ..run.progress import announce
from ..present import plots
from .compare import Comparison, compare, evaluate_systems
from .compare_diversity import account_text, ad_hoc_judgments, is_diversity_list, split_settings
from ..stats.intervals import bootstrap_summary
from ..present.results import Table, settings_text

_CSS = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2em auto; max-width: 120em;
       color: #222; line-height: 1.4; padding: 0 1em; }
p, pre, details { max-width: 75em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; font-variant-numeric: tabular-nums; }
.wide { overflow-x: auto; }
th, td { padding: 0.25em 0.45em; border-bottom: 1px solid #eee; text-align: right; }
tr.group th { background: none; padding-top: 0.7em; border-bottom: 1px solid #ccc; }
td { white-space: nowrap; }
th { background: #f4f4f4; vertical-align: bottom; font-weight: 600; } td.text, th.text { text-align: left; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; display: block; }
.note { color: #555; font-size: 0.9em; } code { background: #f4f4f4; padding: 0 0.2em; }
pre { white-space: pre-wrap; font-size: 0.85em; }
"""


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e-3 and value != 0 else f"{value:.4f}"
    return str(value)


def html_table(table: Table, columns: Sequence[str] | None = None, headers: Sequence[str] | None = None, *,
               right: Sequence[str] = (), group_by: int = 0) -> str:
    """A Table as an HTML table (numbers right-aligned, text left; ``right``: text columns aligned as numbers,
    such as intervals), every value escaped. Headers wrap, values do not. ``group_by``: the first columns (the
    strata, e.g. ds) become one heading row per value instead of a column each, which keeps a wide table narrow."""
    columns = list(columns or table.columns)
    headers = list(headers or columns)
    rows = table.to_dicts()
    text_columns = {c for c in columns if c not in right and any(isinstance(r[c], str) for r in rows)}
    kind = lambda c: "text" if c in text_columns else "num"  # noqa: E731
    groups, shown = columns[:group_by], list(zip(columns, headers))[group_by:]
    out = ['<div class="wide"><table>',
           "<tr>" + "".join(f'<th class="{kind(c)}">{html.escape(h)}</th>' for c, h in shown) + "</tr>"]
    last = None
    for r in rows:
        key = tuple(r[g] for g in groups)
        if groups and key != last:
            label = ", ".join(f"{h}={_cell(r[g])}" for g, h in zip(groups, headers))
            out.append(f'<tr class="group"><th colspan="{len(shown)}" class="text">{html.escape(label)}</th></tr>')
            last = key
        out.append("<tr>" + "".join(f'<td class="{kind(c)}">{html.escape(_cell(r[c]))}</td>' for c, _ in shown)
                   + "</tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _interval(low, high) -> str:
    """An interval as one cell, ``[0.1370, 0.4622]``; empty where it is undefined (fewer than two queries)."""
    return "" if low is None or high is None else f"[{_cell(low)}, {_cell(high)}]"


def _summary_html(summary: Table, method: str, strata: Sequence[str]) -> str:
    """The summary, each interval in one cell, a heading row per stratum."""
    groups = list(summary.columns[:summary.columns.index("metric")])
    rows = [tuple(r[g] for g in groups) + (r["metric"], r["mean"], r["queries"], _interval(r["t_low"], r["t_high"]),
                                           _interval(r["bootstrap_low"], r["bootstrap_high"]))
            for r in summary.to_dicts()]
    columns = [*groups, "metric", "mean", "queries", "t_interval", "bootstrap_interval"]
    return html_table(Table(columns, rows), columns,
                      [*groups, "metric", "mean", "queries", "95% t interval", f"95% bootstrap interval ({method})"],
                      right=("t_interval", "bootstrap_interval"), group_by=len(strata))


def _comparison_html(comparison: Comparison) -> str:
    """The comparison table as the text shows it (:meth:`Comparison.shown`: an interval per cell, W/T/L), then
    its notes (queries on one side only, judged queries missing from a run) as a list."""
    shown = comparison.shown()
    s = comparison.settings
    strata = len(s["strata"])  # then the system and the metric: text; the numbers after them
    base = shown.columns.index(f"base={s['baseline']}")
    headers = [*shown.columns[:base], f"base ({s['baseline']})", *shown.columns[base + 1:]]  # a header that wraps
    out = [html_table(shown, headers=headers, right=shown.columns[strata + 2:], group_by=strata)]
    notes = comparison.notes()
    if notes:
        out.append('<ul class="note">' + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    return "\n".join(out)


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=plots.SCREEN_DPI)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _img(fig, alt: str) -> str:
    return f'<img src="{_png(fig)}" alt="{html.escape(alt)}">'


def render_html(comparison: Comparison, *, curve=None, time: str | None = None, title: str | None = None) -> str:
    """The report of a comparison as one HTML document. ``curve``: an evaluation with ``ndcg@1..K`` grouped by
    system (:func:`sqlndcg.verbs.compare.evaluate_systems`), plotted against k; ``time``: a group column of the
    comparison to plot the metrics over (default: the first group_by column, if any)."""
    s = comparison.settings
    system, strata = s["system"], list(s["strata"])
    title = title or f"sqlndcg: systems compared with {s['baseline']}"
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>",
             f"<style>{_CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    parts.append('<p class="note">Settings: ' + html.escape(settings_text(s)) + "</p>")

    summary = bootstrap_summary(comparison.result, method=s["bootstrap"], resamples=s["resamples"], seed=s["seed"])
    parts.append("<h2>Summary</h2>")
    parts.append(f'<p class="note">Mean of each metric over the scored queries, with two 95% intervals of the mean: '
                 f"Student's t (symmetric; can leave the metric's range) and a {html.escape(s['bootstrap'])} "
                 f"bootstrap ({s['resamples']} resamples, seed {s['seed']}; stays within the observed values).</p>")
    parts.append(_summary_html(summary, s["bootstrap"], strata))
    if s.get("diversity_metrics"):
        d = s["diversity"]
        parts.append('<p class="note">Accuracy and diversity side by side: the accuracy metrics read the ad hoc '
                     "judgments (each document's largest grade over the query's intents; their settings above), "
                     f"the diversity measures ({html.escape(', '.join(s['diversity_metrics']))}) the judgments with "
                     f"their intents, as ndeval scores them (alpha={d['alpha']}, beta={d['beta']}, "
                     f"threshold={d['threshold']}, queries={html.escape(repr(d['queries']))}: the queries both in "
                     "the run and in the judgments; nnrbp leaves out queries without a relevant intent).</p>")

    parts.append("<h2>Comparison with the baseline</h2>")
    adjusted = (f"both also adjusted ({html.escape(s['correction'])}) over the {len(comparison.table)} comparisons"
                if s["correction"] != "none" else "no correction over the comparisons (correction='none')")
    parts.append(
        f'<p class="note">Paired by query against <code>{html.escape(str(s["baseline"]))}</code> '
        f"(queries={html.escape(repr(s['queries']))}); base: its mean. diff = mean of (system &minus; baseline) per "
        f"query, with its 95% t interval and {html.escape(s['bootstrap'])} bootstrap interval; change: diff over the "
        f"baseline's mean; d_z: the effect size, diff over the standard deviation of the per-query differences; "
        f"p (t): paired t test; p (perm): paired randomization test, {s['permutations']} random sign flips from "
        f"seed {s['seed']} (exact when 2^pairs &le; that); {adjusted}. W/T/L: queries where the system is above / "
        "equal to / below the baseline. See docs/compare.md.</p>")
    parts.append(_comparison_html(comparison))
    parts.append("<pre>" + html.escape(comparison.heading()) + "</pre>")

    parts.append("<h2>Plots</h2>")
    if curve is not None:
        parts.append("<h3>NDCG@k per system</h3>")
        if s.get("diversity_metrics") or "alpha" in s:
            parts.append('<p class="note">On the ad hoc judgments: each document graded by its largest grade over '
                         "the query's intents.</p>")
        parts.append(_img(plots.plot_cutoffs(curve, system=system), "NDCG@k against k per system"))
    parts.append("<h3>Per-query differences against the baseline</h3>")
    parts.append(_img(plots.plot_differences(comparison), "per-query differences against the baseline"))
    over_time = plots.time_column(comparison.result, time) if strata or time else None
    if over_time is not None:
        parts.append(f"<h3>The metrics over {html.escape(over_time)}</h3>")
        parts.append(_img(plots.plot_over_time(comparison.result, time=over_time, system=system),
                          f"the metrics over {over_time}"))

    parts.append("<h2>What went in</h2>")
    parts.append("<pre>" + html.escape(account_text(comparison)) + "</pre>")
    parts.append('<h2>SQL</h2><p class="note">One statement computes the comparison table above (before its p-values '
                 "and bootstrap intervals) from the inputs themselves: run it where they are (files are read by "
                 "their paths). Inputs given as data frames appear under the names sqlndcg registered them by, for "
                 "the call only.</p><details><summary>The paired statement</summary><pre>"
                 + html.escape(comparison.sql) + "</pre></details>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def report(runs, judgments, metrics: Sequence[str] | str = ("ndcg@10",), *, file=None, max_k: int = 10,
           time: str | None = None, title: str | None = None, **compare_settings) -> str:
    """Compare the runs (:func:`sqlndcg.compare`, with the same keywords), evaluate NDCG@1..``max_k`` per system
    (``max_k`` from 1 to :data:`sqlndcg.plots.MAX_K`; 0 or None: no cutoff plot), and return the HTML report;
    with ``file``, also write it there.

    >>> import sqlndcg
    >>> page = sqlndcg.report(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], system="tag",
    ...                       baseline="bm25", permutations=1000, resamples=1000)
    >>> page.startswith("<!DOCTYPE html>") and page.count("data:image/png;base64,")
    2
    """
    max_k = plots.checked_max_k(max_k)
    if file is not None:  # a report that cannot be written is refused before the work, not after
        folder = os.path.dirname(os.path.abspath(file))
        if not os.path.isdir(folder):
            raise SettingError(f"cannot write the report to {str(file)!r}: the folder {folder!r} does not exist")
    announce("comparing the systems")
    comparison = compare(runs, judgments, metrics, **compare_settings)
    curve = None
    if max_k:
        announce(f"evaluating NDCG@1..{max_k} per system")
        keep = {k: v for k, v in compare_settings.items()
                if k not in ("baseline", "correction", "permutations", "seed", "bootstrap", "resamples")}
        cutoffs = [f"ndcg@{k}" for k in range(1, max_k + 1)]
        if is_diversity_list(metrics):  # judgments with intents: NDCG@k of the ad hoc judgments
            keep, _ = split_settings(keep)
            columns = {k: keep[k] for k in ("query_id", "doc_id", "rel") if keep.get(k) is not None}
            with ad_hoc_judgments(judgments, con=keep.get("con"), judgments_format=keep.pop("judgments_format", None),
                                  **columns) as judged:
                curve = evaluate_systems(runs, judged, cutoffs, **keep)
        else:
            curve = evaluate_systems(runs, judgments, cutoffs, **keep)
    announce("drawing the plots")
    page = render_html(comparison, curve=curve, time=time, title=title)
    if file is not None:
        with open(file, "w", encoding="utf-8") as out:
            out.write(page)
    return page
