"""Scene questions in the form the runner sends and scores (`plates.tasks.base.Question` / `Score`).

`plates.tasks.scenes.colorbench` builds a `SceneQuestion` from a rendered scene; `to_question` turns it into the
common `plates.tasks.base.Question` (prompt text with ColorBench's App. F instruction, query kind "mc", the
correct letter as ``expected``), and `score_reply` judges a reply with the one multiple-choice reader
(`plates.tasks.answers.choice`), as every family's choice questions are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from plates.tasks.answers import read_choice, verdict
from plates.tasks.base import Question, Score, Task
from plates.tasks.scenes.colorbench import (
    ANSWER_KIND,
    PAPER_NAMES,
    SCENE_BUILDERS,
    SceneQuestion,
    build_question,
    expected_for,
    prompt_text,
)

__all__ = ["SCENE_TASKS", "scene_question", "scene_question_from", "score_reply", "to_question"]

def to_question(q: SceneQuestion, *, cot: bool = False, name: str | None = None) -> Question:
    """The common Question for ``q``: ``name`` (default "colorbench-<task>", "-cot" added with ``cot``),
    kind "mc", ``expected`` the correct letter, ``target`` the correct option's text, ``extra`` the scene
    question's target regions, parameters and wording.

    Parameters
    ----------
    q : plates.tasks.scenes.common.SceneQuestion
        The scene question.
    cot : bool, optional
        Ask with ColorBench's chain-of-thought instruction (answer written "(X)").
    name : str or None, optional
        The question's name; None gives "colorbench-<task>" ("-cot" added with ``cot``).

    Returns
    -------
    plates.tasks.base.Question
        Kind "mc", with ``extra`` keys "regions", "params", "wording" and "paper_task".

    Raises
    ------
    ValueError
        ``q`` is not a `SceneQuestion`.
    """
    if not isinstance(q, SceneQuestion):
        raise ValueError(f"to_question needs a SceneQuestion, got {type(q).__name__}")
    return Question(
        name=name or f"colorbench-{q.task}{'-cot' if cot else ''}", kind="mc", text=prompt_text(q, cot=cot),
        expected=q.answer, options=dict(q.options), target=q.answer_text, cot=cot,
        answer_text=f"({q.answer})" if cot else q.answer, task=q.task, answer_kind=q.answer_kind,
        answer_format="({answer})" if cot else "{answer}",
        extra={"regions": list(q.target), "params": dict(q.params), "wording": q.wording,
               "paper_task": PAPER_NAMES[q.task]},
    )


def score_reply(question: Question, reply: str) -> Score:
    """Judge ``reply`` to a scene question (`plates.tasks.answers.read_choice`); never correct where no option
    is right after recolouring (``expected`` "").

    Parameters
    ----------
    question : plates.tasks.base.Question
        A scene question (multiple choice).
    reply : str
        The model's reply text.

    Returns
    -------
    plates.tasks.base.Score
        The verdict (`plates.tasks.answers.verdict`).

    Raises
    ------
    ValueError
        ``question`` has no options.
    """
    if not question.options:
        raise ValueError(f"question {question.name!r} has no options; a scene question is multiple choice")
    return verdict(read_choice(reply, question.options), question.expected)


def scene_question_from(data: Mapping[str, Any]) -> SceneQuestion:
    """A `SceneQuestion` from its ``to_dict`` JSON (an item's fixed question, `plates.datasets`).

    Parameters
    ----------
    data : mapping
        ``SceneQuestion.to_dict()``'s keys: ``task``, ``text``, ``options``, ``answer`` required; ``target``,
        ``params``, ``wording`` (default "colorbench") and ``answer_kind`` (default "choice") optional.

    Returns
    -------
    plates.tasks.scenes.common.SceneQuestion

    Raises
    ------
    ValueError
        A required key is missing (and whatever `SceneQuestion` refuses).
    """
    try:
        return SceneQuestion(task=data["task"], text=data["text"], options=data["options"], answer=data["answer"],
                             target=tuple(data.get("target", ())), params=data.get("params", {}),
                             wording=data.get("wording", "colorbench"),
                             answer_kind=data.get("answer_kind", "choice"))
    except KeyError as exc:
        raise ValueError(f"a scene question needs task, text, options and answer; {exc} is missing") from None


def scene_question(subject: Mapping[str, Any], template: Any, *, seed: int, label_space: str | None = None
                   ) -> Question:
    """The question ``template`` (a ColorBench scene prompt) asks about a scene. ``subject`` is the item's truth
    with the rendered ``stimulus`` (`plates.datasets.DatasetItem.truth`): an item with a fixed ``question``
    (made when its set was generated; a robustness variant shares its seed's) asks that one, its answer
    recomputed on this scene; else a question is built with ``seed`` plus the scene's own seed.

    Parameters
    ----------
    subject : mapping
        The item's truth with ``stimulus`` (the rendered scene or recoloured variant), optionally ``question``
        (a `SceneQuestion` as JSON) and ``spec_seed``.
    template : object
        A ColorBench scene prompt: its ``task``, ``cot`` and ``name`` are read.
    seed : int
        The run's seed.
    label_space : str or None, optional
        Unused (every task's question builder takes it).

    Returns
    -------
    plates.tasks.base.Question
        As `to_question`, with ``extra["recolour"]`` the variant's name (or "seed"); ``expected`` "" and
        ``extra["no_right_option"]`` True when recolouring left no option right.

    Raises
    ------
    ValueError
        No rendered ``stimulus``, a fixed question of another task than the template's, or a question that
        cannot be built (`build_question`).

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.3 and App. C (robustness: the question kept, the answer recomputed).
    """
    stimulus, fixed = subject.get("stimulus"), subject.get("question")
    if stimulus is None:
        raise ValueError("a scene task needs the rendered scene (subject['stimulus'])")
    if fixed is not None:
        q = scene_question_from(fixed)
        if q.task != template.task:
            raise ValueError(f"the item's question is a {q.task!r} question, not {template.task!r}")
        expected = expected_for(q, stimulus)
        out = to_question(q if expected is None else replace(q, answer=expected), cot=template.cot,
                          name=template.name)
        if expected is None:  # after recolouring no option is right: asked, never correct (ColorBench App. C)
            out = replace(out, expected="", extra={**out.extra, "no_right_option": True})
    else:
        q = build_question(template.task, stimulus, seed=(seed + int(subject.get("spec_seed", 0))) % 2**63)
        out = to_question(q, cot=template.cot, name=template.name)
    variant = getattr(stimulus.spec, "name", None) if hasattr(stimulus.spec, "strategy") else None
    return replace(out, extra={**out.extra, "recolour": variant or "seed"})


SCENE_TASKS: tuple[Task, ...] = tuple(
    Task(name, "scene", ANSWER_KIND[name], scene_question, score_reply,
         f"ColorBench (Liang et al.) Table 7 {PAPER_NAMES[name]}; drawn on our synthetic scenes",
         extra_families=("scene-recolour",))  # the robustness variants (§2.3) are asked the same questions
    for name in SCENE_BUILDERS
)
