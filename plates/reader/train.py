"""Train the baseline reader on plates generated on the fly, export it to ONNX and write its model card.

Needs ``plates[train]`` (torch, onnx). The defaults are one stage from scratch (its training time: docs/benchmarks.md): 16,000
plates and 16,000 glyph cards (``cards``: the text alone, drawn without dots, :func:`plates.reader.data.glyph_card`),
80% of the free plates and cards in the extra training faces (``extra_fonts``), 35% with rim figures (``rim``),
plates drawn at 192-512 px (``render_sizes``), everything read at 64 px (``input_size``), 3,000 steps (6 epochs).
Recipe (see :mod:`plates.reader.data` for the plate mix):

1. render ``n_train`` + ``n_val`` plates (sizes drawn from ``render_sizes``) and ``cards`` glyph cards in
   ``workers`` processes (plate seeds :data:`~plates.reader.data.TRAIN_SEED_BASE` + i and
   :data:`~plates.reader.data.VAL_SEED_BASE` + i, card seeds :data:`~plates.reader.data.CARD_SEED_BASE` + i:
   disjoint from every seed the benchmark uses), preprocess them once (numpy, exactly as the ONNX reader does)
   and keep them as int8 in memory; validation reads plates only;
2. train :class:`~plates.reader.model.PlateReader` with AdamW, a warm-up + cosine learning rate and light
   geometric augmentation (random scale, shift and small rotation on the preprocessed tensors); the loss is the sum of the
   per-position cross-entropies (HueManity §4);
3. export to ONNX and write MODEL_CARD.md beside it, with the command, seed, recipe and validation accuracy.

Deterministic for a given command: the number of steps (``epochs`` x ceil((n_train + cards) / batch_size), or
``steps``)
alone decides the learning-rate schedule; nothing that touches the weights reads the clock. Seeds:
``torch.manual_seed(seed)``, a numpy ``Generator(seed)`` for the batch order, a torch ``Generator(seed)`` for
augmentation, plate seeds fixed by ``seed`` and rendered in seed order whatever the worker count; torch runs
``threads`` intra-op threads (default 2: the two cores this recipe is sized for) with ``torch.use_deterministic_algorithms(True)``. Same command, same torch build
and CPU kind -> byte-identical ONNX (tests/reader/test_train.py); float reductions may differ across thread
counts or CPU instruction sets, so the thread count is part of the command. ``time_budget_s`` is only a safety
stop: exceeding it ABORTS the run (nothing is written) instead of bending the schedule.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import resource
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from plates.reader import MODEL_NAME, data
from plates.reader.coding import N_CLASSES, N_POSITIONS
from plates.reader.preprocess import CLIP, INPUT_SIZE, INPUT_SIZES, MODES
from plates.validation import check_choice, check_number

QUANT = 127.0 / CLIP  # int8 storage of preprocessed values in [-CLIP, CLIP]

# Torch's OpenMP threads wait for each other passively (sleep) instead of spinning, unless the caller chose: on 2
# shared cores a spinning thread burns the CPU its partner needs. Measured here (2026-11-26, load 4-5, one
# 2-thread step of the default network, batch 64): 0.70-1.05 s spinning, 0.26-0.27 s passive; the same bytes
# either way (the policy changes waiting, not arithmetic). Set before torch loads (it is imported lazily below).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@dataclass(frozen=True)
class TrainConfig:
    """Every knob of one training run (recorded in the model card).

    Attributes
    ----------
    seed : int
        Seeds the data and the weights.
    n_train, n_val : int
        Training and validation plates (>= 1).
    epochs : int
        Passes over the data (>= 1).
    cards : int
        Glyph cards beside the plates (>= 0).
    batch_size : int
        Examples per step (>= 1).
    lr, weight_decay : float
        AdamW's learning rate and weight decay.
    width : int
        The network's stem width (>= 1).
    input_size : int
        The network's input side, px (`plates.reader.preprocess.INPUT_SIZES`).
    render_size : int or None
        The plates' side, px; None draws one of ``render_sizes``.
    render_sizes : tuple of int
        The sides drawn from.
    workers, threads : int
        Rendering processes and torch threads (>= 1).
    mode : str
        The preprocessing mode (`plates.reader.preprocess.MODES`).
    skew : float
        Shear / aspect augmentation, 0-0.5 (0: none).
    steps : int or None
        Exactly this many steps; None: whole epochs.
    init : str or None
        Fine-tune from these ONNX weights (BatchNorm frozen); None: from scratch.
    extra_fonts : float
        Share of free plates in the extra fonts, 0-1.
    rim : float
        Share of free plates with a hollow rim figure, 0-1.
    time_budget_s : float or None
        A safety stop, seconds: exceeding it aborts the run.
    """

    seed: int = 0
    n_train: int = 16000
    n_val: int = 600
    epochs: int = 6
    cards: int = 16000  # glyph cards (data.glyph_card) beside the plates: shapes at a third of a plate's cost
    batch_size: int = 64
    lr: float = 3e-3
    weight_decay: float = 1e-4
    width: int = 32
    input_size: int = 64  # the network's input side (preprocess.INPUT_SIZES); 64 buys steps and plates over 96
    render_size: int | None = None  # None: each plate draws one of render_sizes
    render_sizes: tuple[int, ...] = data.RENDER_SIZES  # the sizes drawn when render_size is None
    workers: int = 2
    threads: int = 2
    mode: str = "contrast-dots"
    skew: float = 0.1  # extra shear / aspect augmentation on the preprocessed batch (see augment); 0: none
    steps: int | None = None  # None: epochs x ceil(n_train / batch_size); else exactly this many steps
    init: str | None = None  # None: train from scratch; else fine-tune from these ONNX weights (BatchNorm frozen)
    extra_fonts: float = 0.8  # share of free plates drawn in data.EXTRA_FONTS (0: the 8 bundled faces only)
    rim: float = 0.35  # share of free plates whose figure is a hollow rim around the glyphs (data.sample_plate)
    time_budget_s: float | None = None  # safety stop: exceeding it aborts the run (never changes the schedule)

    def __post_init__(self) -> None:
        check_choice("preprocessing mode", self.mode, MODES)
        check_number("skew (0: no shear/aspect augmentation)", self.skew, 0.0, 0.5)
        check_choice("input_size (px)", self.input_size, INPUT_SIZES)
        for name in ("n_train", "n_val", "epochs", "batch_size", "width", "workers", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.cards < 0:
            raise ValueError(f"cards must be >= 0 (0: plates only), got {self.cards}")
        if self.steps is not None and self.steps < 1:
            raise ValueError(f"steps must be >= 1 (or None for whole epochs), got {self.steps}")
        if self.time_budget_s is not None and not self.time_budget_s > 0:
            raise ValueError(f"time_budget_s must be > 0 seconds (or None for no limit), got {self.time_budget_s}")
        check_number("extra_fonts (a share of the free plates)", self.extra_fonts, 0.0, 1.0)
        check_number("rim (a share of the free plates)", self.rim, 0.0, 1.0)
        if self.extra_fonts > 0 and not data.EXTRA_FONTS:
            raise ValueError(f"extra_fonts {self.extra_fonts} needs the reader's training fonts in "
                             f"{data.EXTRA_FONT_DIR}, which holds none (a damaged install: reinstall plates)")
        if self.init is not None and not Path(self.init).is_file():
            raise ValueError(f"init {self.init!r} is not a file; allowed: the path of exported ONNX weights")
        if self.render_size is not None and not 48 <= self.render_size <= 4096:
            raise ValueError(f"render_size {self.render_size} is outside the allowed 48-4096 px (or None)")
        object.__setattr__(self, "render_sizes", tuple(self.render_sizes))  # a list from JSON or the CLI
        if not self.render_sizes:
            raise ValueError("render_sizes () is not allowed; allowed: one or more sizes, each 48-4096 px")
        for size in self.render_sizes:
            check_number("render_sizes (each, px)", size, 48, 4096, integer=True)
        if self.render_size is not None and self.render_sizes != data.RENDER_SIZES:
            raise ValueError(f"give render_size ({self.render_size}) or render_sizes ({self.render_sizes}), not "
                             "both; allowed: render_size renders every plate at one size, render_sizes draws one "
                             "per plate")

    @property
    def steps_per_epoch(self) -> int:
        """Batches in one pass over the training set: the plates and the glyph cards."""
        return math.ceil((self.n_train + self.cards) / self.batch_size)

    @property
    def total_steps(self) -> int:
        """Optimiser steps of the run: this number alone decides the learning-rate schedule."""
        return self.steps if self.steps is not None else self.epochs * self.steps_per_epoch


class BudgetExceeded(RuntimeError):
    """The safety time budget ran out: the run is aborted rather than trained on a clock-bent schedule."""


def _print_flush(message: str) -> None:
    print(message, flush=True)


def quantise(x: np.ndarray) -> np.ndarray:
    """Preprocessed values as their int8 storage in memory during training.

    Parameters
    ----------
    x : numpy.ndarray
        Preprocessed floats (`plates.reader.preprocess.preprocess`, within ±`CLIP`).

    Returns
    -------
    numpy.ndarray
        int8, ``QUANT`` steps per unit, rounded and clipped to ±127.
    """
    return np.clip(np.round(x * QUANT), -127, 127).astype(np.int8)


def _examples(make, seeds: list[int]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``make(seed)`` -> (x, y, group) for each seed, stacked: (X int8, Y int64, groups)."""
    xs, ys, groups = [], [], []
    for seed in seeds:
        x, y, group = make(seed)
        xs.append(quantise(x))
        ys.append(y)
        groups.append(group)
    return np.stack(xs), np.asarray(ys, dtype=np.int64), groups


