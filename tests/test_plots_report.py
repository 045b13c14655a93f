"""Pictures and the HTML report, drawn from the example data and checked for what they show: the systems, the
cutoffs, the per-query differences (one bar per query, coloured by win/tie/loss), the days, and in the report
the summary's and the comparison's numbers with every plot embedded (nothing fetched from elsewhere)."""

from __future__ import annotations

import base64
import re
import struct
import sys

import pytest

import matplotlib  # noqa: E402,F401  (the test extra has it; missing is a failure)

import sqlndcg
from sqlndcg.present import plots
from sqlndcg.cli.compare import main as cli_main
from sqlndcg.verbs.compare import compare, evaluate_systems
from sqlndcg.errors import SettingError
from sqlndcg.verbs.report import render_html, report
from test_compare import stacked, synthetic

RUN, QRELS = sqlndcg.example("run"), sqlndcg.example("qrels")
DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def png_colors(path) -> set[tuple[int, int, int]]:
    from matplotlib.image import imread

    pixels = (imread(path)[:, :, :3] * 255).round().astype(int).reshape(-1, 3)
    return {tuple(p) for p in pixels.tolist()}


def hex_rgb(color: str) -> tuple[int, int, int]:
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


@pytest.fixture(scope="module")
def example_comparison():
    return compare(RUN, QRELS, ["ndcg@5", "rr@10"], system="tag", baseline="bm25")


@pytest.fixture(scope="module")
def daily():
    runs, qrels = synthetic(queries=8, systems=("bm25", "rerank"), days=DAYS, seed=11)
    return stacked(runs), qrels


def test_ndcg_at_k_plot_shows_every_system_at_every_cutoff(tmp_path):
    curve = evaluate_systems(RUN, QRELS, [f"ndcg@{k}" for k in range(1, 11)], system="tag")
    png, svg = tmp_path / "curve.png", tmp_path / "curve.svg"
    plots.plot_cutoffs(curve, file=png)
    plots.plot_cutoffs(curve, file=svg)
    assert png_size(png.read_bytes()) == (930, 540)  # one panel, 6.2 x 3.6 inches at 150 dpi
    colors = png_colors(png)
    assert hex_rgb("#4c72b0") in colors and hex_rgb("#dd8452") in colors  # a line per system
    text = svg.read_text()
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", text)
    assert {"bm25", "rerank", "cutoff k", "mean ndcg@k", "tag"} <= set(labels)
    assert {str(k) for k in range(1, 11)} <= set(labels)
    assert "ndcg@k for k = 1..10, one line per tag (bands: 95% t interval of the mean)" in labels


def _lines(fig) -> list[list[str]]:
    """The labels of the lines of each visible panel."""
    return [[line.get_label() for line in ax.get_lines()] for ax in fig.axes if ax.get_visible()]


def _legend(fig) -> list[str]:
    (legend,) = fig.legends
    return [t.get_text() for t in legend.get_texts()]


def test_ndcg_at_k_plot_draws_one_line_per_system_and_a_panel_per_day(daily):
    """Grouped by system and day, each day is a panel of its own with one line per system in the same colours; the
    legend names the systems once, outside the panels."""
    runs, qrels = daily
    curve = evaluate_systems(runs, qrels, [f"ndcg@{k}" for k in range(1, 6)], group_by=["ds"])
    fig = plots.plot_cutoffs(curve)
    assert _lines(fig) == [["bm25", "rerank"]] * len(DAYS)
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == [f"ds={d}" for d in DAYS]
    assert _legend(fig) == ["bm25", "rerank"] and fig.legends[0].get_title().get_text() == "system"
    colors = {(ax.get_title(), line.get_label()): line.get_color() for ax in fig.axes for line in ax.get_lines()}
    assert {c for (_, label), c in colors.items() if label == "bm25"} == {"#4c72b0"}
    one_day = plots.plot_cutoffs(curve, where={"ds": DAYS[1]})
    assert _lines(one_day) == [["bm25", "rerank"]]
    with pytest.raises(SettingError, match=r"where= names \['day'\]"):
        plots.plot_cutoffs(curve, where={"day": DAYS[1]})
    two = sqlndcg.evaluate(runs, qrels, ["ndcg@1", "ndcg@2"], group_by=["ds", "system"])
    with pytest.raises(SettingError, match="name the column drawn as one line per value with system="):
        plots.plot_cutoffs(_regrouped(two, ["ds", "segment"]))


