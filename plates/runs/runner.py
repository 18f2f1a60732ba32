"""Run an experiment: every item x model x condition x prompt x shots becomes one results row.

The path one row takes: the item's plate image (the variant the prompt or the experiment asks for, sRGB 0-255)
-> ``plates.conditions.apply_condition`` (size, grayscale, hue shift, CVD view) -> ``plates.tasks.prompts`` renders
the prompt and few-shot examples (k other items of the same colour set: ColorBlindnessEval App. B.2,
HueManity Table 3) -> ``Backend.ask`` -> the task's scorer (``plates.tasks.answers`` readers) -> a ``ResultsWriter`` part under ``out``.

Resume: the run id is a hash of the experiment (``Experiment.run_id``); each row carries a ``row_key`` (run id
x item x model x condition x prompt x shots). A rerun reads this run's parts under ``out`` and asks only the
keys not there yet, so it never duplicates a row. Rows that ended in a request error are kept as they are;
``retry_errors=True`` (``plates run --retry-errors``) asks them again and writes newer rows under the same key,
which ``load_results`` prefers. A part is written for every completed batch of ``concurrency`` rows (and at
least every second), so a ``kill -9`` loses at most the requests in flight and never duplicates a row.

Shards (``shard=Shard(I, N)``, ``plates run --shard I/N``): each asks only the rows whose key it owns
(`plates.shards`), so N processes on any machines sharing ``out`` together write the unsharded run's rows.
They never rewrite a shared file: each writes parts with unique names, holds the run's lock shared (an
unsharded process of the same run, which may compact, is refused while any shard runs) and its own shard's
lock exclusively (the same shard twice is refused), and leaves compaction to the next unsharded run.

Executors: who asks the rows still to do is an `Executor` (`ask_locally`, this process, by default;
`plates.runs.ray_executor.RayExecutor` for Ray actors); planning, resume, the checks, the lock and compaction
stay here. Object storage (``out`` an ``s3://`` URL, `plates.storage`): parts are committed by record, listed
committed only, and no lock is taken (`plates.runs.locks`).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from plates.colour import delta_e2000
from plates.datasets import PRESETS, load_dataset
from plates.datasets.sample import Sample, load_sample
from plates.faults import environment_failure
from plates.leases import run_lease
from plates.models import make_backend as registry_make
from plates.models.base import Query
from plates.results import ResultsWriter, compact_run, load_results
from plates.runs.experiment import ConditionSpec, Experiment, ModelSpec
from plates.runs.images import RunImages
from plates.runs.locks import run_lock
from plates.runs.rows import Asked, build_row
from plates.shards import Shard
from plates.stimuli import render
from plates.storage import is_url, open_store
from plates.tasks import Question, task_of
from plates.tasks.prompts import query_for


@dataclass(frozen=True)
class Unit:
    """One planned row: indices into the items and models, the condition, prompt and shots, its key."""

    item: int
    model: int
    condition: ConditionSpec
    variant: str
    prompt: str
    shots: int
    key: str


@dataclass
class RunSummary:
    """What a run did: rows planned, already on disk, written now, and how they ended."""

    run_id: str
    out: str
    planned: int = 0
    existing: int = 0
    written: int = 0
    errors: int = 0
    unsupported: int = 0
    correct: int = 0
    seconds: float = 0.0
    parts: list[str] = field(default_factory=list)
    #: where each worker asked, for executors that place workers (`plates.runs.ray_executor`: one dict per actor)
    placements: list[dict[str, Any]] = field(default_factory=list)


def row_key(run_id: str, dataset: str, item_id: str, backend: str, model: str, condition: ConditionSpec,
            variant: str, prompt: str, shots: int) -> str:
    """A stable 20-hex key of one row; the condition's size is as requested (None = the dataset's own). The
    text-only control joins the key only when set, so keys written before it existed stay the same."""
    parts = [run_id, dataset, item_id, backend, model, condition.size, condition.grayscale,
             round(condition.hue_shift, 6), condition.cvd, round(condition.cvd_severity, 6), variant, prompt, shots,
             *(["text-only"] if condition.text_only else [])]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:20]


def eligible(items: Sequence[Any], variant: str) -> list[int]:
    """Indices of the items a question about ``variant`` is asked on.

    A dataset that holds items of that variant (ColorBlindnessEval stores each plate as a standard and a clear
    image) gives those; otherwise each distinct plate once (first item per spec), its variant rendered from
    the spec. Either way no plate is asked twice for the same variant.
    """
    same = [i for i, item in enumerate(items) if getattr(item, "variant", "standard") == variant]
    if same:
        return same
    seen: set[str] = set()
    out = []
    for i, item in enumerate(items):
        key = item.spec.to_json()
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def plan(exp: Experiment, items: Sequence[Any]) -> list[Unit]:
    """Every row of the experiment, model by model, then item by item (so each plate is prepared once)."""
    run_id = exp.run_id
    wanted = {(c, p): c.variant or exp.template(p).variant for c in exp.conditions for p in exp.prompts}
    usable = {v: set(eligible(items, v)) for v in set(wanted.values())}
    task_of_prompt = {p: exp.template(p).task for p in exp.prompts}
    for name, task in task_of_prompt.items():  # an item made for one question takes only its task's prompts
        if items and all(i.question_task not in (None, task) for i in items):
            raise ValueError(f"prompt {name!r} (task {task!r}) asks about none of the dataset's items: each was "
                             f"made for another task ({', '.join(sorted({i.question_task for i in items}))}); "
                             "allowed: prompts of those tasks")
    units = []
    for mi, m in enumerate(exp.models):
        for ii, item in enumerate(items):
            for cond in exp.conditions:
                for name in exp.prompts:
                    variant = wanted[(cond, name)]
                    if ii not in usable[variant] or item.question_task not in (None, task_of_prompt[name]):
                        continue
                    for k in exp.shots:
                        key = row_key(run_id, item.dataset, item.item_id, m.backend, m.model, cond, variant, name, k)
                        units.append(Unit(ii, mi, cond, variant, name, k, key))
    return units


def existing_keys(out: str | Path, run_id: str, *, retry_errors: bool = False) -> set[str]:
    """``row_key`` values of this run already under ``out`` (with ``retry_errors``, those not ended in error). A
    part another shard merges away while this reads is skipped by the reader (its rows are in the merged part,
    and none of them is this shard's to ask)."""
    columns = ["run_id", "row_key", "parse_status"]
    if is_url(out):  # an object store: this run's committed parts directly under out
        root = open_store(out).root
        frame = load_results(out, columns=columns, exclude=lambda f: str(f.parent) != root
                             or not f.name.startswith(f"{run_id}-")).frame
    else:
        files = sorted(Path(out).glob(f"{run_id}-*.parquet")) if Path(out).is_dir() else []
        if not files:
            return set()
        frame = load_results(files, columns=columns).frame
    frame = frame[frame["run_id"] == run_id]
    if retry_errors:
        frame = frame[frame["parse_status"] != "error"]
    return set(frame["row_key"].dropna())


def _examples(exp: Experiment, items: Sequence[Any], pool: Sequence[int], index: int, k: int) -> list[int]:
    """k other plates of ``pool`` (the items of the same colour set and variant), chosen with a generator
    seeded by (seed, item id, k); never the question's own plate."""
    item = items[index]
    candidates = [i for i in pool if i != index and items[i].spec != item.spec]
    if len(candidates) < k:
        raise ValueError(f"shots={k} needs {k} other plates of colour set {item.colour_set!r}, but only "
                         f"{len(candidates)} are loaded; raise dataset.limit (--limit) or lower shots")
    digest = hashlib.sha256(f"{exp.seed}\x00{item.item_id}\x00{k}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big")).sample(candidates, k)