def _render_chunk(args: tuple[list[int], int | None, str, float, float, tuple[int, ...], int],
                  ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    seeds, *recipe = args
    return _examples(lambda seed: data.training_example(seed, *recipe), seeds)


def _card_chunk(args: tuple[list[int], int, float, float, str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    seeds, *recipe = args
    return _examples(lambda seed: data.glyph_card(seed, *recipe), seeds)


def _render_chunks(chunk_fn, seeds: list[int], recipe: tuple, workers: int, log, what: str):
    """``chunk_fn((seeds of 100, *recipe))`` over ``seeds`` in ``workers`` processes, in seed order whatever the
    worker count, with progress every 2,000 -> (X int8, Y int64, groups)."""
    jobs = [(seeds[i : i + 100], *recipe) for i in range(0, len(seeds), 100)]
    start = time.perf_counter()
    parts = []
    if workers == 1:
        results = map(chunk_fn, jobs)
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        results = pool.map(chunk_fn, jobs)
    for i, part in enumerate(results):
        parts.append(part)
        if (i + 1) % 20 == 0 or i + 1 == len(jobs):
            log(f"  rendered {sum(len(p[1]) for p in parts)}/{len(seeds)} {what} ({time.perf_counter() - start:.0f} s)")
    if workers != 1:
        pool.shutdown()
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    groups = [g for p in parts for g in p[2]]
    return x, y, groups


def render_cards(seeds: list[int], workers: int, log=_print_flush, extra_fonts: float = 0.0, rim: float = 0.0,
                 input_size: int = INPUT_SIZE, mode: str = "contrast-dots"):
    """Glyph cards (:func:`plates.reader.data.glyph_card`) for ``seeds`` in ``workers`` processes -> (X int8, Y).

    Parameters
    ----------
    seeds : list of int
        The examples' seeds.
    workers : int
        Processes.
    log : callable, optional
        Progress lines (default: print and flush).
    extra_fonts : float, optional
        Share of free plates in one of the extra fonts (0-1).
    rim : float, optional
        Share of free plates with a hollow rim figure (0-1).
    input_size : int, optional
        The network's input side S, px.
    mode : str, optional
        The preprocessing mode.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        X (n, 3, S, S) int8 and Y (n, 2) int64 class indices.
    """
    if not seeds:
        return np.zeros((0, 3, input_size, input_size), np.int8), np.zeros((0, 2), np.int64)
    x, y, _ = _render_chunks(_card_chunk, seeds, (input_size, extra_fonts, rim, mode), workers, log, "glyph cards")
    return x, y


def render_set(seeds: list[int], render_size: int | None, mode: str, workers: int, log=_print_flush,
               extra_fonts: float = 0.0, rim: float = 0.0, render_sizes: tuple[int, ...] = data.RENDER_SIZES,
               input_size: int = INPUT_SIZE):
    """Render and preprocess plates for ``seeds`` in ``workers`` processes -> (X int8, Y int64, groups).

    Parameters
    ----------
    seeds : list of int
        The plates' seeds.
    render_size : int or None
        The plates' side, px; None draws one of ``render_sizes``.
    mode : str
        The preprocessing mode.
    workers : int
        Processes.
    log : callable, optional
        Progress lines.
    extra_fonts, rim : float, optional
        Shares of free plates in the extra fonts and with a rim figure (0-1).
    render_sizes : tuple of int, optional
        The sides drawn from.
    input_size : int, optional
        The network's input side S, px.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, list of str)
        X (n, 3, S, S) int8, Y (n, 2) int64 and the plates' groups.
    """
    recipe = (render_size, mode, extra_fonts, rim, tuple(render_sizes), input_size)
    return _render_chunks(_render_chunk, seeds, recipe, workers, log, "plates")


def augment(torch, x, gen, skew: float = 0.0):
    """Random scale 0.9-1.1, shift +-3% of the side, rotation +-6 degrees on a (N, 3, S, S) batch (zero padding); with
    ``skew`` > 0 also a horizontal shear of up to +-skew and a width/height ratio of up to x(1 + 2 skew) either way
    (slanted, condensed and extended figures).

    Each image gets its own transform (`affine_params`, drawn uniformly on the CPU generator ``gen``), applied
    with ``torch.nn.functional.affine_grid`` / ``grid_sample`` (bilinear, ``align_corners=False``). The shift is
    ±0.06 in grid_sample's normalised coordinates (−1 to 1 across the image), i.e. up to 3% of the side; pixels
    brought in from outside the image are 0.

    Parameters
    ----------
    torch : module
        The torch module (imported lazily by the caller).
    x : torch.Tensor
        Float images, shape (N, 3, S, S), on any device; the values are resampled as they are (the trainer passes
        its stored images divided by ``QUANT``).
    gen : torch.Generator
        A CPU random stream; the same state gives the same transforms.
    skew : float, optional
        Shear / aspect augmentation (0: none).

    Returns
    -------
    torch.Tensor
        The transformed batch, same shape, dtype and device as ``x``.
    """
    theta = affine_params(torch, x.shape[0], gen, skew).to(x.device)  # drawn on the CPU generator, used where x is
    grid = torch.nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    return torch.nn.functional.grid_sample(x, grid, padding_mode="zeros", align_corners=False)


def affine_params(torch, n: int, gen, skew: float = 0.0):
    """(n, 2, 3) affine matrices (output -> input coordinates) of `augment`, drawn from ``gen``.

    Parameters
    ----------
    torch : module
        The torch module (imported lazily by the caller).
    n : int
        Matrices.
    gen : torch.Generator
        The random stream.
    skew : float, optional
        Shear / aspect augmentation (0: none).

    Returns
    -------
    torch.Tensor, shape (n, 2, 3)
        The matrices.
    """
    scale = 1.0 + (torch.rand(n, generator=gen) - 0.5) * 0.2
    angle = (torch.rand(n, generator=gen) - 0.5) * math.radians(12)
    shift = (torch.rand(n, 2, generator=gen) - 0.5) * 0.12
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    if skew > 0:  # output -> input coordinates: theta @ [[a, s], [0, 1 / a]] (aspect a, shear s)
        aspect = torch.exp((torch.rand(n, generator=gen) - 0.5) * 2 * math.log1p(2 * skew))
        shear = (torch.rand(n, generator=gen) - 0.5) * 2 * skew
        zero = torch.zeros(n)
        extra = torch.stack([torch.stack([aspect, shear, zero], 1), torch.stack([zero, 1 / aspect, zero], 1),
                             torch.stack([zero, zero, torch.ones(n)], 1)], 1)
        theta = theta @ extra
    return theta


def one_cycle(progress: float, max_lr: float, warmup: float = 0.1) -> float:
    """The learning rate's schedule: linear warm-up to ``max_lr`` then cosine decay to 1% of it.

    Parameters
    ----------
    progress : float
        Share of the run's steps done, 0-1.
    max_lr : float
        The peak learning rate.
    warmup : float
        Share of the steps spent warming up (from 4% of ``max_lr``).

    Returns
    -------
    float

    Examples
    --------
    >>> one_cycle(0.0, 1.0), one_cycle(0.1, 1.0), one_cycle(1.0, 1.0)
    (0.04, 1.0, 0.01)
    """
    if progress < warmup:
        return max_lr * (0.04 + 0.96 * progress / warmup)
    t = (progress - warmup) / (1.0 - warmup)
    return max_lr * (0.01 + 0.99 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, t))))


