"""Multiple choice: the option a reply chooses, in one of two alphabets: letters ("A".."Z": ColorBench, the plate
tasks) and Roman numerals ("I".."X": RCID and IllusionBench+, whose prompts number options I, II, III).

Written against two traps in ColorBench's released evaluation code: its letter extractor reads "(B) Blue" as
"e" (a letter from the end of the reply), and a reply giving the option's text ("Blue") is scored wrong. The
convention for explicit answers follows lmms-eval's ``_task_utils/mcq_extract.py`` (an explicit answer phrase
wins over an implicit label; the last explicit answer wins; conflicting implicit labels abstain) and
inspect_ai's ``scorer/_common.py`` (a pure string function; every trap named).

Policy (after the shared rules of `plates.tasks.answers.text`: reasoning stripped, length capped, whitespace
collapsed, markdown and typographic quotes removed), first rule that decides wins:

0. **A self-correction decides**: after the last "actually", "wait", "on reflection"..., the tail is read with
   the rules below; only when it names no option is the whole reply read ("A. On reflection, the answer is
   B." -> B; "Left is darker, no wait, right is darker" -> right).
1. **A key alone**, after a leading answer phrase ("Answer:", "The correct answer is", "Option", "I choose"):
   "B", "(b)", "[B]", "B.", "ii." -> it (any case: nothing else is in the reply). A key that is no option ->
   unparsed. In the Roman alphabet a lone letter names the option at its position ("B" -> II).
2. **An option's text or colour value alone** (case, spaces and a final full stop ignored): "Blue" -> B;
   a common Chinese answer word alone reads as its English word (`plates.tasks.answers.text.translated`:
   "左" names the option "left");
   "(30, 144, 255)"; for colour-code options (ColorBench's Colour Extraction) the value in the option's format
   (`plates.tasks.answers.colours`): "(120, 76, 55)" or "120°, 76%, 55%" names "(120°, 76%, 55%)", "1e90ff"
   names "#1E90FF", "rgb(30,144,255)" names "(30, 144, 255)". Everywhere below, "an option's text" includes
   its colour value.
3. **Keys or texts listed**: "A or B", "(A) or (B)", "A, B", "Blue or Red", "I or II" -> ambiguous.
4. **Explicit answer phrases** anywhere ("the answer is (B)", "answer: B", "Final: (B)", "the correct option
   is B", "I'd go with C", "I would lean towards (C)", "I would say that (A) ...", "the answer is Blue", "the
   most appropriate corresponding point among the choices given is (B)", "the most likely real photograph is
   (D)", "the most neutral and fitting continuation would be option (C)"): the LAST one that names an option wins (the rule every reader shares:
   `plates.tasks.answers.text.last_answer`); one naming two
   ("the answer is A or B", "the answer is (A) the second image or (B) the third image"), or followed by a
   list of options on the next lines ("The correct answer is:\n(A) picture A\n(B) picture B"), is ambiguous.
   A phrase ending its line whose following lines walk through every option in turn ("I would say that:\n(A)
   the first image - ...\n(B) the second image - ...") names none of them: the rules below read the discussion.
   After the phrase a key counts in parentheses, or before the end, punctuation or "because/since/as", with or
   without "option" before it ("I would select option (B) the third image"; never "answer choice (D) is ..."); an
   option's text counts when it begins what follows ("I would select Point C as ..."); the answer may stand on
   the next line ("Therefore, the correct answer is:\n(C) Point C"), as a bullet there too ("the correct
   answer is:\n   - **(A) picture A**, which ..."). "the answer is a blue one" names no option.
4b. **An option named as the correct one** ("A is the correct option for the given question", "(B) is the
   right answer", "the second image is the correct choice"): the last such statement
   (`plates.tasks.answers.mentions.named_as_correct`).
5. **A leading key with a delimiter**: "(B) Blue", "B) Blue", "b) 12", "B. Blue", "B: Blue", "B - because";
   or "B Blue" (the key and its own text). When the rest is another key or another option's text ("A) Blue"
   where Blue is B; "(A) (B)"), or names another key in parentheses ("(B) looks close, but the curve says
   (A)") -> ambiguous. A leading key that is no option ("(E) 3.5" where there is no E) is no letter: the
   option whose text follows it ("(D) no" where "no" is B) -> that option; otherwise no option (unparsed).
   A key alone on the first line ("A\nExplanation: ...") -> it, unless the next line is another key (a list).
5c-5g. **Sentences** (`plates.tasks.answers.mentions`; a "mention" is an option's text in prose, "(X)",
   "option X", or, where the option texts name their keys as things in the image -- "Point A", "Box B", "A is
   closer" -- the key as a capital that is no article: "Point A", "A is ...", never "A dog"; for other options
   a capital key before a verb or after "image", "picture", "option" or "choice": "I believe image A ... is
   most likely", never the label line "Image A: ..."):
   5c. a first sentence that rejects the options together ("Neither bounding box A nor B ...", "none of the
       options") commits to none (unparsed);
   5d. the reply begins with an option's text ("Yes, the teddy bear ...", " A is closer to the camera.",
       "Box A more accurately ...", "no" after a leaked "</s>" is stripped); one-word texts only before
       punctuation or the end ("No cat is visible" answers nothing); "Yes or no" -> ambiguous;
   5e. the last line after a line ending "is:" ("that:", "towards:") that is an option alone or begins with a
       key and its own text ("Therefore, the answer is:\n(C) Point C", "I would assess that:\n(A) the first
       image is most likely ..."); else the last sentence that begins with a conclusion ("Therefore", "Thus", "In conclusion", "Based
       on this analysis", "Given these observations", "Based on the images provided") and mentions exactly one option, without negation or
       hedge -> it;
   5f. the first sentence mentions exactly one option, without negation or hedge ("Box B more accurately
       localizes the bed. ... Box A, on the other hand, is too large" -> B): the answer first, then the
       explanation (a first sentence listing every key, "two points labeled A and B.", describes: the second
       is read instead); else, where the first sentence naming options lists every key after sentences naming
       none ("... there are four red-circled points, A, B, C, and D.", 'labeled "Point A", ..., and "Point D"')
       and every later sentence naming options names the same one, unnegated and unhedged, that option (a
       negated list, a heading ending ":" or a walk through several options after it names none); else the
       first sentence of the last paragraph, unless that is a list item or a list's heading ending ":" (the
       summary after a walk through the options);
   5g. the last sentence ends by stating an option's value as a result ("... = 16." for the option "16").
   Numbers and yes/no words are mentions only in 5d and 5g ("There is no cat" does not answer "no").
   5h. a hedged pick (docs/reply-labels.md rule 7: a hedge that still names one answer as its best commits to
       it): after the reply's first hedge, each clause that follows a contrast ("but", "however", "if I had to
       guess") and states a preference ("most likely", "more similar", "closer", "best", "authentic",
       "genuine") names one option; all naming the same one -> it ("It's difficult to determine with absolute certainty ..., but point B
       appears to be closer" -> B). A conditional preference ("If the criteria are ..., (B) might be
       favored") is a rival only: with another pick the reply has two candidates and names none.
   5i. one option throughout (`plates.tasks.answers.throughout`): every sentence that mentions options mentions
       the same single option, unnegated ("Comparing the edges of the second and third images, it is more
       appropriate to place the second image ... This is because the second image has a woman in the center,
       while the third image does not." -> the second image; "The corresponding point ... is labeled A on the
       second image."); a leading frame "Comparing X and Y," is no mention. Never where the reply hedges or
       doubts anywhere ("it is not possible to accurately determine ...", "without more information",
       "neither"), asks ("?"), has an answer phrase, lists capitals ("A B C D"), has a colon inside the
       sentence, or writes another key as a label ("The clock shows the time (C) 5:30." where 5:30 is D).
   Genuine hedges ("it is difficult to definitively determine ...") with no pick are never read by 5e-5i.
   "least" rejects ("(C) is the least likely"), unless joined to a "most" claim ("the most candid and least
   processed"); "at least" rejects nothing. A negation in the compared clause ("while", "whereas", "than", up
   to its comma) is the rival's, not the claim's: "the second image (A) shares the same style ..., while the
   third image (B) does not" -> A. A negation inside a relative "that" clause after a "most"/"best" pick
   describes the pick ("(D) the fourth image is most likely to be a real photograph that has not been digitally
   manipulated" -> D); one before "that" ("(D) is not the one that ...") or without such a pick ("(D) is the one
   that is not real") still vetoes.
5b. **Colour values** (colour-code options only) named anywhere: "The HSV value is (120, 76, 55)." -> that
   option; values of several options -> ambiguous; a value that is no option's names nothing.
6. **Keys in parentheses** "(X)" (ColorBench's CoT format: "the option letter is in the parentheses like
   (X)"): one distinct -> it; several -> ambiguous. Trap: "option(s)" is no "(S)".
7. **"Option X"** mentions: one distinct -> it; several -> ambiguous.
8. **A lone capital letter** (letters only) that is an option ("I believe D."): one distinct -> it; several ->
   ambiguous. "A" counts only before punctuation, the end or a verb ("A is darker"), or after a noun that
   labels it ("Box A", "Point A"); otherwise it is the article ("A dog"). "I" is never read. Unless the
   options name things by their keys ("Point A"), a reply that names points by capitals ("triangle ABC",
   "point D", "AD = DC", "∠A") has no lone-capital keys: its capitals are points.
9. **The task's own reading in words** (``described``; the illusion tasks read "the left one is darker").
10. Otherwise: naming two or more option texts -> ambiguous; a refusal -> refusal; else unparsed. Trap: a
    reply naming one option's text inside a sentence ("It is not blue.") does not choose it.
11. Options yes and no, and the question given (``question=``): the yes/no reader's implicit answers
    (`plates.tasks.answers.yesno.implicit_answer`: "The colours appear to be the same" answers "Are they
    different?" with the option "no").
12. **Numeric options** (every option's text a plain number: a count, as BLINK's Counting offers "(A) 0 (B) 3
    (C) 2 (D) 1"), and no rule above read the reply (unparsed, never ambiguous or refused): the number the
    reply answers with under the number reader's own policy (`plates.tasks.answers.labels.parse_number`:
    "There is 1 white fridge in the image." -> "1"), else a count stated in words in a sentence ("There are four
    people in the water.", "I count two": `plates.tasks.answers.labels.count_in_words`, where every number word
    of the reply is that count and no digit appears) names the option of that value, compared canonically
    ("01" is "1"); a number no option holds, several different numbers ("2 dogs and 1 cat") or a hedge ("I
    cannot tell if there are 2") name nothing: the hedge veto stays here, as in the number reader (a number
    after a hedge is as often the count the model could not confirm as its pick).

Replies are never read backwards letter by letter, and the pronoun "I" in "I think II" is no numeral.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from plates.tasks.answers import mentions, throughout
from plates.tasks.answers.colours import colour_code, colour_code_at, colour_codes_in
from plates.tasks.answers.labels import NUMBER_PATTERN, canonical_number, count_in_words, parse_number
from plates.tasks.answers.text import (
    ANSWER_PHRASE,
    Prepared,
    Reading,
    after_correction,
    clean,
    is_hedge,
    last_answer,
    prepare,
    translated,
    unanswered,
)
from plates.tasks.answers.yesno import implicit_answer

__all__ = ["ALPHABETS", "NUMERALS", "Described", "alphabet_of", "check_options", "read_choice"]

#: Roman numerals as option keys, in order (RCID Fig. 1: "I. Left is darker II. Right is darker ...").
NUMERALS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")
#: The two option alphabets.
ALPHABETS = ("letters", "roman")

#: A task's reading of claims in words: ``described(text, options)`` -> (the option keys the text claims, the
#: rule's name); several keys -> ambiguous.
Described = Callable[[str, Mapping[str, str]], tuple[frozenset[str], str]]

_EDGES = " \t\r\n.,;:!?\"'*"


def _norm(text: str) -> str:
    return " ".join(text.split()).strip(_EDGES).casefold()


def alphabet_of(options: Mapping[str, str]) -> str:
    """The alphabet of an option set's keys.

    Parameters
    ----------
    options : mapping of str to str
        {key: text}.

    Returns
    -------
    str
        "roman" when the keys are the first Roman numerals (at least two: "I" alone is a letter), else
        "letters".

    Examples
    --------
    >>> alphabet_of({"I": "Left is darker", "II": "Right is darker"}), alphabet_of({"I": "Red"})
    ('roman', 'letters')
    """
    keys = set(options)
    return "roman" if len(keys) >= 2 and keys == set(NUMERALS[: len(keys)]) else "letters"


def check_options(options: Mapping[str, str]) -> dict[str, str]:
    """An option set, validated.

    Parameters
    ----------
    options : mapping of str to str
        {key: text}: keys single letters A-Z or the first Roman numerals, texts non-empty and distinct.

    Returns
    -------
    dict of str to str
        The options as a plain dict, in their order.

    Raises
    ------
    ValueError
        Naming what is wrong and what is allowed.

    Examples
    --------
    >>> check_options({"A": "Red", "B": "Red"})
    Traceback (most recent call last):
    ...
    ValueError: options {'A': 'Red', 'B': 'Red'} repeat a text; allowed: distinct option texts
    """
    return dict(_plan_of(options).options)


def _plan_of(options: Mapping[str, str]) -> _Plan:
    if not isinstance(options, Mapping) or not options:
        raise ValueError(f"options must be a non-empty mapping {{key: text}}, got {options!r:.80}")
    items = tuple(options.items())
    try:
        return _plan(items)  # once per distinct option set (a run asks the same few many times)
    except TypeError:  # an unhashable key or text: _check names it
        _check(options)
        raise


@dataclass(frozen=True)
class _Plan:
    """What a reading needs of one option set, validated and computed once (`_plan`)."""

    options: dict[str, str]
    items: tuple[tuple[str, str], ...]
    alphabet: str
    by_text: dict[str, str]
    codes: dict[tuple[str, ...], str]
    longest: int
    names: mentions.OptionNames


@functools.lru_cache(maxsize=256)
def _plan(items: tuple[tuple[str, str], ...]) -> _Plan:
    options = _check(dict(items))
    return _Plan(options, items, alphabet_of(options), _by_text(items), _codes(items),
                 # how far after an answer phrase an option's text can reach (its length, edges and spaces)
                 2 * max(len(v) for v in options.values()) + 8, mentions.names_of(items))


def _check(options: Mapping[str, str]) -> dict[str, str]:
    roman = alphabet_of(options) == "roman"
    for key, value in options.items():
        if not roman and not (isinstance(key, str) and len(key) == 1 and key in string.ascii_uppercase):
            raise ValueError(f"option key {key!r} is not valid; allowed: single letters A-Z, or Roman numerals "
                             "I, II, III ... in order")
        if not isinstance(value, str) or not _norm(value):
            raise ValueError(f"option {key!r} text {value!r} is not valid; allowed: a non-empty string")
    texts = [_norm(v) for v in options.values()]
    if len(set(texts)) != len(texts):
        raise ValueError(f"options {dict(options)!r} repeat a text; allowed: distinct option texts")
    return dict(options)


@dataclass(frozen=True)
class KeyPatterns:
    """The compiled patterns that find option keys of one alphabet in a reply (`key_patterns`).

    Attributes
    ----------
    alone, lead, lead_bare, paren, option_word, after_key, alternative, key : re.Pattern
        A reply that is a key alone; a key leading the reply ("(B) ...", "B. ..."); a capital and a space
        leading it; a key in parentheses anywhere; "option/choice/answer" before a key; a key's trailing
        context; "or (X)" alternatives; a bare key.
    """

    alone: re.Pattern
    lead: re.Pattern
    lead_bare: re.Pattern
    paren: re.Pattern
    option_word: re.Pattern
    after_key: re.Pattern
    alternative: re.Pattern
    key: re.Pattern


@functools.cache
def key_patterns(alphabet: str) -> KeyPatterns:
    """The key patterns of ``alphabet`` (cached: one compile per alphabet).

    Parameters
    ----------
    alphabet : str
        ``"letters"`` (A-Z, any case) or ``"roman"`` (i-x, and a-h naming positions).

    Returns
    -------
    KeyPatterns
        The compiled patterns.
    """
    if alphabet == "roman":  # longest numeral first: "III" is not "II" + "I"; a-h (never i) name positions
        key = r"(?i:viii|vii|vi|iv|ix|iii|ii|i|v|x|[a-h])"
        upper = key
    else:
        key, upper = r"[A-Za-z]", r"[A-Z]"
    return KeyPatterns(
        alone=re.compile(rf"[(\[]?({key})[)\]]?[.:)]?"),
        lead=re.compile(rf"(?:\(({key})\)|\[({key})\]|({key})\)|({upper})(?:\.|:| -)) ?(.*)", re.DOTALL),
        lead_bare=re.compile(rf"({upper}) (.+)", re.DOTALL),
        paren=re.compile(rf"(?<![A-Za-z0-9])\(({key})\)"),
        option_word=re.compile(rf"(?:\b(?i:option) |选项 ?)(?:\(({key})\)|({upper}))(?![A-Za-z0-9])"),
        after_key=re.compile(  # "the answer is (B)", "... is B.", "I would lean towards option (B)"
            rf"(?:(?i:option) )?(?:\(({key})\)|({key})(?= ?(?:$|[.,;:!?)\]\n]|\b(?:because|since|as)\b)))"),
        alternative=re.compile(rf" ?(?:,|/|&|\bor\b|\band\b) ?[(\[]?({key})[)\]]?(?![A-Za-z0-9])", re.IGNORECASE),
        key=re.compile(key),
    )


_PREFIX = re.compile(
    r"^(?:(?:the )?(?:final |correct |best |right )?(?:answer|option|choice)(?: is)?"
    r"|my (?:final )?answer(?: is)?|i(?: would| will|'d)? (?:choose|pick|select|go with)) ?[:\-]? ?",
    re.IGNORECASE,
)
# The explicit answer phrases: the shared one (`text.ANSWER_PHRASE`) and the choice's own.
_DECLARATION = re.compile(  # the lookahead on first letters skips other positions at once (text._CORRECTION)
    r"(?=[abcfirt答])(?:" + ANSWER_PHRASE + r"|\b(?:final(?= ?:)|(?:correct|best|right|final) (?:option|choice)"
    r"(?: letter)?\b"
    r"|the most (?:[a-z]+ and )?(?:appropriate|suitable|fitting|likely|plausible|logical) [a-z]+(?: [a-z]+)?"
    r"(?: among (?:the )?(?:choices|options)(?: given| provided)?)?(?= (?:is|would be)\b)"
    r"|i(?: would| will|'d)? (?:choose|pick|select|go with|lean towards?)\b|i(?: would|'d) say(?: that)?\b)"
    r"(?: (?:is|would be|should be|will be)\b)? ?[:\-=]? ?\n? ?)"
    r"(?:(?:(?<=\n)|(?<=\n ))[ \t]{0,8}[-*•] )?",  # "the correct answer is:\n   - (A) picture A": a bullet
    re.IGNORECASE,
)
# The lookaheads on first characters skip other positions at once (text._CORRECTION): same matches, faster.
_SEPARATORS = re.compile(r"(?= ?[,/;&oa]) ?(?:,|/|;|&|\bor\b|\band\b) ?", re.IGNORECASE)
_SEGMENT_END = re.compile(r"(?=[.\n;bs])(?:[.\n;]|\bbecause\b|\bsince\b)", re.IGNORECASE)
_LONE = re.compile(r"(?<![A-Za-z0-9'#])([A-Z])(?![A-Za-z0-9'])")
_AFTER_A = re.compile(r" ?(?:$|[.,;:!?)\]])| (?i:is|was|has|would|seems|appears|looks|and|or|nor)\b")
_NEXT_KEY_LINE = re.compile(r"[.]? ?\n ?(?:[ \t]{0,8}[-*•] )?[(\[]?[A-Za-z][)\].:]")
_KEY_LINE = re.compile(r"\n[ \t]{0,8}(?:[-*•] )?(?:\*\*)?(?i:option )?[(\[]?([A-Za-z]|[IVX]{1,4})[)\].:]")  # a line opening "(B)"
_BULLET_BEFORE = re.compile(r"\n[ \t]{0,8}[-*•] $")  # the phrase's answer stands on a bullet of its own line
_IS_COLON = re.compile(r"\b(?:is|are|be|was|answer|choice|option|that|towards?|choose|select):$", re.IGNORECASE)
# Capitals that name points ("triangle ABC", "AD = DC", "EF"): a reply using them has no lone-capital keys.
_POINT_NAMES = re.compile(  # the lookahead on first characters skips other positions at once (text._CORRECTION)
    r"(?=[tlsapvqrcmTLSAPVQRCM∠△⊙▱∥⊥=+])(?:\b(?i:triangle|line|segment|angle|sides?|points?|vertex|quadrilateral|rectangle|square|circle|arc|chord"
    r"|rhombus|parallelogram|midpoint)|[∠△⊙▱∥⊥=+])(?: ?\$?\\?[a-z]{0,8}\{?)? ?[A-Z]{1,4}(?![A-Za-z])"
)
_LABEL_BEFORE_A = re.compile(r"\b(?i:point|box|image|picture|option|choice|letter|label|figure) $")


@functools.lru_cache(maxsize=256)
def _by_text(items: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {_norm(v): k for k, v in items}


@functools.lru_cache(maxsize=256)
def _text_patterns(items: tuple[tuple[str, str], ...]) -> tuple[tuple[re.Pattern, str], ...]:
    """One whole-word pattern per option text (rule 10), compiled once per option set."""
    return tuple((re.compile(r"(?<!\w)" + re.escape(t) + r"(?!\w)"), k) for t, k in _by_text(items).items())


@functools.lru_cache(maxsize=256)
def _codes(items: tuple[tuple[str, str], ...]) -> dict[tuple[str, ...], str]:
    """{colour value: option key} for the options whose text is a colour code (`colours.colour_code`); an HSV
    option is also named by its three numbers without ° and % (unless another option is that triple)."""
    codes = {}
    for key, value in items:
        code = colour_code(value)
        if code is not None:
            codes[code] = key
    for code, key in list(codes.items()):
        if code[0] == "hsv":
            codes.setdefault(("triple", *code[1:]), key)
    return codes


class _Reader:
    """One reading of one reply against one question's options (rules 1-10 of the module docstring)."""

    def __init__(self, plan: _Plan, described: Described | None) -> None:
        self.options = plan.options
        self.alphabet = plan.alphabet
        self.p = key_patterns(self.alphabet)
        self.items = plan.items
        self.by_text = plan.by_text
        self.codes = plan.codes
        self.longest = plan.longest
        self.names = plan.names
        self._points: tuple[str, bool] | None = None
        self._key_lines: tuple[str, dict[str, int]] | None = None
        self.described = described

    def key(self, token: str) -> str:
        """The option key a matched token names (a Roman-alphabet letter names its position), or "" when the
        token is not a key of this alphabet (it may still be no option)."""
        token = token.upper()
        if not token.isascii():  # Trap: under IGNORECASE "ſ" matches s and the Kelvin sign k
            return ""
        if self.alphabet == "letters":
            return token
        if token in NUMERALS:
            return token
        index = string.ascii_uppercase.index(token)
        return NUMERALS[index] if index < len(NUMERALS) else ""

    def _one(self, keys: list[str], rule: str) -> tuple[str | None, str, str]:
        distinct = sorted(set(keys))
        if len(distinct) == 1:
            return distinct[0], "ok", rule
        return None, "ambiguous", f"{rule}: {', '.join(distinct)}"

    def named(self, text: str) -> str | None:
        """The option whose text, or colour value in the option's format, ``text`` is as a whole (rule 2)."""
        key = self.by_text.get(_norm(text))
        if key is None and self.codes:
            code = colour_code(text)
            key = None if code is None else self.codes.get(code)
        return key

    def listed(self, body: str) -> list[str] | None:
        """Rule 3's parts of ``body`` (split at separators, empty parts dropped), or None as soon as one part is
        neither a key of the options nor an option's text or value, or more than 26 parts: the rule cannot
        decide then, and a long reply is not split past its first sentence."""
        parts, start = [], 0
        for m in itertools.chain(_SEPARATORS.finditer(body), (None,)):
            q = body[start:m.start()] if m is not None else body[start:]
            if m is not None:
                start = m.end()
            if not q.strip(_EDGES):
                continue
            a = self.p.alone.fullmatch(q.strip(_EDGES + "()"))
            if not (a and self.key(a.group(1)) in self.options) and self.named(q) is None:
                return None
            parts.append(q)
            if len(parts) > 26:
                return None
        return parts

    def declared(self, text: str) -> tuple[str | None, str, str] | None:
        """Rule 4: what the last answer phrase naming an option names (`text.last_answer`)."""
        return last_answer(text, _DECLARATION, self._at_phrase)

    def _at_phrase(self, text: str, pos: int) -> tuple[str | None, str, str] | None:
        head = self.p.after_key.match(text, pos)
        if head:
            k = self.key(head.group(1) or head.group(2))
            if k in self.options:
                after = head.end()
                own = self.options[k].casefold()
                if text[after + 1: after + 1 + len(own)].casefold() == own:  # "(A) the second image or (B) ..."
                    after += 1 + len(own)
                on_next_line = "\n" in text[pos - 2: head.start()] or _BULLET_BEFORE.search(
                    text, max(0, pos - 12), head.start())
                if on_next_line and _NEXT_KEY_LINE.match(text, after):
                    return None, "ambiguous", "answer phrase followed by a list of options"
                if on_next_line and self._walked_through(text, after, k):
                    return None  # "I would say that:\n(A) ... - ...\n\n(B) ...": a discussion, no answer
                alt = self.p.alternative.match(text, after)
                if alt and self.key(alt.group(1)) in self.options and self.key(alt.group(1)) != k:
                    return None, "ambiguous", f"answer phrase names {k} and {self.key(alt.group(1))}"
                return k, "ok", "answer phrase"
        window = text[pos:pos + self.longest]
        end = _SEGMENT_END.search(window)
        first = _norm(window[: end.start()] if end else window)
        if first in self.by_text:
            return self.by_text[first], "ok", "answer phrase (option text)"
        lead = mentions.leading_option(window, self.names)
        if lead is not None:
            key, status = lead
            return key, status, "answer phrase (option text)" if key else "answer phrase names two options"
        if self.codes:  # "the answer is (120, 76, 55), since ...": the code right after the phrase
            code = colour_code_at(text, pos)
            if code in self.codes:
                return self.codes[code], "ok", "answer phrase (colour value)"
        return None

    def _walked_through(self, text: str, pos: int, key: str) -> bool:
        """Whether every option but ``key`` begins a line of ``text`` after ``pos`` ("(B) the second image -
        ..."): the line at the phrase opened a walk through the options. The lines are found once per text
        (each option's last line start), so that many phrases cost one pass, not one each."""
        if self._key_lines is None or self._key_lines[0] is not text:
            last: dict[str, int] = {}
            for m in _KEY_LINE.finditer(text):
                last[self.key(m.group(1))] = m.start()
            self._key_lines = (text, last)
        last = self._key_lines[1]
        return all(last.get(k, -1) > pos for k in self.options if k != key)

    def names_points(self, text: str) -> bool:
        """Whether ``text`` names points by capitals ("triangle ABC", "AD = DC"); searched once per text."""
        if self._points is None or self._points[0] is not text:
            self._points = (text, _POINT_NAMES.search(text) is not None)
        return self._points[1]

    def after_colon(self, text: str) -> str | None:
        """Rule 5e: the last line that follows a line ending in a colon is an option alone: its key, its text,
        or both ("Therefore, the most likely to be a real photograph is:\n(A) the first image")."""
        at = text.rfind(":\n")
        if at < 0 or not _IS_COLON.search(text, max(0, at - 8), at + 1):  # "... is:", not "Here is a picture:"
            return None
        end = text.find("\n", at + 2)
        if end >= 0 and _NEXT_KEY_LINE.match(text, end):  # "The choices are:\n(A) ...\n(B) ...": a list
            return None
        line = text[at + 2: end if end >= 0 else len(text)]
        line = line.split(". ", 1)[0].strip(_EDGES)  # "(D) the fourth image. It shows ..."
        m = self.p.alone.fullmatch(line)
        if m and self.key(m.group(1)) in self.options:
            return self.key(m.group(1))
        named = self.named(line)
        if named is not None:
            return named
        m = self.p.lead.fullmatch(line)
        if m:
            k = self.key(m.group(1) or m.group(2) or m.group(3) or m.group(4))
            if k in self.options and (self.named(m.group(5)) == k or mentions.leading_option(
                    m.group(5), self.names) == (k, "ok")):  # "(A) the first image is most likely ..."
                return k
        return None

    def _described(self, sentence: str) -> set[str]:
        return set(self.described(sentence, self.options)[0]) if self.described is not None else set()

    def sentences(self, text: str) -> tuple[str | None, str, str] | None:
        """Rules 5c-5g (`plates.tasks.answers.mentions`), or None when none decides."""
        names = self.names
        if not names.entity and self.alphabet == "letters" and not self.names_points(text):
            names = dataclasses.replace(names, verb_keys=True)  # "A is the number shown"
        args = (names, self.p.paren, self.p.option_word, self.key, self._described)
        if mentions.rejects_all(text):
            return None, "unparsed", "every option rejected (neither ... nor)"
        lead = mentions.leading_option(translated(text), names)
        if lead is not None:
            key, status = lead
            return key, status, "leading option text" if key else "leading option texts: several"
        for rule, found in (("option after a colon", self.after_colon(text)),
                            ("conclusion", mentions.concluded(text, *args)),
                            ("first sentence", mentions.first_sentence_choice(text, *args)),
                            ("after a list of every key", mentions.after_key_list(text, *args)),
                            ("last paragraph", mentions.last_paragraph(text, *args)),
                            ("stated result", mentions.stated_result(text, names)),
                            ("hedged pick", mentions.hedged_pick(text, *args)),
                            ("one option throughout", throughout.one_option_throughout(text, *args))):
            if found is not None:
                return found, "ok", rule
        return None

    def read(self, text: str) -> tuple[str | None, str, str]:
        opts, by_text, p = self.options, self.by_text, self.p
        body = text.strip(_EDGES)
        for _ in range(2):  # "Answer: Option B"
            body = _PREFIX.sub("", body, count=1).strip()
        if not body.strip(_EDGES):
            return None, "unparsed", "no option chosen"
        body = translated(body)  # "左" -> "left"
        # 1. a key alone
        m = p.alone.fullmatch(body.strip(" \t\r\n.!"))
        if m:
            k = self.key(m.group(1))
            if k in opts:
                return k, "ok", "key alone"
            if _norm(body) not in by_text:
                return None, "unparsed", f"{m.group(1)} is not an option ({', '.join(opts)})"
        # 2. an option's text alone (trap: ColorBench scores "Blue" wrong when Blue is the option)
        alone = self.named(body)
        if alone is not None:
            return alone, "ok", "option text" if _norm(body) in by_text else "option colour value"
        # 3. keys or option texts listed
        parts = self.listed(body.strip(_EDGES))
        if parts is not None and 2 <= len(parts):
            keys = [self.key(m.group(1)) for q in parts if (m := p.alone.fullmatch(q.strip(_EDGES + "()")))]
            if len(keys) == len(parts) and all(k in opts for k in keys) and len(set(keys)) > 1:
                return None, "ambiguous", f"several keys: {', '.join(sorted(set(keys)))}"
            named = [self.named(q) for q in parts]
            if all(named) and len(set(named)) > 1:
                return None, "ambiguous", f"several option texts: {', '.join(sorted(set(named)))}"
        # 4. explicit answer phrases: the last one wins
        declared = self.declared(text)
        if declared is not None:
            return declared
        # 4b. an option named as the correct one
        correct = mentions.named_as_correct(text, self.names, self.key)
        if correct is not None:
            return correct, "ok", "named as the correct option"
        # 5. a leading key with a delimiter (trap: ColorBench reads "(B) Blue" as "e")
        m = p.lead.fullmatch(body)
        if m:
            k = self.key(m.group(1) or m.group(2) or m.group(3) or m.group(4))
            rest = m.group(5)
            if k in opts:
                again = p.alone.fullmatch(_norm(rest).strip("()"))
                if again and self.key(again.group(1)) in opts and self.key(again.group(1)) != k:
                    return None, "ambiguous", f"keys {k} and {self.key(again.group(1))}"
                other = self.named(rest)
                if other is None:  # "A - No, the windows ...": the key's option is Yes, its words say No
                    lead = mentions.leading_option(rest, self.names)
                    other = lead[0] if lead is not None else None
                if other is not None and other != k:
                    return None, "ambiguous", f"key {k} with option {other}'s text"
                later = {self.key(x) for x in p.paren.findall(rest)} & set(opts) - {k}
                if later:
                    return None, "ambiguous", f"leading key {k}, later ({', '.join(sorted(later))})"
                return k, "ok", "leading key"
            if k and m.group(2) is None and (m.group(1) or m.group(3)):  # "(E) 3.5" / "E) 3.5": no letter
                other = self.named(rest)
                if other is not None:
                    return other, "ok", f"option text after {k}, which is no option"
                words = _norm(rest)
                if not any(pattern.search(words) for pattern, _ in _text_patterns(self.items)):
                    return None, "unparsed", f"{k} is not an option ({', '.join(opts)})"
        first_line, _, rest_lines = body.partition("\n")
        m = p.alone.fullmatch(first_line.strip(" \t.!"))
        if rest_lines and m and self.key(m.group(1)) in opts and not p.alone.fullmatch(
                rest_lines.partition("\n")[0].strip(" \t.!")):
            return self.key(m.group(1)), "ok", "key alone on the first line"
        m = p.lead_bare.fullmatch(body)
        if m and self.key(m.group(1)) in opts and self.named(m.group(2)) == self.key(m.group(1)):
            return self.key(m.group(1)), "ok", "key and its text"
        # 5c-5g. sentences (plates.tasks.answers.mentions)
        sentences = self.sentences(text)
        if sentences is not None:
            return sentences
        # 5b. colour values in the options' format (ColorBench's Colour Extraction)
        if self.codes:
            found = [k for code in colour_codes_in(text) if (k := self.codes.get(code)) is not None]
            if found:
                return self._one(found, "option colour value")
        # 6-8. keys in parentheses, "option X", lone capitals
        found = [k for x in p.paren.findall(text) if (k := self.key(x)) in opts]
        if found:
            return self._one(found, "(X)")
        found = [k for a, b in p.option_word.findall(text) if (k := self.key(a or b)) in opts]
        if found:
            return self._one(found, "option X")
        if self.alphabet == "letters" and (self.names.entity or not self.names_points(text)):
            lone = [m.group(1) for m in _LONE.finditer(text) if m.group(1) in opts and m.group(1) != "I"
                    and (m.group(1) != "A" or _AFTER_A.match(text, m.end())
                         or _LABEL_BEFORE_A.search(text, max(0, m.start() - 8), m.start()))]
            if lone:
                return self._one(lone, "lone capital")
        # 9. the task's reading in words
        if self.described is not None:
            keys, rule = self.described(text, opts)
            if keys:
                return self._one(sorted(keys), rule)
        # 10. nothing chosen; naming two option texts is ambiguous rather than unparsed
        words = _norm(text)
        named = {k for pattern, k in _text_patterns(self.items) if pattern.search(words)}
        if len(named) >= 2:
            return None, "ambiguous", f"several option texts: {', '.join(sorted(named))}"
        return None, "unparsed", "no option chosen"