class Builder:
    """Turns units into (Query, row fields) pairs; a unit's images, prompt text and expected answer."""

    def __init__(self, exp: Experiment, items: Sequence[Any]) -> None:
        self.exp, self.items = exp, items
        self.run_id = exp.run_id  # a hash of the experiment's JSON: computed once, not per row
        self.images = RunImages(items)
        self._delta_e: dict[Any, float | None] = {}
        self._drawn: dict[int, dict[str, Any]] = {}
        self._spec_json: dict[int, str] = {}
        self._pools: dict[tuple[str, str], list[int]] = {}
        self._pooled: set[str] = set()

    def pool(self, variant: str, colour_set: str) -> list[int]:
        """Items of one colour set a question about ``variant`` may use as few-shot examples."""
        if variant not in self._pooled:
            self._pooled.add(variant)
            for i in eligible(self.items, variant):
                self._pools.setdefault((variant, self.items[i].colour_set), []).append(i)
        return self._pools.get((variant, colour_set), [])

    def spec_json(self, index: int) -> str:
        if index not in self._spec_json:
            self._spec_json[index] = self.items[index].spec.to_json()
        return self._spec_json[index]

    def delta_e(self, index: int) -> float | None:
        """The item's nominal ΔE2000: the manifest's value, else computed once per colour pair set (a preset
        has a few colour sets and thousands of plates; `nominal_delta_e`)."""
        item = self.items[index]
        recorded = getattr(item, "delta_e", None)
        if recorded is not None:
            return float(recorded)
        colours = getattr(item.spec, "colours", None)  # (fg, bg) tuples of sRGB 0-255 triples; None: no pair
        if colours not in self._delta_e:
            self._delta_e[colours] = nominal_delta_e(colours)
        return self._delta_e[colours]

    def drawn(self, index: int) -> dict[str, Any]:
        """The ΔE2000 an Ishihara item's plate draws (`plates.stimuli.ishihara.measure`), as results columns:
        the manifest's record when the item has one, else measured on the rendered plate; empty for other
        families."""
        if index not in self._drawn:
            item = self.items[index]
            if item.family != "ishihara":
                self._drawn[index] = {}
            elif item.drawn is not None:
                self._drawn[index] = dict(item.drawn)
            else:
                drawn = (self.images.plates.get(index) or render(item.spec)).stats.delta_e_drawn
                self._drawn[index] = {} if drawn is None else drawn.columns()
        return self._drawn[index]

    def question(self, unit: Unit, *, images: bool = True,
                 png: bool = False) -> tuple[Question, tuple[tuple[Any, Question], ...]]:
        """The unit's question about its item, and its few-shot examples as (image, question) pairs (with
        ``images=False``: only checked, no image prepared, no examples returned)."""
        item = self.items[unit.item]
        template = self.exp.template(unit.prompt)
        task = task_of(template)
        space = label_space(item)
        try:
            if item.family not in task.families:
                raise ValueError(f"task {task.name!r} asks about {' or '.join(map(repr, task.families))} stimuli, "
                                 f"not {item.family!r}")
            question = task.question(item.truth(), template, seed=self.exp.seed, label_space=space)
        except ValueError as exc:
            raise ValueError(f"prompt {unit.prompt!r} cannot ask about item {item.item_id!r}: {exc}") from None
        examples: tuple[tuple[Any, Question], ...] = ()
        if unit.shots:
            if task.examples is None:
                raise ValueError(f"prompt {unit.prompt!r}: task {task.name!r} has no few-shot examples; "
                                 "allowed: shots = 0")
            picks = _examples(self.exp, self.items, self.pool(unit.variant, item.colour_set), unit.item, unit.shots)
            if not images:
                return question, ()
            ex = task.examples([self.items[i].truth() for i in picks], template, seed=self.exp.seed,
                               label_space=space)
            examples = tuple((self.images.get(i, unit.variant, unit.condition, png=png), q)
                             for i, q in zip(picks, ex))
        return question, examples

    def build(self, unit: Unit, m: ModelSpec, *, png: bool = False) -> tuple[Query, Asked]:
        """The unit's request and what its row records; ``png``: images as `plates.images.StoredPng`
        (`Backend.sends_png`)."""
        item = self.items[unit.item]
        question, examples = self.question(unit, png=png)
        image = self.images.get(unit.item, unit.variant, unit.condition, png=png)
        query = query_for(question, image, examples, max_tokens=m.max_tokens, temperature=m.temperature)
        cond = unit.condition
        if cond.grayscale or cond.hue_shift or cond.cvd != "none" or cond.text_only:
            # the pixel reply was measured on the stimulus as drawn, not on the image this condition sends
            query = replace(query, pixel_reply=None)
        asked = Asked(
            run_id=self.run_id, row_key=unit.key, item_id=item.item_id, dataset=item.dataset, model=m.model,
            backend=m.backend, question=question, spec_json=self.spec_json(unit.item), family=item.family,
            variant=unit.variant, colour_set=item.colour_set, delta_e=self.delta_e(unit.item),
            font=str(getattr(item.spec, "font", "")) or None, size=int(image.size[0]), grayscale=cond.grayscale,
            hue_shift=cond.hue_shift, cvd=cond.cvd, cvd_severity=cond.cvd_severity, shots=unit.shots,
            text_only=cond.text_only, protocol=self.exp.protocol, measured=self.drawn(unit.item),
        )
        return query, asked


