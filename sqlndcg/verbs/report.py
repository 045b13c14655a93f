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
from ..stats.intervals import bootstrap_summary
from ..present.results import Table

_CSS = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2em auto; max-width: 72em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
.wide { overflow-x: auto; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; } td.text, th.text { text-align: left; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
.note { color: #555; font-size: 0.9em; } code { background: #f4f4f4; padding: 0 0.2em; }
pre { white-space: pre-wrap; font-size: 0.85em; }
"""


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e-3 and value != 0 else f"{value:.4f}"
    return str(value)


def html_table(table: Table, columns: Sequence[str] | None = None, headers: Sequence[str] | None = None) -> str:
    """A Table as an HTML table (numbers right-aligned, text left), every value escaped."""
    columns = list(columns or table.columns)
    headers = list(headers or columns)
    rows = table.to_dicts()
    text_columns = {c for c in columns if any(isinstance(r[c], str) for r in rows)}
    out = ['<div class="wide"><table>', "<tr>" + "".join(
        f'<th class="{"text" if c in text_columns else "num"}">{html.escape(h)}</th>' for c, h in zip(columns, headers))
        + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(
            f'<td class="{"text" if c in text_columns else "num"}">{html.escape(_cell(r[c]))}</td>' for c in columns)
            + "</tr>")
    out.append("</table></div>")
    return "\n".join(out)


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _img(fig, alt: str) -> str:
    return f'<img src="{_png(fig)}" alt="{html.escape(alt)}">'


def render_html(comparison: Comparison, *, curve=None, time: str | None = None, title: str | None = None) -> str:
    """The report of a comparison as one HTML document. ``curve``: an evaluation with ``ndcg@1..K`` grouped by
    system (:func:`sqlndcg.compare.evaluate_systems`), plotted against k; ``time``: a group column of the
    comparison to plot the metrics over (default: the first group_by column, if any)."""
    s = comparison.settings
    system, strata = s["system"], list(s["strata"])
    title = title or f"sqlndcg: systems compared with {s['baseline']}"
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>",
             f"<style>{_CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    evaluation = {k: v for k, v in s.items() if k not in ("metrics", "columns")}
    parts.append('<p class="note">Settings: ' + html.escape(", ".join(f"{k}={v}" for k, v in evaluation.items()))
                 + "</p>")

    summary = bootstrap_summary(comparison.result, method=s["bootstrap"], resamples=s["resamples"], seed=s["seed"])
    parts.append("<h2>Summary</h2>")
    parts.append(f'<p class="note">Mean of each metric over the scored queries, with two 95% intervals of the mean: '
                 f"Student's t (symmetric; can leave the metric's range) and a {html.escape(s['bootstrap'])} "
                 f"bootstrap ({s['resamples']} resamples, seed {s['seed']}; stays within the observed values).</p>")
    parts.append(html_table(summary, list(summary.columns[:-1]),
                            [*summary.columns[:-3], f"bootstrap_low ({s['bootstrap']})",
                             f"bootstrap_high ({s['bootstrap']})"]))

    parts.append("<h2>Comparison with the baseline</h2>")
    adjusted = s["correction"]
    parts.append(
        f'<p class="note">Paired by query against <code>{html.escape(str(s["baseline"]))}</code> '
        f"(queries={html.escape(repr(s['queries']))}). difference = mean of (system &minus; baseline) per query; "
        f"t interval and bootstrap interval of that mean; p (t): paired t test; p (perm): paired randomization test, "
        f"{s['permutations']} random sign flips from seed {s['seed']} (exact when 2^pairs &le; that); both adjusted "
        f"by {html.escape(adjusted)} over the {len(comparison.table)} comparisons. W/T/L: queries where the system "
        "is above / equal to / below the baseline. d_z: the effect size, the mean difference over the standard "
        "deviation of the per-query differences. See docs/compare.md.</p>")
    columns = [*strata, system, "metric", "pairs", "baseline_mean", "mean", "difference", "t_low", "t_high",
               "bootstrap_low", "bootstrap_high", "relative_change", "effect_size", "t_p", "t_p_adjusted",
               "randomization_p", "randomization_p_adjusted", "wins", "ties", "losses", "only_baseline", "only_system",
               "missing_from_run"]
    headers = [*strata, system, "metric", "pairs", f"mean ({s['baseline']})", "mean", "difference", "t low", "t high",
               "bootstrap low", "bootstrap high", "relative change", "d_z", "p (t)", f"p (t, {adjusted})", "p (perm)",
               f"p (perm, {adjusted})", "wins", "ties", "losses", "baseline only", "system only", "missing from run"]
    parts.append(html_table(comparison.table, columns, headers))
    parts.append("<pre>" + html.escape(comparison.text().split("\n", 1)[0]) + "</pre>")

    parts.append("<h2>Plots</h2>")
    if curve is not None:
        parts.append("<h3>NDCG@k per system</h3>")
        parts.append(_img(plots.plot_cutoffs(curve, system=system), "NDCG@k against k per system"))
    parts.append("<h3>Per-query differences against the baseline</h3>")
    parts.append(_img(plots.plot_differences(comparison), "per-query differences against the baseline"))
    over_time = plots.time_column(comparison.result, time) if strata or time else None
    if over_time is not None:
        parts.append(f"<h3>The metrics over {html.escape(over_time)}</h3>")
        parts.append(_img(plots.plot_over_time(comparison.result, time=over_time, system=system),
                          f"the metrics over {over_time}"))

    parts.append("<h2>What went in</h2>")
    parts.append("<pre>" + html.escape(comparison.result.account_text()) + "</pre>")
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
        curve = evaluate_systems(runs, judgments, [f"ndcg@{k}" for k in range(1, max_k + 1)], **keep)
    announce("drawing the plots")
    page = render_html(comparison, curve=curve, time=time, title=title)
    if file is not None:
        with open(file, "w", encoding="utf-8") as out:
            out.write(page)
    return page
