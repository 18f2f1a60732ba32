"""Shared drawing pieces: the canonical frame every kind draws in, and raster geometry (numpy only).

Every kind draws a *canonical* square image with target A's context on the left; `plates.stimuli.illusions.
render` mirrors it (``swap``) and transposes it (layout "up-down") afterwards. Coordinates are pixel centres
(x + 0.5, y + 0.5) in px; colours are sRGB 0-255 uint8 unless a name says CIELAB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from plates.stimuli.illusions.colours import lerp, rgb8

__all__ = [
    "Drawing",
    "Job",
    "canvas",
    "centres",
    "compose",
    "disc",
    "inducer_pair",
    "lighter_of",
    "paint",
    "rough_rect",
    "stripe_field",
]


@dataclass(frozen=True)
class Job:
    """What a canonical drawing function gets.

    ``left``/``right``: the target colours to paint on the canonical left / right (sRGB 0-255 triples; the
    renderer passes A's colour on the left unless the spec swaps). ``direction``: the stripe direction in the
    canonical frame; ``diagonal``: +1 for stripes along lower-left -> upper-right in the canonical frame,
    -1 for the mirror image. ``rng``: independent PCG64 streams (layout, noise, scene, spare) from the
    spec's seed.
    """

    spec: Any
    left: tuple[int, ...]
    right: tuple[int, ...]
    direction: str | None
    diagonal: int
    rng: tuple[np.random.Generator, ...]

    @property
    def size(self) -> int:
        return self.spec.size


@dataclass
class Drawing:
    """A canonical drawing: pixels (S, S, 3) uint8 sRGB 0-255; target masks; the context masks of the inducer
    acting on each target (for measuring inducer contrast on the pixels); which side the illusion makes look
    lighter at equal target pixels ("left", "right" or None: no lightness prediction); a chromatic prediction
    (text, "" if none); kind-specific truth keyed by "left"/"right"; extra stats."""

    pixels: np.ndarray
    left: np.ndarray
    right: np.ndarray
    context_left: np.ndarray
    context_right: np.ndarray
    lighter: str | None
    tint: str = ""
    per_target: dict[str, dict[str, Any]] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)


def canvas(size: int, colour) -> np.ndarray:
    """An (S, S, 3) uint8 image filled with one sRGB 0-255 colour."""
    out = np.empty((size, size, 3), dtype=np.uint8)
    out[...] = np.asarray(colour, dtype=np.uint8)
    return out


def paint(img: np.ndarray, mask: np.ndarray, colour) -> None:
    """``img[mask] = colour`` for an (S, S, 3) uint8 image, one channel at a time (a 2-D boolean assignment
    per channel is faster than the 3-channel one: docs/benchmarks.md). ``colour``: one sRGB 0-255 triple, or (N, 3) values
    for the N pixels of ``mask`` in row-major order."""
    values = np.asarray(colour, dtype=np.uint8)
    for c in range(3):
        img[..., c][mask] = values[..., c]


def compose(labels: np.ndarray, palette) -> np.ndarray:
    """An (S, S, 3) uint8 image from a label map (S, S) of small integers and a palette (K, 3) sRGB 0-255."""
    pal = np.asarray(palette, dtype=np.uint8)
    out = np.empty((*labels.shape, 3), dtype=np.uint8)
    for c in range(3):
        np.take(pal[:, c], labels, out=out[..., c])
    return out


def centres(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates: y as (S, 1), x as (1, S), px."""
    c = np.arange(size, dtype=np.float64) + 0.5
    return c[:, None], c[None, :]


def inducer_pair(
    spec, strength: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The two inducer colours at the spec's strength, each moved from their CIELAB midpoint toward its full
    colour by ``strength``: (lab0, lab1, rgb0, rgb1); CIELAB float triples and sRGB 0-255 uint8 triples."""
    s = spec.strength if strength is None else strength
    i0, i1 = spec.resolved_inducers[:2]
    mid = lerp(i0, i1, 0.5)
    lab0, lab1 = lerp(mid, i0, s), lerp(mid, i1, s)
    return lab0, lab1, rgb8(lab0), rgb8(lab1)


def lighter_of(lab_left, lab_right, *, contrast: bool = True) -> str | None:
    """The side predicted to look lighter from the L* of the two contexts: with ``contrast`` the target on the
    darker context ("left"/"right"); otherwise (assimilation) the one on the lighter context. None when the
    contexts have the same L* (within 1e-6)."""
    d = float(lab_left[0]) - float(lab_right[0])
    if abs(d) < 1e-6:
        return None
    left_darker = d < 0
    return ("left" if left_darker else "right") if contrast else ("right" if left_darker else "left")


def stripe_field(
    size: int, direction: str, count: int, diagonal: int = 1, bend=None
) -> tuple[np.ndarray, ...]:
    """Stripe index, class (0/1), across- and along-coordinates of every pixel, for ``count`` stripes of each
    class across the image (stripe width w = size / (2 * count) px, measured across the stripes).

    "horizontal" stripes run along x (index grows with y); "vertical" along y; "diagonal" (diagonal = +1)
    from lower left to upper right, across-coordinate (x + y) / sqrt(2); diagonal = -1 is its mirror image.
    The width is the same in every direction, so diagonal stripes cross the image up to sqrt(2) times as
    often. ``bend`` (callable along -> px offset) bends the stripes (RCID's curved stripes).
    Returns (index int32 (S, S), class uint8 (S, S), across, along (float, broadcast to (S, S)), w).
    """
    y, x = centres(size)
    w = size / (2 * count)
    if direction == "horizontal":
        across, along = y, x
    elif direction == "vertical":
        across, along = x, y
    else:
        r2 = np.sqrt(2.0)
        if diagonal > 0:  # boundaries x + y = const: stripes run from lower left to upper right
            across, along = (x + y) / r2, (x - y + size) / r2
        else:  # the mirror image: boundaries x - y = const
            across, along = (x - y + size) / r2, (x + y) / r2
    if bend is not None:
        across = across + bend(along)  # along is 1-D for axis-aligned stripes: the sine runs once per column
    across = np.broadcast_to(across, (size, size))
    along = np.broadcast_to(along, (size, size))
    index = np.floor(across / w).astype(np.int32)
    return index, (index & 1).astype(np.uint8), across, along, w


def rough_rect(
    size: int,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    amp: float,
    rng: np.random.Generator,
    knots: int = 6,
) -> np.ndarray:
    """Mask of the rectangle [x0, x1) x [y0, y1) (px) whose four sides wander by up to ``amp`` px: each side's
    offset is a piecewise-linear profile through ``knots + 1`` uniform random values (RCID's edge noise)."""
    y, x = centres(size)
    pos = np.arange(size, dtype=np.float64) + 0.5
    at = np.linspace(0.0, size, knots + 1)

    def side() -> np.ndarray:
        if amp <= 0:
            return np.zeros(size)
        return np.interp(pos, at, rng.uniform(-amp, amp, knots + 1))

    left, right, top, bottom = side(), side(), side(), side()
    return (
        (x >= x0 + left[:, None])
        & (x < x1 + right[:, None])
        & (y >= y0 + top[None, :])
        & (y < y1 + bottom[None, :])
    )


def disc(size: int, cx: float, cy: float, r: float) -> np.ndarray:
    """Mask of the pixels whose centres lie within ``r`` px of (cx, cy)."""
    y, x = centres(size)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
