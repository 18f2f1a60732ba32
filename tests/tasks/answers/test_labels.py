"""read_number (plates.tasks.answers.labels) on real integer answers: MathVista testmini free-form replies
(lupantech/MathVista results/, CC BY-SA 4.0; ids as in tests/data/replies)."""

from __future__ import annotations

import pytest

from plates.tasks.answers import canonical_number, read_number


@pytest.mark.parametrize(("reply", "number"), [
    ("The answer is 0.", "0"),  # mathvista/IDEFICS-9B-Instruct/testmini-1000
    ("The perimeter of the rectangle is 6 units, because the sides of the rectangle are 2 cm and their sum is "
     "1+3+2+2 + 3, which equals 1 + 3 + 2 + 2 + 3 = 10 cm.", "10"),  # mathvista/mPLUG-Owl-7B/testmini-606
    ("The size of angle MBD in the figure is 90 degrees.</s>", "90"),  # mathvista/MiniGPT-4-LLaMA-2/testmini-630
    ("The answer to the question is 2, as there are two items that sold less than 1 units in at least one store.",
     "2"),  # mathvista/LLaMA-Adapter-V2/testmini-327
    ("The perimeter of the square is 4 times the length of its side.\n\nThe length of the side of the square is 4 "
     "meters.\n\nTherefore, the perimeter of the square is 4 x 4 = 16 meters.</s>", "16"),  # .../testmini-67
])
def test_integer_answers_as_models_write_them(reply, number):
    got = read_number(reply)
    assert (got.answer, got.status) == (number, "ok"), got


def test_thousands_separators():
    # mathvista/Bard/testmini-332
    reply = ("Sure, I can help you with that.\n\nThe taxi cab driver drove 5,936 miles in January and 1,937 miles "
             "in April. The total number of miles driven in January and April is 5,936 + 1,937 = **7,873 miles**."
             "\n\nSo the answer is 7873")
    assert read_number(reply).answer == "7873"
    assert read_number(reply.rsplit("\n\n", 1)[0]).answer == "7873"  # the stated result alone, "7,873 miles"


def test_a_decimal_answer_to_an_integer_question_is_read_and_wrong():
    # mathvista/InstructBLIP-Vicuna-13B/testmini-175 (gold 24) and testmini-245 (gold 24)
    assert read_number("0.75").answer == "0.75"
    assert read_number("13.00").answer == "13"
    assert read_number("Answer: 3.5 apples, from 7 halves").answer == "3.5"  # never the 7 of the working


def test_canonical_numbers():
    assert [canonical_number(t) for t in ("16.0", "1,000", "007", "1.40", "0.0")] == ["16", "1000", "7", "1.4", "0"]
