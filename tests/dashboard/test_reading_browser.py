"""The figure of how replies were read, in a real browser: `plates dashboard` in a subprocess, opened by
Playwright with Debian's headless Chromium (tests/dashboard/test_app_browser.py's server and page); on the
Overview and on the Failure modes page, the stacked shares and the accuracy written above each bar are drawn, and a
screenshot of each figure lands in the test's tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboard.test_app_browser import CHROMIUM, chromium_page, serve
from tests.support.dashboard_rows import concat, outcomes, rows, write_part

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_unread_replies_are_a_figure_on_the_overview_and_the_failure_modes_page(tmp_path):
    results = tmp_path / "results"
    status = ["ambiguous"] * 3 + ["unparsed"] * 2 + ["refusal"]
    unread = rows(6, model="model-b", parse_status=status, parsed=None, correct=False, reply="A or B")
    write_part(results / "run-1" / "part-0.parquet",
               concat(outcomes("model-a", 7, 10), outcomes("model-b", 2, 4), unread))
    with serve(results) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("text=How the replies were read", timeout=60_000)
        # plotly drew the five stacked readings of both models, and the accuracy above each bar
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .barlayer .point').length >= 5",
                               timeout=30_000)
        page.wait_for_selector("text=accuracy 20%", timeout=30_000)  # model-b: 2 of 10 replies correct
        page.wait_for_selector("text=of read 50%", timeout=30_000)  # ... and 2 of the 4 it was read on
        chart = page.locator(".js-plotly-plot").last  # under the page's own chart
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(tmp_path / "reading-overview.png"))
        page.get_by_role("link", name="Failure modes").click()
        page.wait_for_selector("text=Failure modes among wrong answers", timeout=30_000)
        page.wait_for_selector("text=How the replies were read", timeout=30_000)
        page.wait_for_selector("text=accuracy 70%", timeout=30_000)  # model-a: 7 of 10, all read
        shot = tmp_path / "reading-failure-modes.png"
        chart = page.locator(".js-plotly-plot").last
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
