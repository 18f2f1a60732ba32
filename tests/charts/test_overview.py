"""plates.charts.overview: each cell is the counts' accuracy with its n and Wilson interval, runs are never
merged, and the papers' value sits in the cell it matches and nowhere else."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis import metrics
from plates.charts.common import CONDITION, SERIES, with_condition
from plates.charts.overview import overview_figure, overview_table
from tests.support.dashboard_rows import concat, outcomes


def reference(**columns) -> pd.DataFrame:
    """A small hand-made reference table (the plates.results.reference long format)."""
    n = max(len(v) if isinstance(v, list) else 1 for v in columns.values())
    base = dict(
        source="Paper Table 9",
        paper="Paper",
        table="Table 9",
        model="PaperModel",
        row_printed="PaperModel",
        task="Open",
        condition="standard",
        colour_set=None,
        font=None,
        size=None,
        shots=0,
        metric="accuracy",
        value=0.5,
        printed="0.5",
        ci_half_width=None,
        n=None,
        prompt_name="cbe-open",
        note=None,
    )
    base.update(columns)
    return pd.DataFrame({k: v if isinstance(v, list) else [v] * n for k, v in base.items()})


def test_overview_cells_are_counts_with_n_and_wilson_interval_per_series_prompt_and_condition():
    frame = concat(outcomes("a", 3, 4), outcomes("b", 1, 5), outcomes("a", 2, 2, grayscale=True))
    fig = overview_figure(frame)
    heat = fig.data[0]
    table = metrics.accuracy_table(with_condition(frame), ["model", "prompt_name", CONDITION])
    for _, row in table.iterrows():
        i, j = (
            list(heat.y).index(row["model"]),
            list(heat.x).index(f"{row['prompt_name']} · {row[CONDITION]}"),
        )
        assert heat.z[i][j] == pytest.approx(row["accuracy"])
        assert (
            f"n={row['n']}" in heat.text[i][j]
            and f"[{row['ci_low']:.0%}, {row['ci_high']:.0%}]" in heat.text[i][j]
        )
    i, j = list(heat.y).index("b"), list(heat.x).index("cbe-open · gray @900px")
    assert np.isnan(heat.z[i][j])  # b never ran grayscale: an empty cell, not a zero


def test_two_runs_of_one_model_over_the_same_items_are_two_rows_never_n_doubled():
    items = [f"i{i}" for i in range(10)]
    frame = concat(
        outcomes("m", 7, 10, run_id="tour-1", item_id=items),
        outcomes("m", 9, 10, run_id="tour-2", item_id=items),
    )
    table = overview_table(frame)
    assert sorted(table[SERIES]) == ["m · tour-1", "m · tour-2"] and set(table["n"]) == {10}
    assert dict(zip(table[SERIES], table["accuracy"])) == {"m · tour-1": 0.7, "m · tour-2": 0.9}


def test_the_papers_value_is_printed_in_the_cell_it_matches_and_nowhere_else():
    frame = concat(
        outcomes("gpt-4o-2024-08-06", 1, 2),
        outcomes("gpt-4o-2024-08-06", 1, 2, grayscale=True),
        outcomes("other", 1, 2),
    )
    ref = reference(
        model=["GPT-4o", "GPT-4o"],
        prompt_name=["cbe-open", "huemanity-numeric"],
        value=[0.308, 0.4],
        task=["Open", "numeric"],
        source="ColorBlindnessEval Table 1",
        paper="ColorBlindnessEval",
    )
    heat = overview_figure(frame, ref).data[0]
    cells = {(y, x): heat.text[i][j] for i, y in enumerate(heat.y) for j, x in enumerate(heat.x)}
    assert "paper 31% (Table 1)" in cells[("gpt-4o-2024-08-06", "cbe-open · original @900px")]
    assert (
        "paper" not in cells[("gpt-4o-2024-08-06", "cbe-open · gray @900px")]
    )  # no published grayscale cell
    assert "paper" not in cells[("other", "cbe-open · original @900px")]


def test_overview_cell_text_stays_legible_as_columns_narrow_printing_less_with_the_rest_on_hover():
    few = overview_figure(outcomes("a", 3, 4))
    many = overview_figure(concat(*(outcomes("a", 3, 4, size=s) for s in range(100, 900, 100))))
    assert len(many.data[0].x) == 8 and few.data[0].textfont.size == 12 and many.data[0].textfont.size >= 11
    assert "[" in few.data[0].text[0][0]  # few columns: the interval printed in the cell
    cell, whole = many.data[0].text[0][0], many.data[0].customdata[0][0]
    assert cell == "75%<br>n=4" and "[" in whole and whole.startswith(cell)  # the interval on hover
