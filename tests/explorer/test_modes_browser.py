"""The explorer's modes in a real headless Chromium (Debian's, via Playwright): the header says which mode and
what it allows; in public mode a visitor picks a provider from the fixed list (here a loopback chat server
injected into the policy's provider table, as only tests can), pastes their own key and asks, alone and side by
side with the bundled reader; the key never reaches the share link or the reproduce box. Screenshots go to
each test's tmp_path (and to ``PLATES_SCREENSHOTS`` when set, to look at)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from plates.explorer import app as explorer_app
from plates.explorer.policy import Policy
from tests.support.browser import wait_for_plate
from tests.support.chat_server import ChatServer

KEY = "sk-visitor-browser-9Kd3Vb7Rx1"
VIEWPORT = {"width": 1400, "height": 900}


def shot(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name), full_page=False)
    if os.environ.get("PLATES_SCREENSHOTS"):
        page.screenshot(path=str(Path(os.environ["PLATES_SCREENSHOTS"]) / name), full_page=False)


@pytest.fixture(scope="module")
def provider():
    with ChatServer(answer=lambda body: "12", api_key=KEY, models=("test-model", "test-model-2")) as server:
        yield server


@pytest.fixture(scope="module")
def public_url(provider):
    policy = Policy.from_env({"GRADIO_SERVER_NAME": "0.0.0.0"})  # public: reachable from other machines
    policy = Policy(**{**policy.__dict__, "providers": (("Stand-in provider", provider.url),)})
    demo = explorer_app.build_app(policy)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options(policy=policy))
    yield demo.local_url
    demo.close()


def test_a_loopback_explorer_says_it_is_private_and_what_that_allows(url, browser, tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url)
    wait_for_plate(page)
    header = page.locator("#mode").inner_text()
    assert "Private mode" in header and "any OpenAI-compatible URL" in header
    page.get_by_role("tab", name="Model").click()
    page.get_by_label("openai").check()
    page.locator("#base-url input").wait_for(state="visible", timeout=30_000)
    page.locator("#base-url input").fill("http://127.0.0.1:9/v1")  # private: any URL may be typed
    shot(page, tmp_path, "mode-private.png")
    page.close()


def test_a_visitor_asks_their_own_provider_with_their_own_key(public_url, provider, browser, tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(public_url)
    wait_for_plate(page)
    header = page.locator("#mode").inner_text()
    assert "Public mode" in header and "bound to 0.0.0.0" in header and "Stand-in provider" in header
    assert "your own API key" in header
    shot(page, tmp_path, "mode-public.png")
    page.get_by_role("tab", name="Model").click()
    page.wait_for_function("() => (document.querySelector('#asked-plate')?.innerText || '').includes('text ')",
                           timeout=60_000)
    kinds = page.locator("#model-kind").inner_text()
    assert "openai" in kinds and "hf" not in kinds.split()  # no Hugging Face model is allowed on this server
    page.get_by_label("openai").check()
    base = page.locator("#base-url input")
    base.wait_for(state="visible", timeout=30_000)
    assert "Stand-in provider" in base.input_value()  # the provider list's first entry, chosen
    page.locator("#api-model textarea, #api-model input").first.fill("test-model")
    page.locator("#api-key input").fill(KEY)
    page.get_by_text("A key is set for this session only.").wait_for(timeout=30_000)
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function("() => (document.querySelector('#verdict')?.innerText || '').includes('Parsed answer')",
                           timeout=60_000)
    assert "correct" in page.locator("#verdict").inner_text()
    assert provider.records[-1].authorization == f"Bearer {KEY}"
    shot(page, tmp_path, "public-own-key-asked.png")
    # side by side with the bundled reader
    page.get_by_role("button", name="Add the model above").click()
    page.wait_for_function("() => (document.querySelector('#compare-models textarea')?.value || '')"
                           ".includes('test-model')", timeout=30_000)
    # a second model of the same provider (one key: the provider's), then the bundled reader
    page.locator("#api-model textarea, #api-model input").first.fill("test-model-2")
    page.get_by_role("button", name="Add the model above").click()
    page.wait_for_function("() => (document.querySelector('#compare-models textarea')?.value || '')"
                           ".includes('test-model-2')", timeout=30_000)
    box = page.locator("#compare-models textarea")
    box.fill("baseline\n" + box.input_value())
    asked_before = provider.count
    page.locator("#compare-ask").click()
    page.wait_for_function("() => { const t = document.querySelector('#compare-table')?.innerText || '';"
                           " return t.includes('test-model-2') && t.includes('baseline-cnn'); }", timeout=120_000)
    table = page.locator("#compare-table").inner_text()
    assert table.count("✅ correct") == 3, table
    asked = [r for r in provider.records[asked_before:] if r.path.endswith("/chat/completions")]
    assert sorted(r.model for r in asked) == ["test-model", "test-model-2"]  # each model once, with the key
    assert all(r.authorization == f"Bearer {KEY}" for r in asked)
    page.wait_for_function("() => (document.querySelector('#model-share textarea, #model-share input')?.value || '')"
                           ".includes('&ask=')", timeout=60_000)
    link = page.locator("#model-share textarea, #model-share input").first.input_value()
    page.set_viewport_size({"width": 1400, "height": 6000})  # the reproduce box's editor draws what is in view
    page.locator("#repro-python").scroll_into_view_if_needed()
    repro = page.locator("#repro-python").inner_text() + page.locator("#repro-cli").inner_text()
    assert KEY not in link and KEY not in repro and KEY not in page.content()
    page.set_viewport_size(VIEWPORT)
    page.locator("#compare-table").scroll_into_view_if_needed()
    shot(page, tmp_path, "public-side-by-side.png")
    # a typed URL is refused with the list of providers, not "allowed: none"
    base.fill("https://evil.example/v1")
    page.get_by_role("button", name="Ask the model").scroll_into_view_if_needed()
    page.get_by_role("button", name="Ask the model").click()
    toast = page.locator(".toast-body").filter(has_text="is not allowed here")
    toast.first.wait_for(timeout=30_000)
    assert "Stand-in provider" in toast.first.inner_text()
    shot(page, tmp_path, "public-typed-url-refused.png")
    page.close()


@pytest.mark.parametrize("mode", ["private", "public"])  # public mode's header is longer
def test_the_quiz_answer_box_is_above_the_fold_at_1400_by_900(mode, request, browser, tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(request.getfixturevalue("url" if mode == "private" else "public_url"))
    wait_for_plate(page)
    page.get_by_role("tab", name="Try it yourself").click()
    page.locator("#quiz-agree input").check()
    page.locator("#quiz-start").click()
    page.wait_for_function("() => (document.querySelector('#quiz-progress')?.innerText || '').includes('Image 1')",
                           timeout=60_000)
    page.wait_for_selector("#quiz-plate img", timeout=60_000)
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator("#quiz-answer").bounding_box()
    submit = page.locator("#quiz-submit").bounding_box()
    assert box and submit and box["y"] + box["height"] <= VIEWPORT["height"], box  # no scrolling to answer
    assert submit["y"] + submit["height"] <= VIEWPORT["height"], submit
    shot(page, tmp_path, f"quiz-above-the-fold-{mode}.png")
    page.close()


def test_an_answer_is_marked_stale_when_the_plate_changes_and_cleared_by_the_next_ask(url, browser, tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url)
    wait_for_plate(page)
    page.get_by_role("tab", name="Model").click()
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function("() => (document.querySelector('#verdict')?.innerText || '').includes('Parsed answer')",
                           timeout=60_000)
    assert "Stale" not in page.locator("#stale-answer").inner_text()
    page.get_by_role("tab", name="Plate").click()
    page.locator("#plate-text textarea, #plate-text input").first.fill("74")
    page.locator("#plate-text textarea, #plate-text input").first.press("Tab")
    page.get_by_role("tab", name="Model").click()
    page.wait_for_function("() => (document.querySelector('#stale-answer')?.innerText || '').includes('Stale')",
                           timeout=30_000)
    page.locator("#reply").scroll_into_view_if_needed()
    shot(page, tmp_path, "answer-stale.png")
    page.get_by_role("button", name="Ask the model").click()
    page.wait_for_function("() => !(document.querySelector('#stale-answer')?.innerText || '').includes('Stale')",
                           timeout=60_000)
    page.wait_for_function("() => (document.querySelector('#verdict')?.innerText || '').includes('74')",
                           timeout=60_000)
    page.close()


@pytest.mark.parametrize("tab, prefix, control", [("Illusions", "illusion", "#illusion-delta-e"),
                                                  ("Scenes", "scene", "#scene-clutter")])
def test_an_illusion_or_scene_answer_is_marked_stale_when_its_image_changes(tab, prefix, control, url, browser,
                                                                           tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url)
    wait_for_plate(page)
    page.get_by_role("tab", name=tab).click()
    page.wait_for_selector(f"#{prefix}-image img", timeout=60_000)
    stale = f"() => (document.querySelector('#{prefix}-stale')?.innerText || '').includes('Stale')"
    page.locator(f"{control} input[type=range]").focus()
    page.keyboard.press("ArrowRight")  # before any answer: nothing to mark
    page.locator(f"#{prefix}-ask").click()
    page.wait_for_function(f"() => (document.querySelector('#{prefix}-verdict')?.innerText || '').includes("
                           "'Answered by')", timeout=60_000)
    assert "Stale" not in page.locator(f"#{prefix}-stale").inner_text()
    page.locator(f"{control} input[type=range]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(stale, timeout=30_000)
    page.locator(f"#{prefix}-reply").scroll_into_view_if_needed()
    shot(page, tmp_path, f"{prefix}-answer-stale.png")
    page.locator(f"#{prefix}-ask").click()
    page.wait_for_function(f"() => !({stale[6:]})", timeout=60_000)
    page.close()


def test_a_public_ask_without_a_key_is_disabled_with_the_reason_beside_it(public_url, browser, tmp_path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(public_url)
    wait_for_plate(page)
    page.get_by_role("tab", name="Model").click()
    assert page.locator("#ask-model").is_enabled()  # the bundled reader answers without a key
    page.get_by_label("openai").check()
    page.wait_for_function("() => document.querySelector('#ask-model')?.disabled", timeout=30_000)
    assert "API key is needed" in page.locator("#ask-why").inner_text()
    assert page.locator("#sweep-run").is_disabled() and "API key is needed" in page.locator("#sweep-why").inner_text()
    page.locator("#ask-model").scroll_into_view_if_needed()
    shot(page, tmp_path, "public-ask-needs-a-key.png")
    for tab, prefix in (("Illusions", "illusion"), ("Scenes", "scene")):  # every Ask button says why
        page.get_by_role("tab", name=tab).click()
        page.locator(f"#{prefix}-ask").wait_for(state="visible", timeout=30_000)
        assert page.locator(f"#{prefix}-ask").is_disabled()
        assert "API key is needed" in page.locator(f"#{prefix}-who").inner_text()
    shot(page, tmp_path, "public-scene-ask-needs-a-key.png")
    page.get_by_role("tab", name="Model").click()
    page.locator("#api-key input").fill(KEY)
    page.wait_for_function("() => !document.querySelector('#ask-model')?.disabled", timeout=30_000)
    assert page.locator("#ask-why").inner_text().strip() == "" and page.locator("#sweep-run").is_enabled()
    assert page.locator(".toast-body").count() == 0  # never an error toast on the way
    page.close()
