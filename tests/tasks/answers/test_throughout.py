"""Choice rule 5i (`plates.tasks.answers.throughout`): one option named wherever the reply names one. Each rule is
read on real replies of the corpus (tests/data/replies, quoted by corpus id) and on near-misses that must stay
unread."""

from __future__ import annotations

import functools

import pytest

from plates.tasks.answers import read_choice
from plates.tasks.answers.choice import key_patterns
from plates.tasks.answers.mentions import names_of
from plates.tasks.answers.throughout import WINDOW_CHARS, one_option_throughout
from tests.support.reply_corpus import load_replies
from tests.support.reply_reading import options_of

SECOND_THIRD = {"A": "the second image", "B": "the third image"}  # BLINK Art_Style, Jigsaw, Visual_Similarity
POINTS = {k: f"Point {k}" for k in "ABCD"}  # BLINK *_Correspondence
PICTURES = {k: f"picture {k}" for k in "ABCD"}  # BLINK IQ_Test
LEFT_RIGHT = {"A": "left", "B": "right"}  # BLINK Multi-view_Reasoning
DEPTH = {"A": "A is closer", "B": "B is closer"}  # BLINK Relative_Depth


@functools.cache
def _corpus():
    return load_replies()


def _real(corpus_id: str):
    """A corpus reply read as the bench reads it, with the rule that decided."""
    reply = _corpus()[corpus_id]
    return read_choice(reply.reply, options_of(reply))


@pytest.mark.parametrize(("corpus_id", "key"), [
    # "Comparing the edges of the second and third images, it is more appropriate to place the second image in
    # the missing spot ... This is because the second image has a woman in the center, while the third image
    # does not." (several option texts before)
    ("blink/llava-internlm2-7b/val_Jigsaw_131", "A"),
    # "... it is more appropriate to place the third image ... while the edges of the second image do not match"
    ("blink/llava-internlm2-7b/val_Jigsaw_54", "B"),
    # "... the second image would be a more appropriate fit ... more closely than the edges of the third image."
    ("blink/llava-internlm2-7b/val_Jigsaw_77", "A"),
    # '<s> Given the two images, ... The corresponding point ... is the red-circled point with the letter "A"
    # beside it on the second image.' (unparsed before: its first sentence names no option)
    ("blink/llava-v1.5-13b/val_Semantic_Correspondence_111", "A"),
    # "The camera is moving clockwise, which is to the right when shooting the video." (unparsed before)
    ("blink/QwenVLMax/val_Multi-view_Reasoning_26", "B"),
    # 'Based on their relative sizes and positions, the man labeled "A" appears to be standing closer to the camera
    # than the boy labeled "B".' (read B before: the last lone capital)
    ("blink/OPUS/val_Relative_Depth_120", "A"),
])
def test_a_real_reply_naming_one_option_throughout_commits_to_it(corpus_id, key):
    got = _real(corpus_id)
    assert (got.answer, got.status, got.rule) == (key, "ok", "one option throughout")


@pytest.mark.parametrize("corpus_id", [
    # "... it is not possible to accurately determine which of the second or third image ... The reference image
    # is a drawing of a cow, while the second image is a painting ..." (a doubt the shared hedge words miss)
    "blink/llava-internlm2-7b/val_Art_Style_99",
    # "<s> Based on the image description, it is not possible to determine ... However, I can observe that the
    # second image has a man sitting in a chair, while the third image has a man standing."
    "blink/llava-v1.5-7b/val_Jigsaw_15",
    # "A B C D" (Yi-VL-34B lists the picture keys)
    "blink/Yi-VL-34B/val_IQ_Test_121",
    # "... Therefore, neither of the second or third images share the same style as the reference image."
    "blink/QwenVLMax/val_Art_Style_27",
])
def test_real_replies_that_doubt_list_or_reject_stay_unread(corpus_id):
    assert _real(corpus_id).answer is None


def test_the_rule_on_its_own_terms():
    names = names_of(tuple(SECOND_THIRD.items()))
    p = key_patterns("letters")

    def rule(text: str, names=names):
        return one_option_throughout(text, names, p.paren, p.option_word, str.upper)

    assert rule("The scene is a street. Comparing the second and third images, the third image fits best.") == "B"
    # traps: two options in one sentence; a negated mention; two sentences naming different options
    assert rule("The second image and the third image both fit.") is None
    assert rule("The scene is a street. The third image is not a good fit.") is None
    assert rule("The second image fits. The third image fits too.") is None
    # a doubt, a question, an answer phrase, a colon inside the sentence veto the reply
    assert rule("It depends on the light. The second image fits.") is None
    assert rule("Which fits? The second image fits.") is None
    assert rule("The second image fits. The answer is (C) neither.") is None
    assert rule("Four choices: the second image, a cat and a dog.") is None
    # a key written as a label that is not the pick; a capital key letter that is not the pick
    assert rule("The best fit is (B) the second image.") is None
    assert rule("The correct letter is B. The second image fits.") is None
    # a reply longer than the window is not read
    assert rule("The second image fits. " + "The scene is calm. " * (WINDOW_CHARS // 19)) is None
    # no mention at all
    assert rule("The scene is a street with two cars.") is None


def test_a_capital_key_list_names_no_option_and_a_single_capital_does():
    assert read_choice("A B C D", PICTURES).answer is None
    got = read_choice("The reference point is labeled REF. The corresponding point is labeled C on the second image.",
                      POINTS)
    assert (got.answer, got.rule) == ("C", "one option throughout")


def test_a_direction_named_in_a_clause_is_read_and_a_negated_one_is_not():
    assert read_choice("The camera is moving clockwise, which is to the left here.", LEFT_RIGHT).answer == "A"
    assert read_choice("The camera is not moving to the left in this video.", LEFT_RIGHT).answer is None
