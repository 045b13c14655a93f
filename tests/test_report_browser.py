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
