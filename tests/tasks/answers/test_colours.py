"""`plates.tasks.answers.colours`: the basic colour term an open reply names (RCID Fig. 1c), and colour codes
(RGB / HSV triples, HEX) as the multiple-choice reader matches them (ColorBench Table 7)."""

from __future__ import annotations

import pytest

from plates.tasks.answers.colours import colour_code, colour_code_at, colour_codes_in, read_colour_name


@pytest.mark.parametrize(("reply", "answer", "rule"), [
    ("It looks gray to me.", "grey", "basic colour term"),  # a synonym maps to its term
    ("crimson", "red", "basic colour term"),
    ("It looks red at first. The answer is grey.", "grey", "answer phrase"),  # the answer phrase decides
    ("The answer is red. On reflection, the answer is grey.", "grey", "after a correction: basic colour term"),
    ("red... actually, grey", "grey", "after a correction: basic colour term"),
])
def test_one_colour_term_is_the_answer(reply, answer, rule):
    reading = read_colour_name(reply)
    assert (reading.answer, reading.status, reading.rule, reading.failure_mode) == (answer, "ok", rule, None)


@pytest.mark.parametrize("reply", ["the answer is reddish grey", "The disc is red and green.", "not red, grey"])
def test_two_terms_abstain_as_ambiguous(reply):
    reading = read_colour_name(reply)
    assert reading.answer is None and reading.status == "ambiguous"
    assert reading.rule.startswith("several colour names: ")


def test_whole_words_only_and_no_term_is_unparsed():
    reading = read_colour_name("A redundant reply")  # "redundant" names no red
    assert (reading.answer, reading.status, reading.rule) == (None, "unparsed", "no colour name")
    assert read_colour_name("").status == "unparsed"


@pytest.mark.parametrize("reply", ["I cannot tell", "no idea"])
def test_declining_is_a_refusal(reply):
    reading = read_colour_name(reply)
    assert (reading.answer, reading.status, reading.failure_mode) == (None, "refusal", "evasion")


@pytest.mark.parametrize(("text", "code"), [
    ("(34, 139, 34)", ("triple", "34", "139", "34")),
    ("34,139,34", ("triple", "34", "139", "34")),
    ("rgb(34, 139, 34)", ("triple", "34", "139", "34")),
    ("(034, 139, 034)", ("triple", "34", "139", "34")),  # leading zeros ignored, compared as digit strings
    ("(0, 00, 000)", ("triple", "0", "0", "0")),
    ("(120°, 76%, 55%)", ("hsv", "120", "76", "55")),  # written with ° or %: only an HSV option
    ("120 °, 76 %, 55 %", ("hsv", "120", "76", "55")),
    ("#1a2b3c", ("hex", "1A2B3C")),
    ("1A2B3C", ("hex", "1A2B3C")),
    ("Blue", None),
    ("#abc", None),  # three-digit shorthand is no code
    ("1,2,3,4", None),  # RGBA is no code
    ("(120.5°, 76%, 55%)", None),  # decimals are no code
    ("(1234, 1, 1)", None),  # four digits
])
def test_colour_code_of_a_whole_text(text, code):
    assert colour_code(text) == code


def test_colour_code_at_reads_after_an_answer_phrase():
    assert colour_code_at("The answer is rgb(1, 2, 3).", 14) == ("triple", "1", "2", "3")
    assert colour_code_at("answer: #00ff00", 7) == ("hex", "00FF00")
    assert colour_code_at("answer: blue", 7) is None


def test_colour_codes_in_finds_every_code_in_order_per_pattern():
    text = "rgb(34, 139, 34) or (120°, 76%, 55%), maybe #ABCDEF, not 120.5, 3, 4"
    assert colour_codes_in(text) == [("triple", "34", "139", "34"), ("hsv", "120", "76", "55"),
                                     ("hex", "ABCDEF")]
    assert colour_codes_in(text, hexes=False) == [("triple", "34", "139", "34"), ("hsv", "120", "76", "55")]
    assert colour_codes_in(text, triples=False) == [("hex", "ABCDEF")]
    assert colour_codes_in("no code here") == []
