"""What every reader shares (plates.tasks.answers.text), on real replies that released models wrote: leaked
special tokens, the noun "correction", runaway turns, Chinese answer words; and a 100 kB adversarial reply
that every reader reads (bounded and linear: no timing is asserted, only that it is read).

Replies are quoted verbatim from the corpus in tests/data/replies (ids: benchmark/model/item; BLINK val from
zeyofu/BLINK_Benchmark, MathVista testmini from lupantech/MathVista)."""

from __future__ import annotations

import pytest

from plates.tasks.answers import (
    PARSE_STATUSES,
    SPECIAL_TOKENS,
    prepare,
    read_choice,
    read_colour_name,
    read_label,
    read_number,
    read_text,
    read_yes_no,
)
from plates.tasks.answers.text import after_correction, translated

YES_NO = {"A": "yes", "B": "no"}
POINTS = {k: f"Point {k}" for k in "ABCD"}
DEPTH = {"A": "A is closer", "B": "B is closer"}


# ---- class 4: leaked special tokens -----------------------------------------------------------------------------

def test_leaked_tokens_are_stripped_before_reading():
    # blink/llava-v1.5-7b/val_Spatial_Relation_102 and blink/cogvlm-chat/val_Spatial_Relation_130
    assert read_choice("<s> Yes", YES_NO).answer == "A"
    assert read_choice("no</s>", YES_NO).answer == "B"
    assert read_yes_no("no</s>").answer == "no"


def test_leading_s_token_before_a_long_reply():
    # blink/llava-v1.5-13b/val_Functional_Correspondence_117
    reply = ('<s> Given the two images, the reference point is annotated with REF on the left image. The '
             'corresponding point for the action "Lift Something" would be the point that serves the same function '
             'as the reference point. In this case, the corresponding point would be the handle of the fork, which '
             'is the part that is used to hold the fork and lift it. Therefore, the correct answer is (A) Point A.')
    assert read_choice(reply, POINTS).answer == "A"
    assert not prepare(reply).text.startswith("<s>")


@pytest.mark.parametrize("token", SPECIAL_TOKENS)
def test_every_listed_token_is_stripped(token):
    assert prepare(f"{token}B is closer{token}").text == "B is closer"


def test_a_tag_that_is_no_listed_token_is_kept():
    assert prepare("<b>B</b>").text == "<b>B</b>"


# ---- class 5: the noun "correction" is no self-correction ---------------------------------------------------

def test_the_noun_correction_does_not_trigger_the_correction_rule():
    # blink/MiniGPT-4-v2/val_Relative_Depth_73 (opening)
    assert after_correction("we need to use perspective distortion correction.") is None
    assert after_correction("Correction: the answer is B") == ": the answer is B"


# ---- runaway turns and Chinese answer words -------------------------------------------------------------------

def test_a_runaway_next_turn_is_not_part_of_the_reply():
    # mathvista/mPLUG-Owl-7B/testmini-17: the letter, then the model writes the next prompt itself
    reply = "A\nHuman: Please provide the correct option letter, e.g., A, B, C, or D, at the end of your response."
    assert read_choice(reply, {"A": "5", "B": "6", "C": "8", "D": "10"}).answer == "A"


def test_chinese_answer_words_and_phrase():
    assert translated("左") == "left" and translated("不是。") == "no" and translated("左右") == "左右"
    # mathvista/Claude-2-text-only/testmini-413 ends "答案:B"
    reply = ("* 已知:△ABC中,AB=AC,BD为∠ABC的平分线,∠BDC=75°\n* ∠A和∠C在同一张直角三角形ABC中,所以∠A=∠C\n"
             "* BD平分∠ABC,所以∠ABC=2∠BDC=2×75°=150°\n* ∠A+∠B+∠C=180°\n* ∠A+∠B+∠C=180°\n* ∠A+75°+∠A=180° \n"
             "* 2∠A=180°-75°=105°\n* ∠A=105°/2=35°\n\n所以,∠A的度数为35°。\n\n答案:B")
    assert read_choice(reply, {"A": "25°", "B": "35°", "C": "40°", "D": "45°"}).answer == "B"


# ---- bounded and linear: a 100 kB adversarial reply ------------------------------------------------------------

def _adversarial() -> str:
    """About 100 kB built from every construct the sentence rules and phrases look for, repeated without end:
    answer phrases followed by nothing, conclusions, comparisons, quotes, keys, capitals, special tokens."""
    unit = ('Therefore, the answer is:\n(A) the second image or (B) Neither A nor "no B" than point C, while '
            'A is = 16 <s> 答案: Box D is the correct option. Based on this analysis, ' + " " * 7)
    return (unit * (100_000 // len(unit) + 1))[:100_000]


def test_a_100_kb_adversarial_reply_is_read_by_every_reader():
    reply = _adversarial()
    readings = [
        read_choice(reply, POINTS), read_choice(reply, DEPTH), read_choice(reply, YES_NO, question="Is it the same?"),
        read_yes_no(reply, question="Are the colors on tiles A and B different?"), read_yes_no(reply, "true-false"),
        read_number(reply), read_label(reply, "huemanity-alnum"), read_text(reply, 2), read_colour_name(reply),
    ]
    assert all(r.status in PARSE_STATUSES and r.truncated for r in readings)