def _regrouped(result, groups):
    """A result whose summary is grouped by columns none of which is called system (renamed from system)."""
    from sqlndcg.present.results import Result, Table

    summary = result.summary.to_arrow()
    summary = summary.rename_columns(["segment" if c == "system" else c for c in summary.column_names])
    settings = {**result.settings, "group_by": groups}
    return Result(result.per_query, Table.from_arrow(summary, settings), settings, result.sql, result.account)


def test_difference_plot_has_one_bar_per_query_coloured_by_outcome(tmp_path, example_comparison):
    svg = tmp_path / "diff.svg"
    example_comparison.plot(svg)
    text = svg.read_text()
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", text)
    assert "rerank - bm25: ndcg@5" in labels and "W/T/L 10/2/0, p (perm, holm) = 0.00391" in labels
    assert "rerank - bm25: rr@10" in labels and "W/T/L 8/4/0, p (perm, holm) = 0.00781" in labels
    assert "mean +0.2996" in labels and "95% t interval" in labels
    # 10 + 8 winning bars, 2 + 4 tied (height 0), no losing ones; one legend patch of each colour besides
    assert len(re.findall(r"fill: #2a7f3f", text)) == 18
    assert len(re.findall(r"fill: #9a9a9a", text)) == 6
    assert "fill: #b23a3a" not in text
    png = tmp_path / "diff.png"
    plots.plot_differences(example_comparison, png, metrics="ndcg@5")
    width, height = png_size(png.read_bytes())
    assert width > 600 and height > 400
    assert hex_rgb("#2a7f3f") in png_colors(png)


def test_over_time_plot_shows_each_day_and_system(tmp_path, daily):
    runs, qrels = daily
    c = compare(runs, qrels, ["ndcg@5", "ap"], baseline="bm25", group_by="ds", permutations=200, resamples=200)
    svg = tmp_path / "time.svg"
    plots.plot_over_time(c.result, "ap", svg)
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg.read_text())
    assert set(DAYS) <= set(labels) and {"bm25", "rerank", "ds", "mean ap"} <= set(labels)
    png = tmp_path / "time.png"
    res = sqlndcg.evaluate(runs, qrels, ["ndcg@5", "map"], group_by=["ds", "system"])
    fig = plots.plot_over_time(res, file=png)  # every metric, one panel each; ds holds ISO days, so it is the axis
    assert png_size(png.read_bytes())[0] >= 960
    assert _lines(fig) == [["bm25", "rerank"], ["bm25", "rerank"]]
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["ndcg@5", "map"]  # named as asked
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == DAYS
    # metric names as evaluate() takes them: map is the column ap
    assert _lines(plots.plot_over_time(res, "map")) == [["bm25", "rerank"]]
    with pytest.raises(SettingError, match="time='ds' is not a group column"):
        plots.plot_over_time(sqlndcg.evaluate(RUN, QRELS, ["ndcg@5"], group_by="tag"), time="ds")
    with pytest.raises(SettingError, match=r"name the time column with time= .* hold no date or time values"):
        plots.plot_over_time(sqlndcg.evaluate(RUN, QRELS, ["ndcg@5"], group_by="tag"))
    with pytest.raises(SettingError, match="metric 'P@5' is not in the result"):
        plots.plot_over_time(res, "P@5")


def test_plots_refuse_unknown_formats_and_missing_metrics(tmp_path, example_comparison):
    with pytest.raises(SettingError, match="name it .png or .svg"):
        example_comparison.plot(tmp_path / "diff.jpg")
    with pytest.raises(SettingError, match="no ndcg@k metric"):
        plots.plot_cutoffs(sqlndcg.evaluate(RUN, QRELS, ["map"], group_by="tag"))
    with pytest.raises(SettingError, match=r"metrics \['p@5'\] are not in the comparison"):
        plots.plot_differences(example_comparison, metrics="p@5")


def test_without_matplotlib_the_error_names_the_extra(monkeypatch, capsys, example_comparison):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(plots.MissingExtra, match=r"pip install 'sqlndcg\[plots\]'"):
        example_comparison.plot()
    assert cli_main(["compare", "--run", RUN, "--system", "tag", "--baseline", "bm25", "--qrels", QRELS,
                     "--plot", "x.png"]) == 2
    assert "sqlndcg: error: plots need matplotlib" in capsys.readouterr().err


def _images(page: str) -> list[bytes]:
    return [base64.b64decode(b) for b in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)]