def label_space(item: Any) -> str | None:
    """The label space of the item's dataset (a `plates.datasets.PRESETS` name: ``cbe``, ``huemanity-numeric``
    or ``huemanity-alnum``), passed to `plates.tasks.prompts.render_prompt` so distractors (colorbench-mc options,
    cbe-yn-incorrect candidates) come from the labels the dataset can hold: HueManity §4 numbers are
    "10".."99", not ColorBlindnessEval's "0".."99". A dataset that is no preset (e.g. a hand-made manifest)
    has no declared space: None, and the prompt template's own space applies."""
    preset = PRESETS.get(getattr(item, "dataset", None))
    return None if preset is None else preset.label_space


def nominal_delta_e(colours: Any) -> float | None:
    """The mean CIEDE2000 over the (foreground, background) pairs of ``colours`` (a spec's ``(fg, bg)``, each a
    tuple of sRGB 0-255 triples), as ``Plate.stats.delta_e``: no rendering needed. None for no pairs (a family
    without a foreground/background pair passes None)."""
    if colours is None:
        return None
    fg, bg = colours
    pairs = [(f, b) for f in fg for b in bg]
    if not pairs:
        return None
    return float(np.mean(delta_e2000(np.array([f for f, _ in pairs], float), np.array([b for _, b in pairs], float))))


