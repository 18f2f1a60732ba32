"""Scene questions in the form the runner sends and scores (`plates.tasks.base.Question` / `Score`).

`plates.tasks.colorbench` builds a `SceneQuestion` from a rendered scene; `to_question` turns it into the
common `plates.tasks.base.Question` (prompt text with ColorBench's App. F instruction, query kind "mc", the
correct letter as ``expected``), and `score_reply` judges a reply with `plates.tasks.mc_scoring` (the robust
multiple-choice parser). Parse statuses map onto the results schema's: "ok" stays; "ambiguous", "unparsed"
and "empty" become "unparsed", the reason kept in ``rule``; failure modes (HueManity App. E) are "erratic" for
an ambiguous reply (several conflicting answers), "evasion" for an empty one, none otherwise.
"""

from __future__ import annotations

from plates.tasks.base import Question, Score
from plates.tasks.colorbench import PAPER_NAMES, SceneQuestion, prompt_text
from plates.tasks.mc_scoring import parse_choice

__all__ = ["to_question", "score_reply"]

_FAILURE = {"ambiguous": "erratic", "empty": "evasion"}


def to_question(q: SceneQuestion, *, cot: bool = False, name: str | None = None) -> Question:
    """The common Question for ``q``: ``name`` (default "colorbench-<task>", "-cot" added with ``cot``),
    kind "mc", ``expected`` the correct letter, ``target`` the correct option's text, ``extra`` the scene
    question's target regions, parameters and wording."""
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
    """Judge ``reply`` to a scene question (`plates.tasks.mc_scoring.parse_choice`)."""
    if not question.options:
        raise ValueError(f"question {question.name!r} has no options; a scene question is multiple choice")
    c = parse_choice(reply, question.options)
    correct = c.letter == question.expected
    status = "ok" if c.status == "ok" else "unparsed"
    return Score(c.letter, status, correct, None if c.status == "ok" else _FAILURE.get(c.status),
                 f"{c.status}: {c.rule}")