def test_report_holds_the_summary_the_comparison_and_the_plots(tmp_path, daily):
    runs, qrels = daily
    out = tmp_path / "report.html"
    page = report(runs, qrels, ["ndcg@5", "ap"], baseline="bm25", group_by="ds", max_k=5, file=out,
                  permutations=500, resamples=500, seed=3)
    assert out.read_text(encoding="utf-8") == page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # self-contained: nothing fetched
    images = _images(page)
    assert len(images) == 1 + 1 + 1  # NDCG@k, the differences, the metrics over the days
    assert all(png_size(i)[0] > 300 for i in images)
    for heading in ("Summary", "Comparison with the baseline", "Plots", "NDCG@k per system",
                    "Per-query differences against the baseline", "The metrics over ds", "What went in"):
        assert f">{heading}<" in page, heading
    c = compare(runs, qrels, ["ndcg@5", "ap"], baseline="bm25", group_by="ds", permutations=500, resamples=500,
                seed=3)
    for row in c:  # every comparison's numbers are in the table, as the text shows them
        assert f">{row['difference']:+.4f}<" in page, row
        assert f">[{row['t_low']:+.4f}, {row['t_high']:+.4f}]<" in page, row
        assert f">[{row['bootstrap_low']:+.4f}, {row['bootstrap_high']:+.4f}]<" in page, row
        assert f">{row['wins']}/{row['ties']}/{row['losses']}<" in page
    table = re.search(r"<h2>Comparison with the baseline</h2>.*?(<table>.*?</table>)", page, re.S).group(1)
    assert [f"ds={d}" for d in DAYS] == re.findall(r'<tr class="group"><th colspan="\d+" class="text">([^<]*)<', table)
    for row in c.result.summary:
        assert f">{row['ndcg@5']:.4f}<" in page
    assert "95% bootstrap interval (percentile)" in page and "Student's t" in page
    assert "judged queries" in page  # the account


def test_the_report_sql_runs_as_shown(tmp_path, daily):
    """The report's statement reads the inputs themselves (no temporary table of the call): pasted into a new
    DuckDB session it gives the comparison's pairs and differences."""
    import html as html_module

    import duckdb

    runs, qrels = daily
    runs.to_csv(tmp_path / "runs.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    page = report(str(tmp_path / "runs.csv"), str(tmp_path / "qrels.csv"), ["ndcg@5", "ap"], baseline="bm25",
                  group_by="ds", max_k=3, permutations=100, resamples=100)
    (sql,) = re.findall(r"<summary>The paired statement</summary><pre>(.*?)</pre>", page, re.S)
    cur = duckdb.connect().execute(html_module.unescape(sql))
    names = [d[0] for d in cur.description]
    got = {(r["ds"], r["metric"]): r for r in (dict(zip(names, row)) for row in cur.fetchall())}
    c = compare(str(tmp_path / "runs.csv"), str(tmp_path / "qrels.csv"), ["ndcg@5", "ap"], baseline="bm25",
                group_by="ds", permutations=100, resamples=100)
    assert len(got) == len(c.table) == 2 * len(DAYS)
    for row in c:
        shown = got[(row["ds"], row["metric"])]
        assert shown["pairs"] == row["pairs"] and shown["difference"] == pytest.approx(row["difference"], abs=1e-12)


def test_render_html_escapes_names():
    runs, qrels = synthetic(queries=4, systems=("<b>base</b>", "new & better"))
    page = render_html(compare(runs, qrels, ["ndcg@5"], baseline="<b>base</b>", permutations=50, resamples=50))
    assert "<b>base</b>" not in page and "&lt;b&gt;base&lt;/b&gt;" in page and "new &amp; better" in page


