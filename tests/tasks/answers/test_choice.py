"""The multiple-choice reader: one test per trap, named after it (plates.tasks.answers.choice; the scene tasks'
scorer plates.tasks.scenes.score_reply is the reader plus the verdict)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plates.tasks.answers import PARSE_STATUSES, read_choice
from plates.tasks.answers.choice import check_options
from plates.tasks.answers.text import verdict

# five options so that "e" (what ColorBench's extractor reads from "(B) Blue") is a real option letter
OPTIONS = {"A": "Red", "B": "Blue", "C": "Green", "D": "Yellow", "E": "Purple"}


def _letter(reply: str, options=OPTIONS) -> str | None:
    return read_choice(reply, options).answer


def parse_choice(reply, options):
    return read_choice(reply, options)


def score_choice(reply, options, expected):
    if expected not in check_options(options):
        raise ValueError(f"expected {expected!r} is not an option letter")
    return verdict(read_choice(reply, options), expected)


# ---- ColorBench's two bugs ------------------------------------------------------------------------------------

def test_colorbench_bug_paren_letter_then_text_is_not_read_as_e():
    c = score_choice("(B) Blue", OPTIONS, "B")
    assert c.parsed == "B" and c.correct and c.parsed != "E"


def test_colorbench_bug_option_text_alone_is_scored_correct():
    c = score_choice("Blue", OPTIONS, "B")
    assert c.parsed == "B" and c.parse_status == "ok" and c.correct


# ---- accepted forms -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("reply", ["(B)", "B.", "B", "b", "(b)", "[B]", "Option B", "B) Blue", "b) blue",
                                   "B. Blue", "B: Blue", "The answer is B", "The answer is B.", "Answer: (B)",
                                   "**B**", "Final answer: B", "The correct answer is (B).", "  B\n"])
def test_accepted_letter_forms(reply):
    assert _letter(reply) == "B"


def test_option_text_case_and_full_stop_ignored():
    assert _letter("blue.") == "B" and _letter("  BLUE ") == "B"


def test_answer_is_followed_by_option_text():
    assert _letter("The answer is Blue.") == "B"


def test_letter_followed_by_its_own_text_without_delimiter():
    assert _letter("B Blue") == "B"


def test_cot_reply_concluding_with_parenthesised_letter():
    reply = "The shape is filled with a cool, saturated colour. Comparing with the choices, I conclude (B)."
    assert _letter(reply) == "B"


def test_cot_reply_mentioning_options_then_concluding():
    assert _letter("Option A is red and option B is blue. The answer is B.") == "B"


def test_final_colon_after_discussing_an_option():
    assert _letter("Let me think. (A) is red... no. Final: (B)") == "B"


def test_think_block_numbers_and_letters_are_not_the_answer():
    assert _letter("<think>maybe A, or (C)</think>B") == "B"
    # Cut off while thinking: nothing was answered (unparsed, evasion; the old scene parser said "empty").
    c = parse_choice("<think>I would say (A) but the reply was cut", OPTIONS)
    assert (c.status, c.failure_mode) == ("unparsed", "evasion")


def test_lone_capital_in_a_sentence():
    assert _letter("I'd go with C.") == "C" and _letter("I believe D.") == "D"


def test_letter_then_because():
    assert _letter("B because it is blue") == "B"


def test_numeric_option_texts_match_exactly():
    counts = {"A": "3", "B": "4", "C": "5"}
    assert _letter("4", counts) == "B" and _letter("(C)", counts) == "C"
    assert _letter("14", counts) is None  # "14" contains "4" but is not it


def test_colour_code_option_texts_with_commas_match_whole():
    codes = {"A": "(34, 139, 34)", "B": "(30, 144, 255)", "C": "(255, 0, 0)"}
    assert _letter("(30, 144, 255)", codes) == "B"
    assert _letter("The answer is (30, 144, 255).", codes) == "B"


def test_hex_code_letters_are_not_option_letters():
    codes = {"A": "#228B22", "B": "#1E90FF", "C": "#FF0000", "D": "#C0FFEE"}
    # The B and D inside a code are no answer: a code naming no option chooses nothing ...
    assert _letter("I think it is #1E90FE", codes) is None
    # ... and one naming an option chooses it by its value (it was unparsed before colour values were read).
    assert _letter("I think it is #1E90FF", codes) == "B"
    assert _letter("#1e90ff", codes) == "B"


HSV = {"A": "(120°, 76%, 55%)", "B": "(200°, 50%, 40%)", "C": "(10°, 90%, 80%)", "D": "(300°, 20%, 70%)"}
RGB = {"A": "(34, 139, 34)", "B": "(30, 144, 255)", "C": "(255, 0, 0)", "D": "(0, 0, 0)"}
HEX = {"A": "#228B22", "B": "#1E90FF", "C": "#1A2B3C", "D": "#000000"}


@pytest.mark.parametrize(("options", "reply", "key"), [
    (HSV, "(120, 76, 55)", "A"),  # without ° and %
    (HSV, "120°, 76%, 55%", "A"),  # without brackets
    (HSV, "(120 °, 76 %, 55 %)", "A"),
    (HSV, "The HSV value is (200, 50, 40).", "B"),
    (HSV, "The answer is (10, 90, 80), since the patch is a light red.", "C"),
    (RGB, "rgb(30,144,255)", "B"),
    (RGB, "(030, 144, 255)", "B"),  # leading zeros
    (RGB, "The RGB value is (34, 139, 34).", "A"),
    (HEX, "#1a2b3c", "C"),
    (HEX, "1A2B3C", "C"),  # without "#"
    (HEX, "1a2b3c.", "C"),
    (HEX, "The answer is 1e90ff.", "B"),
    (HEX, "HEX: #000000", "D"),
])
def test_a_reply_naming_an_options_colour_value_in_its_format_chooses_it(options, reply, key):
    got = read_choice(reply, options)
    assert (got.answer, got.status) == (key, "ok"), got


@pytest.mark.parametrize(("options", "reply", "status"), [
    (HSV, "(121, 76, 55)", "unparsed"),  # a value that is no option names nothing (no nearest option)
    (HSV, "(34, 139, 34, 1)", "unparsed"),  # four numbers (RGBA) are no code
    (HSV, "(120.5°, 76%, 55%)", "unparsed"),  # decimals are no code
    (RGB, "(30°, 144%, 255%)", "unparsed"),  # an HSV-written triple never names an RGB option
    (HEX, "#abc", "unparsed"),  # no shorthand
    (HSV, "(120, 76, 55) or (200, 50, 40)", "ambiguous"),
    (HEX, "#1a2b3c or #000000", "ambiguous"),
    (HSV, "(B) (120°, 76%, 55%)", "ambiguous"),  # a key with another option's value
])
def test_colour_values_naming_no_option_or_several_do_not_choose(options, reply, status):
    got = read_choice(reply, options)
    assert (got.answer, got.status) == (None, status), got


# ---- refused: ambiguous replies --------------------------------------------------------------------------------

@pytest.mark.parametrize("reply", ["A or B", "A, B", "B and C", "(A)/(B)", "A & C"])
def test_two_letters_are_ambiguous(reply):
    c = parse_choice(reply, OPTIONS)
    assert c.answer is None and c.status == "ambiguous"


def test_two_parenthesised_letters_are_ambiguous():
    assert parse_choice("(A) (B)", OPTIONS).status == "ambiguous"


def test_two_option_texts_are_ambiguous():
    for reply in ("Blue or Red", "Blue, Green", "It is either blue or red."):
        c = parse_choice(reply, OPTIONS)
        assert c.answer is None and c.status == "ambiguous", reply


def test_letter_with_another_options_text_is_ambiguous():
    c = parse_choice("A) Blue", OPTIONS)
    assert c.answer is None and c.status == "ambiguous"


def test_cot_reply_with_two_parenthesised_answers_is_ambiguous():
    assert parse_choice("It could be (A), but maybe (C).", OPTIONS).status == "ambiguous"


def test_the_last_explicit_answer_phrase_wins():
    # lmms-eval's mcq_extract convention (the old scene parser called this ambiguous): the last answer phrase,
    # after a self-correction or not, is the answer.
    assert _letter("The answer is A. On reflection, the answer is C.") == "C"
    assert _letter("The answer is A. Checking the hue again, the answer is C.") == "C"
    assert _letter("A. On reflection, the answer is B.") == "B"  # an answer phrase wins over a leading letter


def test_an_answer_phrase_naming_two_options_is_ambiguous():
    assert parse_choice("The answer is A or C.", OPTIONS).status == "ambiguous"


# ---- refused: not an answer ------------------------------------------------------------------------------------

def test_article_a_is_not_option_a():
    c = parse_choice("A blue circle", OPTIONS)
    # No option; describing the image is an evasion (HueManity App. E.2), as for every reader.
    assert c.answer is None and (c.status, c.failure_mode) == ("refusal", "evasion")
    assert parse_choice("A blue one", OPTIONS).status == "unparsed"


def test_answer_is_a_followed_by_words_is_not_option_a():
    assert _letter("the answer is a blue one") is None


def test_pronoun_i_is_never_an_option():
    nine = {k: f"colour {i}" for i, k in enumerate("ABCDEFGHI")}
    assert _letter("I am not sure", nine) is None


def test_letter_outside_the_options_is_unparsed():
    c = parse_choice("F", OPTIONS)
    assert c.answer is None and c.status == "unparsed" and "not an option" in c.rule


def test_plural_option_s_is_not_answer_s():
    letters = {k: k.lower() * 3 for k in "PQRST"}
    assert _letter("Several option(s) could fit.", letters) is None


def test_last_letter_of_a_word_is_never_read():
    # ColorBench's extractor takes a trailing letter: "Purple" ends in "e", "Red" in "d"
    assert _letter("I cannot tell the colour of the shape") is None
    assert parse_choice("Something purple-ish", OPTIONS).status == "unparsed"


def test_empty_reply_is_unparsed_evasion_not_wrong_letter():
    # The old scene parser's own status "empty" is the shared "unparsed" with failure mode "evasion".
    for reply in ("", "   ", "**", "."):
        c = score_choice(reply, OPTIONS, "A")
        assert (c.parse_status, c.failure_mode, c.parsed, c.correct) == ("unparsed", "evasion", None, False)


def test_a_negated_option_text_does_not_answer():
    assert _letter("It is not blue.") is None


# ---- verdict and validation ------------------------------------------------------------------------------------

def test_wrong_letter_is_parsed_and_wrong():
    c = score_choice("(C)", OPTIONS, "B")
    assert c.parsed == "C" and c.parse_status == "ok" and c.correct is False


@pytest.mark.parametrize(
    ("options", "needle"),
    [({}, "non-empty"), ({"a": "x"}, "single letters"), ({"A": "x", "B": "X "}, "distinct"), ({"A": ""}, "non-empty")],
)
def test_bad_options_raise(options, needle):
    with pytest.raises(ValueError, match=needle):
        parse_choice("A", options)


def test_bad_reply_and_expected_raise():
    with pytest.raises(ValueError, match="reply must be a str"):
        parse_choice(None, OPTIONS)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not an option letter"):
        score_choice("A", OPTIONS, "Z")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_reply_gets_a_known_status_and_a_letter_only_when_ok(reply):
    c = parse_choice(reply, OPTIONS)
    assert c.status in PARSE_STATUSES
    assert (c.answer is not None) == (c.status == "ok")
    assert c.answer is None or c.answer in OPTIONS


# ---- real replies (tests/data/replies; ids benchmark/model/item): two options offered, prose of weaker models ---

def test_an_answer_phrase_offering_two_options_is_ambiguous():
    # blink/QwenVLMax/val_Jigsaw_62 (read A before)
    reply = ("Based on the information provided, it is not possible to determine which of the second or third "
             "images is the missing part of the first image. The description only provides a general idea of what "
             "the images depict, but does not provide any specific details that would allow for a definitive "
             "answer. It is possible that either image could fit in the missing spot, depending on the context and "
             "content of the first image. Therefore, the answer is (A) the second image or (B) the third image.")
    got = parse_choice(reply, {"A": "the second image", "B": "the third image"})
    assert got.answer is None and got.status == "ambiguous"


def test_an_answer_phrase_followed_by_the_list_of_options_is_no_choice():
    # blink/llava-v1.5-13b-xtuner/val_IQ_Test_103 (read A before)
    reply = "The correct answer is:\n\n(A) picture A\n(B) picture B\n(C) picture C\n(D) picture D"
    assert parse_choice(reply, {k: f"picture {k}" for k in "ABCD"}).answer is None


def test_an_answer_on_a_bullet_after_the_phrase_is_read():
    # blink/GPT4Turbo/val_IQ_Test_88 (ambiguous before: every key in parentheses is discussed above it)
    options = {k: f"picture {k}" for k in "ABCD"}
    reply = ("- **(A)** Contains two triangles and two circles.\n- **(B)** Contains three triangles.\n"
             "- **(D)** Contains one triangle and two circles.\n\nGiven the pattern identified, the correct answer "
             "is:\n   - **(A) picture A**, which contains two triangles and two circles, adhering to the pattern of "
             "adding one more circle while keeping the number of triangles consistent.")
    assert read_choice(reply, options).answer == "A"
    # a bullet list of every option after the phrase is still no choice
    listed = "The correct answer is:\n- (A) picture A\n- (B) picture B\n- (C) picture C\n- (D) picture D"
    assert read_choice(listed, options).answer is None


def test_key_named_as_the_correct_option():
    # mathvista/mPLUG-Owl-7B/testmini-333
    reply = "A is the correct option for the given question: Find tan X.\ntan X = \\frac { 5 } { 12 }"
    options = {"A": "\\frac { 5 } { 12 }", "B": "\\frac { 12 } { 13 }", "C": "\\frac { 17 } { 12 }",
               "D": "\\frac { 12 } { 5 }"}
    assert parse_choice(reply, options).answer == "A"


def test_a_key_that_is_no_option_is_no_letter():
    # mathvista/InstructBLIP-Vicuna-13B/testmini-320: there is no E
    got = parse_choice("(E) 3.5", {"A": "6.5", "B": "6", "C": "5.5", "D": "\\frac{√{119}}{2}"})
    assert got.answer is None and got.status == "unparsed" and "not an option" in got.rule


def test_an_options_value_stated_as_the_result():
    # mathvista/LLaMA-Adapter-V2/testmini-777
    got = parse_choice("The perimeter of $LMPQ$ is 10 + 10 + 10 + 10 = 40.", {"A": "10", "B": "40", "C": "70",
                                                                                "D": "140"})
    assert (got.answer, got.rule) == ("B", "stated result")


def test_capitals_that_name_points_are_no_keys():
    # mathvista/LLaVA-LLaMA-2-13B/testmini-446 (read D before: "point D is the internal point")
    reply = ("In the triangle △ABC, point D is the internal point, and the lines DB, DC, and EF are drawn connecting "
             "the points. Since BE + CF = 8, the length of EF is 8.")
    assert parse_choice(reply, {"A": "4", "B": "5", "C": "8", "D": "16"}).answer == "C"


# BLINK's Counting: "How many blue floats are there? ... (A) 0 (B) 3 (C) 2 (D) 1" (the BLINK repository's README)
COUNTS = {"A": "0", "B": "3", "C": "2", "D": "1"}


def test_a_count_stated_in_prose_names_the_option_of_that_number():
    # blink/OPUS/val_Counting_88 (unread before), with the options its replies echo
    reply = "In the provided image, I can see 5 yellow teddy bears among the large collection of stuffed bears on display."
    got = parse_choice(reply, {"A": "4", "B": "3", "C": "5", "D": "6"})
    assert (got.answer, got.status, got.rule) == ("C", "ok", "the number stated is an option's value")
    # blink/OPUS/val_Counting_4 (unread before)
    assert _letter("In the image, there is 1 person wearing a purple shirt or sweater.", COUNTS) == "D"
    assert _letter("There are 01 floats.", COUNTS) == "D"  # compared canonically


@pytest.mark.parametrize("reply, status", [
    ("I cannot tell if there are 2 floats.", "refusal"),  # a hedge names nothing
    ("I see 2 floats and 1 boat.", "ambiguous"),  # two numbers that are both options
    ("There are 5 floats.", "unparsed"),  # a number no option holds
])
def test_a_count_that_hedges_conflicts_or_is_no_option_names_nothing(reply, status):
    got = parse_choice(reply, COUNTS)
    assert got.answer is None and got.status == status


def test_a_count_stated_in_words_in_a_sentence_names_the_option_of_that_number():
    # blink/QwenVLMax/val_Counting_82 (unread before), with the options its replies echo
    got = parse_choice("There are four people in the water.", {"A": "4", "B": "3", "D": "6"})
    assert (got.answer, got.status, got.rule) == ("A", "ok", "the number stated is an option's value")
    assert _letter("I count two floats in the pool.", COUNTS) == "C"


@pytest.mark.parametrize("reply", [
    "There are three of the floats in the pool.",  # a part of a whole, not a count
    "There are two floats and three boats.",  # two different counts
    "There are three floats, or maybe two.",  # a second number word
    "I cannot tell whether there are two floats.",  # a hedge
    "There is no red car in front of the train.",  # a refusal, not zero
])
def test_a_count_in_words_that_is_a_part_conflicts_or_hedges_names_nothing(reply):
    assert parse_choice(reply, COUNTS).answer is None


def test_a_stated_number_reads_only_where_every_option_is_a_number():
    # "2" is an option's value, but "more than 2" is no number: rule 12 does not apply, nothing else chooses
    got = parse_choice("There are 2 floats in the pool.", {"A": "2", "B": "more than 2"})
    assert got.answer is None


IMAGES = {"A": "the first image", "B": "the second image", "C": "the third image", "D": "the fourth image"}


def test_an_answer_phrase_opening_a_walk_through_every_option_names_none_of_them():
    # blink/GPT4V-images-concatenated/val_Forensic_Detection_52 (read A before): "I would say that:" opens a
    # discussion of each option in turn, and the reply then declines to choose
    reply = ("Based on the examination of the four images, I would say that:\n\n(A) the first image appears to have "
             "a bus with a very vibrant red color ...\n(B) the second image shows a bus with a yellow back ...\n(C) "
             "the third image has a bus with a white base ...\n(D) the fourth image features a bus with a green "
             "front ...\n\nAll images show buses in urban settings ... However, if I must choose based on the "
             "provided images, I would consider all of them as potentially real photographs, with no single image "
             "standing out as more or less likely to be real based on the visible details.")
    assert parse_choice(reply, IMAGES).answer is None
    # blink/GPT4V-images-concatenated/val_Forensic_Detection_12 (read A before): the conclusion after the walk
    reply = ("Based on the examination of the four images, I would say that:\n\n(A) the first image - This image "
             "appears to be a composite. ...\n\n(B) the second image - This image appears to be a real photograph. "
             "...\n\n(C) the third image - This image also appears to be a composite. ...\n\n(D) the fourth image - "
             "This image could be a real photograph. ...\n\nBased on these observations, the second image (B) is "
             "most likely to be a real photograph. It shows a natural interaction with the environment ...")
    assert parse_choice(reply, IMAGES).answer == "B"


def test_an_answer_on_the_line_after_the_phrase_still_reads_when_only_some_options_follow():
    # trap: the walk-through needs every other option to open a later line
    reply = "The correct answer is:\n(B) the second image - it is real.\n\n(A) is a composite."
    assert parse_choice(reply, IMAGES).answer == "B"


def test_option_and_its_key_after_an_answer_phrase():
    # blink/MiniGPT-4-v2/val_Jigsaw_47 (read A before, from an earlier "I would say that the second image ...")
    reply = ("Given the same information, I would say that the second image could potentially be a good candidate for "
             "the missing piece ... However, this is purely based on my subjective observation and not any objective "
             "analysis.\n\nTherefore, I would select option (B) the third image, as it provides the most uncertainty "
             "and leaves room for interpretation and analysis.")
    assert parse_choice(reply, {"A": "the second image", "B": "the third image"}).answer == "B"


POINTS = {"A": "Point A", "B": "Point B", "C": "Point C", "D": "Point D"}


def test_the_most_appropriate_one_named_after_a_walk_through_is_the_answer():
    # blink/GPT4Turbo/val_Functional_Correspondence_104 (ambiguous before: every key is discussed above it)
    reply = ("In the second image, the points labeled are:\n- (A) at the base of the whisk, where the wires meet the "
             "handle,\n- (B) on the handle of the whisk,\n- (C) on the wires of the whisk,\n- (D) at the tip of the "
             "handle of the whisk.\n\nSince the reference point on the spoon is on the handle, the corresponding point "
             "on the whisk would also be on its handle. The most appropriate corresponding point among the choices "
             "given is (B), which is located on the handle of the whisk.")
    assert parse_choice(reply, POINTS).answer == "B"
    # blink/MiniGPT-4-v2/val_Forensic_Detection_42 (ambiguous before): a hedged best pick commits to it
    reply = ("After examining the four images provided, I would say that the most likely real photograph is (D) the "
             "fourth image. Here's why:\n\n(D) The fourth image - ...\n\n(A) The first image - The lighting in this "
             "image is uneven ...")
    assert parse_choice(reply, IMAGES).answer == "D"
    # blink/GPT4Turbo/val_IQ_Test_142 (ambiguous before: every option is discussed above it)
    reply = ("Given that the previous shapes inside the circles (star, cross, triangle) are centrally aligned and do "
             "not indicate a direction, the most neutral and fitting continuation would be option (C), where the "
             "triangle points upwards, maintaining a central alignment without suggesting a specific direction like "
             "left or right.")
    assert parse_choice(reply, {k: f"picture {k}" for k in "ABCD"}).answer == "C"


# blink/GPT4V/val_Forensic_Detection_51 (ambiguous before), its opening and walk through (A)..(D) shortened
WALKED = ("I can provide an assessment:\n\n(A) The first image shows a traffic light with both the red and green "
          "lights illuminated simultaneously, which is not standard operation for traffic lights.\n\n(B) The second "
          "image also shows a traffic light with all three lights illuminated at the same time. This is not how "
          "traffic lights function in reality.\n\n(C) The third image depicts a traffic light with both the green "
          "and red lights on. This is again not a standard traffic light sequence.\n\n(D) The fourth image shows a "
          "traffic light with only the green light illuminated. This is consistent with the normal operation of "
          "traffic lights.\n\n")


def test_a_negation_in_a_relative_clause_describing_the_pick_does_not_negate_it():
    reply = WALKED + ("Based on this analysis, (D) the fourth image is most likely to be a real photograph that has "
                      "not been digitally manipulated to show an unrealistic traffic light sequence. It represents a "
                      "typical traffic light in its expected operational state.")
    got = parse_choice(reply, IMAGES)
    assert (got.answer, got.status) == ("D", "ok")


def test_a_pick_after_a_challenging_to_determine_hedge_commits_to_the_option_its_clause_names():
    # blink/GPT4V-images-concatenated/val_Forensic_Detection_99 (ambiguous before), its walk shortened: "it"
    # is the first image, the one option the pick's clause names
    walk = ("Based on the examination of the four images, I would say that:\n\n(A) the first image appears to be a real photograph.\n\n(B) the second image also seems to be a real "
            "photograph.\n\n(C) the third image might raise some doubts.\n\n(D) the fourth image could be a real "
            "photograph as well.\n\n")
    hedge = ("Without additional context or information about the origin of these images, it's challenging to "
             "determine with absolute certainty which one is most likely to be a real photograph. ")
    reply = walk + hedge + ("However, based on the natural action and quality of the first image, it would be my "
                            "choice as the most likely to be a real photograph.")
    assert parse_choice(reply, IMAGES).answer == "A"
    # Traps: the hedge alone, or a pick naming two options, names nothing
    assert parse_choice(walk + hedge, IMAGES).answer is None
    assert parse_choice(walk + hedge + "However, the first image or the third image would be my choice as the most "
                        "likely.", IMAGES).answer is None


@pytest.mark.parametrize("conclusion", [
    "Based on this analysis, (D) is not the one that is most likely to be real.",  # the negation is the pick's
    "Based on this analysis, I believe that (D) is not the most likely real photograph.",  # "that" + a key
    "Based on this analysis, (D) the fourth image is the one that is not real.",  # no "most" pick: it may reverse
])
def test_a_negation_before_a_that_clause_or_without_a_most_claim_still_vetoes(conclusion):
    assert parse_choice(WALKED + conclusion, IMAGES).answer is None


@pytest.mark.parametrize("reply, status", [
    # two candidates named as the most appropriate: no single pick
    ("The most appropriate corresponding point among the choices given is (B) or (C).", "ambiguous"),
    ("(A) fits. (B) fits too. The most likely explanation would be that both (A) and (B) fit.", "ambiguous"),
    # "the most appropriate way" names no option: the walk-through stays unread
    ("(A) is on the blade.\n(B) is on the handle.\n(C) is on the tip.\n(D) is on the neck.\nThe most "
     "appropriate way to decide is to compare the functions.", "ambiguous"),
])
def test_the_most_appropriate_phrase_without_one_option_still_abstains(reply, status):
    got = parse_choice(reply, POINTS)
    assert got.answer is None and got.status == status


def test_the_noun_answer_choice_before_a_key_is_no_answer_phrase():
    # mathvista/Bard/testmini-73: "answer choice (F) is ..." discusses option F; the reply answers (E)
    reply = ("The answer to the question \"Complete the matrix\" is **(E)**.\n\nThe pattern in the matrix is that "
             "... The answer choice that follows this pattern is (E).\n\n... For example, answer choice (A) is a "
             "triangle with 3 sides, but it is not rotated 90 degrees clockwise. ... Answer choice (D) is a triangle "
             "with 4 sides, but it is not rotated 90 degrees clockwise. Answer choice (F) is a circle with 3 sides, "
             "but it is not in the first row.\n\nTherefore, the answer to the question \"Complete the matrix\" is "
             "**(E)**.")
    assert parse_choice(reply, {k: k for k in "ABCDEF"}).answer == "E"
