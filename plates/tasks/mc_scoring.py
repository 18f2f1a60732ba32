"""Multiple-choice replies -> the option letter they choose, or None with the reason. A pure string function.

ColorBench's released evaluation code has two parsing bugs this module is built against (issue 14): its letter
extractor reads "(B) Blue" as "e" (it takes a letter from the end of the reply), and a reply that gives the
option's text ("Blue") is scored wrong although it names option B. Each rule below names the trap it avoids;
``tests/tasks/test_mc_scoring.py`` holds one test per trap, named after it.

The decision, in order (`parse_choice`):

1. Clean: drop a ``<think>...</think>`` block (or an unclosed one: a reply cut off while thinking), markdown
   emphasis, typographic quotes. Nothing left -> status "empty".
2. Strip a leading answer phrase ("Answer:", "The correct answer is", "Option", "I choose", ...).
3. **A letter alone**: "B", "(B)", "b", "B.", "[B]" -> B (any case: nothing else is in the reply).
4. **The option's text alone** (case- and space-insensitive, final full stop ignored): "Blue" -> B.
5. **Letters listed**: "A or B", "A, B", "(A)/(B)" -> "ambiguous"; the same for option texts ("Blue or Red").
6. **A leading letter with a delimiter**: "(B) Blue", "B) Blue", "B. Blue", "B: Blue", "B - because" -> B;
   when the text after it is *another* option's text ("A) Blue" where Blue is B) or letter ("(A) (B)") ->
   "ambiguous". Without a
   delimiter only "B Blue" (the letter followed by its own text) counts. Trap: "A blue circle" is an
   article, not option A. A later concluding phrase naming another letter ("A. On reflection, the answer is
   C.") makes it "ambiguous".
7. **Concluding phrases** anywhere: "answer is (B)", "answer: B", "Final: (B)", "correct option is B",
   "I choose B", and
   "answer is Blue" (an option's text): all of them must agree, or "ambiguous". After such a phrase a letter
   counts when it is in parentheses, or followed by the end, punctuation, or "because/since/as"; so "the answer
   is a blue one" names no option.
8. **Parenthesised letters** "(X)" naming an option (ColorBench's CoT format: "the option letter is in the
   parentheses like (X)"): one distinct letter -> it; several -> "ambiguous". Trap: "option(s)" is no "(S)".
9. **"Option X"** mentions: one distinct letter -> it; several -> "ambiguous".
10. **A lone capital** that is an option letter ("I'd go with C."): one distinct -> it; several -> "ambiguous".
    "A" counts only before punctuation or the end (otherwise it is the article); "I" is never read.
11. Otherwise "unparsed"; a reply naming two or more option texts is "ambiguous".

Replies are never read from the end backwards letter by letter (bug 1), and an option's text is an answer
(bug 2).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PARSE_STATUSES", "Choice", "parse_choice", "score_choice"]

PARSE_STATUSES = ("ok", "ambiguous", "unparsed", "empty")


@dataclass(frozen=True)
class Choice:
    """``letter``: the chosen option letter, or None; ``status``: one of `PARSE_STATUSES`; ``rule``: which
    rule decided; ``correct``: set by `score_choice` (None from `parse_choice`)."""

    letter: str | None
    status: str
    rule: str
    correct: bool | None = None


_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
# Trap: a markdown heading "### Answer" loses its hashes, a hex code "#1E90FF" keeps its one.
_MARKDOWN = re.compile(r"\*\*|__|`|^#{1,6}\s+", re.MULTILINE)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\uff1a": ":",
                         "\uff08": "(", "\uff09": ")"})
_EDGES = " \t\r\n.,;:!?\"'*"
_PREFIX = re.compile(
    r"^(?:(?:the\s+)?(?:final\s+|correct\s+|best\s+|right\s+)?(?:answer|option|choice)(?:\s+is)?"
    r"|my\s+(?:final\s+)?answer(?:\s+is)?|i\s+(?:would\s+|will\s+|'d\s+)?(?:choose|pick|select|go\s+with))"
    r"\s*[:\-]?\s*",
    re.IGNORECASE,
)
_ALONE = re.compile(r"[(\[]?([A-Za-z])[)\]]?[.:)]?")
_LEAD = re.compile(r"(?:\(([A-Za-z])\)|\[([A-Za-z])\]|([A-Za-z])\)|([A-Z])(?:\.|:|\s+-))\s*(.*)", re.DOTALL)
_LEAD_BARE = re.compile(r"([A-Z])\s+(.+)", re.DOTALL)
_SEPARATORS = re.compile(r"\s*(?:,|/|;|&|\bor\b|\band\b)\s*", re.IGNORECASE)
_CONCLUDE = re.compile(
    r"\b(?:answer\b|final(?=\s*:)|correct\s+(?:option|choice)|best\s+(?:option|choice)|final\s+(?:option|choice)|"
    r"i\s+(?:would\s+|will\s+|'d\s+)?(?:choose|pick|select|go\s+with))"
    r"(?:\s+(?:is|would\s+be|should\s+be|will\s+be))?\s*[:\-]?\s*(.*)",
    re.IGNORECASE | re.DOTALL,
)
_AFTER_LETTER = re.compile(r"(?:\(([A-Za-z])\)|([A-Za-z])(?=\s*(?:$|[.,;:!?)\]]|\b(?:because|since|as)\b)))")
_PAREN = re.compile(r"(?<![A-Za-z0-9])\(([A-Za-z])\)")
_OPTION_WORD = re.compile(r"\b(?i:option)\s+(?:\(([A-Za-z])\)|([A-Z]))(?![A-Za-z0-9])")
_LONE = re.compile(r"(?<![A-Za-z0-9'#])([A-Z])(?![A-Za-z0-9'])")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(_EDGES).casefold()


def _check(options: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(options, Mapping) or not options:
        raise ValueError(f"options must be a non-empty mapping {{letter: text}}, got {options!r:.80}")
    for key, value in options.items():
        if not (isinstance(key, str) and len(key) == 1 and key in string.ascii_uppercase):
            raise ValueError(f"option key {key!r} is not valid; allowed: single letters A-Z")
        if not isinstance(value, str) or not _norm(value):
            raise ValueError(f"option {key!r} text {value!r} is not valid; allowed: a non-empty string")
    texts = [_norm(v) for v in options.values()]
    if len(set(texts)) != len(texts):
        raise ValueError(f"options {dict(options)!r} repeat a text; allowed: distinct option texts")
    return dict(options)


def _one(letters: list[str], rule: str) -> Choice:
    distinct = sorted(set(letters))
    if len(distinct) == 1:
        return Choice(distinct[0], "ok", rule)
    return Choice(None, "ambiguous", f"{rule}: {', '.join(distinct)}")


def _conclusions(text: str, options: dict[str, str], by_text: dict[str, str]) -> list[str]:
    """The letters named after every concluding phrase of ``text`` (rule 7)."""
    found = []
    for m in _CONCLUDE.finditer(text):
        rest = m.group(1)
        head = _AFTER_LETTER.match(rest)
        if head and (head.group(1) or head.group(2)).upper() in options:
            found.append((head.group(1) or head.group(2)).upper())
            continue
        first = re.split(r"[.\n;]|\bbecause\b|\bsince\b", rest, maxsplit=1)[0]
        if _norm(first) in by_text:
            found.append(by_text[_norm(first)])
    return found


def parse_choice(reply: str, options: Mapping[str, str]) -> Choice:
    """The option ``reply`` chooses among ``options`` ({letter: text}); see the module docstring."""
    if not isinstance(reply, str):
        raise ValueError(f"reply must be a str, got {type(reply).__name__}")
    options = _check(options)
    by_text = {_norm(v): k for k, v in options.items()}
    text = _MARKDOWN.sub("", _THINK.sub("", reply).translate(_QUOTES)).strip()
    if not text.strip(_EDGES):
        return Choice(None, "empty", "empty reply (after any <think> block)")
    body = text
    for _ in range(2):  # "Answer: Option B"
        body = _PREFIX.sub("", body, count=1).strip()
    # 3. a letter alone
    m = _ALONE.fullmatch(body.strip(" \t\r\n.!"))
    if m:
        letter = m.group(1).upper()
        if letter in options:
            return Choice(letter, "ok", "letter alone")
        if _norm(body) not in by_text:
            return Choice(None, "unparsed", f"letter {letter} is not an option ({', '.join(options)})")
    # 4. the option's text alone (trap: ColorBench scores "Blue" wrong when Blue is the option)
    if _norm(body) in by_text:
        return Choice(by_text[_norm(body)], "ok", "option text")
    # 5. several letters or option texts listed
    parts = [p for p in _SEPARATORS.split(body.strip(_EDGES)) if p.strip(_EDGES)]
    if len(parts) >= 2:
        letters = [m.group(1).upper() for p in parts if (m := _ALONE.fullmatch(p.strip(_EDGES + "()")))]
        if len(letters) == len(parts) and all(x in options for x in letters) and len(set(letters)) > 1:
            return Choice(None, "ambiguous", f"several letters: {', '.join(sorted(set(letters)))}")
        named = [by_text.get(_norm(p)) for p in parts]
        if all(named) and len(set(named)) > 1:
            return Choice(None, "ambiguous", f"several option texts: {', '.join(sorted(set(named)))}")
    # 6. a leading letter with a delimiter (trap: ColorBench reads "(B) Blue" as "e")
    m = _LEAD.fullmatch(body)
    if m:
        letter = (m.group(1) or m.group(2) or m.group(3) or m.group(4)).upper()
        rest = _norm(m.group(5))
        if letter in options:
            again = _ALONE.fullmatch(rest.strip(_EDGES))
            if again and again.group(1).upper() in options and again.group(1).upper() != letter:
                return Choice(None, "ambiguous", f"letters {letter} and {again.group(1).upper()}")
            other = by_text.get(rest)
            if other is not None and other != letter:
                return Choice(None, "ambiguous", f"letter {letter} with option {other}'s text")
            later = set(_conclusions(m.group(5), options, by_text)) - {letter}
            if later:  # "A. On reflection, the answer is C."
                return Choice(None, "ambiguous", f"leading letter {letter}, later {', '.join(sorted(later))}")
            return Choice(letter, "ok", "leading letter")
    m = _LEAD_BARE.fullmatch(body)
    if m and m.group(1) in options and by_text.get(_norm(m.group(2))) == m.group(1):
        return Choice(m.group(1), "ok", "letter and its text")
    # 7. concluding phrases anywhere ("... so the answer is (B)")
    concluded = _conclusions(text, options, by_text)
    if concluded:
        return _one(concluded, "concluding phrase")
    # 8-10. parenthesised letters, "option X", lone capitals
    found = [x.upper() for x in _PAREN.findall(text) if x.upper() in options]
    if found:
        return _one(found, "(X)")
    found = [(a or b).upper() for a, b in _OPTION_WORD.findall(text) if (a or b).upper() in options]
    if found:
        return _one(found, "option X")
    lone = [m.group(1) for m in _LONE.finditer(text) if m.group(1) in options and m.group(1) != "I"
            and (m.group(1) != "A" or re.match(r"\s*(?:$|[.,;:!?)\]])", text[m.end():]))]
    if lone:
        return _one(lone, "lone capital")
    # 11. nothing chosen; naming two option texts is ambiguous rather than unparsed
    words = _norm(text)
    named = {k for t, k in by_text.items() if re.search(r"(?<!\w)" + re.escape(t) + r"(?!\w)", words)}
    if len(named) >= 2:
        return Choice(None, "ambiguous", f"several option texts: {', '.join(sorted(named))}")
    return Choice(None, "unparsed", "no option chosen")


def score_choice(reply: str, options: Mapping[str, str], expected: str) -> Choice:
    """`parse_choice` plus the verdict: correct only when a letter was parsed and equals ``expected``."""
    if not isinstance(expected, str) or expected not in options:
        raise ValueError(f"expected {expected!r} is not an option letter; allowed: {', '.join(options)}")
    c = parse_choice(reply, options)
    return Choice(c.letter, c.status, c.rule, c.letter == expected)