def train_mode(model, config: TrainConfig):
    """``model`` in training mode; a fine-tune stage (``config.init``) keeps BatchNorm statistics frozen.

    Parameters
    ----------
    model : torch.nn.Module
        The reader, changed in place.
    config : TrainConfig
        The run's settings.

    Returns
    -------
    torch.nn.Module
        ``model``.
    """
    # lazy: torch, the [train] extra
    from plates.reader.export import freeze_batch_norm

    model.train()
    return freeze_batch_norm(model) if config.init is not None else model


def evaluate(model, x_int8: np.ndarray, y: np.ndarray, groups: list[str]) -> dict[str, float]:
    """Exact-match accuracy (both positions right) overall and per plate group.

    Parameters
    ----------
    model : torch.nn.Module
        The reader (put in eval mode).
    x_int8 : numpy.ndarray of int8, shape (n, 3, S, S)
        Preprocessed inputs.
    y : numpy.ndarray, shape (n, 2)
        Class indices.
    groups : list of str
        Each example's plate group.

    Returns
    -------
    dict of str to float
        ``"all"`` and each group to its accuracy, 0-1.
    """
    # lazy: torch, the [train] extra
    import torch

    model.eval()
    preds = []
    with torch.no_grad():
        for i in range(0, len(x_int8), 256):
            xb = torch.from_numpy(x_int8[i : i + 256].astype(np.float32) / QUANT)
            preds.append(model(xb).argmax(-1).numpy())
    pred = np.concatenate(preds)
    ok = (pred == y).all(axis=1)
    result = {"all": float(ok.mean())}
    for group in sorted(set(groups)):
        sel = np.array([g == group for g in groups])
        result[group] = float(ok[sel].mean())
    return result


