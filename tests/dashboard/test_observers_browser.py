"""The Observers page of the real dashboard in a real browser: `plates dashboard PATH` in a subprocess
(`tests.dashboard.test_app_browser.serve`), opened with Debian's headless Chromium; the ellipse chart and the
sensitivity map must be drawn from an ellipses.parquet summary in the folder, and the κ matrix of two observers
that answered the same trials. Screenshots land in the test's tmp_path (their paths are printed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plates.runs.ellipse_summary import write_summary
from tests.dashboard.test_app_browser import CHROMIUM, chromium_page, serve
from tests.dashboard.test_observer_queries import ELLIPSE
from tests.support.dashboard_rows import outcomes, write_part

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")]


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "results"
    specs = [f'{{"seed": {i}}}' for i in range(10)]
    write_part(root / "a" / "part-000.parquet", outcomes("model-a", 7, 10, spec_json=specs, family="ishihara",
                                                        run_id="run-a"))
    write_part(root / "b" / "part-000.parquet", outcomes("model-b", 5, 10, spec_json=specs, family="ishihara",
                                                        run_id="run-b"))
    (root / "e").mkdir()
    write_summary([ELLIPSE, dict(ELLIPSE, centre="0.33,0.35", centre_x=0.33, centre_y=0.35, theta_deg=110.0,
                                 area_ratio=0.7)], root / "e" / "ellipses.parquet")
    return root


def test_the_observers_page_draws_ellipses_and_kappa(folder, tmp_path):
    with serve(folder) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_role("link", name="Observers (ellipses, κ)").click()
        page.wait_for_selector("text=Discrimination ellipses", timeout=60_000)
        # two plotly charts (the xy diagram and the sensitivity map), each with its traces drawn
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=60_000)
        page.wait_for_function(
            "[...document.querySelectorAll('.js-plotly-plot')].every(p => p.querySelectorAll("
            "'.scatterlayer .trace path.js-line, .scatterlayer .trace .point').length > 0)", timeout=60_000)
        chart = page.locator(".js-plotly-plot").first
        # the x axis keeps its own range (0-0.8): the diagram's square aspect narrows the plot, not the range
        assert chart.locator(".xtick text").last.text_content() in ("0.8", "0.7")
        assert chart.locator(".xtitle").text_content() == "x" and chart.locator(".ytitle").text_content() == "y"
        assert page.locator("text=MacAdam").count() >= 1
        shot = tmp_path / "dashboard-observers-ellipses.png"
        page.screenshot(path=str(shot), full_page=True)
        print("screenshot:", shot)
        assert shot.stat().st_size > 20_000
        page.get_by_text("Error consistency", exact=True).click()
        page.wait_for_selector("text=Error consistency (κ)", timeout=60_000)
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .heatmaplayer image, .js-plotly-plot .hm image')"
            ".length >= 1", timeout=60_000)
        page.wait_for_function(  # the cells' κ texts are drawn: 0.60 off the diagonal
            "[...document.querySelectorAll('.js-plotly-plot text')].some(t => t.textContent === '0.60')",
            timeout=30_000)
        page.wait_for_function(  # the rerun is over: the last section's stale elements are gone
            "!document.querySelector('[data-testid=stStatusWidget]')", timeout=60_000)
        shot = tmp_path / "dashboard-observers-kappa.png"
        page.screenshot(path=str(shot), full_page=True)
        print("screenshot:", shot)


def test_a_persons_ellipse_is_drawn_with_their_colour_vision_in_the_legend(folder, tmp_path):
    from tests.dashboard.test_observer_queries import people_results

    session = people_results(folder)
    with serve(folder) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_role("link", name="Observers (ellipses, κ)").click()
        page.wait_for_selector("text=Discrimination ellipses", timeout=60_000)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=60_000)
        legend = page.locator(".js-plotly-plot").first.locator(".legendtext")
        page.wait_for_function(
            "[...document.querySelectorAll('.js-plotly-plot .legendtext')].some(t => t.textContent.includes("
            "'self-reported: deutan'))", timeout=60_000)
        assert any(session.model in t for t in legend.all_text_contents())
        shot = tmp_path / "dashboard-observers-person.png"
        page.screenshot(path=str(shot), full_page=True)
        print("screenshot:", shot)
        page.get_by_text("Error consistency", exact=True).click()
        page.wait_for_selector("text=Error consistency (κ)", timeout=60_000)
        # the κ matrix's axis labels are shortened on the page (`plates.charts.layout.short_label`): the whole
        # label, colour vision included, is in the chart's data and shows on hover
        page.wait_for_function(
            "[...document.querySelectorAll('.js-plotly-plot')].some(p => JSON.stringify(p.data || [])"
            ".includes('self-reported: protan'))", timeout=60_000)
        shot = tmp_path / "dashboard-observers-person-kappa.png"
        page.screenshot(path=str(shot), full_page=True)
        print("screenshot:", shot)
