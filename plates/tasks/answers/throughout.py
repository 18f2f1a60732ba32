"""Rule 5i of the multiple-choice reader (`plates.tasks.answers.choice`): a reply that names one option, and only
that one, wherever it names an option.

The sentence rules of `plates.tasks.answers.mentions` read a reply's first sentence, its conclusion or its last
paragraph. Real replies also state their pick in a middle sentence that none of those reaches, after a sentence
of setting that names no option (BLINK's released outputs, Fu et al., ECCV 2024, ``eval/saved_outputs/``):

* "Based on the edges of the images, it appears that the lower right corner of the first image is missing.
  Comparing the edges of the second and third images, it is more appropriate to place the third image in the
  missing spot of the first image. This is because the edges of the third image match ..., while the edges of
  the second image do not match ..." -> the third image;
* "Given the two images, the reference point is annotated with REF on the first image. The corresponding point
  for the reference point is the red-circled point with the letter "A" beside it on the second image." -> A;
* "The camera is moving clockwise, which is to the right when shooting the video." -> right.

The labelling rules (docs/reply-labels.md, rules 1 and 4): a reply that names exactly one option, by its text
or its key, commits to it. The rule reads what `plates.tasks.answers.mentions.mentioned` counts as a mention,
so an option's text that is a number or a yes/no word, a lone article "A" and a compared rival ("than the third
image", "while the second image ...") are no mentions here either.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from plates.tasks.answers.mentions import (
    CLAUSE,
    COMPARED,
    COMPARED_PHRASE,
    MOST_AND_LEAST,
    NEGATION,
    SENTENCE_CHARS,
    OptionNames,
    claim_of,
    mentioned,
    sentences_of,
)
from plates.tasks.answers.text import ANSWER_PHRASE, is_hedge

__all__ = ["WINDOW_CHARS", "one_option_throughout"]

#: The longest reply the rule reads (characters): a longer one may name another option past what was read.
WINDOW_CHARS = 6 * SENTENCE_CHARS

# Doubts the shared hedge pattern (`plates.tasks.answers.text.is_hedge`) leaves to the sentence rules, which
# veto them by their negation: here a doubt in any sentence vetoes the whole reply ("it is not possible to
# accurately determine which of the second or third image ...", "without more information"), and so does a
# rejection of them all ("neither of the second or third images share ...").
_DOUBT = re.compile(r"\bnot (?:\w+ )?(?:possible|certain|sure|enough|determin\w*|conclusive)\b|\bwithout (?:more|further|"
                    r"additional|any) (?:\w+ )?(?:information|context|details)\b|\buncertain\b|\bdepends?\b|\bneither\b",
                    re.IGNORECASE)
# A key written as a label ("(C)", "C)" opening a line) or an answer phrase the rules before could not read
# ("the answer is (C) neither" where there is no C): the reply states its pick in a form rule 5i does not read.
_LABEL = re.compile(r"\(([A-Za-z])\)|(?:^|\n) ?([A-Z])\)")
_ANSWER = re.compile(ANSWER_PHRASE, re.IGNORECASE)
# Where the option texts do not name their keys, a capital key letter that is no article ("is C.", "C is"; not
# "A dog", nor the "A" of "A.M.") names an option by its key.
_KEY_LETTER = re.compile(r"(?<![\w'#.])([A-Z])(?![\w'])(?!\.\w)(?! [a-z])")
_CAPITAL = re.compile(r"(?<![\w'#])[A-Z](?![\w'])")


# A leading frame that names the options being compared, not the pick: "Comparing the edges of the second and
# third images, ...", "Between the two images, ...", "Of the two, ...", "Looking at both options, ...".
_FRAME = re.compile(r"^(?:when |after |upon )?(?:comparing|between|of|among|looking at)\b[^,.;:]{0,120}, ",
                    re.IGNORECASE)


def one_option_throughout(text: str, names: OptionNames, paren: re.Pattern, option_word: re.Pattern,
                          key_of: Callable[[str], str], more: Callable[[str], set[str]] | None = None) -> str | None:
    """Rule 5i: every sentence of the reply that mentions options mentions the same single option, none negates
    it, and the reply neither hedges nor refuses anywhere, asks nothing ("?") and has no answer phrase (rule 4's,
    which the rules before read where they can): that option.

    A sentence's leading frame naming the options compared ("Comparing the edges of the second and third
    images, it is more appropriate to place the third image ...") is left out of its mentions; what follows a
    comparison ("than", "while", "whereas"; `plates.tasks.answers.mentions.mentioned`) is the rival, not a
    mention, and a negation there ("while the edges of the second image do not match") is the rival's. These
    name nothing: a sentence that names two options (or lists capital keys, "A B C D"), a negated mention ("the
    third image is not ..."), a sentence with no verb ("A blue circle" describes, as in rule 5f), a colon inside
    a sentence ("the four choices: Chair, Drums, Hotdog, and Lego"), a key written as a label that is not the
    pick ("The clock shows the time (C) 5:30." where 5:30 is D; "C) Aubrey ..." where there is no C), where the
    option texts do not name their keys a capital key letter that is not the pick ("... is C. Canola was ..."
    where canola is D; docs/reply-labels.md rules 8 and 15), and any hedge, doubt or refusal in the reply ("I
    cannot determine ...", `plates.tasks.answers.text.is_hedge`; "it is not possible to accurately determine",
    "without more information", "neither"): a hedged reply is rule 5h's. Replies longer than ``WINDOW_CHARS``
    are not read.

    Parameters
    ----------
    text : str
        The reply, cleaned (`plates.tasks.answers.text.clean`).
    names : OptionNames
        How the reply can name the question's options (`plates.tasks.answers.mentions.names_of`).
    paren, option_word : re.Pattern
        The option alphabet's patterns for a key in parentheses, "(B)", and for "option B".
    key_of : callable
        A matched key token -> the option key.
    more : callable or None, optional
        The options a task's own reading in words finds in a sentence, or None.

    Returns
    -------
    str or None
        The option key, or None when the rule does not decide.

    References
    ----------
    Fu et al., "BLINK: Multimodal Large Language Models Can See but Not Perceive", ECCV 2024 (released outputs);
    docs/reply-labels.md, rules 1, 4 and 7.
    """
    if len(text) > WINDOW_CHARS or "?" in text or is_hedge(text) or _DOUBT.search(text) or _ANSWER.search(text):
        return None
    found: str | None = None
    for sentence in sentences_of(text):
        sentence = _FRAME.sub("", sentence.strip(), count=1)
        keys = mentioned(sentence, names, paren, option_word, key_of)
        if more is not None and keys:
            keys |= more(sentence)
        if not keys:
            continue
        if len(keys) > 1 or ":" in sentence or not CLAUSE.search(sentence) or NEGATION.search(
                MOST_AND_LEAST.sub("most", claim_of(sentence))):
            return None
        if (names.entity or names.verb_keys) and len(_capitals(sentence, names)) > 1:
            return None  # "A B C D": capitals listed, not one named
        (key,) = keys
        if found is not None and key != found:
            return None
        found = key
    if found is not None and any(key_of(a or b) != found for a, b in _LABEL.findall(text)):
        return None  # "The clock shows the time (C) 5:30." where 5:30 is D; "C) Aubrey ..." where there is no C
    if found is not None and not names.entity and any(key_of(c) != found for c in _KEY_LETTER.findall(text)):
        return None  # "The correct option letter for the year 2003 is C. Canola was ..." where canola is D
    return found


def _capitals(sentence: str, names: OptionNames) -> set[str]:
    """The option keys written as lone capitals in ``sentence``, outside what a comparison compares it with."""
    if COMPARED.search(sentence):
        sentence = COMPARED_PHRASE.sub(" ", sentence)
    return {c for c in _CAPITAL.findall(sentence) if c in names.keys}
