"""Stripe kinds in White's geometry (`plates.stimuli.illusions.stripes`): which stripes each target replaces,
the target windows, rcid-stripe's bend, Munker-White's tint, and the direction in the final image."""

from __future__ import annotations

import numpy as np
import pytest

from plates.stimuli.illusions import IllusionSpec, render
from plates.stimuli.illusions.geometry import inducer_pair, stripe_field
from plates.stimuli.illusions.kinds import STRIPE_KINDS
from plates.stimuli.illusions.render import canonical_job
from plates.stimuli.illusions.stripes import draw_stripes


def _straight(kind: str, **fields) -> IllusionSpec:
    return IllusionSpec(kind, edge_noise=0.0 if kind == "rcid-stripe" else None, **fields)


@pytest.mark.parametrize("kind", STRIPE_KINDS)
@pytest.mark.parametrize("direction", ["horizontal", "vertical", "diagonal"])
def test_a_replaces_class_0_stripes_on_the_left_and_b_class_1_on_the_right(kind, direction):
    spec = _straight(kind, size=120, count=6, direction=direction, delta_e=2.0)
    job = canonical_job(spec)
    d = draw_stripes(job)
    _, cls, _, _, w = stripe_field(120, job.direction, 6, job.diagonal)
    _, _, rgb0, rgb1 = inducer_pair(spec)
    assert d.stats["stripe_width_px"] == pytest.approx(w) == 10.0
    assert d.left.any() and d.right.any()
    assert np.all(cls[d.left] == 0) and np.all(cls[d.right] == 1)
    assert np.argwhere(d.left)[:, 1].mean() < 60 < np.argwhere(d.right)[:, 1].mean()  # A left, B right
    assert np.all(d.pixels[d.left] == job.left) and np.all(d.pixels[d.right] == job.right)
    assert np.all(d.pixels[d.context_left] == rgb0) and np.all(d.pixels[d.context_right] == rgb1)
    assert np.array_equal(d.context_left | d.left, cls == 0)


def test_each_window_spans_about_0_3_of_the_size_along_and_whole_stripes_across():
    size = 200
    d = draw_stripes(canonical_job(_straight("whites", size=size, count=10, direction="horizontal")))
    w = d.stats["stripe_width_px"]  # 10 px stripes, index growing with y
    rows, cols = np.nonzero(d.left)
    assert cols.max() + 1 - cols.min() == pytest.approx(0.3 * size, abs=2)  # along the stripes
    stripes = sorted({int(r // w) for r in rows})
    assert len(stripes) == round(0.3 * size / (2 * w))  # class-0 stripes under the window, every other one
    assert all(b - a == 2 for a, b in zip(stripes, stripes[1:], strict=False))
    assert d.left.sum() == len(stripes) * w * (cols.max() + 1 - cols.min())  # whole stripes across


def test_prediction_is_contrast_the_target_on_the_darker_stripes_looks_lighter():
    spec = _straight("whites", size=96)
    lab0, lab1, _, _ = inducer_pair(spec)
    assert lab0[0] < lab1[0]
    assert draw_stripes(canonical_job(spec)).lighter == "left"  # A replaces dark stripes, flanked by light
    assert draw_stripes(canonical_job(spec.replace(strength=0.0))).lighter is None


def test_munker_white_tints_each_target_toward_its_flanking_stripes_hue():
    spec = IllusionSpec("munker-white", size=128, count=16)
    lab0, lab1, _, _ = inducer_pair(spec)
    d = draw_stripes(canonical_job(spec))
    assert d.tint == "hue of the flanking stripes"
    # A sits in class-0 stripes, so its flanks are class 1 (inducer 1), and the other way round for B
    for side, lab in (("left", lab1), ("right", lab0)):
        assert d.per_target[side]["tint_hue"] == pytest.approx(
            np.degrees(np.arctan2(lab[2], lab[1])) % 360, abs=0.05
        )
    assert draw_stripes(canonical_job(_straight("whites", size=96))).per_target == {}


def test_rcid_stripe_bends_by_its_seed_and_the_targets_follow_the_bend():
    straight = draw_stripes(canonical_job(_straight("rcid-stripe", size=128, seed=1)))
    bent = [draw_stripes(canonical_job(IllusionSpec("rcid-stripe", size=128, seed=s, edge_noise=0.05)))
            for s in (1, 2)]
    assert not np.array_equal(straight.pixels, bent[0].pixels)
    assert not np.array_equal(bent[0].pixels, bent[1].pixels)
    classes = [bent[0].context_left | bent[0].left, bent[0].context_right | bent[0].right]
    assert not (classes[0] & classes[1]).any() and (classes[0] | classes[1]).all()
    # horizontal stripes bent: a class boundary is no longer one row across the image
    rows_of_first_boundary = {int(np.argmax(classes[1][:, x])) for x in range(128)}
    assert len(rows_of_first_boundary) > 1


@pytest.mark.parametrize("kind", STRIPE_KINDS)
@pytest.mark.parametrize(
    ("direction", "layout", "swap"),
    [
        ("horizontal", "left-right", False),
        ("vertical", "up-down", True),
        ("diagonal", "left-right", True),
        ("diagonal", "up-down", False),
        ("diagonal", "up-down", True),
    ],
)
def test_stripe_direction_in_the_final_image(kind, direction, layout, swap):
    spec = IllusionSpec(
        kind, direction=direction, layout=layout, swap=swap, edge_noise=0.0 if kind == "rcid-stripe" else None
    )
    stim = render(spec)
    px = np.asarray(stim.image).astype(int)
    free = ~(stim.masks["A"] | stim.masks["B"])
    if direction == "horizontal":  # constant along each row
        pairs = (px[:, 1:], px[:, :-1], free[:, 1:] & free[:, :-1])
    elif direction == "vertical":
        pairs = (px[1:], px[:-1], free[1:] & free[:-1])
    else:  # lower left to upper right: constant along x + y
        pairs = (px[1:, :-1], px[:-1, 1:], free[1:, :-1] & free[:-1, 1:])
    first, second, both = pairs
    assert np.all(first[both] == second[both])
