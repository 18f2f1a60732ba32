"""Figures exported for a paper (plates.charts.export): SVG and PDF through plotly's static export driven by the
installed Chromium (BROWSER_PATH), legends with model names and not cut off; the SVG opens in Chromium."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import plotly.graph_objects as go
import pytest

from plates.charts import export
from plates.charts.layout import legend_rows

pytest.importorskip("kaleido")
CHROMIUM = "/usr/bin/chromium"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian's Chromium")]


@pytest.fixture(autouse=True)
def browser_path(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", CHROMIUM)


def two_models() -> go.Figure:
    fig = go.Figure()
    for model, y in (("Qwen2.5-VL-7B-Instruct", [0.61, 0.4]), ("gpt-4o-mini-2024-07-18", [0.82, 0.7])):
        fig.add_trace(go.Bar(name=model, x=["cbe-open", "colorbench-mc"], y=y))
    return fig


def test_svg_and_pdf_at_publication_size_with_the_whole_legend(tmp_path):
    svg = export.figure_bytes(two_models(), "svg")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("width") == str(export.WIDTH_PX)
    text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert "Qwen2.5-VL-7B-Instruct" in text and "gpt-4o-mini-2024-07-18" in text  # names, not hashes
    assert export.figure_bytes(two_models(), "pdf").startswith(b"%PDF")
    with pytest.raises(ValueError, match="allowed: svg, pdf, png"):
        export.figure_bytes(two_models(), "jpeg")


@pytest.mark.browser
def test_an_exported_svg_opens_in_chromium(tmp_path):
    playwright_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "figure.svg"
    path.write_bytes(export.figure_bytes(two_models(), "svg"))
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        page.goto(path.as_uri())
        box = page.locator("svg").first.bounding_box()
        assert box and box["width"] == export.WIDTH_PX
        assert page.get_by_text("gpt-4o-mini-2024-07-18").count() >= 1
        page.screenshot(path=str(tmp_path / "svg.png"))
        browser.close()


def many_series_with_a_page_note() -> go.Figure:
    """A figure as a dashboard page draws it: a condition chosen above and named in a note under the title,
    and 14 long series names (a legend several rows deep)."""
    from plates.charts.common import PAGE_NOTE_PREFIX

    fig = go.Figure()
    for i in range(14):
        fig.add_trace(go.Scatter(name=f"model-number-{i:02d}-with-a-long-name · run-{i}", x=[1, 2], y=[i, i + 1]))
    fig.update_layout(title="Accuracy by size — 512 px<br><sup>" + PAGE_NOTE_PREFIX + "256 px, 1024 px</sup>",
                      height=500, xaxis_title="size (px)", yaxis_title="accuracy")
    return fig


def test_an_export_keeps_title_axes_and_every_legend_entry_and_drops_the_pages_note():
    fig = many_series_with_a_page_note()
    page = export.publication_figure(fig)
    assert page.layout.title.text == "Accuracy by size — 512 px"  # the note for the page is gone
    rows = legend_rows(page, export.WIDTH_PX)
    assert rows >= 5 and page.layout.margin.b >= 100 + 18 * rows  # the foot holds every legend row
    plot = page.layout.height - page.layout.margin.t - page.layout.margin.b
    assert plot >= export.MIN_PLOT_PX
    root = ET.fromstring(export.figure_bytes(fig, "svg"))
    text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert "choose above" not in text and "Accuracy by size" in text and "size (px)" in text
    for i in range(14):  # whole legend: every entry drawn
        assert f"model-number-{i:02d}-with-a-long-name" in text
    assert "choose above" in fig.layout.title.text  # the page's own figure is not changed
