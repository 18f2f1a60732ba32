"""The papers' tables as charts (`plates.charts.published`), on the shipped reference Parquet files: table and
task order, the series and row names, the bars' values and ± as printed, and bad choices refused (``reference``: tests/charts/conftest.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.charts.published import published_figure, published_table, sources, tasks
from plates.results.reference import TABLES


def test_sources_follow_the_tables_order_once_each(reference):
    got = sources(reference)
    assert got == [t for t in (info.source for info in TABLES.values()) if t in got]
    assert len(got) == len(set(got)) == reference["source"].nunique()
    assert sources(reference.iloc[::-1]) == list(dict.fromkeys(reference.iloc[::-1]["source"]))  # as loaded


def test_tasks_are_a_tables_columns_in_printed_order_and_unknown_tables_are_refused(reference):
    assert tasks(reference, "RCID Table 1") == ["Contrast Illusion", "Filter Illusion", "Stripe Illusion"]
    with pytest.raises(ValueError, match=r"'RCID Table 9' is not known; allowed: .*RCID Table 1"):
        tasks(reference, "RCID Table 9")


def test_unknown_tasks_are_refused_naming_the_tables_tasks(reference):
    with pytest.raises(ValueError, match=r"'Open' are not in ColorBlindnessEval Table 2; allowed: Open-C, Open"):
        published_table(reference, "ColorBlindnessEval Table 2", ("Open",))


def test_chosen_tasks_keep_only_their_cells_and_series_name_what_varies(reference):
    source = "HueManity Table 2"
    whole = published_table(reference, source)
    one = published_table(reference, source, ("numeric",))
    assert set(one["task"]) == {"numeric"} and len(one) == (whole["task"] == "numeric").sum()
    for row in whole.to_dict("records"):
        assert row["series"].split(" · ")[0] == row["task"]
        for column in ("condition", "colour_set", "font", "size", "shots", "metric"):
            varies = whole[column].astype(str).nunique() > 1
            if varies and pd.notna(row[column]):
                suffix = " px" if column == "size" else ""
                assert f"{row[column]}{suffix}" in row["series"].split(" · ")[1:]
    one_metric = published_table(reference, "ColorBlindnessEval Table 1")
    assert not one_metric["series"].str.contains("accuracy").any()  # a column that never varies is left out
    assert published_table(reference, "RCID Table 1")["series"].str.contains("rate").all()  # two metrics vary


def test_a_printed_row_shared_by_several_models_names_its_model(reference):
    table = published_table(reference, "ColorBench Table 9")
    shared = table.groupby("row_printed")["model"].nunique()
    assert (shared > 1).all()
    for row in table.to_dict("records"):
        if shared[row["row_printed"]] > 1:
            assert row["row"] == f"{row['model']} · {row['row_printed']}"
    single = published_table(reference, "HueManity Table 3")  # one model per printed row: the row as printed
    assert single["row"].tolist() == single["row_printed"].astype(str).tolist()


def test_figure_bars_are_the_printed_values_in_percent_with_the_printed_interval(reference):
    source = "HueManity Table 3"
    table = published_table(reference, source)
    fig = published_figure(reference, source)
    rows = list(dict.fromkeys(table["row"]))
    assert fig.layout.meta == {"source": source, "series": table["series"].nunique(), "rows": len(rows)}
    assert "not measured here" in fig.layout.title.text and list(fig.layout.xaxis.range) == [0, 100]
    for trace in fig.data:
        part = table[table["series"] == trace.name].set_index("row").reindex(rows)
        assert list(trace.y) == rows
        assert list(trace.x) == pytest.approx(list(100 * part["value"].astype(float)))
        assert trace.error_x.visible and list(trace.error_x.array) == pytest.approx(
            list(100 * part["ci_half_width"].astype(float).fillna(0.0)))
        assert list(trace.customdata) == list(part["printed"].fillna(""))


def test_tables_without_a_printed_interval_draw_none(reference):
    fig = published_figure(reference, "ColorBlindnessEval Table 3")
    assert fig.data and not any(trace.error_x.visible for trace in fig.data)


def test_delta_tables_get_signed_percentage_points_without_the_0_100_range(reference):
    fig = published_figure(reference, "ColorBench Table 4")
    assert fig.layout.xaxis.title.text.startswith("Δ percentage points") and fig.layout.xaxis.range is None
    values = [v for trace in fig.data for v in trace.x if v == v]
    assert min(values) < 0  # deltas drawn signed, as printed
    accuracy = published_figure(reference, "ColorBench Table 1", ("Perception: Color Recognition",))
    assert accuracy.layout.xaxis.title.text == "% (as printed)" and accuracy.layout.xaxis.ticksuffix == "%"
