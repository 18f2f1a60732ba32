"""`plates.tasks.base`: the one Question / Score / Task form every family's task shares; the pixel observer's
reply; questions written to JSON and read back, bad JSON named."""

from __future__ import annotations

import json

import pytest

from plates.models.base import QUERY_KINDS
from plates.stimuli.scenes import SceneSpec, render
from plates.tasks.base import (
    ANSWER_KINDS,
    QUERY_KIND_OF,
    Question,
    Score,
    Task,
    pixel_reply,
    question_from_json,
    question_to_json,
    subject_of,
)

MEANINGS = {"I": "A darker", "II": "B darker", "III": "same"}


def _question(**kw) -> Question:
    base = dict(name="q", kind="mc", text="?", expected="I", options={"I": "L", "II": "R", "III": "="})
    return Question(**{**base, **kw})


def test_every_answer_kind_is_asked_as_a_query_kind_backends_know():
    assert set(QUERY_KIND_OF) == set(ANSWER_KINDS) and set(QUERY_KIND_OF.values()) <= set(QUERY_KINDS)


@pytest.mark.parametrize(("pixel", "reply"), [("same", "III"), ("A darker", "I"), ("lighter", None)])
def test_pixel_reply_picks_the_option_that_means_the_pixels_answer(pixel, reply):
    q = _question(extra={"pixel_answer": pixel, "meanings": MEANINGS})
    assert pixel_reply(q) == reply  # None: no option says what the pixels say


def test_pixel_reply_names_a_colour_or_writes_expected_in_the_answer_format():
    named = _question(kind="open", expected="red", answer_kind="name", answer_format="Answer: {answer}",
                      extra={"pixel_answer": "grey"})
    assert pixel_reply(named) == "Answer: grey"  # the pixels' colour, not the perceived one
    statement = _question(kind="yesno", expected="True", answer_kind="label", extra={"pixel_answer": "True"})
    assert pixel_reply(statement) == "True"
    scene = _question(expected="C", extra={"paper_task": "counting"})
    assert pixel_reply(scene) == "C" and pixel_reply(_question(expected="", extra={"paper_task": "x"})) is None


def test_pixels_do_not_decide_a_plates_figure():
    assert pixel_reply(Question("cbe-open", "open", "Which number?", expected="12")) is None


def test_a_question_round_trips_through_json_with_every_field():
    q = _question(target="12", label_space="cbe", cot=True, task="plate-open", answer_kind="choice",
                  extra={"pixel_answer": "same", "meanings": MEANINGS})
    text = question_to_json(q)
    assert set(json.loads(text)) == set(q.__dataclass_fields__)
    assert question_from_json(text) == q


@pytest.mark.parametrize(("text", "match"), [
    ("not json", "a question must be JSON written by question_to_json; got 'not json'"),
    (None, "a question must be JSON written by question_to_json"),
    ("[1, 2]", "must be an object with name, kind, text and expected"),
    ('{"name": "q", "kind": "open", "text": "?"}', "must be an object with name, kind, text and expected"),
    ('{"name": "q", "kind": "open", "text": "?", "expected": "1", "secret": 1}', "and only the fields .*variant"),
])
def test_bad_question_json_is_named(text, match):
    with pytest.raises(ValueError, match=match):
        question_from_json(text)


def _score(question: Question, reply: str) -> Score:
    return Score(reply, "ok", reply == question.expected, None)


def test_a_task_names_its_families_and_refuses_an_unknown_answer_kind():
    task = Task("t", "scene", "count", question=lambda *a, **k: _question(), score=_score, source="ColorBench",
                extra_families=("scene-variant",))
    assert task.families == ("scene", "scene-variant")
    assert task.score(_question(), "I") == Score("I", "ok", True, None, "", False)
    with pytest.raises(ValueError, match="task 'bad': answer_kind 'number' is not allowed; allowed: label, yesno"):
        Task("bad", "scene", "number", question=lambda *a, **k: _question(), score=_score, source="x")


def test_subject_of_a_stimulus_is_its_truth_with_the_stimulus_seed_and_question():
    stim = render(SceneSpec(seed=7, size=64))
    assert subject_of(stim) == {**stim.truth, "stimulus": stim, "spec_seed": 7, "question": None}
    assert subject_of(stim, {"task": "x"})["question"] == {"task": "x"}
