"""`plates.stimuli.scenes.shapes`: unit outlines inside their bounding disc, their areas (checked against drawn
pixels), clockwise turns in image coordinates (x right, y down, px), plurals and the lookup's error."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image, ImageDraw

from plates.stimuli.scenes.shapes import SHAPE_AREA, SHAPE_TURN, SHAPES, outline, plural


def test_every_shape_has_an_area_and_a_turn_limit():
    assert set(SHAPE_AREA) == set(SHAPE_TURN) == set(SHAPES) and len(SHAPES) == 10
    assert all(0 < SHAPE_TURN[s] <= 180 for s in SHAPES)
    assert SHAPE_AREA["circle"] == pytest.approx(math.pi) and SHAPE_AREA["square"] == pytest.approx(2.0)
    assert SHAPE_AREA["triangle"] == pytest.approx(3 * math.sqrt(3) / 4)


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "circle"])
@pytest.mark.parametrize("angle", [0.0, 37.0, 180.0])
def test_outlines_stay_in_their_bounding_disc_and_touch_it(shape, angle):
    points = np.array(outline(shape, 50.0, 60.0, 20.0, angle))
    dist = np.hypot(points[:, 0] - 50.0, points[:, 1] - 60.0)
    assert dist.max() <= 20.0 + 1e-9 and dist.max() == pytest.approx(20.0, abs=1e-6)


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "circle"])
def test_the_area_is_what_the_drawn_polygon_covers(shape):
    r = 400.0
    image = Image.new("L", (1000, 1000), 0)
    ImageDraw.Draw(image).polygon(outline(shape, 500.0, 500.0, r, 0.0), fill=255)
    covered = np.count_nonzero(np.asarray(image)) / r**2
    assert covered == pytest.approx(SHAPE_AREA[shape], rel=0.01)


def test_a_positive_angle_turns_clockwise_on_screen():
    top = outline("triangle", 0.0, 0.0, 1.0, 0.0)[0]
    assert top == pytest.approx((0.0, -1.0))  # the apex up (y down)
    assert outline("triangle", 0.0, 0.0, 1.0, 90.0)[0] == pytest.approx((1.0, 0.0))  # now pointing right


def test_a_circle_has_no_polygon_and_an_unknown_shape_names_the_known_ones():
    assert outline("circle", 1.0, 1.0, 5.0, 30.0) is None
    with pytest.raises(ValueError, match="shape 'oval' is not known; allowed: circle, square, triangle"):
        outline("oval", 0.0, 0.0, 1.0, 0.0)


def test_plurals():
    assert [plural(s) for s in ("star", "cross", "house")] == ["stars", "crosses", "houses"]
