"""`plates.runs.ellipse_plan`: centres, the validated run, and the colours a direction draws."""

from __future__ import annotations

import numpy as np
import pytest

from plates.runs.ellipse_plan import EllipseRun, parse_centres
from plates.runs.experiment import ModelSpec

IDEAL = ModelSpec("python", "plates.models.simulated:ideal", 512, 0.0, {})
GREY = "0.3,0.32"  # near MacAdam's centre 13, inside sRGB


def _run(tmp_path, centres=GREY, **kw) -> EllipseRun:
    cs, skipped = parse_centres(centres)
    return EllipseRun(centres=tuple(cs), model=kw.pop("model", IDEAL), out=str(tmp_path), size=256,
                      skipped=tuple(skipped), **kw)


@pytest.mark.parametrize(("centres", "kw", "says"), [
    ("0.05,0.9", {}, "outside the spectral locus"),
    ("0.16,0.057", {}, "outside the sRGB gamut"),
    ("0.3;0.3", {}, "'x,y' with two numbers"),
    (GREY, {"directions": 0}, r"directions=0 is not valid; allowed: an integer in \[3, 72\] but 4"),
    (GREY, {"directions": 4}, "three distinct axes"),
    (GREY, {"trials": 9}, r"trials=9 is not valid; allowed: an integer in \[10, 2000\] per direction"),
    (GREY, {"prompt": "cbe-open-any"}, "prompt"),
    ("0.3127,0.329", {"mode": "lab"}, "C\\*ab >= 1"),
    (GREY, {"mode": "hsv"}, "mode"),
])
def test_bad_input_fails_before_any_trial(tmp_path, centres, kw, says):
    with pytest.raises(ValueError, match=says):
        _run(tmp_path, centres, **kw)
    assert not any(tmp_path.iterdir())


def test_macadam_centres_inside_srgb_are_used_by_name():
    used, skipped = parse_centres("macadam")
    assert len(used) == 14 and len(skipped) == 11
    assert used[0].name == "macadam-02" and all(0 < c.Y <= 1 for c in used)
    named, _ = parse_centres("0.305,0.323;macadam-14;0.3,0.32")
    assert [c.name for c in named] == ["macadam-13", "macadam-14", "0.3,0.32"]
    with pytest.raises(ValueError, match="macadam-01..macadam-25"):
        parse_centres("macadam-26")


def test_a_direction_shows_the_level_it_asks_until_8_bits_round_it(tmp_path):
    run = _run(tmp_path)
    c = run.centres[0]
    for k in range(run.directions):
        for level in (2.0, 8.0):
            assert run.shown(c, k, run.figure(c, k, level)) == pytest.approx(level, rel=2e-3)
            rounded = np.array(run.figure_colours(c, k, level)[0], dtype=float)
            assert abs(run.shown(c, k, rounded) - level) < 1.5  # one code step is ~1e-3 u'v' here
    assert run.direction_names[0] == "uv-000.0" and run.angle(2) == pytest.approx(90.0)


def test_dithered_colours_straddle_the_wanted_figure(tmp_path):
    run = _run(tmp_path, dither=True)
    c = run.centres[0]
    want = np.clip(run.figure(c, 1, 0.5), 0, 255)
    colours = np.array(run.figure_colours(c, 1, 0.5), dtype=float)
    assert len(colours) == 16
    assert (colours >= np.floor(want)).all() and (colours <= np.floor(want) + 1).all()
    assert np.abs(colours.mean(axis=0) - want).max() <= 1 / 16 + 1e-9


def test_the_gamut_edge_is_inside_and_a_step_beyond_is_not(tmp_path):
    run = _run(tmp_path, centres="0.45,0.45")
    c = run.centres[0]
    edges = [run.gamut_max(c, k) for k in range(run.directions)]
    k = int(np.argmin(edges))
    rgb = run.figure(c, k, edges[k])
    assert (rgb >= -1e-6).all() and (rgb <= 255 + 1e-6).all()
    beyond = run.figure(c, k, edges[k] * 1.01 + 1e-3)
    assert (beyond < -1e-6).any() or (beyond > 255 + 1e-6).any()
