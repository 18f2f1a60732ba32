"""What every scene question builder shares: the question value, its option helpers and the scene look-ups.

`plates.tasks.scenes.colorbench` (the colour tasks) and `plates.tasks.scenes.objects` (Object Recognition and
Colour Mimicry) build `SceneQuestion` values from a rendered scene's truth (`plates.stimuli.scenes.render`);
`finish` sets the correct letter by solving the built question on the scene, so an option set with no or
two right answers is a bug caught where it is made. Colours: sRGB 0-255.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from plates.stimuli.base import Stimulus

__all__ = [
    "LETTERS",
    "MIN_VISIBLE",
    "NotAskable",
    "SceneQuestion",
    "arrange",
    "clear",
    "finish",
    "flat",
    "named_colours",
    "region",
    "unique_shapes",
    "visible",
    "window",
]

LETTERS = "ABCDEF"
MIN_VISIBLE = 0.5  # an object counts as clearly seen when at least half of it is visible


class NotAskable(ValueError):
    """The scene cannot carry this question unambiguously (e.g. no palette names, too few distinct shapes)."""


@dataclass(frozen=True)
class SceneQuestion:
    """One multiple-choice question about a scene. ``options``: {letter: text}, letters A.. in order;
    ``answer``: the correct letter; ``target``: the mask names the question refers to (ColorBench's "target
    segment"); ``params``: what was asked and the difficulty parameters (JSON-able); ``wording``: "colorbench"
    (Table 7 verbatim) or "ours"; ``answer_kind``: the task's answer kind (`plates.tasks.base.ANSWER_KINDS`;
    every one is asked as multiple choice and read by `plates.tasks.answers.read_choice`).

    Parameters
    ----------
    task : str
        The task's name.
    text : str
        The question's text.
    options : mapping of str to str
        3-6 distinct option texts lettered A.. in order (kept read-only).
    answer : str
        The correct letter, one of ``options``.
    target : tuple of str, optional
        The mask names the question refers to.
    params : mapping, optional
        What was asked and the difficulty parameters, JSON-able (kept read-only).
    wording : str, optional
        "colorbench" or "ours".
    answer_kind : str, optional
        The task's answer kind.

    Raises
    ------
    ValueError
        Options not 3-6 lettered A.. in order, a repeated option text, or an answer that is not a letter.
    """

    task: str
    text: str
    options: Mapping[str, str]
    answer: str
    target: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    wording: str = "colorbench"
    answer_kind: str = "choice"

    def __post_init__(self) -> None:
        opts = dict(self.options)
        if list(opts) != list(LETTERS[: len(opts)]) or not 3 <= len(opts) <= 6:
            raise ValueError(f"options {opts!r} are not valid; allowed: 3-6 options lettered A.. in order")
        if len(set(opts.values())) != len(opts):
            raise ValueError(f"options {opts!r} repeat a text; allowed: distinct option texts")
        if self.answer not in opts:
            raise ValueError(f"answer {self.answer!r} is not an option letter; allowed: {', '.join(opts)}")
        object.__setattr__(self, "options", MappingProxyType(opts))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "target", tuple(self.target))

    @property
    def answer_text(self) -> str:
        """The correct option's text."""
        return self.options[self.answer]

    def to_dict(self) -> dict[str, Any]:
        """The question's fields as plain JSON-able values (options and params as dicts, target as a list)."""
        return {"task": self.task, "text": self.text, "options": dict(self.options), "answer": self.answer,
                "target": list(self.target), "params": dict(self.params), "wording": self.wording,
                "answer_kind": self.answer_kind}


def finish(task: str, text: str, options: dict[str, str], target, params: dict, wording: str, stimulus: Stimulus,
           *, answer_kind: str, solve: Callable[[SceneQuestion, Stimulus], str | None]) -> SceneQuestion:
    """The question with its correct letter: the one option whose text ``solve`` returns on ``stimulus``
    (RuntimeError when none or several match: the builder made a bad option set).

    Parameters
    ----------
    task, text : str
        The task's name and the question's text.
    options : dict of str to str
        The options, lettered A.. in order.
    target : iterable of str
        The mask names the question refers to.
    params : dict
        What was asked and the difficulty parameters.
    wording : str
        "colorbench" or "ours".
    stimulus : Stimulus
        The rendered scene.
    answer_kind : str
        The task's answer kind.
    solve : callable
        ``solve(question, stimulus)`` -> the right option's text, or None.

    Returns
    -------
    SceneQuestion
        The question with its correct letter.

    Raises
    ------
    ValueError
        Options `SceneQuestion` refuses.
    RuntimeError
        No option or several options hold the text ``solve`` returns.
    """
    q = SceneQuestion(task, text, options, "A", tuple(target), params, wording, answer_kind)
    text_right = solve(q, stimulus)
    letters = [k for k, v in options.items() if v == text_right]
    if len(letters) != 1:
        raise RuntimeError(f"{task}: built options {options} hold no single correct answer (a bug)")
    return SceneQuestion(task, text, options, letters[0], tuple(target), params, wording, answer_kind)


