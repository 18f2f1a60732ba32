"""The illusion tasks as pure functions: RCID and IllusionBench+ questions, answer keys, and reply parsing.

Input is a rendered illusion's ``truth`` (`plates.stimuli.illusions.render`) and its spec's layout; no colour
maths happens here. Wording, and where it comes from:

* RCID (Mao et al. 2025) §3.3 and Fig. 1, verbatim: the framings "Based on pixel values" (Fig. 1 Q1) and
  "According to human perception" (Fig. 1 Q2); the frame "how do the colors of ... compare? Here are some
  options you can choose: I. Left is darker II. Right is darker III. They are exactly same" (Fig. 1b; Fig. 1a
  uses "A is darker" / "B is darker"); the filter question "what color is ...?" (Fig. 1c). RCID's regions were
  described per image by GPT-4o (App. A.1); ours come from the kind ("the two squares on the left and
  right": wording is ours), as do "Top"/"Bottom" for the up-down layout (ours).
* IllusionBench+ (Zhang et al. 2025) App. A1, verbatim: the true/false and multiple-choice instructions. Their
  statements and questions were written per image by people; ours are built from the pixel truth (wording
  is ours), and the answer is always the physical one (trap images test exactly that, §III-A).

Transport (`TRANSPORT_NOTE`): send the images as PNG (`plates.images.image_to_data_url`), never JPEG.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from plates.stimuli.illusions.kinds import ILLUSION_TYPES
from plates.stimuli.illusions.naming import SYNONYMS, names_in
from plates.tasks.scoring import clean, strip_answer_prefix

__all__ = [
    "FRAMINGS",
    "MC_TEMPLATE",
    "MEANINGS",
    "NUMERALS",
    "TF_TEMPLATE",
    "TRANSPORT_NOTE",
    "OptionParse",
    "Question",
    "answer_keys",
    "mc_question",
    "parse_colour_answer",
    "parse_option",
    "parse_true_false",
    "rcid_name_question",
    "rcid_question",
    "rcid_questions",
    "tf_questions",
]

#: RCID's two framings (Fig. 1 Q1 / Q2, verbatim). §4.1 and Table 1 also write "based on human perception".
FRAMINGS = MappingProxyType({"pixel": "Based on pixel values", "human": "According to human perception"})
#: What an answer to a comparison means, whatever its option number.
MEANINGS = ("A darker", "B darker", "same")
NUMERALS = ("I", "II", "III", "IV")
_WORDS = MappingProxyType(
    {"left-right": ("Left", "Right"), "up-down": ("Top", "Bottom"), "letters": ("A", "B")}
)
_KEY = {"A": "A darker", "B": "B darker", "same": "same", None: None}

#: IllusionBench+ App. A1, verbatim (the quotes are the paper's).
TF_TEMPLATE = (
    "Given an image, check if the following description is correct, and answer \u2018True\u2019 or "
    "\u2018False\u2019. Do not explain the reason. Description: {statement}"
)
MC_TEMPLATE = (
    "Given an image, a question, and some options, You have to select the correct one. Do not explain your "
    "reasoning. Answer with only the Roma number that corresponds to the correct option. Do not repeat the "
    "entire answer. Do not explain the reason. {question}"
)

TRANSPORT_NOTE = (
    "Illusion images must reach models losslessly: PNG (plates.images.image_to_data_url), never JPEG. "
    "JPEG's chroma subsampling and DCT quantisation move flat patches by a few levels and, on Munker-White "
    "stripes 2-8 px wide, turn two identical targets into different colours, so the pixel truth no longer "
    "holds. VLMEvalKit and ColorBench re-encode to JPEG; this project does not."
)


@dataclass(frozen=True)
class Question:
    """One question about one image. ``task``: "rcid-compare", "rcid-name", "ibp-tf" or "ibp-mc".
    ``options``: numeral -> option text (comparisons and multiple choice; empty otherwise); ``meanings``:
    numeral -> what it claims ("A darker", "B darker", "same", or "hue only" for the IllusionBench+
    distractor). ``answer``: the key (a numeral, "True"/"False", or a basic colour name), None when the
    human answer is undetermined (see `plates.stimuli.illusions.render`). ``accepted``: for colour naming, the
    words that count as the answer. ``wording``: where the text comes from."""

    task: str
    text: str
    answer: str | None
    framing: str | None = None
    target: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    meanings: Mapping[str, str] = field(default_factory=dict)
    accepted: tuple[str, ...] = ()
    wording: str = ""


def _words(layout: str, words: str) -> tuple[str, str]:
    key = layout if words == "layout" else words
    if key not in _WORDS:
        raise ValueError(
            f"layout {layout!r} / words {words!r} not known; allowed layouts: left-right, up-down; "
            "words: layout, letters"
        )
    return _WORDS[key]


def _regions(truth: Mapping[str, Any], layout: str) -> str:
    first, second = _words(layout, "layout")
    return ILLUSION_TYPES[truth["kind"]].regions.format(first=first.lower(), second=second.lower())


def answer_keys(truth: Mapping[str, Any]) -> dict[str, str | None]:
    """{"pixel": ..., "human": ...}: what a comparison answer should mean under each framing ("A darker",
    "B darker", "same"; None where the human answer is undetermined)."""
    return {"pixel": _KEY[truth["pixel_darker"]], "human": _KEY[truth["perceived_darker"]]}


def rcid_question(truth: Mapping[str, Any], layout: str, framing: str, *, words: str = "layout") -> Question:
    """RCID comparison question (§3.3, Fig. 1) in one framing ("pixel" or "human"). ``words`` "layout" names
    the targets Left/Right or Top/Bottom; "letters" names them A/B and says which is which (that clause is
    ours; RCID showed A/B labels on the image)."""
    if framing not in FRAMINGS:
        raise ValueError(f"framing {framing!r} is not known; allowed: {', '.join(FRAMINGS)}")
    if truth["kind"] == "rcid-filter":
        raise ValueError(
            "rcid-filter images are asked for colour names (rcid_name_question); allowed kinds: "
            + ", ".join(k for k in ILLUSION_TYPES if k != "rcid-filter")
        )
    w1, w2 = _words(layout, words)
    regions = _regions(truth, layout)
    if words == "letters":
        p1, p2 = _words(layout, "layout")
        regions += f" (call the {p1.lower()} one A and the {p2.lower()} one B)"
    options = {"I": f"{w1} is darker", "II": f"{w2} is darker", "III": "They are exactly same"}
    text = (
        f"{FRAMINGS[framing]}, how do the colors of {regions} compare? Here are some options you can choose: "
        + " ".join(f"{k}. {v}" for k, v in options.items())
    )
    meanings = {"I": "A darker", "II": "B darker", "III": "same"}
    key = answer_keys(truth)[framing]
    answer = None if key is None else {v: k for k, v in meanings.items()}[key]
    return Question(
        "rcid-compare",
        text,
        answer,
        framing,
        None,
        options,
        meanings,
        wording="RCID Fig. 1 frame and options verbatim; region description ours",
    )


def rcid_questions(truth: Mapping[str, Any], layout: str, *, words: str = "layout") -> tuple[Question, ...]:
    """Every RCID question for one image: both framings of the comparison, or for rcid-filter both framings
    of the colour question for each target."""
    if truth["kind"] == "rcid-filter":
        return tuple(rcid_name_question(truth, layout, f, t) for t in ("A", "B") for f in FRAMINGS)
    return tuple(rcid_question(truth, layout, f, words=words) for f in FRAMINGS)


def rcid_name_question(truth: Mapping[str, Any], layout: str, framing: str, target: str = "A") -> Question:
    """RCID filter question (§3.3, Fig. 1c: "what color is ...?"), open answer. The key under "pixel" is the
    basic colour name of the target's pixels, under "human" the name of its original colour (the colour
    people report through the cast); ``accepted`` lists the words counted as that name."""
    if framing not in FRAMINGS:
        raise ValueError(f"framing {framing!r} is not known; allowed: {', '.join(FRAMINGS)}")
    if "colour_names" not in truth:
        raise ValueError(f"kind {truth.get('kind')!r} has no colour names; allowed: rcid-filter")
    if target not in ("A", "B"):
        raise ValueError(f"target {target!r} is not known; allowed: A, B")
    where = dict(zip("AB", _words(layout, "layout"), strict=True))[target].lower()
    noun = "disc on the" if layout == "left-right" else "disc at the"
    name = truth["colour_names"][target]["pixel" if framing == "pixel" else "perceived"]
    text = f"{FRAMINGS[framing]}, what color is the {noun} {where}?"
    return Question(
        "rcid-name",
        text,
        name,
        framing,
        target,
        accepted=SYNONYMS[name],
        wording="RCID Fig. 1c frame verbatim; object description ours",
    )


def tf_questions(truth: Mapping[str, Any], layout: str) -> tuple[Question, ...]:
    """IllusionBench+ true/false questions (App. A1 instruction verbatim; statements ours, about the pixels):
    "the colours of ... are exactly the same", "of ..., the first one is darker", and the second one."""
    first, second = (w.lower() for w in _words(layout, "layout"))
    regions = _regions(truth, layout)
    darker = truth["pixel_darker"]
    statements = (
        (f"The colours of {regions} are exactly the same.", darker == "same"),
        (f"Of {regions}, the {first} one is darker.", darker == "A"),
        (f"Of {regions}, the {second} one is darker.", darker == "B"),
    )
    return tuple(
        Question(
            "ibp-tf",
            TF_TEMPLATE.format(statement=s),
            "True" if ok else "False",
            wording="IllusionBench+ App. A1 instruction verbatim; statement ours",
        )
        for s, ok in statements
    )


def mc_question(truth: Mapping[str, Any], layout: str, seed: int) -> Question:
    """IllusionBench+ 4-option multiple choice (App. A1 instruction verbatim; question and options ours),
    options shuffled by ``seed`` (numpy PCG64) and numbered I-IV. The fourth claim, "same lightness but
    different hues", is false for every image of this family (targets differ along L* only, or not at all)."""
    first, second = (w.lower() for w in _words(layout, "layout"))
    claims = (
        ("A darker", f"The {first} one is darker"),
        ("B darker", f"The {second} one is darker"),
        ("same", "They are exactly the same colour"),
        ("hue only", "They have the same lightness but different hues"),
    )
    order = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).permutation(len(claims))
    options = {NUMERALS[i]: claims[j][1] for i, j in enumerate(order)}
    meanings = {NUMERALS[i]: claims[j][0] for i, j in enumerate(order)}
    key = _KEY[truth["pixel_darker"]]
    answer = next(k for k, v in meanings.items() if v == key)
    body = f"Question: Which statement about the colours of {_regions(truth, layout)} is correct?\nOptions:\n"
    body += "\n".join(f"{k}. {v}" for k, v in options.items())
    return Question(
        "ibp-mc",
        MC_TEMPLATE.format(question=body),
        answer,
        options=options,
        meanings=meanings,
        wording="IllusionBench+ App. A1 instruction verbatim; question, options and layout ours",
    )


