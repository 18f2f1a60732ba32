"""rcid-filter: a colour-constancy scene (RCID §3.2), procedural.

Each half is a Mondrian of seeded rectangles in named colours with a disc target (radius 0.14 x size, black
outline) at its centre. The canonical left half lies under a uniform colour cast: every non-target pixel is
blended with the cast colour at opacity a = 0.45 x strength in sRGB 0-1 (`colours.cast`), the way a photo
filter or Kitaoka's "strawberries" is made. Target pixels are painted directly, so the target in the cast
half has *no* pixel of its original colour: its original is the inverse blend of its pixels
(`colours.uncast`). With the default grey target and cyan cast, the original is red: people still call the
disc red (colour constancy), its pixels are grey. The other half is uncast: its disc's original is its pixels.
That prediction follows RCID and Kitaoka, whose objects are familiar (uniforms, strawberries); for an abstract
disc in a Mondrian the effect is likely weaker: our reading, not tested with people.

RCID blends in HSV and checks hue ranges; ours is an alpha blend whose inverse is exact, so the "original"
colour of the target is known. Colours: sRGB 0-255.
"""

from __future__ import annotations

import numpy as np

from plates import colour as C
from plates.colour.spaces import colour_science
from plates.stimuli.illusions.colours import CAST_ALPHA, cast, rgb8, uncast
from plates.stimuli.illusions.geometry import Drawing, Job, compose, disc, paint
from plates.stimuli.illusions.naming import colour_name

__all__ = ["SCENE_PALETTE", "draw_filter"]

#: Colours of the Mondrian rectangles, sRGB 0-255 (ours). Those within ΔE2000 15 of a target or of a target's
#: original are left out of each scene, so the target colours appear only in the targets.
SCENE_PALETTE = (
    (200, 30, 35),
    (235, 130, 30),
    (240, 215, 50),
    (60, 160, 70),
    (40, 90, 190),
    (125, 60, 160),
    (240, 160, 190),
    (125, 80, 40),
    (235, 235, 230),
    (35, 35, 40),
    (40, 150, 150),
    (170, 200, 90),
)
_RECTS = 18
_RADIUS, _OUTLINE = 0.14, 0.008  # target disc radius and its black outline, fractions of the size
_RING_RGB = (20, 20, 20)


def _palette(avoid: np.ndarray) -> np.ndarray:
    pal = np.asarray(SCENE_PALETTE, dtype=float)
    de = colour_science().delta_E(
        C.srgb255_to_lab(pal)[:, None, :], C.srgb255_to_lab(avoid)[None, :, :], method="CIE 2000"
    )
    keep = pal[np.min(de, axis=1) >= 15.0].astype(np.uint8)
    if len(keep) < 3:
        raise ValueError(
            f"the target colours leave only {len(keep)} scene colours at ΔE2000 >= 15; allowed: targets and "
            "originals that leave at least 3 of SCENE_PALETTE (a less saturated target)"
        )
    return keep


def _mondrian(labels: np.ndarray, x0: int, x1: int, colours: int, rng: np.random.Generator) -> None:
    """Fill columns [x0, x1) of the label map with a base label and 18 seeded rectangles (sides 0.08-0.3 x
    size, drawn in order, clipped to those columns), labels drawn uniformly from ``colours``."""
    size = labels.shape[0]
    labels[:, x0:x1] = rng.integers(colours)
    for _ in range(_RECTS):
        w, h = rng.uniform(0.08, 0.3, 2) * size
        rx, ry = rng.uniform(x0 - w / 2, x1 - w / 2), rng.uniform(-h / 2, size - h / 2)
        # pixel centres i + 0.5 in [rx, rx + w): i from ceil(rx - 0.5) to ceil(rx + w - 0.5) (exclusive)
        c0, c1 = (int(np.clip(np.ceil(v - 0.5), x0, x1)) for v in (rx, rx + w))
        r0, r1 = (int(np.clip(np.ceil(v - 0.5), 0, size)) for v in (ry, ry + h))
        labels[r0:r1, c0:c1] = rng.integers(colours)


def draw_filter(job: Job) -> Drawing:
    """The two-half scene; the cast covers the canonical left half (A's unless the spec swaps).

    Parameters
    ----------
    job : Job
        The spec, the target colours for the canonical left and right (sRGB 0-255) and the random streams.

    Returns
    -------
    Drawing
        The canonical drawing (sRGB 0-255 pixels, target and context masks, the prediction).

    References
    ----------
    Mao et al., RCID (2025), §3.2 'Filter Illusion Image Generation'; Kitaoka's 'strawberries' (2017).
    """
    size, spec = job.size, job.spec
    cast_rgb = rgb8(spec.resolved_inducers[0])
    alpha = CAST_ALPHA * spec.strength
    left_t, right_t = np.asarray(job.left, dtype=float), np.asarray(job.right, dtype=float)
    original_left = np.clip(np.rint(uncast(left_t, cast_rgb, alpha)), 0, 255).astype(np.uint8)
    palette = _palette(np.stack([left_t, right_t, original_left.astype(float)]))
    k = len(palette)
    palette = np.concatenate([palette, np.array([_RING_RGB], dtype=np.uint8)])  # label k: the disc outlines
    rng = job.rng[2]
    half = size // 2  # pixel centres x < size / 2
    labels = np.empty((size, size), dtype=np.uint8)
    _mondrian(labels, 0, half, k, rng)
    _mondrian(labels, half, size, k, rng)
    r = _RADIUS * size
    outline = max(1.0, _OUTLINE * size)
    a = disc(size, size / 4, size / 2, r)
    b = a[:, ::-1]
    ring = disc(size, size / 4, size / 2, r + outline) & ~a
    labels[ring | ring[:, ::-1]] = k
    cast_palette = cast(palette, cast_rgb, alpha)
    img = np.empty((size, size, 3), dtype=np.uint8)
    img[:, :half] = compose(labels[:, :half], cast_palette)
    img[:, half:] = compose(labels[:, half:], palette)
    paint(img, a, job.left)
    paint(img, b, job.right)
    left_half = np.zeros((size, size), dtype=bool)
    left_half[:, :half] = True
    cast_px = left_half & ~a
    # the cast's measured size: mean ΔE2000 between the cast pixels and what they were (area-weighted)
    counts = np.bincount(labels[cast_px], minlength=k + 1)
    de = np.asarray(C.delta_e2000(palette.astype(float), cast_palette.astype(float))).reshape(-1)
    cast_de = float(np.average(de, weights=counts)) if counts.sum() else 0.0
    per_target = {
        "left": {
            "pixel_name": colour_name(job.left),
            "original_srgb": [int(v) for v in original_left],
            "original_name": colour_name(original_left),
        },
        "right": {
            "pixel_name": colour_name(job.right),
            "original_srgb": [int(v) for v in job.right],
            "original_name": colour_name(job.right),
        },
    }
    return Drawing(
        img,
        a,
        b,
        cast_px,
        ~left_half & ~b,
        None,
        per_target=per_target,
        stats={
            "cast_alpha": round(alpha, 4),
            "cast_srgb": [int(v) for v in cast_rgb],
            "cast_delta_e2000_mean": round(cast_de, 3),
        },
    )
