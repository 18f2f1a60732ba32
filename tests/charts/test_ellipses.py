"""The ellipse chart: points on the ellipse, bands for intervals, MacAdam's scaled, rows without a fit named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.charts.ellipses import ellipse_figure, ellipse_xy, observer_label, sensitivity_map


def test_points_lie_on_the_ellipse():
    pts = ellipse_xy(0.3, 0.3, 0.006, 0.002, 30.0, magnify=10)
    t = np.radians(30.0)
    d = pts - [0.3, 0.3]
    u = d @ np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    assert np.allclose((u[:, 0] / 0.06) ** 2 + (u[:, 1] / 0.02) ** 2, 1.0)


def test_figure_traces():
    rows = pd.DataFrame([
        {"model": "m1", "centre": "macadam-13", "centre_x": 0.305, "centre_y": 0.323, "a": 0.006, "b": 0.002,
         "theta_deg": 30.0, "a_low": 0.005, "a_high": 0.007, "b_low": 0.0015, "b_high": 0.0025, "status": "fit"},
        {"model": "m2", "centre": "macadam-14", "centre_x": 0.385, "centre_y": 0.393, "a": np.nan, "b": np.nan,
         "theta_deg": np.nan, "status": "at-chance"},
    ])
    fig = ellipse_figure(rows, factor=3.0)
    names = [trace.name for trace in fig.data]
    assert names.count("MacAdam 1942 × 3") == 25 and "m1" in names and "m2" not in names
    band = [trace for trace in fig.data if trace.fill == "toself"]
    assert len(band) == 1
    assert "m2 at macadam-14 (at-chance)" in fig.layout.title.text
    mac13 = [trace for trace in fig.data if trace.hovertext == "macadam-13"][0]
    # MacAdam 13: a = 2.3e-3 x 3 x 10 (magnified) from the centre at most
    assert np.max(np.hypot(np.array(mac13.x) - 0.305, np.array(mac13.y) - 0.323)) == pytest.approx(0.069, rel=1e-3)


def test_without_macadam():
    assert all(t.legendgroup != "macadam" for t in ellipse_figure(pd.DataFrame(), macadam=False).data)


def test_sensitivity_map_colours_by_log_area_ratio():
    rows = pd.DataFrame([
        {"model": "m", "centre": "macadam-13", "centre_x": 0.305, "centre_y": 0.323, "area_ratio": 4.0,
         "status": "fit"},
        {"model": "m", "centre": "0.3,0.3", "centre_x": 0.3, "centre_y": 0.3, "area_ratio": np.nan,
         "status": "fit"},
        {"model": "other", "centre": "macadam-14", "centre_x": 0.385, "centre_y": 0.393, "area_ratio": 1.0,
         "status": "fit"},
    ])
    fig = sensitivity_map(rows, "m")
    coloured = [t for t in fig.data if t.name == "log₂ area ratio"][0]
    assert list(coloured.marker.color) == [2.0]
    assert [t for t in fig.data if t.name == "no ratio"][0].hovertext == ("0.3,0.3: fit",)


def test_a_person_is_named_with_the_colour_vision_they_reported():
    person = {"model": "participant-ab12", "backend": "human", "centre": "macadam-13", "centre_x": 0.305,
              "centre_y": 0.323, "a": 0.004, "b": 0.002, "theta_deg": 40.0, "colour_vision": "deutan"}
    assert observer_label(person) == "participant-ab12 (person; colour vision, self-reported: deutan)"
    assert observer_label({**person, "colour_vision": None}).endswith("self-reported: not given)")
    assert observer_label({**person, "backend": "openai", "model": "gpt-x"}) == "gpt-x"
    names = {t.name for t in ellipse_figure(pd.DataFrame([person, {**person, "model": "m", "backend": "python"}])).data}
    assert {"participant-ab12 (person; colour vision, self-reported: deutan)", "m"} <= names
