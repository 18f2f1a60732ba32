"""Illusion presets: each item is one procedurally drawn illusion (`plates.stimuli.illusions`).

* ``rcid-contrast``, ``rcid-stripe``, ``rcid-filter``: RCID's three kinds (§3): inducer strength 0 (controls:
  no inducer, targets identical or different), 0.5 and 1 (illusions: identical targets; traps: targets that
  differ by ±2 or ±5 ΔE2000), both layouts (left-right, up-down), stripe directions for the stripe kind; half the
  items are controls, as in RCID's split (§3.5). 
* ``illusions-classic``: the classic illusions (simultaneous contrast achromatic and chromatic, White's,
  Munker-White, Adelson's checker-shadow, Cornsweet, Chevreul, Koffka ring, neon spreading): illusion items
  (identical targets) and traps (targets ±3 ΔE2000 apart) at strengths 0.5 and 1, with controls at strength 0.
* ``illusion-magnitude``: for every comparison kind and strengths 0.5 and 1, the signed physical difference
  swept over -10..10 ΔE2000 (21 levels, 2 seeds): the data of a point-of-subjective-equality fit per model.

Seeds derive from (preset seed, preset, item index) through SHA-256. Differences are signed CIEDE2000
(`IllusionSpec.delta_e`: + makes target A lighter).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from plates.datasets.write import Entry
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.illusions.kinds import DIRECTIONS, KINDS, LAYOUTS, STRIPE_KINDS

__all__ = ["CLASSIC_KINDS", "COMPARISON_KINDS", "classic_entries", "magnitude_entries", "rcid_entries"]

CLASSIC_KINDS = tuple(k for k in KINDS if not k.startswith("rcid-"))
#: Kinds whose question compares two targets' lightness (all but the filter kind, which asks colour names).
COMPARISON_KINDS = tuple(k for k in KINDS if k != "rcid-filter")


def _seed(seed: int, preset: str, i: int) -> int:
    d = hashlib.sha256(f"{seed}\x1f{preset}\x1f{i}".encode()).digest()
    return int.from_bytes(d[:8], "big") >> 1


def _entry(preset: str, i: int, seed: int, **fields) -> Entry:
    spec = IllusionSpec(seed=_seed(seed, preset, i), **fields)
    return Entry(f"{preset}:{i:05d}", spec, group=spec.kind)


def rcid_entries(kind: str, *, size: int = 512, seed: int = 0, repeats: int = 10) -> Iterator[Entry]:
    """RCID-style items of ``kind``: per layout (and stripe direction), ``repeats`` x (4 controls + 2
    illusions + 2 traps).

    Parameters
    ----------
    kind : str
        ``"rcid-contrast"``, ``"rcid-stripe"`` or ``"rcid-filter"`` (also the preset's name).
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.
    repeats : int, optional
        Repeats of the 8 cells: controls at strength 0 with signed CIEDE2000 differences 0, 0, +2, -5; illusions at
        strengths 0.5 and 1 with identical targets; traps at strength 1 with +2 and -5.

    Yields
    ------
    Entry
        Items with ids ``"<preset>:<index>"`` (5 digits), grouped by kind; each spec's seed derives from
        (``seed``, preset, index) through SHA-256.

    References
    ----------
    Mao et al. 2025 (RCID), §3 and §3.5 (half the items controls).
    """
    preset, i = f"{kind}", 0
    directions = DIRECTIONS if kind in STRIPE_KINDS else (None,)
    for _ in range(repeats):
        for layout in LAYOUTS:
            for direction in directions:
                cells = [(0.0, 0.0), (0.0, 0.0), (0.0, 2.0), (0.0, -5.0),  # controls: no inducer
                         (0.5, 0.0), (1.0, 0.0),  # illusions: identical targets
                         (1.0, 2.0), (1.0, -5.0)]  # traps: the pixels differ
                for strength, diff in cells:
                    extra = {"direction": direction} if direction else {}
                    yield _entry(preset, i, seed, kind=kind, size=size, strength=strength, delta_e=diff,
                                 layout=layout, **extra)
                    i += 1


def classic_entries(*, size: int = 512, seed: int = 0, repeats: int = 4) -> Iterator[Entry]:
    """Every classic kind: ``repeats`` x (1 control, 2 illusions, 2 traps) per layout.

    Parameters
    ----------
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.
    repeats : int, optional
        Repeats per kind and layout of: a control (strength 0), illusions at strengths 0.5 and 1 (identical
        targets), traps at strength 1 with signed CIEDE2000 differences +3 and -3.

    Yields
    ------
    Entry
        Items with ids ``"<preset>:<index>"`` (5 digits), grouped by kind; each spec's seed derives from
        (``seed``, preset, index) through SHA-256.
    """
    i = 0
    for kind in CLASSIC_KINDS:
        for _ in range(repeats):
            for layout in LAYOUTS:
                for strength, diff in ((0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (1.0, 3.0), (1.0, -3.0)):
                    yield _entry("illusions-classic", i, seed, kind=kind, size=size, strength=strength,
                                 delta_e=diff, layout=layout)
                    i += 1


def magnitude_entries(*, size: int = 512, seed: int = 0, levels: int = 21, span: float = 10.0,
                      repeats: int = 2) -> Iterator[Entry]:
    """Every comparison kind x strengths 0.5, 1 x ``levels`` signed differences over [-span, span].

    Parameters
    ----------
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.
    levels : int, optional
        Evenly spaced signed CIEDE2000 differences (rounded to 3 decimals), at least 2.
    span : float, optional
        The largest |difference|, CIEDE2000.
    repeats : int, optional
        Items per (kind, strength, difference), each with its own seed.

    Yields
    ------
    Entry
        Items with ids ``"<preset>:<index>"`` (5 digits), grouped by kind; each spec's seed derives from
        (``seed``, preset, index) through SHA-256.
    """
    i = 0
    steps = [round(-span + 2 * span * k / (levels - 1), 3) for k in range(levels)]
    for kind in COMPARISON_KINDS:
        for strength in (0.5, 1.0):
            for diff in steps:
                for _ in range(repeats):
                    yield _entry("illusion-magnitude", i, seed, kind=kind, size=size, strength=strength,
                                 delta_e=diff)
                    i += 1