# --- reply parsing --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionParse:
    """``option``: the numeral chosen (None: nothing or ambiguous); ``meaning``: what it claims; ``rule``: the
    rule that decided; ``ambiguous``: the reply named more than one answer."""

    option: str | None
    meaning: str | None
    rule: str
    ambiguous: bool = False


_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_NUMERAL = r"(III|II|IV|I)"  # longest first: "III" is not "II" + "I"
_BARE = re.compile(r"^\(?\s*" + _NUMERAL + r"\s*\)?[.:)]?$", re.IGNORECASE)
_LETTER = re.compile(r"^\(?([A-Da-d])\)?[.:)]?$")
# Trap: the pronoun "I" ("I think II"): numerals inside a sentence count only after a marker or in
# parentheses.
_MARKED = re.compile(
    r"\b(?:option|answer|choice|choose|select|pick)\s*(?:is\s*)?:?\s*\(?" + _NUMERAL + r"\b\)?", re.IGNORECASE
)
_PAREN = re.compile(r"\(" + _NUMERAL + r"\)")
_LEADING = re.compile(r"^" + _NUMERAL + r"[.:)]\s")
_POSITION = {
    "left": "A",
    "top": "A",
    "upper": "A",
    "first": "A",
    "a": "A",
    "right": "B",
    "bottom": "B",
    "lower": "B",
    "second": "B",
    "b": "B",
}
_CLAIM = re.compile(
    r"\b(left|right|top|bottom|upper|lower|first|second|a|b)\b(?:\s+(?:one|square|patch|region|side|area|half|"
    r"ring|disc|target|field|part))?\s+(?:is|looks|appears|seems)\s+(not\s+|n't\s+)?(?:\w+\s+)?"
    r"(darker|lighter|brighter)\b",
    re.IGNORECASE,
)
# "darker on the left", "the darker one is the right"
_CLAIM_AFTER = re.compile(
    r"\b(?:the\s+)?(darker|lighter|brighter)\b(?:\s+(?:one|square|patch|region|side|area|half|ring|disc|target|"
    r"field|part))?\s+(?:is\s+)?(?:(?:on|at)\s+)?(?:the\s+)?(left|right|top|bottom|upper|lower|first|second|A|B)\b",
    re.IGNORECASE,
)
_SEVERAL = re.compile(
    r"^\(?" + _NUMERAL + r"\)?(?:\s*(?:or|/|,|and|&)\s*\(?" + _NUMERAL + r"\)?)+$", re.IGNORECASE
)
_SAME = re.compile(
    r"\b(?:exactly\s+(?:the\s+)?same|the\s+same|identical|no\s+difference|equal(?:ly)?)\b", re.IGNORECASE
)
_NEGATED = re.compile(
    r"\b(?:not|isn't|aren't|n't)\s+(?:exactly\s+)?(?:the\s+same|identical|equal)", re.IGNORECASE
)


