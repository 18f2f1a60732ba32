"""`plates.runs.ellipse_summary`: thresholds and ellipses from QUEST+ states, and the summary files."""

from __future__ import annotations

import math

import numpy as np
import pyarrow.parquet as pq
import pytest

from plates.analysis.adaptive import AdaptiveState
from plates.colour.chromaticity import xy_to_uv
from plates.results import load_results
from plates.results.schema import KIND_KEY, SUMMARY_KIND
from plates.runs.ellipse_plan import EllipseRun, parse_centres
from plates.runs.ellipse_summary import gamut_table, shown_unit, summarise, write_summary
from plates.runs.experiment import ModelSpec

IDEAL = ModelSpec("python", "plates.models.simulated:ideal", 512, 0.0, {})


def _run(tmp_path, centres="0.3,0.32", **kw) -> EllipseRun:
    cs, _ = parse_centres(centres)
    return EllipseRun(centres=tuple(cs), model=IDEAL, out=str(tmp_path), size=256, **kw)


def _answered(spec, threshold: float, trials: int, seed: int) -> AdaptiveState:
    """A state after ``trials`` answers of an observer whose threshold is ``threshold`` (a step function)."""
    rng = np.random.default_rng(seed)
    state = AdaptiveState.start(spec)
    for _ in range(trials):
        level = state.next_level()
        right = level >= threshold or rng.random() < 0.1
        state = state.update(level, int(right))
    return state


def test_a_circle_of_thresholds_fits_a_near_circle_and_intervals_bracket_it(tmp_path):
    run = _run(tmp_path, trials=40)
    spec = run.adaptive_spec()
    states = {(0, k): _answered(spec, 4.0, 40, k) for k in range(8)}
    thresholds, ellipses = summarise(run, states, gamut_table(run), backend_name="python", draws=60)
    assert len(thresholds) == 8 and {t["direction"] for t in thresholds} == set(run.direction_names)
    (e,) = ellipses
    assert e["status"] == "fit" and e["interval_method"] == "trials"
    assert e["a"] / e["b"] < 1.6  # one threshold in every u'v' direction: no strong elongation in xy
    assert e["a_low"] <= e["a"] <= e["a_high"] and e["area_low"] <= e["area"] <= e["area_high"]


def test_a_direction_never_asked_gives_no_radius(tmp_path):
    run = _run(tmp_path, trials=40)
    spec = run.adaptive_spec()
    states = {(0, k): _answered(spec, 4.0, 40, k) if k < 5 else AdaptiveState.start(spec) for k in range(8)}
    _, (e,) = summarise(run, states, gamut_table(run), backend_name="python", draws=20)
    assert e["directions_used"] == 5


def test_summaries_are_marked_so_results_readers_leave_them_out(tmp_path):
    write_summary([{"run_id": "r", "model": "m", "threshold": 1.0}], tmp_path / "thresholds.parquet")
    meta = pq.read_schema(tmp_path / "thresholds.parquet").metadata
    assert meta[KIND_KEY] == SUMMARY_KIND
    assert load_results(tmp_path).frame.empty


def test_a_figure_that_rounds_to_the_centre_keeps_the_asked_direction(tmp_path):
    run = _run(tmp_path)
    c = run.centres[0]
    uv0 = xy_to_uv(c.xy_drawn)
    unit = shown_unit(run, c, 2, 1e-4, uv0)  # far below one code step: the figure is the ground
    assert unit == pytest.approx([math.cos(math.radians(90.0)), 1.0], abs=1e-12)
    far = shown_unit(run, c, 2, 8.0, uv0)
    assert np.hypot(*far) == pytest.approx(1.0) and far[1] > 0.9