def key_values(exp: Experiment) -> tuple[str, ...]:
    """The API keys this experiment reads (values of its models' ``api_key_env`` variables): never written."""
    names = {m.options.get("api_key_env", "OPENAI_API_KEY" if m.backend == "openai" else None) for m in exp.models}
    return tuple(v for v in (os.environ.get(n, "") for n in names if n) if len(v) >= 4)


#: Pixels (of every image of the queries) one chunk may hold in memory: ~200 MB of RGB.
CHUNK_PIXEL_BUDGET = 64_000_000


def _chunks(units: list[Unit], items: Sequence[Any], concurrency: int) -> list[list[Unit]]:
    """Batches of units to ask at once: a short first one (answers start soon), then up to 8 waves of
    ``concurrency`` (a chunk's last wave leaves the backend part idle), within ``CHUNK_PIXEL_BUDGET``."""
    def pixels(u: Unit) -> int:
        side = u.condition.size or items[u.item].spec.size
        return side * side * (1 + u.shots)

    out: list[list[Unit]] = []
    cap, chunk, used = max(4, 2 * concurrency), [], 0
    for u in units:
        p = pixels(u)
        if chunk and (len(chunk) >= cap or used + p > CHUNK_PIXEL_BUDGET):
            out.append(chunk)
            cap, chunk, used = max(16, 8 * concurrency), [], 0
        chunk.append(u)
        used += p
    if chunk:
        out.append(chunk)
    return out


