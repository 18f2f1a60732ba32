"""Open answers: the label a reply gives (a plate's number or two-character text), by label space.

Policy (the shared rules of `plates.tasks.answers.text` apply first: reasoning stripped, length capped,
whitespace collapsed, markdown and typographic quotes removed):

* **HueManity spaces** ("huemanity-numeric", "huemanity-alnum"; App. B.2, literally): trim, remove a possible
  "Answer:" prefix, take the first two alphanumerics, compare case-sensitively. A pair with a character outside
  the 58-symbol set (or, for the numeric space, not "10".."99") is invalid -> unparsed. The prefix match is the
  one widening: case-insensitive and markdown-tolerant ("**Answer:** Rw"). A refusal is never read as a label,
  even when its first two alphanumerics are one ("Sorry" is not "So").
* **Numbers** ("cbe", and "any" with a numeric target; `read_number`), first rule that decides wins:

  1. the whole reply is a number or a number word ("42", "Forty-two.");
  2. after the last self-correction ("actually", "wait", "on reflection"...), the one number named there;
  3. explicit final-answer phrases ("answer:", "the answer is", "the number is", "number:") followed by a
     number: the LAST one wins, the rule every reader shares (`plates.tasks.answers.text.last_answer`): "The
     number is 12. On closer look the answer is 17." -> 17; one followed by a second number ("the answer is
     12 or 17") is ambiguous;
  3b. implicit mentions ("I see", "shows", "it's", "looks like"...) followed by a number: they must all name
     the same number, else ambiguous; one followed by a second number ("I see 12 and 17") is ambiguous;
  3c. a stated result ending the reply's last sentence: "= N", "is N", "equals N", up to two unit words
     after it ("... 4 x 4 = 16 meters.", "The size of angle MBD in the figure is 90 degrees.");
  4. every standalone number that is not a reference ("plate 5", "200 dots", "3 of 10") must agree; two
     different ones are ambiguous ("12 or 17", "12 rather than 17").

  Numbers are ASCII digit strings, with thousands separators ("30,000") and a decimal part ("3.5") allowed,
  compared canonically ("07" is 7, "16.0" is 16, "1,000" is 1000; never ``int()`` of reply text): an integer
  question answered "Answer: 3.5" reads 3.5, and is wrong, never another integer of the reply.
  A digit string longer than ``MAX_DIGITS`` is no answer (unparsed, "erratic": HueManity App. E.3's "extreme
  numerical inventions"): a 5,000-digit reply is an unparsed row, never an exception. Digits glued to letters ("7b",
  "L1L1") are not numbers; number words count only as the whole reply ("one number" is not 1).
* **Any text** ("any" with a text target): the reply without prefix, markdown, quotes and a final full stop,
  exactly.

Hedges: the papers' policy is kept. A HueManity-space reply that is a refusal (App. E's "evasion") is never a
label; a number reply that hedges and still states one number ("It is hard to say, but most likely 12") reads
that number, as the rules above do without looking for hedges (docs/reply-labels.md rule 7 agrees: a hedged pick
commits). Only `plates.tasks.answers.choice` rule 12, which reads a number as an option, keeps a hedge veto.

Wrong answers: a number outside the label space, or a repeated or over-long string, is "erratic" (HueManity
App. E.3); a misreading of the label's own form has no failure mode.
"""

from __future__ import annotations

import functools
import re

from plates.stimuli.ishihara.labels import HUEMANITY_SYMBOLS, LABEL_SPACES
from plates.tasks.answers.text import (
    ANSWER_PHRASE,
    Reading,
    after_correction,
    clean,
    failure_mode,
    is_evasion,
    last_answer,
    prepare,
    strip_answer_prefix,
    unanswered,
)

__all__ = [
    "MAX_DIGITS", "NUMBER_PATTERN", "NUMBER_WORDS", "NumberParse", "canonical_number", "count_in_words", "read_label",
    "read_number", "read_text",
]

_EDGE_PUNCT = " \t\r\n.,;:!?\"'()[]{}<>*_"

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
         "sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def _number_words() -> dict[str, str]:
    words = {w: str(i) for i, w in enumerate(_UNITS)}
    for i, tens in enumerate(_TENS):
        value = 20 + 10 * i
        words[tens] = str(value)
        for unit in range(1, 10):
            for sep in ("-", " ", ""):
                words[f"{tens}{sep}{_UNITS[unit]}"] = str(value + unit)
    return words


