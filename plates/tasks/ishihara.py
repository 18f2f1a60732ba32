"""The plate tasks: the papers' protocols on Ishihara-style plates, as `plates.tasks.base.Task` values.

Each reads the plate's label from its truth (``{"label": "12"}``), renders a prompt with
`plates.tasks.prompts.render_prompt` and judges replies with `plates.tasks.scoring.score`:

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

from collections.abc import Mapping, Sequence
from typing import Any

from plates.tasks.base import Question, Score, Task
from plates.tasks.prompts import PromptTemplate, few_shot_prompts, render_prompt
from plates.tasks.scoring import score

__all__ = ["PLATE_TASKS", "plate_question", "plate_examples", "plate_score"]

FAMILY = "ishihara"


def _label(truth: Mapping[str, Any]) -> str:
    try:
        return str(truth["label"])
    except (KeyError, TypeError):
        raise ValueError(f"a plate task needs the plate's truth {{'label': ...}}, got {truth!r:.80}") from None


def plate_question(truth: Mapping[str, Any], template: PromptTemplate, *, seed: int,
                   label_space: str | None = None) -> Question:
    """The question ``template`` asks about a plate whose label is ``truth["label"]``."""
    return render_prompt(template, _label(truth), seed=seed, label_space=label_space)


def plate_examples(truths: Sequence[Mapping[str, Any]], template: PromptTemplate, *, seed: int,
                   label_space: str | None = None) -> tuple[Question, ...]:
    """Few-shot example questions, one per example plate (ColorBlindnessEval App. B.2, HueManity Table 3)."""
    return few_shot_prompts(template, [_label(t) for t in truths], seed=seed, label_space=label_space)


def plate_score(question: Question, reply: str) -> Score:
    """Judge ``reply`` against ``question`` (`plates.tasks.scoring.score`: one documented decision rule)."""
    return score(question.kind, reply, question.expected, label_space=question.label_space,
                 options=question.options)


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
