"""plates.charts.views: accuracy against the pixels the model saw."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.charts.views import seen_resolution_figure, seen_resolution_table


def _counts():
    return pd.DataFrame({
        "model": ["m1", "m1", "m1", "m2"], "view_family": ["llava-1.5", "llava-1.5", "qwen2-vl", "gemini"],
        "size": [300, 900, 300, 300], "seen_pixels": [112896, 112896, 90552, 90000],
        "n": [10, 10, 10, 0], "correct": [5, 9, 10, 0],
    })


def test_table_has_wilson_bounds_and_drops_empty_cells():
    t = seen_resolution_table(_counts())
    assert len(t) == 3 and list(t["accuracy"]) == [0.5, 0.9, 1.0]
    assert t.loc[0, "ci_low"] == pytest.approx(0.2366, abs=1e-3) and t.loc[0, "ci_high"] == pytest.approx(0.7634,
                                                                                                          abs=1e-3)


def test_one_line_per_model_and_family_on_a_log_axis():
    fig = seen_resolution_figure(_counts())
    assert sorted(tr.name for tr in fig.data) == ["m1 · llava-1.5", "m1 · qwen2-vl"]
    assert fig.layout.xaxis.type == "log" and "sent 900 px" in fig.data[0].hovertext[1]


def test_no_view_rows_say_how_to_get_them():
    fig = seen_resolution_figure(_counts().iloc[:0])
    assert "--view FAMILY" in fig.to_json()
