"""The plate tasks: the papers' protocols on Ishihara-style plates, as `plates.tasks.base.Task` values.

Each reads the plate's label from its truth (``{"label": "12"}``), renders a prompt with
`plates.tasks.prompts.render_prompt` and judges replies with `score`, which hands the reply to the reader of
the prompt's kind (`plates.tasks.answers`: open numbers and HueManity labels, yes/no, multiple choice):

    ==========================  ======  ===========================================================================
    task                        answer  source
    ==========================  ======  ===========================================================================
    ``cbe-open``                label   ColorBlindnessEval §3.1 "Open" and "Open-clear", App. F
    ``cbe-yes-no``              yesno   ColorBlindnessEval §3.1 Y*/N and Y/N*, App. F
    ``huemanity-numeric``       label   HueManity §4 Number Recognition, scoring App. B.2
    ``huemanity-alnum``         label   HueManity §4 Text Recognition, scoring App. B.2
    ``colorbench-blindness``    choice  ColorBench Table 7 "Color Blindness", App. F
    ``plate-open``              label   plates (not from a paper): any text label, openly
    ``plate-yes-no``            yesno   plates (not from a paper): any text label, yes or no
    ``plate-choice``            choice  plates (not from a paper): a user's multiple-choice template
    ==========================  ======  ===========================================================================
"""

from __future__ import annotations

import functools
import string
from collections.abc import Mapping, Sequence
from typing import Any

from plates.models.base import QUERY_KINDS
from plates.stimuli.ishihara.labels import LABEL_SPACE_NAMES, LABEL_SPACES
from plates.tasks.answers import (
    canonical_number,
    check_options,
    read_choice,
    read_label,
    read_number,
    read_text,
    read_yes_no,
    verdict,
)
from plates.tasks.base import Question, Score, Task
from plates.tasks.prompts import PromptTemplate, few_shot_prompts, render_prompt

__all__ = ["PLATE_TASKS", "plate_question", "plate_examples", "plate_score", "score"]

FAMILY = "ishihara"


def _label(truth: Mapping[str, Any]) -> str:
    try:
        return str(truth["label"])
    except (KeyError, TypeError):
        raise ValueError(f"a plate task needs the plate's truth {{'label': ...}}, got {truth!r:.80}") from None


def plate_question(truth: Mapping[str, Any], template: PromptTemplate, *, seed: int,
                   label_space: str | None = None) -> Question:
    """The question ``template`` asks about a plate whose label is ``truth["label"]``.

    Parameters
    ----------
    truth : mapping
        The plate's truth; its ``label`` is the target.
    template : PromptTemplate
        The prompt.
    seed : int
        The question's seed (`plates.tasks.prompts.render_prompt`).
    label_space : str or None, optional
        A label space to use instead of the template's.

    Returns
    -------
    Question
        The rendered question.

    Raises
    ------
    ValueError
        A truth without ``label``, or anything `plates.tasks.prompts.render_prompt` refuses.
    """
    return render_prompt(template, _label(truth), seed=seed, label_space=label_space)


def plate_examples(truths: Sequence[Mapping[str, Any]], template: PromptTemplate, *, seed: int,
                   label_space: str | None = None) -> tuple[Question, ...]:
    """Few-shot example questions, one per example plate (ColorBlindnessEval App. B.2, HueManity Table 3).

    Parameters
    ----------
    truths : sequence of mapping
        The example plates' truths (their ``label``).
    template : PromptTemplate
        The prompt.
    seed : int
        The question's seed (`plates.tasks.prompts.few_shot_prompts`).
    label_space : str or None, optional
        A label space to use instead of the template's.

    Returns
    -------
    tuple of Question
        One example per truth.

    Raises
    ------
    ValueError
        A truth without ``label``, or anything `plates.tasks.prompts.render_prompt` refuses.
    """
    return few_shot_prompts(template, [_label(t) for t in truths], seed=seed, label_space=label_space)


def plate_score(question: Question, reply: str) -> Score:
    """Judge ``reply`` against ``question`` (`score`).

    Parameters
    ----------
    question : Question
        The question asked (its kind, expected answer, label space and options are used).
    reply : str
        The reply text.

    Returns
    -------
    Score
        The verdict.

    Raises
    ------
    ValueError
        As `score`: a bad question, or a reply that is not a str.
    """
    return score(question.kind, reply, question.expected, label_space=question.label_space,
                 options=question.options)


@functools.cache
def _labels(space: str) -> frozenset[str]:
    return frozenset(LABEL_SPACES[space])


