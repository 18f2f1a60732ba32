"""Run an experiment's rows as Ray actors (`plates run --executor ray`): past one machine, or one GPU per actor.

The driver (`plates.runs.runner.run_experiment`) plans the run, reads which row keys are already under ``out``
(resume), checks every prompt against every item and every key variable, holds the run's lock and compacts at the
end, exactly as a single-process run; only asking changes hands. `RayExecutor` then:

1. puts the items into Ray's object store once: specs, labels and stored-image paths, never an image (a few KB a
   plate), so each worker renders its stimulus from its spec (`plates.stimuli.render`) or reads the stored PNG
   from the shared set itself;
2. starts ``actors`` actors per model still to ask (default: one per CPU of the cluster for API and baseline
   models; one per GPU for a local transformers model on a cluster with GPUs); each actor loads the model
   once and opens its own `plates.results.ResultsWriter`, whose part names are unique (the shards' rule: N
   writers, one output, no shared file rewritten). GPU pinning: a transformers model whose ``device`` is
   "auto" or "cuda" (and no ``device_map``) asks Ray for one GPU per actor (``num_gpus=1``); Ray sets the
   actor's ``CUDA_VISIBLE_DEVICES`` to that GPU alone, the actor checks it against ``ray.get_gpu_ids()`` and
   loads the model on "cuda:0", the one GPU it sees (`actor_device`). Where torch in the actor sees no CUDA
   device (a cluster declaring GPUs torch cannot use) the model loads on the CPU and the driver warns. Each
   actor's placement (GPU ids, ``CUDA_VISIBLE_DEVICES``, the model's device) is in the run summary's
   ``placements``. A model given ``device="cpu"`` takes no GPU; "cuda:N" and ``device_map`` are refused
   (an actor sees only its own GPU);
3. hands out batches of units (`plates.runs.plan.Unit`) as actors free up (`ray.util.ActorPool`); an actor
   asks a batch with the same code as a single-process run (`plates.runs.runner.ask_units`: chunks, the
   backend's concurrency, the one row builder, error rows), and its parts flush every completed batch or
   second, so a killed run loses at most the rows in flight and a rerun asks only the keys not on disk.

The rows are those a single-process run writes (same keys, replies, verdicts; tests/runs/test_ray_executor.py),
with this process's bar counting finished batches. ``out`` must be storage every node reaches: a shared folder
or an object-store URL (`plates.storage`). A worker reads API keys from its own environment (they are never sent
through Ray). Ray's usage statistics are switched off (``RAY_USAGE_STATS_ENABLED=0``) before Ray starts.

References: Moritz et al. 2018, "Ray: A Distributed Framework for Emerging AI Applications", OSDI §3 (tasks and
actors).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plates.install import extra_hint
from plates.models import BackendFailing
from plates.runs.builder import Builder
from plates.runs.experiment import Experiment
from plates.runs.plan import Unit
from plates.runs.runner import PartsTarget, RunSummary, ask_units, key_values, open_backend
from plates.storage import is_url
from plates.validation import check_int

__all__ = ["RayExecutor", "actor_device", "gpus_per_actor", "parse_address"]

_ADDRESS = re.compile(r"^(ray://)?[A-Za-z0-9][A-Za-z0-9.-]*:\d{1,5}$")


def parse_address(text: str | None) -> str | None:
    """The ``--ray-address`` option, checked.

    Parameters
    ----------
    text : str or None
        None (start a local cluster for this run), ``auto`` (the cluster this machine belongs to),
        ``HOST:PORT`` or ``ray://HOST:PORT`` (Ray Client).

    Returns
    -------
    str or None
        ``text`` as given.

    Raises
    ------
    ValueError
        Any other form; the message names the allowed ones.

    Examples
    --------
    >>> parse_address("ray://head:10001"), parse_address(None)
    ('ray://head:10001', None)
    """
    if text is None:
        return None
    value = text.strip()
    if value == "auto" or _ADDRESS.match(value):
        return value
    raise ValueError(f"--ray-address {text!r} is not valid; allowed: auto, HOST:PORT or ray://HOST:PORT (none: "
                     "a local cluster started for this run)")


def gpus_per_actor(backend: str, options: dict[str, Any], cluster_gpus: int) -> int:
    """GPUs each actor of a model asks Ray for.

    Parameters
    ----------
    backend : str
        The model's backend kind.
    options : dict
        Its ``[[models]]`` options (``device``, ``device_map`` are read).
    cluster_gpus : int
        GPUs in the cluster.

    Returns
    -------
    int
        1 for a transformers model (``hf``) placed by ``device`` "auto" or "cuda" on a cluster with GPUs, else
        0.

    Raises
    ------
    ValueError
        ``device`` "cuda:N" or a ``device_map`` for an ``hf`` model on a cluster with GPUs: an actor sees only
        the GPU Ray gives it.
    """
    if backend != "hf" or cluster_gpus < 1:
        return 0
    device = str(options.get("device", "auto"))
    if options.get("device_map") is not None or (device.startswith("cuda:") and device != "cuda:0"):
        raise ValueError(f"with --executor ray each actor holds one GPU and sees only it; device={device!r} / "
                         f"device_map={options.get('device_map')!r} cannot be placed; allowed: device 'auto' or "
                         "'cuda' (the actor's GPU), or 'cpu'")
    return 1 if device in ("auto", "cuda", "cuda:0") else 0


def actor_device(gpu_ids: Sequence[Any], visible: str | None, cuda: bool) -> str:
    """The device a transformers model loads on in an actor that Ray gave ``gpu_ids``, given the actor's
    ``CUDA_VISIBLE_DEVICES`` (``visible``) and whether torch sees a CUDA device (``cuda``): "cuda:0", the one GPU
    Ray left visible; "cpu" where torch sees none. RuntimeError when ``visible`` is not exactly ``gpu_ids``
    (the actor would compute on another actor's GPU).

    Parameters
    ----------
    gpu_ids : sequence
        The GPU ids Ray gave the actor.
    visible : str or None
        The actor's ``CUDA_VISIBLE_DEVICES``.
    cuda : bool
        Whether torch sees a CUDA device.

    Returns
    -------
    str
        ``"cuda:0"`` or ``"cpu"``.

    Raises
    ------
    RuntimeError
        When ``visible`` is not exactly ``gpu_ids``.

    Examples
    --------
    >>> actor_device(["1"], "1", cuda=True), actor_device([1], "1", cuda=False)
    ('cuda:0', 'cpu')
    """
    wanted = ",".join(str(g) for g in gpu_ids)
    if visible != wanted:
        raise RuntimeError(f"this Ray actor was given GPU(s) {wanted} but sees CUDA_VISIBLE_DEVICES={visible!r}; "
                           "it would not compute on its own GPU")
    return "cuda:0" if cuda else "cpu"


def _ray() -> Any:
    """The ray module (lazy: an optional extra), with usage statistics off unless the user set them."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise ImportError(f"--executor ray needs Ray: {extra_hint('ray')}") from None
    return ray


class _Asker:
    """One actor: one model loaded once, one writer; asks batches of units (the body of a Ray actor)."""

    def __init__(self, exp: Experiment, items: Sequence[Any], model_index: int, target: PartsTarget,
                 pinned: bool = False) -> None:
        self.exp, self.model = exp, exp.models[model_index]
        self.builder = Builder(exp, items)
        gpu_ids = _ray().get_gpu_ids() if pinned else []
        self.where: dict[str, Any] = {"model": self.model.model, "gpu_ids": [str(g) for g in gpu_ids],
                                      "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
        if pinned:
            if len(gpu_ids) != 1:
                raise RuntimeError(f"this Ray actor asked for one GPU and was given {gpu_ids!r}")
            import torch  # lazy: the hf backend's own dependency, loaded by it a moment later anyway

            device = actor_device(gpu_ids, self.where["cuda_visible_devices"], torch.cuda.is_available())
            exp = dataclasses.replace(exp, models=tuple(
                dataclasses.replace(m, options={**m.options, "device": device}) if i == model_index else m
                for i, m in enumerate(exp.models)))
        self.backend = open_backend(exp, model_index)
        self.where["device"] = str(getattr(self.backend, "device", "")) or None
        self.writer = target.open()
        self.keys = key_values(exp)  # this worker's own environment: keys are never shipped through Ray

    def placement(self) -> dict[str, Any]:
        """Where this actor asks: its model, the GPU ids Ray gave it, its CUDA_VISIBLE_DEVICES, the model's device."""
        return dict(self.where)

    def ask(self, units: list[Unit]) -> dict[str, int]:
        counts = RunSummary(run_id=self.writer.run_id, out=str(self.writer.out_dir))
        ask_units(self.backend, self.model, units, self.builder, self.writer, counts, None, self.keys)
        self.builder.images.forget_except(set())
        return {"written": counts.written, "errors": counts.errors, "unsupported": counts.unsupported,
                "correct": counts.correct}

    def close(self) -> list[str]:
        """Flush the last rows and free the model; the parts this actor's writer left."""
        try:
            self.writer.close()
        finally:
            self.backend.close()
        return [str(p) for p in self.writer.parts]


@dataclass(frozen=True)
class RayExecutor:
    """Asks a run's rows on a Ray cluster (see the module doc); an executor of `plates.runs.runner.run_experiment`.

    Parameters
    ----------
    address : str or None
        See `parse_address` (None: a local cluster of this machine's cores, shut down after the run; a cluster
        already initialised in this process is used as it is).
    actors : int or None
        Actors per model, >= 1 (None: one per CPU of the cluster, or one per GPU for a local transformers model
        when the cluster has GPUs).
    batch : int or None
        Units per task, >= 1 (None: 8 waves of the model's concurrency, at least 32, at most a quarter of an
        actor's share so the actors stay balanced).

    Raises
    ------
    ValueError
        ``actors`` or ``batch`` not None or an integer >= 1, or an ``address`` `parse_address` refuses.
    """

    address: str | None = None
    actors: int | None = None
    batch: int | None = None

    def __post_init__(self) -> None:
        for name in ("actors", "batch"):
            check_int(name, getattr(self, name), 1, none_ok=True)
        parse_address(self.address)

    def __call__(self, exp: Experiment, items: Sequence[Any], todo: list[Unit], target: PartsTarget,
                 summary: RunSummary, bar: Any) -> None:
        if not todo:
            return
        ray = _ray()
        started = not ray.is_initialized()
        if started:
            if self.address is None:
                ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=self.address, log_to_driver=False)
        # other nodes start elsewhere: local paths (parts, stored images) travel absolute
        if not is_url(target.out):
            target = dataclasses.replace(target, out=str(Path(target.out).absolute()))
        items = [dataclasses.replace(i, path=i.path.absolute()) if isinstance(getattr(i, "path", None), Path) else i
                 for i in items]
        try:
            items_ref = ray.put(list(items))
            for mi in sorted({u.model for u in todo}):
                self._ask_model(ray, exp, items_ref, mi, [u for u in todo if u.model == mi], target, summary, bar)
        finally:
            if started:
                ray.shutdown()

    def _ask_model(self, ray: Any, exp: Experiment, items_ref: Any, mi: int, units: list[Unit],
                   target: PartsTarget, summary: RunSummary, bar: Any) -> None:
        m = exp.models[mi]
        resources = ray.cluster_resources()
        cluster_gpus = int(resources.get("GPU", 0))
        pinned = gpus_per_actor(m.backend, dict(m.options), cluster_gpus)
        gpus = cluster_gpus if pinned else 0
        cpus = int(resources.get("CPU", 0))
        capacity, what = (gpus, "GPUs") if gpus else (cpus, "CPUs")
        if self.actors is not None and self.actors > capacity:  # the extra actors would wait forever
            raise ValueError(f"--ray-actors {self.actors} is more than the cluster's {capacity} {what} (each actor "
                             f"holds one); allowed: 1-{capacity}")
        default = gpus or (1 if m.backend == "hf" else max(1, cpus))
        n = min(self.actors or default, len(units))
        size = self.batch or max(1, min(max(32, 8 * m.concurrency), math.ceil(len(units) / (4 * n))))
        batches = [units[i:i + size] for i in range(0, len(units), size)]
        actor = ray.remote(num_cpus=1, num_gpus=pinned)(_Asker)
        actors = [actor.remote(exp, items_ref, mi, target, bool(pinned)) for _ in range(n)]
        pool = ray.util.ActorPool(actors)
        failure: BaseException | None = None
        try:
            placed = ray.get([a.placement.remote() for a in actors])
            summary.placements += placed
            on_cpu = [p["gpu_ids"] for p in placed if p["gpu_ids"] and p["device"] == "cpu"]
            if on_cpu:
                warnings.warn(f"model {m.model!r}: Ray gave its actors GPUs {on_cpu} but torch in the actors sees "
                              "no CUDA device; the model runs on the CPU there", RuntimeWarning, stacklevel=2)
            for counts in pool.map_unordered(lambda a, b: a.ask.remote(b), batches):
                for key, value in counts.items():
                    setattr(summary, key, getattr(summary, key) + value)
                if bar is not None:
                    bar.update(counts["written"])
                    bar.set_postfix(errors=summary.errors, refresh=False)
        except ray.exceptions.RayTaskError as exc:  # the actor's own error (BackendFailing, ValueError, OSError)
            failure = exc.cause if isinstance(exc.cause, BaseException) else exc
        finally:
            # every actor flushes what it holds (rows already answered are kept), even after a failure
            closing = [a.close.remote() for a in actors]
            for ref in closing:
                try:
                    summary.parts += ray.get(ref)
                except ray.exceptions.RayError as exc:
                    failure = failure or (exc.cause if isinstance(getattr(exc, "cause", None), BaseException)
                                          else exc)
            for a in actors:
                ray.kill(a)
        if failure is not None:
            if isinstance(failure, (BackendFailing, ValueError, OSError)):
                raise failure
            raise RuntimeError(f"a Ray actor of model {m.model!r} failed: {failure}") from failure