#: Config fields that cannot change the weights (left out of the ONNX metadata, so the bytes do not depend on them).
NOT_IN_WEIGHTS = ("workers", "time_budget_s")


def fit(model, x_int8: np.ndarray, y: np.ndarray, config: TrainConfig, *, device: str = "cpu",
        before_step: Callable[[int], None] | None = None,
        end_epoch: Callable[[int, int, float], None] | None = None) -> float:
    """The training loop of the recipe (module docstring, step 2): ``config.total_steps`` AdamW steps on
    ``model`` over the examples ``x_int8`` (preprocessed, `quantise`d), in place.

    Parameters
    ----------
    model : torch.nn.Module
        The network (`plates.reader.model.PlateReader`), already on ``device``; trained channels-last.
    x_int8 : numpy.ndarray
        (N, 3, S, S) int8 examples (`render_set`, `render_cards`).
    y : numpy.ndarray
        (N, 2) int64 class codes (`plates.reader.coding.encode`).
    config : TrainConfig
        The loop reads ``seed`` (batch order and augmentation), ``batch_size``, ``lr``, ``weight_decay``,
        ``skew``, ``init`` (BatchNorm frozen) and ``total_steps``; an epoch is ceil(N / ``batch_size``) steps.
    device : str
        Where the batches go (``"cuda"`` for an exploration on a GPU: ``bench/explore_reader.py``).
    before_step : callable or None
        ``before_step(step)`` before each step (the time budget's check).
    end_epoch : callable or None
        ``end_epoch(epoch, steps_done, mean_loss)`` after each epoch and the last step (validation, a log
        line); the model is back in training mode afterwards.

    Returns
    -------
    float
        The last batch's loss.

    References
    ----------
    HueManity §4 (the per-position cross-entropy).
    """
    # lazy: torch, the [train] extra
    import torch

    # channels-last tensors: a 2-thread step of the default network at 64 px took 115 ms against 134 ms contiguous
    # (2026-11-26, quiet; OMP passive). Float sums differ from a contiguous run, so weights trained before this
    # (commit 37d059a and older) are reproduced at their own commit.
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    steps_per_epoch, total_steps = math.ceil(len(y) / config.batch_size), config.total_steps
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    gen, rng = torch.Generator().manual_seed(config.seed), np.random.default_rng(config.seed)
    xs, ys = torch.from_numpy(x_int8).to(device), torch.from_numpy(y).to(device)
    total, n_batches, order, loss = 0.0, 0, None, None
    for step in range(total_steps):
        if before_step is not None:
            before_step(step)
        b = step % steps_per_epoch
        if b == 0:
            train_mode(model, config)
            order = torch.from_numpy(rng.permutation(len(y))).to(device)
            total, n_batches = 0.0, 0
        for group in opt.param_groups:
            group["lr"] = one_cycle(step / total_steps, config.lr)  # steps alone decide the schedule
        idx = order[b * config.batch_size : (b + 1) * config.batch_size]
        xb = augment(torch, xs[idx].float() / QUANT, gen, config.skew).contiguous(memory_format=torch.channels_last)
        loss = loss_fn(model(xb).reshape(-1, N_CLASSES), ys[idx].reshape(-1)) * N_POSITIONS
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        n_batches += 1
        total += loss.item()
        if end_epoch is not None and (b == steps_per_epoch - 1 or step == total_steps - 1):
            end_epoch(step // steps_per_epoch + 1, step + 1, total / n_batches)
            train_mode(model, config)
    return float("nan") if loss is None else float(loss.item())


def train(config: TrainConfig, out_dir: str | Path, command: str = "plates train-baseline", log=None) -> dict:
    """Run the whole recipe (module docstring); writes ``baseline.onnx`` and ``MODEL_CARD.md`` into ``out_dir``.

    Torch's thread count and deterministic-algorithms flag are restored afterwards.

    Parameters
    ----------
    config : TrainConfig
        Every knob of the run.
    out_dir : str or pathlib.Path
        Where the weights and the model card go.
    command : str
        The command recorded in the model card.
    log : callable or None
        ``log(text)`` for progress lines; None prints them.

    Returns
    -------
    dict
        The metrics: ``config``, per-epoch ``history``, ``render_s``, ``total_s``, ``cpu_s``, ``init_sha256``,
        ``onnx`` (its path), ``onnx_bytes``.

    Raises
    ------
    BudgetExceeded
        ``config.time_budget_s`` ran out (nothing is written).

    References
    ----------
    HueManity §4 (the per-position cross-entropy).
    """
    # lazy: torch, the [train] extra
    import torch

    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    try:
        return _train(config, out_dir, command, log)
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)


