"""Contrast kinds: targets on a background split into two inducer halves (canonical frame: A's half on
the left).

* rcid-contrast: RCID §3.1: two mirrored squares at a seeded random position, outlines roughened by edge
  noise.
* simultaneous-contrast, simultaneous-contrast-chromatic: centred squares (Heinemann 1955; Kirschmann 1891).
* koffka-ring: a ring centred on the split, cut into two halves with a small gap (Koffka 1935).

Colours: sRGB 0-255 uint8 in the image, CIELAB for the inducers' definitions. Prediction (all four): the
target on the darker half looks lighter.
"""

from __future__ import annotations

import numpy as np

from plates.stimuli.illusions.geometry import (
    Drawing,
    Job,
    canvas,
    centres,
    inducer_pair,
    lighter_of,
    paint,
    rough_rect,
)

__all__ = ["draw_koffka", "draw_rcid_contrast", "draw_simultaneous"]

_SIDE_RANGE = (0.18, 0.26)  # rcid-contrast square side, fraction of the size (seeded)
_MARGIN = 0.04  # least distance between a target and the image edge or the split, fraction of the size
_SQUARE = 0.25  # simultaneous contrast square side, fraction of the size
_RING = (0.18, 0.30, 0.03)  # Koffka ring inner radius, outer radius, gap between halves (fractions)


def _halves(job: Job) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Background split at x = size / 2 into inducer 0 (left) and inducer 1 (right); returns the image, the
    left-half mask and the two inducer colours (CIELAB)."""
    size = job.size
    lab0, lab1, rgb0, rgb1 = inducer_pair(job.spec)
    img = canvas(size, rgb1)
    img[:, : size // 2] = rgb0  # pixel centres x < size / 2
    left_half = np.zeros((size, size), dtype=bool)
    left_half[:, : size // 2] = True
    return img, left_half, lab0, lab1


def _finish(job: Job, img, left_half, a, lab0, lab1, *, chromatic: bool = False) -> Drawing:
    """Paint the mirrored targets (left mask ``a``) and describe the drawing."""
    b = a[:, ::-1]
    paint(img, a, job.left)
    paint(img, b, job.right)
    tint: dict = {}
    if chromatic:  # each target tints toward the hue opposite its surround's (CIELAB hue angle, degrees)
        for side, lab in (("left", lab0), ("right", lab1)):
            tint[side] = {
                "tint_hue": round(float((np.degrees(np.arctan2(lab[2], lab[1])) + 180.0) % 360.0), 1)
            }
    return Drawing(
        img,
        a,
        b,
        left_half & ~a,
        ~left_half & ~b,
        lighter_of(lab0, lab1, contrast=True),
        tint="hue opposite the surround's" if chromatic else "",
        per_target=tint,
    )


def draw_rcid_contrast(job: Job) -> Drawing:
    """RCID contrast: square side U(0.18, 0.26) x size, centre uniform in the left half (margins 4% plus the
    noise amplitude), B its mirror image; edge noise roughens the outline (shape only, colours flat).

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
    Mao et al., RCID (2025), §3.1 'Contrast Illusions' and Fig. 7a.
    """
    size = job.size
    img, left_half, lab0, lab1 = _halves(job)
    amp = job.spec.resolved_edge_noise * size
    rng = job.rng[0]
    side = rng.uniform(*_SIDE_RANGE) * size
    margin = _MARGIN * size + amp
    cx = rng.uniform(margin + side / 2, size / 2 - margin - side / 2)
    cy = rng.uniform(margin + side / 2, size - margin - side / 2)
    a = rough_rect(size, cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2, amp, job.rng[1])
    a &= left_half
    return _finish(job, img, left_half, a, lab0, lab1)


def draw_simultaneous(job: Job) -> Drawing:
    """Simultaneous contrast: squares of side 0.25 x size centred in each half (deterministic).

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
    Chevreul (1839); Heinemann (1955), J. Exp. Psychol. 50(2):89-96.
    """
    size = job.size
    img, left_half, lab0, lab1 = _halves(job)
    h = _SQUARE * size / 2
    a = rough_rect(size, size / 4 - h, size / 2 - h, size / 4 + h, size / 2 + h, 0.0, job.rng[0])
    return _finish(job, img, left_half, a, lab0, lab1, chromatic=job.spec.kind.endswith("chromatic"))


def draw_koffka(job: Job) -> Drawing:
    """Koffka ring: radii 0.18 / 0.30 x size around the centre, cut at the split with a 3% gap (the split
    ring, where the contrast shows).

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
    Koffka (1935), Principles of Gestalt Psychology, Harcourt Brace; Adelson (2000).
    """
    size = job.size
    img, left_half, lab0, lab1 = _halves(job)
    inner, outer, gap = (f * size for f in _RING)
    y, x = centres(size)
    r2 = (x - size / 2) ** 2 + (y - size / 2) ** 2
    a = (r2 >= inner**2) & (r2 <= outer**2) & (x < size / 2 - gap / 2)
    return _finish(job, img, left_half, a, lab0, lab1)
