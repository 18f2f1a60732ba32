"""Stripe kinds in White's geometry: rcid-stripe, whites, munker-white (canonical frame: A on the left).

A field of stripes of two inducer colours alternates across the image (class 0: the first inducer, class 1:
the second). Target A replaces segments of class-0 stripes inside a window centred in the left half, target B
segments of class-1 stripes in a window centred in the right half, so A is flanked by class-1 stripes and B by
class-0 stripes (White 1979, Fig. 1; RCID §3.1 "Stripe Illusions"; Munker 1970). Each window spans about 0.3 x
size across the stripes (whole stripes only) and 0.3 x size along them. rcid-stripe bends the stripes by a
seeded sine of amplitude edge_noise x size (RCID: "curved stripe arrangements"): targets follow the bend.

Prediction: the target replacing the darker stripes (flanked by the lighter ones) looks lighter; munker-white
adds the hue of the flanking stripes as the predicted tint. Colours: sRGB 0-255 in the image, CIELAB inducers.
"""

from __future__ import annotations

import math

import numpy as np

from plates.stimuli.illusions.geometry import (
    Drawing,
    Job,
    compose,
    inducer_pair,
    lighter_of,
    paint,
    stripe_field,
)

__all__ = ["draw_stripes"]

_WINDOW = 0.3  # target window extent across and along the stripes, fraction of the size


def _bend(job: Job):
    amp = job.spec.resolved_edge_noise * job.size
    if amp <= 0:
        return None
    rng = job.rng[1]
    wavelength = rng.uniform(0.5, 1.2) * job.size
    phase = rng.uniform(0.0, 2 * math.pi)
    return lambda along: amp * np.sin(2 * math.pi * along / wavelength + phase)


def _window(
    index, cls_value: int, across_w: float, along, cx: int, cy: int, size: int, index_c: int
) -> np.ndarray:
    """Pixels of the class-``cls_value`` stripes nearest the window centre (about 0.3 x size across, whole
    stripes) whose along-coordinate lies within 0.15 x size of the centre's."""
    n = max(1, round(_WINDOW * size / (2 * across_w)))
    k0 = index_c if (index_c & 1) == cls_value else index_c + 1
    ks = k0 + 2 * (np.arange(n) - (n - 1) // 2)
    lo, hi = int(ks.min()), int(ks.max())
    in_stripes = (index >= lo) & (index <= hi) & ((index & 1) == cls_value)
    return in_stripes & (np.abs(along - along[cy, cx]) < _WINDOW * size / 2)


def draw_stripes(job: Job) -> Drawing:
    """Draw one stripe kind (the spec's count, direction and, for rcid-stripe, bend).

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
    Mao et al., RCID (2025), §3.1 'Stripe Illusions' and Fig. 7b; White (1979), Perception 8(4):413-416;
    Munker (1970), Habilitationsschrift, LMU München.
    """
    size, spec = job.size, job.spec
    lab0, lab1, rgb0, rgb1 = inducer_pair(spec)
    index, cls, _, along, w = stripe_field(size, job.direction, spec.resolved_count, job.diagonal, _bend(job))
    img = compose(cls, np.stack([rgb0, rgb1]))
    cy = size // 2
    lx, rx = size // 4, min(size - 1, (3 * size) // 4)
    a = _window(index, 0, w, along, lx, cy, size, int(index[cy, lx]))
    b = _window(index, 1, w, along, rx, cy, size, int(index[cy, rx]))
    paint(img, a, job.left)
    paint(img, b, job.right)
    per_target: dict = {}
    tint = ""
    if (
        spec.kind == "munker-white"
    ):  # assimilation: each target toward its flanking stripes' hue (CIELAB, deg)
        tint = "hue of the flanking stripes"
        for side, lab in (("left", lab1), ("right", lab0)):
            per_target[side] = {"tint_hue": round(float(np.degrees(np.arctan2(lab[2], lab[1])) % 360.0), 1)}
    return Drawing(
        img,
        a,
        b,
        (cls == 0) & ~a,
        (cls == 1) & ~b,
        lighter_of(lab0, lab1, contrast=True),
        tint=tint,
        per_target=per_target,
        stats={"stripe_width_px": round(float(w), 3)},
    )
