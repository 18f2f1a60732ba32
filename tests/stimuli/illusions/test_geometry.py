"""The canonical frame's raster geometry (`plates.stimuli.illusions.geometry`): images, masks, stripe fields,
inducer pairs and the contrast / assimilation prediction, each checked on its own numbers."""

from __future__ import annotations

import numpy as np
import pytest

from plates import colour as C
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.illusions.geometry import (
    canvas,
    centres,
    compose,
    disc,
    inducer_pair,
    lighter_of,
    paint,
    rough_rect,
    stripe_field,
)


def test_canvas_fills_every_pixel_with_the_colour_as_uint8():
    img = canvas(5, (10, 200, 255))
    assert img.shape == (5, 5, 3) and img.dtype == np.uint8
    assert np.all(img == (10, 200, 255))


def test_paint_sets_only_the_masked_pixels_with_one_or_per_pixel_colours():
    img = canvas(4, (0, 0, 0))
    mask = np.zeros((4, 4), dtype=bool)
    mask[1, 2] = mask[3, 0] = True
    paint(img, mask, (9, 8, 7))
    assert img[1, 2].tolist() == img[3, 0].tolist() == [9, 8, 7]
    assert int(img.sum()) == 2 * (9 + 8 + 7)
    paint(img, mask, [(1, 2, 3), (4, 5, 6)])  # row-major order: (1, 2) before (3, 0)
    assert img[1, 2].tolist() == [1, 2, 3] and img[3, 0].tolist() == [4, 5, 6]


def test_compose_looks_each_label_up_in_the_palette():
    labels = np.array([[0, 1], [2, 1]])
    img = compose(labels, [(255, 0, 0), (0, 255, 0), (0, 0, 255)])
    assert img.dtype == np.uint8
    assert img.tolist() == [[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [0, 255, 0]]]
    with pytest.raises(IndexError):  # a label past the palette is an error, not a wrap-around
        compose(np.array([[3]]), [(0, 0, 0), (1, 1, 1)])


def test_centres_are_half_pixel_offsets_as_a_column_and_a_row():
    y, x = centres(3)
    assert y.shape == (3, 1) and x.shape == (1, 3)
    assert y.ravel().tolist() == x.ravel().tolist() == [0.5, 1.5, 2.5]


def test_disc_holds_the_pixel_centres_within_the_radius():
    mask = disc(8, 4.0, 4.0, 1.0)
    assert np.argwhere(mask).tolist() == [[3, 3], [3, 4], [4, 3], [4, 4]]  # centres (3.5, 3.5) ... at 0.71 px
    assert not disc(8, 4.0, 4.0, 0.5).any()  # no centre within 0.5 px of a pixel corner
    assert disc(8, 4.0, 4.0, 100.0).all()


def test_straight_rough_rect_is_the_half_open_rectangle():
    mask = rough_rect(10, 2.0, 3.0, 6.0, 5.0, 0.0, np.random.default_rng(0))
    rows, cols = np.nonzero(mask)
    assert (rows.min(), rows.max(), cols.min(), cols.max()) == (3, 4, 2, 5)
    assert mask.sum() == 4 * 2


def test_rough_rect_sides_wander_by_at_most_the_amplitude_and_follow_the_seed():
    amp = 3.0
    masks = [rough_rect(64, 16.0, 16.0, 48.0, 48.0, amp, np.random.default_rng(s)) for s in (1, 1, 2)]
    assert np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[0], masks[2])
    inner = rough_rect(64, 16.0 + amp, 16.0 + amp, 48.0 - amp, 48.0 - amp, 0.0, np.random.default_rng(0))
    outer = rough_rect(64, 16.0 - amp, 16.0 - amp, 48.0 + amp, 48.0 + amp, 0.0, np.random.default_rng(0))
    for mask in masks:
        assert not (inner & ~mask).any() and not (mask & ~outer).any()
        assert not np.array_equal(mask, rough_rect(64, 16.0, 16.0, 48.0, 48.0, 0.0, np.random.default_rng(0)))


@pytest.mark.parametrize("direction", ["horizontal", "vertical", "diagonal"])
def test_stripe_field_has_count_stripes_of_each_class_of_equal_width(direction):
    index, cls, across, along, w = stripe_field(64, direction, 4)
    assert w == 64 / 8
    assert index.dtype == np.int32 and cls.dtype == np.uint8 and index.shape == cls.shape == (64, 64)
    assert np.array_equal(cls, index & 1)
    assert np.array_equal(index, np.floor(across / w))
    if direction == "horizontal":  # index grows with y, constant along x
        assert np.all(index == index[:, :1]) and index[:, 0].tolist() == [i // 8 for i in range(64)]
    elif direction == "vertical":
        assert np.all(index == index[:1, :]) and index[0].tolist() == [i // 8 for i in range(64)]
    else:  # constant along x + y (lower left to upper right), up to sqrt(2) times as many crossings
        assert np.array_equal(index[1:, :-1], index[:-1, 1:])
        assert index.max() - index.min() + 1 > 8


def test_negative_diagonal_is_the_mirror_image():
    up = stripe_field(32, "diagonal", 3, diagonal=1)[0]
    down = stripe_field(32, "diagonal", 3, diagonal=-1)[0]
    assert np.array_equal(down[:-1, :-1], down[1:, 1:])  # constant along x - y
    assert not np.array_equal(up, down)


def test_bend_shifts_the_across_coordinate_by_the_function_of_along():
    flat = stripe_field(40, "horizontal", 5)
    bent = stripe_field(40, "horizontal", 5, bend=lambda along: np.full_like(along, 2.0))
    assert np.allclose(bent[2], flat[2] + 2.0)
    assert np.array_equal(bent[0], np.floor((flat[2] + 2.0) / flat[4]))


def test_inducer_pair_meets_at_the_midpoint_at_strength_zero_and_is_full_at_one():
    spec = IllusionSpec("simultaneous-contrast")
    i0, i1 = (np.asarray(v, dtype=float) for v in spec.resolved_inducers[:2])
    lab0, lab1, rgb0, rgb1 = inducer_pair(spec, 1.0)
    assert np.allclose(lab0, i0) and np.allclose(lab1, i1)
    assert rgb0.dtype == np.uint8 and np.allclose(C.lab_to_srgb255(lab0), rgb0, atol=0.5 + 1e-9)
    zero = inducer_pair(spec, 0.0)
    assert np.allclose(zero[0], (i0 + i1) / 2) and np.array_equal(zero[2], zero[3])
    half = inducer_pair(spec.replace(strength=0.5))  # None reads the spec's strength
    assert np.allclose(half[0], (i0 + i1) / 2 + 0.25 * (i0 - i1))


def test_lighter_of_follows_contrast_or_assimilation_and_ties_give_none():
    assert lighter_of((30, 0, 0), (70, 0, 0)) == "left"  # the target on the darker context looks lighter
    assert lighter_of((70, 5, 5), (30, 0, 0)) == "right"
    assert lighter_of((30, 0, 0), (70, 0, 0), contrast=False) == "right"
    assert lighter_of((50, 40, 0), (50, -40, 0)) is None  # only L* is read
    assert lighter_of((50, 0, 0), (50 + 1e-7, 0, 0)) is None
