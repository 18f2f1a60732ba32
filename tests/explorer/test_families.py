"""The family tabs' library side: plates.explorer.families and plates.explorer.quiz, no widgets."""

from __future__ import annotations

import io
import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plates.admission import Admission, MemoryBudget, RateLimit
from plates.explorer import families as fv
from plates.explorer import quiz as qv
from plates.explorer.history import history_parquet
from plates.explorer.policy import Policy
from plates.models import make_backend
from plates.models.base import Backend, Reply
from plates.results import SCHEMA
from plates.runs.quiz import QuizLimits

POLICY = Policy()


class Scripted(Backend):
    """A backend that answers every query with ``text`` and keeps the queries it saw."""

    kind = "scripted"

    def __init__(self, text: str) -> None:
        self.model, self.text, self.seen = "scripted", text, []

    def _ask_one(self, query):
        self.seen.append(query)
        return Reply(self.text)

    def ask(self, queries):
        for i, q in enumerate(queries):
            yield i, self._ask_one(q)

    def close(self):
        pass


def illusion(**kw):
    return fv.render_illusion_controls(fv.IllusionControls(**{"size": 256, **kw}), POLICY)


@pytest.mark.parametrize("kind", fv.ILLUSION_KINDS)
def test_measured_target_values_come_from_the_pixels_and_match_the_requested_difference(kind):
    stim = illusion(kind=kind, delta_e=4.0)
    measured, de = fv.measure_targets(stim)
    px = np.asarray(stim.image)
    for name in ("A", "B"):
        mask = np.asarray(stim.masks[name], bool)
        assert measured[name].pixels == int(mask.sum())
        assert measured[name].mean_srgb == pytest.approx(tuple(px[mask].mean(axis=0)), abs=0.01)
    assert de == pytest.approx(4.0, abs=0.5)  # the spec's promise, measured here from pixels
    assert de == pytest.approx(stim.truth["delta_e2000"], abs=0.01)
    # + = A lighter: A's measured L* is higher
    assert measured["A"].lab[0] > measured["B"].lab[0]
    same, de0 = fv.measure_targets(illusion(kind=kind, delta_e=0.0))
    assert de0 == 0.0 and same["A"].mean_srgb == same["B"].mean_srgb


def test_outline_rings_lie_outside_the_targets_and_leave_their_pixels_alone():
    stim = illusion(kind="rcid-contrast", delta_e=2.0)
    out = np.asarray(fv.outlined(stim))
    orig = np.asarray(stim.image)
    for name, colour in fv.OUTLINE.items():
        mask = np.asarray(stim.masks[name], bool)
        assert (out[mask] == orig[mask]).all()  # the target itself is untouched
        ring = np.all(out == colour, axis=-1) & ~np.all(orig == colour, axis=-1)
        assert ring.sum() > 0 and not (ring & mask).any()


def test_illusion_markdown_reports_both_targets_and_the_answers():
    stim = illusion(kind="whites", delta_e=-3.0)
    text = fv.illusion_markdown(stim)
    measured, de = fv.measure_targets(stim)
    assert measured["A"].hex in text and measured["B"].hex in text and f"{de:.2f}" in text
    assert "pixel-darker:** A" in text and stim.truth["item_class"] in text


def test_bad_controls_raise_value_errors_that_name_what_is_allowed():
    with pytest.raises(ValueError, match="kind 'nope' is not known; allowed: rcid-contrast"):
        fv.IllusionControls(kind="nope").spec(POLICY)
    with pytest.raises(ValueError, match=r"image size \(px\)=4096 is not valid; allowed: an integer in \[64, 1024\]"):
        fv.IllusionControls(size=4096).spec(Policy(max_plate_size=1024))
    with pytest.raises(ValueError, match="palette 'x' is not known; allowed: none"):
        fv.SceneControls(palette="x").spec(POLICY)
    with pytest.raises(ValueError, match="no shape is chosen; allowed: one or more of circle"):
        fv.SceneControls(shapes=()).spec(POLICY)


