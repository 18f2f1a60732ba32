"""One test per tricky reply to a plate question: what each parses to, and why (the readers' policies in
plates/tasks/answers/; the plate scorer plates.tasks.ishihara.score)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plates.stimuli.ishihara.labels import (
    CBE_NUMBERS,
    HUEMANITY_ALNUM,
    HUEMANITY_NUMERIC,
    HUEMANITY_SYMBOLS,
    LABEL_SPACES,
)
from plates.tasks.answers import FAILURE_MODES, PARSE_STATUSES
from plates.tasks.answers.labels import parse_number
from plates.tasks.base import Score
from plates.tasks.ishihara import score

OPTIONS = {"A": "12", "B": "17", "C": "3", "D": "45"}


def cbe(reply: str, expected: str = "12") -> Score:
    return score("open", reply, expected, label_space="cbe")


def alnum(reply: str, expected: str = "Rw") -> Score:
    return score("open", reply, expected, label_space="huemanity-alnum")


def numeric(reply: str, expected: str = "42") -> Score:
    return score("open", reply, expected, label_space="huemanity-numeric")


def mc(reply: str, expected: str = "B") -> Score:
    return score("mc", reply, expected, options=OPTIONS)


def yn(reply: str, expected: str = "yes") -> Score:
    return score("yesno", reply, expected)


def verdict(s: Score) -> tuple:
    return (s.parsed, s.parse_status, s.correct, s.failure_mode)


# --- the replies the issue names ---------------------------------------------------------------------------

def test_two_answers_12_or_17_is_ambiguous_and_erratic():
    # Several conflicting answers: neither is the model's answer (HueManity App. E.3, erratic).
    assert verdict(cbe("12 or 17")) == (None, "ambiguous", False, "erratic")
    assert verdict(cbe("12 or 17", "17")) == (None, "ambiguous", False, "erratic")


def test_i_see_12_with_a_full_stop():
    assert verdict(cbe("I see 12.")) == ("12", "ok", True, None)


def test_answer_7b_is_a_label_only_in_the_alnum_space():
    assert verdict(alnum("Answer: 7b", "7b")) == ("7b", "ok", True, None)
    # CBE: digits glued to a letter are not a number ("7b" is not 7).
    assert verdict(cbe("Answer: 7b", "7")) == (None, "unparsed", False, "hallucination")
    # HueManity numeric: "7b" is not in "10".."99" -> invalid (B.2).
    assert verdict(numeric("Answer: 7b", "75")) == (None, "unparsed", False, "hallucination")


def test_the_number_is_not_visible_is_a_refusal():
    assert verdict(cbe("The number is not visible")) == (None, "refusal", False, "evasion")
    assert verdict(alnum("I cannot identify any characters in this image.")) == (None, "refusal", False, "evasion")


def test_self_correction_takes_the_number_after_the_correction():
    assert verdict(cbe("It's 12... no, actually 17", "17")) == ("17", "ok", True, None)
    assert verdict(cbe("It's 12... no, actually 17", "12")) == ("17", "ok", False, None)
    assert verdict(cbe("Wait, it is 17, not 12", "17"))[:3] == ("17", "ok", True)


def test_rather_is_not_a_correction():
    # "12 rather than 17" names two numbers and corrects nothing.
    assert verdict(cbe("12 rather than 17")) == (None, "ambiguous", False, "erratic")


def test_repeated_string_is_erratic():
    assert verdict(cbe("L1L1L1L1")) == (None, "unparsed", False, "erratic")
    # HueManity B.2 reads its first two alphanumerics "L1": a valid label, wrong, and erratic.
    assert verdict(alnum("L1L1L1L1")) == ("L1", "ok", False, "erratic")
    assert verdict(alnum("[L1L1L1]")) == ("L1", "ok", False, "erratic")  # the paper's own example
    assert verdict(cbe("121212121212")) == ("121212121212", "ok", False, "erratic")


def test_repeated_string_equal_to_the_label_is_correct_under_b2():
    # B.2 taken literally: the first two alphanumerics are the answer.
    assert verdict(alnum("L1L1L1L1", "L1")) == ("L1", "ok", True, None)


def test_leading_zero_is_the_same_number_in_cbe():
    assert verdict(cbe("Answer: 07", "7")) == ("7", "ok", True, None)
    # HueManity numeric has no leading zeros (B.1): "07" is not a label.
    assert verdict(numeric("Answer: 07", "70"))[:3] == (None, "unparsed", False)


def test_number_word_as_the_whole_reply():
    assert verdict(cbe("twelve")) == ("12", "ok", True, None)
    assert verdict(cbe("Forty-two.", "42")) == ("42", "ok", True, None)
    assert verdict(cbe("The number is seventy four", "74"))[:3] == ("74", "ok", True)


def test_number_words_in_prose_are_not_answers():
    # "one" and "two" here count things; they do not answer.
    assert verdict(cbe("I see a two-digit number made of green dots.", "2"))[:3] == (None, "refusal", False)
    assert verdict(cbe("It is one of the Ishihara plates; the number is 74", "74")) == ("74", "ok", True, None)


def test_number_in_a_sentence_with_other_numbers():
    assert verdict(cbe("This Ishihara plate (plate 5) shows 42", "42")) == ("42", "ok", True, None)
    assert verdict(cbe("Among the 200 dots I can make out 42", "42"))[:3] == ("42", "ok", True)


def test_markdown_bold():
    assert verdict(cbe("**42**", "42")) == ("42", "ok", True, None)
    assert verdict(alnum("**Answer:** Rw")) == ("Rw", "ok", True, None)


def test_yes_no_with_trailing_explanation():
    assert verdict(yn("Yes, the number 12 is clearly visible in the dots.")) == ("yes", "ok", True, None)
    assert verdict(yn("No. The number in the image is 17.", "no")) == ("no", "ok", True, None)
    assert verdict(yn("No, the number is 17.")) == ("no", "ok", False, None)  # wrong, plainly answered
    assert verdict(yn("'Yes'")) == ("yes", "ok", True, None)
    assert verdict(yn("The answer is: no", "no")) == ("no", "ok", True, None)


def test_no_number_is_visible_is_not_the_answer_no():
    assert verdict(yn("No number is visible in this image.", "no")) == (None, "refusal", False, "evasion")


def test_option_after_chain_of_thought_is_the_answer_phrase_and_two_bare_options_abstain():
    reply = "Looking closely, (A) 12 seems possible, but the top stroke is a 7. So the answer is (B)."
    assert verdict(mc(reply)) == ("B", "ok", True, None)
    # No answer phrase decides between (B) and (A): abstain (lmms-eval's mcq_extract convention), the same
    # verdict the scene and illusion tasks give; the plate scorer used to take the last "(X)".
    assert verdict(mc("(B) looks close, but the curve says (A).")) == (None, "ambiguous", False, "erratic")


def test_option_is_not_the_last_letter_anywhere():
    # ColorBench's extract_letter takes the last letter anywhere ("...clearer" -> "r"); we do not.
    assert verdict(mc("I choose B because it is clearer")) == ("B", "ok", True, None)
    # "option(s)" is no answer "(S)".
    assert mc("The option(s) are unclear").parse_status == "refusal"


@pytest.mark.parametrize("reply", ["B", "(B)", "b", "B.", "B) 17", "Answer: B", "17", "**(B)**"])
def test_option_letter_forms(reply):
    assert verdict(mc(reply)) == ("B", "ok", True, None)


def test_lowercase_letters_in_alnum_are_case_sensitive():
    # B.2: case-sensitive exact match; "rw" is a valid label, just not "Rw": a plain misreading.
    assert verdict(alnum("Answer: rw")) == ("rw", "ok", False, None)
    assert verdict(alnum("Answer: RW")) == ("RW", "ok", False, None)


def test_symbols_outside_the_58_are_invalid():
    # l, O, I, J are excluded (B.1); "²" passes str.isalnum but is not a symbol.
    for reply in ("Answer: lO", "Answer: IJ", "Answer: 4²"):
        assert alnum(reply).parse_status == "unparsed", reply


def test_empty_reply():
    for reply in ("", "   \n"):
        assert verdict(cbe(reply)) == (None, "unparsed", False, "evasion")
        assert verdict(mc(reply)) == (None, "unparsed", False, "evasion")
        assert verdict(yn(reply)) == (None, "unparsed", False, "evasion")


# --- HueManity App. E's own examples -------------------------------------------------------------------------

def test_huemanity_failure_examples():
    assert alnum("MUST SEE").failure_mode == "hallucination"  # E.1 (parsed "MU" by B.2, wrong)
    assert alnum("SOLU", "Tv").failure_mode == "hallucination"  # E.1 ("SO": O is not a symbol)
    assert alnum("HQJHSTOS", "Tv").failure_mode == "hallucination"  # E.1
    assert alnum("4726", "Wh").failure_mode == "erratic"  # E.3 "unrelated number"
    assert numeric("Answer: 76492385", "42").failure_mode == "erratic"  # Table 4 zero-shot pattern predictions
    assert alnum("The image shows an Ishihara color vision test.").failure_mode == "evasion"  # E.2


def test_refusal_never_counts_as_correct():
    # B.2 would read "So"; a refusal is never a correct answer.
    assert verdict(alnum("Sorry, I can't read it", "So")) == (None, "refusal", False, "evasion")


def test_b2_takes_the_first_two_alphanumerics_literally():
    assert verdict(numeric("Answer: 42.")) == ("42", "ok", True, None)
    assert verdict(numeric("Answer: [42]")) == ("42", "ok", True, None)
    assert verdict(numeric("answer:42")) == ("42", "ok", True, None)
    # Not sticking to the format: B.2 reads "Th" (not a number label) -> unparsed.
    assert numeric("The number is 42").parse_status == "unparsed"


def test_out_of_space_number_is_erratic():
    assert verdict(cbe("123")) == ("123", "ok", False, "erratic")


def test_plain_misreading_has_no_failure_mode():
    assert verdict(cbe("17")) == ("17", "ok", False, None)
    assert verdict(cbe("The number is 17.")) == ("17", "ok", False, None)


def test_any_space_text_and_numbers():
    assert verdict(score("open", '"HELLO".', "HELLO")) == ("HELLO", "ok", True, None)
    assert verdict(score("open", "hello", "HELLO")) == ("hello", "ok", False, None)
    assert verdict(score("open", "I see 123", "123")) == ("123", "ok", True, None)


def test_parse_number_rules():
    assert parse_number("42").rule == "whole"
    assert parse_number("It's 12... no, actually 17").rule == "correction"
    assert parse_number("I see 12 and 17").ambiguous
    assert parse_number("Plate 3 of 10").value is None


def test_bad_arguments_name_what_is_allowed():
    with pytest.raises(ValueError, match="kind 'essay'.*open, yesno, mc"):
        score("essay", "x", "1")
    with pytest.raises(ValueError, match="label_space 'greek'"):
        score("open", "x", "1", label_space="greek")
    with pytest.raises(ValueError, match="reply must be a str"):
        score("open", None, "1")
    with pytest.raises(ValueError, match="'123' is not in label space 'cbe'"):
        score("open", "x", "123", label_space="cbe")
    with pytest.raises(ValueError, match="allowed: yes, no"):
        score("yesno", "yes", "maybe")
    with pytest.raises(ValueError, match="option 'E'.*A, B, C, D"):
        score("mc", "E", "E", options=OPTIONS)
    with pytest.raises(ValueError, match="single letters"):
        score("mc", "A", "A", options={"1": "x"})


# --- properties --------------------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(space=st.sampled_from(["cbe", "huemanity-numeric", "huemanity-alnum"]), data=st.data())
def test_answer_prefix_label_always_scores_correct(space, data):
    label = data.draw(st.sampled_from(LABEL_SPACES[space]))
    for reply in (f"Answer: {label}", label, f"  {label}\n", f"**{label}**"):
        s = score("open", reply, label, label_space=space)
        assert (s.correct, s.parse_status, s.failure_mode, s.parsed) == (True, "ok", None, label), reply


def test_every_alnum_label_scores_correct():
    for label in HUEMANITY_ALNUM:
        assert score("open", f"Answer: {label}", label, label_space="huemanity-alnum").correct
    assert len(HUEMANITY_SYMBOLS) == 58 and len(HUEMANITY_NUMERIC) == 90 and len(CBE_NUMBERS) == 100


@settings(max_examples=400, deadline=None)
@given(reply=st.text(max_size=80), kind=st.sampled_from(["open", "yesno", "mc"]),
       space=st.sampled_from(["cbe", "huemanity-numeric", "huemanity-alnum", "any"]))
def test_any_reply_gets_a_well_formed_score(reply, kind, space):
    expected = {"open": "42", "yesno": "no", "mc": "C"}[kind]
    s = score(kind, reply, expected, label_space=space, options=OPTIONS if kind == "mc" else None)
    assert s.parse_status in PARSE_STATUSES
    assert s.failure_mode is None or s.failure_mode in FAILURE_MODES
    assert (s.parsed is None) == (s.parse_status != "ok")
    assert not (s.correct and s.failure_mode is not None)
    assert not (s.correct and s.parse_status != "ok")


@settings(max_examples=200, deadline=None)
@given(thought=st.text(alphabet=st.characters(blacklist_characters="()"), max_size=60),
       earlier=st.sampled_from("ABCD"), final=st.sampled_from("ABCD"))
def test_chain_of_thought_last_option_wins(thought, earlier, final):
    reply = f"Option ({earlier}) is tempting. {thought} Therefore the answer is ({final})"
    assert mc(reply, final).parsed == final


@pytest.mark.parametrize("reply", ["Nothing", "I don't know", "None.", "I do not know."])
def test_shrugs_are_evasions(reply):
    assert verdict(cbe(reply)) == (None, "refusal", False, "evasion")


def test_answer_phrase_then_a_second_number_is_two_answers():
    assert verdict(cbe("I see 12 and 17")) == (None, "ambiguous", False, "erratic")
    assert verdict(cbe("The number is 12, not 17")) == ("12", "ok", True, None)


def test_counts_and_references_are_not_answers():
    assert verdict(cbe("Plate 3 of 10")) == (None, "unparsed", False, "hallucination")
    reply = "In this image I can see the number 12 on a background of 3 colours."
    assert verdict(cbe(reply)) == ("12", "ok", True, None)


def test_yes_no_word_inside_the_reply():
    assert verdict(yn("I think yes.")) == ("yes", "ok", True, None)
    assert verdict(yn("There is no 12 in this image.", "no")) == ("no", "ok", True, None)
    # Both words: no answer; an evasion when it says it cannot tell.
    assert verdict(yn("Yes or no, it is hard to say which.")) == (None, "refusal", False, "evasion")
    assert verdict(yn("I would say yes for the top and no for the bottom"))[:3] == (None, "ambiguous", False)


def test_reasoning_block_is_not_the_answer():
    reply = "<think>Could be 12 or 17... the loop closes, so 17.</think>\n\n17"
    assert verdict(cbe(reply, "17")) == ("17", "ok", True, None)
    # Cut off while still thinking: no answer at all.
    assert verdict(cbe("<think>Hmm, 12 or maybe 17", "12")) == (None, "unparsed", False, "evasion")
    assert verdict(alnum("<think>R then w</think>Answer: Rw")) == ("Rw", "ok", True, None)


def test_bad_expected_is_refused_even_for_an_empty_reply():
    with pytest.raises(ValueError, match="not in label space"):
        score("open", "", "100", label_space="cbe")


@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 99), form=st.sampled_from(
    ["{n}", "The number is {n}.", "I see {n}", "**{n}**", "Answer: {n}", "It looks like {n} to me.",
     "The plate (plate 3) shows {n}.", "I can see the number {n} made of orange dots"]))
def test_cbe_number_forms_always_parse(n, form):
    s = cbe(form.format(n=n), str(n))
    assert (s.parsed, s.correct) == (str(n), True), form
