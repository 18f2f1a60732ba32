"""Illusion controls (strength 0) keep the scene's geometry (`plates.stimuli.illusions.classic` draws the four
kinds whose limit strength -> 0 is featureless): the targets the question names can be found.

A control must neutralise the inducer and nothing else: the two targets are equal in pixels, sit in equal
contexts, and stay visible as the structure the question names (checks, bands, fields, discs), so a person
or a model can find them. Each check reads the pixels (numpy, scipy, colour-science), not the renderer's
truth.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import ndimage

from plates.stimuli.illusions import KINDS, IllusionSpec, render

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*Matplotlib.*")
    import colour

#: kinds whose strength -> 0 limit is featureless, so their control is a separate scene
GEOMETRY_CONTROLS = ("checker-shadow", "cornsweet", "chevreul", "neon-spreading")


def _lab(rgb) -> np.ndarray:
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(np.asarray(rgb, dtype=float) / 255.0))


def _ring_contrast(px: np.ndarray, mask: np.ndarray, width: int) -> np.ndarray:
    """CIEDE2000 between the target's colour and every pixel of a ring ``width`` px wide around the mask
    (inside the image)."""
    target = px[mask][0]
    ring = ndimage.binary_dilation(mask, iterations=width) & ~mask
    return np.asarray(colour.delta_E(_lab(target), _lab(px[ring]), method="CIE 2000"))


@pytest.mark.parametrize("layout", ["left-right", "up-down"])
@pytest.mark.parametrize("kind", KINDS)
def test_control_targets_are_equal_and_findable(kind, layout):
    stim = render(IllusionSpec(kind, size=256, strength=0.0, layout=layout, seed=3))
    px = np.asarray(stim.image)
    a, b = stim.masks["A"], stim.masks["B"]
    assert a.any() and b.any() and not (a & b).any()
    values = [np.unique(px[m], axis=0) for m in (a, b)]
    assert values[0].shape == values[1].shape == (1, 3)
    assert np.array_equal(values[0], values[1])  # truly equal in pixels
    # Cornsweet's fields fade into their edge ramps by design (a ramp starts at the field's colour): its
    # visible structure is the edge at the ramps' far end, 0.15 x size away
    width = 40 if kind == "cornsweet" else 4
    for name, mask in (("A", a), ("B", b)):
        de = _ring_contrast(px, mask, width)
        # a target is findable when a good part of its surround differs visibly from it
        assert np.mean(de > 3.0) > 0.2, (kind, name, float(np.mean(de > 3.0)))


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "rcid-filter"])
def test_control_contexts_are_equal(kind):
    stim = render(IllusionSpec(kind, size=256, strength=0.0))
    assert stim.stats["inducer_delta_e2000"] == 0.0
    assert stim.truth["induced_lighter"] is None


@pytest.mark.parametrize("kind", GEOMETRY_CONTROLS)
def test_geometry_controls_are_not_featureless(kind):
    """Outside the targets the control still shows the scene: several colours far apart."""
    stim = render(IllusionSpec(kind, size=256, strength=0.0))
    px = np.asarray(stim.image)
    outside = px[~(stim.masks["A"] | stim.masks["B"])]
    colours, counts = np.unique(outside, axis=0, return_counts=True)
    common = colours[counts > 0.02 * len(outside)]
    labs = _lab(common)
    assert len(common) >= 2
    assert float(np.ptp(labs[:, 0])) > 10  # at least 10 L* between the commonest colours


def test_checker_shadow_control_puts_both_targets_on_dark_checks_in_the_light():
    stim = render(IllusionSpec("checker-shadow", size=256, strength=0.0))
    px = np.asarray(stim.image).astype(int)
    assert stim.stats["shadow_transmittance"] == 1.0
    # every check of the board is one of two colours: no shadow darkens any of them
    n, m = 6, 0.06 * 256
    cell = (256 - 2 * m) / n
    centres = [int(m + (k + 0.5) * cell) for k in range(n)]
    board = {tuple(px[y, x]) for y in centres for x in centres[:3]}  # the left half, clear of the cylinder
    assert len(board) == 2
    for name in "AB":
        ys, xs = np.nonzero(stim.masks[name])
        y, x = int(ys.mean()), int(xs.mean())
        step = int(cell)
        neighbours = {tuple(px[y + dy, x + dx]) for dy, dx in ((-step, 0), (step, 0), (0, -step), (0, step))}
        assert len(neighbours) == 1 and neighbours != {tuple(px[y, x])}, (name, neighbours)
    # at strength 1 the same board casts its shadow over B
    lit = render(IllusionSpec("checker-shadow", size=256, strength=1.0))
    assert lit.stats["shadow_transmittance"] < 1.0

