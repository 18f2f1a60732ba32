"""Ellipse runs: bad input stops before any trial; rows carry the centre, direction and level; the ideal
observer is quantisation-limited; a simulated observer's known ellipse comes back; the CIELAB mode."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.results import load_results
from plates.runs.ellipse_plan import EllipseRun, parse_centres
from plates.runs.ellipses import run_ellipses
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
    assert e["status"] == "fit" and e["interval_method"] == "trials"  # the trials resampled
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


class _Faulty:
    """The named Python observer, except that ask number ``fail_at`` (1-based) is a failed request and ask
    ``stop_at`` raises (the process stopping mid-run)."""

    def __init__(self, inner, fail_at=None, stop_at=None):
        self.inner, self.fail_at, self.stop_at, self.asks = inner, fail_at, stop_at, 0

    def ask(self, queries):
        from plates.models.base import Reply

        self.asks += 1
        if self.asks == self.stop_at:
            raise KeyboardInterrupt("stopped")
        if self.asks == self.fail_at:
            yield 0, Reply(None, error="HTTP 503 from the test")
            return
        yield from self.inner.ask(queries)

    def close(self):
        self.inner.close()


def _faulty(**kw):
    from plates.models import make_backend

    return lambda name, **options: _Faulty(make_backend(name, **options), **kw)


def _rows(out):
    frame = load_results(out).frame.sort_values("item_id")
    return frame[["item_id", "level", "level_shown", "correct", "parse_status"]].reset_index(drop=True)


def test_a_stopped_run_resumes_where_it_stopped(tmp_path):
    whole = run_ellipses(_run(tmp_path / "whole", model=KNOWN, directions=5, trials=10))
    stopped = _run(tmp_path / "stopped", model=KNOWN, directions=5, trials=10)
    with pytest.raises(KeyboardInterrupt):
        run_ellipses(stopped, make_backend=_faulty(stop_at=24))
    assert len(_rows(tmp_path / "stopped")) == 23  # the rows asked before the stop are kept
    resumed = run_ellipses(stopped)
    assert resumed.queries == 50 - 23  # only the trials not yet answered are asked
    pd.testing.assert_frame_equal(_rows(tmp_path / "stopped"), _rows(tmp_path / "whole"))
    assert resumed.ellipses[0]["a"] == whole.ellipses[0]["a"] and resumed.thresholds == whole.thresholds
    again = run_ellipses(stopped)  # nothing left: no backend asked, the same summary
    assert again.queries == 0 and again.ellipses[0]["theta_deg"] == whole.ellipses[0]["theta_deg"]


def test_a_failed_ask_is_asked_again_as_its_own_row_and_resume_keeps_it(tmp_path):
    run = _run(tmp_path, model=KNOWN, directions=5, trials=10)
    with pytest.raises(KeyboardInterrupt):
        run_ellipses(run, make_backend=_faulty(fail_at=7, stop_at=30))
    rows = _rows(tmp_path)
    failed = rows[rows["parse_status"] == "error"]
    assert len(failed) == 1 and failed["item_id"].iloc[0].count("|") == 2  # attempt 0 of its trial
    retry = failed["item_id"].iloc[0] + "|1"
    assert retry in set(rows["item_id"]) and len(rows) == 29
    result = run_ellipses(run)
    rows = _rows(tmp_path)
    assert result.queries == 51 - 29 and len(rows) == 51
    answered = rows[rows["parse_status"] != "error"]
    per_direction = answered["item_id"].str.split("|").str[1].value_counts()
    assert per_direction.tolist() == [10] * 5
    assert all(t["trials"] == 10 for t in result.thresholds)


def test_rows_of_other_settings_are_refused(tmp_path):
    run = _run(tmp_path, model=KNOWN, directions=5, trials=10)
    run_ellipses(run)
    import dataclasses

    from plates.runs.ellipse_trials import resume_state

    other = dataclasses.replace(run, centres=tuple(parse_centres("0.31,0.33")[0]))
    assert other.run_id != run.run_id
    states, counts = resume_state(other, other.adaptive_spec())  # another run id: none of these rows are its
    assert not counts and all(not s.history for s in states.values())
