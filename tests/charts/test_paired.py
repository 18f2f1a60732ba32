"""The paired charts (`plates.charts.paired`): grayscale and chain-of-thought deltas per series and condition,
equal from result rows and from DuckDB's paired counts over real Parquet parts; the papers' points at the
prompt that asks their task; the delta axis; and what each needs when nothing pairs."""

from __future__ import annotations

import pandas as pd
import pytest

from plates.analysis import metrics
from plates.charts.common import CONDITION, SERIES
from plates.charts.paired import (
    cot_figure,
    cot_table,
    delta_range,
    grayscale_figure,
    grayscale_table,
    reference_grayscale,
)
from plates.dashboard import queries
from plates.results.query import open_results
from plates.results.reference import load_reference
from tests.support.dashboard_rows import concat, outcomes, write_part
from tests.support.figures import by_name


def test_grayscale_bars_are_metrics_grayscale_delta_per_series_and_condition():
    frame = concat(
        outcomes("a", 4, 5),
        outcomes("a", 2, 5, grayscale=True),
        outcomes("b", 2, 4),
        outcomes("b", 3, 4, grayscale=True),
        outcomes("a", 5, 5, size=300),
        outcomes("a", 0, 5, size=300, grayscale=True),
    )
    fig = grayscale_figure(frame)
    assert fig.layout.meta["condition"] == "original @900px" and fig.layout.meta["others"] == [
        "original @300px"
    ]
    expect = metrics.grayscale_delta(frame[frame["size"] == 900], ["model"]).set_index("model")
    assert by_name(fig, "a").y[0] == pytest.approx(expect.loc["a", "delta"]) == pytest.approx(0.5)
    assert by_name(fig, "b").y[0] == pytest.approx(-0.5)
    small = grayscale_figure(frame, condition="original @300px")
    assert by_name(small, "a").y[0] == pytest.approx(1.0)


def test_grayscale_and_cot_papers_sit_at_the_prompt_that_asks_their_colour_blindness_task():
    ref = load_reference("ColorBench")
    frame = concat(
        outcomes("a", 4, 5, prompt_name="colorbench-mc", task="colorbench-mc"),
        outcomes("a", 2, 5, grayscale=True, prompt_name="colorbench-mc", task="colorbench-mc"),
        outcomes("a", 5, 5, prompt_name="colorbench-mc-cot", task="colorbench-mc-cot"),
    )
    gray = grayscale_figure(frame, ref)
    table9 = [t for t in gray.data if t.name.endswith("ColorBench Table 9")]
    assert table9 and all(list(t.x) == ["colorbench-mc"] for t in table9)
    cot = cot_figure(frame, ref)
    assert by_name(cot, "a").y[0] == pytest.approx(1.0 - 0.8)
    paper = by_name(cot, "GPT-4o — ColorBench Table 4")
    assert list(paper.x) == ["colorbench-mc"] and paper.y[0] == pytest.approx(0.082)  # C'Blind +8.2 points


def test_chain_of_thought_deltas_carry_their_interval_and_ticks_follow_the_data():
    frame = concat(
        outcomes("m", 50, 100, prompt_name="colorbench-mc"),
        outcomes("m", 51, 100, prompt_name="colorbench-mc-cot"),
    )
    fig = cot_figure(frame)
    bar = by_name(fig, "m")
    assert bar.y[0] == pytest.approx(0.01)
    assert bar.error_y.array[0] > 0.05 and bar.error_y.arrayminus[0] > 0.05  # 100 pairs: about ±14 points
    assert fig.layout.yaxis.tickformat in ("+.0%", "+.1%")


def test_delta_bars_print_their_value_so_a_zero_delta_is_not_an_empty_chart():
    frame = concat(
        outcomes("a", 4, 5, prompt_name="colorbench-mc"),
        outcomes("a", 4, 5, grayscale=True, prompt_name="colorbench-mc"),
        outcomes("a", 4, 5, prompt_name="colorbench-mc-cot"),
    )
    gray = by_name(grayscale_figure(frame), "a")
    assert gray.y[0] == 0 and list(gray.text) == ["+0.0%"] and gray.textposition == "outside"
    assert list(by_name(cot_figure(frame), "a").text) == ["+0.0%"]
    never = concat(outcomes("b", 0, 5), outcomes("b", 2, 5, grayscale=True))
    assert list(by_name(grayscale_figure(never), "b").text) == ["n/a"]


def test_a_zero_delta_keeps_its_interval_inside_the_axis():
    """Chain of thought with Δ = 0 (the same 3 of 5 right with and without CoT): the axis holds the whole
    95% interval of the difference and 0, with a margin; before, the error bars ran off the axis."""
    frame = concat(
        outcomes("a", 3, 5, prompt_name="colorbench-mc", task="colorbench-mc"),
        outcomes("a", 3, 5, prompt_name="colorbench-mc-cot", task="colorbench-mc-cot"),
    )
    fig = cot_figure(frame)
    bar = by_name(fig, "a")
    assert bar.y[0] == pytest.approx(0.0)
    table = cot_table(frame)
    low, high = fig.layout.yaxis.range
    assert low < float(table["delta_low"].iloc[0]) < 0 < float(table["delta_high"].iloc[0]) < high
    gray = grayscale_figure(concat(outcomes("a", 3, 5), outcomes("a", 3, 5, grayscale=True)))
    g_low, g_high = gray.layout.yaxis.range
    assert g_low < 0 < g_high