def read_choice(reply: str, options: Mapping[str, str], *, described: Described | None = None,
                question: str | None = None) -> Reading:
    """The option key a reply chooses, under the policy of the module docstring.

    Parameters
    ----------
    reply : str
        The model's reply, as it came (bounded and cleaned here: `plates.tasks.answers.text.prepare`).
    options : mapping of str to str
        {key: text}, letters or Roman numerals (`check_options`).
    described : callable, optional
        A task's reading of claims in words (rule 9).
    question : str, optional
        The question asked, read only when the options are yes and no and no rule chose (rule 11: the yes/no
        reader's implicit answer, `plates.tasks.answers.yesno.read_yes_no`).

    Returns
    -------
    Reading
        ``answer`` is the option key when ``status`` is "ok"; else None with the status ("ambiguous", "unparsed",
        "refusal"), the rule that decided and HueManity App. E's failure mode.

    Raises
    ------
    ValueError
        A reply that is not a str, or bad ``options``.

    References
    ----------
    ColorBench App. F (letters); RCID §3.3 and IllusionBench+ App. A1 (Roman numerals); lmms-eval's
    ``_task_utils/mcq_extract.py`` (explicit answer phrases).

    Examples
    --------
    >>> options = {"A": "Red", "B": "Blue", "C": "Green"}
    >>> read_choice("The answer is (B) Blue.", options).answer  # ColorBench's own extractor reads "e"
    'B'
    >>> read_choice("Blue", options).answer  # the option's text names it too
    'B'
    >>> read_choice("A or B", options).status  # conflicting bare options: abstain
    'ambiguous'
    """
    reader = _Reader(_plan_of(options), described)
    prepared = prepare(reply)
    text = clean(prepared.text)
    result = None
    tail = after_correction(text)
    if tail is not None:
        key, status, rule = reader.read(tail)
        if status == "ok":
            result = (key, status, f"after a correction: {rule}")
    if result is None:
        result = reader.read(text)
    if result[1] == "unparsed":
        numbers = _numeric(reader.items)
        if numbers is not None and not is_hedge(text):
            parsed = parse_number(text)
            value = count_in_words(text) if parsed.value is None and not parsed.ambiguous else parsed.value
            if value in numbers:
                result = (numbers[value], "ok", "the number stated is an option's value")
    if result[1] != "ok" and question is not None:
        polar = {v.strip().casefold(): k for k, v in reader.options.items()}
        if set(polar) == {"yes", "no"}:
            implied = implicit_answer(text, question)
            if implied is not None:
                result = (polar[implied[0]], "ok", implied[1])
    return _reading(prepared, *result)


@functools.lru_cache(maxsize=256)
def _numeric(items: tuple[tuple[str, str], ...]) -> dict[str, str] | None:
    """Rule 12's {canonical number: key} when every option's text is a plain number ("3", "1,000", "2.5"),
    else None."""
    texts = {k: v.strip() for k, v in items}
    if not all(NUMBER_PATTERN.fullmatch(t) for t in texts.values()):
        return None
    return {canonical_number(t): k for k, t in texts.items()}


def _reading(prepared: Prepared, key: str | None, status: str, rule: str) -> Reading:
    if status == "ok":
        return Reading(key, "ok", rule, None, prepared.truncated)
    return unanswered(prepared, rule, label_len=1, ambiguous=status == "ambiguous")
