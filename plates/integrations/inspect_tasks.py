"""inspect_ai tasks over an exported set (`plates export hf`): one ``@task`` per paper protocol.

    plates export hf --dataset colorblindnesseval --prompt cbe-open --out /data/cbe-open
    export PLATES_BASE_URL=http://127.0.0.1:8000/v1 PLATES_API_KEY=unused   # any OpenAI-compatible server
    inspect eval plates/integrations/inspect_tasks.py@colorblindnesseval -T data=/data/cbe-open \\
        --model openai-api/plates/baseline-cnn
    inspect view                                  # each sample's image, question, reply and verdict

Each exported row becomes a `Sample`: one user message with the PNG (a ``data:image/png;base64`` URI of the
exported bytes, so the model gets the pixels `plates run` sends) before the question text, as
`plates.models.openai_compat` orders them; ``target`` is the expected answer, and the row's identity
(item id, prompt, condition, ``question_json``) rides in the sample's metadata. The scorer is the task's own
`plates.tasks.base.Task.score` on the rebuilt `plates.tasks.base.Question`: the verdict is exactly
`plates run`'s, and its parse status, failure mode and rule stay in the `Score`'s metadata. Metrics: accuracy
and its standard error. Generation settings are the export's (greedy: temperature 0, the protocol's token
limit).

inspect_ai caps ``fsspec`` below this project's pin: install it in its own environment (``pip install
inspect_ai numpy pillow scipy pyarrow`` and this checkout on ``PYTHONPATH``, or ``pip install --no-deps
plates``). This module imports only `plates.tasks` (no UI, no torch) besides inspect_ai and pyarrow.
Paths given with ``-T`` must be absolute: inspect runs a task file in its own folder.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

from plates.integrations.exported import read_export
from plates.tasks import get_task, question_from_json
from plates.tasks.prompts import PROMPTS, paper_of

#: Sample metadata keys copied from each exported row (what `plates import inspect` maps back).
ROW_KEYS = ("sample_id", "item_id", "dataset", "prompt_name", "task", "config", "question_json", "expected",
            "image_size", "grayscale", "hue_shift", "cvd", "cvd_severity", "text_only", "asked_variant",
            "spec_json", "group", "colour_set", "delta_e", "variant", "font", "label", "delta_e_target",
            "delta_e_drawn_min", "delta_e_drawn_p05", "delta_e_drawn_median", "delta_e_drawn_p95")
#: Task (paper protocol) -> the paper its prompts name (`plates.tasks.prompts.paper_of`).
PROTOCOL_TITLES = {"colorblindnesseval": "ColorBlindnessEval", "huemanity": "HueManity", "colorbench": "ColorBench",
          "rcid": "RCID", "illusionbench": "IllusionBench+"}


def read_rows(data: str, config: str | None = None) -> list[dict[str, Any]]:
    """The rows (images included) of an exported folder (every config, or ``config``), in shard order."""
    if not Path(data).is_absolute():
        raise ValueError(f"data={data!r} must be an absolute path (inspect runs a task in its own folder)")
    return [r for rows in read_export(data, config, images=True).values() for r in rows]


def to_sample(row: dict[str, Any]) -> Sample:
    """One exported row as an inspect `Sample` (image first, then the question, as `plates run` sends them)."""
    uri = "data:image/png;base64," + base64.b64encode(row["image"]["bytes"]).decode("ascii")
    options = json.loads(row["options_json"]) if row.get("options_json") else None
    return Sample(
        id=row["sample_id"], target=row["expected"], choices=list(options.values()) if options else None,
        input=[ChatMessageUser(content=[ContentImage(image=uri), ContentText(text=row["question"])])],
        metadata={k: row.get(k) for k in ROW_KEYS},
    )


@scorer(metrics=[accuracy(), stderr()])
def plates_scorer():
    """The question's own task scorer (`plates.tasks.get_task(task).score`) on the model's completion."""
    async def score(state: TaskState, target: Target) -> Score:
        question = question_from_json(state.metadata["question_json"])
        verdict = get_task(question.task).score(question, state.output.completion)
        return Score(
            value=CORRECT if verdict.correct else INCORRECT, answer=verdict.parsed,
            explanation=f"{verdict.parse_status} ({verdict.rule or 'no rule'}); expected {question.expected!r}",
            metadata={"parse_status": verdict.parse_status, "failure_mode": verdict.failure_mode,
                      "rule": verdict.rule, "correct": bool(verdict.correct)},
        )
    return score


def _task(data: str, config: str | None, paper: str | None) -> Task:
    rows = read_rows(data, config)
    if paper is not None:
        wanted = PROTOCOL_TITLES[paper]
        other = sorted({r["prompt_name"] for r in rows
                        if r["prompt_name"] not in PROMPTS or paper_of(PROMPTS[r["prompt_name"]]) != wanted})
        if other:
            raise ValueError(f"{data!r} holds prompts of another protocol than {wanted}: {', '.join(other)}; "
                             f"allowed: that protocol's prompts, or the `plates` task for any")
    first = rows[0]
    return Task(dataset=MemoryDataset([to_sample(r) for r in rows], name=Path(data).name), solver=generate(),
                scorer=plates_scorer(), name=paper or "plates",
                config=GenerateConfig(temperature=float(first["temperature"]), max_tokens=int(first["max_tokens"])),
                metadata={"plates_data": str(data), "plates_config": config})


@task
def colorblindnesseval(data: str, config: str | None = None) -> Task:
    """ColorBlindnessEval (Ling et al.) §3.1, App. F: open and yes/no questions on its plates."""
    return _task(data, config, "colorblindnesseval")


@task
def huemanity(data: str, config: str | None = None) -> Task:
    """HueManity §4: number and text recognition; scoring App. B.2."""
    return _task(data, config, "huemanity")


@task
def colorbench(data: str, config: str | None = None) -> Task:
    """ColorBench (Liang et al.) App. F instruction prompts, Table 7 questions (multiple choice)."""
    return _task(data, config, "colorbench")


@task
def rcid(data: str, config: str | None = None) -> Task:
    """RCID (Mao et al.) §3.3: colour illusions asked by pixel value or by human perception."""
    return _task(data, config, "rcid")


@task
def illusionbench(data: str, config: str | None = None) -> Task:
    """IllusionBench+ App. A1: true/false and multiple-choice questions about illusions."""
    return _task(data, config, "illusionbench")


@task
def plates(data: str, config: str | None = None) -> Task:
    """Any exported set, whatever its prompts (your own included), scored by each row's task."""
    return _task(data, config, None)