def load_items(exp: Experiment) -> list[Any]:
    """The dataset items ``exp`` asks about: its dataset's first ``limit`` items, or its seeded random subset
    (``sample``, HueManity §4's random subsets, balanced across colour sets)."""
    if exp.sample is None:
        return list(load_dataset(exp.dataset, limit=exp.limit))
    return list(load_sample(exp.dataset, Sample(exp.sample, exp.sample_seed), limit=exp.limit))


def prepared(exp: Experiment, items: Sequence[Any], units: Sequence[Unit]) -> Iterator[tuple[Unit, Query, Asked]]:
    """Each unit's request (`Query`: the prompt text and the images exactly as a backend receives them) and
    what its row records (`Asked`), in order, checked first as a run checks them (``ValueError`` naming the
    prompt and item). A unit's images are prepared once and dropped after its item: memory stays bounded.
    The exporters (`plates.integrations`) read the runner's plan through this, never through a copy."""
    builder = Builder(exp, items)
    units = list(units)
    check_units(exp, items, builder, units)
    for u in units:
        query, asked = builder.build(u, exp.models[u.model])
        yield u, query, asked
        builder.images.forget_except({u.item})


def run_experiment(exp: Experiment, *, retry_errors: bool = False, progress: bool = True,
                   items: Sequence[Any] | None = None, make_backend: Callable[..., Any] | None = None,
                   flush_seconds: float = 1.0, flush_rows: int | None = None,
                   shard: Shard | None = None, executor: Executor | None = None,
                   take_over_lock: bool = False) -> RunSummary:
    """Run (or continue) ``exp``; returns a :class:`RunSummary`.

    Raises ``ValueError`` for bad input (unknown backend, missing key variable, a prompt that cannot ask about
    an item) before anything is asked, ``plates.models.BackendFailing`` when a backend keeps failing the same
    way, and ``plates.faults.EnvironmentFailure`` naming ``exp.out`` when the disk holding it is full or failing;
    in each case the parts already written stay intact. ``items`` and ``make_backend`` replace the dataset
    loader and the backend registry (for tests and callers that hold them already). A part is written every
    ``flush_rows`` rows (default: the largest model concurrency, so each completed batch) or ``flush_seconds``.
    ``shard``: ask only this shard's rows (see the module doc); the run id and row keys stay the unsharded run's.
    ``executor``: who asks the rows still to do (default `ask_locally`: this process); e.g.
    `plates.runs.ray_executor.RayExecutor`. Planning, resume, checks, the lock and compaction stay here.
    The lock: flocks in a local ``out`` (`plates.runs.locks`), a lease object on an object store
    (`plates.leases`); ``take_over_lock`` takes over an object-store lease a crashed run left (expired).
    """
    t0 = time.monotonic()
    items = load_items(exp) if items is None else list(items)
    remote = is_url(exp.out)  # an object store (plates.storage): no folders to make; a lease for a lock
    run_id, out = exp.run_id, exp.out if remote else Path(exp.out)
    if shard is not None and not isinstance(shard, Shard):
        raise ValueError(f"shard={shard!r} is not valid; allowed: None or a plates.shards.Shard")
    if take_over_lock and not remote:
        raise ValueError(f"--take-over-lock is for an object-store --out (s3://...); {exp.out} is a local folder, "
                         "whose lock the system releases when its run ends, however it ends")
    # the folders this run makes, innermost first
    created = [] if remote else [d for d in (out, *out.parents) if not d.exists()]
    try:
        try:
            lock = (run_lease(out, run_id, shard, take_over=take_over_lock) if remote
                    else run_lock(out, run_id, shard))
            with lock:
                return _run_locked(exp, items, out, retry_errors=retry_errors, progress=progress,
                                   make_backend=make_backend, flush_seconds=flush_seconds, flush_rows=flush_rows,
                                   t0=t0, shard=shard, executor=executor or ask_locally)
        except OSError as exc:  # a full or failing disk under out (writing a part, compacting): named as such
            failure = environment_failure(exc, out)
            if failure is None or failure is exc:
                raise
            raise failure from exc
    except BaseException:
        for folder in created:  # innermost first; a folder holding anything (results, others' runs) stays
            try:
                folder.rmdir()
            except OSError:
                break
        raise