def _train(config: TrainConfig, out_dir: str | Path, command: str, log) -> dict:
    # lazy: torch, the [train] extra
    import torch

    from plates.reader.export import export_onnx, load_onnx_weights
    from plates.reader.model import PlateReader

    if log is None:
        log = _print_flush
    t0 = time.perf_counter()
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    train_seeds = [data.TRAIN_SEED_BASE + config.seed * 1_000_000 + i for i in range(config.n_train)]
    val_seeds = [data.VAL_SEED_BASE + config.seed * 1_000_000 + i for i in range(config.n_val)]
    log(f"rendering {config.n_train} training + {config.n_val} validation plates")
    x_tr, y_tr, _ = render_set(train_seeds, config.render_size, config.mode, config.workers, log, config.extra_fonts,
                                config.rim, config.render_sizes, config.input_size)
    x_va, y_va, g_va = render_set(val_seeds, config.render_size, config.mode, config.workers, log, config.extra_fonts,
                                  config.rim, config.render_sizes, config.input_size)
    if config.cards:  # glyph shapes alone, after the plates (validation stays plates only)
        card_seeds = [config.seed * 1_000_000 + i for i in range(config.cards)]
        x_c, y_c = render_cards(card_seeds, config.workers, log, config.extra_fonts, config.rim, config.input_size,
                                config.mode)
        x_tr, y_tr = np.concatenate([x_tr, x_c]), np.concatenate([y_tr, y_c])
    t_render = time.perf_counter() - t0
    log(f"rendered in {t_render:.0f} s")

    def check_budget(step: int) -> None:
        if config.time_budget_s is not None and time.perf_counter() - t0 > config.time_budget_s:
            raise BudgetExceeded(f"time budget of {config.time_budget_s:.0f} s exceeded after {step} of "
                                 f"{total_steps} steps; use fewer --steps/--epochs/--n-train (nothing was written)")

    model = PlateReader(width=config.width, input_size=config.input_size)
    if config.init is not None:  # a fine-tune stage: the given weights, BatchNorm statistics frozen
        load_onnx_weights(model, config.init)
    history: list[dict] = []

    def end_epoch(epoch: int, step: int, loss: float) -> None:
        acc = evaluate(model, x_va, y_va, g_va)
        history.append({"epoch": epoch, "steps": step, "loss": loss, **acc})
        log(f"epoch {epoch}: step {step}/{total_steps}, loss {loss:.3f}, "
            f"val {json.dumps({k: round(v, 3) for k, v in acc.items()})} ({time.perf_counter() - t0:.0f} s)")

    total_steps = config.total_steps
    fit(model, x_tr, y_tr, config, before_step=check_budget, end_epoch=end_epoch)
    check_budget(total_steps)
    elapsed = time.perf_counter() - t0
    out_dir = Path(out_dir)
    weights_config = {k: v for k, v in asdict(config).items() if k not in NOT_IN_WEIGHTS}
    metadata = {"model": MODEL_NAME, "train_config": json.dumps(weights_config),
                "val_accuracy": json.dumps(history[-1])}
    if config.init is not None:  # which bytes the stage started from (the path alone says nothing elsewhere)
        metadata["init_sha256"] = hashlib.sha256(Path(config.init).read_bytes()).hexdigest()
    path = export_onnx(model, out_dir / "baseline.onnx", mode=config.mode,
                       extra_metadata=metadata)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = time.process_time() + children.ru_utime + children.ru_stime
    metrics = {"config": asdict(config), "history": history, "render_s": t_render, "total_s": elapsed,
               "cpu_s": cpu_s, "init_sha256": metadata.get("init_sha256"),
               "onnx": str(path), "onnx_bytes": path.stat().st_size}
    (out_dir / "MODEL_CARD.md").write_text(model_card(metrics, command))
    log(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB) in {elapsed:.0f} s")
    return metrics


