"""The family tabs in a real headless Chromium (Debian's, via Playwright): a full "Try it yourself" session
(consent -> plates and illusion images -> result) writes the expected human rows; the Illusions and Scenes tabs
render and answer."""

from __future__ import annotations

import os

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

from plates.explorer import app as explorer_app
from plates.explorer import quiz as qv
from plates.explorer.policy import Policy
from plates.results import load_results
from plates.runs.quiz import HUMAN_RESULTS_ENV, QuizLimits
from tests.explorer.test_family_tabs import family_demo

TRIALS = 4  # plates; with ILLUSION_TRIALS illusion images, interleaved
ILLUSION_TRIALS = 3
DIRECTIONS, DIRECTION_TRIALS = 3, 10  # the directions mode: the fewest a run allows


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    quiz = qv.QuizConfig(trials=TRIALS, illusion_trials=ILLUSION_TRIALS, size=256, directions=DIRECTIONS,
                         direction_trials=DIRECTION_TRIALS, limits=QuizLimits(min_seconds_between=0.0))
    demo = family_demo(Policy(), root, quiz)
    demo.launch(prevent_thread_lock=True, quiet=True, **explorer_app.launch_options())
    yield demo.local_url, root
    demo.close()


def text_of(page, elem_id: str) -> str:
    return page.locator(f"#{elem_id}").inner_text()


def wait_text(page, elem_id: str, needle: str, timeout: int = 60_000) -> None:
    page.wait_for_function("([id, s]) => (document.querySelector('#' + id)?.innerText || '').includes(s)",
                           arg=[elem_id, needle], timeout=timeout)


def quiz_page(served, browser, monkeypatch, folder, width: int, height: int):
    """The quiz tab open in a new page of ``width`` x ``height``, answers stored under ``folder``/human."""
    monkeypatch.setenv(HUMAN_RESULTS_ENV, str(folder / "human"))
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(served[0])
    page.get_by_role("tab", name="Try it yourself").click()
    return page


def test_a_full_quiz_session_in_the_browser_writes_human_rows(served, browser, tmp_path, monkeypatch):
    page = quiz_page(served, browser, monkeypatch, tmp_path, 1300, 1100)
    assert "What is stored" in text_of(page, "quiz-consent")
    page.screenshot(path=str(tmp_path / "quiz-consent.png"), full_page=True)
    page.locator("#quiz-agree input[type=checkbox]").check()
    page.locator("#quiz-start").click()
    total = TRIALS + ILLUSION_TRIALS
    typed, families = [], []
    for n in range(1, total + 1):
        wait_text(page, "quiz-progress", f"Image {n} of {total}")
        page.wait_for_function("() => document.querySelector('#quiz-plate img')?.src", timeout=60_000)
        if "which square looks darker" in text_of(page, "quiz-progress"):  # an illusion: three buttons
            assert "Which square looks darker to you" in text_of(page, "quiz-instruction")
            assert not page.locator("#quiz-answer").is_visible()
            if n == 2:
                page.screenshot(path=str(tmp_path / "quiz-illusion.png"), full_page=True)
            button = ("Left looks darker", "They look the same", "Right looks darker")[n % 3]
            page.get_by_role("button", name=button, exact=True).click()
            typed.append({"Left looks darker": "I", "They look the same": "III", "Right looks darker": "II"}[button])
            families.append("illusion")
            continue
        if n == 1:
            page.screenshot(path=str(tmp_path / "quiz-trial.png"), full_page=True)
        if n % 2:  # the on-screen keys (each waits for its update: the box is read when a key is pressed)
            for key, value in (("7", "7"), ("?", "7?"), ("⌫", "7")):
                page.get_by_role("button", name=key, exact=True).click()
                page.wait_for_function("v => document.querySelector('#quiz-answer textarea, #quiz-answer input')"
                                       "?.value === v", arg=value, timeout=30_000)
            answer = "7"
            page.locator("#quiz-submit").click()
        else:  # typed, sent with Enter
            answer = f"{n}{n}"
            box = page.locator("#quiz-answer textarea, #quiz-answer input").first
            box.fill(answer)
            box.press("Enter")
        typed.append(answer)
        families.append("ishihara")
    wait_text(page, "quiz-result", "Your result")
    result = text_of(page, "quiz-result")
    assert "bundled reader" in result and f"You answered {total} images: {TRIALS} plates" in result
    assert "pixel-exact observer" in result
    page.locator("#quiz-download").wait_for(state="visible", timeout=30_000)
    page.wait_for_function("() => [...document.querySelectorAll('#quiz-result [data-testid=markdown-wrapper]')]"
                           ".every(e => getComputedStyle(e).opacity === '1')", timeout=30_000)  # no longer dimmed
    page.screenshot(path=str(tmp_path / "quiz-result.png"), full_page=True)
    frame = load_results(tmp_path / "human").frame.sort_values("item_id")
    assert frame["reply"].tolist() == typed and set(frame["backend"]) == {"human"}
    assert frame["family"].tolist() == families and families.count("illusion") == ILLUSION_TRIALS
    assert frame["run_id"].nunique() == 1 and len(frame) == total
    with page.expect_download() as info:
        page.locator("#quiz-download").click()
    import pyarrow.parquet as pq

    mine = pq.read_table(info.value.path()).to_pandas()
    assert mine["reply"].tolist() == typed
    page.close()