def test_cli_writes_plots_and_the_report(tmp_path, capsys, daily):
    runs, qrels = daily
    runs.to_csv(tmp_path / "runs.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    common = ["--run", str(tmp_path / "runs.csv"), "--judgments", str(tmp_path / "qrels.csv"), "--baseline", "bm25",
              "-m", "ndcg@5", "--group-by", "ds", "--permutations", "300", "--resamples", "300"]
    assert cli_main(["compare", *common, "--plot", str(tmp_path / "d.png"), "--plot-cutoffs",
                     str(tmp_path / "c.svg"), "--max-k", "4", "--plot-time", str(tmp_path / "t.png")]) == 0
    assert "Compared with baseline 'bm25'" in capsys.readouterr().out
    png_size((tmp_path / "d.png").read_bytes())
    png_size((tmp_path / "t.png").read_bytes())
    assert ">4<" in (tmp_path / "c.svg").read_text()
    assert cli_main(["report", *common, "--output", str(tmp_path / "r.html"), "--title", "Daily check"]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "<title>Daily check</title>" in page and len(_images(page)) == 3
    assert cli_main(["compare", "--run", RUN, "--system", "tag", "--baseline", "bm25", "--qrels", QRELS,
                     "--plot-time", str(tmp_path / "no.png")]) == 2
    assert "--plot-time needs results over time" in capsys.readouterr().err


def test_a_report_that_cannot_be_written_is_refused_before_the_work(tmp_path, capsys, monkeypatch):
    import sqlndcg.verbs.report as report_module
    from sqlndcg.cli import main

    def no_work(*args, **kwargs):
        raise AssertionError("the comparison ran before the output path was checked")

    monkeypatch.setattr(report_module, "compare", no_work)
    missing = tmp_path / "no such folder" / "r.html"
    with pytest.raises(sqlndcg.SettingError, match="the folder .*no such folder.* does not exist"):
        report_module.report(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], system="tag",
                             baseline="bm25", file=str(missing))
    assert main(["report", "--run", sqlndcg.example("run"), "--judgments", sqlndcg.example("qrels"), "--system", "tag",
                 "--baseline", "bm25", "-m", "ndcg@5", "-o", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such folder" in err and "does not exist" in err


def test_import_sqlndcg_plots_works_as_the_docs_write_it():
    """docs/compare.md writes ``sqlndcg.plots``: ``import sqlndcg.plots`` (a fresh interpreter, so nothing imported
    it before) gives the plotting functions the docs name, the same objects as ``sqlndcg.plots`` the attribute,
    and imports no matplotlib until a plot is drawn."""
    import subprocess

    code = ("import sys, json, sqlndcg.plots as p, sqlndcg; "
            "print(json.dumps([p is sqlndcg.plots, 'matplotlib' in sys.modules, "
            "[n for n in ('plot_cutoffs', 'plot_differences', 'plot_over_time', 'save') if callable(getattr(p, n))]]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '[true, false, ["plot_cutoffs", "plot_differences", "plot_over_time", "save"]]'
    import sqlndcg.plots

    assert sqlndcg.plots.plot_differences is plots.plot_differences
    documented = set(re.findall(r"`(plot_\w+)\(", open("docs/compare.md", encoding="utf-8").read()))
    assert documented and all(callable(getattr(sqlndcg.plots, name)) for name in documented), documented


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_frames_without_their_library_name_the_extra(monkeypatch, example_comparison, library):
    """A frame without pandas (polars) installed: one line naming the extra, not "No module named 'pandas'"."""
    engine_table = example_comparison.result.summary  # from the engine's Arrow
    python_table = sqlndcg.Table(["a"], [(1,)])  # from Python rows
    monkeypatch.setitem(sys.modules, library, None)
    for table in (engine_table, python_table):
        with pytest.raises(sqlndcg.errors.MissingDependency) as caught:
            getattr(table, f"to_{library}")()
        assert str(caught.value) == f"to_{library}() needs {library}, an optional extra: pip install 'sqlndcg[frames]'"
    if library == "pandas":
        with pytest.raises(ImportError, match=r"pip install 'sqlndcg\[frames\]'"):  # still an ImportError
            example_comparison.to_pandas()


def test_without_matplotlib_positions_plot_names_the_extra(monkeypatch):
    pos = sqlndcg.positions(RUN, QRELS, k=2, group_by="tag")
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(sqlndcg.errors.MissingDependency, match=r"pip install 'sqlndcg\[plots\]'"):
        pos.plot()


@pytest.mark.parametrize("max_k", [-1, 101, 1000, 2.5, True, "5"])
def test_report_max_k_is_bounded_before_any_work(monkeypatch, capsys, max_k):
    """max_k=-1 said "no metrics requested" and max_k=1000 ran for 13 s (3000: over 100 s): a whole number from 1
    to 100 (0: no cutoff plot), refused in one line naming the keyword (the flag on the command line) and the
    bound, before anything is read."""
    import sqlndcg.verbs.report as report_module
    from sqlndcg.cli import main

    def no_work(*args, **kwargs):
        raise AssertionError("the comparison ran before max_k was checked")

    monkeypatch.setattr(report_module, "compare", no_work)
    with pytest.raises(SettingError) as caught:
        report(RUN, QRELS, ["ndcg@5"], system="tag", baseline="bm25", max_k=max_k)
    assert str(caught.value).startswith(f"max_k must be a whole number from 1 to 100 (0: no cutoff plot), "
                                        f"got {max_k!r}: ")
    if isinstance(max_k, int) and not isinstance(max_k, bool):
        assert main(["report", "--run", RUN, "--judgments", QRELS, "--system", "tag", "--baseline", "bm25",
                     "-o", "never.html", "--max-k", str(max_k)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(
            f"sqlndcg: error: --max-k must be a whole number from 1 to 100 (0: no cutoff plot), got {max_k}: ")


def test_report_max_k_at_its_bounds(tmp_path, capsys):
    """max_k=100 (the bound) draws NDCG@1..100, 0 draws no cutoff plot; compare --plot-cutoffs refuses 0."""
    page = report(RUN, QRELS, ["ndcg@5"], system="tag", baseline="bm25", max_k=100, permutations=50, resamples=50)
    none = report(RUN, QRELS, ["ndcg@5"], system="tag", baseline="bm25", max_k=0, permutations=50, resamples=50)
    assert ">NDCG@k per system<" in page and len(_images(page)) == 2
    assert ">NDCG@k per system<" not in none and len(_images(none)) == 1
    assert cli_main(["compare", "--run", RUN, "--system", "tag", "--baseline", "bm25", "--qrels", QRELS,
                     "--plot-cutoffs", str(tmp_path / "c.png"), "--max-k", "0"]) == 2
    assert "--plot-cutoffs draws NDCG@1..--max-k: give --max-k from 1 to 100, not 0" in capsys.readouterr().err
    assert not (tmp_path / "c.png").exists()


def test_report_figures_fit_the_page_unscaled(monkeypatch, daily):
    """Every figure of a wide report (five metrics, three days) is at most plots.MAX_WIDTH inches (1,210 px at the
    report's 110 dpi, shown unscaled on a 1280 px screen) with no text under 8 pt (12 px): five metrics' panels
    wrap 3 + 2 per system instead of a 21-inch row whose 7 pt ticks the page shrank to 5 px."""
    import sqlndcg.verbs.report as report_module
    from matplotlib.text import Text

    figures = []
    draw = report_module._png
    monkeypatch.setattr(report_module, "_png", lambda fig: figures.append(fig) or draw(fig))
    runs, qrels = daily
    report(runs, qrels, ["ndcg@5", "ndcg@10", "ap", "rr@10", "p@5"], baseline="bm25", group_by="ds",
           permutations=50, resamples=50)
    assert len(figures) == 3
    for fig in figures:
        fig.canvas.draw()
        sizes = [t.get_fontsize() for t in fig.findobj(Text)
                 if t.get_visible() and t.get_text().strip() and (t.axes is None or t.axes.get_visible())]
        assert fig.get_figwidth() <= plots.MAX_WIDTH and min(sizes) >= plots.SMALL_TEXT == 8
    differences = figures[1]
    shown = [ax for ax in differences.axes if ax.get_visible()]
    assert len(shown) == 5 * len(DAYS) and differences.axes[0].get_subplotspec().get_gridspec().get_geometry() == (
        2 * len(DAYS), 3)
    four = plots.plot_differences(compare(runs, qrels, ["ndcg@5", "ndcg@10", "ap", "p@5"], baseline="bm25",
                                          group_by="ds", permutations=50, resamples=50))
    geometry = four.axes[0].get_subplotspec().get_gridspec().get_geometry()
    assert geometry == (2 * len(DAYS), 2)  # 4 metrics: 2 x 2 per day, not 3 + 1


def test_a_hundred_cutoffs_get_a_few_round_ticks():
    curve = evaluate_systems(RUN, QRELS, [f"ndcg@{k}" for k in range(1, 101)], system="tag")
    fig = plots.plot_cutoffs(curve)
    fig.canvas.draw()
    (ax,) = fig.axes
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 100]
    assert 4 <= len(ticks) <= 12 and all(float(t).is_integer() for t in ticks), ticks
    ten = plots.plot_cutoffs(evaluate_systems(RUN, QRELS, [f"ndcg@{k}" for k in range(1, 11)], system="tag"))
    assert list(ten.axes[0].get_xticks()) == list(range(1, 11))  # a tick per cutoff while they read