PREPROCESSING_NOTE = """The reader feeds the network the plate's CIELAB colours after subtracting the plate's median colour
and whitening along the principal axes of its colours, each axis oriented so the minority colour is positive
(plates/reader/preprocess.py), instead of plain sRGB. Experiment (same 3,000 training / 400 validation
plates of an early stand-in renderer, same network and schedule, seed 0): after 2 epochs the contrast input
read 59.5% of validation plates exactly (HueManity numeric 96.5%, CBE 70.8%) against 0.5% for plain sRGB, and
after 5 epochs 80.8% (numeric 100%, CBE 98.5%, alphanumeric 41%). So the network learns shapes of contrast,
not 25 + 5 colour sets.

Mode `contrast-dots` (the default since the plates of an independent generator, bench/foreign_plates.py, were
measured) first box-filters the dots alone: where the plate's corners show one flat canvas colour (the paper
between and around the dots), canvas pixels get weight 0 and an input cell holding no dot takes the mean of the
dots within 5.2% of the side (5 cells at 96 px, 3 at 64; plates/reader/preprocess.py, `dots_only`), so white, black or coloured paper no longer tints
the plate. Decided by experiment on a GPU (same training plates and schedule, the benchmark's foreign plates):
against plain `contrast` it read more of the coloured-canvas and outlined-digit variants, with
the ColorBlindnessEval and HueManity presets unchanged within noise (measured with 96 px inputs)."""