def test_prompts_of_another_family_or_a_scene_that_cannot_carry_them_are_refused_in_words():
    scene = fv.render_scene_controls(fv.SceneControls(seed=1, size=256), POLICY)
    with pytest.raises(ValueError, match="this scene cannot carry a colour-recognition question: .*palette"):
        fv.make_question(scene, "colorbench-colour-recognition")
    with pytest.raises(ValueError, match="asks about illusion stimuli, not 'scene'"):
        fv.make_question(scene, "rcid-compare-human")


@pytest.mark.parametrize("prompt", ["rcid-compare-pixel", "rcid-compare-human", "illusionbench-tf",
                                    "illusionbench-mc"])
def test_the_baseline_declines_illusion_questions_and_the_row_says_so(prompt):
    stim = illusion(kind="rcid-contrast")
    row = fv.ask_stimulus(stim, fv.make_question(stim, prompt), make_backend("baseline"), run_id="r")
    assert row["parse_status"] == "unsupported" and row["correct"] is None and row["family"] == "illusion"
    assert row["group"] == "rcid-contrast" and row["colour_set"] is None  # an illusion's group is its kind
    assert "declines this question" in fv.result_markdown(row)
    assert pq.read_table(io.BytesIO(history_parquet([row]))).schema.equals(SCHEMA)


def test_both_framings_are_scored_against_their_own_keys_on_the_exact_pixels():
    stim = illusion(kind="simultaneous-contrast", delta_e=0.0)  # identical targets: pixel key "same"
    pixel, human = (fv.make_question(stim, f"rcid-compare-{f}") for f in ("pixel", "human"))
    same = next(k for k, v in pixel.options.items() if "same" in v)
    assert pixel.expected == same and human.expected != same
    model = Scripted(same)
    row = fv.ask_stimulus(stim, pixel, model, run_id="r")
    assert row["correct"] is True and row["delta_e"] == 0.0 and row["prompt_name"] == "rcid-compare-pixel"
    assert fv.ask_stimulus(stim, human, model, run_id="r")["correct"] is False
    sent = model.seen[0].turns[-1].images[-1]
    assert sent.tobytes() == stim.image.tobytes()  # the exact image (backends encode PNG)
    assert json.loads(row["spec_json"])["family"] == "illusion"


def test_a_scene_question_is_asked_and_scored_from_its_truth():
    scene = fv.render_scene_controls(fv.SceneControls(seed=2, size=256), POLICY)
    q = fv.make_question(scene, fv.SCENE_PROMPTS["colour-counting"])
    # the answer, independently: distinct colours among the pixels (flat shading)
    distinct = len(np.unique(np.asarray(scene.image).reshape(-1, 3), axis=0))
    assert q.options[q.expected] == str(distinct)
    text = fv.question_markdown(q)
    assert "How many different colors" in text and all(f"**{k}** {v}" in text for k, v in q.options.items())
    row = fv.ask_stimulus(scene, q, Scripted(f"({q.expected})"), run_id="r")
    assert row["correct"] is True and row["family"] == "scene" and row["delta_e"] is None
    assert row["group"] == q.task == "colour-counting" and row["colour_set"] is None  # a scene's: its task
    assert "✅ correct" in fv.result_markdown(row)
    assert "declines" in fv.result_markdown(fv.ask_stimulus(scene, q, make_backend("baseline"), run_id="r"))


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet="0123456789?⌫", max_size=20), st.integers(1, 16))
def test_answer_keys_type_digits_within_the_limit(keys, max_text):
    text = ""
    for k in keys:
        before = text
        text = qv.append_key(text, k, max_text)
        assert len(text) <= max_text
        assert text == (before[:-1] if k == "⌫" else (before + k)[:max_text])
    with pytest.raises(ValueError, match="key '/' is not known; allowed: 0 1"):
        qv.append_key("", "/", 4)


