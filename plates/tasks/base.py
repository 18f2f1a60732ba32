"""What a task is: which stimuli it asks about, what kind of answer it expects, how a question is made from a
stimulus's truth and a prompt template, and how a reply is judged.

A :class:`Task` is a frozen record of plain functions (as lmms-eval's task folders and colour-science's method
maps): ``question(truth, template, seed=..., label_space=...) -> Question`` and ``score(question, reply) ->
Score``. The runner, the explorer and the quiz all go through these two functions, so adding a task never
touches them. No colours are involved here: questions and replies are text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = ["ANSWER_KINDS", "QUERY_KIND_OF", "Question", "Task", "Score", "pixel_reply", "question_from_json",
           "question_to_json", "subject_of"]

#: What a correct answer is: a text label (a plate's number), yes/no, an option letter, a count, an area share,
#: a colour value, a colour name. Declared once; every task names one.
ANSWER_KINDS = ("label", "yesno", "choice", "count", "proportion", "colour", "name")
#: The query kind (`plates.models.base.QUERY_KINDS`) a backend sees for each answer kind: counts, shares and
#: colour values are asked as options (ColorBench: every task is multiple choice) or openly (names, labels).
QUERY_KIND_OF: Mapping[str, str] = {
    "label": "open", "yesno": "yesno", "choice": "mc", "count": "mc", "proportion": "mc", "colour": "mc",
    "name": "open",
}


@dataclass(frozen=True)
class Score:
    """The verdict on one reply. ``parsed`` is None unless ``parse_status`` is "ok"; ``failure_mode`` is
    None when correct (and for a plain misreading). ``rule`` names the parsing rule that decided;
    ``truncated``: the reply was longer than the readers' cap and only its head and tail were read
    (`plates.tasks.answers.text.MAX_REPLY_CHARS`).

    Parameters
    ----------
    parsed : str or None
        The answer read, in the question's terms.
    parse_status : str
        One of `plates.tasks.answers.text.PARSE_STATUSES`.
    correct : bool
        The verdict.
    failure_mode : str or None
        One of `plates.tasks.answers.text.FAILURE_MODES`, or None.
    rule : str, optional
        The parsing rule that decided.
    truncated : bool, optional
        Only the reply's head and tail were read.
    """

    parsed: str | None
    parse_status: str
    correct: bool
    failure_mode: str | None
    rule: str = ""
    truncated: bool = False


@dataclass(frozen=True)
class Question:
    """A question ready to send about one stimulus, and what it expects.

    ``text``: the prompt text (last user turn). ``kind``: the query kind a backend sees ("open" | "yesno" |
    "mc"). ``expected``: the correct answer as the scorer compares it (the label, "yes"/"no", an option
    letter, a colour name). ``target``: the stimulus's truth the question is about (e.g. the plate's label).
    ``options``: {letter: text} for choices. ``label_space``: the answer space parsing uses ("cbe", "any", ...).
    ``answer_format``: how a correct answer is written (``"Answer: {answer}"``); ``answer_text`` is the correct
    answer written that way (few-shot examples). ``variant``: the stimulus variant the question is meant for.
    ``extra``: task-specific JSON-able facts the scorer or the metrics need (e.g. an illusion's pixel and
    perceptual answers).

    Parameters
    ----------
    name : str
        The prompt template's name.
    kind : str
        "open", "yesno" or "mc".
    text : str
        The prompt text.
    expected : str
        The correct answer as the scorer compares it.
    options : dict of str to str or None, optional
        {letter: text} for choices.
    target : str, optional
        The stimulus's truth the question is about.
    label_space : str, optional
        The answer space parsing uses.
    variant : str, optional
        The stimulus variant.
    cot : bool, optional
        The prompt asks for chain of thought.
    answer_text : str, optional
        The correct answer in ``answer_format``.
    task : str, optional
        The task's name (`plates.tasks.TASKS`).
    answer_kind : str, optional
        One of `ANSWER_KINDS`.
    answer_format : str, optional
        How a correct answer is written (holds ``{answer}``).
    extra : mapping, optional
        Task-specific JSON-able facts.

    Nothing is checked here: the builders (`plates.tasks.prompts.render_prompt`, the tasks) make valid ones.
    """

    name: str
    kind: str
    text: str
    expected: str
    options: dict[str, str] | None = None
    target: str = ""
    label_space: str = "any"
    variant: str = "standard"
    cot: bool = False
    answer_text: str = ""
    task: str = ""
    answer_kind: str = "label"
    answer_format: str = "{answer}"
    extra: Mapping[str, Any] = field(default_factory=dict)


def pixel_reply(question: Question) -> str | None:
    """The reply of an observer that reads the stimulus's pixels, written in the question's answer format; None
    where pixels do not decide the answer (a plate's figure must be read as a shape) or where no option is right.

    An illusion question answers what the renderer measured under the target masks (mean sRGB 0-255 of each
    target, CIEDE2000 and CIELAB L*; ``extra["pixel_answer"]``, `plates.stimuli.illusions.render`): RCID's and
    IllusionBench+'s options through their ``meanings``, RCID's colour names as the pixels' basic colour name,
    IllusionBench+'s true/false statements (they are about the pixels) as ``expected``. A scene question answers
    ``expected``, which the task recomputes on the drawn scene (ColorBench Table 7's tasks on our scenes).
    Whatever framing a question asks in (RCID's "as a human would perceive it"), this is the pixels' answer:
    a ceiling on pixel truth and the zero of every "fooled like people" measure, not a model.

    Parameters
    ----------
    question : Question
        The question; its ``extra`` (``pixel_answer``, ``meanings``, ``paper_task``) decides.

    Returns
    -------
    str or None
        The reply, written with the question's ``answer_format``, or None.

    Examples
    --------
    >>> pixel_reply(Question("rcid-human", "mc", "?", expected="I", options={"I": "L", "II": "R", "III": "="},
    ...     extra={"pixel_answer": "same", "meanings": {"I": "A darker", "II": "B darker", "III": "same"}}))
    'III'
    """
    extra = question.extra
    if "pixel_answer" in extra:
        key = extra["pixel_answer"]
        if "meanings" in extra:
            answer = next((k for k, v in extra["meanings"].items() if v == key), None)
        elif question.answer_kind == "name":
            answer = key
        else:
            answer = question.expected
    elif "paper_task" in extra:
        answer = question.expected or None
    else:
        answer = None
    return None if answer is None else question.answer_format.format(answer=answer)


def question_to_json(question: Question) -> str:
    """``question`` as JSON (every field), so a question asked elsewhere (an exported dataset row, a harness's
    sample) is judged by the same `Task.score` as the runner's: `question_from_json` rebuilds it.

    Parameters
    ----------
    question : Question
        The question; its ``extra`` must be JSON-able.

    Returns
    -------
    str
        JSON with sorted keys.
    """
    return json.dumps(asdict(question), sort_keys=True)


def question_from_json(text: str) -> Question:
    """The `Question` that `question_to_json` wrote; ValueError naming what is wrong otherwise.

    Parameters
    ----------
    text : str
        The JSON text.

    Returns
    -------
    Question
        The question.

    Raises
    ------
    ValueError
        ``text`` is not JSON, or not an object with ``name``, ``kind``, ``text`` and ``expected`` and only
        `Question`'s fields.
    """
    try:
        data = json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"a question must be JSON written by question_to_json; got {str(text)[:60]!r} ({exc})") \
            from None
    allowed = {f.name for f in fields(Question)}
    if not isinstance(data, dict) or not {"name", "kind", "text", "expected"} <= data.keys() \
            or not data.keys() <= allowed:
        raise ValueError(f"a question's JSON must be an object with name, kind, text and expected, and only the "
                         f"fields {', '.join(sorted(allowed))}")
    return Question(**data)


@dataclass(frozen=True)
class Task:
    """One entry of `plates.tasks.TASKS`.

    ``family``: the stimulus family it asks about (`plates.stimuli.STIMULI`). ``answer_kind``: one of
    `ANSWER_KINDS`. ``question(truth, template, *, seed, label_space)`` builds a :class:`Question` from the
    stimulus's truth mapping and a prompt template; ``score(question, reply)`` judges a reply text;
    ``examples(truths, template, *, seed, label_space)`` builds few-shot example questions (optional).
    ``source``: the paper and section it follows. ``extra_families``: other families it also asks about (a
    scene task asks about the scenes' recoloured variants too).

    Parameters
    ----------
    name : str
        The task's name.
    family : str
        The stimulus family it asks about.
    answer_kind : str
        One of `ANSWER_KINDS`.
    question : callable
        ``question(truth, template, *, seed, label_space) -> Question``.
    score : callable
        ``score(question, reply) -> Score``.
    source : str
        The paper and section it follows.
    examples : callable or None, optional
        ``examples(truths, template, *, seed, label_space) -> tuple of Question``, or None.
    extra_families : tuple of str, optional
        Other families it asks about.

    Raises
    ------
    ValueError
        ``answer_kind`` not in `ANSWER_KINDS`.
    """

    name: str
    family: str
    answer_kind: str
    question: Callable[..., Question]
    score: Callable[[Question, str], Score]
    source: str
    examples: Callable[..., tuple[Question, ...]] | None = None
    extra_families: tuple[str, ...] = ()

    @property
    def families(self) -> tuple[str, ...]:
        """Every stimulus family the task asks about (``family`` and ``extra_families``)."""
        return (self.family, *self.extra_families)

    def __post_init__(self) -> None:
        if self.answer_kind not in ANSWER_KINDS:
            raise ValueError(f"task {self.name!r}: answer_kind {self.answer_kind!r} is not allowed; allowed: "
                             f"{', '.join(ANSWER_KINDS)}")


def subject_of(stimulus: Any, question: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a task builds a question from (`Task.question`) for a rendered stimulus of any family: its truth,
    the stimulus itself under ``"stimulus"``, its spec's seed under ``"spec_seed"`` and an item's fixed
    question (a dict, or None) under ``"question"``.

    Parameters
    ----------
    stimulus : object
        A rendered stimulus with ``truth`` (a mapping) and ``spec.seed``.
    question : mapping or None, optional
        An item's fixed question, or None.

    Returns
    -------
    dict
        The truth's entries and ``stimulus``, ``spec_seed``, ``question``.
    """
    return {**stimulus.truth, "stimulus": stimulus, "spec_seed": int(stimulus.spec.seed), "question": question}
