"""Colour values: the basic colour term an open reply names (RCID Fig. 1c, "what color is ...?").

Policy (after the shared rules of `plates.tasks.answers.text`):

* The answer is the one basic colour term the reply names, synonyms mapped to their term ("gray" -> "grey",
  "crimson" -> "red"; `plates.stimuli.illusions.naming`), whole words only ("redundant" names no red).
* An explicit answer phrase ("the answer is ...", "answer:"; `plates.tasks.answers.text.ANSWER_PHRASE`)
  decides: the LAST one naming a colour term in its sentence wins, the rule every reader shares
  (`plates.tasks.answers.text.last_answer`): "It looks red at first. The answer is grey." -> grey; "The
  answer is red. On reflection, the answer is grey." -> grey; "the answer is reddish grey" -> ambiguous.
* A self-correction decides ("red... actually, grey" -> grey): what follows the last correction phrase is read
  first, as for every reader.
* Two or more terms ("reddish grey", "red or grey") -> ambiguous; a negated mention still counts ("not red,
  grey" is two terms: abstain rather than guess which one is meant).
* No term: a refusal when the reply declines ("no idea", "I cannot tell"), else unparsed.

Colour codes offered as options (ColorBench's Colour Extraction: "(30, 144, 255)", "#1E90FF") are read by the
multiple-choice reader (`plates.tasks.answers.choice`), which matches an option's whole text.
"""

from __future__ import annotations

import re

from plates.stimuli.illusions.naming import names_in
from plates.tasks.answers.text import (
    ANSWER_PHRASE,
    Reading,
    after_correction,
    clean,
    last_answer,
    prepare,
    strip_answer_prefix,
    unanswered,
)

__all__ = ["read_colour_name"]

_DECLARED = re.compile(ANSWER_PHRASE, re.IGNORECASE)
_SEGMENT_END = re.compile(r"[.\n;]|\bbecause\b|\bsince\b", re.IGNORECASE)
#: How far past an answer phrase its colour term is looked for (characters; "the answer is light bluish grey").
_REACH = 64


def _names_at(text: str, pos: int) -> tuple[str, ...] | None:
    """The colour terms named between an answer phrase ending at ``pos`` and the end of its sentence."""
    window = text[pos:pos + _REACH]
    end = _SEGMENT_END.search(window)
    return names_in(window[: end.start()] if end else window) or None


def read_colour_name(reply: str) -> Reading:
    """The basic colour term ``reply`` names (``answer``: e.g. "grey"), or why none was read."""
    prepared = prepare(reply)
    text = strip_answer_prefix(clean(prepared.text))
    tail = after_correction(text)
    if tail is not None:  # a self-correction decides, as for every reader ("red, actually grey")
        named = last_answer(tail, _DECLARED, _names_at) or names_in(tail)
        if len(named) == 1:
            return Reading(named[0], "ok", "after a correction: basic colour term", None, prepared.truncated)
    found = last_answer(text, _DECLARED, _names_at)
    rule = "answer phrase"
    if found is None:
        found, rule = names_in(text), "basic colour term"
    if len(found) == 1:
        return Reading(found[0], "ok", rule, None, prepared.truncated)
    if found:
        return unanswered(prepared, f"several colour names: {', '.join(found[:4])}", label_len=5, ambiguous=True)
    return unanswered(prepared, "no colour name", label_len=5)