def test_quiz_needs_consent_and_caps_restarts(tmp_path, monkeypatch):
    monkeypatch.setenv("PLATES_HUMAN_RESULTS", str(tmp_path))
    config = qv.QuizConfig(trials=3, illusion_trials=4, size=128, max_sessions=2)
    assert "about 7 images" in qv.consent_text(config) and "which square looks darker" in qv.consent_text(config)
    assert "about 3 images" in qv.consent_text(qv.QuizConfig(trials=3, illusion=None))
    with pytest.raises(ValueError, match="tick the box"):
        qv.start_session(config, agreed=False, started=0)
    assert qv.start_session(config, agreed=True, started=1).folder == tmp_path
    with pytest.raises(ValueError, match="started 2 quizzes; allowed: 2 per visit"):
        qv.start_session(config, agreed=True, started=2)
    with pytest.raises(ValueError, match="trials=99 is not allowed; allowed: 1-80"):
        qv.QuizConfig(trials=99)
    with pytest.raises(ValueError, match="illusion_trials=-1 is not allowed; allowed: 0-80"):
        qv.QuizConfig(illusion_trials=-1)
    with pytest.raises(ValueError, match="illusion 'rcid-filter' is not allowed; allowed: None, rcid-contrast"):
        qv.QuizConfig(illusion="rcid-filter")


def test_public_quiz_stores_each_address_up_to_its_share_and_says_so_on_the_page(tmp_path, monkeypatch):
    monkeypatch.setenv("PLATES_HUMAN_RESULTS", str(tmp_path))
    share = RateLimit("stored quiz answers", 1, 86_400.0, unit="bytes")  # smaller than any part
    admission = Admission(memory=MemoryBudget(1 << 40), quiz_store=share)
    config = qv.QuizConfig(trials=3, illusion=None, size=128, limits=QuizLimits(min_seconds_between=0.0))
    hog = qv.start_session(config, agreed=True, started=0, client="203.0.113.7", admission=admission)
    assert hog.store_share is share and hog.client == "203.0.113.7"
    hog.next_trial()
    hog.answer("1")
    assert not list(tmp_path.glob("*.parquet")) and len(hog.rows) == 1  # refused: removed, kept in the session
    page = qv.progress_text(hog, hog.next_trial())
    assert "**Image 2 of 3**" in page and "too many stored quiz answers from your address" in page
    assert "You can still take the quiz" in page
    while not hog.done:
        hog.next_trial()
        hog.answer("?")
    assert "too many stored quiz answers" in qv.result_markdown(hog)


def test_the_reader_runs_the_participants_staircase_once_and_the_result_shows_both(tmp_path):
    config = qv.QuizConfig(trials=8, illusion_trials=3, size=128, limits=QuizLimits(min_seconds_between=0.0))
    session = qv.start_session(config, agreed=True, started=0)
    cache = qv.ReaderCache(tmp_path)
    stair = cache.staircase(session.staircase)
    assert (stair.stimulus, stair.prompt, stair.trials, stair.low, stair.high) == (
        session.staircase.stimulus, session.staircase.prompt, 8, session.staircase.low, session.staircase.high)
    assert stair.model.backend == "baseline" and str(tmp_path) in stair.out
    first = cache.estimate(session.staircase)
    again = qv.start_session(config, agreed=True, started=0)  # another person, another seed: same reader run
    assert cache.estimate(again.staircase) is first and len(cache.known) == 1
    while not session.done:
        trial = session.next_trial()
        session.answer("?" if trial.block == "plate" else "III")
    text = qv.result_markdown(session, first)
    assert f"{session.estimate().threshold:.1f}" in text and f"{first.threshold:.1f}" in text
    assert "bundled reader" in text and "**11** images: **8** plates" in text and "**3** pairs" in text


def test_the_family_tabs_ask_the_reference_observer_for_the_bundled_reader_and_say_so():
    from plates.explorer.backends import ModelCache, ModelChoice

    backend, close = fv.family_backend(ModelChoice("baseline"), None, POLICY, ModelCache())
    assert backend.kind == "reference-pixels" and close is False
    assert "reference observer" in fv.who_answers("baseline") and "openai" in fv.who_answers("baseline")
    stim = illusion(kind="simultaneous-contrast", delta_e=0.0)
    row = fv.ask_stimulus(stim, fv.make_question(stim, "rcid-compare-pixel"), backend, run_id="r")
    assert row["correct"] is True and "Answered by the reference observer" in fv.result_markdown(row)
    with pytest.raises(ValueError, match="an API key is needed"):  # a model of one's own: the Model tab's rules
        fv.family_backend(ModelChoice("openai", "m", "https://api.openai.com/v1"), None, Policy(public=True),
                          ModelCache())