@functools.cache
def _label_len(space: str) -> int:
    return max(len(x) for x in LABEL_SPACES[space])


def score(
    kind: str, reply: str, expected: str, *, label_space: str | None = None, options: dict[str, str] | None = None
) -> Score:
    """Score one reply to a plate question with the reader of its kind (`plates.tasks.answers`).

    ``kind``: "open" | "yesno" | "mc"; ``expected``: the label (open), "yes"/"no" (yesno) or an option letter
    (mc); ``label_space`` (open): "cbe" (numbers, `read_number`), "huemanity-numeric" / "huemanity-alnum"
    (HueManity App. B.2, `read_label`) or "any" (None means "any": a number for a numeric target, else the
    exact text); ``options`` (mc, required): ``{letter: text}`` as rendered. ValueError for a bad question
    (never for a reply).

    Parameters
    ----------
    kind : str
        "open", "yesno" or "mc".
    reply : str
        The reply text.
    expected : str
        The right answer, not empty.
    label_space : str or None, optional
        The label space (open questions); None for "any".
    options : dict of str to str or None, optional
        {letter: text}, letters A-Z (mc).

    Returns
    -------
    Score
        The verdict.

    Raises
    ------
    ValueError
        An unknown kind or label space, a reply that is not a str, an empty expected answer, an expected answer
        not allowed for the kind (not yes/no, not an option letter, not in the label space), or mc options
        missing, refused by `check_options` or not single letters.
    """
    if kind not in QUERY_KINDS:
        raise ValueError(f"kind {kind!r} is not allowed; allowed: {', '.join(QUERY_KINDS)}")
    if not isinstance(reply, str):
        raise ValueError(
            f"reply must be a str, got {type(reply).__name__} (a failed request is stored as an error, never scored)"
        )
    if not isinstance(expected, str) or not expected.strip():
        raise ValueError(f"expected must be a non-empty str, got {expected!r}")
    space = "any" if label_space is None else label_space
    if space not in LABEL_SPACE_NAMES:
        raise ValueError(f"label_space {label_space!r} is not allowed; allowed: {', '.join(LABEL_SPACE_NAMES)} or None")
    if kind == "yesno":
        if expected not in ("yes", "no"):
            raise ValueError(f"expected {expected!r} is not allowed for a yes/no prompt; allowed: yes, no")
        return verdict(read_yes_no(reply), expected)
    if kind == "mc":
        if options is None:
            raise ValueError("a multiple-choice plate question needs its options {letter: text}; allowed: the "
                             "options the prompt rendered")
        options = check_options(options)
        if any(len(k) != 1 or k not in string.ascii_uppercase for k in options):
            raise ValueError(f"option keys {list(options)} are not allowed; allowed: single letters A-Z")
        if expected not in options:
            raise ValueError(f"expected option {expected!r} is not allowed; allowed: {', '.join(options)}")
        return verdict(read_choice(reply, options), expected)
    labels = _labels(space) if space != "any" else None
    if labels is not None and expected not in labels:
        raise ValueError(
            f"expected {expected!r} is not in label space {space!r} ({len(labels)} labels; see plates.stimuli.ishihara.labels)"
        )
    if space == "cbe":
        return verdict(read_number(reply, labels=labels, label_len=_label_len(space)), expected)
    if space != "any":
        return verdict(read_label(reply, space), expected)
    if expected.isascii() and expected.isdigit():
        return verdict(read_number(reply, label_len=len(expected)), canonical_number(expected))
    return verdict(read_text(reply, len(expected)), expected)


def _task(name: str, answer_kind: str, source: str) -> Task:
    return Task(name, FAMILY, answer_kind, plate_question, plate_score, source, plate_examples)


PLATE_TASKS: tuple[Task, ...] = (
    _task("cbe-open", "label", "ColorBlindnessEval §3.1 Open / Open-clear, App. F"),
    _task("cbe-yes-no", "yesno", "ColorBlindnessEval §3.1 Y*/N and Y/N*, App. F"),
    _task("huemanity-numeric", "label", "HueManity §4 Number Recognition, App. B.2"),
    _task("huemanity-alnum", "label", "HueManity §4 Text Recognition, App. B.2"),
    _task("colorbench-blindness", "choice", "ColorBench Table 7 Color Blindness, App. F"),
    _task("plate-open", "label", "plates (not from a paper): any text label, openly"),
    _task("plate-yes-no", "yesno", "plates (not from a paper): any text label, yes or no"),
    _task("plate-choice", "choice", "plates (not from a paper): a user's multiple-choice template"),
)
