"""The running explorer in a real headless Chromium (Debian's, via Playwright): the plate follows the ΔE slider,
and a share link opens its plate."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

import app as explorer_app
from plates.ui import explorer as ex

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="module")
def url():
    demo = explorer_app.build_app(ex.Policy())
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options())
    yield demo.local_url
    demo.close()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def plate_src(page) -> str:
    return page.locator("#view-plate img").first.get_attribute("src") or ""


def wait_for_plate(page, other_than: str = "") -> str:
    page.wait_for_function(
        "old => { const i = document.querySelector('#view-plate img'); return i && i.src && i.src !== old; }",
        arg=other_than, timeout=60_000)
    return plate_src(page)


def test_moving_the_delta_e_slider_changes_the_plate(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    before = wait_for_plate(page)
    stats_before = page.locator("#plate-stats").inner_text()
    before_bytes = page.request.get(before).body()

    slider = page.locator("#delta-e input[type=range]")
    slider.focus()
    for _ in range(12):  # 12 steps of 0.5: ΔE2000 6
        page.keyboard.press("ArrowRight")
    after = wait_for_plate(page, before)
    page.wait_for_function("old => document.querySelector('#plate-stats')?.innerText !== old", arg=stats_before)
    after_bytes = page.request.get(after).body()
    assert after_bytes != before_bytes
    assert "(asked" in page.locator("#plate-stats").inner_text()
    link = page.locator("#share textarea, #share input").first.input_value()
    assert link.startswith(url.rstrip("/") + "/?spec=")  # the full address of this page, with the plate's code
    page.screenshot(path=str(tmp_path / "explorer.png"), full_page=True)
    assert (tmp_path / "explorer.png").stat().st_size > 10_000
    page.close()


def test_a_share_link_opens_its_plate(url, browser):
    spec = ex.default_spec().replace(text="58", delta_e=7.5, seed=4, palette="huemanity-02")
    page = browser.new_page()
    page.goto(url.rstrip("/") + "/" + ex.share_query(spec))
    page.wait_for_function("() => (document.querySelector('#plate-stats')?.innerText || '').includes('asked 7.50')",
                           timeout=60_000)
    stats = page.locator("#plate-stats").inner_text()
    assert stats.strip() == ex.stats_text(ex.render(spec))
    page.close()


def test_the_default_model_answers_from_the_model_tab(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    wait_for_plate(page)
    page.get_by_role("tab", name="Model").click()
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function("() => (document.querySelector('#verdict')?.innerText || '').includes('Parsed answer')",
                           timeout=60_000)
    assert "correct" in page.locator("#verdict").inner_text()
    page.screenshot(path=str(tmp_path / "model.png"), full_page=True)
    page.close()
