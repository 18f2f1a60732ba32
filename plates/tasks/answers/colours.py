"""Colour values: the basic colour term an open reply names (RCID Fig. 1c, "what color is ...?").

Policy (after the shared rules of `plates.tasks.answers.text`):

* The answer is the one basic colour term the reply names, synonyms mapped to their term ("gray" -> "grey",
  "crimson" -> "red"; `plates.stimuli.illusions.naming`), whole words only ("redundant" names no red).
* An explicit answer phrase ("the answer is ...", "answer:") scopes the reading to what follows the last one
  ("It looks red at first. The answer is grey." -> grey), as for every reader.
* Two or more terms ("reddish grey", "red or grey") -> ambiguous; a negated mention still counts ("not red,
  grey" is two terms: abstain rather than guess which one is meant).
* No term: a refusal when the reply declines ("no idea", "I cannot tell"), else unparsed.

Colour codes offered as options (ColorBench's Colour Extraction: "(30, 144, 255)", "#1E90FF") are read by the
multiple-choice reader (`plates.tasks.answers.choice`), which matches an option's whole text.
"""

from __future__ import annotations

import re

from plates.stimuli.illusions.naming import names_in
from plates.tasks.answers.text import Reading, clean, prepare, strip_answer_prefix, unanswered

__all__ = ["read_colour_name"]

_DECLARED = re.compile(r"\b(?:final )?answer(?: is|:| is:)", re.IGNORECASE)


def read_colour_name(reply: str) -> Reading:
    """The basic colour term ``reply`` names (``answer``: e.g. "grey"), or why none was read."""
    prepared = prepare(reply)
    text = strip_answer_prefix(clean(prepared.text))
    last = None
    for last in _DECLARED.finditer(text):  # noqa: B007 - the last explicit answer scopes the reading
        pass
    scoped = text if last is None else text[last.end():]
    found = names_in(scoped)
    if not found and last is not None:
        found = names_in(text)
    if len(found) == 1:
        return Reading(found[0], "ok", "basic colour term", None, prepared.truncated)
    if found:
        return unanswered(prepared, f"several colour names: {', '.join(found[:4])}", label_len=5, ambiguous=True)
    return unanswered(prepared, "no colour name", label_len=5)
