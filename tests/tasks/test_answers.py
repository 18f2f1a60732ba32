"""The answer readers as one system (plates.tasks.answers): one verdict per reply whichever family asks, one
declaration of statuses and one reasoning stripper, bounded reading, and no exception from any reply."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plates.stimuli.illusions import IllusionSpec, render
from plates.tasks import Question, get_task
from plates.tasks.answers import (
    FAILURE_MODES,
    MAX_REPLY_CHARS,
    PARSE_STATUSES,
    read_choice,
    read_colour_name,
    read_label,
    read_number,
    read_text,
    read_yes_no,
    strip_reasoning,
)
from plates.tasks.illusions.questions import mc_question, rcid_name_question, tf_questions

PACKAGE = Path(__file__).resolve().parents[2] / "plates"
OPTIONS = {"A": "7", "B": "12", "C": "3", "D": "45"}


def _plate_question() -> Question:
    return Question(name="colorbench-mc", kind="mc", text="Which number?", expected="B", options=OPTIONS,
                    target="12", label_space="cbe", task="colorbench-blindness", answer_kind="choice")


def _scene_question() -> Question:
    return Question(name="colorbench-colour-counting", kind="mc", text="How many colours?", expected="B",
                    options=OPTIONS, target="12", task="colour-counting", answer_kind="count")


def _illusion_question() -> Question:
    """IllusionBench+ four options numbered I-IV (the order fixed here, so that II is the key)."""
    q = mc_question(render(IllusionSpec("whites", size=96)).truth, seed=0)
    meanings = dict(q.extra["meanings"])
    options = dict(q.options)
    key = q.expected
    # Put the key at II, so that B (its position) and II both name it.
    swap = {key: "II", "II": key}
    options = {swap.get(k, k): options[k] for k in options}
    meanings = {swap.get(k, k): meanings[k] for k in meanings}
    return Question(name=q.name, kind="mc", text=q.text, expected="II", options=dict(sorted(options.items(),
                    key=lambda kv: ["I", "II", "III", "IV"].index(kv[0]))), target=q.target, task=q.task,
                    answer_kind="choice", extra={**q.extra, "meanings": meanings})


def _verdicts(reply: str) -> dict[str, tuple]:
    """(position of the parsed option, status, correct, failure mode) from a plate, a scene and an illusion
    task, each asked the same four-option question with the key second."""
    out = {}
    for family, q in (("plate", _plate_question()), ("scene", _scene_question()),
                      ("illusion", _illusion_question())):
        s = get_task(q.task).score(q, reply)
        position = None if s.parsed is None else list(q.options).index(s.parsed)
        out[family] = (position, s.parse_status, s.correct, s.failure_mode)
    return out


# --- the three replies the families used to judge three ways -------------------------------------------------

@pytest.mark.parametrize(("reply", "verdict"), [
    ("(A) or (B)", (None, "ambiguous", False, "erratic")),  # like the open "12 or 17"
    ("Answer: b) 12", (1, "ok", True, None)),
    ("A. On reflection, the answer is B.", (1, "ok", True, None)),  # an answer phrase wins over a leading letter
])
def test_the_three_replies_get_one_verdict_whichever_family_asks(reply, verdict):
    assert set(_verdicts(reply).values()) == {verdict}, _verdicts(reply)


# The multiple-choice trap tests (tasks/answers/test_choice.py, tasks/test_scoring.py, tasks/illusions/test_questions.py), asked of
# every family: one verdict each.
TRAPS = [
    "B", "(b)", "[B]", "B.", "**(B)**", "Answer: (B)", "The answer is B.", "Final answer: B", "I'd go with B.",
    "(B) looks close, but the curve says (A).", "It could be (A), but maybe (C).", "The answer is A or C.",
    "A, B", "(A)/(B)", "(A) (B)", "The answer is A. On reflection, the answer is C.", "F", "", "   ",
    "<think>maybe (A)</think>B", "<think>I would say (A) but the reply was cut", "I cannot tell.",
    "Looking closely, (A) seems possible, but no. So the answer is (B).", "Several option(s) could fit.",
    "the answer is a blue one", "A. Because it is the first.", "(C) because of the hue",
]


@pytest.mark.parametrize("reply", TRAPS)
def test_every_trap_gets_one_verdict_whichever_family_asks(reply):
    verdicts = _verdicts(reply)
    assert len(set(verdicts.values())) == 1, verdicts


# The one answer-phrase rule (plates.tasks.answers.text.last_answer): the last explicit final-answer phrase
# wins in every reader. Verdicts these replies had before the rule was one (each reader its own):
# numbers "ambiguous" (all phrases had to agree), yes/no the leading word, colours "ambiguous".
LAST_PHRASE = [
    ("number", lambda r: read_number(r), "The number is 12. Answer: 17", "17"),
    ("number", lambda r: read_number(r), "I see 12. The answer is 17.", "17"),
    ("number", lambda r: read_number(r), "Answer: 12. The number is 17.", "17"),
    ("number", lambda r: read_number(r), "The answer is 12. On reflection, the answer is 17.", "17"),
    ("yes-no", lambda r: read_yes_no(r), "Yes. On closer look the answer is no.", "no"),
    ("yes-no", lambda r: read_yes_no(r), "The answer is yes. Final answer: no", "no"),
    ("yes-no", lambda r: read_yes_no(r), "Yes... wait, no", "no"),
    ("true-false", lambda r: read_yes_no(r, "true-false"), "True. Looking again, the answer is false.", "False"),
    ("colour", read_colour_name, "The answer is grey. It looked red at first.", "grey"),
    ("colour", read_colour_name, "The answer is red. On reflection, the answer is grey.", "grey"),
    ("colour", read_colour_name, "Red, actually grey", "grey"),
    ("choice", lambda r: read_choice(r, OPTIONS), "The answer is A. On reflection, the answer is C.", "C"),
    ("choice", lambda r: read_choice(r, OPTIONS), "The answer is 7. Final answer: 12", "B"),
]


@pytest.mark.parametrize(("kind", "read", "reply", "answer"), LAST_PHRASE, ids=[f"{k}: {r}" for k, _, r, _ in
                                                                                 LAST_PHRASE])
def test_the_last_explicit_answer_phrase_wins_in_every_reader(kind, read, reply, answer):
    got = read(reply)
    assert (got.answer, got.status) == (answer, "ok"), got


@pytest.mark.parametrize(("read", "reply"), [
    (lambda r: read_number(r), "The answer is 12 or 17"),  # one phrase naming two answers abstains
    (lambda r: read_number(r), "I see 12. It is 17."),  # implicit mentions never outvote each other
    (lambda r: read_choice(r, OPTIONS), "The answer is A or C."),
    (read_colour_name, "The answer is reddish grey."),
])
def test_a_phrase_naming_two_answers_or_conflicting_implicit_mentions_abstain(read, reply):
    assert read(reply).status == "ambiguous"


def test_roman_numerals_and_letters_are_two_alphabets_of_one_reader():
    q = _illusion_question()
    for reply in ("II", "(II)", "ii.", "B", "Answer: (ii)", "The answer is II because the left is lighter"):
        assert read_choice(reply, q.options).answer == "II", reply
    # Trap: the pronoun "I" is no numeral.
    assert read_choice("I think so", q.options).answer is None
    assert read_choice("(I) or (II)", q.options).status == "ambiguous"


# --- one declaration each --------------------------------------------------------------------------------------

def _sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}


def test_parse_statuses_are_declared_once_and_think_tags_are_stripped_in_one_place():
    sources = _sources()
    declared = [name for name, text in sources.items() if re.search(r"^PARSE_STATUSES\s*=", text, re.MULTILINE)]
    assert declared == ["tasks/answers/text.py"]
    thinking = [name for name, text in sources.items() if "</think>" in text.replace('"', "'")
                and "strip_reasoning" not in text]
    assert thinking == [], thinking
    for old in ("tasks/scoring.py", "tasks/mc_scoring.py"):
        assert old not in sources
    for old in ("def parse_option", "def parse_choice", "def _score_mc", "def parse_true_false"):
        assert not [name for name, text in sources.items() if old in text], old


@pytest.mark.parametrize(("reply", "kept"), [
    ("<think>12 or 17?</think>17", "17"),
    ("<think>a<think>b</think>c</think>Answer: 17", "Answer: 17"),  # nested: the last closing tag ends it
    ("still thinking 12</think> 17", " 17"),  # the opening tag was in the prompt (DeepSeek-R1's template)
    ("17 <think>cut off while thinking", "17 "),
    ("<THINK>x</THINK>B", "B"),
    ("no reasoning", "no reasoning"),
])
def test_the_one_reasoning_stripper(reply, kept):
    assert strip_reasoning(reply) == kept


# --- bounded, linear, exception-free --------------------------------------------------------------------------

def _readers():
    illusion = render(IllusionSpec("whites", size=96)).truth
    mc, tf = mc_question(illusion, seed=3), tf_questions(illusion)[0]
    name = rcid_name_question(render(IllusionSpec("rcid-filter", size=96)).truth, "pixel")
    plate = get_task("cbe-open")
    return {
        "number": lambda r: read_number(r, labels=None),
        "label-alnum": lambda r: read_label(r, "huemanity-alnum"),
        "label-numeric": lambda r: read_label(r, "huemanity-numeric"),
        "text": lambda r: read_text(r, 5),
        "yes-no": lambda r: read_yes_no(r),
        "true-false": lambda r: read_yes_no(r, "true-false"),
        "colour": read_colour_name,
        "choice": lambda r: read_choice(r, OPTIONS),
        "choice-hsv": lambda r: read_choice(r, {"A": "(120°, 76%, 55%)", "B": "(200°, 50%, 40%)"}),
        "choice-hex": lambda r: read_choice(r, {"A": "#1A2B3C", "B": "#000000"}),
        "illusion-mc": lambda r: get_task(mc.task).score(mc, r),
        "illusion-tf": lambda r: get_task(tf.task).score(tf, r),
        "illusion-name": lambda r: get_task(name.task).score(name, r),
        "plate-cbe": lambda r: plate.score(Question(name="cbe-open", kind="open", text="?", expected="12",
                                                     label_space="cbe", task="cbe-open"), r),
    }


def _well_formed(result) -> None:
    status = getattr(result, "status", None) or result.parse_status
    answer = result.answer if hasattr(result, "answer") else result.parsed
    assert status in PARSE_STATUSES
    assert result.failure_mode is None or result.failure_mode in FAILURE_MODES
    assert (answer is None) == (status != "ok")


HUGE = {
    "4,400 digits": "7" * 4400,
    "5,000 digits after a phrase": "The number is " + "9" * 5000,
    "1 1 1": "1 " * 200_000,
    "12 or": "12 or " * 50_000,
    "(A) or": "(A) or " * 50_000,
    "nested think": "<think>" * 30_000 + "B" + "</think>" * 20_000,
    "unicode digits": "\u0661\u0662 " * 100_000,
    "spaces": "12" + " " * 300_000 + "17",
    "colour triples": "(1, 2, 3), " * 100_000,
    "hex digits": "1a2b3c" * 150_000,
}


@pytest.mark.parametrize("shape", list(HUGE))
def test_a_huge_pathological_reply_is_read_without_an_exception_and_says_it_was_cut(shape):
    reply = HUGE[shape]
    for name, read in _readers().items():
        result = read(reply)
        _well_formed(result)
        assert result.truncated == (len(strip_reasoning(reply)) > MAX_REPLY_CHARS), (shape, name)


def test_a_5000_digit_number_is_unparsed_and_erratic_not_an_error():
    s = read_number("9" * 5000)
    assert (s.answer, s.status, s.failure_mode) == (None, "unparsed", "erratic")
    assert read_number("12" + "0" * 70).answer is None  # beyond 64 digits: no number
    assert read_number("121212121212").answer == "121212121212"  # still read, and wrong (erratic)


def test_an_answer_in_the_head_or_the_tail_of_a_cut_reply_is_read():
    filler = "The dots vary in size and hue. " * 2000
    assert read_number("Answer: 42. " + filler).answer == "42"
    assert read_choice(filler + " So the answer is (B).", OPTIONS).answer == "B"
    cut = read_choice(filler + " So the answer is (B).", OPTIONS)
    assert cut.truncated and cut.status == "ok"


_NASTY = st.sampled_from(["1", " ", "or", "(", ")", "A", "B", "I", "V", "<think>", "</think>", "\n", "answer is",
                          "9" * 50, "\u0661", "²", "ſ", "\u212a", "yes", "no", "true", "red", "grey", ".", ",",
                          "actually", "left is darker", "twenty-one", "plate", "#", ":", "**", "°", "%",
                          "1a2b3c", "(120, 76, 55)", "rgb("])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_NASTY, max_size=400), free=st.text(max_size=200))
def test_fuzz_no_reader_raises_on_any_reply(parts, free):
    reply = "".join(parts) + free
    for read in _readers().values():
        _well_formed(read(reply))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=st.lists(_NASTY, min_size=1, max_size=6), times=st.integers(1_000, 3_000))
def test_fuzz_repeated_units_longer_than_the_cap(unit, times):
    reply = "".join(unit) * times
    for read in _readers().values():
        _well_formed(read(reply))


def test_the_tasks_import_without_any_ui_toolkit_or_torch():
    import subprocess
    import sys

    code = ("import sys, plates.tasks, plates.tasks.answers, plates.runs.rescore; "
            "print(sorted(m for m in ('gradio', 'streamlit', 'torch', 'plotly') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
