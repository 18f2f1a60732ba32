"""The plate panel's controls in a real headless Chromium: a hex colour typed into a picker's box redraws the
plate, the plate-style control switches style (and disables Density where the style fixes it), and a share
link whose spec names a font alias opens its plate instead of an error. Screenshots go to each test's
tmp_path."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from plates.explorer import plate as ex
from plates.explorer.specs import share_link
from plates.explorer.sweep import COARSE_POINTS
from tests.support.browser import stats_text, wait_for_plate, wait_for_stats


def test_typing_a_hex_colour_redraws_the_plate(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    before = wait_for_plate(page)
    stats = stats_text(page)
    page.locator("#fg button").first.click()
    box = page.locator("#fg input[type=text]").first
    box.fill("#00a0ff")  # typed, not dragged
    box.press("Enter")
    after = wait_for_plate(page, before)
    wait_for_stats(page, stats)
    assert page.request.get(after).body() != page.request.get(before).body()  # the pixels changed
    page.keyboard.press("Escape")
    drawn = page.locator("#drawn-colours").inner_text()
    assert "#00a0ff on" in drawn
    spec = ex.default_spec().replace(palette=None, foreground=((0, 160, 255),),
                                     background=(ex.parse_hex(ex.preset_hex("colorblindnesseval-1")[1], "bg"),))
    assert stats_text(page) == ex.stats_text(ex.render(spec))  # the plate of the typed colour, not the preset's
    page.screenshot(path=str(tmp_path / "typed-hex.png"), full_page=True)
    page.close()


def test_the_style_control_switches_style_and_density_follows(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    before = wait_for_plate(page)
    stats = stats_text(page)
    density = page.locator("#density input[type=range]")
    assert density.is_enabled()
    page.locator("#plate-style label", has_text="cbe").click()
    wait_for_plate(page, before)
    wait_for_stats(page, stats)
    assert stats_text(page) == ex.stats_text(ex.render(ex.default_spec().replace(style="cbe")))
    page.wait_for_function("() => document.querySelector('#density input[type=range]').disabled", timeout=30_000)
    # the control says what it controls, and why it does not apply here; the visitor's value is not reset
    box = page.locator("#density")
    assert "cover this share of the disc" in box.inner_text() and "fixed by the cbe style" in box.inner_text()
    assert density.input_value() == str(ex.default_spec().density)
    page.screenshot(path=str(tmp_path / "style-cbe.png"), full_page=True)
    page.locator("#plate-style label", has_text="dense").click()
    page.wait_for_function("() => !document.querySelector('#density input[type=range]').disabled", timeout=30_000)
    assert "fixed by" not in box.inner_text()
    page.close()


def test_the_visitors_own_density_is_kept_while_a_style_fixes_it(url, browser, tmp_path):
    own = 0.41  # not the default (0.75): a reset would show
    assert ex.default_spec().density != own
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    before = wait_for_plate(page)
    stats = stats_text(page)
    number = page.locator("#density input[type=number]")
    number.fill(str(own))
    number.press("Enter")
    before = wait_for_plate(page, before)
    stats = wait_for_stats(page, stats)
    own_plate = ex.stats_text(ex.render(ex.default_spec().replace(density=own)))
    assert stats == own_plate  # the visitor's density is drawn
    page.locator("#plate-style label", has_text="huemanity").click()  # HueManity's packing fixes the density
    before = wait_for_plate(page, before)
    stats = wait_for_stats(page, stats)
    page.wait_for_function("() => document.querySelector('#density input[type=range]').disabled", timeout=30_000)
    assert page.locator("#density input[type=range]").input_value() == str(own)  # shown, not reset
    assert "fixed by the huemanity style" in page.locator("#density").inner_text()
    page.screenshot(path=str(tmp_path / "density-kept-huemanity.png"), full_page=True)
    page.locator("#plate-style label", has_text="dense").click()  # back in a free style: the visitor's value
    wait_for_plate(page, before)
    page.wait_for_function("() => !document.querySelector('#density input[type=range]').disabled", timeout=30_000)
    assert wait_for_stats(page, stats) == own_plate
    assert page.locator("#density input[type=range]").input_value() == str(own)
    page.close()


def test_a_share_link_with_a_font_alias_opens_its_plate(url, browser, tmp_path):
    spec = ex.default_spec().replace(text="74", font="liberation-sans-regular", style="huemanity",
                                     colour_roles="released-code", palette="huemanity-02")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url.rstrip("/") + "/" + share_link(spec))
    page.wait_for_function("() => (document.querySelector('#view-plate img')?.src || '') !== ''", timeout=60_000)
    page.wait_for_function(
        "want => (document.querySelector('#plate-stats')?.innerText || '').trim() === want",
        arg=ex.stats_text(ex.render(spec)), timeout=120_000)
    assert page.locator(".error, [data-testid=toast-body]").count() == 0
    font = page.locator("#font input").first.input_value()
    assert font == "liberation-sans-regular"
    drawn = page.locator("#drawn-colours").inner_text()
    text_colour = ex.to_hex(spec.role_colours[0][0])
    assert f"{text_colour} on {ex.to_hex(spec.role_colours[1][0])}" in drawn and "released code" in drawn
    assert text_colour == ex.to_hex(spec.colours[1][0])  # the palette's background colour paints the text
    page.screenshot(path=str(tmp_path / "alias-font.png"), full_page=True)
    page.close()


def test_the_model_tab_shows_the_filled_prompt_and_options_and_the_sweeps_image(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    wait_for_plate(page)
    page.get_by_role("tab", name="Model").click()
    box = page.locator("#prompt-name input").first
    box.click()
    box.fill("colorbench-mc")
    page.get_by_role("option", name="colorbench-mc", exact=True).click()
    # the choice fills the prompt text from the server; asking before it lands sends cbe-open's text (no {options})
    page.wait_for_function("() => [...document.querySelectorAll('textarea')].some(t => t.value.includes('{options}'))",
                           timeout=60_000)
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function(
        "() => (document.querySelector('#sent-request')?.innerText || '').includes('Options:')", timeout=60_000)
    request = page.locator("#sent-request").inner_text()
    text = request
    assert "{options}" not in text and "{candidate}" not in text
    assert "A " in text and "B " in text and "Expected answer:" in text and "the plate's text: 12" in text
    assert "Temperature 0 · max tokens" in text and "image 512×512 px as sent" in text
    page.screenshot(path=str(tmp_path / "request.png"), full_page=True)
    first = page.locator("#seen img").first.get_attribute("src")
    page.get_by_role("button", name="Run sweep").click()
    # the coarse pass's points first (their count: plates.explorer.sweep.COARSE_POINTS; the fine pass inside the
    # bracket is checked in test_app.py), every point's reply a line
    page.wait_for_function("n => (document.querySelector('#reply textarea')?.value || '').split('\\n').length >= n",
                           arg=COARSE_POINTS, timeout=120_000)
    page.wait_for_function("old => (document.querySelector('#seen img')?.src || old) !== old", arg=first,
                           timeout=60_000)  # the image follows the sweep
    page.close()
