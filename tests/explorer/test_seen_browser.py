"""The Plate tab's "as the model sees it" in a real headless Chromium: choosing a family shows the view, the crop
outlined on the plate and the numbers; screenshots under the test's tmp_path."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from tests.support.browser import wait_for_plate  # noqa: E402


def _choose(page, family: str) -> None:
    box = page.locator("#seen-family input").first
    box.click()
    box.fill(family)
    page.locator(f"ul[role=listbox] li[aria-label='{family}'], ul[role=listbox] li:text-is('{family}')").first.click()


def test_choosing_a_family_shows_the_plate_as_it_sees_it(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.goto(url)
    wait_for_plate(page)
    page.get_by_text("As the model sees it").first.click()
    _choose(page, "idefics3")
    page.wait_for_function("() => (document.querySelector('#seen-summary')?.innerText || '').includes('idefics3')",
                           timeout=60_000)
    summary = page.locator("#seen-summary").inner_text()
    assert "1456 × 1456 px" in summary and "17 image(s)" in summary and "after the view" in summary
    page.wait_for_function("() => document.querySelector('#seen-view img')?.naturalWidth > 1000", timeout=60_000)
    page.locator("#seen-summary").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "seen-idefics3.png"), full_page=True)
    _choose(page, "llava-1.5")
    page.wait_for_function("() => (document.querySelector('#seen-summary')?.innerText || '').includes('llava-1.5')",
                           timeout=60_000)
    assert "336 × 336 px" in page.locator("#seen-summary").inner_text()
    page.wait_for_function("() => document.querySelector('#seen-view img')?.naturalWidth === 336", timeout=60_000)
    page.screenshot(path=str(tmp_path / "seen-llava.png"), full_page=True)
    assert (tmp_path / "seen-llava.png").stat().st_size > 10_000
    page.close()