def test_the_directions_mode_in_the_browser_at_1400x900(served, browser, tmp_path, monkeypatch):
    page = quiz_page(served, browser, monkeypatch, tmp_path, 1400, 900)
    assert "Your screen is not calibrated" in text_of(page, "quiz-consent")
    page.get_by_label(f"My colour ellipse (one colour, {DIRECTIONS} directions)").check()
    page.locator("#quiz-colour-vision input").click()
    page.get_by_role("option", name="tritan (blue-weak or blue-blind)").click()
    page.screenshot(path=str(tmp_path / "quiz-directions-consent.png"))
    page.locator("#quiz-agree input[type=checkbox]").check()
    page.locator("#quiz-start").click()
    total = DIRECTIONS * DIRECTION_TRIALS
    typed = []
    for n in range(1, total + 1):
        wait_text(page, "quiz-progress", f"Image {n} of {total}")
        page.wait_for_function("() => document.querySelector('#quiz-plate img')?.src", timeout=60_000)
        if n == 1:  # the progress, plate and answer box fit one 1400x900 screen once the consent folds
            page.locator("#quiz-progress").evaluate("e => e.scrollIntoView()")
            top = page.locator("#quiz-progress").bounding_box()["y"]
            submit = page.locator("#quiz-submit").bounding_box()
            assert submit["y"] + submit["height"] - top < 900
            page.screenshot(path=str(tmp_path / "quiz-directions-trial.png"))
            assert not page.locator("#quiz-option-0").is_visible()
        typed.append("?" if n % 4 == 0 else "12")
        box = page.locator("#quiz-answer textarea, #quiz-answer input").first
        box.fill(typed[-1])
        box.press("Enter")
    wait_text(page, "quiz-result", "Your colour ellipse")
    result = text_of(page, "quiz-result")
    assert "Your screen is not calibrated" in result and "macadam-13" in result
    page.locator("#quiz-ellipse .js-plotly-plot").wait_for(state="visible", timeout=60_000)
    page.locator("#quiz-download").wait_for(state="visible", timeout=30_000)
    page.locator("#quiz-result").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "quiz-directions-result.png"), full_page=True)
    frame = load_results(tmp_path / "human").frame
    assert len(frame) == total and set(frame["colour_vision"]) == {"tritan"}
    assert sorted(frame["reply"]) == sorted(typed) and frame["direction"].nunique() == DIRECTIONS
    print("screenshots:", tmp_path)
    page.close()


def test_the_illusion_and_scene_tabs_render_and_always_answer(served, browser, tmp_path):
    url, _ = served
    page = browser.new_page(viewport={"width": 1400, "height": 1300})
    page.goto(url)
    page.get_by_role("tab", name="Illusions").click()
    wait_text(page, "illusion-truth", "item class: illusion")  # drawn when the tab opens: ΔE 0, strength 1
    slider = page.locator("#illusion-delta-e input[type=range]")
    slider.focus()
    for _ in range(6):  # ΔE2000 +3: a trap
        page.keyboard.press("ArrowRight")
    wait_text(page, "illusion-truth", "item class: trap")
    assert "reference observer" in page.locator("#illusion-who").inner_text()  # who answers, beside the button
    page.locator("#illusion-ask").click()
    wait_text(page, "illusion-verdict", "Answered by the reference observer")
    page.screenshot(path=str(tmp_path / "illusions.png"), full_page=True)
    page.get_by_role("tab", name="Scenes").click()
    wait_text(page, "scene-facts", "distinct colours")
    before = page.locator("#scene-image img").first.get_attribute("src")
    page.locator("#scene-clutter input[type=range]").focus()
    page.keyboard.press("ArrowRight")
    wait_text(page, "scene-question", "How many different colors")
    page.wait_for_function("old => document.querySelector('#scene-image img')?.src !== old", arg=before,
                           timeout=60_000)
    page.locator("#scene-ask").click()
    wait_text(page, "scene-verdict", "Answered by the reference observer")
    assert "reference observer" in page.locator("#scene-who").inner_text()
    page.screenshot(path=str(tmp_path / "scenes.png"), full_page=True)
    if os.environ.get("PLATES_SCREENSHOTS"):
        page.screenshot(path=os.path.join(os.environ["PLATES_SCREENSHOTS"], "scenes-answered.png"))
    page.close()
