"""The HTML report as a reader sees it: opened in a real browser (headless Chromium from the OS packages, driven
by Playwright), with no console error, every section present and every image decoded. Marked `engine`: it needs
the browser, which `.ci/run` installs; a missing browser fails the test, it is never skipped."""

from __future__ import annotations

import shutil

import pytest

import sqlndcg
from sqlndcg.verbs.report import report
from test_compare import stacked, synthetic

pytestmark = pytest.mark.engine

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _browser_path() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("no Chromium on PATH: install the OS package (apt-get install chromium), as .ci/run does")


def test_the_report_renders_in_a_browser_without_errors(tmp_path):
    from playwright.sync_api import sync_playwright

    runs, qrels = synthetic(queries=8, systems=("bm25", "rerank"), days=["2026-11-01", "2026-11-02"], seed=5)
    out = tmp_path / "report.html"
    report(stacked(runs), qrels, ["ndcg@5", "ap"], baseline="bm25", group_by="ds", max_k=5, file=out,
           permutations=200, resamples=200)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_browser_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            problems = []
            page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
                    else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
            page.goto(out.as_uri())
            headings = page.evaluate("[...document.querySelectorAll('h2, h3')].map(h => h.textContent)")
            images = page.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert problems == []
    assert headings == ["Summary", "Comparison with the baseline", "Plots", "NDCG@k per system",
                        "Per-query differences against the baseline", "The metrics over ds", "What went in", "SQL"]
    assert len(images) == 3 and all(complete and w > 300 and h > 200 for complete, w, h in images), images
    assert shot.stat().st_size > 50_000  # a full page with three plots, not a blank one


def test_the_example_report_renders_too(tmp_path):
    """The README's example (one run file, systems in its tag column) as a page: two plots, no time axis."""
    from playwright.sync_api import sync_playwright

    out = tmp_path / "example.html"
    report(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], system="tag", baseline="bm25", file=out,
           permutations=200, resamples=200)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_browser_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(out.as_uri())
            images = page.evaluate("[...document.images].map(i => i.naturalWidth)")
        finally:
            browser.close()
    assert errors == [] and len(images) == 2 and min(images) > 300


#: The smallest text a reader is asked to read on the page, in CSS pixels (8 pt drawn at 110 dpi is 12.2 px).
READABLE_PX = 11


def _smallest_text_pt(fig) -> float:
    """The smallest font size (points) of any text a figure shows: titles, labels, ticks, legends."""
    from matplotlib.text import Text

    fig.canvas.draw()
    return min(t.get_fontsize() for t in fig.findobj(Text)
               if t.get_visible() and t.get_text().strip() and (t.axes is None or t.axes.get_visible()))


def test_a_wide_report_reads_at_1280_and_1920_px(tmp_path, monkeypatch):
    """Several systems (one with a long name), five metrics, three days: the comparison table has many rows and
    columns. At 1280 and 1920 px wide the page does not scroll sideways, every table fits its box (the p-values
    on screen, not behind a scroll bar), and no plot is shrunk so far that its smallest text is under 11 px.
    (The table was 2,177 px wide in a 1,152 px box; the per-query plot's 7 pt ticks showed at 5 px.)"""
    from playwright.sync_api import sync_playwright

    import sqlndcg.verbs.report as report_module

    figures = []  # (smallest text in points, figure width in inches), in page order
    draw = report_module._png
    monkeypatch.setattr(report_module, "_png", lambda fig: figures.append(
        (_smallest_text_pt(fig), fig.get_figwidth())) or draw(fig))
    runs, qrels = synthetic(queries=12, systems=("bm25", "rerank_large_model", "hybrid"),
                            days=["2026-11-01", "2026-11-02", "2026-11-03"], seed=5)
    out = tmp_path / "wide.html"
    report(stacked(runs), qrels, ["ndcg@5", "ndcg@10", "ap", "rr@10", "p@5"], baseline="bm25", group_by="ds",
           file=out, permutations=200, resamples=200)
    assert len(figures) == 3
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_browser_path(), args=CHROMIUM_ARGS)
        try:
            seen = {}
            for width in (1280, 1920):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(out.as_uri())
                seen[width] = page.evaluate("""() => {
                    const view = document.documentElement.clientWidth;
                    const boxes = [...document.querySelectorAll('table')].map(t => t.parentElement);
                    const p = [...document.querySelectorAll('th')].filter(h => h.textContent.startsWith('p ('));
                    return {page: [document.documentElement.scrollWidth, view],
                            tables: boxes.map(b => [b.scrollWidth, b.clientWidth]),
                            p_headers: p.map(h => [h.textContent, Math.round(h.getBoundingClientRect().right), view]),
                            images: [...document.images].map(i => i.clientWidth)};
                }""")
                page.close()
        finally:
            browser.close()
    for width, got in seen.items():
        assert got["page"][0] <= got["page"][1], (width, got["page"])  # no sideways scroll of the page
        assert len(got["tables"]) == 2 and all(scroll <= client for scroll, client in got["tables"]), (width, got)
        assert len(got["p_headers"]) == 4 and all(right <= view for _, right, view in got["p_headers"]), (width, got)
        for (points, inches), shown_px in zip(figures, got["images"]):
            smallest_px = points / 72 * shown_px / inches  # the figure's inches as the page shows them
            assert smallest_px >= READABLE_PX, (width, points, inches, shown_px, smallest_px)
