"""Laying out and rasterising a scene: object sizes, places and poses, then a label image and its colours.

Everything is drawn into one *label image* first (uint8 (H, W): 0 = background, k + 1 = object k, later
objects over earlier ones), with Pillow's polygon and ellipse fills, which do not anti-alias: every pixel
belongs to exactly one region, so region masks, colour counts and area shares are exact and the RGB image is
a lookup ``colours[label]``. No pixel ever mixes two regions' colours.

Soft shading (``shading="soft"``): each object's CIELAB L* (D65) steps through ``SOFT_LEVELS`` = 13 levels (2 L* apart),
from ``+SOFT_L`` = +12 on the side facing the light (up-left) to -12 on the far side, in bands perpendicular to
the light direction across the object's bounding disc; a* and b* stay, and each level is rounded to 8-bit sRGB
(clipped per channel where it leaves the gamut). The middle level is the object's own colour exactly. Truth
(colour, colour counts, shares) is defined by the unshaded colours; every shaded pixel lies within 12 L* of its
object's colour. Colours: sRGB 0-255 unless named otherwise.

Mottled shading (``shading="mottled"``, camouflage for Colour Mimicry, ColorBench Table 7): the image is cut
into square cells ``MOTTLE_CELLS`` to a side; each cell draws one CIELAB offset, uniform in a ball of radius
``MOTTLE_SHARE`` = 0.35 times the smallest CIELAB distance between two of the scene's colours (background
included), and every pixel is its region's colour plus its cell's offset, rounded to 8-bit sRGB (clipped per
channel at the gamut's edge). Background and objects share one texture, so an object is told from its
surround only by the colour difference under the noise; since every offset is under half the smallest
distance, the nearest scene colour (CIELAB) of every pixel is its own region's, which the truth keeps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from plates.colour import lab_to_srgb255, srgb255_to_lab
from plates.stimuli.scenes.shapes import SHAPE_AREA, SHAPE_TURN, outline

__all__ = [
    "MAX_RADIUS_SHARE", "MOTTLE_CELLS", "MOTTLE_SHARE", "SOFT_L", "SOFT_LEVELS", "Layout", "label_image", "layout",
    "paint",
]

SOFT_L, SOFT_LEVELS = 12.0, 13
MOTTLE_CELLS, MOTTLE_SHARE = 48, 0.35
MAX_RADIUS_SHARE = 0.48  # an object's bounding radius is at most this share of the image side
_LIGHT = np.array([-1.0, -1.0]) / math.sqrt(2.0)  # unit vector towards the light, image coordinates
_CANDIDATES, _BATCHES, _SHRINK, _RESTARTS = 64, 24, 0.9, 40


@dataclass(frozen=True)
class Layout:
    """Objects in drawing order (largest first): ``shapes``, ``colour_index`` (into the scene's colours),
    centres ``cx``, ``cy`` and bounding radii ``r`` in px, ``angle`` in degrees; ``scale`` is the factor all
    radii were shrunk by to fit (1.0 when they fitted at once) and ``tries`` the candidate batches drawn.

    Attributes
    ----------
    shapes : tuple of str
        Each object's shape.
    colour_index : numpy.ndarray of int
        Each object's index into the scene's colours.
    cx, cy, r : numpy.ndarray of float
        Centres and bounding radii, px.
    angle : numpy.ndarray of float
        Turns, degrees clockwise.
    scale : float
        The factor all radii were shrunk by to fit (1.0 when they fitted at once).
    tries : int
        The candidate batches drawn.
    """

    shapes: tuple[str, ...]
    colour_index: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    r: np.ndarray
    angle: np.ndarray
    scale: float
    tries: int

    @property
    def nominal_area(self) -> np.ndarray:
        """Each object's polygon area (px²) before occlusion."""
        return np.array([SHAPE_AREA[s] for s in self.shapes]) * self.r**2


def _assign(n: int, options: tuple, rng: np.random.Generator, distinct_first: bool) -> np.ndarray:
    """n indices into ``options``: the first min(n, len) distinct, the rest drawn with replacement, shuffled."""
    k = len(options)
    head = rng.permutation(k)[: min(n, k)] if distinct_first else np.arange(min(n, k))
    tail = rng.integers(0, k, size=max(0, n - k))
    return rng.permutation(np.concatenate([head, tail]).astype(np.int64))


def _sizes(spec, shapes: tuple[str, ...], rng: np.random.Generator) -> np.ndarray:
    """Bounding radii (px) whose areas span exactly ``area_ratio`` and sum to ``fill`` of the image."""
    n = len(shapes)
    logs = rng.random(n)
    if n >= 2 and np.ptp(logs) > 0:
        logs = (logs - logs.min()) / np.ptp(logs)
    else:
        logs = np.zeros(n)
    area = np.exp(logs * math.log(spec.area_ratio))
    area *= spec.fill * spec.size**2 / area.sum()
    r = np.sqrt(area / np.array([SHAPE_AREA[s] for s in shapes]))
    return np.minimum(r, MAX_RADIUS_SHARE * spec.size)


def layout(spec, n_colours: int, rng: np.random.Generator) -> Layout:
    """Shapes, colours, sizes, places and poses of ``spec.n_regions`` objects (see `SceneSpec` for the rules).

    Placement is vectorised rejection sampling: each object (largest first) takes the first of 64 uniform
    candidate centres that keeps the clutter rule against every object placed so far (up to 24 batches);
    when one does not fit, every radius shrinks by 10% and placement starts again (``Layout.scale``).

    Parameters
    ----------
    spec : SceneSpec
        The scene's spec.
    n_colours : int
        Object colours to assign (every one used at least once where there are enough objects).
    rng : numpy.random.Generator
        Every random number.

    Returns
    -------
    Layout
        The objects, largest first.

    Raises
    ------
    RuntimeError
        When the objects still do not fit after every shrink.
    """
    n = spec.n_regions
    shape_idx = _assign(n, spec.shapes, rng, distinct_first=True)
    shapes = tuple(spec.shapes[i] for i in shape_idx)
    colour_index = _assign(n, tuple(range(n_colours)), rng, distinct_first=False) if n else np.zeros(0, int)
    r0 = _sizes(spec, shapes, rng) if n else np.zeros(0)
    order = np.argsort(-r0, kind="stable")  # largest first: smaller objects are drawn over larger ones
    shapes = tuple(shapes[i] for i in order)
    colour_index, r0 = colour_index[order], r0[order]
    angle = np.array([rng.uniform(-SHAPE_TURN[s], SHAPE_TURN[s]) for s in shapes])
    gap = max(2.0, spec.size / 256)
    same = colour_index[:, None] == colour_index[None, :]
    factor = np.where(same | (spec.clutter == 0), 1.0, 1.0 - spec.clutter)
    pad = np.where(same | (spec.clutter == 0), gap, 0.0)
    scale, tries = 1.0, 0
    for _ in range(_RESTARTS):
        r = r0 * scale
        cx, cy = np.zeros(n), np.zeros(n)
        placed = True
        for i in range(n):
            lo, hi = r[i] + 1.0, spec.size - r[i] - 1.0
            for _ in range(_BATCHES):
                tries += 1
                px = rng.uniform(lo, hi, _CANDIDATES)
                py = rng.uniform(lo, hi, _CANDIDATES)
                if i:
                    d = np.hypot(px[:, None] - cx[None, :i], py[:, None] - cy[None, :i])
                    need = factor[i, :i] * (r[i] + r[:i]) + pad[i, :i]
                    ok = np.flatnonzero(np.all(d >= need, axis=1))
                else:
                    ok = np.arange(1)
                if ok.size:
                    cx[i], cy[i] = px[ok[0]], py[ok[0]]
                    break
            else:
                placed = False
                break
        if placed:
            return Layout(shapes, colour_index, cx, cy, r, angle, scale, tries)
        scale *= _SHRINK
    raise RuntimeError(f"could not place {n} objects after {_RESTARTS} shrinks (spec {spec!r})")


def label_image(lay: Layout, size: int) -> np.ndarray:
    """uint8 (size, size): 0 for background, k + 1 where object k is visible (drawn in order, no anti-aliasing).

    Parameters
    ----------
    lay : Layout
        The objects.
    size : int
        The image's side, px.

    Returns
    -------
    numpy.ndarray of uint8, shape (size, size)
        0 for the background, k + 1 for object k.
    """
    im = Image.new("L", (size, size), 0)
    draw = ImageDraw.Draw(im)
    for k, shape in enumerate(lay.shapes):
        cx, cy, r = float(lay.cx[k]), float(lay.cy[k]), float(lay.r[k])
        pts = outline(shape, cx, cy, r, float(lay.angle[k]))
        if pts is None:
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=k + 1)
        else:
            draw.polygon(pts, fill=k + 1)
    return np.asarray(im)


