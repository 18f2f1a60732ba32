"""Seeded random subsets of a benchmark set, balanced across its colour sets.

HueManity §4: "our MLLM evaluations were conducted on subsets of 1,000 images, randomly sampled for both the
numeric and alphanumeric tasks". ``--limit N`` takes the first N plates of a preset's fixed order (label-major:
on ``huemanity-numeric`` only labels 10-49 for N = 1,000); a `Sample` draws N plates at random instead, the same
number from every colour set (N // sets each, the remainder to sets chosen at random), labels without
replacement within a set. The draw is ordered round-robin over the sets, so any prefix of it (``--limit``) is
balanced too. A plate's every variant comes with it (a ColorBlindnessEval plate is a standard and a clear
image). The draw depends only on the sample's seed, its size and the dataset's name and contents, so a
sample is the same in any process and a rerun resumes it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plates.datasets.items import DatasetItem
from plates.datasets.load import load_dataset
from plates.datasets.presets import PRESETS, get_preset, make_spec
from plates.validation import check_int

__all__ = ["Sample", "load_sample", "sample_items", "sample_plates"]


@dataclass(frozen=True)
class Sample:
    """A seeded random subset: ``n`` plates (every variant of each), balanced across colour sets; ``seed`` >= 0.

    Parameters
    ----------
    n : int
        Plates drawn, 1 to 2**63 - 1 (and at most the set's plates, checked when drawn).
    seed : int, optional
        The draw's seed, 0 to 2**63 - 1.

    Raises
    ------
    ValueError
        ``n`` or ``seed`` not an integer in range.
    """

    n: int
    seed: int = 0

    def __post_init__(self) -> None:
        for name, value, low in (("n", self.n, 1), ("seed", self.seed, 0)):
            check_int(f"sample {name}", value, low, 2**63 - 1)

    @property
    def tag(self) -> str:
        """How manifests and runs name it: ``sample-<n>-seed-<seed>``."""
        return f"sample-{self.n}-seed-{self.seed}"

    def as_dict(self) -> dict:
        """``{"n": n, "seed": seed}``, as ``generate.json`` records it."""
        return {"n": self.n, "seed": self.seed}


def _rng(sample: Sample, dataset: str) -> np.random.Generator:
    key = int.from_bytes(hashlib.sha256(dataset.encode()).digest()[:8], "big")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([sample.seed, key])))


def _draw(cells: dict[str, list], sample: Sample, dataset: str) -> list[tuple[str, object]]:
    """(colour set, plate) pairs: ``sample.n`` plates drawn from ``cells`` (colour set -> its plates, in a fixed
    order), balanced across sets, round-robin over the sets in a seeded order."""
    sets = list(cells)
    total = sum(len(v) for v in cells.values())
    if sample.n > total:
        raise ValueError(f"sample n={sample.n} is larger than {dataset!r} ({total} plates); allowed: 1-{total}")
    rng = _rng(sample, dataset)
    k = len(sets)
    counts = np.full(k, sample.n // k)
    counts[rng.permutation(k)[: sample.n % k]] += 1
    short = [s for s, c in zip(sets, counts) if c > len(cells[s])]
    if short:
        raise ValueError(f"sample n={sample.n} needs {int(counts.max())} plates of each colour set but "
                         f"{short[0]!r} has {len(cells[short[0]])}; allowed: n <= {k * min(map(len, cells.values()))}")
    picks = [rng.choice(len(cells[s]), size=int(c), replace=False) for s, c in zip(sets, counts)]
    order = rng.permutation(k)
    return [(sets[i], cells[sets[i]][int(picks[i][rank])]) for rank in range(int(counts.max())) for i in order
            if rank < counts[i]]


def sample_plates(preset: str, sample: Sample) -> list[tuple[int, str, str]]:
    """The drawn plates of preset ``preset`` as (label index, label, colour set), in sample order.

    Parameters
    ----------
    preset : str
        A plate preset's name.
    sample : Sample
        The draw.

    Returns
    -------
    list of tuple of (int, str, str)

    Raises
    ------
    ValueError
        An unknown preset, or ``sample.n`` larger than its plates.
    """
    p = get_preset(preset)
    cells = {pal: list(enumerate(p.labels)) for pal in p.palettes}
    return [(li, label, pal) for pal, (li, label) in _draw(cells, sample, preset)]


def sample_items(items: Sequence[DatasetItem], sample: Sample, dataset: str) -> list[DatasetItem]:
    """The drawn plates of a loaded dataset (e.g. a generated folder): every item of each drawn plate (a plate
    is a (colour set, label) pair), plates in sample order, a plate's items in their dataset order.

    Parameters
    ----------
    items : sequence of DatasetItem
        The loaded set.
    sample : Sample
        The draw.
    dataset : str
        The set's name (seeds the draw with ``sample.seed``, and names the set in errors).

    Returns
    -------
    list of DatasetItem

    Raises
    ------
    ValueError
        ``sample.n`` larger than the set's plates.
    """
    plates: dict[tuple[str, str], list[DatasetItem]] = {}
    for it in items:
        plates.setdefault((it.group, it.label), []).append(it)
    cells: dict[str, list] = {}
    for cs, label in plates:
        cells.setdefault(cs, []).append(label)
    return [it for cs, label in _draw(cells, sample, dataset) for it in plates[(cs, label)]]


def load_sample(source: str | os.PathLike, sample: Sample, *, limit: int | None = None, size: int = 900,
                seed: int = 0) -> list[DatasetItem]:
    """The items of ``sample`` drawn from a preset name (rendered on demand at ``size`` px with preset seed
    ``seed``) or a generated folder; ``limit`` keeps the first items of the draw (balanced: see module doc).

    Parameters
    ----------
    source : str or os.PathLike
        A plate preset's name or a generated folder.
    sample : Sample
        The draw.
    limit : int or None, optional
        Items kept, >= 0 (None: all).
    size : int, optional
        Image side for a preset, px.
    seed : int, optional
        The preset seed for a preset.

    Returns
    -------
    list of DatasetItem

    Raises
    ------
    ValueError
        A bad ``limit``, ``sample.n`` larger than the set, or a folder that does not load.
    """
    check_int("limit", limit, 0, none_ok=True)
    if not Path(source).is_dir() and str(source) in PRESETS:
        name = str(source)
        p = get_preset(name)
        items = []
        for _li, label, pal in sample_plates(name, sample):
            spec = make_spec(name, label, pal, size=size, seed=seed)
            items.extend(DatasetItem(f"{name}:{pal}:{label}:{v}", name, spec, v, label, pal, None) for v in p.variants)
    else:
        loaded = load_dataset(source)
        items = sample_items(loaded, sample, loaded[0].dataset if loaded else str(source))
    return items if limit is None else items[:limit]