#: Number words ("twelve", "forty-two", "seventy four") -> their digit string.
NUMBER_WORDS: dict[str, str] = _number_words()
_DIGITS = re.compile(r"[0-9]+")
# Trap: digits glued to letters are not answers: "7b", "L1L1", "3rd". A number may have thousands separators
# ("30,000": groups of exactly three digits) and a decimal part ("3.5"); "12." ending a sentence is 12.
_NUMBER = r"(?<![\w.])(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]+)?(?![\w]|\.[0-9])"
# Trap: "I see a two-digit number", "it is one of the plates", "2 digits": a count, not an answer.
_NOT_ANSWER = r"(?![-\w])(?! (?:of|digits?|numbers?|colou?rs?|dots?)\b)"
_NUMBER_RE = re.compile(_NUMBER)
#: A plain number as `canonical_number` reads it: digits, thousands separators, a decimal part ("1,000.5").
NUMBER_PATTERN = re.compile(r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?")
# Answer phrases; the number must follow directly (quotes/brackets allowed). A phrase is found first and the
# number read at its end (`_value_at`): one attempt per phrase, never a 200-word alternation retried at every
# backtracking step. Explicit final-answer phrases (the shared `text.ANSWER_PHRASE`, "the number is", "number:"):
# the last one wins; implicit ones ("I see", "it's", "shows"): all must agree.
_QUOTED = r" ?[\"'(\[]{0,3} ?"
_EXPLICIT = re.compile(
    r"(?:" + ANSWER_PHRASE + r"|\b(?:the )?(?:number|digit)s? ?(?:(?:in|on|shown in) (?:the|this) "
    r"(?:image|plate|picture) )?(?:is|appears to be|seems to be|looks like|reads|would be) ?:?|\bnumber ?:)"
    + _QUOTED,
    re.IGNORECASE,
)
_IMPLICIT = re.compile(
    r"(?:\bi (?:can )?see(?: the number| a| an)?|\bit(?:'s| is)(?: the number)?|\bshows(?: the number| a)?"
    r"|\breads|\bappears to be|\blooks like(?: a| the number)?|\bseems to be)" + _QUOTED,
    re.IGNORECASE,
)
_DIGIT_VALUE = re.compile(rf"({_NUMBER})\b{_NOT_ANSWER}", re.IGNORECASE)
_WORDY = re.compile(r"([a-z]+)(?:[- ]?[a-z]+)?", re.IGNORECASE)
_NOT_ANSWER_RE = re.compile(_NOT_ANSWER, re.IGNORECASE)


def _value_at(text: str, pos: int) -> tuple[str, int] | None:
    """(the number or number word at ``pos``, where it ends), or None: digits, else the longest number word
    ("seventy four" before "seventy") that is not a count ("two-digit", "one of", "2 dots")."""
    m = _DIGIT_VALUE.match(text, pos)
    if m:
        return m.group(1), m.end(1)
    if pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_"):
        return None
    m = _WORDY.match(text, pos)
    if m is None:
        return None
    for end in (m.end(), m.end(1)):
        word = text[pos:end]
        if word.lower() in NUMBER_WORDS and _NOT_ANSWER_RE.match(text, end):
            return word, end
    return None


# Trap: "This Ishihara plate (plate 5) shows 42" -- 5 names the plate, it is not an answer. Read on a window of
# the 24 characters before a number (never the whole prefix: that would be quadratic in the reply's length).
_REF_BEFORE = re.compile(
    r"(?:\b(?:plate|image|figure|fig|picture|photo|test|step|option|page|no|of)|#) ?\.? ?#? ?$",
    re.IGNORECASE,
)
_REF_AFTER = re.compile(
    r" ?(?:%|percent|dots?|colou?rs?|circles?|px|pixels?|degrees?|°|times|seconds?|shades?|steps?|of\b)",
    re.IGNORECASE,
)
_WINDOW = 24
#: The longest digit string read as a number (labels have at most 2 digits; "121212121212" is read, and wrong).
MAX_DIGITS = 64
_ALTERNATIVE = re.compile(r" ?(?:,|/|\bor\b|\band\b|&) ?(?:maybe |possibly |perhaps )?[0-9]+\b", re.IGNORECASE)


def canonical_number(token: str) -> str:
    """A number (digits, thousands separators, a decimal part) or number word as a canonical decimal string:
    no leading zeros, no separators, no trailing fractional zeros ("07" -> "7", "30,000" -> "30000", "16.0"
    -> "16", "1.40" -> "1.4", "twelve" -> "12"). String operations only: never ``int`` of reply text.

    Parameters
    ----------
    token : str
        Digits, or an English number word (any case, hyphenated tens).

    Returns
    -------
    str

    Examples
    --------
    >>> canonical_number("007"), canonical_number("Forty-two"), canonical_number("1,000.50")
    ('7', '42', '1000.5')
    """
    token = token.strip().lower()
    if NUMBER_PATTERN.fullmatch(token):
        whole, _, fraction = token.replace(",", "").partition(".")
        whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
        return f"{whole}.{fraction}" if fraction else whole
    return NUMBER_WORDS[token]


def _standalone_numbers(text: str) -> set[str]:
    """The distinct standalone numbers of ``text`` (stops at two: more cannot change a verdict)."""
    values: set[str] = set()
    accepted: set[str] = set()  # digit strings already counted: a repeat changes nothing
    for m in _NUMBER_RE.finditer(text):
        token = m.group()
        if token in accepted or len(token) > MAX_DIGITS:
            continue
        if _REF_BEFORE.search(text, max(0, m.start() - _WINDOW), m.start()) or _REF_AFTER.match(text, m.end()):
            continue
        accepted.add(token)
        values.add(canonical_number(token))
        if len(values) > 1:
            break
    return values


# A count stated in words: "There are four people", "there is only one", "I count two". Any other number word
# (or "no", "several", "a few" counting the same things) keeps the count from being the one answer.
_COUNT_CLAIM = re.compile(r"\b(?:there(?: is|'s| are)|i count)(?: only| exactly| just)? ", re.IGNORECASE)
_ANY_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?", re.IGNORECASE)


def count_in_words(text: str) -> str | None:
    """The count a reply states in words inside a sentence ("There are four people in the water." -> "4"), or
    None: the reading `plates.tasks.answers.choice` rule 12 adds for options that are all numbers.

    A claim is "there is/are" or "I count", optionally "only/exactly/just", then a number word that is not a
    part ("four of the five people"). Every number word of the reply must be that one value: a second count
    ("There are two dogs and three cats"), or a digit string anywhere, names nothing.

    Parameters
    ----------
    text : str
        A prepared, cleaned reply (`plates.tasks.answers.text.clean`).

    Returns
    -------
    str or None
        The count as a canonical digit string ("4"), or None.

    Examples
    --------
    >>> count_in_words("There are four people in the water.")
    '4'
    >>> count_in_words("There are four of the five people in the water.") is None
    True
    """
    if _DIGITS.search(text):
        return None
    claimed = {
        canonical_number(found[0])
        for m in _COUNT_CLAIM.finditer(text)
        if (found := _value_at(text, m.end())) is not None and not found[0][0].isdigit()
    }
    if len(claimed) != 1:
        return None
    words = {NUMBER_WORDS[w] for w in map(str.lower, _ANY_WORD.findall(text)) if w in NUMBER_WORDS}
    return claimed.pop() if words <= claimed else None


class NumberParse:
    """Result of `read_number`'s number rules: ``value`` (a digit string; None when none or ambiguous), the
    ``rule``, and ``ambiguous``.

    Parameters
    ----------
    value : str or None
        The number read, as a canonical ASCII digit string (`canonical_number`), or None when no number decides.
    rule : str
        The rule of the module docstring that decided, in words (or why none did).
    ambiguous : bool, optional
        Whether the reply named two different numbers where one was wanted.
    """

    __slots__ = ("ambiguous", "rule", "value")

    def __init__(self, value: str | None, rule: str, ambiguous: bool = False) -> None:
        self.value, self.rule, self.ambiguous = value, rule, ambiguous

    def __repr__(self) -> str:
        return f"NumberParse({self.value!r}, {self.rule!r}, ambiguous={self.ambiguous})"


def _declared_at(text: str, pos: int) -> NumberParse | None:
    """The number an explicit answer phrase ending at ``pos`` names (`text.last_answer`), or None."""
    found = _value_at(text, pos)
    if found is None:
        return None
    value, end = found
    if _ALTERNATIVE.match(text, end):  # "the answer is 12 or 17": two answers
        return NumberParse(None, "answer phrase names two numbers", ambiguous=True)
    if len(value) > MAX_DIGITS:
        return None
    return NumberParse(canonical_number(value), "answer phrase")


# Rule 3c: the reply's last sentence ends with "= N", "is N", "are N" or "equals N", a unit of up to two words
# allowed ("... = 16 meters.", "The size of angle MBD is 90 degrees.").
_STATED = re.compile(
    r"(?:=|\b(?:is|are|equals|be|was)\b) ?\$? ?(" + _NUMBER + r")(?: ?(?:%|°|[a-z]+\.?)){0,2} ?[.!]? ?$",
    re.IGNORECASE,
)


def _stated(text: str) -> str | None:
    tail = text[-400:].rstrip()
    start = max(tail.rfind(". "), tail.rfind("\n")) + 1
    m = _STATED.search(tail, start)
    if m is None or len(m.group(1)) > MAX_DIGITS:
        return None
    return canonical_number(m.group(1))


def _number_in(text: str) -> NumberParse:
    declared = last_answer(text, _EXPLICIT, _declared_at)
    if declared is not None:
        return declared
    marks = [v for m in _IMPLICIT.finditer(text) if (v := _value_at(text, m.end())) is not None]
    # Trap: "I see 12 and 17" -- an implicit mention followed by a second number is two answers.
    if any(_ALTERNATIVE.match(text, end) for _, end in marks):
        return NumberParse(None, "alternatives", ambiguous=True)
    marked = {canonical_number(value) for value, _ in marks if len(value) <= MAX_DIGITS}
    if len(marked) == 1:
        return NumberParse(marked.pop(), "marker")
    if marked:
        return NumberParse(None, "conflicting markers", ambiguous=True)
    stated = _stated(text)
    if stated is not None:
        return NumberParse(stated, "stated result")
    values = _standalone_numbers(text)
    if len(values) == 1:
        return NumberParse(values.pop(), "single number")
    if values:
        return NumberParse(None, "several numbers", ambiguous=True)
    return NumberParse(None, "no number")


def parse_number(text: str) -> NumberParse:
    """The number a prepared, cleaned reply answers with (ColorBlindnessEval App. F: "Output the number you see
    only"); the rules of the module docstring.

    Parameters
    ----------
    text : str
        A reply already prepared and cleaned by `plates.tasks.answers.text` (reasoning stripped, length capped).

    Returns
    -------
    NumberParse
        The number as a canonical digit string (or None) and the rule that decided; a digit string longer than
        ``MAX_DIGITS`` gives None.

    References
    ----------
    ColorBlindnessEval, App. F (the prompt); HueManity, App. E.3 (over-long numbers are erratic).
    """
    body = strip_answer_prefix(text).strip(_EDGE_PUNCT)
    if NUMBER_PATTERN.fullmatch(body):  # Trap: "²".isdigit() is True, and int("²") fails
        if len(body) > MAX_DIGITS:
            return NumberParse(None, f"a number of more than {MAX_DIGITS} digits")
        return NumberParse(canonical_number(body), "whole")
    if body.lower() in NUMBER_WORDS:  # "twelve", "Forty-two." -- only as the whole reply
        return NumberParse(NUMBER_WORDS[body.lower()], "word")
    tail = after_correction(text)
    if tail is not None:
        found = _number_in(tail)
        if found.value is not None:
            return NumberParse(found.value, "correction")
    return _number_in(text)


def read_number(reply: str, *, labels: frozenset[str] | None = None, label_len: int = 2) -> Reading:
    """The number a reply answers with (ColorBlindnessEval App. F: "Output the number you see only").

    Parameters
    ----------
    reply : str
        The model's reply, as it came.
    labels : frozenset of str, optional
        The label space: a number outside it is still read, and is "erratic" when wrong.
    label_len : int, default 2
        A label's length, for the failure modes.

    Returns
    -------
    Reading
        ``answer`` is the number as a digit string without leading zeros when ``status`` is "ok"; else None with the status ("ambiguous", "unparsed",
        "refusal"), the rule that decided and HueManity App. E's failure mode.

    Raises
    ------
    ValueError
        A reply that is not a str.

    Examples
    --------
    >>> read_number("I see the number 74.").answer
    '74'
    >>> read_number("I see 12, no wait, actually 17.").answer  # a self-correction decides
    '17'
    >>> read_number("The plate shows no number.").status
    'refusal'
    """
    prepared = prepare(reply)
    parsed = parse_number(clean(prepared.text))
    if parsed.value is None:
        return unanswered(prepared, parsed.rule, label_len=label_len, ambiguous=parsed.ambiguous)
    in_space = labels is None or parsed.value in labels
    return Reading(parsed.value, "ok", parsed.rule, None if in_space else "erratic", prepared.truncated)


@functools.cache
def _symbols() -> frozenset[str]:
    return frozenset(HUEMANITY_SYMBOLS)


@functools.cache
def _labels(space: str) -> frozenset[str]:
    return frozenset(LABEL_SPACES[space])


def read_label(reply: str, space: str) -> Reading:
    """HueManity App. B.2's reading of a reply: the first two alphanumerics, case kept.

    Parameters
    ----------
    reply : str
        The model's reply, as it came.
    space : str
        "huemanity-numeric" (a reading must be one of its labels) or "huemanity-alnum" (any two of HueManity's
        58 symbols).

    Returns
    -------
    Reading
        ``answer`` is the two-character label when ``status`` is "ok"; else None with the status ("ambiguous", "unparsed",
        "refusal"), the rule that decided and HueManity App. E's failure mode.

    Raises
    ------
    ValueError
        A reply that is not a str.

    References
    ----------
    HueManity App. B.2 (scoring) and App. E (failure modes).

    Examples
    --------
    >>> read_label("Answer: Rw", "huemanity-alnum").answer
    'Rw'
    """
    prepared = prepare(reply)
    rem = strip_answer_prefix(clean(prepared.text))
    norm = ""
    for c in rem:  # Trap: str.isalnum accepts "²" and "é"; the symbol check below rejects them
        if c.isalnum():
            norm += c
            if len(norm) == 2:
                break
    well_formed = rem.strip(_EDGE_PUNCT) == norm and len(norm) == 2
    if not well_formed and is_evasion(rem) and failure_mode(rem, label_len=2) == "evasion":
        return Reading(None, "refusal", "B.2; evasion", "evasion", prepared.truncated)
    valid = len(norm) == 2 and set(norm) <= _symbols() and (space != "huemanity-numeric" or norm in _labels(space))
    if not valid:
        return unanswered(prepared, f"B.2: {norm!r} is not a label of {space}", label_len=2)
    mode = None if well_formed else failure_mode(rem, label_len=2)
    return Reading(norm, "ok", "B.2", mode, prepared.truncated)


def read_text(reply: str, expected_len: int) -> Reading:
    """An open text answer: the reply without prefix, markdown, quotes and a final full stop.

    Parameters
    ----------
    reply : str
        The model's reply, as it came.
    expected_len : int
        The target's length, for the failure modes.

    Returns
    -------
    Reading
        ``answer`` is the text, compared exactly when ``status`` is "ok"; else None with the status ("ambiguous", "unparsed",
        "refusal"), the rule that decided and HueManity App. E's failure mode.

    Examples
    --------
    >>> read_text("Answer: **Wg**.", 2).answer
    'Wg'
    """
    prepared = prepare(reply)
    body = strip_answer_prefix(clean(prepared.text)).strip(" \t\r\n\"'").removesuffix(".").strip(" \t\r\n\"'")
    if not body or is_evasion(body):
        return unanswered(prepared, "exact", label_len=expected_len)
    mode = None if len(body) <= expected_len and " " not in body else failure_mode(body, label_len=expected_len)
    return Reading(body, "ok", "exact", mode, prepared.truncated)
