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

    Attributes
    ----------
    spec : IllusionSpec
        The spec being drawn.
    left, right : tuple of 3 int
        The target colours to paint on the canonical left / right, sRGB 0-255 (the renderer passes A's colour
        on the left unless the spec swaps).
    direction : str or None
        The stripe direction in the canonical frame.
    diagonal : int
        +1 for stripes along lower-left -> upper-right in the canonical frame, -1 for the mirror image.
    rng : tuple of numpy.random.Generator
        Independent PCG64 streams (layout, noise, scene, spare) from the spec's seed.
    """

    spec: Any
    left: tuple[int, ...]
    right: tuple[int, ...]
    direction: str | None
    diagonal: int
    rng: tuple[np.random.Generator, ...]

    @property
    def size(self) -> int:
        """The image's side, px (the spec's ``size``)."""
        return self.spec.size


@dataclass
class Drawing:
    """A canonical drawing: the pixels, the target and context masks, and what the illusion predicts.

    Attributes
    ----------
    pixels : numpy.ndarray of uint8, shape (S, S, 3)
        sRGB 0-255.
    left, right : numpy.ndarray of bool, shape (S, S)
        The target masks.
    context_left, context_right : numpy.ndarray of bool, shape (S, S)
        The context masks of the inducer acting on each target (for measuring inducer contrast on the pixels).
    lighter : str or None
        Which side the illusion makes look lighter at equal target pixels: "left", "right", or None (no
        lightness prediction).
    tint : str
        A chromatic prediction, in words ("" if none).
    per_target : dict of str to dict
        Kind-specific truth keyed by "left" / "right".
    stats : dict
        Extra statistics of the drawing.
    """

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
    """An image filled with one colour.

    Parameters
    ----------
    size : int
        The side S, px.
    colour : array_like, shape (3,)
        sRGB 0-255.

    Returns
    -------
    numpy.ndarray of uint8, shape (S, S, 3)
        sRGB 0-255.
    """
    out = np.empty((size, size, 3), dtype=np.uint8)
    out[...] = np.asarray(colour, dtype=np.uint8)
    return out


def paint(img: np.ndarray, mask: np.ndarray, colour) -> None:
    """``img[mask] = colour`` for an (S, S, 3) uint8 image, one channel at a time (a 2-D boolean assignment
    per channel is faster than the 3-channel one: docs/benchmarks.md).

    Parameters
    ----------
    img : numpy.ndarray of uint8, shape (S, S, 3)
        sRGB 0-255, changed in place.
    mask : numpy.ndarray of bool, shape (S, S)
        The pixels to paint.
    colour : array_like, shape (3,) or (N, 3)
        One sRGB 0-255 triple, or one for each of the N pixels of ``mask`` in row-major order.
    """
    values = np.asarray(colour, dtype=np.uint8)
    for c in range(3):
        img[..., c][mask] = values[..., c]


def compose(labels: np.ndarray, palette) -> np.ndarray:
    """An image from a label map and a palette.

    Parameters
    ----------
    labels : numpy.ndarray of int, shape (S, S)
        Indices into ``palette`` (0 to K - 1).
    palette : array_like, shape (K, 3)
        sRGB 0-255.

    Returns
    -------
    numpy.ndarray of uint8, shape (S, S, 3)
        sRGB 0-255.
    """
    pal = np.asarray(palette, dtype=np.uint8)
    out = np.empty((*labels.shape, 3), dtype=np.uint8)
    for c in range(3):
        np.take(pal[:, c], labels, out=out[..., c])
    return out


def centres(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates, px.

    Parameters
    ----------
    size : int
        The side S, px.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        y as (S, 1) and x as (1, S), float64: 0.5, 1.5, ..., S - 0.5.
    """
    c = np.arange(size, dtype=np.float64) + 0.5
    return c[:, None], c[None, :]


def inducer_pair(
    spec, strength: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The two inducer colours at the spec's strength, each moved from their CIELAB midpoint toward its full
    colour by ``strength``.

    Parameters
    ----------
    spec : IllusionSpec
        The spec; its first two ``resolved_inducers`` (CIELAB D65) are the full colours.
    strength : float or None, optional
        0 (both at the midpoint) to 1 (the full colours); None takes the spec's ``strength``.

    Returns
    -------
    tuple of 4 numpy.ndarray
        (lab0, lab1, rgb0, rgb1): CIELAB D65 float triples and sRGB 0-255 uint8 triples (`rgb8`).
    """
    s = spec.strength if strength is None else strength
    i0, i1 = spec.resolved_inducers[:2]
    mid = lerp(i0, i1, 0.5)
    lab0, lab1 = lerp(mid, i0, s), lerp(mid, i1, s)
    return lab0, lab1, rgb8(lab0), rgb8(lab1)


def lighter_of(lab_left, lab_right, *, contrast: bool = True) -> str | None:
    """The side predicted to look lighter from the L* of the two contexts: with ``contrast`` the target on the
    darker context; otherwise (assimilation) the one on the lighter context.

    Parameters
    ----------
    lab_left, lab_right : array_like, shape (3,)
        The contexts' colours, CIELAB D65 (only L* is read).
    contrast : bool, optional
        True (the default) for a contrast illusion, False for assimilation.

    Returns
    -------
    str or None
        "left" or "right"; None when the contexts have the same L* (within 1e-6).

    Examples
    --------
    >>> lighter_of((30, 0, 0), (70, 0, 0)), lighter_of((30, 0, 0), (70, 0, 0), contrast=False)
    ('left', 'right')
    """
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
    often.

    Parameters
    ----------
    size : int
        The side S, px.
    direction : str
        "horizontal", "vertical" or "diagonal" (anything else draws diagonal stripes).
    count : int
        Stripes of each class across the image.
    diagonal : int, optional
        +1 (the default) or -1, for diagonal stripes.
    bend : callable, optional
        Along-coordinate (px) -> offset across the stripes (px): bends the stripes (RCID's curved stripes).

    Returns
    -------
    tuple
        (index int32 (S, S), class uint8 (S, S), across, along (float px, broadcast to (S, S)), w (px)).

    References
    ----------
    Mao et al., RCID (2025), §3.1 'Stripe Illusions' and Fig. 7b.
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
    offset is a piecewise-linear profile through ``knots + 1`` uniform random values (RCID's edge noise).

    Parameters
    ----------
    size : int
        The image's side S, px.
    x0, y0, x1, y1 : float
        The rectangle's corners, px.
    amp : float
        The most a side wanders, px (<= 0: straight sides).
    rng : numpy.random.Generator
        Draws the profiles (4 x (``knots`` + 1) values when ``amp`` > 0).
    knots : int, optional
        Segments per side's profile (default 6).

    Returns
    -------
    numpy.ndarray of bool, shape (S, S)
        The mask.

    References
    ----------
    Mao et al., RCID (2025), §3.1 'Contrast Illusions' and Fig. 7a.
    """
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
    """Mask of the pixels whose centres lie within ``r`` px of (cx, cy).

    Parameters
    ----------
    size : int
        The image's side S, px.
    cx, cy : float
        The centre, px.
    r : float
        The radius, px.

    Returns
    -------
    numpy.ndarray of bool, shape (S, S)
        The mask.

    Examples
    --------
    >>> int(disc(8, 4.0, 4.0, 1.0).sum())
    4
    """
    y, x = centres(size)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
