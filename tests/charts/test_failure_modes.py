"""plates.charts.failure_modes: shares among wrong answers only, one condition at a time (HueManity App. E)."""

from __future__ import annotations

import pytest

from plates.charts.common import CONDITION
from plates.charts.failure_modes import failure_mode_figure, failure_mode_table
from tests.support.dashboard_rows import concat, rows
from tests.support.figures import by_name


def test_failure_mode_shares_are_counted_among_wrong_answers_only_per_condition():
    frame = concat(
        rows(
            8,
            model="a",
            correct=[True, True, False, False, False, False, None, False],
            failure_mode=[None, None, "hallucination", "hallucination", "evasion", None, None, "erratic"],
        ),
        rows(2, model="a", grayscale=True, correct=False, failure_mode="evasion"),
    )
    table = failure_mode_table(frame).set_index(CONDITION)
    assert table.loc["original @900px", "wrong"] == 5 and table.loc["gray @900px", "wrong"] == 2
    assert table.loc["original @900px", "hallucination"] == pytest.approx(2 / 5)
    assert table.loc["original @900px", "other"] == pytest.approx(1 / 5)
    fig = failure_mode_figure(frame)
    assert by_name(fig, "evasion").y[0] == pytest.approx(1 / 5) and fig.layout.meta["others"] == [
        "gray @900px"
    ]