def test_grayscale_and_cot_tables_from_duckdb_pairs_equal_those_from_the_rows(tmp_path):
    items = [f"i{i}" for i in range(6)]
    frame = concat(
        outcomes("a", 5, 6, item_id=items),
        outcomes("a", 2, 6, item_id=items, grayscale=True),
        outcomes("a", 3, 6, item_id=items, prompt_name="colorbench-mc", task="colorbench-mc"),
        outcomes("a", 6, 6, item_id=items, prompt_name="colorbench-mc-cot", task="colorbench-mc-cot"),
        outcomes("b", 1, 6, item_id=items, size=300),
        outcomes("b", 4, 6, item_id=items, size=300, grayscale=True),
    )
    write_part(tmp_path / "run" / "part-0.parquet", frame)
    results = open_results(tmp_path)
    by = ["model", *(c for c in queries.CONDITION_KEYS if c != "grayscale"), "task"]
    from_pairs = grayscale_table(pairs=queries.grayscale_pairs(results, queries.Where(), by))
    from_rows = grayscale_table(frame)
    key = [SERIES, "task", CONDITION]
    columns = ["pairs", "acc_ori", "acc_gray", "delta"]
    got = from_pairs[from_pairs["pairs"] > 0].set_index(key)[columns].sort_index()
    want = from_rows[from_rows["pairs"] > 0].set_index(key)[columns].sort_index()
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_index_type=False)
    assert got.loc[("a", "cbe-open", "original @900px"), "delta"] == pytest.approx((5 / 6 - 2 / 6) / (5 / 6))
    cot_by = ["model", *queries.CONDITION_KEYS]
    pairs = queries.cot_pairs(results, queries.Where(), cot_by, "colorbench-mc", "colorbench-mc-cot")
    cot = cot_table(pairs=[pairs.assign(prompt="colorbench-mc", cot_prompt="colorbench-mc-cot")])
    assert cot[["pairs", "acc_plain", "acc_cot", "delta"]].iloc[0].tolist() == pytest.approx([6, 0.5, 1.0, 0.5])
    pd.testing.assert_frame_equal(cot.reset_index(drop=True), cot_table(frame).reset_index(drop=True),
                                  check_dtype=False)


def test_tables_need_rows_or_pairs_and_empty_pairs_give_the_columns():
    with pytest.raises(ValueError, match=r"give the result rows \(frame\) or their paired counts \(pairs=\)"):
        grayscale_table()
    with pytest.raises(ValueError, match=r"give the result rows"):
        cot_table()
    empty = cot_table(pairs=[])
    assert empty.empty and list(empty.columns)[:4] == [SERIES, CONDITION, "prompt", "cot_prompt"]


def test_reference_grayscale_is_the_published_ratio_per_model_and_task():
    ref = load_reference("ColorBench")
    got = reference_grayscale(ref)
    assert list(got.columns) == ["source", "model", "task", "value"] and len(got)
    acc = ref[(ref["metric"] == "accuracy") & ref["condition"].isin(["standard", "grayscale"])]
    for row in got.sample(min(len(got), 5), random_state=0).to_dict("records"):
        cell = acc[(acc["source"] == row["source"]) & (acc["model"] == row["model"]) & (acc["task"] == row["task"])]
        ori = float(cell.loc[cell["condition"] == "standard", "value"].iloc[0])
        gray = float(cell.loc[cell["condition"] == "grayscale", "value"].iloc[0])
        assert row["value"] == pytest.approx((ori - gray) / ori)
    assert reference_grayscale(None).empty
    only_standard = ref[ref["condition"] != "grayscale"]
    assert reference_grayscale(only_standard).empty  # no grayscale column: nothing to pair


def test_delta_range_holds_zero_and_every_finite_value_with_a_margin():
    assert delta_range([0.0, -0.3, 0.3]) == pytest.approx([-0.375, 0.375])
    assert delta_range([]) == pytest.approx([-0.02, 0.02])  # 0 alone: the least margin
    low, high = delta_range([0.1, 0.5, float("nan"), None])
    assert low == pytest.approx(-0.0625) and high == pytest.approx(0.5625)  # NaN and None ignored, 0 held


def test_the_empty_charts_say_what_to_run():
    only_colour = outcomes("m", 3, 5)
    gray = grayscale_figure(only_colour).layout.meta["empty"]
    assert "colour and in grayscale" in gray and "--grayscale both" in gray
    cot = cot_figure(only_colour).layout.meta["empty"]
    assert "colorbench-mc-cot" in cot and "--prompt colorbench-mc" in cot
    with pytest.raises(ValueError, match="allowed"):
        grayscale_figure(concat(outcomes("a", 3, 5), outcomes("a", 1, 5, grayscale=True)), condition="nope")