def _by_meaning(
    meaning: str | None, meanings: Mapping[str, str], rule: str, ambiguous: bool = False
) -> OptionParse:
    inverse = {v: k for k, v in meanings.items()}
    if meaning is None or meaning not in inverse:
        return OptionParse(None, None, rule, ambiguous)
    return OptionParse(inverse[meaning], meaning, rule)


def parse_option(reply: str, options: Mapping[str, str], meanings: Mapping[str, str]) -> OptionParse:
    """The option a reply chooses, in this order (first rule that decides wins):

    1. the whole reply is a numeral ("II", "(II)", "ii.", "Answer: III"), or one letter A-D (its position:
       "B" is option II, which for RCID is also "B is darker");
    2. a marked numeral ("Option II", "the answer is (III)"): the last one;
    3. numerals in parentheses: exactly one distinct one ("(II) Right is darker"); several are ambiguous;
    4. a leading numeral with punctuation ("II. Right is darker"; never "I think ...");
    5. the reply is an option's text ("Right is darker"), or contains exactly one option's text;
    6. what it claims: "the left one is darker", "right looks lighter" (-> the left is darker), "darker on the
       left", "the darker one is the right", "they are the same"; a negated claim ("left is not darker":
       same, or right?), contradictory claims ("the same, but the left is darker", also against a contained
       option text) and several numerals ("I or II") are ambiguous.

    Ambiguous or nothing found: option None (counted as N/A by the RCID metrics).
    """
    if not isinstance(reply, str):
        raise ValueError(f"reply must be a str, got {type(reply).__name__}")
    text = strip_answer_prefix(clean(_THINK.sub("", reply)))
    body = text.strip(" \t\r\n.!\"'")
    m = _BARE.match(body)
    if m and m.group(1).upper() in options:
        k = m.group(1).upper()
        return OptionParse(k, meanings.get(k), "bare numeral")
    m = _LETTER.match(body)
    if m:
        i = "ABCD".index(m.group(1).upper())
        if i < len(NUMERALS) and NUMERALS[i] in options:
            return OptionParse(NUMERALS[i], meanings.get(NUMERALS[i]), "bare letter (position)")
    marked = [x.upper() for x in _MARKED.findall(text) if x.upper() in options]
    if marked:
        return OptionParse(marked[-1], meanings.get(marked[-1]), "marked numeral")
    paren = list(dict.fromkeys(x for x in _PAREN.findall(text) if x in options))
    if len(paren) == 1:
        return OptionParse(paren[0], meanings.get(paren[0]), "numeral in parentheses")
    if len(paren) > 1:
        return OptionParse(None, None, "several numerals in parentheses", True)
    m = _LEADING.match(text)
    if m and m.group(1) in options:
        return OptionParse(m.group(1), meanings.get(m.group(1)), "leading numeral")
    low = " ".join(re.sub(r"[^a-z0-9 ]+", " ", body.lower()).split())
    texts = {k: " ".join(re.sub(r"[^a-z0-9 ]+", " ", v.lower()).split()) for k, v in options.items()}
    exact = [k for k, v in texts.items() if v == low]
    if len(exact) == 1:
        return OptionParse(exact[0], meanings.get(exact[0]), "option text")
    if _SEVERAL.match(body):
        return OptionParse(None, None, "several numerals", True)
    inside = [k for k, v in texts.items() if re.search(r"\b" + re.escape(v) + r"\b", low)]
    claimed = _claim(text, meanings)
    if len(inside) == 1:
        if claimed.ambiguous or (claimed.option is not None and claimed.option != inside[0]):
            return OptionParse(None, None, "option text contradicted", True)
        return OptionParse(inside[0], meanings.get(inside[0]), "contains option text")
    return claimed


