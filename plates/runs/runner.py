"""Run an experiment: every item x model x condition x prompt x shots becomes one results row.

The path one row takes: the item's plate image (the variant the prompt or the experiment asks for, sRGB 0-255)
-> ``plates.conditions.apply_condition`` (size, grayscale, hue shift, CVD view) -> ``plates.tasks.prompts`` renders
the prompt and few-shot examples (k other items of the same colour set: ColorBlindnessEval App. B.2,
HueManity Table 3) -> ``Backend.ask`` -> the task's scorer (``plates.tasks.answers`` readers) -> a ``ResultsWriter`` part under ``out``.
The plan (which rows, their keys, which are done) is `plates.runs.plan`; each row's request, `plates.runs.builder`;
asking them and writing their rows, here.

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

import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tqdm import tqdm

from plates.faults import environment_failure
from plates.leases import run_lease
from plates.models import make_backend as registry_make
from plates.models.base import Query
from plates.results import ResultsWriter, compact_run
from plates.runs.builder import Builder, check_units
from plates.runs.experiment import Experiment, ModelSpec
from plates.runs.judge import Judge
from plates.runs.locks import run_lock
from plates.runs.plan import Unit, existing_keys, load_items, plan
from plates.runs.rows import Asked, build_row
from plates.shards import Shard
from plates.storage import is_url


@dataclass
class RunSummary:
    """What a run did: rows planned, already on disk, written now, and how they ended.

    Parameters
    ----------
    run_id : str
        The run.
    out : str
        Its results folder or URL.
    planned : int
        Rows the plan holds.
    existing : int
        Rows already on disk (skipped).
    written : int
        Rows written now.
    errors : int
        Written rows whose request failed.
    unsupported : int
        Written rows the backend declined.
    correct : int
        Written rows judged correct.
    seconds : float
        Wall-clock time of the run.
    parts : list of str
        The Parquet parts written.
    placements : list of dict
        Where each worker asked, for executors that place workers (`plates.runs.ray_executor`: one dict per
        actor).
    """

    run_id: str
    out: str
    planned: int = 0
    existing: int = 0
    written: int = 0
    errors: int = 0
    unsupported: int = 0
    correct: int = 0
    #: verdicts the judge model decided (`plates.runs.judge`; 0 without one)
    judged: int = 0
    seconds: float = 0.0
    parts: list[str] = field(default_factory=list)
    #: where each worker asked, for executors that place workers (`plates.runs.ray_executor`: one dict per actor)
    placements: list[dict[str, Any]] = field(default_factory=list)


def key_values(exp: Experiment) -> tuple[str, ...]:
    """The API keys this experiment reads, so that they can be redacted: never written.

    Parameters
    ----------
    exp : Experiment
        The experiment (`plates.runs.experiment`).

    Returns
    -------
    tuple of str
        The values of its models' ``api_key_env`` variables (``OPENAI_API_KEY`` by default for an OpenAI-
        compatible model) that are set and at least 4 characters long.
    """
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


def run_experiment(exp: Experiment, *, retry_errors: bool = False, progress: bool = True,
                   items: Sequence[Any] | None = None, make_backend: Callable[..., Any] | None = None,
                   flush_seconds: float = 1.0, flush_rows: int | None = None,
                   shard: Shard | None = None, executor: Executor | None = None,
                   take_over_lock: bool = False) -> RunSummary:
    """Run (or continue) an experiment: ask the rows not on disk yet and write them as Parquet parts.

    Planning, resume, checks, the lock and compaction stay in this process. The lock: flocks in a local
    ``out`` (`plates.runs.locks`), a lease object on an object store (`plates.leases`).

    Parameters
    ----------
    exp : Experiment
        The experiment (`plates.runs.experiment`: a TOML file or quick-run flags).
    retry_errors : bool, default False
        Ask the error rows of earlier attempts again (readers keep the newest row per ``row_key``).
    progress : bool, default True
        A progress bar on stderr.
    items : sequence, optional
        The dataset's items, replacing the loader (for tests and callers that hold them already).
    make_backend : callable, optional
        Replaces the backend registry (`plates.models.make_backend`), likewise.
    flush_seconds : float, default 1.0
        A part is written at least this often ...
    flush_rows : int, optional
        ... and every this many rows (default: the largest model concurrency, so each completed batch).
    shard : plates.shards.Shard, optional
        Ask only this shard's rows (see the module doc); the run id and row keys stay the unsharded run's.
    executor : optional
        Who asks the rows still to do (default `ask_locally`: this process); e.g.
        `plates.runs.ray_executor.RayExecutor`.
    take_over_lock : bool, default False
        Take over an object-store lease a crashed run left (expired).

    Returns
    -------
    RunSummary

    Raises
    ------
    ValueError
        Bad input (unknown backend, missing key variable, a prompt that cannot ask about an item), before
        anything is asked.
    plates.models.BackendFailing
        A backend keeps failing the same way.
    plates.faults.EnvironmentFailure
        The disk holding ``exp.out`` is full or failing (named). In each case the parts already written stay
        intact.
    """
    t0 = time.monotonic()
    items = load_items(exp) if items is None else list(items)
    remote = is_url(exp.out)  # an object store (plates.storage): no folders to make; a lease for a lock
    run_id, out = exp.run_id, exp.out if remote else Path(exp.out)
    if shard is not None and not isinstance(shard, Shard):
        raise ValueError(f"shard={shard!r} is not valid; allowed: None or a plates.shards.Shard")
    if exp.judge is not None and executor not in (None, ask_locally):
        raise ValueError("a judge model (--judge, [judge]) is asked by this process only; allowed: --executor local, "
                         "or `plates rescore --judge` on the run's results afterwards")
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
    parts with unique names under ``out`` (`plates.results.ResultsWriter`), so any number write side by side.

    Parameters
    ----------
    out : str
        The results folder or URL.
    run_id : str
        The run.
    flush_rows : int
        Rows per part, at most.
    flush_seconds : float
        Seconds between flushes, at most.
    supersedes : bool
        The parts may carry ``row_key`` values already on disk (a retry of failed rows); `load_results` then
        keeps the newest row per key (`plates.results.ResultsWriter`).
    """

    out: str
    run_id: str
    flush_rows: int
    flush_seconds: float
    supersedes: bool

    def open(self) -> ResultsWriter:
        """A `ResultsWriter` for the run's parts under ``out``."""
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
    if exp.judge is not None and todo:
        exp.judge.key_variable()  # the judge's key is there before the first model is asked
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
    writer's parts.

    Parameters
    ----------
    exp : Experiment
        The experiment.
    items : sequence
        Its dataset's items.
    todo : list of Unit
        The questions still unanswered.
    target : PartsTarget
        Where the parts go.
    summary : RunSummary
        Counts, updated in place.
    bar : progress bar
        Advanced per answer.
    make_backend : callable, optional
        ``make_backend(kind, model=..., **options)`` -> backend (default: the registry's).
    """
    builder = Builder(exp, items)
    judge = None if exp.judge is None or not todo else Judge(exp.judge, key_values(exp))
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
                ask_units(backend, m, mine, builder, writer, summary, bar, key_values(exp), judge)
            finally:
                backend.close()
    finally:
        if judge is not None:
            judge.close()
        writer.close()
        summary.parts += [str(p) for p in writer.parts]


def open_backend(exp: Experiment, mi: int, make_backend: Callable[..., Any] | None = None) -> Any:
    """Model ``mi`` of ``exp`` as a backend.

    Parameters
    ----------
    exp : Experiment
        The experiment (`plates.runs.experiment`).
    mi : int
        Index into ``exp.models``.
    make_backend : callable or None
        ``make_backend(kind, model=..., **options)``; None: `plates.models.make_backend`.

    Returns
    -------
    plates.models.Backend

    Raises
    ------
    ValueError
        An option the backend's constructor does not take; the message names the model.
    """
    m = exp.models[mi]
    try:
        return (make_backend or registry_make)(m.backend, model=m.model, **m.options)
    except TypeError as exc:  # an option this backend's constructor does not take
        raise ValueError(f"models[{mi}] (backend {m.backend!r}): {exc}; see the backend's options in "
                         "plates.models") from None


def check_keys(exp: Experiment, models: set[int]) -> None:
    """Fail before the first model runs, not after it, when an OpenAI-compatible model still to ask has no key.

    Parameters
    ----------
    exp : Experiment
        The experiment (`plates.runs.experiment`).
    models : set of int
        Indices of the models still to ask.

    Raises
    ------
    ValueError
        A model's key variable is unset or empty; the message names the variable, never a value.
    """
    for mi in sorted(models):
        m = exp.models[mi]
        name = m.options.get("api_key_env", "OPENAI_API_KEY")
        if m.backend == "openai" and name is not None and not os.environ.get(name):
            raise ValueError(f"models[{mi}] ({m.model}): the environment variable {name} is not set (or empty): "
                             "export your API key in it, name another variable with api_key_env / --api-key-env, "
                             "or use api_key_env = false / --no-api-key for a local server that needs no key")


def ask_units(backend: Any, m: ModelSpec, units: list[Unit], builder: Builder, writer: ResultsWriter,
               summary: RunSummary, bar: Any, keys: Sequence[str] = (), judge: Judge | None = None) -> None:
    """Ask ``units`` of one model in chunks; the next chunk's images are prepared while this one is asked.
    With a ``judge`` (`plates.runs.judge.Judge`), a chunk's rows are written once the judge has read the
    replies the rules abstained on.

    Parameters
    ----------
    backend : Backend
        The opened model.
    m : ModelSpec
        Its spec.
    units : list of Unit
        Its questions.
    builder : Builder
        Builds each request.
    writer : ResultsWriter
        Writes the rows.
    summary : RunSummary
        Counts, updated in place.
    bar : progress bar
        Advanced per answer.
    keys : sequence of str, optional
        Secrets redacted from the rows.
    judge : Judge, optional
        Reads the replies the rules abstained on.
    """
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
            held = []
            for index, reply in backend.ask([query for query, _ in built]):
                row = build_row(built[index][1], reply, keys)
                if judge is not None:
                    held.append((built[index][1].question, row))
                    continue
                _write(row, writer, summary, bar)
            if held:
                summary.judged += judge.judge_rows(held)
                for _, row in held:
                    _write(row, writer, summary, bar)


def _write(row: dict[str, Any], writer: ResultsWriter, summary: RunSummary, bar: Any) -> None:
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
