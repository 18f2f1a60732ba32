"""``plates staircase``: an adaptive procedure (`plates.analysis.adaptive`, QUEST+ with Psi-marginal stimulus
choice) asks a model about stimuli whose difficulty it chooses trial by trial, and reports an estimate with a
credible interval after tens of queries instead of a full constant-stimuli sweep. Two measurements:

* **plates** (a plate prompt: open label, yes/no or multiple choice): the ΔE2000 **threshold** (CIEDE2000,
  CIELAB D65 2°) between the number's dots and the background's, where the psychometric function is halfway
  between the prompt's guess rate and its ceiling. Each trial's plate is the base `PlateSpec` at the level, a
  label drawn from the prompt's label space and a seed; with ``directions = "distributed"`` (default) its
  background lies along a CIELAB direction drawn per trial (`plates.stimuli.ishihara.directions`: within 0.05
  ΔE2000 of the level as drawn in 8 bits; the row's ``delta_e`` is that drawn value and ``spec_json`` holds
  the direction), with ``"palette"`` on the palette's own line (one 8-bit colour per level: a threshold of
  that colour as much as of ΔE2000). The outcome is the task's verdict (correct or not).
* **illusions** (``rcid-compare-pixel`` / ``rcid-compare-human``: RCID §3.3's three options): the **point of
  subjective equality**, the signed physical difference (`IllusionSpec.delta_e`, CIEDE2000 with a sign: + = A
  lighter, i.e. B darker) at which targets A and B look equal. Each trial's image is the base `IllusionSpec`
  with ``delta_e`` set to the level and a seed (inducer context, layout and swap stay fixed); the outcome is
  what the answer claims (`plates.analysis.pse`: +1 "B darker", −1 "A darker", 0 "same"), whatever the framing.
  The illusion's magnitude is −PSE in the direction of the induced target (see `magnitude_table`). The level
  used is the ΔE2000 the 8-bit image draws (``truth["signed_delta_e2000"]``, within 0.5 of the request).

Labels and seeds derive from (staircase seed, trial number) through SHA-256. Every trial is a results row
(`plates.runs.rows.build_row`) whose ``delta_e`` is the level (signed for illusions) and ``item_id`` is
``trial-NNNN``.

Resume: the run id hashes the staircase (without operational settings) and the engine version. A rerun reads the
run's rows, replays the answered trials in order (`AdaptiveState.replay`: the posterior is rebuilt exactly) and
goes on. A failed request (an error row), a declined query and, for illusions, a reply that claims none of the
three answers are not answers: they update nothing and the procedure asks again; ten in a row stop the run with
an error (the rows are kept).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from plates.analysis.adaptive import AdaptiveEstimate, AdaptiveSpec, AdaptiveState
from plates.analysis.psychometric import prompt_guess_rate
from plates.models import make_backend as registry_make
from plates.results import ResultsWriter, compact_run, load_results
from plates.runs.experiment import ModelSpec, parse_model
from plates.runs.rows import Asked, build_row
from plates.stimuli import ENGINE_VERSION, Stimulus, render
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.ishihara.directions import DIRECTION_MODES, drawn_delta_e, with_direction
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec
from plates.tasks import Question, subject_of, task_of
from plates.tasks.prompts import PROMPTS, get_prompt, query_for
from plates.toml_files import read_toml
from plates.validation import check_keys, check_number

__all__ = ["MEASURES", "PSE_CODES", "Presented", "Staircase", "StaircaseResult", "load_staircase",
           "parse_staircase", "run_staircase", "staircase_prompts"]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
TOP_KEYS = ("name", "seed", "prompt", "trials", "min_trials", "ci_width", "low", "high", "out", "stimulus",
            "models", "directions")
#: What a staircase measures per stimulus family: (spec type, measure, default level range).
MEASURES: Mapping[str, tuple[type, str, tuple[float, float]]] = {
    "ishihara": (PlateSpec, "threshold", (0.5, 40.0)),
    "illusion": (IllusionSpec, "pse", (-15.0, 15.0)),
}
#: The answer codes of the comparison answers (`plates.tasks.illusions.questions.MEANINGS`, `plates.analysis.pse`).
PSE_CODES: Mapping[str, int] = {"A darker": -1, "same": 0, "B darker": 1}
_PSE_TASKS = ("rcid-compare",)
#: Levels closer to 0 than this become 0 on illusions: 8-bit targets cannot differ by less (about 0.4-0.7).
_PSE_ZERO = 0.5
_MAX_FAILURES = 10


def staircase_prompts() -> dict[str, str]:
    """The prompts a staircase can use, with the family each measures: plate prompts with a label space
    (threshold) and the RCID comparison prompts (PSE)."""
    out = {}
    for name, t in PROMPTS.items():
        task = task_of(t)
        if task.family == "ishihara" and t.label_space != "any":
            out[name] = "ishihara"
        elif task.family == "illusion" and task.name in _PSE_TASKS:
            out[name] = "illusion"
    return out


@dataclass(frozen=True)
class Presented:
    """One trial as shown: its number, the level the procedure asked for, the spec drawn, the rendered stimulus,
    the question and the image sent (the prompt's variant, PIL RGB, sRGB 0-255). ``level_drawn``: the level the
    image has (plates: the 8-bit ΔE2000 drawn with distributed directions, else the request; illusions: the
    8-bit image's signed ΔE2000).

    Attributes
    ----------
    number : int
        The trial's number.
    level : float
        The level the procedure asked for (ΔE2000; signed for illusions).
    spec : PlateSpec or IllusionSpec
        The spec drawn.
    stimulus : Stimulus
        The rendered stimulus.
    question : Question
        The question asked.
    image : PIL.Image.Image
        The image sent, RGB, sRGB 0-255.
    level_drawn : float
        The level the 8-bit image has.
    """

    number: int
    level: float
    spec: Any
    stimulus: Stimulus
    question: Question
    image: Image.Image
    level_drawn: float


@dataclass(frozen=True)
class Staircase:
    """A validated staircase: the base stimulus (``stimulus``: a `PlateSpec` for a plate prompt, an `IllusionSpec`
    for an RCID comparison prompt; its ``delta_e`` is set per trial), the ``prompt``, the ``model``, the level
    range ``low``..``high`` (ΔE2000; signed for illusions; None = the family's default, `MEASURES`),
    ``trials`` (most answers), ``ci_width`` (stop once the credible interval is narrower, after
    ``min_trials``), ``seed``, ``out`` folder, an optional ``name`` and, for plates, ``directions``
    ("distributed" or "palette": how each trial's background is drawn, module docstring).

    Parameters
    ----------
    stimulus : PlateSpec or IllusionSpec
        The base stimulus (its ``delta_e`` is set per trial).
    prompt : str
        A prompt that can drive a staircase (`staircase_prompts`).
    model : ModelSpec
        The model measured.
    trials : int, optional
        The most answers.
    min_trials : int, optional
        Answers before ``ci_width`` may stop it.
    ci_width : float or None, optional
        Stop once the credible interval is narrower (ΔE2000).
    low, high : float or None, optional
        The level range, ΔE2000 (signed for illusions); None: the family's default (`MEASURES`).
    seed : int, optional
        Seeds every trial's draw.
    out : str, optional
        The results folder.
    name : str or None, optional
        The run's name in its id.
    directions : str, optional
        "distributed" or "palette" (plates): how each trial's background is drawn.

    Raises
    ------
    ValueError
        For an unknown ``directions`` or ``prompt``, a prompt that cannot drive a staircase, a stimulus of
        another family than the prompt asks about, or another field out of range (the message names it).
    """

    stimulus: Any
    prompt: str
    model: ModelSpec
    trials: int = 40
    min_trials: int = 10
    ci_width: float | None = None
    low: float | None = None
    high: float | None = None
    seed: int = 0
    out: str = "results/runs/staircase"
    name: str | None = None
    directions: str = "distributed"

    def __post_init__(self) -> None:
        if self.directions not in DIRECTION_MODES:
            raise ValueError(f"directions={self.directions!r} is not known; allowed: {', '.join(DIRECTION_MODES)}")
        prompts = staircase_prompts()
        if self.prompt not in prompts:
            get_prompt(self.prompt)  # an unknown name: ValueError listing the prompts
            raise ValueError(f"prompt {self.prompt!r} cannot drive a staircase (a plate prompt needs a label space; "
                             f"an illusion prompt must be an RCID comparison); allowed: {', '.join(prompts)}")
        spec_type, _, (low, high) = MEASURES[self.family]
        if type(self.stimulus) is not spec_type:
            raise ValueError(f"prompt {self.prompt!r} asks about {self.family} stimuli: stimulus must be a "
                             f"{spec_type.__name__}, got {type(self.stimulus).__name__}")
        if self.family == "illusion" and self.stimulus.kind == "rcid-filter":
            raise ValueError("kind 'rcid-filter' is asked for colour names, not compared; allowed: the other "
                             "illusion kinds")
        object.__setattr__(self, "low", float(low if self.low is None else self.low))
        object.__setattr__(self, "high", float(high if self.high is None else self.high))
        if not (isinstance(self.trials, int) and 1 <= self.trials <= 10_000):
            raise ValueError(f"trials={self.trials!r} is not allowed; allowed: an integer 1-10000")
        if not (isinstance(self.min_trials, int) and self.min_trials >= 0):
            raise ValueError(f"min_trials={self.min_trials!r} is not allowed; allowed: an integer >= 0")
        if not (isinstance(self.seed, int) and 0 <= self.seed < 2**63):
            raise ValueError(f"seed={self.seed!r} is not allowed; allowed: an integer 0 <= seed < 2**63")
        if self.measure == "threshold" and not 0 < self.low < self.high <= 200:
            raise ValueError(f"low={self.low!r}, high={self.high!r} are not allowed; allowed: 0 < low < high <= 200")
        if self.measure == "pse":
            if not -100 <= self.low < self.high <= 100:
                raise ValueError(f"low={self.low!r}, high={self.high!r} are not allowed; allowed: "
                                 "-100 <= low < high <= 100 (signed ΔE2000, + = A lighter)")
            for name in ("low", "high"):  # an unreachable difference fails now, naming the reachable range
                try:
                    self.stimulus.replace(delta_e=getattr(self, name))
                except ValueError as exc:
                    raise ValueError(f"{name}={getattr(self, name)!r}: {exc}") from None

    @property
    def family(self) -> str:
        """The stimulus family the prompt asks about: "ishihara" or "illusion" (the prompt was checked against
        `staircase_prompts` when the staircase was built)."""
        return task_of(get_prompt(self.prompt)).family

    @property
    def measure(self) -> str:
        """"threshold" (plates) or "pse" (illusions)."""
        return MEASURES[self.family][1]

    @property
    def labels(self) -> tuple[str, ...]:
        """The label space trial labels are drawn from (plates; empty for illusions)."""
        return LABEL_SPACES[get_prompt(self.prompt).label_space] if self.family == "ishihara" else ()

    def identity(self) -> dict[str, Any]:
        """What decides the answers (operational settings such as out, concurrency and base URL left out)."""
        return {"stimulus": json.loads(self.stimulus.to_json()), "prompt": self.prompt,
                "model": {"backend": self.model.backend, "model": self.model.model,
                          "max_tokens": self.model.max_tokens, "temperature": self.model.temperature},
                "trials": self.trials, "min_trials": self.min_trials, "ci_width": self.ci_width, "low": self.low,
                "high": self.high, "seed": self.seed, "engine": ENGINE_VERSION,
                **({"directions": self.directions} if self.family == "ishihara" else {})}

    @property
    def run_id(self) -> str:
        """``<name or staircase>-<12 hex>``, from the settings that decide the rows."""
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:12]
        return f"{(self.name or 'staircase')[:48]}-{digest}"

    def adaptive_spec(self) -> AdaptiveSpec:
        """The procedure. Plates: QUEST+ over a logistic with the guess rate of the prompt's kind (yes/no ½,
        k options 1/k, open answers 1/|label space|) and a lapse in 0-0.06. Illusions: the three-answer
        comparison model of `plates.analysis.pse` over ``low``..``high``, candidates within 0.5 of 0 set to 0
        (8-bit targets cannot differ by less)."""
        common = dict(max_trials=self.trials, min_trials=min(self.min_trials, self.trials), ci_width=self.ci_width)
        if self.measure == "threshold":
            guess = prompt_guess_rate(get_prompt(self.prompt))
            return AdaptiveSpec.for_threshold(guess, low=self.low, high=self.high, **common)
        spec = AdaptiveSpec.for_pse(low=self.low, high=self.high, alternatives=3, **common)
        snapped = sorted({0.0 if abs(c) < _PSE_ZERO else round(float(c), 9) for c in spec.candidates})
        return spec.replace(candidates=tuple(snapped), top_k=min(spec.top_k, len(snapped)))

    def trial(self, n: int, level: float) -> Any:
        """The spec of trial ``n`` at ``level``: seed (and, for plates, the label) from SHA-256(seed, n). An
        illusion level within 0.5 of 0 draws identical targets (0).

        Parameters
        ----------
        n : int
            The trial's number.
        level : float
            ΔE2000 (signed for illusions).

        Returns
        -------
        PlateSpec or IllusionSpec
            The trial's spec.
        """
        digest = hashlib.sha256(f"{self.seed}\x1fstaircase\x1f{n}".encode()).digest()
        seed = int.from_bytes(digest[8:16], "big") >> 1
        if self.family == "illusion":  # closer to 0 than 8-bit targets can differ: identical targets
            return self.stimulus.replace(delta_e=0.0 if abs(level) < _PSE_ZERO else float(level), seed=seed)
        label = self.labels[int.from_bytes(digest[:8], "big") % len(self.labels)]
        if self.directions == "distributed":
            return with_direction(self.stimulus.replace(text=label, seed=seed), float(level), seed)
        return self.stimulus.replace(text=label, delta_e=float(level), seed=seed)

    def present(self, n: int, level: float) -> Presented:
        """Trial ``n`` at ``level``: the spec, its rendering, the prompt's question about it and the image.

        Parameters
        ----------
        n : int
            The trial's number.
        level : float
            ΔE2000 (signed for illusions).

        Returns
        -------
        Presented
            The trial as shown.
        """
        spec = self.trial(n, level)
        stim = render(spec)
        template = get_prompt(self.prompt)
        subject = stim.truth if self.family == "ishihara" else subject_of(stim)
        question = task_of(template).question(subject, template, seed=self.seed + n)
        if self.family == "illusion":
            drawn = float(stim.truth["signed_delta_e2000"])
        else:
            drawn = drawn_delta_e(spec) if self.directions == "distributed" else float(level)
        return Presented(n, float(level), spec, stim, question, stim.variant(template.variant), drawn)

    def asked(self, shown: Presented, *, run_id: str, dataset: str, model: str, backend: str) -> Asked:
        """What the row of ``shown`` records besides the reply (`plates.runs.rows.Asked`): ``delta_e`` is the
        level drawn, ``item_id`` ``trial-NNNN``.

        Parameters
        ----------
        shown : Presented
            The trial.
        run_id, dataset, model, backend : str
            The row's identities.

        Returns
        -------
        Asked
            The row's fields.
        """
        item_id = f"trial-{shown.number:04d}"
        spec = shown.spec
        return Asked(run_id=run_id, row_key=hashlib.sha256(f"{run_id}|{item_id}".encode()).hexdigest()[:20],
                     item_id=item_id, dataset=dataset, model=model, backend=backend, question=shown.question,
                     spec_json=spec.to_json(), family=self.family, variant=get_prompt(self.prompt).variant,
                     group=getattr(spec, "palette", None) or getattr(spec, "kind", None),
                     delta_e=shown.level_drawn, font=getattr(spec, "font", None), size=int(shown.image.size[0]))

    def outcome(self, row: Mapping[str, Any]) -> int | None:
        """The answer code a results row gives the procedure, or None when it is not an answer (a failed
        request, a declined query; for illusions also a reply claiming none of the three answers). Plates: 1
        correct, 0 wrong (an unparsed reply is wrong, as the task scores it). Illusions: `PSE_CODES` of what
        the chosen option means (its ``meanings`` entry in ``truth_json``).

        Parameters
        ----------
        row : mapping
            A results row of this staircase.

        Returns
        -------
        int or None
            The answer code, or None.
        """
        if row.get("parse_status") in ("error", "unsupported"):
            return None
        if self.measure == "threshold":
            correct = row.get("correct")
            if correct is None or (isinstance(correct, float) and math.isnan(correct)):
                return None
            return int(bool(correct))
        parsed = row.get("parsed")
        if not isinstance(parsed, str):
            return None
        meanings = json.loads(row.get("truth_json") or "{}").get("meanings", {})
        return PSE_CODES.get(meanings.get(parsed))


@dataclass
class StaircaseResult:
    """What a staircase did: its estimate, the answers used, the queries made (errors included) now and
    before, the wall time of this call, and where its rows are. ``measure``: "threshold" or "pse".

    Attributes
    ----------
    run_id : str
        The run.
    out : str
        Where its rows are.
    estimate : AdaptiveEstimate
        The threshold or PSE, with its credible interval.
    answered : int
        Answers the procedure used.
    queries, errors : int
        Requests made, now and before, and those that failed.
    seconds : float
        Wall time of this call.
    history : list of (float, int)
        (level, answer code) per answered trial.
    measure : str
        "threshold" or "pse".
    """

    run_id: str
    out: str
    estimate: AdaptiveEstimate
    answered: int
    queries: int
    errors: int
    seconds: float
    history: list[tuple[float, int]] = field(default_factory=list)
    measure: str = "threshold"


def _existing(out: Path, run_id: str) -> list[dict]:
    files = sorted(out.glob(f"{run_id}-*.parquet")) if out.is_dir() else []
    if not files:
        return []
    frame = load_results(files).frame
    frame = frame[frame["run_id"] == run_id].sort_values("item_id")
    return frame[["item_id", "delta_e", "correct", "parse_status", "parsed", "truth_json"]].to_dict("records")


def run_staircase(stair: Staircase, *, make_backend: Callable[..., Any] | None = None,
                  on_trial: Callable[[int, float, dict], None] | None = None) -> StaircaseResult:
    """Run (or continue) ``stair`` until a stopping rule holds; rows are written as they come (one part per
    trial, compacted at the end). ``on_trial(n, level, row)`` is called after each trial (progress).

    Parameters
    ----------
    stair : Staircase
        The staircase.
    make_backend : callable, optional
        ``make_backend(kind, model=..., **options)`` -> backend (default: the registry's).
    on_trial : callable, optional
        Called after each trial.

    Returns
    -------
    StaircaseResult
        What it did.

    Raises
    ------
    ValueError
        When too many trials in a row bring no answer (the rows so far stay on disk).

    References
    ----------
    Watson (2017), *J. Vision* 17(3):10 (QUEST+).
    """
    t0 = time.monotonic()
    out = Path(stair.out)
    out.mkdir(parents=True, exist_ok=True)
    run_id = stair.run_id
    rows = _existing(out, run_id)
    history = [(float(r["delta_e"]), code) for r in rows if (code := stair.outcome(r)) is not None]
    state = AdaptiveState.replay(stair.adaptive_spec(), history)
    n, errors, queries, failures = len(rows), 0, len(rows), 0
    m = stair.model
    backend = (make_backend or registry_make)(m.backend, model=m.model, **m.options)
    writer = ResultsWriter(out, run_id, flush_rows=1, flush_seconds=1.0)
    try:
        while not state.done:
            shown = stair.present(n, state.next_level())
            query = query_for(shown.question, shown.image, max_tokens=m.max_tokens, temperature=m.temperature)
            (_, reply), = list(backend.ask([query]))
            row = build_row(stair.asked(shown, run_id=run_id, dataset="staircase", model=m.model,
                                        backend=m.backend), reply)
            writer.add(row)
            writer.flush()
            n += 1
            queries += 1
            errors += row["parse_status"] == "error"
            code = stair.outcome(row)
            if code is None:
                failures += 1
                if failures >= _MAX_FAILURES:
                    raise ValueError(f"{failures} trials in a row brought no answer (last: parse status "
                                     f"{row['parse_status']!r}{', ' + str(row['error']) if row['error'] else ''}); "
                                     f"the trials so far are kept in {out}; fix the cause and rerun to continue")
            else:
                failures = 0
                state = state.update(shown.level_drawn, code)
                history.append((shown.level_drawn, code))
            if on_trial is not None:
                on_trial(n, shown.level_drawn, row)
    finally:
        writer.close()
        backend.close()
    compact_run(out, run_id)
    return StaircaseResult(run_id, str(out), state.estimate(check=True), len(history), queries, errors,
                           time.monotonic() - t0, history, stair.measure)


def parse_staircase(data: Mapping[str, Any], *, base_dir: str | Path | None = None) -> Staircase:
    """A staircase from a parsed TOML document (``plates staircase FILE``). Errors name the key and what is
    allowed.

    Parameters
    ----------
    data : mapping
        The parsed TOML document.
    base_dir : str or pathlib.Path, optional
        Where relative paths resolve from.

    Returns
    -------
    Staircase
        The validated staircase.

    Raises
    ------
    ValueError
        Naming the bad key and what is allowed.
    """
    check_keys("staircase", data, TOP_KEYS)
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not _NAME_RE.match(name)):
        raise ValueError(f"name: {name!r} is not allowed; use 1-64 letters, digits, '.', '_' or '-'")
    if "prompt" not in data:
        raise ValueError(f"prompt: missing; allowed: {', '.join(staircase_prompts())}")
    prompt = data["prompt"]
    family = staircase_prompts().get(prompt) if isinstance(prompt, str) else None
    if family is None:
        raise ValueError(f"prompt: {prompt!r} cannot drive a staircase; allowed: {', '.join(staircase_prompts())}")
    stim = dict(data.get("stimulus", {}))
    if stim.pop("family", family) != family:
        raise ValueError(f"stimulus.family: prompt {prompt!r} asks about {family!r} stimuli; allowed: {family!r}")
    spec_type = MEASURES[family][0]
    if family == "ishihara":
        stim.setdefault("text", "12")  # replaced per trial
    elif "kind" not in stim:
        raise ValueError("stimulus.kind: missing; allowed: an illusion kind such as simultaneous-contrast, whites")
    try:
        spec = spec_type(**stim)
    except TypeError as exc:
        raise ValueError(f"stimulus: {exc}; allowed: the fields of {spec_type.__module__}.{spec_type.__name__}"
                         ) from None
    models = data.get("models")
    if isinstance(models, Mapping):
        models = [models]
    if not isinstance(models, list) or len(models) != 1:
        raise ValueError("models: give exactly one [[models]] table (a staircase measures one model)")
    out = str(data.get("out", "results/runs/staircase"))
    if base_dir is not None and not Path(out).is_absolute():
        out = str(Path(base_dir) / out)
    bounds = {}
    for key in ("low", "high"):
        bounds[key] = check_number(key, data.get(key), none_ok=True, note=" (a ΔE2000, signed for illusions)")
    return Staircase(stimulus=spec, prompt=prompt, model=parse_model("models[0]", models[0]),
                     trials=data.get("trials", 40), min_trials=data.get("min_trials", 10),
                     ci_width=data.get("ci_width"), seed=data.get("seed", 0), out=out, name=name,
                     directions=data.get("directions", "distributed"), **bounds)


def load_staircase(path: str | Path) -> Staircase:
    """Read and validate a staircase TOML file; paths resolve from its folder.

    Parameters
    ----------
    path : str or pathlib.Path
        A TOML file.

    Returns
    -------
    Staircase
        The validated staircase.

    Raises
    ------
    ValueError
        For an unreadable or invalid file; the message starts with its path.
    """
    path = Path(path)
    data = read_toml(path, "staircase")
    try:
        return parse_staircase(data, base_dir=path.parent)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
