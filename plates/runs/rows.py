"""The one builder of a results row (`plates.results.schema.COLUMNS`), used by the runner, the explorer and the
quiz alike: what was asked (:class:`Asked`) plus the backend's `Reply`, judged by the question's task.

Scoring inputs travel as the typed `plates.tasks.Question`, never through the row dict. Secrets given in
``secrets`` are redacted from the reply and the error text (`plates.secrets.redact`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from plates import __version__
from plates.models.base import Reply
from plates.results.schema import MEASURED_COLUMNS, PARTICIPANT_PREFIX, SCHEMA, VIEW_COLUMNS, colour_set_of
from plates.runs.judge import rules_columns
from plates.secrets import redact
from plates.stimuli import ENGINE_VERSION
from plates.tasks import Question, get_task
from plates.tasks.answers import RULES_VERSION

__all__ = ["PARTICIPANT_PREFIX", "Asked", "build_row"]


@dataclass(frozen=True)
class Asked:
    """Everything a row records besides the reply: identities, the question, the stimulus and the condition.

    Attributes
    ----------
    run_id, row_key, item_id, dataset, model, backend : str
        The row's identities.
    question : Question
        What was asked (its task scores the reply).
    spec_json : str
        The stimulus's tagged spec JSON (regenerates the image).
    family : str
        Its stimulus family.
    variant : str
        The image variant.
    group : str or None
        The family's grouping of the item: a plate's colour set, an illusion's kind, a scene's task (the row's
        ``colour_set`` too where it is a plate, `plates.results.schema.colour_set_of`).
    delta_e : float or None
        The stimulus's CIEDE2000 figure where it has one.
    font : str or None
        A plate's font.
    size : int or None
        The side in px of the image the model received.
    grayscale : bool
        The image was shown in grey.
    hue_shift : float
        Hue rotation, degrees.
    cvd, cvd_severity : str, float
        The colour-vision-deficiency view and its severity 0-1 (0 when ``cvd`` is "none").
    shots : int
        Few-shot examples before the question.
    text_only : bool
        The image was replaced by a black one (ColorBench App. J).
    protocol : str or None
        The paper protocol of the sampling settings (`plates.runs.protocols`); None for ours.
    measured : mapping
        The ΔE2000 the stimulus draws, as results columns (`DrawnDeltaE.columns`; empty for others).
    view : mapping
        The image as a model family sees it (`plates.models.views.measure.measure_view`; empty: none).
    run_name : str or None
        The run's name as charts show it; None: the loaders read the part's folder name.
    """

    run_id: str
    row_key: str
    item_id: str
    dataset: str
    model: str
    backend: str
    question: Question
    spec_json: str
    family: str
    variant: str = "standard"
    group: str | None = None
    delta_e: float | None = None
    font: str | None = None
    size: int | None = None
    grayscale: bool = False
    hue_shift: float = 0.0
    cvd: str = "none"
    cvd_severity: float = 0.0
    shots: int = 0
    text_only: bool = False
    protocol: str | None = None
    measured: Mapping[str, float | None] = field(default_factory=dict)
    view: Mapping[str, Any] = field(default_factory=dict)
    #: the run's name as charts show it (`plates.runs.experiment.Experiment.display_name`); None: the loaders
    #: read the part's folder name
    run_name: str | None = None


def build_row(asked: Asked, reply: Reply, secrets: Sequence[str | None] = ()) -> dict[str, Any]:
    """The results row for ``asked`` and its ``reply``.

    A failed request: reply/parsed/correct null, parse_status "error", the error message kept (redacted). A
    declined query (``Reply.unsupported``): parse_status "unsupported", correct null. Otherwise the question's
    task scores the (redacted) reply; the row records the rules' version (``rules_version``) and whether the
    reply was cut to the readers' cap before it was read (``reply_truncated``; null when nothing was read),
    and that the rules decided (``rules_*`` columns, ``decided_by`` "rules": `plates.runs.judge.rules_columns`).
    The reply is stored whole: `plates rescore` reads it again.

    Parameters
    ----------
    asked : Asked
        What the row records besides the reply.
    reply : Reply
        The backend's answer.
    secrets : sequence of str or None, optional
        Keys redacted from the reply and the error.

    Returns
    -------
    dict
        Every results column (`plates.results.schema.COLUMNS`), null where the row has none.
    """
    q = asked.question
    row: dict[str, Any] = {
        "run_id": asked.run_id, "run_name": asked.run_name, "item_id": asked.item_id, "model": asked.model, "backend": asked.backend,
        "dataset": asked.dataset, "task": q.task, "target": q.target, "expected": q.expected,
        "prompt_name": q.name, "prompt_text": q.text,
        "options_json": json.dumps(q.options) if q.options else None, "variant": asked.variant,
        "group": asked.group, "colour_set": colour_set_of(asked.family, asked.group),
        "delta_e": asked.delta_e, "font": asked.font, "size": asked.size,
        "grayscale": bool(asked.grayscale), "hue_shift": float(asked.hue_shift), "cvd": asked.cvd,
        "cvd_severity": float(asked.cvd_severity) if asked.cvd != "none" else 0.0, "shots": int(asked.shots),
        "spec_json": asked.spec_json, "plates_version": __version__, "family": asked.family,
        "engine_version": ENGINE_VERSION, "row_key": asked.row_key,
        "truth_json": json.dumps(dict(q.extra), sort_keys=True, default=str) if q.extra else None,
        "text_only": bool(asked.text_only), "protocol": asked.protocol,
        **{c: asked.measured.get(c) for c in MEASURED_COLUMNS},
        **{c: asked.view.get(c) for c in VIEW_COLUMNS},
        "latency_s": float(reply.latency_s), "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens, "attempts": int(reply.attempts),
        "generation_json": redact(reply.settings_json, secrets), "model_revision": reply.revision,
        "timestamp": datetime.now(UTC), "rules_version": RULES_VERSION, "reply_truncated": None,
        "label_space": q.label_space, "rescored_from": None,
        "harness": None, "harness_correct": None,  # set only on rows imported from a harness's log
    }
    if reply.unsupported:
        row.update(reply=redact(reply.text, secrets), parsed=None, parse_status="unsupported", correct=None,
                   failure_mode=None, error=redact(reply.error, secrets))
    elif reply.text is None or reply.error is not None:
        row.update(reply=None, parsed=None, parse_status="error", correct=None, failure_mode=None,
                   error=redact(reply.error, secrets) or "no reply text")
    else:
        text = redact(reply.text, secrets)
        s = get_task(q.task).score(q, text)
        row.update(reply=text, parsed=s.parsed, parse_status=s.parse_status, correct=bool(s.correct),
                   failure_mode=s.failure_mode, error=None, reply_truncated=bool(s.truncated))
    row.update(rules_columns(row))  # the rules decided; a judge (plates.runs.judge) may read it again
    for column in SCHEMA.names:  # every column of the one schema, null where this kind of row has no value
        row.setdefault(column, None)  # (the judge's, an ellipse trial's: filled by whoever asks for them)
    return row
