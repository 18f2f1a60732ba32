"""The yes/no reader (plates.tasks.answers.yesno) on real replies: HallusionBench's released GPT-4V sample
(tianyi-lab/HallusionBench, HallusionBench_result_sample.json, BSD-3-Clause) and MathVista testmini's Yes/No
items (lupantech/MathVista, CC BY-SA 4.0); ids as in tests/data/replies (benchmark/model/item)."""

from __future__ import annotations

import pytest

from plates.tasks.answers import read_choice, read_yes_no

TILES_SAME = "For the given image, are the colors on tiles A and B the same?"


# ---- class 6: implicit answers read only with the question -------------------------------------------------------

def test_implicit_same_answers_a_same_question_only_when_it_is_given():
    # hallusionbench/GPT-4V/VD-illusion-10-0-0
    reply = "The colors on tiles A and B in the given image appear to be the same."
    assert read_yes_no(reply).answer is None  # without the question: unread, as before
    assert read_yes_no(reply, question=TILES_SAME).answer == "yes"
    different = TILES_SAME.replace("the same", "different")
    assert read_yes_no(reply, question=different).answer == "no"


def test_equal_answers_a_strict_comparison_no():
    # hallusionbench/GPT-4V/VD-illusion-8-0-2
    reply = "The vertical line and the horizontal line appear to be of equal length."
    assert read_yes_no(reply, question="Is the vertical line shorter than the horizontal line?").answer == "no"


def test_the_questions_claim_restated_answers_yes():
    # hallusionbench/GPT-4V/VD-video-7-1-0
    reply = "In the positive sequence of the images, the plug is put into the power outlet."
    question = "According to the positive sequence of the images, is the plug put into the power outlet? "
    assert read_yes_no(reply).answer is None
    assert read_yes_no(reply, question=question).answer == "yes"


def test_a_restatement_that_denies_or_doubts_is_not_read():
    # mathvista/GPT-4-text-only/testmini-821
    reply = "The question does not provide enough information to determine whether most of the people are young men."
    assert read_choice(reply, {"A": "Yes", "B": "No"}, question="Are most of the people young men?").answer is None


def test_the_questions_claim_denied_answers_no():
    # mathvista/LLaVA-LLaMA-2-13B/testmini-24 and mathvista/LLaVAR/testmini-142
    options = {"A": "Yes", "B": "No"}
    reply = "Based on the image, Periwinkle is not the maximum. The maximum is actually the color blue."
    assert read_choice(reply, options).answer is None
    assert read_choice(reply, options, question="Is Periwinkle the maximum?").answer == "B"
    reply = "The pizza is not split in half."
    assert read_choice(reply, options, question="Is it split in half?").rule == "the question's claim denied"
    # hallusionbench/GPT-4V/VS-chart-2-0-3: a first-person denial is about the speaker, not the claim
    question = "From 2000-2050, is the population aged between 15 and 29 years in China the most in 2050?"
    reply = ("I don't have the exact data for the population aged between 15 and 29 years in China from 2000-2050 "
             "up to the minute. As of my last update in April 2023, I don't have precise projections for 2050.")
    assert read_yes_no(reply, question=question).answer is None
    # a negation of knowing, and a denial beside a restatement, answer nothing
    assert read_yes_no("It is not clear that Periwinkle is the maximum.", question="Is Periwinkle the maximum?"
                       ).answer is None
    both = "Periwinkle is not the maximum. Periwinkle is the maximum of the second chart."
    assert read_yes_no(both, question="Is Periwinkle the maximum?").answer is None


def test_yes_no_options_read_the_question_through_read_choice():
    # mathvista/LLaVAR/testmini-139: the letter D is no option; the sentence restates the question's claim
    reply = "The correct option letter is D. Indigo has the lowest value in this case."
    options = {"A": "yes", "B": "no"}
    assert read_choice(reply, options).answer is None
    assert read_choice(reply, options, question="Does Indigo have the lowest value?").answer == "A"


def test_quoted_words_are_not_said():
    # No released reply in the corpus quotes a bare yes/no word; the sentence is the example.
    assert read_yes_no('There is a sign that says "no smoking" on the wall.').answer is None
    assert read_yes_no('Yes. There is a sign that says "no smoking" on the wall.').answer == "yes"


def test_bad_question_is_refused_by_name():
    with pytest.raises(ValueError, match="question must be a str"):
        read_yes_no("yes", question=3)  # type: ignore[arg-type]


# ---- class 3: a leading option word, and a key that contradicts its words ---------------------------------------

def test_key_whose_words_name_the_other_option_is_ambiguous():
    # mathvista/mPLUG-Owl-7B/testmini-92: "A" is Yes, the words say No
    reply = "A - No, the windows in the house don't have a geometric shape."
    assert read_choice(reply, {"A": "Yes", "B": "No"}).status == "ambiguous"
