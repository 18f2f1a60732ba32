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

Colour codes offered as options (ColorBench Table 7, Colour Extraction: "What is the HSV value ...?", options
printed by `plates.tasks.scenes.colour_values.format_codes`) are read by the multiple-choice reader
(`plates.tasks.answers.choice`), which matches an option by its key, its whole text, or its colour value read
here (`colour_code`, `colour_codes_in`), in the option's own format:

* **RGB** (sRGB 0-255) and **HSV** (hue in degrees, saturation and value in percent) are three whole numbers
  of 1-3 ASCII digits separated by commas, brackets optional: "(34, 139, 34)", "34,139,34", "rgb(34, 139, 34)".
  An HSV option "(120°, 76%, 55%)" is named by "(120, 76, 55)", "120°, 76%, 55%" or "(120 °, 76 %, 55 %)";
  a triple written with ° or % names only an option written with them (never an RGB option). Leading zeros are
  ignored ("(034, 139, 034)"); decimals ("120.5°") and a fourth number (RGBA) are no code.
* **HEX** is six hex digits, "#" optional, any case: "#1a2b3c", "1A2B3C". Three-digit shorthand ("#abc") is
  no code.

Codes are compared as digit strings (no ``int`` of reply text) and found by two bounded patterns in one pass
each over the (capped) reply.
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

__all__ = ["colour_code", "colour_code_at", "colour_codes_in", "read_colour_name"]

# A triple: 1-3 digits each, "°"/"deg" after the first and "%" after the others optional, commas between; not
# inside a longer number, a decimal or a fourth component (RGBA).
_TRIPLE = re.compile(
    r"(?<![\w.])([0-9]{1,3})( ?(?:°|deg\b))? ?, ?([0-9]{1,3})( ?%)? ?, ?([0-9]{1,3})( ?%)?(?![\w°%]|\.[0-9]| ?, ?[0-9])"
)
_HEX = re.compile(r"(?<![\w#])#?([0-9A-Fa-f]{6})(?!\w)")
_BRACKETS = " \t\r\n.,;:!?\"'*()[]"


def _digits(token: str) -> str:
    return token.lstrip("0") or "0"


def _triple(m: re.Match) -> tuple[str, ...]:
    """("hsv" when written with ° or %, else "triple", and the three digit strings without leading zeros)."""
    marked = bool(m.group(2) or m.group(4) or m.group(6))
    return ("hsv" if marked else "triple", _digits(m.group(1)), _digits(m.group(3)), _digits(m.group(5)))


def colour_code(text: str) -> tuple[str, ...] | None:
    """The colour value ``text`` is as a whole (an option's text, or a reply that is only a code): ("triple", r,
    g, b) / ("hsv", h, s, v) as digit strings, ("hex", "1A2B3C"), or None (module docstring).

    Parameters
    ----------
    text : str
        An option's text or a whole reply; brackets, quotes, punctuation and an ``rgb(`` / ``hsv(`` prefix around
        the code are ignored.

    Returns
    -------
    tuple of str or None
        ``("triple", r, g, b)`` for three bare numbers (sRGB 0-255 or unmarked HSV), ``("hsv", h, s, v)`` when
        written with ° or % (hue in degrees, saturation and value in percent), ``("hex", "RRGGBB")`` upper case;
        the numbers as digit strings without leading zeros. None when ``text`` is not one code as a whole.

    Examples
    --------
    >>> colour_code("(120°, 76%, 55%)"), colour_code("#1a2b3c"), colour_code("Blue")
    (('hsv', '120', '76', '55'), ('hex', '1A2B3C'), None)
    """
    body = text.strip(_BRACKETS)
    if body[:4].lower() in ("rgb(", "hsv("):
        body = body[4:]
    m = _TRIPLE.fullmatch(body)
    if m:
        return _triple(m)
    m = _HEX.fullmatch(body)
    return ("hex", m.group(1).upper()) if m else None


_OPENING = re.compile(r"(?i:rgb|hsv|hex)? ?[:(\[\"']{0,2} ?")


def colour_code_at(text: str, pos: int) -> tuple[str, ...] | None:
    """The colour value that starts at ``pos`` of ``text`` (after an answer phrase; "(", "rgb(", quotes
    allowed before it), or None.

    Parameters
    ----------
    text : str
        A cleaned reply.
    pos : int
        Index in ``text`` where the value may start (the end of an answer phrase).

    Returns
    -------
    tuple of str or None
        The code in `colour_code`'s form, or None when no triple or hex code starts there.
    """
    pos = _OPENING.match(text, pos).end()
    m = _TRIPLE.match(text, pos)
    if m:
        return _triple(m)
    m = _HEX.match(text, pos)
    return ("hex", m.group(1).upper()) if m else None


def colour_codes_in(text: str, *, triples: bool = True, hexes: bool = True) -> list[tuple[str, ...]]:
    """Every colour value ``text`` names, in order (`colour_code`'s form): linear, one pass per pattern.

    Parameters
    ----------
    text : str
        A cleaned, capped reply.
    triples : bool, optional
        Look for three-number codes (RGB sRGB 0-255, HSV degrees and percent).
    hexes : bool, optional
        Look for six-digit hex codes.

    Returns
    -------
    list of tuple of str
        The codes in `colour_code`'s form: every triple in order of appearance, then every hex code.
    """
    found = [_triple(m) for m in _TRIPLE.finditer(text)] if triples else []
    if hexes:
        found += [("hex", m.group(1).upper()) for m in _HEX.finditer(text)]
    return found

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
    """The basic colour term a reply names (RCID Fig. 1c, "what color is ...?").

    Parameters
    ----------
    reply : str
        The model's reply, as it came.

    Returns
    -------
    Reading
        ``answer`` is the basic colour term (synonyms mapped: "gray" is "grey") when ``status`` is "ok"; else None with the status ("ambiguous", "unparsed",
        "refusal"), the rule that decided and HueManity App. E's failure mode.

    Examples
    --------
    >>> read_colour_name("It looks gray to me.").answer
    'grey'
    >>> read_colour_name("The disc is red and green.").status  # two terms: abstain
    'ambiguous'
    """
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
