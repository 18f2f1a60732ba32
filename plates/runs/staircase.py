"""``plates staircase``: an adaptive procedure (`plates.analysis.adaptive`, QUEST+ with Psi-marginal stimulus
choice) asks a model about plates whose ΔE2000 it chooses trial by trial, and reports the model's threshold
with a credible interval after tens of queries instead of a full constant-stimuli sweep (issue 15).

Each trial: the procedure names a level (ΔE2000, CIELAB D65 2°); the trial's plate is the base spec with
``delta_e`` set to that level, a label drawn from the prompt's label space and a seed, both derived from
(staircase seed, trial number) through SHA-256; the question is the prompt's (its task's question builder); the
reply is scored by the task; the outcome (correct or not) updates the posterior. Every trial is a results row
(`plates.runs.rows.build_row`) whose ``delta_e`` is the requested level and ``item_id`` is ``trial-NNNN``.

Resume: the run id hashes the staircase (without operational settings) and the engine version. A rerun reads the
run's rows, replays the answered trials in order (`AdaptiveState.replay`: the posterior is rebuilt exactly) and
goes on; a failed request (an error row) is not an answer and updates nothing, so its trial is asked again.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from plates.analysis.adaptive import AdaptiveEstimate, AdaptiveSpec, AdaptiveState
from plates.analysis.psychometric import prompt_guess_rate
from plates.models import make_backend as registry_make
from plates.models.base import Query
from plates.results import ResultsWriter, compact_run, load_results
from plates.runs.experiment import ModelSpec, _model
from plates.runs.rows import Asked, build_row
from plates.stimuli import ENGINE_VERSION
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec, render
from plates.tasks import task_of
from plates.tasks.prompts import build_turns, get_prompt

__all__ = ["Staircase", "StaircaseResult", "load_staircase", "parse_staircase", "run_staircase"]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
TOP_KEYS = ("name", "seed", "prompt", "trials", "min_trials", "ci_width", "low", "high", "out", "stimulus",
            "models")


@dataclass(frozen=True)
class Staircase:
    """A validated staircase: the base plate (``stimulus``: PlateSpec fields; its ``delta_e`` is set per
    trial), the ``prompt`` (a built-in open, yes/no or multiple-choice plate prompt), the ``model``, the level
    range ``low``..``high`` ΔE2000, ``trials`` (most answers), ``ci_width`` (stop once the credible interval is
    narrower, after ``min_trials``), ``seed``, ``out`` folder and an optional ``name``."""

    stimulus: PlateSpec
    prompt: str
    model: ModelSpec
    trials: int = 40
    min_trials: int = 10
    ci_width: float | None = None
    low: float = 0.5
    high: float = 40.0
    seed: int = 0
    out: str = "results/runs/staircase"
    name: str | None = None

    def __post_init__(self) -> None:
        template = get_prompt(self.prompt)
        if task_of(template).family != "ishihara":
            raise ValueError(f"prompt {self.prompt!r} does not ask about plates; allowed: a plate prompt")
        if template.label_space == "any":
            raise ValueError(f"prompt {self.prompt!r} has no label space to draw labels from; allowed: "
                             + ", ".join(n for n, t in _plate_prompts().items() if t.label_space != "any"))
        if not (isinstance(self.trials, int) and 1 <= self.trials <= 10_000):
            raise ValueError(f"trials={self.trials!r} is not allowed; allowed: an integer 1-10000")
        if not 0 < self.low < self.high <= 200:
            raise ValueError(f"low={self.low!r}, high={self.high!r} are not allowed; allowed: 0 < low < high <= 200")

    @property
    def labels(self) -> tuple[str, ...]:
        return LABEL_SPACES[get_prompt(self.prompt).label_space]

    def identity(self) -> dict[str, Any]:
        """What decides the answers (operational settings such as out, concurrency and base URL left out)."""
        return {"stimulus": json.loads(self.stimulus.to_json()), "prompt": self.prompt,
                "model": {"backend": self.model.backend, "model": self.model.model,
                          "max_tokens": self.model.max_tokens, "temperature": self.model.temperature},
                "trials": self.trials, "min_trials": self.min_trials, "ci_width": self.ci_width, "low": self.low,
                "high": self.high, "seed": self.seed, "engine": ENGINE_VERSION}

    @property
    def run_id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:12]
        return f"{(self.name or 'staircase')[:48]}-{digest}"

    def adaptive_spec(self) -> AdaptiveSpec:
        """The procedure: QUEST+ over a logistic with the guess rate of the prompt's kind (yes/no ½, k options
        1/k, open answers 1/|label space|) and a lapse in 0-0.06 (`plates.analysis.adaptive`)."""
        guess = prompt_guess_rate(get_prompt(self.prompt))
        return AdaptiveSpec.for_threshold(guess, low=self.low, high=self.high, max_trials=self.trials,
                                          min_trials=min(self.min_trials, self.trials), ci_width=self.ci_width)

    def trial(self, n: int, level: float) -> PlateSpec:
        """The plate of trial ``n`` at ``level`` ΔE2000: label and seed from SHA-256(seed, n)."""
        digest = hashlib.sha256(f"{self.seed}\x1fstaircase\x1f{n}".encode()).digest()
        label = self.labels[int.from_bytes(digest[:8], "big") % len(self.labels)]
        return self.stimulus.replace(text=label, delta_e=float(level), seed=int.from_bytes(digest[8:16], "big") >> 1)


def _plate_prompts() -> Mapping[str, Any]:
    from plates.tasks.prompts import PROMPTS

    return {n: t for n, t in PROMPTS.items() if task_of(t).family == "ishihara"}


@dataclass
class StaircaseResult:
    """What a staircase did: its estimate, the answers used, the queries made (errors included) now and
    before, the wall time of this call, and where its rows are."""

    run_id: str
    out: str
    estimate: AdaptiveEstimate
    answered: int
    queries: int
    errors: int
    seconds: float
    history: list[tuple[float, int]] = field(default_factory=list)


def _existing(out: Path, run_id: str) -> list[dict]:
    files = sorted(out.glob(f"{run_id}-*.parquet")) if out.is_dir() else []
    if not files:
        return []
    frame = load_results(files).frame
    frame = frame[frame["run_id"] == run_id].sort_values("item_id")
    return frame[["item_id", "delta_e", "correct", "parse_status"]].to_dict("records")


def run_staircase(stair: Staircase, *, make_backend: Callable[..., Any] | None = None,
                  on_trial: Callable[[int, float, dict], None] | None = None) -> StaircaseResult:
    """Run (or continue) ``stair`` until a stopping rule holds; rows are written as they come (one part per
    trial, compacted at the end). ``on_trial(n, level, row)`` is called after each trial (progress)."""
    t0 = time.monotonic()
    out = Path(stair.out)
    out.mkdir(parents=True, exist_ok=True)
    run_id = stair.run_id
    rows = _existing(out, run_id)
    history = [(float(r["delta_e"]), int(bool(r["correct"]))) for r in rows if r["parse_status"] != "error"
               and r["correct"] is not None and not (isinstance(r["correct"], float) and np.isnan(r["correct"]))]
    state = AdaptiveState.replay(stair.adaptive_spec(), history)
    n, errors, queries = len(rows), 0, len(rows)
    template = get_prompt(stair.prompt)
    task = task_of(template)
    m = stair.model
    backend = (make_backend or registry_make)(m.backend, model=m.model, **m.options)
    writer = ResultsWriter(out, run_id, flush_rows=1, flush_seconds=1.0)
    try:
        while not state.done:
            level = state.next_level()
            spec = stair.trial(n, level)
            plate = render(spec)
            question = task.question(plate.truth, template, seed=stair.seed + n)
            image = plate.variant(template.variant)
            query = Query(build_turns(question, image), kind=question.kind, max_tokens=m.max_tokens,
                          temperature=m.temperature, answer_kind=question.answer_kind,
                          label_space=question.label_space, answer_format=question.answer_format)
            (_, reply), = list(backend.ask([query]))
            item_id = f"trial-{n:04d}"
            asked = Asked(run_id=run_id, row_key=hashlib.sha256(f"{run_id}|{item_id}".encode()).hexdigest()[:20],
                          item_id=item_id, dataset="staircase", model=m.model, backend=m.backend,
                          question=question, spec_json=spec.to_json(), family="ishihara", variant=template.variant,
                          colour_set=spec.palette, delta_e=float(level), font=spec.font, size=spec.size)
            row = build_row(asked, reply)
            writer.add(row)
            writer.flush()
            n += 1
            queries += 1
            if row["parse_status"] == "error":
                errors += 1
                if errors >= 10:
                    raise ValueError(f"the model failed 10 times ({row['error']}); the trials so far are kept in "
                                     f"{out}; fix the cause and rerun to continue")
            elif row["correct"] is not None:
                state = state.update(level, int(bool(row["correct"])))
                history.append((float(level), int(bool(row["correct"]))))
            if on_trial is not None:
                on_trial(n, level, row)
    finally:
        writer.close()
        backend.close()
    compact_run(out, run_id)
    return StaircaseResult(run_id, str(out), state.estimate(), len(history), queries, errors,
                           time.monotonic() - t0, history)


def parse_staircase(data: Mapping[str, Any], *, base_dir: str | Path | None = None) -> Staircase:
    """A staircase from a parsed TOML document (``plates staircase FILE``). Errors name the key and what is
    allowed."""
    bad = sorted(set(data) - set(TOP_KEYS))
    if bad:
        raise ValueError(f"staircase: unknown key(s) {', '.join(bad)}; allowed: {', '.join(TOP_KEYS)}")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not _NAME_RE.match(name)):
        raise ValueError(f"name: {name!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-'")
    stim = dict(data.get("stimulus", {}))
    stim.setdefault("text", "12")  # replaced per trial
    try:
        spec = PlateSpec(**stim)
    except TypeError as exc:
        raise ValueError(f"stimulus: {exc}; allowed: the fields of plates.stimuli.ishihara.PlateSpec") from None
    models = data.get("models")
    if isinstance(models, Mapping):
        models = [models]
    if not isinstance(models, list) or len(models) != 1:
        raise ValueError("models: give exactly one [[models]] table (a staircase measures one model)")
    if "prompt" not in data:
        raise ValueError(f"prompt: missing; allowed: {', '.join(_plate_prompts())}")
    out = str(data.get("out", "results/runs/staircase"))
    if base_dir is not None and not Path(out).is_absolute():
        out = str(Path(base_dir) / out)
    return Staircase(stimulus=spec, prompt=data["prompt"], model=_model("models[0]", models[0]),
                     trials=data.get("trials", 40), min_trials=data.get("min_trials", 10),
                     ci_width=data.get("ci_width"), low=float(data.get("low", 0.5)),
                     high=float(data.get("high", 40.0)), seed=data.get("seed", 0), out=out, name=name)


def load_staircase(path: str | Path) -> Staircase:
    """Read and validate a staircase TOML file; paths resolve from its folder."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"staircase file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"staircase file {str(path)!r} is not valid TOML: {exc}") from None
    try:
        return parse_staircase(data, base_dir=path.parent)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