def _claim(text: str, meanings: Mapping[str, str]) -> OptionParse:
    claims = set()
    for m in _CLAIM.finditer(text):
        pos = m.group(1).lower()
        if pos in ("a", "b") and m.group(1) not in ("A", "B"):  # Trap: the article "a" is not target A
            continue
        if m.group(2):  # "the left is not darker": same, or the right? Undecidable.
            return OptionParse(None, None, "negated claim", True)
        side = _POSITION[pos]
        darker = side if m.group(3).lower() == "darker" else ("B" if side == "A" else "A")
        claims.add(f"{darker} darker")
    for m in _CLAIM_AFTER.finditer(text):
        pos = m.group(2).lower()
        if pos in ("a", "b") and m.group(2) not in ("A", "B"):
            continue
        side = _POSITION[pos]
        claims.add(f"{side if m.group(1).lower() == 'darker' else ('B' if side == 'A' else 'A')} darker")
    if _SAME.search(text) and not _NEGATED.search(text):
        claims.add("same")
    if len(claims) > 1:
        return OptionParse(None, None, "contradictory claims", True)
    if claims:
        return _by_meaning(claims.pop(), meanings, "claim in words")
    return OptionParse(None, None, "no option found")


_TRUE_FALSE = re.compile(r"\b(true|false)\b", re.IGNORECASE)
_NOT_TRUE = re.compile(r"\b(?:not\s+(?:true|correct|accurate)|incorrect|inaccurate|wrong)\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def parse_true_false(reply: str) -> str | None:
    """ "True", "False" or None (nothing, or both). Rules: a leading True/False ("True.", "False, because");
    "not true"/"incorrect"/"wrong" -> False; the only True/False word of the reply ("The answer is true",
    "It is true, because..." as IllusionBench+ App. B1 quotes); a leading yes/no as True/False. Both words
    without a leading one ("true or false?") -> None."""
    if not isinstance(reply, str):
        raise ValueError(f"reply must be a str, got {type(reply).__name__}")
    text = strip_answer_prefix(clean(_THINK.sub("", reply)))
    m = re.match(r"^\W*(true|false)\b(?!\s*(?:or|/)\s*(?:true|false)\b)", text, re.IGNORECASE)
    if m:
        return m.group(1).capitalize()
    if _NOT_TRUE.search(text):
        return "False"
    words = {w.lower() for w in _TRUE_FALSE.findall(text)}
    if len(words) == 1:
        return words.pop().capitalize()
    if words:
        return None
    m = _YES_NO.match(text)
    if m:
        return "True" if m.group(1).lower() == "yes" else "False"
    return None


def parse_colour_answer(reply: str) -> tuple[str | None, bool]:
    """(basic colour name or None, ambiguous) of an open colour answer: the one basic colour term the reply
    names (synonyms count: "gray", "crimson"); two or more terms ("reddish grey", "red or grey") are
    ambiguous (None, True). Compare the term with a question's ``answer`` (its ``accepted`` words map to
    it)."""
    if not isinstance(reply, str):
        raise ValueError(f"reply must be a str, got {type(reply).__name__}")
    found = names_in(strip_answer_prefix(clean(_THINK.sub("", reply))))
    if len(found) == 1:
        return found[0], False
    return None, len(found) > 1
