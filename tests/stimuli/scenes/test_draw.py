"""Laying out and rasterising a scene (`plates.stimuli.scenes.draw`): sizes that span the area ratio, placement
that keeps the clutter rule, a label image with no mixed pixels, soft shading's L* steps and mottled shading's
nearest-colour guarantee."""

from __future__ import annotations

import numpy as np
import pytest

from plates.colour import srgb255_to_lab
from plates.stimuli.scenes import SHAPES, SceneSpec
from plates.stimuli.scenes.draw import (
    MAX_RADIUS_SHARE,
    SOFT_L,
    SOFT_LEVELS,
    label_image,
    layout,
    paint,
    shade_levels,
)

COLOURS = np.array([[200, 30, 30], [30, 160, 40], [40, 60, 210]], dtype=np.uint8)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def test_layout_is_seeded_and_keeps_every_rule_without_clutter():
    spec = SceneSpec(
        seed=1, n_regions=7, n_colours=3, clutter=0.0, area_ratio=6.0, fill=0.3, shapes=SHAPES, size=384
    )
    lay = layout(spec, 3, _rng(3))
    again = layout(spec, 3, _rng(3))
    assert lay.shapes == again.shapes and np.array_equal(lay.cx, again.cx)
    assert len(lay.shapes) == 7 and set(lay.colour_index.tolist()) == {0, 1, 2}, "every colour used"
    assert np.all(np.diff(lay.r) <= 0), "largest first"
    assert set(lay.shapes) <= set(SHAPES) and len(set(lay.shapes)) == min(7, len(SHAPES))
    areas = lay.nominal_area / lay.scale**2
    if lay.r.max() < MAX_RADIUS_SHARE * spec.size * lay.scale:
        assert areas.max() / areas.min() == pytest.approx(6.0)
        assert areas.sum() == pytest.approx(0.3 * spec.size**2)
    gap = max(2.0, spec.size / 256)
    d = np.hypot(lay.cx[:, None] - lay.cx[None], lay.cy[:, None] - lay.cy[None])
    need = lay.r[:, None] + lay.r[None] + gap
    off = ~np.eye(7, dtype=bool)
    assert np.all(d[off] >= need[off] - 1e-9), "no two objects touch without clutter"
    assert np.all(lay.cx - lay.r >= 1.0) and np.all(lay.cx + lay.r <= spec.size - 1.0)


def test_label_image_draws_later_objects_over_earlier_ones_with_no_other_values():
    spec = SceneSpec(seed=2, n_regions=9, n_colours=3, clutter=1.0, fill=0.6, size=256)
    lay = layout(spec, 3, _rng(5))
    labels = label_image(lay, 256)
    assert labels.shape == (256, 256) and labels.dtype == np.uint8
    assert set(np.unique(labels).tolist()) <= set(range(10)) and (labels == 0).any()
    last = len(lay.shapes)  # the last object is drawn over everything: its centre pixel is its own
    cx, cy = int(lay.cx[last - 1]), int(lay.cy[last - 1])
    if lay.shapes[last - 1] in ("circle", "square"):
        assert labels[cy, cx] == last


def test_shade_levels_step_lightness_and_keep_the_colour_itself_in_the_middle():
    levels = shade_levels(COLOURS)
    assert levels.shape == (3, SOFT_LEVELS, 3) and levels.dtype == np.uint8
    assert np.array_equal(levels[:, SOFT_LEVELS // 2], COLOURS)
    lab = srgb255_to_lab(levels.astype(float))
    base = srgb255_to_lab(COLOURS.astype(float))
    assert np.all(np.diff(lab[..., 0], axis=1) > 0), "L* rises level by level"
    assert np.all(np.abs(lab[..., 0] - base[:, None, 0]) <= SOFT_L + 1.0)


def _scene(shading: str, seed: int = 4):
    spec = SceneSpec(seed=seed, n_regions=5, n_colours=3, clutter=0.0, fill=0.4, size=256)
    lay = layout(spec, 3, _rng(seed))
    labels = label_image(lay, 256)
    return lay, labels, paint(labels, lay, (250, 250, 250), COLOURS, shading, rng=_rng(seed + 1))


def test_flat_paint_is_a_lookup_of_the_labels():
    lay, labels, img = _scene("flat")
    assert img.shape == (256, 256, 3) and img.dtype == np.uint8
    assert (img[labels == 0] == 250).all()
    for k in range(len(lay.shapes)):
        assert (img[labels == k + 1] == COLOURS[lay.colour_index[k]]).all()


def test_soft_paint_lights_the_up_left_side():
    lay, labels, img = _scene("soft")
    lightness = srgb255_to_lab(img.astype(float))[..., 0]
    ys, xs = np.mgrid[:256, :256]
    for k in range(len(lay.shapes)):
        mask = labels == k + 1
        if mask.sum() < 200:
            continue
        lit = mask & (xs + ys < lay.cx[k] + lay.cy[k])
        dark = mask & (xs + ys > lay.cx[k] + lay.cy[k])
        assert lightness[lit].mean() > lightness[dark].mean() + 2.0
    assert (img[labels == 0] == 250).all(), "the background is not shaded"


def test_mottled_paint_keeps_each_pixel_nearest_its_own_regions_colour():
    lay, labels, img = _scene("mottled")
    flat = np.concatenate([[[250, 250, 250]], COLOURS[lay.colour_index]]).astype(float)
    lab = srgb255_to_lab(img.reshape(-1, 3).astype(float))
    palette = srgb255_to_lab(flat)
    nearest = np.argmin(np.linalg.norm(lab[:, None] - palette[None], axis=-1), axis=1)
    own = np.asarray(flat[labels.ravel()])
    assert np.array_equal(flat[nearest], own)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10, "a texture, not flat colours"
    with pytest.raises(ValueError, match="rng"):
        paint(labels, lay, (250, 250, 250), COLOURS, "mottled")
