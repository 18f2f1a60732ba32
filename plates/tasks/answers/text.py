"""What every answer reader shares: the parse statuses, the failure modes, the one reasoning stripper, the length
cap, text clean-up, evasion and self-correction phrases, and the verdict built from a reading.

The shared policy (each reader's module adds its own on top):

* **Reasoning is not the answer.** ``strip_reasoning``: when a reply holds a closing ``</think>``, everything up
  to the LAST one is reasoning (nested blocks, several blocks, and replies whose opening tag was in the prompt,
  as DeepSeek-R1's chat template does); with an opening ``<think>`` and no closing one, the reply was cut off
  while thinking and everything from the first ``<think>`` on is reasoning. One greedy match
  backing off from the end, one search: linear, and no lower-cased copy of the reply.
* **Untrusted text is bounded before it is read.** A reply longer than ``MAX_REPLY_CHARS`` (after the reasoning
  is stripped) is read as its first ``HEAD_CHARS`` and last ``TAIL_CHARS`` characters joined by a line holding
  ``…``: an answer is given at the start ("B. Because ...") or at the end ("... so the answer is (B)") of a
  reply. The reading says so (``Reading.truncated``; the results row's ``reply_truncated``).
* **Leaked special tokens are no text.** Chat-template and tokenizer tokens that a released model left in its
  reply ("<s> Yes", "...video.</s>", "no<|im_end|>") are replaced by a space before anything is read: the
  bounded list ``SPECIAL_TOKENS`` (Llama/Vicuna ``<s>``, ``</s>``, ``[INST]``, ``[/INST]``, ``<unk>``; ChatML
  ``<|im_start|>``, ``<|im_end|>``; GPT-2 ``<|endoftext|>``; Llama-3 ``<|eot_id|>``, ``<|begin_of_text|>``,
  ``<|end_of_text|>``, ``<|start_header_id|>``, ``<|end_header_id|>``; Phi-3 ``<|end|>``, ``<|assistant|>``;
  Gemma ``<start_of_turn>``, ``<end_of_turn>``, ``<eos>``, ``<bos>``, ``<pad>``), case-insensitive, one
  alternation of literal tokens (linear).
* **A reply ends where the model starts a new turn.** A line beginning "Human:", "User:", "Hint:" or
  "Question:" after the reply's first line is a runaway continuation (the model writing the next prompt
  itself, "A\nHuman: Please provide ..."): the reply is read up to it.
* **Whitespace is one space or one newline.** Runs collapse before any pattern runs, so no ``\\s*`` ever walks a
  long run again and again (the quadratic trap of ``\\s*(?:,|or)`` on a reply of spaces).
* **Only ASCII digits are digits.** ``"²".isdigit()`` and ``"١٢".isdigit()`` are True in Python; no reader
  converts them, and no reader calls ``int`` on reply text (a 5,000-digit number would exceed Python's
  int-conversion limit): numbers are compared as digit strings without leading zeros.
* **The last explicit final-answer phrase wins** (``last_answer``; lmms-eval's ``mcq_extract`` and
  inspect_ai's ``answer`` pattern): "The answer is 12. On reflection, the answer is 17." -> 17, in every reader.
  An explicit phrase is ``ANSWER_PHRASE`` ("answer:", "the answer is", "final answer is", "my answer would
  be") or one a reader adds for its kind ("I'd go with B", "the number is 17"); a phrase counts only when an
  answer of the reader's kind follows it directly, and one followed by two answers ("the answer is 12 or
  17") is ambiguous. Weaker, implicit mentions ("I see 12", "(B)", "yes") never outvote an explicit phrase;
  conflicting implicit mentions abstain (ambiguous).
* **A self-correction decides** (``after_correction``): "12... no, actually 17", "A. On reflection, the answer
  is B.": what follows the last correction phrase is read first; only when it names no answer is the whole
  reply read. The noun "correction" is a correction phrase only as a heading ("Correction: B"), never in a
  sentence ("perspective distortion correction").
* **Common answer words in Chinese** (``translated``): a reply that is, as a whole, one of the words of
  ``FOREIGN_WORDS`` ("左", "右边", "是的", "不是", "上", "下"; Japanese "はい", "いいえ") reads as the English word it
  means ("left", "right", "yes", "no", "up", "down"), for the readers that compare with English option texts
  and vocabularies.
* **Statuses** (``PARSE_STATUSES``): "ok" (an answer was read), "ambiguous" (several different answers and
  nothing to choose between them: "(A) or (B)", "12 or 17"), "refusal" (the reply declines or describes the
  image instead), "unparsed" (nothing readable, or an empty reply). The results rows add "unsupported" and
  "error" (`ROW_STATUSES`), which no reader returns.
* **Failure modes** (HueManity App. E, ``FAILURE_MODES``): "erratic" for several conflicting answers, repeated
  patterns, digit strings longer than the label and random strings; "evasion" for refusals, descriptions and
  empty replies; "hallucination" for everything else. A correct answer has none; a plain misreading of the
  label's form has none (the human-like error HueManity App. E contrasts with the three).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from plates.tasks.base import Score

__all__ = [
    "FAILURE_MODES",
    "FOREIGN_WORDS",
    "HEAD_CHARS",
    "MAX_REPLY_CHARS",
    "PARSE_STATUSES",
    "ROW_STATUSES",
    "SPECIAL_TOKENS",
    "TAIL_CHARS",
    "Prepared",
    "Reading",
    "ANSWER_PHRASE",
    "after_correction",
    "clean",
    "failure_mode",
    "is_evasion",
    "hedge_end",
    "is_hedge",
    "last_answer",
    "prepare",
    "strip_answer_prefix",
    "strip_reasoning",
    "translated",
    "unanswered",
    "verdict",
]

T = TypeVar("T")

#: What a reader can say about a reply (see the module docstring). Declared once for every answer kind.
PARSE_STATUSES = ("ok", "ambiguous", "unparsed", "refusal")
#: A results row's parse_status: a reader's, or "unsupported" (the backend declined the query) / "error" (the
#: request failed; nothing was read).
ROW_STATUSES = (*PARSE_STATUSES, "unsupported", "error")
#: HueManity App. E's three failure modes of a reply that does not give the label.
FAILURE_MODES = ("hallucination", "evasion", "erratic")

#: Replies longer than this (characters, after the reasoning is stripped) are read as head + tail.
MAX_REPLY_CHARS = 8192
HEAD_CHARS = 4096
TAIL_CHARS = 4096
_ELLIPSIS = "\n…\n"


@dataclass(frozen=True)
class Prepared:
    """A reply ready for a reader: ``text`` without reasoning, bounded and with collapsed whitespace (not yet
    cleaned of markdown); ``truncated``: the reply was longer than ``MAX_REPLY_CHARS``.

    Parameters
    ----------
    text : str
        The prepared text.
    truncated : bool
        The reply was cut to `HEAD_CHARS` + `TAIL_CHARS`.
    """

    text: str
    truncated: bool


@dataclass(frozen=True)
class Reading:
    """What a reader read. ``answer``: the answer in the question's terms (a label, "yes"/"no", an option key, a
    colour name), None unless ``status`` is "ok"; ``rule``: the rule that decided; ``failure_mode``: HueManity
    App. E's mode (for an answer: the mode it gets when it is wrong, e.g. "erratic" for "121212"; None for a
    plain misreading); ``truncated``: the reply was cut to head and tail before reading.

    Parameters
    ----------
    answer : str or None
        The answer read, None unless ``status`` is "ok".
    status : str
        One of `PARSE_STATUSES`.
    rule : str
        The rule that decided, in words.
    failure_mode : str or None, optional
        One of `FAILURE_MODES`, or None.
    truncated : bool, optional
        The reply was cut before reading.
    """

    answer: str | None
    status: str
    rule: str
    failure_mode: str | None = None
    truncated: bool = False


_LAST_CLOSE = re.compile(r".*</think>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(r"<think>", re.IGNORECASE)


def strip_reasoning(reply: str) -> str:
    """``reply`` without its ``<think>`` reasoning (see the module docstring; case-insensitive tags).

    Parameters
    ----------
    reply : str
        A raw reply.

    Returns
    -------
    str
        What follows the last ``</think>``; without one, what precedes the first ``<think>`` (an unclosed
        block: the reply was cut off while thinking); else ``reply`` unchanged.

    Examples
    --------
    >>> strip_reasoning("<think>12 or 17?</think> 17")
    ' 17'
    >>> strip_reasoning("so 17</think></think>Answer: 17")
    'Answer: 17'
    >>> strip_reasoning("<think>cut off while thinking")
    ''
    """
    if "<" not in reply:
        return reply
    last = _LAST_CLOSE.match(reply)  # greedy: backs off from the end to the last closing tag, once
    if last is not None:
        return reply[last.end():]
    start = _OPEN.search(reply)
    return reply if start is None else reply[:start.start()]


#: Special tokens that released models leak into their replies (see the module docstring); replaced by a space.
SPECIAL_TOKENS = (
    "<s>", "</s>", "<unk>", "[INST]", "[/INST]", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|eot_id|>",
    "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|end|>",
    "<|assistant|>", "<start_of_turn>", "<end_of_turn>", "<eos>", "<bos>", "<pad>",
)
_SPECIAL = re.compile("|".join(re.escape(t) for t in sorted(SPECIAL_TOKENS, key=len, reverse=True)), re.IGNORECASE)


# A line that starts a new turn of the conversation (a runaway continuation): the reply ends before it.
_NEW_TURN = re.compile(r"(?<=.)\n(?:#{1,3} ?)?(?:human|user|### instruction|hint|question) ?:", re.IGNORECASE | re.DOTALL)


def prepare(reply: str) -> Prepared:
    """A reply made ready for a reader: reasoning and leaked special tokens (`SPECIAL_TOKENS`) stripped,
    bounded to head + tail, whitespace collapsed.

    Parameters
    ----------
    reply : str
        Any str (a failed request is stored as an error row, never read).

    Returns
    -------
    Prepared
        ``text`` and ``truncated`` (the reply was longer than `MAX_REPLY_CHARS`).

    Raises
    ------
    ValueError
        A reply that is not a str.

    Examples
    --------
    >>> prepare("<think>hmm</think>  Answer:   12 ")
    Prepared(text='Answer: 12', truncated=False)
    >>> prepare("<s> A is closer.</s>").text
    'A is closer.'
    """
    if not isinstance(reply, str):
        raise ValueError(
            f"reply must be a str, got {type(reply).__name__} (a failed request is stored as an error, never scored)"
        )
    text = strip_reasoning(reply)
    truncated = len(text) > MAX_REPLY_CHARS
    if truncated:
        text = text[:HEAD_CHARS] + _ELLIPSIS + text[-TAIL_CHARS:]
    if "<" in text or "[" in text:
        text = _SPECIAL.sub(" ", text)
    turn = _NEW_TURN.search(text)
    if turn is not None:
        text = text[: turn.start()]
    lines = (" ".join(line.split()) for line in text.splitlines())
    return Prepared("\n".join(line for line in lines if line), truncated)


# --- clean-up -------------------------------------------------------------------------------------------------

# Trap: models wrap answers in markdown ("**42**", "`42`", "### Answer"); a hex code "#1E90FF" keeps its "#".
_MARKDOWN = re.compile(r"\*\*|__|`|^#{1,6} ", re.MULTILINE)
# Trap: typographic quotes ("it’s") and full-width colon and parentheses.
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\uff1a": ":",
                         "\uff08": "(", "\uff09": ")"})
# HueManity B.2 removes a possible "Answer: " prefix; we also accept "answer:", "Final answer :".
_PREFIX = re.compile(r"^ ?(?:final )?answer ?: ?", re.IGNORECASE)


_QUOTE_CHARS = "\u2018\u2019\u201c\u201d\uff1a\uff08\uff09"


def clean(text: str) -> str:
    """Markdown emphasis and typographic quotes removed, whitespace trimmed (text from `prepare`).

    Parameters
    ----------
    text : str
        Prepared text.

    Returns
    -------
    str
        ``text`` without ``**``, ``__``, backticks and leading heading marks, typographic quotes and full-width
        colon and parentheses made ASCII, stripped.
    """
    # translate is slow on non-ASCII text: only when a quote is there (isascii is O(1) in CPython)
    if not text.isascii() and any(c in text for c in _QUOTE_CHARS):
        text = text.translate(_QUOTES)
    return _MARKDOWN.sub("", text).strip()


def strip_answer_prefix(text: str) -> str:
    """``text`` without a leading "Answer:" (case-insensitive; HueManity App. B.2).

    Parameters
    ----------
    text : str
        Cleaned text.

    Returns
    -------
    str
        ``text`` without its first "answer:" or "final answer:" prefix (spaces around the colon allowed),
        stripped.
    """
    return _PREFIX.sub("", text, count=1).strip()


# --- self-corrections -----------------------------------------------------------------------------------------

# Trap: not "rather"/"instead": "12 rather than 17" is no correction.
# Each pattern of alternated words starts with a lookahead on the words' first letters: the engine then skips
# every other position at once instead of trying each alternative there (2-3x faster on an ordinary reply).
_CORRECTION = re.compile(
    r"(?=[awciso])\b(?:actually|wait|correction(?= ?[:!\-])|i mean|on (?:second thought|reflection|closer inspection)"
    r"|scratch that)\b",
    re.IGNORECASE,
)


def after_correction(text: str) -> str | None:
    """The text after the last self-correction phrase of ``text``, or None when there is none.

    Parameters
    ----------
    text : str
        A reply's text.

    Returns
    -------
    str or None
        What follows the last "actually", "wait", "correction:", "I mean", "on second thought" (or "on
        reflection", "on closer inspection") or "scratch that"; None without one.
    """
    last = None
    for last in _CORRECTION.finditer(text):  # noqa: B007 - the last match is the one wanted
        pass
    return None if last is None else text[last.end():]


# --- answer words in Chinese ----------------------------------------------------------------------------------

#: Chinese (and a few Japanese) answer words -> the English word they mean (a bounded table: left/right,
#: yes/no, up/down).
FOREIGN_WORDS = {
    "左": "left", "左边": "left", "左侧": "left", "向左": "left", "左面": "left",
    "右": "right", "右边": "right", "右侧": "right", "向右": "right", "右面": "right",
    "是": "yes", "是的": "yes", "对": "yes", "对的": "yes", "有": "yes",
    "否": "no", "不是": "no", "不": "no", "不对": "no", "没有": "no",
    "上": "up", "上面": "up", "向上": "up", "下": "down", "下面": "down", "向下": "down",
    "はい": "yes", "いいえ": "no", "左側": "left", "右側": "right",
}
_FOREIGN_EDGES = " \t\r\n.,;:!?\"'()[]*。，；：！？、"


def translated(text: str) -> str:
    """``text`` as the English word of `FOREIGN_WORDS` when it is, as a whole (punctuation aside), one of the
    table's words; else ``text`` unchanged.

    Parameters
    ----------
    text : str
        A reply's text.

    Returns
    -------
    str
        The English word, or ``text``; ASCII text and text over 16 characters are returned unchanged.

    Examples
    --------
    >>> translated("左。"), translated("The left one")
    ('left', 'The left one')
    """
    if text.isascii() or len(text) > 16:
        return text
    return FOREIGN_WORDS.get(text.strip(_FOREIGN_EDGES), text)


# --- explicit answer phrases -------------------------------------------------------------------------------

#: The explicit final-answer phrase every reader knows (a pattern source; readers add their kind's phrases by
#: alternation): "answer: B", "the answer is 17", "Final answer = yes", "my answer would be: grey", the
#: answer on the next line ("the correct answer is:\n(C) Point C"), and Chinese "答案: B", "答案是 B".
ANSWER_PHRASE = (r"(?:\banswer\b(?: to (?:the|this|your) question)?(?: (?:is|would be|should be|will be)\b)?"
                 r"|答案(?:是|为)?) ?[:\-=]? ?\n? ?")


def last_answer(text: str, phrases: re.Pattern, read: Callable[[str, int], T | None]) -> T | None:
    """The answer-phrase rule of every reader: ``read(text, end)`` at the end of each match of ``phrases``
    (None when no answer of the reader's kind follows), the LAST non-None reading wins; None when no phrase
    names an answer. One pass over the phrases; ``read`` looks only a bounded way past the phrase.

    Parameters
    ----------
    text : str
        A reply's text.
    phrases : re.Pattern
        The reader's answer phrases (`ANSWER_PHRASE` and its own).
    read : callable
        ``read(text, end)`` -> the answer following offset ``end``, or None.

    Returns
    -------
    object or None
        The last reading that is not None, or None.
    """
    found = None
    for m in phrases.finditer(text):
        value = read(text, m.end())
        if value is not None:
            found = value
    return found


# --- evasion and failure modes (HueManity App. E) -------------------------------------------------------------

_EVASION = re.compile(  # first letters: see _CORRECTION
    r"(?=[acdhinsu])\b(?:can ?not|can't|could ?not|couldn't|unable|not able|impossible|sorry|as an ai|i'm an ai"
    r"|(?:do|does|did) ?n[o']t (?:see|contain|show|appear|detect|find)|don't see|no (?:\w+ ){0,2}"
    r"(?:numbers?|digits?|text|characters?|letters?)\b|not (?:clearly )?(?:visible|discernible|legible|clear)"
    r"|not sure|unclear|nothing|none|no idea|(?:do|did) ?n[o']t know|"
    # Trap: the closing \b keeps "none" out of "nonetheless".
    r"(?:hard|difficult|challenging) to (?:[a-z]+ly )?(?:tell|say|see|read|determine|identify|make out))\b",
    re.IGNORECASE,
)
# E.2: "providing a general description of the image (often correctly identifying it as a color vision test)".
_DESCRIPTION = re.compile(
    r"\b(?:ishihara|colou?r[- ]?blind(?:ness)?|colou?r vision|dots?|circles?|circular|pattern|mosaic)\b",
    re.IGNORECASE,
)
# E.3: "flawed, repetitive patterns (e.g. '[L1L1L1]')": a unit of 1-4 characters repeated 3+ times.
_REPEATED = re.compile(r"(.{1,4}?)\1{2,}(.{0,3})", re.DOTALL)
_SEPARATORS = re.compile(r"(?= ?[,;/|\noa]) ?(?:,|;|/|\||\bor\b|\band\b|\n) ?", re.IGNORECASE)
_NOT_WORD = re.compile(r"[\s\W_]+")
_EDGE_PUNCT = " \t\r\n.,;:!?\"'()[]{}<>*_"


def hedge_end(text: str) -> int | None:
    """Where the first hedge or refusal of `is_hedge` ends in ``text`` (an offset), or None without one.

    Parameters
    ----------
    text : str
        A reply.

    Returns
    -------
    int or None
        The character offset just after the first hedge or refusal, or None when ``text`` has none.
    """
    m = _EVASION.search(text)
    return m.end() if m else None


def is_hedge(text: str) -> bool:
    """A refusal or hedge ("I cannot tell", "difficult to definitively determine", "not sure"), without
    `is_evasion`'s description words (a sentence about "the pattern" may still choose an option).

    Parameters
    ----------
    text : str
        A reply's text.

    Returns
    -------
    bool
        Whether a refusal or hedge phrase occurs in ``text``.
    """
    return bool(_EVASION.search(text))


def is_evasion(text: str) -> bool:
    """A refusal ("I cannot see any number", "not visible") or a description instead of an answer.

    Parameters
    ----------
    text : str
        A reply's text.

    Returns
    -------
    bool
        Whether a refusal or hedge phrase, or a description word ("Ishihara", "colour blind", "dots",
        "pattern", ...; HueManity App. E.2), occurs in ``text``.
    """
    return bool(_EVASION.search(text) or _DESCRIPTION.search(text))


def failure_mode(text: str, *, label_len: int, ambiguous: bool = False, evasive: bool | None = None) -> str:
    """The HueManity App. E failure mode of a reply (prepared text) that did not give a well-formed label.

    ``label_len``: the length of a label (2 for the papers' spaces); ``ambiguous``: a reader found several
    conflicting answers; ``evasive``: `is_evasion` of the cleaned text when the caller knows it already.

    Parameters
    ----------
    text : str
        Prepared text.
    label_len : int
        A label's length, characters.
    ambiguous : bool, optional
        A reader found several conflicting answers.
    evasive : bool or None, optional
        `is_evasion` of the cleaned text, or None to compute it.

    Returns
    -------
    str
        "evasion" (nothing, a refusal or a description), "erratic" (repetition, conflicting answers, long
        digit runs or random strings) or "hallucination" (words, or more characters than a label).
    """
    return _mode(strip_answer_prefix(clean(text)), label_len, ambiguous, evasive)


def _mode(t: str, label_len: int, ambiguous: bool, evasive: bool | None) -> str:
    """`failure_mode` of ``t``, text already cleaned and without its answer prefix."""
    compact = _NOT_WORD.sub("", t)
    if not compact:
        return "evasion"
    # Trap: "12 12 12" is repetitive, and "[L1L1L1]" too once brackets are gone: check before evasion words.
    if len(compact) >= 6 and _REPEATED.fullmatch(compact):
        return "erratic"
    if is_evasion(t) if evasive is None else evasive:
        return "evasion"
    parts = [p.strip(_EDGE_PUNCT) for p in _SEPARATORS.split(t) if p.strip(_EDGE_PUNCT)]
    short = [p for p in parts if " " not in p and len(p) <= max(label_len, 2)]
    if ambiguous or (len(parts) >= 2 and len(short) == len(parts) and len(set(parts)) >= 2):
        return "erratic"  # E.3: several conflicting answers
    token = t.strip(_EDGE_PUNCT)
    if token and " " not in token and "\n" not in token and len(token) > label_len:
        if token.isascii() and token.isdigit():
            return "erratic"  # E.3: "extreme numerical inventions", long sequential numbers
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if (has_digit and has_alpha) or not token.isalnum():
            return "erratic"  # E.3: random strings
    return "hallucination"  # E.1: words, phrases, more characters than the label


def unanswered(prepared: Prepared, rule: str, *, label_len: int, ambiguous: bool = False) -> Reading:
    """The reading of a reply that gave no usable answer: "ambiguous" (erratic) when a reader found several
    answers; else "refusal" (evasion) for refusals and descriptions; else "unparsed" with its failure mode
    (an empty reply: evasion, no answer was attempted).

    Parameters
    ----------
    prepared : Prepared
        The reply (`prepare`).
    rule : str
        The reader's rule, in words (an empty reply with no rule gets one saying so).
    label_len : int
        A label's length, characters.
    ambiguous : bool, optional
        A reader found several conflicting answers.

    Returns
    -------
    Reading
        A reading with no answer, status "unparsed", "ambiguous" or "refusal", and its failure mode.
    """
    cleaned, cut = clean(prepared.text), prepared.truncated
    if not cleaned.strip(_EDGE_PUNCT):
        return Reading(None, "unparsed", rule or "empty reply (after any <think> block)", "evasion", cut)
    if ambiguous:
        return Reading(None, "ambiguous", rule, "erratic", cut)
    body = strip_answer_prefix(cleaned)
    evasive = is_evasion(body)
    mode = _mode(body, label_len, False, evasive)
    if mode == "evasion" and evasive:
        return Reading(None, "refusal", rule + "; evasion", "evasion", cut)
    return Reading(None, "unparsed", rule, mode, cut)


def verdict(reading: Reading, expected: str) -> Score:
    """The verdict on a reading.

    Parameters
    ----------
    reading : Reading
        A reader's reading.
    expected : str
        The right answer in the reader's terms; "" where no answer is right (an undetermined human key:
        never correct).

    Returns
    -------
    plates.tasks.base.Score

    Examples
    --------
    >>> from plates.tasks.answers.labels import read_number
    >>> verdict(read_number("74"), "74").correct
    True
    """
    correct = reading.status == "ok" and bool(expected) and reading.answer == expected
    mode = None if correct else reading.failure_mode
    return Score(reading.answer, reading.status, correct, mode, reading.rule, reading.truncated)