def arrange(correct: str, distractors: list[str], rng: np.random.Generator) -> dict[str, str]:
    """The correct text and the distractors in a seeded random order, lettered A..

    Parameters
    ----------
    correct : str
        The correct option's text.
    distractors : list of str
        The other options' texts.
    rng : numpy.random.Generator
        Draws the order.

    Returns
    -------
    dict of str to str
        {letter: text}.
    """
    texts = [correct, *distractors]
    order = rng.permutation(len(texts))
    return {LETTERS[i]: texts[j] for i, j in enumerate(order)}


def window(count: int, n: int, lo: int, rng: np.random.Generator) -> dict[str, str]:
    """n consecutive integers >= lo containing ``count`` at a random place, ascending.

    Parameters
    ----------
    count : int
        The right count, >= ``lo``.
    n : int
        Options.
    lo : int
        The smallest option allowed.
    rng : numpy.random.Generator
        Draws the window's start.

    Returns
    -------
    dict of str to str
        {letter: the integer as text}.
    """
    start = int(rng.integers(max(lo, count - n + 1), count + 1))
    return {LETTERS[i]: str(start + i) for i in range(n)}


def visible(truth: Mapping) -> list[dict]:
    """The regions with any visible pixel.

    Parameters
    ----------
    truth : mapping
        A rendered scene's truth (`plates.stimuli.scenes.render`).

    Returns
    -------
    list of dict
        The ``regions`` entries whose ``share`` is above 0.
    """
    return [r for r in truth["regions"] if r["share"] > 0]


def clear(regions: list[dict]) -> bool:
    """True when every region is at least `MIN_VISIBLE` visible.

    Parameters
    ----------
    regions : list of dict
        Region entries of a scene's truth (their ``visible_fraction``, 0-1).

    Returns
    -------
    bool
        Whether each is at least half visible (True for none).
    """
    return all(r["visible_fraction"] >= MIN_VISIBLE for r in regions)


def unique_shapes(truth: Mapping) -> list[dict]:
    """Visible, clearly seen regions whose shape no other visible region has: "the {shape}" names one object.

    Parameters
    ----------
    truth : mapping
        A rendered scene's truth (`plates.stimuli.scenes.render`).

    Returns
    -------
    list of dict
        The regions, in the truth's order.
    """
    vis = visible(truth)
    shapes = [r["shape"] for r in vis]
    return [r for r in vis if shapes.count(r["shape"]) == 1 and r["visible_fraction"] >= MIN_VISIBLE]


def region(truth: Mapping, name: str) -> dict:
    """The truth entry of mask ``name`` ("background" or "region-k").

    Parameters
    ----------
    truth : mapping
        A rendered scene's truth (`plates.stimuli.scenes.render`).
    name : str
        "background" or "region-k", k the region's index.

    Returns
    -------
    dict
        The entry.
    """
    return truth["background"] if name == "background" else truth["regions"][int(name.split("-")[1])]


def named_colours(stimulus: Stimulus, task: str) -> list[dict]:
    """The scene's visible named colours; `NotAskable` for a scene without a named palette.

    Parameters
    ----------
    stimulus : Stimulus
        The rendered scene.
    task : str
        The task's name, for the error.

    Returns
    -------
    list of dict
        The truth's ``colours`` entries with a name and at least one object.

    Raises
    ------
    NotAskable
        The scene's spec has no palette.
    """
    if getattr(stimulus.spec, "palette", None) is None:
        raise NotAskable(f"{task} names colours, so the scene needs a named palette; allowed: SceneSpec(palette=...)")
    return [c for c in stimulus.truth["colours"] if c["name"] is not None and c["objects"] > 0]


def flat(stimulus: Stimulus, task: str) -> None:
    """`NotAskable` unless every region is one exact colour (flat shading).

    Parameters
    ----------
    stimulus : Stimulus
        The rendered scene.
    task : str
        The task's name, for the error.

    Raises
    ------
    NotAskable
        The scene's shading is not "flat".
    """
    if stimulus.truth["shading"] != "flat":
        raise NotAskable(f"{task} needs flat shading: a shaded region shows many pixel colours; allowed: shading='flat'")