def model_card(metrics: dict, command: str) -> str:
    """The model card's Markdown (training command, seed, data recipe, validation accuracy).

    Parameters
    ----------
    metrics : dict
        The run's metrics.
    command : str
        The training command.

    Returns
    -------
    str
        Markdown.
    """
    cfg, last = metrics["config"], metrics["history"][-1]
    rows = "\n".join(f"| {k} | {v:.1%} |" for k, v in last.items() if k not in ("epoch", "loss", "steps"))
    size_mb = metrics["onnx_bytes"] / 1e6
    sizes = cfg["render_size"] or ", ".join(str(v) for v in cfg["render_sizes"])
    cards = (f", and {cfg['cards']} glyph cards (the text alone, drawn without dots at 3x the input side; card "
             f"seeds {data.CARD_SEED_BASE} + seed x 10^6 + i; plates/reader/data.py, glyph_card)"
             if cfg.get("cards") else "")
    steps = last.get("steps", "?")
    stage = ""
    if cfg.get("init"):
        stage = (f"\n\nA fine-tune stage: it starts from the weights {cfg['init']} (sha256 {metrics['init_sha256']}), "
                 "BatchNorm statistics frozen (plates/reader/export.py, load_onnx_weights).")
    if cfg.get("extra_fonts"):
        stage += (f" {cfg['extra_fonts']:.0%} of the free plates are drawn in the reader's extra training faces "
                  "(plates/reader/fonts: Roboto, Caladea, Source Serif, Source Sans, Manrope, Roboto Mono, "
                  "Source Code Pro, IBM Plex Mono).")
    if cfg.get("rim"):
        stage += (f" {cfg['rim']:.0%} of the free plates draw their figure as a hollow rim around the glyphs (a ring "
                  f"{data.RIM_WIDTH[0]:.1%}-{data.RIM_WIDTH[1]:.1%} of the plate outside each stroke's edge).")
    timing = (f"{metrics['total_s'] / 60:.1f} min wall-clock on this machine ({metrics['render_s'] / 60:.1f} min "
              f"of it rendering), {metrics['cpu_s'] / 60:.1f} CPU-minutes over all processes")
    return f"""# baseline-cnn: the offline plate reader

A small CNN (plates/reader/model.py, {size_mb:.1f} MB ONNX) reading the one or two characters of an
Ishihara-style plate, one head per position over blank + HueManity's 58 symbols (HueManity §4 baseline
design, App. B label spaces; ColorBlindnessEval's 0-99 numbers). Inference: onnxruntime, preprocessing in
numpy (plates/reader/preprocess.py, mode `{cfg['mode']}`), no PyTorch.

## Reproduce

```
{command}
```

Seed {cfg['seed']}; {cfg['n_train']} training plates (plate seeds {data.TRAIN_SEED_BASE} + seed x 10^6 + i) and
{cfg['n_val']} validation plates (seeds {data.VAL_SEED_BASE} + seed x 10^6 + i), rendered at {sizes} px and
downsized to {cfg.get('input_size', 96)} px{cards}; {steps} steps ({len(metrics['history'])} epochs) of AdamW (lr {cfg['lr']}, warm-up +
cosine), batch {cfg['batch_size']}, width {cfg['width']}, {cfg['threads']} torch thread(s). Took {timing}.{stage}

Deterministic: the step count alone sets the learning-rate schedule (no clock), seeds fix the plates, batch
order and augmentation, torch runs deterministic algorithms on the given thread count, so the same command with
the same torch build on the same kind of CPU writes byte-identical weights (the worker count does not matter).

## Preprocessing: per-image colour contrast, decided by experiment

{PREPROCESSING_NOTE}

## Data recipe

{data.RECIPE}

## Validation accuracy (exact match, both positions; held-out seeds, same mix as training)

| plates | accuracy |
|---|---|
{rows}

The benchmark (bench/bench_baseline.py) measures accuracy on fresh 900 px plates: see README,
"The baseline reader".
"""
