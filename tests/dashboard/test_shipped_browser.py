"""The dashboard's first start, in a real browser: `plates dashboard results` on the results the checkout ships
(`scripts/make_shipped_results.sh`: the bundled reader's runs and the pixel-reading reference observer), every
page of the navigation opened in Debian's headless Chromium. Each page must draw a chart or a table of numbers,
not only a "run this to fill it" message; a figure exported as SVG must parse as XML and hold the traces drawn.
Screenshots of every page land in the test's tmp_path (look at them)."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from plates.dashboard.app import PAGES
from plates.models.reference import MODEL
from tests.dashboard.test_app_browser import CHROMIUM, chromium_page, serve
from tests.support import ROOT

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]

SHIPPED = ROOT / "results"
#: JavaScript: the page's figures that draw data (plotly's graph divs with traces and no "empty" message) and
#: its data tables (Streamlit's dataframes), counted once both have settled.
DRAWN = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  const full = plots.filter(p => p.data && p.data.length > 0 && !(p.layout && p.layout.meta && p.layout.meta.empty));
  const tables = document.querySelectorAll('[data-testid="stDataFrame"], [data-testid="stTable"]');
  return {plots: plots.length, drawn: full.length, tables: tables.length};
}"""


def wait_for_page(page, title: str, timeout_s: float = 240.0) -> dict:
    """Open the page ``title`` from the navigation and wait until it has drawn a figure with data or a table
    and no spinner is left (Streamlit computes a page in steps; plotly draws a moment after); what it drew."""
    page.get_by_role("link", name=title, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{title.split(' (')[0]}')", timeout=120_000)
    deadline = time.monotonic() + timeout_s
    while True:
        page.wait_for_timeout(1000)
        drawn = page.evaluate(DRAWN)
        busy = page.locator('[data-testid="stSpinner"]').count() > 0
        if (drawn["drawn"] + drawn["tables"] > 0 and not busy) or time.monotonic() > deadline:
            page.wait_for_timeout(1500)  # the last traces of a page with several charts
            return page.evaluate(DRAWN)


def test_every_page_draws_on_the_shipped_results_and_a_figure_exports_as_svg(tmp_path, monkeypatch):
    assert any(SHIPPED.joinpath("runs").rglob("*.parquet")), "no shipped results: run scripts/make_shipped_results.sh"
    monkeypatch.setenv("BROWSER_PATH", CHROMIUM)  # the figure export's Chromium (plates.charts.export)
    seen = {}
    with serve(SHIPPED) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("text=Accuracy by model and condition", timeout=120_000)
        for _, title, _, _ in PAGES:
            drawn = wait_for_page(page, title)
            slug = "".join(c if c.isalnum() else "-" for c in title.lower())
            page.screenshot(path=str(tmp_path / f"page-{slug}.png"), full_page=True)
            seen[title] = drawn
            assert drawn["drawn"] + drawn["tables"] > 0, f"{title}: nothing drawn ({drawn})"
            if drawn["plots"]:
                assert drawn["drawn"] > 0, f"{title}: only empty figures ({drawn})"
        # the reference observer is named for what it is wherever its rows are drawn
        page.get_by_role("link", name="Illusions", exact=True).click()
        page.wait_for_selector(f"text={MODEL}", timeout=120_000)

        page.get_by_role("link", name="Colour sets", exact=True).click()
        page.wait_for_selector("h1:has-text('Colour sets')", timeout=120_000)
        with page.expect_download(timeout=120_000) as download:
            page.get_by_role("button", name="Figure as SVG").click()
        svg = tmp_path / "colour-sets.svg"
        download.value.save_as(svg)
    root = ET.parse(svg).getroot()  # an SVG that opens: well-formed XML
    assert root.tag.endswith("svg")
    bars = [el for el in root.iter() if el.get("class", "").startswith("point")]
    assert len(bars) >= 5, "the exported figure lost its bars"
    legend = [el.text for el in root.iter() if el.get("class", "") == "legendtext"]
    assert "baseline-cbe" in legend, f"the exported legend does not name the run by its name: {legend}"
    assert not [t for t in legend if re.search(r"[0-9a-f]{12}", t or "")], f"a hash in the legend: {legend}"
    assert set(seen) == {t for _, t, _, _ in PAGES}


def test_chain_of_thought_pairs_runs_made_apart(tmp_path, monkeypatch):
    """A prompt in one run and its chain-of-thought twin in another (two quick `plates run`s of the same model on
    the same items) are paired on the Chain of thought page, which draws them and names both runs."""
    import subprocess
    import sys

    import duckdb

    results = tmp_path / "results"
    for name, prompt in (("plain", "colorbench-colour-recognition"), ("cot", "colorbench-colour-recognition-cot")):
        done = subprocess.run([sys.executable, "-m", "plates.cli", "run", "--dataset", "colorbench-colour-recognition",
                               "--limit", "12", "--prompt", prompt, "--backend", "reference-pixels", "--out",
                               str(results / "runs" / name), "--no-progress"], capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
    runs = [r for (r,) in duckdb.sql(f"SELECT DISTINCT run_id FROM '{results}/runs/*/*.parquet'").fetchall()]
    assert len(runs) == 2
    with serve(results) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("text=Accuracy by model and condition", timeout=120_000)
        drawn = wait_for_page(page, "Chain of thought")
        page.screenshot(path=str(tmp_path / "cot-two-runs.png"), full_page=True)
        assert drawn["drawn"] > 0, drawn
        notes = page.get_by_text("Notes (", exact=False).first  # the page's one notes expander, folded
        notes.click()
        page.wait_for_selector("text=paired with", timeout=30_000)
        page.screenshot(path=str(tmp_path / "cot-notes-open.png"), full_page=True)
        text = page.inner_text("body")
    assert "paired with" in text and all(run in text for run in runs), text[-2000:]
