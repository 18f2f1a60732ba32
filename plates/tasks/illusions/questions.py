"""The illusion tasks as pure functions: RCID and IllusionBench+ questions, answer keys, and reply parsing.

Input is a rendered illusion's ``truth`` (`plates.stimuli.illusions.render`; it carries the layout); output
is `plates.tasks.base.Question` values whose ``extra`` holds the pixel and human answers, and
`plates.tasks.base.Score` verdicts (``score_choice``, ``score_true_false``, ``score_colour_name``), ready for
`plates.tasks.base.Task` entries named `TASK_NAMES`. No colour maths happens here. Wording, and where it
comes from:

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
from types import MappingProxyType
from typing import Any

import numpy as np

from plates.stimuli.illusions.kinds import ILLUSION_TYPES
from plates.stimuli.illusions.naming import SYNONYMS
from plates.tasks.answers import NUMERALS as ROMAN_NUMERALS
from plates.tasks.answers import read_choice, read_colour_name, read_yes_no, verdict
from plates.tasks.base import Question, Score
from plates.validation import check_choice

__all__ = [
    "FRAMINGS",
    "MC_TEMPLATE",
    "MEANINGS",
    "NUMERALS",
    "TF_TEMPLATE",
    "TRANSPORT_NOTE",
    "TASK_NAMES",
    "answer_keys",
    "claims_in_words",
    "described_option",
    "mc_question",
    "rcid_name_question",
    "rcid_question",
    "score_choice",
    "score_colour_name",
    "score_true_false",
    "tf_questions",
]

#: Task names for the ``TASKS`` registry: RCID comparison (choice), RCID filter naming (name), IllusionBench+
#: true/false (yesno) and multiple choice (choice).
TASK_NAMES = ("rcid-compare", "rcid-name", "illusionbench-tf", "illusionbench-mc")
#: RCID's two framings (Fig. 1 Q1 / Q2, verbatim). §4.1 and Table 1 also write "based on human perception".
FRAMINGS = MappingProxyType({"pixel": "Based on pixel values", "human": "According to human perception"})
#: What an answer to a comparison means, whatever its option number.
MEANINGS = ("A darker", "B darker", "same")
#: The numerals IllusionBench+ App. A1 numbers its four options with (`plates.tasks.answers.NUMERALS`).
NUMERALS = ROMAN_NUMERALS[:4]
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


def _layout(truth: Mapping[str, Any]) -> str:
    layout = truth.get("layout")
    if layout is None:  # truth written without the layout: the positions say it
        layout = "left-right" if truth["positions"]["A"] == "left" else "up-down"
    if layout not in ("left-right", "up-down"):
        raise ValueError(f"layout {layout!r} is not known; allowed layouts: left-right, up-down")
    return layout


def _words(layout: str, words: str = "layout") -> tuple[str, str]:
    key = layout if words == "layout" else words
    if key not in _WORDS or layout not in ("left-right", "up-down"):
        raise ValueError(
            f"layout {layout!r} / words {words!r} not known; allowed layouts: left-right, up-down; "
            "words: layout, letters"
        )
    return _WORDS[key]


def _regions(truth: Mapping[str, Any]) -> str:
    first, second = _words(_layout(truth))
    return ILLUSION_TYPES[truth["kind"]].regions.format(first=first.lower(), second=second.lower())


def _facts(truth: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    """The ``extra`` every illusion question carries (JSON-able): the kind, the item class, the keys and where
    the human key comes from (``human_key``: `plates.stimuli.illusions.kinds.HUMAN_KEYS`)."""
    keys = answer_keys(truth)
    return {
        "illusion": truth["kind"],
        "item_class": truth["item_class"],
        "pixel_answer": keys["pixel"],
        "human_answer": keys["human"],
        "human_key": _human_key(truth),
        **more,
    }


def _human_key(truth: Mapping[str, Any]) -> str:
    """The truth's ``human_key``; truth stored before it was recorded takes the kind's."""
    return truth.get("human_key") or ILLUSION_TYPES[truth["kind"]].human_key


def answer_keys(truth: Mapping[str, Any]) -> dict[str, str | None]:
    """{"pixel": ..., "human": ...}: what a comparison answer should mean under each framing ("A darker",
    "B darker", "same"; None where the human answer is undetermined).

    Parameters
    ----------
    truth : mapping
        A rendered illusion's truth (`plates.stimuli.illusions.render`): ``kind``, ``item_class``,
        ``pixel_darker`` and ``perceived_darker`` ("A", "B", "same"; the latter None when undetermined), the
        layout or ``positions``.

    Returns
    -------
    dict of str to str or None
        ``{"pixel": meaning, "human": meaning or None}``, each meaning one of `MEANINGS`.
    """
    return {"pixel": _KEY[truth["pixel_darker"]], "human": _KEY[truth["perceived_darker"]]}


def rcid_question(truth: Mapping[str, Any], framing: str, *, words: str = "layout") -> Question:
    """RCID comparison question (§3.3, Fig. 1) in one framing ("pixel" or "human"), kind "mc" with options
    I-III. ``expected``: the option of the framing's key ("" where the human answer is undetermined).
    ``extra``: "framing", "meanings" (numeral -> "A darker" / "B darker" / "same"), "pixel_answer",
    "human_answer", "item_class", "illusion", "wording". ``words`` "layout" names the targets Left/Right or
    Top/Bottom (the layout in ``truth``); "letters" names them A/B and says which is which (that clause is
    ours; RCID showed A/B labels on the image).

    Parameters
    ----------
    truth : mapping
        A rendered illusion's truth (`plates.stimuli.illusions.render`): ``kind``, ``item_class``,
        ``pixel_darker`` and ``perceived_darker`` ("A", "B", "same"; the latter None when undetermined), the
        layout or ``positions``.
    framing : str
        A key of `FRAMINGS`: ``"pixel"`` or ``"human"``.
    words : str, optional
        ``"layout"`` or ``"letters"``, as above.

    Returns
    -------
    plates.tasks.base.Question
        Kind "mc", task ``"rcid-compare"``, answer kind "choice", named ``rcid-<framing>`` (``-letters`` added).

    Raises
    ------
    ValueError
        An unknown framing, layout or ``words``, or a truth of kind ``rcid-filter`` (asked by
        `rcid_name_question`).

    References
    ----------
    Mao et al. 2025 (RCID), §3.3 and Fig. 1a-b.
    """
    check_choice("framing", framing, FRAMINGS)
    if truth["kind"] == "rcid-filter":
        raise ValueError(
            "rcid-filter images are asked for colour names (rcid_name_question); allowed kinds: "
            + ", ".join(k for k in ILLUSION_TYPES if k != "rcid-filter")
        )
    layout = _layout(truth)
    w1, w2 = _words(layout, words)
    regions = _regions(truth)
    if words == "letters":
        p1, p2 = _words(layout)
        regions += f" (call the {p1.lower()} one A and the {p2.lower()} one B)"
    options = {"I": f"{w1} is darker", "II": f"{w2} is darker", "III": "They are exactly same"}
    text = (
        f"{FRAMINGS[framing]}, how do the colors of {regions} compare? Here are some options you can choose: "
        + " ".join(f"{k}. {v}" for k, v in options.items())
    )
    meanings = {"I": "A darker", "II": "B darker", "III": "same"}
    key = answer_keys(truth)[framing]
    expected = "" if key is None else {v: k for k, v in meanings.items()}[key]
    wording = "RCID Fig. 1 frame and options verbatim; region description ours"
    return Question(
        name=f"rcid-{framing}" + ("-letters" if words == "letters" else ""),
        kind="mc",
        text=text,
        expected=expected,
        options=options,
        target=key or "",
        task=TASK_NAMES[0],
        answer_kind="choice",
        extra=_facts(truth, framing=framing, meanings=meanings, wording=wording),
    )


def rcid_name_question(truth: Mapping[str, Any], framing: str, target: str = "A") -> Question:
    """RCID filter question (§3.3, Fig. 1c: "what color is ...?"), kind "open". ``expected`` under "pixel"
    is the basic colour name of the target's pixels, under "human" the name of its original colour (the
    colour people report through the cast: an unvalidated prediction, ``extra["human_key"]``);
    ``extra["accepted"]`` lists the words counted as that name,
    ``extra["pixel_answer"]`` / ``["human_answer"]`` both names.

    Parameters
    ----------
    truth : mapping
        An ``rcid-filter`` illusion's truth, with ``colour_names`` per target (``"pixel"`` and ``"perceived"``
        basic colour terms) and the layout.
    framing : str
        A key of `FRAMINGS`: ``"pixel"`` or ``"human"``.
    target : str, optional
        ``"A"`` or ``"B"``: the disc asked about.

    Returns
    -------
    plates.tasks.base.Question
        Kind "open", task ``"rcid-name"``, answer kind "name".

    Raises
    ------
    ValueError
        An unknown framing or target, or a truth without colour names.

    References
    ----------
    Mao et al. 2025 (RCID), §3.3 and Fig. 1c.
    """
    check_choice("framing", framing, FRAMINGS)
    if "colour_names" not in truth:
        raise ValueError(f"kind {truth.get('kind')!r} has no colour names; allowed: rcid-filter")
    if target not in ("A", "B"):
        raise ValueError(f"target {target!r} is not known; allowed: A, B")
    layout = _layout(truth)
    where = dict(zip("AB", _words(layout), strict=True))[target].lower()
    noun = "disc on the" if layout == "left-right" else "disc at the"
    names = truth["colour_names"][target]
    name = names["pixel" if framing == "pixel" else "perceived"]
    return Question(
        name=f"rcid-name-{framing}",
        kind="open",
        text=f"{FRAMINGS[framing]}, what color is the {noun} {where}?",
        expected=name,
        target=name,
        task=TASK_NAMES[1],
        answer_kind="name",
        extra={
            "illusion": truth["kind"],
            "item_class": truth["item_class"],
            "framing": framing,
            "target": target,
            "pixel_answer": names["pixel"],
            "human_answer": names["perceived"],
            "human_key": _human_key(truth),
            "accepted": list(SYNONYMS[name]),
            "wording": "RCID Fig. 1c frame verbatim; object description ours",
        },
    )


def tf_questions(truth: Mapping[str, Any]) -> tuple[Question, ...]:
    """IllusionBench+ true/false questions (App. A1 instruction verbatim; statements ours, about the pixels):
    "the colours of ... are exactly the same", "of ..., the first one is darker", and the second one. Kind
    "yesno"; ``expected`` "True" or "False".

    Parameters
    ----------
    truth : mapping
        A rendered illusion's truth (`plates.stimuli.illusions.render`): ``kind``, ``item_class``,
        ``pixel_darker`` and ``perceived_darker`` ("A", "B", "same"; the latter None when undetermined), the
        layout or ``positions``.

    Returns
    -------
    tuple of plates.tasks.base.Question
        The three statements in that order, each named ``illusionbench-tf``; ``extra["statement"]`` is its index.

    References
    ----------
    Zhang et al. 2025 (IllusionBench+), App. A1.
    """
    first, second = (w.lower() for w in _words(_layout(truth)))
    regions = _regions(truth)
    darker = truth["pixel_darker"]
    statements = (
        (f"The colours of {regions} are exactly the same.", darker == "same"),
        (f"Of {regions}, the {first} one is darker.", darker == "A"),
        (f"Of {regions}, the {second} one is darker.", darker == "B"),
    )
    wording = "IllusionBench+ App. A1 instruction verbatim; statement ours"
    return tuple(
        Question(
            name="illusionbench-tf",
            kind="yesno",
            text=TF_TEMPLATE.format(statement=text),
            expected="True" if ok else "False",
            target=text,
            task=TASK_NAMES[2],
            answer_kind="yesno",
            extra=_facts(truth, statement=i, wording=wording),
        )
        for i, (text, ok) in enumerate(statements)
    )


def mc_question(truth: Mapping[str, Any], seed: int) -> Question:
    """IllusionBench+ 4-option multiple choice (App. A1 instruction verbatim; question and options ours),
    options shuffled by ``seed`` (numpy PCG64) and numbered I-IV; ``extra["meanings"]`` says what each
    numeral claims. The fourth claim, "same lightness but different hues", is false for every image of this
    family (targets differ along L* only, or not at all).

    Parameters
    ----------
    truth : mapping
        A rendered illusion's truth (`plates.stimuli.illusions.render`): ``kind``, ``item_class``,
        ``pixel_darker`` and ``perceived_darker`` ("A", "B", "same"; the latter None when undetermined), the
        layout or ``positions``.
    seed : int
        Seeds the shuffle (a non-negative integer; numpy PCG64 through SeedSequence).

    Returns
    -------
    plates.tasks.base.Question
        Kind "mc", named ``illusionbench-mc``, ``expected`` the numeral of the pixel key.

    References
    ----------
    Zhang et al. 2025 (IllusionBench+), App. A1.
    """
    first, second = (w.lower() for w in _words(_layout(truth)))
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
    expected = next(k for k, v in meanings.items() if v == key)
    body = f"Question: Which statement about the colours of {_regions(truth)} is correct?\nOptions:\n"
    body += "\n".join(f"{k}. {v}" for k, v in options.items())
    wording = "IllusionBench+ App. A1 instruction verbatim; question, options and layout ours"
    return Question(
        name="illusionbench-mc",
        kind="mc",
        text=MC_TEMPLATE.format(question=body),
        expected=expected,
        options=options,
        target=key or "",
        task=TASK_NAMES[3],
        answer_kind="choice",
        extra=_facts(truth, meanings=meanings, seed=seed, wording=wording),
    )


# --- reading replies ----------------------------------------------------------------------------------
# The readers are `plates.tasks.answers`' (one per answer kind, each with its policy); what is the illusions'
# own is reading a comparison claimed in words, the multiple-choice reader's rule 9.

_POSITION = MappingProxyType({
    "left": "A", "top": "A", "upper": "A", "first": "A", "a": "A",
    "right": "B", "bottom": "B", "lower": "B", "second": "B", "b": "B",
})
_PART = r"(?: (?:one|square|patch|region|side|area|half|ring|disc|target|field|part))?"
_CLAIM = re.compile(
    r"\b(left|right|top|bottom|upper|lower|first|second|a|b)\b" + _PART + r" (?:is|looks|appears|seems) "
    r"(not |n't )?(?:\w+ )?(darker|lighter|brighter)\b",
    re.IGNORECASE,
)
# "darker on the left", "the darker one is the right"
_CLAIM_AFTER = re.compile(
    r"\b(?:the )?(darker|lighter|brighter)\b" + _PART + r" (?:is )?(?:(?:on|at) )?(?:the )?"
    r"(left|right|top|bottom|upper|lower|first|second|A|B)\b",
    re.IGNORECASE,
)
_SAME = re.compile(
    r"\b(?:exactly (?:the )?same|the same|identical|no difference|equal(?:ly)?)\b", re.IGNORECASE
)
_NEGATED = re.compile(r"\b(?:not|isn't|aren't|n't) (?:exactly )?(?:the same|identical|equal)", re.IGNORECASE)
_NOT_ALNUM = re.compile(r"[^a-z0-9 ]+")


def _flat(text: str) -> str:
    return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())


def claims_in_words(text: str) -> tuple[frozenset[str], bool]:
    """The comparison meanings ("A darker", "B darker", "same") ``text`` claims in words: "the left one is
    darker", "right looks lighter" (the left is darker), "darker on the left", "the darker one is the right",
    "they are the same". Returns (meanings, undecidable): a negated claim ("the left is not darker": the same,
    or the right?) is undecidable. Trap: the article "a" is not target A.

    Parameters
    ----------
    text : str
        A cleaned reply.

    Returns
    -------
    tuple of (frozenset of str, bool)
        The meanings claimed (a subset of `MEANINGS`), and whether a negated claim makes the reply undecidable
        (then the set is empty).
    """
    claims = set()
    for m in _CLAIM.finditer(text):
        pos = m.group(1).lower()
        if pos in ("a", "b") and m.group(1) not in ("A", "B"):
            continue
        if m.group(2):
            return frozenset(), True
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
    return frozenset(claims), False


def described_option(meanings: Mapping[str, str]):
    """The multiple-choice reader's rule 9 for a comparison question whose options mean ``meanings`` (numeral
    -> "A darker" / "B darker" / "same" / ...): the options the reply claims in words, plus the one option
    whose whole text the reply contains ("I'd say right is darker"). Contradictory or negated claims name
    every option involved (the reader then abstains: ambiguous).

    Parameters
    ----------
    meanings : mapping of str to str
        Option numeral to its meaning (`MEANINGS`, or "hue only"), as in a question's ``extra["meanings"]``.

    Returns
    -------
    callable
        ``described(text, options) -> (frozenset of numerals, rule)``, the ``described`` hook of
        `plates.tasks.answers.read_choice`.
    """
    inverse = {v: k for k, v in meanings.items()}

    def described(text: str, options: Mapping[str, str]) -> tuple[frozenset[str], str]:
        meant, undecidable = claims_in_words(text)
        if undecidable:
            return frozenset(options), "negated claim"
        keys = {inverse[m] for m in meant if m in inverse}
        low = _flat(text)
        inside = [k for k, v in options.items() if re.search(r"\b" + re.escape(_flat(v)) + r"\b", low)]
        if len(inside) == 1:
            keys.add(inside[0])
        rule = "claim in words" if len(keys) <= 1 else "contradictory claims"
        return frozenset(keys), rule

    return described


# --- scorers (plates.tasks.base.Task.score) ------------------------------------------------------------


def score_choice(question: Question, reply: str) -> Score:
    """Judge a reply to an RCID comparison or IllusionBench+ multiple choice (`plates.tasks.answers.read_choice`
    with Roman numerals, claims in words read by `described_option`): ``parsed`` is the numeral chosen, correct
    when it is ``expected`` (never where the key is undetermined, "").

    Parameters
    ----------
    question : plates.tasks.base.Question
        The question asked (its ``options`` and ``extra["meanings"]`` are read).
    reply : str
        The model's reply text.

    Returns
    -------
    plates.tasks.base.Score
        The verdict (`plates.tasks.answers.verdict`).
    """
    described = described_option(question.extra.get("meanings", {}))
    return verdict(read_choice(reply, question.options or {}, described=described), question.expected)


def score_true_false(question: Question, reply: str) -> Score:
    """Judge an IllusionBench+ true/false reply (`plates.tasks.answers.read_yes_no`, vocabulary "true-false"):
    ``parsed`` "True" or "False".

    Parameters
    ----------
    question : plates.tasks.base.Question
        The question asked.
    reply : str
        The model's reply text.

    Returns
    -------
    plates.tasks.base.Score
        The verdict (`plates.tasks.answers.verdict`).
    """
    return verdict(read_yes_no(reply, "true-false"), question.expected)


def score_colour_name(question: Question, reply: str) -> Score:
    """Judge an RCID filter reply (`plates.tasks.answers.read_colour_name`): ``parsed`` the one basic colour
    term named, correct when it is ``expected`` (the framing's name).

    Parameters
    ----------
    question : plates.tasks.base.Question
        The question asked.
    reply : str
        The model's reply text.

    Returns
    -------
    plates.tasks.base.Score
        The verdict (`plates.tasks.answers.verdict`).
    """
    return verdict(read_colour_name(reply), question.expected)
