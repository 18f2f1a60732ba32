"""Ellipse runs: bad input stops before any trial; rows carry the centre, direction and level; the ideal
observer is quantisation-limited; a simulated observer's known ellipse comes back; the CIELAB mode."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.results import load_results
from plates.runs.ellipses import EllipseRun, parse_centres, run_ellipses
from plates.runs.experiment import ModelSpec

IDEAL = ModelSpec("python", "plates.models.simulated:ideal", 512, 0.0, {})
KNOWN = ModelSpec("python", "tests.runs.test_ellipses:known", 512, 0.0, {})
GREY = "0.3,0.32"  # near MacAdam's centre 13, inside sRGB


def _known():
    from plates.models.simulated import EllipseObserver, fixed_ellipse

    return EllipseObserver(fixed_ellipse(0.006, 0.002, 30.0), seed=1)


known = _known()


def blind(image, question):
    """Sees nothing: always the same label."""
    return "Answer: 10"


def _run(tmp_path, centres=GREY, **kw) -> EllipseRun:
    cs, skipped = parse_centres(centres)
    return EllipseRun(centres=tuple(cs), model=kw.pop("model", IDEAL), out=str(tmp_path), size=256,
                      skipped=tuple(skipped), **kw)


@pytest.mark.parametrize(("centres", "kw", "says"), [
    ("0.05,0.9", {}, "outside the spectral locus"),
    ("0.16,0.057", {}, "outside the sRGB gamut"),
    ("0.3;0.3", {}, "'x,y' with two numbers"),
    (GREY, {"directions": 0}, "allowed: 3 or 5-72"),
    (GREY, {"directions": 4}, "three distinct axes"),
    (GREY, {"trials": 9}, "allowed: an integer 10-2000"),
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


def test_the_ideal_observer_is_quantisation_limited_and_rows_say_so(tmp_path):
    run = _run(tmp_path, directions=5, trials=10)
    result = run_ellipses(run)
    assert result.queries == 50 and result.errors == 0
    rows = load_results(tmp_path).frame  # the folder: the summary tables beside the parts are not rows
    assert len(rows) == 50 and set(rows["direction"]) == set(run.direction_names)
    assert rows["centre_x"].iloc[0] == pytest.approx(0.3, abs=2e-3) and (rows["level_unit"] == "1e-3 u'v'").all()
    assert (rows["level"] > 0).all() and (rows["level_shown"] >= 0).all() and rows["code_steps"].notna().all()
    # the ideal observer is right whenever the figure differs from the ground in 8 bits
    visible = rows["level_shown"] > 0
    assert rows.loc[visible, "correct"].all()
    thresholds = pd.read_parquet(tmp_path / "thresholds.parquet")
    assert len(thresholds) == 5
    assert (thresholds["limits"].str.contains("quantisation-limited")).all()
    ellipses = pd.read_parquet(tmp_path / "ellipses.parquet")
    assert list(ellipses["centre"]) == [GREY] and ellipses["trials"].iloc[0] == 50
    assert ellipses["a"].iloc[0] >= ellipses["b"].iloc[0]
    assert ellipses["a"].iloc[0] < 0.002  # within about a code step (1e-3 xy) of the centre


def test_a_known_ellipse_comes_back(tmp_path):
    result = run_ellipses(_run(tmp_path, model=KNOWN, trials=25))
    e = result.ellipses[0]
    assert e["status"] == "fit"
    assert e["a_low"] <= 0.006 <= e["a_high"] and e["b_low"] <= 0.002 <= e["b_high"]
    assert e["theta_low"] <= 30.0 <= e["theta_high"]
    assert e["area"] == pytest.approx(np.pi * 0.006 * 0.002, rel=0.5)


def test_a_macadam_centre_is_compared_with_macadam(tmp_path):
    result = run_ellipses(_run(tmp_path, centres="macadam-13", model=KNOWN, trials=10, directions=5))
    e = result.ellipses[0]
    assert e["centre"] == "macadam-13" and e["macadam_factor"] == 3.0
    assert e["macadam_a"] == pytest.approx(3 * 0.0023) and np.isfinite(e["area_ratio"])


def test_directions_leaving_srgb_stop_at_the_gamut(tmp_path):
    blind_model = ModelSpec("python", "tests.runs.test_ellipses:blind", 512, 0.0, {})
    run = _run(tmp_path, centres="0.6,0.33", directions=5, trials=10, model=blind_model)  # near sRGB's red
    gamut = [run.gamut_max(run.centres[0], k) for k in range(5)]
    assert min(gamut) < 30.0
    result = run_ellipses(run)
    rows = load_results(sorted(tmp_path.glob("ellipses-*.parquet"))).frame
    for k, name in enumerate(run.direction_names):
        assert (rows.loc[rows["direction"] == name, "level"] <= gamut[k] + 1e-9).all()
    assert [t["gamut_max"] for t in result.thresholds] == pytest.approx(gamut)
    limits = {t["direction"]: t["limits"] for t in result.thresholds}
    for name, g in zip(run.direction_names, gamut, strict=True):  # a blind observer: every threshold a bound
        assert ("gamut-limited" if g < 30.0 else "range-limited") in limits[name]
    assert result.ellipses[0]["status"] == "too-few-directions" and np.isnan(result.ellipses[0]["a"])


def test_dither_draws_sub_step_levels(tmp_path):
    run = _run(tmp_path, dither=True, directions=5)
    c = run.centres[0]
    plain = _run(tmp_path, directions=5)
    half_step = 0.3  # 1e-3 u'v': under one code step at this centre
    assert plain.code_steps(c, 0, half_step) < 1
    colours = run.figure_colours(c, 0, half_step)
    assert len(colours) == 16 and len(set(colours)) > 1
    want = run.figure(c, 0, half_step)
    assert np.allclose(np.mean(colours, axis=0), want, atol=1 / 16 + 1e-9)


def test_lab_mode_measures_lightness_chroma_and_hue(tmp_path):
    run = _run(tmp_path, centres="0.385,0.393", mode="lab", trials=10)
    c = run.centres[0]
    for k, name in enumerate(run.direction_names):
        fig = run.figure(c, k, 5.0)
        assert run.shown(c, k, fig) == pytest.approx(5.0, rel=0.02), name
    result = run_ellipses(run)
    assert [t["direction"] for t in result.thresholds] == ["L*+", "L*-", "C*+", "C*-", "h+", "h-"]
    assert result.ellipses == [] and not (tmp_path / "ellipses.parquet").exists()
    assert (pd.read_parquet(tmp_path / "thresholds.parquet")["unit"] == "CIELAB").all()
