"""Painting dots (`plates.stimuli.ishihara.paint`): the hard-edged painter is Pillow's ellipse fill dot by dot,
the anti-aliased painter is each pixel's coverage over the canvas (checked against an independent computation),
and both keep the canvas where no dot reaches."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from plates.stimuli.ishihara.paint import paint_dots, paint_dots_aa, paint_dots_aa_pixels

WHITE = (255, 255, 255)


def _dots(n: int, seed: int, size: int = 200):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(10, size - 10, n), rng.uniform(10, size - 10, n)
    r = rng.uniform(2.0, 9.0, n)
    return x, y, r, rng.integers(0, 256, (n, 3)).astype(np.uint8)


@pytest.mark.parametrize("seed", [0, 1])
def test_hard_edged_dots_are_pillows_ellipse_fill_dot_by_dot(seed):
    x, y, r, colours = _dots(60, seed)
    got = np.asarray(paint_dots(200, x, y, r, colours, (240, 230, 220)))
    im = Image.new("RGB", (200, 200), (240, 230, 220))
    draw = ImageDraw.Draw(im)
    for xi, yi, ri, c in zip(x, y, r, colours, strict=True):
        h = max(ri - 0.5, 0.0)
        draw.ellipse((xi - h, yi - h, xi + h, yi + h), fill=tuple(int(v) for v in c))
    assert np.array_equal(got, np.asarray(im))


def test_grey_dots_paint_levels_in_mode_l():
    x, y, r, colours = _dots(30, 2)
    levels = colours[:, 0]
    got = np.asarray(paint_dots(200, x, y, r, levels, 128, mode="L"))
    assert got.shape == (200, 200) and set(np.unique(got).tolist()) <= {128, *levels.tolist()}


def test_no_dots_leave_the_canvas():
    empty = np.zeros(0)
    pix = paint_dots_aa_pixels(64, empty, empty, empty, np.zeros((0, 3), np.uint8), (10, 20, 30))
    assert pix.shape == (64, 64, 3) and (pix == (10, 20, 30)).all()
    assert not pix.flags.writeable


def test_anti_aliased_pixels_are_read_only_and_the_image_is_the_same():
    x, y, r, colours = _dots(20, 4)
    pix = paint_dots_aa_pixels(200, x, y, r, colours, WHITE)
    assert not pix.flags.writeable and pix.dtype == np.uint8
    assert np.array_equal(np.asarray(paint_dots_aa(200, x, y, r, colours, WHITE)), pix)


def test_a_dot_off_the_image_paints_only_what_lies_on_it():
    pix = paint_dots_aa_pixels(
        50, np.array([-3.0]), np.array([25.0]), np.array([6.0]), np.array([[0, 0, 0]], np.uint8), WHITE
    )
    assert (pix[:, 4:] == 255).all() and (pix[25, 0] == 0).all()


# ---- anti-aliasing, checked pixel by pixel against an independent computation ------------------------------------
def test_anti_aliased_dots_match_their_coverage():
    """Each pixel whose centre lies at distance d of one dot only gets alpha = clip(r + 1 - d, 0, 1) of its colour
    over the canvas (HueManity's pygame: a filled disc with an anti-aliased one-pixel rim), +-1 for rounding."""
    rng = np.random.default_rng(3)
    n = 40
    x, y = rng.uniform(20, 180, n) + 0.0, rng.uniform(20, 180, n)
    x, y = np.floor(x) + 0.5, np.floor(y) + 0.5
    r = rng.integers(3, 9, n).astype(float)
    keep = np.ones(n, dtype=bool)
    for i in range(n):  # drop overlapping dots (the painter's input never overlaps)
        d = np.hypot(x[:i] - x[i], y[:i] - y[i]) - r[:i] - r[i]
        keep[i] = not (keep[:i] & (d < 2.5)).any()
    x, y, r = x[keep], y[keep], r[keep]
    colours = rng.integers(0, 200, (r.size, 3)).astype(np.uint8)
    got = np.asarray(paint_dots_aa(200, x, y, r, colours, WHITE)).astype(float)
    yy, xx = np.mgrid[0:200, 0:200] + 0.5
    d = np.hypot(xx[None] - x[:, None, None], yy[None] - y[:, None, None])
    alpha = np.clip(r[:, None, None] + 1 - d, 0, 1)
    touched = (alpha > 0).sum(0)
    sole = alpha.argmax(0)
    a = alpha.max(0)[..., None]
    want = a * colours[sole].astype(float) + (1 - a) * 255.0
    ok = touched <= 1
    assert ok.mean() > 0.99 and (touched == 1).sum() > 2000
    assert np.abs(got - want)[ok].max() <= 1.0
    assert ((a[..., 0] > 0) & (a[..., 0] < 1))[ok].sum() > 300  # there are rims to check
