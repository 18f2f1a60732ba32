"""Reply text -> parsed answer, parse status, verdict and failure mode. Pure functions over strings.

Parsing replies is where benchmarks go wrong, so every rule below names the trap it avoids, and
``tests/tasks/test_scoring.py`` holds one test per tricky reply. No colours are involved here.

The decision rule, in order (``score``):

1. **Empty reply** (after removing a ``<think>...</think>`` reasoning block, or an unclosed one: a reply cut off
   while thinking) -> unparsed, failure mode "evasion" (no answer was attempted).
2. **Parse** by prompt kind and label space:

   * open, HueManity spaces (App. B.2, literally): trim whitespace, remove a possible "Answer:" prefix, take
     the first two alphanumerics, compare case-sensitively. A pair with a character outside the 58-symbol set
     (or, for the numeric space, not "10".."99") is invalid -> unparsed. The prefix match is the one widening:
     it is case-insensitive and tolerates markdown ("**Answer:** Rw").
   * open, "cbe" (and "any" with a numeric target): number extraction (``parse_number``): a whole-reply
     number or number word; else the number after the last self-correction ("actually", "wait", ...); else
     the number after explicit answer phrases ("answer:", "I see", "shows", "it's", ...), which must agree;
     else every standalone number that is not a reference ("plate 5", "200 dots") must agree. Numbers are
     compared as integers ("07" is 7). Digits glued to letters ("7b", "L1L1") are not numbers.
   * open, "any" text target: the reply without prefix, markdown, quotes and a final full stop, exactly.
   * yesno: a leading yes/no, else "answer: yes|no", else the only yes/no word of the reply ("I think yes");
     both words ("yes or no") answer nothing. "No number is visible" is an evasion, not the answer "no".
   * mc: a bare letter ("B", "(b)"); else the LAST "(X)" naming an option (ColorBench's CoT format) -- never
     the last letter anywhere; else "answer/option X"; else a reply equal to one option's text.
3. **Nothing parsed**: evasion phrases ("cannot", "not visible", "no number", a description of the plate)
   -> parse status "refusal", failure mode "evasion"; otherwise "unparsed" with a failure mode from 5.
4. **Parsed**: correct when equal to ``expected``; a wrong answer of the label's form gets no failure mode
   (a plain misreading: the human-like error HueManity App. E contrasts with the three MLLM failure modes).
5. **Failure modes** (HueManity App. E; first match wins): "erratic" for repeated patterns ("L1L1L1L1"),
   several conflicting answers ("12 or 17"), digit strings longer than the label ("4726"), and random
   strings mixing letters, digits and symbols; "evasion" for refusals and descriptions; "hallucination" for
   everything else: words, phrases, more characters than the label ("MUST SEE", "SOLU").

A refusal is never correct, even when its first two alphanumerics happen to equal the label.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass
from typing import Any

from plates.models.base import QUERY_KINDS as KINDS
from plates.stimuli.ishihara.labels import HUEMANITY_SYMBOLS, LABEL_SPACE_NAMES, LABEL_SPACES
from plates.tasks.base import Score

PARSE_STATUSES = ("ok", "unparsed", "refusal")
FAILURE_MODES = ("hallucination", "evasion", "erratic")





# --- text clean-up ----------------------------------------------------------------------------------------

# Trap: models wrap answers in markdown ("**42**", "`42`", "### Answer") and typographic quotes ("it’s").
_MARKDOWN = re.compile(r"\*\*|__|`|^#+\s*", re.MULTILINE)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\uff1a": ":"})
# HueManity B.2 removes a possible "Answer: " prefix; we also accept "answer:", "Final answer :".
_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*:\s*", re.IGNORECASE)
_EDGE_PUNCT = " \t\r\n.,;:!?\"'()[]{}<>*_"


def clean(reply: str) -> str:
    """Markdown emphasis and typographic quotes removed, whitespace trimmed."""
    return _MARKDOWN.sub("", reply.translate(_QUOTES)).strip()


def strip_answer_prefix(text: str) -> str:
    """``text`` without a leading "Answer:" (case-insensitive; HueManity App. B.2)."""
    return _PREFIX.sub("", text, count=1).strip()


# --- evasion and failure modes (HueManity App. E) ---------------------------------------------------------

_EVASION = re.compile(
    r"\b(?:can ?not|can't|could ?not|couldn't|unable|not able|impossible|sorry|as an ai|i'm an ai"
    r"|(?:do|does|did) ?n[o']t (?:see|contain|show|appear|detect|find)|don't see|no (?:\w+ ){0,2}"
    r"(?:numbers?|digits?|text|characters?|letters?)\b|not (?:clearly )?(?:visible|discernible|legible|clear)"
    r"|not sure|unclear|nothing|none|no idea|(?:do|did) ?n[o']t know|"
    # Trap: the closing \b keeps "none" out of "nonetheless".
    r"(?:hard|difficult) to (?:tell|say|see|read|determine|identify|make out))\b",
    re.IGNORECASE,
)
# E.2: "providing a general description of the image (often correctly identifying it as a color vision test)".
_DESCRIPTION = re.compile(
    r"\b(?:ishihara|colou?r[- ]?blind(?:ness)?|colou?r vision|dots?|circles?|circular|pattern|mosaic)\b",
    re.IGNORECASE,
)
# E.3: "flawed, repetitive patterns (e.g. '[L1L1L1]')": a unit of 1-4 characters repeated 3+ times.
_REPEATED = re.compile(r"^(.{1,4}?)\1{2,}(.{0,3})$", re.DOTALL)
_SEPARATORS = re.compile(r"\s*(?:,|;|/|\||\bor\b|\band\b|\n)\s*", re.IGNORECASE)


def is_evasion(text: str) -> bool:
    """A refusal ("I cannot see any number", "not visible") or a description instead of an answer."""
    return bool(_EVASION.search(text) or _DESCRIPTION.search(text))


def failure_mode(text: str, *, label_len: int, ambiguous: bool = False) -> str:
    """The HueManity App. E failure mode of a reply that did not give a well-formed label (see module doc).

    ``label_len`` is the length of a label in the space (2 for the papers' spaces); ``ambiguous`` is set by a
    parser that found several conflicting answers.
    """
    t = strip_answer_prefix(clean(text))
    compact = re.sub(r"[\s\W_]+", "", t)
    if not compact:
        return "evasion"
    # Trap: "12 12 12" is repetitive, and "[L1L1L1]" too once brackets are gone: check before evasion words.
    if len(compact) >= 6 and _REPEATED.match(compact):
        return "erratic"
    if is_evasion(t):
        return "evasion"
    parts = [p.strip(_EDGE_PUNCT) for p in _SEPARATORS.split(t) if p.strip(_EDGE_PUNCT)]
    short = [p for p in parts if " " not in p and len(p) <= max(label_len, 2)]
    if ambiguous or (len(parts) >= 2 and len(short) == len(parts) and len(set(parts)) >= 2):
        return "erratic"  # E.3 / brief: several conflicting answers
    token = t.strip(_EDGE_PUNCT)
    if token and not re.search(r"\s", token) and len(token) > label_len:
        if token.isdigit():
            return "erratic"  # E.3: "extreme numerical inventions", long sequential numbers
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if (has_digit and has_alpha) or not token.isalnum():
            return "erratic"  # E.3: random strings
    return "hallucination"  # E.1: words, phrases, more characters than the label


# --- numbers (ColorBlindnessEval open prompts) ------------------------------------------------------------

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
         "sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def _number_words() -> dict[str, int]:
    words = {w: i for i, w in enumerate(_UNITS)}
    for i, tens in enumerate(_TENS):
        value = 20 + 10 * i
        words[tens] = value
        for unit in range(1, 10):
            for sep in ("-", " ", ""):
                words[f"{tens}{sep}{_UNITS[unit]}"] = value + unit
    return words


NUMBER_WORDS: dict[str, int] = _number_words()
_WORD_ALT = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
# Trap: digits glued to letters or decimals are not answers: "7b", "L1L1", "4.2", "3rd".
_NUMBER = r"(?<![\w.])(?:[0-9]+(?![\w]|\.[0-9]))"
# Trap: "I see a two-digit number", "it is one of the plates", "2 digits": a count, not an answer.
_NOT_ANSWER = r"(?![-\w])(?!\s+(?:of|digits?|numbers?|colou?rs?|dots?)\b)"
_NUMBER_RE = re.compile(_NUMBER)
# Explicit answer phrases; the number must follow directly (quotes/brackets allowed).
_MARKER = re.compile(
    r"(?:\banswer\s*(?:is)?\s*[:=]?|\b(?:the )?(?:number|digit)s?\s*(?:(?:in|on|shown in) (?:the|this) "
    r"(?:image|plate|picture) )?(?:is|appears to be|seems to be|looks like|reads|would be)\s*:?|\bnumber\s*:"
    r"|\bi (?:can )?see(?: the number| a| an)?|\bit(?:'s| is)(?: the number)?|\bshows(?: the number| a)?"
    r"|\breads|\bappears to be|\blooks like(?: a| the number)?|\bseems to be)"
    rf"\s*[\"'(\[]*\s*((?:{_NUMBER}|\b(?:{_WORD_ALT}))\b{_NOT_ANSWER})",
    re.IGNORECASE,
)
# Trap: a self-correction ("It's 12... no, actually 17") answers with the number after the last correction.
_CORRECTION = re.compile(
    # Trap: not "rather"/"instead": "12 rather than 17" is no correction.
    r"\b(?:actually|wait|correction|i mean|on second thought|on closer inspection|scratch that)\b",
    re.IGNORECASE,
)
# Trap: "This Ishihara plate (plate 5) shows 42" -- 5 names the plate, it is not an answer.
_REF_BEFORE = re.compile(
    r"(?:\b(?:plate|image|figure|fig|picture|photo|test|step|option|page|no|of)|#)\s*\.?\s*#?\s*$",
    re.IGNORECASE,
)
_REF_AFTER = re.compile(
    r"^\s*(?:%|percent|dots?|colou?rs?|circles?|px|pixels?|degrees?|°|times|seconds?|shades?|steps?|of\b)",
    re.IGNORECASE,
)


_ALTERNATIVE = re.compile(r"\s*(?:,|/|\bor\b|\band\b|&)\s*(?:maybe |possibly |perhaps )?[0-9]+\b", re.IGNORECASE)


def _to_int(token: str) -> int:
    token = token.strip().lower()
    return int(token) if re.fullmatch(r"[0-9]+", token) else NUMBER_WORDS[token]


def _standalone_numbers(text: str) -> list[int]:
    values = []
    for m in _NUMBER_RE.finditer(text):
        if _REF_BEFORE.search(text[: m.start()]) or _REF_AFTER.match(text[m.end():]):
            continue
        values.append(int(m.group()))
    return values


@dataclass(frozen=True)
class NumberParse:
    """Result of ``parse_number``: ``value`` (None when none or ambiguous), the rule, and ambiguity."""

    value: int | None
    rule: str
    ambiguous: bool = False


def parse_number(reply: str) -> NumberParse:
    """The number an open reply answers with (ColorBlindnessEval App. F: "Output the number you see only")."""
    t = clean(reply)
    body = strip_answer_prefix(t).strip(_EDGE_PUNCT)
    if re.fullmatch(r"[0-9]+", body):  # Trap: "²".isdigit() is True, int("²") fails
        return NumberParse(int(body), "whole")
    if body.lower() in NUMBER_WORDS:  # "twelve", "Forty-two." -- only as the whole reply: "one number" is not 1
        return NumberParse(NUMBER_WORDS[body.lower()], "word")
    corrections = list(_CORRECTION.finditer(t))
    if corrections:
        tail = t[corrections[-1].end():]
        found = {_to_int(m.group(1)) for m in _MARKER.finditer(tail)} or set(_standalone_numbers(tail))
        if len(found) == 1:
            return NumberParse(found.pop(), "correction")
    marks = list(_MARKER.finditer(t))
    # Trap: "I see 12 and 17" -- an answer phrase followed by a second number is two answers.
    if any(_ALTERNATIVE.match(t[m.end():]) for m in marks):
        return NumberParse(None, "alternatives", ambiguous=True)
    marked = [_to_int(m.group(1)) for m in marks]
    if marked:
        if len(set(marked)) == 1:
            return NumberParse(marked[0], "marker")
        return NumberParse(None, "conflicting markers", ambiguous=True)
    values = set(_standalone_numbers(t))
    if len(values) == 1:
        return NumberParse(values.pop(), "single number")
    if values:
        return NumberParse(None, "several numbers", ambiguous=True)
    return NumberParse(None, "no number")


# --- scoring ----------------------------------------------------------------------------------------------

@functools.cache
def _labels(space: str) -> frozenset[str]:
    return frozenset(LABEL_SPACES[space])


@functools.cache
def _symbols() -> frozenset[str]:
    return frozenset(HUEMANITY_SYMBOLS)


def _unanswered(reply: str, label_len: int, rule: str, *, ambiguous: bool = False) -> Score:
    """Nothing usable was parsed: a refusal (evasion) or an unparsed reply with its failure mode."""
    if not ambiguous and is_evasion(strip_answer_prefix(clean(reply))):
        mode = failure_mode(reply, label_len=label_len)
        if mode == "evasion":
            return Score(None, "refusal", False, "evasion", rule + "; evasion")
        return Score(None, "unparsed", False, mode, rule)
    return Score(None, "unparsed", False, failure_mode(reply, label_len=label_len, ambiguous=ambiguous), rule)


def _score_huemanity(reply: str, expected: str, space: str) -> Score:
    rem = strip_answer_prefix(clean(reply))
    alnums = [c for c in rem if c.isalnum()]  # Trap: str.isalnum accepts "²" and "é"; the set check rejects them
    norm = "".join(alnums[:2])
    well_formed = rem.strip(_EDGE_PUNCT) == norm and len(norm) == 2
    if not well_formed and is_evasion(rem) and failure_mode(rem, label_len=2) == "evasion":
        return Score(None, "refusal", False, "evasion", "B.2; evasion")
    valid = len(norm) == 2 and set(norm) <= _symbols() and (space != "huemanity-numeric" or norm in _labels(space))
    if not valid:
        return _unanswered(reply, 2, f"B.2: {norm!r} is not a label of {space}")
    if norm == expected:  # case-sensitive (B.2): "rw" is not "Rw"
        return Score(norm, "ok", True, None, "B.2")
    return Score(norm, "ok", False, None if well_formed else failure_mode(rem, label_len=2), "B.2")


def _score_number(reply: str, expected: str, labels: frozenset[str] | None) -> Score:
    label_len = len(expected) if labels is None else max(len(x) for x in labels)
    parsed = parse_number(reply)
    if parsed.value is None:
        return _unanswered(reply, label_len, parsed.rule, ambiguous=parsed.ambiguous)
    value = str(parsed.value)  # "07" -> "7": integers compare, not strings
    if value == str(int(expected)):
        return Score(value, "ok", True, None, parsed.rule)
    in_space = labels is None or value in labels
    return Score(value, "ok", False, None if in_space else "erratic", parsed.rule)


def _score_text(reply: str, expected: str) -> Score:
    body = strip_answer_prefix(clean(reply)).strip(" \t\r\n\"'").removesuffix(".").strip(" \t\r\n\"'")
    if body == expected:
        return Score(body, "ok", True, None, "exact")
    if not body or is_evasion(body):
        return _unanswered(reply, len(expected), "exact")
    mode = None if len(body) <= len(expected) and " " not in body else failure_mode(body, label_len=len(expected))
    return Score(body, "ok", False, mode, "exact")


# Trap: "No number is visible" starts with "No" but is an evasion, not the answer "no".
_YES_OR_NO = (
    r"(yes\b|no\b(?!\s+(?:(?:visible|discernible|clear|legible|hidden|such|obvious|recogni[sz]able)\s+)?"
    r"(?:numbers?|digits?|text|characters?|letters?|visible|discernible|such)\b))"
)
# Trap: "Yes or no, hard to say" does not answer "yes".
_LEADING_YN = re.compile(r"^\W*" + _YES_OR_NO + r"(?!\s*(?:or|/|and)\s*(?:yes|no)\b)", re.IGNORECASE)
_ANY_YN = re.compile(r"\b" + _YES_OR_NO, re.IGNORECASE)
_MARKED_YN = re.compile(r"\banswer\s*(?:is)?\s*:?\s*\W*(yes|no)\b", re.IGNORECASE)


def _score_yesno(reply: str, expected: str) -> Score:
    t = clean(reply)
    m = _LEADING_YN.match(strip_answer_prefix(t))
    rule = "leading yes/no"
    if m is None:
        marked = list(_MARKED_YN.finditer(t))
        m, rule = (marked[-1], "answer: yes/no") if marked else (None, "no yes/no")
    if m is None:
        # "I think yes", "There is no 12 here": the only yes/no word answers. Both words ("yes or no") do not.
        words = {w.group(1).lower() for w in _ANY_YN.finditer(t)}
        if len(words) == 2:
            return _unanswered(reply, 3, "both yes and no", ambiguous=not is_evasion(t))
        if not words:
            return _unanswered(reply, 3, rule)
        parsed = words.pop()
        return Score(parsed, "ok", parsed == expected, None, "only yes/no word")
    parsed = m.group(1).lower()
    return Score(parsed, "ok", parsed == expected, None, rule)


_OPTION_MARKER = re.compile(r"\b(?:answer|option|choice|choose|select|pick)\s*(?:is)?\s*:?\s*([A-Z])\b")


def _score_mc(reply: str, expected: str, options: dict[str, str] | None) -> Score:
    letters = tuple(options) if options else tuple(string.ascii_uppercase)
    t = clean(reply)
    body = strip_answer_prefix(t).strip(" \t\r\n.:!\"'")
    parsed, rule = None, ""
    m = re.fullmatch(r"\(?([A-Za-z])\)?", body)
    if m and m.group(1).upper() in letters:
        parsed, rule = m.group(1).upper(), "bare letter"
    if parsed is None:
        m = re.match(r"([A-Z])[).:]\s", body)  # "B) 12", "B. 12" (ColorBench's unify_ans accepts "b) 12")
        if m and m.group(1) in letters:
            parsed, rule = m.group(1), "leading letter"
    if parsed is None:
        # ColorBench CoT: "conclude with ... (X)": the LAST "(X)" naming an option, never the last letter
        # anywhere (the trap in ColorBench's own extract_letter). Trap: "option(s)" is not an answer "(S)".
        found = [x.upper() for x in re.findall(r"(?<![A-Za-z0-9])\(([A-Za-z])\)", t) if x.upper() in letters]
        if found:
            parsed, rule = found[-1], "last (X)"
    if parsed is None:
        # Trap: uppercase only -- "the answer is a 12" names no option.
        found = [x for x in _OPTION_MARKER.findall(t) if x in letters]
        if found:
            parsed, rule = found[-1], "answer/option X"
    if parsed is None and options:
        same = [k for k, v in options.items() if body == v.strip()]
        if len(same) == 1:
            parsed, rule = same[0], "option text"
    if parsed is None:
        return _unanswered(reply, 1, "no option letter")
    return Score(parsed, "ok", parsed == expected, None, rule)


# A closed reasoning block, or an unclosed one running to the end (a reply cut off while still thinking).
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


def _check_options(options: Any) -> dict[str, str] | None:
    if options is None:
        return None
    if not isinstance(options, dict) or not options:
        raise ValueError(f"options must be a non-empty dict {{letter: text}}, got {options!r:.80}")
    for key, value in options.items():
        if not (isinstance(key, str) and len(key) == 1 and key in string.ascii_uppercase):
            raise ValueError(f"option key {key!r} is not allowed; allowed: single letters A-Z")
        if not isinstance(value, str):
            raise ValueError(f"option {key!r} text must be a str, got {type(value).__name__}")
    return options


def score(
    kind: str, reply: str, expected: str, *, label_space: str | None = None, options: dict[str, str] | None = None
) -> Score:
    """Score one reply (see the module docstring for the full decision rule).

    ``kind``: "open" | "yesno" | "mc"; ``expected``: the label (open), "yes"/"no" (yesno) or an option letter
    (mc); ``label_space`` (open): "cbe", "huemanity-numeric", "huemanity-alnum" or "any" (None means "any");
    ``options`` (mc): ``{letter: text}`` as rendered (None accepts any letter A-Z).
    """
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not allowed; allowed: {', '.join(KINDS)}")
    if not isinstance(reply, str):
        raise ValueError(
            f"reply must be a str, got {type(reply).__name__} (a failed request is stored as an error, never scored)"
        )
    if not isinstance(expected, str) or not expected.strip():
        raise ValueError(f"expected must be a non-empty str, got {expected!r}")
    space = "any" if label_space is None else label_space
    if space not in LABEL_SPACE_NAMES:
        raise ValueError(f"label_space {label_space!r} is not allowed; allowed: {', '.join(LABEL_SPACE_NAMES)} or None")
    options = _check_options(options)
    labels = _labels(space) if kind == "open" and space != "any" else None
    if kind == "yesno" and expected not in ("yes", "no"):
        raise ValueError(f"expected {expected!r} is not allowed for a yes/no prompt; allowed: yes, no")
    if kind == "mc" and expected not in (allowed := tuple(options) if options else tuple(string.ascii_uppercase)):
        raise ValueError(f"expected option {expected!r} is not allowed; allowed: {', '.join(allowed)}")
    if labels is not None and expected not in labels:
        raise ValueError(
            f"expected {expected!r} is not in label space {space!r} ({len(labels)} labels; see plates.stimuli.ishihara.labels)"
        )
    # Trap: reasoning models wrap their thinking in <think>...</think>; numbers in there are not the answer.
    reply = _THINK.sub("", reply)
    if not reply.strip():
        return Score(None, "unparsed", False, "evasion", "empty reply (after any <think> block)")
    if kind == "yesno":
        return _score_yesno(reply, expected)
    if kind == "mc":
        return _score_mc(reply, expected, options)
    if space == "any":
        numeric = re.fullmatch(r"[0-9]+", expected)
        return _score_number(reply, expected, None) if numeric else _score_text(reply, expected)
    if space == "cbe":
        return _score_number(reply, expected, labels)
    return _score_huemanity(reply, expected, space)
