"""The running explorer in a real headless Chromium (Debian's, via Playwright): the plate follows the ΔE
slider (and so do the colour swatches), deleting text re-renders, a share link opens its plate, and the Model
tab shows the plate it asks about, the right hint per backend and a sweep's replies. Screenshots are saved
under each test's temporary folder (pytest's tmp_path)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from plates.explorer import plate as ex
from plates.explorer.specs import share_link
from tests.support.browser import stats_text, wait_for_plate, wait_for_stats


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
    # the last of the slider's renders has landed (ΔE2000 6) and nothing is in progress: a settled screenshot
    page.wait_for_function("""() => (document.querySelector('#plate-stats [data-testid=markdown]')?.innerText
                                     || '').includes('asked 6.00')
                                    && !document.querySelector('[data-testid=status-tracker]:not(.hide)')""",
                           timeout=60_000)
    page.screenshot(path=str(tmp_path / "explorer.png"), full_page=True)
    assert (tmp_path / "explorer.png").stat().st_size > 10_000
    page.close()


def test_deleting_text_re_renders_and_an_empty_text_says_what_to_do(url, browser, tmp_path):
    """Regression: Backspace and select-all + Delete left the plate showing "12" while the box said "1"/""."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    first = wait_for_plate(page)
    stats_12 = stats_text(page)
    box = page.locator("#plate-text textarea, #plate-text input").first
    box.click()
    box.press("End")
    box.press("Backspace")
    one = wait_for_plate(page, first)
    stats_1 = wait_for_stats(page, stats_12)
    assert box.input_value() == "1"
    assert stats_1 == ex.stats_text(ex.render(ex.default_spec().replace(text="1")))  # the plate of "1"
    assert page.request.get(one).body() != page.request.get(first).body()
    box.press("Control+a")
    box.press("Delete")
    empty = wait_for_stats(page, stats_1)
    assert box.input_value() == ""
    assert empty.startswith("⚠️ Not redrawn: text '' is empty; type the label to draw")
    page.screenshot(path=str(tmp_path / "empty-text.png"), full_page=True)
    box.type("7")
    wait_for_stats(page, empty)
    assert stats_text(page) == ex.stats_text(ex.render(ex.default_spec().replace(text="7")))
    page.close()


def picker_colour(page, elem_id: str) -> str:
    return page.locator(f"#{elem_id} button").first.evaluate("b => getComputedStyle(b).backgroundColor")


def test_the_background_swatch_follows_delta_e(url, browser):
    """Regression: the swatch stayed pink while ΔE had moved the plate's background to green."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    wait_for_plate(page)
    before, stats = picker_colour(page, "bg"), stats_text(page)
    slider = page.locator("#delta-e input[type=range]")
    slider.focus()
    for _ in range(8):  # ΔE2000 4
        page.keyboard.press("ArrowRight")
    wait_for_stats(page, stats)
    drawn = ex.default_spec().replace(delta_e=4.0).colours[1][0]
    want = "rgb({}, {}, {})".format(*drawn)
    # the eight key presses may redraw several times under load: wait for the last one (ΔE2000 4), then the
    # swatch must show that plate's background, not an earlier redraw's (nor one taken for the visitor's own)
    page.wait_for_function(
        "() => (document.querySelector('#plate-stats')?.innerText || '').includes('asked 4.00')", timeout=60_000)
    try:
        page.wait_for_function(
            "want => getComputedStyle(document.querySelector('#bg button')).backgroundColor === want", arg=want,
            timeout=30_000)
    except playwright_api.Error:
        pass  # the assertion below names what the swatch shows instead
    assert before != want and picker_colour(page, "bg") == want
    assert ex.to_hex(drawn) in page.locator("#drawn-colours").inner_text()
    page.close()


def test_a_share_link_opens_its_plate(url, browser):
    spec = ex.default_spec().replace(text="58", delta_e=7.5, seed=4, palette="huemanity-02")
    page = browser.new_page()
    page.goto(url.rstrip("/") + "/" + share_link(spec))
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
    # the tab shows which plate it will ask about, and the hint of the chosen backend only
    page.wait_for_function(
        "() => (document.querySelector('#asked-plate')?.innerText || '').includes('text 12')", timeout=60_000)
    assert page.locator("#asked-plate-image img").count() == 1
    assert "bundled offline reader" in page.locator("#model-kind").inner_text()
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function("() => (document.querySelector('#verdict')?.innerText || '').includes('Parsed answer')",
                           timeout=60_000)
    assert "correct" in page.locator("#verdict").inner_text()
    history = page.locator("#history").inner_text()
    assert "Model" in history and "prompt_name" not in history  # headers in words
    page.screenshot(path=str(tmp_path / "model.png"), full_page=True)
    # a sweep: the raw reply and the verdict panel then show the sweep, not the single ask
    page.get_by_role("button", name="Run sweep").click()
    page.wait_for_function("() => (document.querySelector('#verdict')?.innerText || '').includes('Sweep:')",
                           timeout=60_000)
    # the sweep streams its points (at most two updates a second): a coarse pass by ratio, then the rest of the
    # points inside the bracket where the answers turn right; the range boxes show that bracket when it is done
    page.wait_for_function("() => document.querySelector('#sweep-lo input')?.value !== '0.25'"
                           " || document.querySelector('#sweep-hi input')?.value !== '16'", timeout=120_000)
    low, high = (float(page.locator(f"#sweep-{end} input").input_value()) for end in ("lo", "hi"))
    replies = page.locator("#reply textarea").input_value()
    asked = {float(line.split()[1]) for line in replies.splitlines()}
    assert {0.25, 1.0, 4.0, 16.0} <= asked and (low, high) != (0.25, 16.0)
    assert all(low < v < high for v in asked - {0.25, 1.0, 4.0, 16.0}) and len(asked) > 4
    assert "ΔE2000 asked" in page.locator("#verdict").inner_text()
    page.wait_for_selector("#sweep-plot .js-plotly-plot .scatterlayer", timeout=60_000)  # the chart is drawn
    page.screenshot(path=str(tmp_path / "sweep.png"), full_page=True)
    page.get_by_label("openai").check()
    page.wait_for_function(
        "() => (document.querySelector('#model-kind')?.innerText || '').includes('OpenAI')", timeout=30_000)
    assert "bundled offline reader" not in page.locator("#model-kind").inner_text()
    page.close()
