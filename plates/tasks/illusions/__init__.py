"""The illusion tasks as `plates.tasks.base.Task` entries (RCID §3.3-4.1; IllusionBench+ App. A).

Each builds its question from the illusion's truth (`plates.tasks.illusions.questions`), the framing taken from the prompt
(``rcid-compare-pixel`` / ``-human``, ``rcid-name-pixel`` / ``-human``): ``expected`` is that framing's key, and
``extra`` keeps both keys (pixel and human answers), the item class (illusion / control / trap), the kind, the
inducer strength and the signed physical difference, so the RCID metrics (Human-like, No-illusion, N/A) and the
point-of-subjective-equality fits read them from the results rows (``truth_json``).

IllusionBench+'s true/false format has three statements per image (`tf_questions`); the item's own seed picks
one, so over a set about one in three statements is true (the paper's set is 57% false).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from plates.tasks.base import Question, Task
from plates.tasks.illusions.questions import (
    mc_question,
    rcid_name_question,
    rcid_question,
    score_choice,
    score_colour_name,
    score_true_false,
    tf_questions,
)

__all__ = ["ILLUSION_TASKS"]


def _framing(template: Any) -> str:
    name = template.name
    if name.endswith("-pixel"):
        return "pixel"
    if name.endswith("-human"):
        return "human"
    raise ValueError(f"prompt {name!r} names no framing; allowed: a name ending in -pixel or -human")


def _facts(subject: Mapping[str, Any]) -> dict[str, Any]:
    stimulus = subject.get("stimulus")
    stats = {} if stimulus is None else dict(stimulus.stats)
    return {"kind": subject.get("kind"), "item_class": subject.get("item_class"),
            "signed_delta_e": subject.get("signed_delta_e2000"), "induced_lighter": subject.get("induced_lighter"),
            "strength": stats.get("strength")}


def _finish(q: Question, template: Any, subject: Mapping[str, Any]) -> Question:
    return replace(q, name=template.name, extra={**_facts(subject), **q.extra})


def compare_question(subject, template, *, seed: int, label_space=None) -> Question:
    """RCID comparison (three options) in the prompt's framing.

    Parameters
    ----------
    subject : mapping
        The illusion's truth (`plates.stimuli.illusions.render`) with the item's facts (``kind``,
        ``item_class``, ``spec_seed``, ``stimulus``...; `plates.tasks.base.subject_of`).
    template : object
        The prompt template; its ``name`` ends in ``-pixel`` or ``-human`` (the framing) and becomes the question's
        name.
    seed : int
        The run's seed.
    label_space : optional
        Unused (every task's question builder takes it).

    Returns
    -------
    plates.tasks.base.Question
        The question, its ``extra`` holding both keys and the item's kind, class, strength and signed CIEDE2000
        difference.

    Raises
    ------
    ValueError
        A template name with no framing, or a truth this question cannot be asked of.

    References
    ----------
    Mao et al. 2025 (RCID), §3.3 and Fig. 1a-b.
    """
    return _finish(rcid_question(subject, _framing(template)), template, subject)


def name_question(subject, template, *, seed: int, label_space=None) -> Question:
    """RCID filter naming (open colour name) of target A in the prompt's framing.

    Parameters
    ----------
    subject : mapping
        The illusion's truth (`plates.stimuli.illusions.render`) with the item's facts (``kind``,
        ``item_class``, ``spec_seed``, ``stimulus``...; `plates.tasks.base.subject_of`).
    template : object
        The prompt template; its ``name`` ends in ``-pixel`` or ``-human`` (the framing) and becomes the question's
        name.
    seed : int
        The run's seed.
    label_space : optional
        Unused (every task's question builder takes it).

    Returns
    -------
    plates.tasks.base.Question
        The question, its ``extra`` holding both keys and the item's kind, class, strength and signed CIEDE2000
        difference.

    Raises
    ------
    ValueError
        A template name with no framing, or a truth this question cannot be asked of.

    References
    ----------
    Mao et al. 2025 (RCID), §3.3 and Fig. 1c.
    """
    return _finish(rcid_name_question(subject, _framing(template), "A"), template, subject)


def tf_question(subject, template, *, seed: int, label_space=None) -> Question:
    """One IllusionBench+ true/false statement, picked by the item's seed and ``seed``.

    Parameters
    ----------
    subject : mapping
        The illusion's truth (`plates.stimuli.illusions.render`) with the item's facts (``kind``,
        ``item_class``, ``spec_seed``, ``stimulus``...; `plates.tasks.base.subject_of`).
    template : object
        The prompt template; its ``name`` becomes the question's name.
    seed : int
        The run's seed, added to the item's ``spec_seed`` to pick.
    label_space : optional
        Unused (every task's question builder takes it).

    Returns
    -------
    plates.tasks.base.Question
        The question, its ``extra`` holding both keys and the item's kind, class, strength and signed CIEDE2000
        difference.

    References
    ----------
    Zhang et al. 2025 (IllusionBench+), App. A1.
    """
    statements = tf_questions(subject)
    pick = (int(subject.get("spec_seed", 0)) + seed) % len(statements)
    return _finish(statements[pick], template, subject)


def choice_question(subject, template, *, seed: int, label_space=None) -> Question:
    """IllusionBench+ four options in Roman numerals, shuffled by the item's seed and ``seed``.

    Parameters
    ----------
    subject : mapping
        The illusion's truth (`plates.stimuli.illusions.render`) with the item's facts (``kind``,
        ``item_class``, ``spec_seed``, ``stimulus``...; `plates.tasks.base.subject_of`).
    template : object
        The prompt template; its ``name`` becomes the question's name.
    seed : int
        The run's seed, added to the item's ``spec_seed`` to pick.
    label_space : optional
        Unused (every task's question builder takes it).

    Returns
    -------
    plates.tasks.base.Question
        The question, its ``extra`` holding both keys and the item's kind, class, strength and signed CIEDE2000
        difference.

    References
    ----------
    Zhang et al. 2025 (IllusionBench+), App. A1.
    """
    return _finish(mc_question(subject, (int(subject.get("spec_seed", 0)) + seed) % 2**63), template, subject)


ILLUSION_TASKS: tuple[Task, ...] = (
    Task("rcid-compare", "illusion", "choice", compare_question, score_choice,
         "RCID §3.3 (Fig. 1a-b) comparison, two framings; metrics §4.1"),
    Task("rcid-name", "illusion", "name", name_question, score_colour_name,
         "RCID §3.3 (Fig. 1c) filter colour naming, two framings"),
    Task("illusionbench-tf", "illusion", "yesno", tf_question, score_true_false,
         "IllusionBench+ App. A1 true/false; yes-bias FP/(FP+FN) App. A2"),
    Task("illusionbench-mc", "illusion", "choice", choice_question, score_choice,
         "IllusionBench+ App. A1 four options (Roman numerals, shuffled)"),
)