def shade_levels(colours: np.ndarray) -> np.ndarray:
    """(n, SOFT_LEVELS, 3) uint8 sRGB 0-255: each colour (n, 3) sRGB 0-255 at the soft-shading L* offsets
    (level SOFT_LEVELS // 2 is the colour itself, exactly).

    Parameters
    ----------
    colours : numpy.ndarray, shape (n, 3)
        sRGB 0-255.

    Returns
    -------
    numpy.ndarray of uint8, shape (n, SOFT_LEVELS, 3)
        sRGB 0-255.
    """
    offsets = SOFT_L * np.linspace(-1.0, 1.0, SOFT_LEVELS)
    lab = srgb255_to_lab(colours)[:, None, :].repeat(SOFT_LEVELS, axis=1)
    lab[..., 0] = np.clip(lab[..., 0] + offsets[None, :], 0.0, 100.0)
    out = np.clip(np.rint(lab_to_srgb255(lab)), 0, 255).astype(np.uint8)
    out[:, SOFT_LEVELS // 2] = colours
    return out


def _mottle(labels: np.ndarray, flat: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mottled shading (module docstring): ``flat`` (k + 1, 3) sRGB 0-255, the colour of each label."""
    h, w = labels.shape
    lab = srgb255_to_lab(flat.astype(np.float64))
    distinct = np.unique(lab, axis=0)
    gaps = np.linalg.norm(distinct[:, None] - distinct[None], axis=-1)[np.triu_indices(len(distinct), 1)]
    radius = MOTTLE_SHARE * float(gaps.min()) if len(gaps) else 0.0
    cells = MOTTLE_CELLS * MOTTLE_CELLS
    u = rng.normal(size=(cells, 3))
    u *= (radius * rng.uniform(size=(cells, 1)) ** (1 / 3)) / np.linalg.norm(u, axis=1, keepdims=True)
    lut = np.clip(np.rint(lab_to_srgb255(lab[:, None, :] + u[None])), 0, 255).astype(np.uint8)  # (k + 1, cells, 3)
    row = np.minimum(np.arange(h) * MOTTLE_CELLS // h, MOTTLE_CELLS - 1)
    col = np.minimum(np.arange(w) * MOTTLE_CELLS // w, MOTTLE_CELLS - 1)
    return lut[labels, row[:, None] * MOTTLE_CELLS + col[None, :]]


def paint(labels: np.ndarray, lay: Layout, background, colours: np.ndarray, shading: str,
          rng: np.random.Generator | None = None) -> np.ndarray:
    """The (H, W, 3) uint8 sRGB 0-255 image of a label image: ``background`` where 0, object k's colour
    (``colours[lay.colour_index[k]]``) where k + 1; soft and mottled shading as in the module docstring
    (mottled draws its texture from ``rng``).

    Parameters
    ----------
    labels : numpy.ndarray of uint8, shape (H, W)
        A label image (`label_image`).
    lay : Layout
        The objects.
    background : tuple of 3 int
        sRGB 0-255.
    colours : numpy.ndarray, shape (k, 3)
        The scene's object colours, sRGB 0-255.
    shading : str
        ``"flat"``, ``"soft"`` or ``"mottled"``.
    rng : numpy.random.Generator or None, optional
        Draws the mottled texture (needed only then).

    Returns
    -------
    numpy.ndarray of uint8, shape (H, W, 3)
        sRGB 0-255.

    Raises
    ------
    ValueError
        When ``shading`` is ``"mottled"`` and ``rng`` is None.
    """
    obj = colours[lay.colour_index] if len(lay.shapes) else np.zeros((0, 3), dtype=np.uint8)
    flat = np.concatenate([np.asarray(background, dtype=np.uint8)[None], obj.astype(np.uint8)])
    if shading == "mottled":
        if rng is None:
            raise ValueError("mottled shading draws a texture: paint needs rng")
        return _mottle(labels, flat, rng)
    if shading == "flat" or not len(lay.shapes):
        return flat[labels]
    lut = np.concatenate([np.repeat(flat[:1, None], SOFT_LEVELS, axis=1), shade_levels(obj.astype(np.uint8))])
    # levels only where an object is: (t = -1 on the dark side .. 1 on the lit side of its bounding disc)
    h, w = labels.shape
    where = np.flatnonzero(labels)
    k = labels.ravel()[where].astype(np.intp) - 1
    ys, xs = np.divmod(where, w)
    cx, cy, r = lay.cx[k], lay.cy[k], lay.r[k]
    t = ((xs + 0.5 - cx) * _LIGHT[0] + (ys + 0.5 - cy) * _LIGHT[1]) / r
    level = np.full(h * w, SOFT_LEVELS // 2, dtype=np.intp)
    level[where] = np.clip(np.rint((t + 1.0) / 2.0 * (SOFT_LEVELS - 1)), 0, SOFT_LEVELS - 1)
    return lut[labels, level.reshape(h, w)]
