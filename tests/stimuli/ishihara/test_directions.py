"""Backgrounds drawn along CIELAB directions: each level of a sweep or staircase at the requested ΔE2000 as
drawn in 8 bits, a direction per trial, recorded in the spec (and so in every row's spec_json)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from plates import colour as C
from plates.stimuli.ishihara.directions import TOLERANCE, drawn_delta_e, random_direction, with_direction
from plates.stimuli.ishihara.plate import PlateSpec, render

BASE = PlateSpec(text="12", size=96, palette="huemanity-01", font="dejavu-sans-bold")


@pytest.mark.parametrize("level", [0.8, 3.3, 3.4, 12.0])
def test_every_trial_is_at_the_level_as_drawn_and_directions_differ(level):
    specs = [with_direction(BASE, level, seed) for seed in range(12)]
    drawn = [drawn_delta_e(s) for s in specs]
    assert all(abs(d - level) <= TOLERANCE for d in drawn)
    # the background really is that colour on the plate: one background colour, at the drawn ΔE2000
    for spec in specs[:2]:
        (bg,) = spec.colours[1]
        ref = spec.foreground_reference(spec.colours[0])
        assert float(C.delta_e2000(np.array(ref, float), np.array(bg, float))) == pytest.approx(drawn_delta_e(spec))
        plate = render(spec)
        assert tuple(plate.dot_colours[~plate.is_fg][0]) == bg
    directions = np.array([s.delta_e_direction for s in specs])
    assert np.allclose(np.linalg.norm(directions, axis=1), 1.0, atol=1e-5)
    assert len({s.colours[1] for s in specs}) >= 6  # not one 8-bit colour per level (few 8-bit colours lie 0.8 away)
    # both lighter and darker, and more than one hue side: around the foreground, not along one line
    assert (directions[:, 0] > 0).any() and (directions[:, 0] < 0).any()
    assert (directions[:, 1] > 0).any() and (directions[:, 1] < 0).any()


def test_seeded_recorded_and_round_tripped():
    a, b = with_direction(BASE, 3.3, 7), with_direction(BASE, 3.3, 7)
    assert a == b and a != with_direction(BASE, 3.3, 8)
    data = json.loads(a.to_json())
    assert data["delta_e_direction"] == list(a.delta_e_direction) and data["delta_e"] == 3.3
    assert PlateSpec.from_json(a.to_json()) == a
    assert np.array_equal(render(PlateSpec.from_json(a.to_json())).pixels, render(a).pixels)


def test_uniform_on_the_sphere():
    rng = np.random.Generator(np.random.PCG64(0))
    v = np.array([random_direction(rng) for _ in range(4000)])
    assert np.abs(v.mean(axis=0)).max() < 0.05 and np.allclose((v * v).mean(axis=0), 1 / 3, atol=0.03)


def test_the_default_is_todays_palette_line_and_its_json():
    spec = BASE.replace(delta_e=3.3)
    assert spec.delta_e_direction is None and "delta_e_direction" not in json.loads(spec.to_json())
    ref = spec.foreground_reference(spec.colours[0])
    assert spec.colours[1] == tuple(C.background_at_delta_e(ref, b, 3.3)
                                    for b in BASE.colours[1])


def test_bad_directions_are_named():
    with pytest.raises(ValueError, match="needs delta_e"):
        BASE.replace(delta_e_direction=(1.0, 0.0, 0.0))
    for bad in [(0, 0, 0), (1.0, 2.0), ("a", 1, 1), (float("nan"), 1, 1)]:
        with pytest.raises(ValueError, match="delta_e_direction"):
            BASE.replace(delta_e=3.0, delta_e_direction=bad)
    with pytest.raises(ValueError, match="not reachable"):
        with_direction(BASE, 150.0, 0)
    with pytest.raises(ValueError, match="seed"):
        with_direction(BASE, 3.0, -1)
    with pytest.raises(ValueError, match="direction"):
        C.colour_at_delta_e((200, 40, 40), (0, 0, 0), 3.0)
