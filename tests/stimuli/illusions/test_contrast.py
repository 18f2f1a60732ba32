"""Contrast kinds in the canonical frame (`plates.stimuli.illusions.contrast`): the split background, where
the targets sit, their mirror images, the prediction and the chromatic tint, measured on the drawing."""

from __future__ import annotations

import numpy as np
import pytest

from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.illusions.contrast import draw_koffka, draw_rcid_contrast, draw_simultaneous
from plates.stimuli.illusions.geometry import inducer_pair
from plates.stimuli.illusions.render import canonical_job

_DRAW = {
    "rcid-contrast": draw_rcid_contrast,
    "simultaneous-contrast": draw_simultaneous,
    "simultaneous-contrast-chromatic": draw_simultaneous,
    "koffka-ring": draw_koffka,
}


def _draw(spec: IllusionSpec):
    return _DRAW[spec.kind](canonical_job(spec))


@pytest.mark.parametrize("kind", list(_DRAW))
def test_background_halves_hold_the_inducers_and_targets_are_mirror_images(kind):
    spec = IllusionSpec(kind, size=96, seed=4, delta_e=3.0)
    d = _draw(spec)
    _, _, rgb0, rgb1 = inducer_pair(spec)
    half = 48
    assert np.array_equal(d.right, d.left[:, ::-1])
    assert d.left.any() and not d.left[:, half:].any()  # A's target stays in the left half
    assert np.all(d.pixels[d.context_left] == rgb0) and np.all(d.pixels[d.context_right] == rgb1)
    assert d.context_left[:, :half].sum() + d.left.sum() == 96 * half  # contexts + targets tile each half
    assert not (d.context_left & d.left).any() and not d.context_right[:, :half].any()
    job = canonical_job(spec)
    assert np.all(d.pixels[d.left] == job.left) and np.all(d.pixels[d.right] == job.right)


@pytest.mark.parametrize("kind", list(_DRAW))
def test_the_target_on_the_darker_half_is_predicted_lighter(kind):
    spec = IllusionSpec(kind, size=96)
    lab0, lab1, _, _ = inducer_pair(spec)
    d = _draw(spec)
    assert d.lighter == ("left" if lab0[0] < lab1[0] else "right")
    if lab0[0] != lab1[0]:  # swapped inducers swap the prediction
        swapped = spec.replace(inducers=tuple(reversed(spec.resolved_inducers[:2])))
        assert _draw(swapped).lighter != d.lighter
    assert _draw(spec.replace(strength=0.0)).lighter is None  # equal inducers: no prediction


def test_simultaneous_squares_are_centred_in_each_half_whatever_the_seed():
    d = _draw(IllusionSpec("simultaneous-contrast", size=96, seed=1))
    rows, cols = np.nonzero(d.left)
    assert (rows.min(), rows.max() + 1, cols.min(), cols.max() + 1) == (36, 60, 12, 36)  # side 0.25 x 96
    assert d.left.sum() == 24 * 24
    assert np.array_equal(d.left, _draw(IllusionSpec("simultaneous-contrast", size=96, seed=2)).left)
    assert d.tint == "" and d.per_target == {}


def test_chromatic_targets_tint_toward_the_hue_opposite_their_surround():
    spec = IllusionSpec("simultaneous-contrast-chromatic", size=96)
    lab0, lab1, _, _ = inducer_pair(spec)
    d = _draw(spec)
    assert d.tint == "hue opposite the surround's"
    for side, lab in (("left", lab0), ("right", lab1)):
        hue = np.degrees(np.arctan2(lab[2], lab[1])) % 360
        assert d.per_target[side]["tint_hue"] == pytest.approx((hue + 180) % 360, abs=0.05)
    assert abs(d.per_target["left"]["tint_hue"] - d.per_target["right"]["tint_hue"]) > 1


def test_rcid_squares_move_with_the_seed_and_keep_their_margins():
    size = 200
    boxes = set()
    for seed in range(6):
        spec = IllusionSpec("rcid-contrast", size=size, seed=seed, edge_noise=0.0)
        d = _draw(spec)
        rows, cols = np.nonzero(d.left)
        side_x, side_y = cols.max() + 1 - cols.min(), rows.max() + 1 - rows.min()
        assert 0.18 * size - 1 <= side_x <= 0.26 * size + 1 and abs(side_x - side_y) <= 1  # a square
        margin = 0.04 * size - 1
        assert cols.min() >= margin and cols.max() + 1 <= size / 2 - margin
        assert rows.min() >= margin and rows.max() + 1 <= size - margin
        assert d.left.sum() == side_x * side_y  # straight sides at edge_noise 0
        boxes.add((rows.min(), cols.min(), side_x))
    assert len(boxes) == 6


def test_rcid_edge_noise_roughens_the_outline_within_the_left_half():
    straight = _draw(IllusionSpec("rcid-contrast", size=200, seed=3, edge_noise=0.0))
    rough = _draw(IllusionSpec("rcid-contrast", size=200, seed=3, edge_noise=0.05))
    assert not np.array_equal(straight.left, rough.left)
    rows, cols = np.nonzero(rough.left)
    assert cols.max() < 100
    widths = rough.left.sum(axis=1)
    assert len(set(widths[widths > 0].tolist())) > 1  # rows of different widths: the sides wander


def test_koffka_ring_halves_have_the_radii_and_the_gap():
    size = 200
    d = _draw(IllusionSpec("koffka-ring", size=size))
    ys, xs = np.nonzero(d.left)
    r = np.hypot(xs + 0.5 - size / 2, ys + 0.5 - size / 2)
    assert r.min() >= 0.18 * size and r.max() <= 0.30 * size
    assert r.min() < 0.18 * size + 1 and r.max() > 0.30 * size - 1
    assert xs.max() + 0.5 < size / 2 - 0.03 * size / 2  # the gap: A stops short of the split
    assert ys.min() < size / 2 - 0.29 * size and ys.max() > size / 2 + 0.29 * size  # a half ring, top to bottom