@dataclass(frozen=True)
class PartsTarget:
    """Where and how an executor writes a run's parts: each writer it opens (one per process or actor) writes
    parts with unique names under ``out`` (`plates.results.ResultsWriter`), so any number write side by side."""

    out: str
    run_id: str
    flush_rows: int
    flush_seconds: float
    supersedes: bool

    def open(self) -> ResultsWriter:
        return ResultsWriter(self.out, self.run_id, flush_rows=self.flush_rows, flush_seconds=self.flush_seconds,
                             supersedes=self.supersedes)


#: An executor asks ``todo`` (units checked already) and writes their rows: ``executor(exp, items, todo,
#: target, summary, bar)``, counting into ``summary`` (written, errors, unsupported, correct, parts) and ``bar``.
Executor = Callable[[Experiment, Sequence[Any], list[Unit], PartsTarget, RunSummary, Any], None]


def _run_locked(exp: Experiment, items: list[Any], out: Path | str, *, retry_errors: bool, progress: bool,
                make_backend: Callable[..., Any] | None, flush_seconds: float, flush_rows: int | None,
                t0: float, shard: Shard | None = None, executor: Executor) -> RunSummary:
    run_id = exp.run_id
    summary = RunSummary(run_id=run_id, out=str(out))
    units = plan(exp, items)
    if shard is not None:
        units = [u for u in units if shard.owns(u.key)]
    done = existing_keys(out, run_id, retry_errors=retry_errors)
    todo = [u for u in units if u.key not in done]
    summary.planned, summary.existing = len(units), len(units) - len(todo)
    check_units(exp, items, Builder(exp, items), todo)
    check_keys(exp, {u.model for u in todo})
    bar = _progress(progress, total=len(units), initial=summary.existing, run_id=run_id)
    if flush_rows is None:
        flush_rows = min(256, max(m.concurrency for m in exp.models))
    target = PartsTarget(str(out), run_id, flush_rows, flush_seconds, retry_errors)
    if make_backend is not None:  # a caller's backend factory (tests): this process only
        executor = partial(ask_locally, make_backend=make_backend)
    try:
        executor(exp, items, todo, target, summary, bar)
    finally:
        if bar is not None:
            bar.close()
        summary.seconds = time.monotonic() - t0
    if shard is None:  # a shard never rewrites other shards' parts; the next unsharded run merges them
        compact_run(out, run_id)
    return summary


def ask_locally(exp: Experiment, items: Sequence[Any], todo: list[Unit], target: PartsTarget, summary: RunSummary,
                bar: Any, *, make_backend: Callable[..., Any] | None = None) -> None:
    """The default executor: this process asks ``todo`` model by model (each model loaded once) and writes one
    writer's parts."""
    builder = Builder(exp, items)
    writer = target.open()
    try:
        for mi, m in enumerate(exp.models):
            mine = [u for u in todo if u.model == mi]
            if not mine:
                continue
            backend = open_backend(exp, mi, make_backend)
            if bar is not None:  # loading a local model is not answering: keep it out of the rate and the ETA
                bar.unpause()
            try:
                ask_units(backend, m, mine, builder, writer, summary, bar, key_values(exp))
            finally:
                backend.close()
    finally:
        writer.close()
        summary.parts += [str(p) for p in writer.parts]


