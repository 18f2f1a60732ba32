"""One reader per answer kind, each with its policy written at the top of its module; every family's tasks use
them (plates, ColorBench's Colour Blindness, scenes, illusions).

    =====================  ===================================================================================
    module                 reads
    =====================  ===================================================================================
    ``text``               what all share: parse statuses, failure modes, the ``<think>`` stripper, leaked
                           special tokens, the length cap, clean-up, the answer-phrase rule, self-corrections,
                           evasions, Chinese answer words, the verdict
    ``mentions``           where a reply names an option in prose: the choice reader's sentence rules
    ``throughout``         the choice reader's rule 5i: one option named wherever the reply names one
    ``choice``             multiple choice, letters or Roman numerals (`read_choice`)
    ``labels``             open answers: numbers, HueManity labels, any text (`read_number`, `read_label`,
                           `read_text`)
    ``yesno``              yes/no and true/false (`read_yes_no`)
    ``colours``            colour values: the basic colour term named (`read_colour_name`), colour codes
                           (RGB, HSV, HEX) as the choice reader matches them to options (`colour_code`)
    =====================  ===================================================================================

Readers are pure functions over strings: bounded (a reply is read as at most ``MAX_REPLY_CHARS`` characters),
linear in the reply's length, and they raise for no reply text, only for bad questions (ValueError naming what
is allowed). ``RULES_VERSION`` names the rules: every results row records it (``rules_version``), and ``plates
rescore`` re-judges stored replies under today's rules.
"""

from __future__ import annotations

from plates.tasks.answers.choice import ALPHABETS, NUMERALS, alphabet_of, check_options, read_choice
from plates.tasks.answers.colours import read_colour_name
from plates.tasks.answers.labels import NUMBER_WORDS, canonical_number, read_label, read_number, read_text
from plates.tasks.answers.text import (
    FAILURE_MODES,
    MAX_REPLY_CHARS,
    PARSE_STATUSES,
    ROW_STATUSES,
    SPECIAL_TOKENS,
    Reading,
    prepare,
    strip_reasoning,
    verdict,
)
from plates.tasks.answers.yesno import VOCABULARIES, read_yes_no

__all__ = [
    "ALPHABETS",
    "FAILURE_MODES",
    "MAX_REPLY_CHARS",
    "NUMBER_WORDS",
    "NUMERALS",
    "PARSE_STATUSES",
    "ROW_STATUSES",
    "RULES_VERSION",
    "SPECIAL_TOKENS",
    "UNVERSIONED",
    "VOCABULARIES",
    "Reading",
    "alphabet_of",
    "canonical_number",
    "check_options",
    "prepare",
    "read_choice",
    "read_colour_name",
    "read_label",
    "read_number",
    "read_text",
    "read_yes_no",
    "strip_reasoning",
    "verdict",
]

#: The version of the scoring rules that judge replies; bump it with any change that can change a verdict.
#: 1: one reader per answer kind (this package), replacing three multiple-choice parsers that disagreed; the
#: "ambiguous" parse status; the length cap; one answer-phrase rule (the last explicit final-answer phrase wins,
#: `text.last_answer`); colour values matched in an option's format (`colours.colour_code`).
#: 2: the readers read what real VLMs write (BLINK, MathVista and HallusionBench released replies): leaked special
#: tokens and runaway turns stripped in `text.prepare`; the noun "correction" no self-correction; Chinese answer
#: words and "答案:"; the choice reader's sentence rules (`mentions`: a leading option text, a conclusion, the
#: first sentence, the last paragraph, an option named as correct, a stated result, "neither ... nor"), "A" as
#: a key before a verb or after "Box"/"Point", no lone capitals in replies that name points ("triangle ABC"), an
#: unoffered key ("(E) 3.5") no letter, an answer phrase naming two options or followed by a list ambiguous;
#: yes/no ignores quoted words and reads, given the question, implicit answers; numbers read decimals, thousands
#: separators and a stated result ("= 16 meters"); given the question, a sentence denying its claim ("Periwinkle is
#: not the maximum.") reads "no" (not first-person denials nor negations of knowing). Version 2 was never stored
#: in released results before these additions, so they extend it.
#: 3: options that are all plain numbers (counts: BLINK's Counting) are named by the number a reply states, read by
#: the number reader's policy ("There is 1 person" -> the option "1"), where no other choice rule read the reply;
#: an answer phrase opening a walk through every option ("I would say that:\n(A) ...\n(B) ...") names none of them;
#: "option" may stand between an answer phrase and its key ("I would select option (B)"); a first sentence that
#: lists every key ("two points labeled A and B") gives way to the next; a list's heading ("... Box A are:") no choice;
#: ", which is labeled with A" belongs to the claim, not to its reason.
#: 4: a hedge that still names one option as its best answer commits to it ("it is difficult to determine ...
#: However, ... the first image (A) is the most likely ..." -> A; choice rule 5h); "least" joined to a "most" claim
#: ("the most candid and least processed") and "at least" reject nothing.
#: 5: "the most (<adjective> and) appropriate/suitable/fitting/likely/plausible/logical <one or two words> (among
#: the choices given) is/would be (B)" is an explicit answer phrase (choice rule 4): the pick named after a walk
#: through every option; a list of every key
#: after sentences naming none ("there are four points, A, B, C, and D.") gives way to the one option the later
#: sentences name (choice rule 5f); a negation in a compared clause (", while the third image (B) does not") no
#: longer vetoes the claim; "Based on the images (provided)," opens a conclusion (choice rule 5e).
#: 6: a count stated in words inside a sentence ("There are four people in the water.") names the option of that
#: number where every option is a number (choice rule 12; `plates.tasks.answers.labels.count_in_words`); a
#: negation inside a relative "that" clause describing a "most"/"best" pick ("... is most likely to be a real
#: photograph that has not been digitally manipulated") no longer vetoes the pick; "challenging to determine"
#: is a hedge like "difficult to determine", so the one option a pick after it names commits (choice rule 5h).
#: 7: a reply that names one option, and only that one, wherever it names an option, without hedge, doubt,
#: question or answer phrase, commits to it (choice rule 5i, `plates.tasks.answers.throughout`: "Comparing the
#: edges of the second and third images, it is more appropriate to place the second image ..."); where option
#: texts do not name their keys, "image A" / "picture A" / "option A" names the key A in a sentence (not a label
#: line "Image A: ..."); a hedged pick may state its preference as "authentic" or "genuine" (choice rule 5h).
RULES_VERSION = 7
#: How rows written before rows recorded a version read (Parquet files without the ``rules_version`` column).
UNVERSIONED = 0
