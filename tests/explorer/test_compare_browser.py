"""The Model tab's comparison, share link and reproduce box in a real headless Chromium (Debian's, via
Playwright): the baseline reader and a local OpenAI-compatible server (tests.support.chat_server) side by side,
their sweeps overlaid, a link that restores model, prompt and condition (and never holds the key typed in the
page), the reproduce box, and a long prompt that wraps. Screenshots go to each test's tmp_path."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from plates.explorer import plate as ex
from plates.explorer import share
from plates.explorer.policy import Policy
from plates.explorer.share import ModelView
from plates.explorer.specs import decode_spec
from tests.support.browser import wait_for_plate
from tests.support.chat_server import ChatServer

KEY = "sk-browser-5Tg8Hn2Qp6Wz"


@pytest.fixture(scope="module")
def chat():
    with ChatServer(answer=lambda body: "I see the number 47.") as server:
        yield server


def open_model_tab(page, url: str) -> None:
    page.goto(url)
    wait_for_plate(page)
    page.get_by_role("tab", name="Model").click()
    page.wait_for_function("() => (document.querySelector('#asked-plate')?.innerText || '').includes('text ')",
                           timeout=60_000)


def text_of(page, selector: str) -> str:
    return page.locator(selector).first.inner_text()


def test_two_models_answer_side_by_side_and_their_sweeps_overlay(url, browser, chat, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    open_model_tab(page, url)
    page.get_by_role("button", name="Add the model above").click()  # the baseline reader, the default model
    box = page.locator("#compare-models textarea")
    page.wait_for_function("() => document.querySelector('#compare-models textarea').value === 'baseline'",
                           timeout=30_000)
    box.fill(f"baseline\nopenai test-model {chat.url}")
    # a long prompt: the shared request's code block wraps instead of scrolling sideways
    long_prompt = "What number do you see in this image? " * 12 + "Answer with the number only."
    page.get_by_label("Prompt text (editable)").fill(long_prompt)
    page.locator("#compare-ask").click()
    page.wait_for_function("() => (document.querySelector('#compare-table')?.innerText || '').includes('test-model')"
                           " && (document.querySelector('#compare-table')?.innerText || '').includes('baseline-cnn')",
                           timeout=120_000)
    table = text_of(page, "#compare-table")
    assert "✅ correct" in table and "❌ wrong" in table and "I see the number 47." in table
    request = text_of(page, "#compare-request")
    assert "Every model received the same request" in request and "Answer with the number only." in request
    assert chat.records[-1].text.startswith("What number do you see in this image?")  # the same filled prompt
    widths = page.locator("#compare-request pre").first.evaluate("p => [p.scrollWidth, p.clientWidth]")
    assert widths[0] <= widths[1] + 1, widths  # wrapped, no sideways scroll
    page.screenshot(path=str(tmp_path / "side-by-side.png"), full_page=True)

    # every compared model's sweep, then the model above's: all on one chart, a series per model
    page.locator("#sweep-plot").scroll_into_view_if_needed()
    page.locator("#sweep-compared").click()
    page.wait_for_function(
        """() => { const t = document.querySelector('#sweep-plot')?.innerText || '';
                   return t.includes('test-model: each answer') && t.includes('baseline-cnn: each answer'); }""",
        timeout=180_000)
    legend = page.locator("#sweep-plot .legend").first.text_content()
    assert "baseline-cnn" in legend and "test-model" in legend
    page.wait_for_function("() => !document.querySelector('#sweep-plot [data-testid=status-tracker]:not(.hide)')",
                           timeout=60_000)
    page.screenshot(path=str(tmp_path / "sweeps-overlaid.png"), full_page=True)
    page.get_by_role("button", name="Clear sweeps").click()
    page.wait_for_function("() => !(document.querySelector('#sweep-plot')?.innerText || '').includes('each answer')",
                           timeout=30_000)
    page.close()


def test_a_share_link_restores_model_prompt_and_condition_without_the_key(url, browser, chat, tmp_path):
    spec = ex.default_spec().replace(text="29", palette="huemanity-04", seed=11, delta_e=9.0)
    view = ModelView(kind="openai", model="test-model", base_url=chat.url, compare="baseline",
                     prompt_name="cbe-open", prompt_text="Which number is hidden here? Reply with digits.",
                     size=256, grayscale=True, hue_shift=45.0, cvd="tritan", cvd_severity=0.5, variant="clear")
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(share.share_link(spec, view, url))
    wait_for_plate(page)
    page.get_by_role("tab", name="Model").click()
    page.wait_for_function("() => (document.querySelector('#asked-plate')?.innerText || '').includes('text 29')",
                           timeout=60_000)
    assert page.get_by_label("API model name").input_value() == "test-model"
    assert page.get_by_label("OpenAI-compatible base URL").input_value() == chat.url
    assert page.get_by_label("Prompt text (editable)").input_value() == view.prompt_text
    assert page.get_by_label("Grayscale").is_checked()
    assert page.locator("#compare-models textarea").input_value() == "baseline"
    # type a key in the page: the link follows the controls and never holds it
    page.locator("#api-key input").fill(KEY)
    page.get_by_text("A key is set for this session only.").wait_for(timeout=30_000)
    link_box = page.locator("#model-share textarea, #model-share input").first
    page.wait_for_function("() => (document.querySelector('#model-share textarea, #model-share input')?.value || '')"
                           ".includes('&ask=')", timeout=60_000)
    link = link_box.input_value()
    assert KEY not in link
    query = parse_qs(urlsplit(link).query)
    assert decode_spec(query["spec"][0]) == spec
    assert share.decode_view(query["ask"][0], Policy()) == view  # every control restored, then linked again
    # the reproduce box says the same (its editor draws only the lines in the window: make the window tall)
    page.set_viewport_size({"width": 1400, "height": 6000})
    page.locator("#repro-python").scroll_into_view_if_needed()
    python = text_of(page, "#repro-python")
    assert "PlateSpec.from_json" in python and "cvd='tritan'" in python and "make_backend(\"openai\"" in python
    cli = text_of(page, "#repro-cli")
    assert "plates generate --spec" in cli and "--backend openai --model test-model" in cli and KEY not in cli
    assert "CVD severity 0.5" in cli  # what the quick-run flags cannot say is named
    page.locator("#repro-cli").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "share-and-reproduce.png"), full_page=True)
    page.close()


def test_the_exact_request_wraps_a_long_prompt(url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    open_model_tab(page, url)
    page.get_by_label("Prompt text (editable)").fill("Read the digits hidden among the coloured dots, please. " * 10)
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function("() => (document.querySelector('#sent-request')?.innerText || '').includes('exact request')",
                           timeout=120_000)
    pre = page.locator("#sent-request pre").first
    widths = pre.evaluate("p => [p.scrollWidth, p.clientWidth]")
    assert widths[0] <= widths[1] + 1, widths
    assert pre.bounding_box()["height"] > 40  # several lines: it wrapped
    page.screenshot(path=str(tmp_path / "request-wraps.png"), full_page=True)
    page.close()
