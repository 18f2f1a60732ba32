"""The explorer's Ellipse tab in a real headless Chromium (Debian's, via Playwright): the default model (the
bundled reader) measured along 5 directions × 10 trials at MacAdam's centre 13; the status line, the xy chart
beside MacAdam's and the thresholds table must come back, with the display caveat on the tab. The screenshot
goes to the test's tmp_path (its path is printed)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from tests.support.browser import wait_for_plate  # noqa: E402


def test_the_ellipse_tab_measures_the_chosen_model_and_draws_it_beside_macadam(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(url)
    wait_for_plate(page)
    page.get_by_role("tab", name="Ellipse").click()
    assert page.get_by_text("Display caveat:").is_visible()
    page.get_by_role("button", name="Measure the ellipse").click()
    page.wait_for_function(
        "() => (document.querySelector('#ellipse-status')?.innerText || '').includes('at macadam-13: status')",
        timeout=300_000)
    status = page.locator("#ellipse-status").inner_text()
    assert "baseline-cnn" in status
    assert "area ratio to MacAdam × 3" in status or "(" in status  # a fit, or the reason there is none
    # the xy chart: the spectral locus, MacAdam's ellipses and this model's traces drawn by plotly
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .scatterlayer .trace').length > 3",
                           timeout=60_000)
    legend = " ".join(page.locator(".js-plotly-plot .legendtext").all_text_contents())
    assert "MacAdam 1942 × 3" in legend and "spectral locus" in legend
    shot = tmp_path / "explorer-ellipse.png"
    page.screenshot(path=str(shot), full_page=True)
    print("screenshot:", shot)
    for name in ("uv-000.0", "uv-072.0", "uv-144.0", "uv-216.0", "uv-288.0"):  # one threshold per direction
        assert page.get_by_text(name, exact=True).count() >= 1
    # the x axis keeps its range (0-0.8): the diagram's square aspect narrows the plot, not the range
    assert page.locator(".js-plotly-plot .xtick text").last.text_content() == "0.8"
    page.close()