def open_backend(exp: Experiment, mi: int, make_backend: Callable[..., Any] | None = None) -> Any:
    """Model ``mi`` of ``exp`` as a backend (`plates.models.make_backend`, or ``make_backend``); an option its
    constructor does not take is a ValueError naming the model."""
    m = exp.models[mi]
    try:
        return (make_backend or registry_make)(m.backend, model=m.model, **m.options)
    except TypeError as exc:  # an option this backend's constructor does not take
        raise ValueError(f"models[{mi}] (backend {m.backend!r}): {exc}; see the backend's options in "
                         "plates.models") from None


def check_units(exp: Experiment, items: Sequence[Any], builder: Builder, units: list[Unit]) -> None:
    """Fail before any request is paid for: every prompt must fit every item's label, every few-shot request
    must find its examples."""
    seen: set[tuple[str, str]] = set()
    for u in units:
        item = items[u.item]
        if (item.label, u.prompt) not in seen or item.family != "ishihara":
            seen.add((item.label, u.prompt))
            builder.question(u, images=False)  # raises, naming the prompt and the item
        elif u.shots:
            _examples(exp, items, builder.pool(u.variant, item.colour_set), u.item, u.shots)


def check_keys(exp: Experiment, models: set[int]) -> None:
    """Every OpenAI-compatible model still to ask has its key variable set: fail before the first model runs,
    not after it (the message names the variable, never a value)."""
    for mi in sorted(models):
        m = exp.models[mi]
        name = m.options.get("api_key_env", "OPENAI_API_KEY")
        if m.backend == "openai" and name is not None and not os.environ.get(name):
            raise ValueError(f"models[{mi}] ({m.model}): the environment variable {name} is not set (or empty): "
                             "export your API key in it, name another variable with api_key_env / --api-key-env, "
                             "or use api_key_env = false / --no-api-key for a local server that needs no key")


def ask_units(backend: Any, m: ModelSpec, units: list[Unit], builder: Builder, writer: ResultsWriter,
               summary: RunSummary, bar: Any, keys: Sequence[str] = ()) -> None:
    """Ask ``units`` of one model in chunks; the next chunk's images are prepared while this one is asked."""
    def prepare(chunk: list[Unit]) -> list[tuple[Query, Asked]]:
        built = [builder.build(u, m, png=backend.sends_png) for u in chunk]
        builder.images.forget_except({u.item for u in chunk[-1:]})
        return built

    chunks = _chunks(units, builder.items, m.concurrency)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="plates-prepare") as pool:
        pending = pool.submit(prepare, chunks[0])
        for n in range(len(chunks)):
            built = pending.result()
            if n + 1 < len(chunks):
                pending = pool.submit(prepare, chunks[n + 1])
            for index, reply in backend.ask([query for query, _ in built]):
                row = build_row(built[index][1], reply, keys)
                writer.add(row)
                summary.written += 1
                summary.errors += row["parse_status"] == "error"
                summary.unsupported += row["parse_status"] == "unsupported"
                summary.correct += bool(row["correct"])
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(errors=summary.errors, refresh=False)


def _progress(enabled: bool, *, total: int, initial: int, run_id: str) -> Any:
    """A tqdm bar on stderr (None when disabled): done/total counting the rows already there on a resumed run
    (``initial``), errors, and the ETA from the rate of this session's answers only (tqdm measures from
    ``initial``; ``smoothing`` 0.3 follows the current rate without trusting one slow first batch)."""
    if not enabled:
        return None
    return tqdm(total=total, initial=initial, desc=run_id, unit="req", file=sys.stderr, dynamic_ncols=True,
                smoothing=0.3, postfix={"errors": 0})
