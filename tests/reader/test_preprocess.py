"""The 'contrast-dots' preprocessing: the canvas between the dots no longer tints what the network sees."""

from __future__ import annotations

import numpy as np
import pytest

from plates.reader.preprocess import canvas_colour, dots_only, preprocess, resize
from plates.stimuli.ishihara.plate import PlateSpec, render


@pytest.fixture(scope="module")
def spec():
    # a wide gap so the canvas shows between the dots
    return PlateSpec(text="63", size=300, seed=6_300_000, palette="huemanity-07", style="cbe")


@pytest.mark.parametrize("canvas", [(255, 255, 255), (0, 0, 0), (40, 60, 200)])
def test_the_canvas_colour_is_found_in_the_corners(spec, canvas):
    image = render(spec.replace(canvas=canvas)).image
    assert tuple(canvas_colour(np.asarray(image))) == canvas


def test_no_canvas_where_the_corners_hold_dots_or_texture(spec):
    image = render(spec).image
    square = image.crop((60, 60, 240, 240))  # the central square of dots: dots reach every corner
    assert canvas_colour(np.asarray(square)) is None
    assert dots_only(square, 96) is None
    noise = np.random.default_rng(0).integers(0, 256, (300, 300, 3), dtype=np.uint8)
    assert canvas_colour(noise) is None


def test_a_coloured_canvas_no_longer_tints_the_plate(spec):
    """The same dots on white and on blue paper: alike after contrast-dots, unlike after plain contrast."""
    white = render(spec).image
    blue = render(spec.replace(canvas=(40, 60, 200))).image
    dots_w, dots_b = resize(white, 96, neutralise_canvas=True), resize(blue, 96, neutralise_canvas=True)
    yy, xx = np.mgrid[0:96, 0:96]
    inside = (xx - 47.5) ** 2 + (yy - 47.5) ** 2 < 40**2
    # sRGB 0-255 units: the canvas is gone, from the cells between the dots too (filled from the dots around)
    assert np.abs(dots_w - dots_b)[inside].mean() < 3.0
    plain_w, plain_b = resize(white, 96), resize(blue, 96)
    assert np.abs(plain_w - plain_b)[inside].mean() > 15.0  # without it the paper shows through
    a, b = preprocess(white, mode="contrast-dots"), preprocess(blue, mode="contrast-dots")
    assert np.corrcoef(a[0].ravel(), b[0].ravel())[0, 1] > 0.98


def test_cells_without_dots_keep_the_canvas_so_the_clear_variant_still_shows_its_figure(spec):
    clear = render(spec).clear  # figure dots alone on white
    out = dots_only(clear, 96)
    assert out is not None
    assert (np.all(out == 255, axis=2)).mean() > 0.3  # the empty surround stays white paper
    x = preprocess(clear, mode="contrast-dots")
    assert x[0].max() > 1.0  # the figure still stands out


def test_a_plate_without_canvas_reads_as_in_the_contrast_mode(spec):
    square = render(spec).image.crop((60, 60, 240, 240))
    assert np.array_equal(preprocess(square, mode="contrast-dots"), preprocess(square, mode="contrast"))


@pytest.mark.parametrize("text", ["68", "96"])
def test_the_fill_reaches_the_same_share_of_the_plate_at_every_input_side(text, monkeypatch):
    """Cells between dots are filled from dots within a fixed share of the side (5 cells at 96 px, 3 at 64), so a
    clear plate's holes (the loops of 6, 8, 9) stay paper at 64 px as at 96; a fixed 5 cells at 64 px filled them."""
    from plates.reader import preprocess as P

    assert (P.empty_fill(96), P.empty_fill(64)) == (5, 3)  # the 96 px reader's input is unchanged
    clear = render(PlateSpec(text=text, size=300, seed=6_300_001, palette="huemanity-07", style="cbe")).clear

    def paper_in_figure_box(size: int) -> float:
        paper = np.all(dots_only(clear, size) == 255, axis=2)
        ys, xs = np.nonzero(~paper)
        return float(paper[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].mean())

    at_96, at_64 = paper_in_figure_box(96), paper_in_figure_box(64)
    assert abs(at_64 - at_96) < 0.05
    monkeypatch.setattr(P, "EMPTY_FILL_SHARE", 5 / 64)  # the fixed 5 cells this replaced
    assert paper_in_figure_box(64) < at_96 - 0.05
