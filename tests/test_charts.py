"""plates.analysis.charts: every figure's trace data (x, y, error bars) equals what plates.analysis.metrics computes, and the
papers' numbers appear beside the runs in their own style, labelled with their source."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dashboard_rows import concat, outcomes, rows

from plates.analysis import charts, metrics


def by_name(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert found, f"no trace {name!r}; traces: {[t.name for t in fig.data]}"
    return found[0]


def reference(**columns) -> pd.DataFrame:
    """A small hand-made reference table (the plates.results.reference long format)."""
    n = max(len(v) if isinstance(v, list) else 1 for v in columns.values())
    base = dict(
        source="Paper Table 9",
        paper="Paper",
        table="Table 9",
        model="PaperModel",
        row_printed="PaperModel",
        task="t",
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


# ------------------------------------------------------------------------------------------- conditions
def test_condition_labels_name_each_part_and_stay_short():
    assert charts.condition_label("standard", False, 0.0, "none", 0.0, 900) == "original @900px"
    assert charts.condition_label("clear", True, 0.0, "none", 0.0, 300) == "clear · gray @300px"
    assert (
        charts.condition_label("standard", False, -30.0, "deutan", 0.6, 900) == "hue -30° · deutan 0.6 @900px"
    )
    assert charts.condition_label("standard", False, 0.0, "protan", 1.0, None) == "protan"
    assert charts.condition_label(None, None, float("nan"), None, None, None) == "original"


def test_with_condition_labels_every_row_like_the_scalar_function():
    frame = concat(
        rows(3),
        rows(2, grayscale=True, size=300),
        rows(2, cvd="tritan", cvd_severity=0.5),
        rows(1, variant="mask"),
    )
    labelled = charts.with_condition(frame)
    expected = [
        charts.condition_label(**{c: r[c] for c in charts.CONDITION_COLUMNS})
        for r in frame.to_dict("records")
    ]
    assert list(labelled[charts.CONDITION]) == expected
    assert charts.CONDITION not in frame.columns  # the input is left alone


# ------------------------------------------------------------------------------------------------- overview
def test_overview_cells_are_accuracy_table_with_n_and_wilson_interval():
    frame = concat(outcomes("a", 3, 4), outcomes("b", 1, 5), outcomes("a", 2, 2, grayscale=True))
    fig = charts.overview_figure(frame)
    heat = fig.data[0]
    table = metrics.accuracy_table(charts.with_condition(frame), ["model", "prompt_name", charts.CONDITION])
    for _, row in table.iterrows():
        i = list(heat.y).index(row["model"])
        j = list(heat.x).index(f"{row['prompt_name']} · {row[charts.CONDITION]}")
        assert heat.z[i][j] == pytest.approx(row["accuracy"])
        assert f"n={row['n']}" in heat.text[i][j]
        assert f"[{row['ci_low']:.0%}, {row['ci_high']:.0%}]" in heat.text[i][j]
    i, j = list(heat.y).index("b"), list(heat.x).index("cbe-open · gray @900px")
    assert np.isnan(heat.z[i][j])  # b never ran grayscale: an empty cell, not a zero
    assert len(fig.data) == 1  # no reference given: one heatmap


def test_overview_shows_only_the_reference_rows_for_prompts_the_user_ran():
    frame = outcomes("a", 1, 2)
    ref = reference(
        model=["GPT-4o", "GPT-4o"],
        prompt_name=["cbe-open", "huemanity-numeric"],
        value=[0.308, 0.4],
        task=["Open", "numeric"],
        source="ColorBlindnessEval Table 1",
    )
    fig = charts.overview_figure(frame, ref)
    published = by_name(fig, "published")
    assert list(published.y) == ["GPT-4o — ColorBlindnessEval Table 1"]
    assert list(published.x) == ["cbe-open · Open · standard"]
    assert published.z[0][0] == pytest.approx(0.308)
    assert len(charts.overview_figure(frame, ref.iloc[1:]).data) == 1  # no prompt in common: nothing shown


# ---------------------------------------------------------------------------------------------- colour sets
def test_colour_set_bars_have_accuracy_and_asymmetric_wilson_bars():
    frame = concat(
        outcomes("a", 4, 5, colour_set="colorblindnesseval-1"),
        outcomes("a", 1, 5, colour_set="colorblindnesseval-3"),
        outcomes("b", 0, 3, colour_set="colorblindnesseval-1"),
    )
    fig = charts.colour_set_figure(frame)
    table = metrics.accuracy_table(frame, ["model", "colour_set"])
    for model in ("a", "b"):
        bars, expect = by_name(fig, model), table[table["model"] == model].sort_values("colour_set")
        assert list(bars.x) == list(expect["colour_set"])
        np.testing.assert_allclose(bars.y, expect["accuracy"])
        np.testing.assert_allclose(bars.error_y.array, expect["ci_high"] - expect["accuracy"])
        np.testing.assert_allclose(bars.error_y.arrayminus, expect["accuracy"] - expect["ci_low"])


def test_colour_set_reference_is_drawn_as_grey_diamonds_labelled_with_source():
    frame = outcomes("a", 4, 5, colour_set="colorblindnesseval-1")
    ref = reference(colour_set="colorblindnesseval-1", value=0.7, source="ColorBlindnessEval Fig. 2")
    marker = by_name(charts.colour_set_figure(frame, ref), "PaperModel — ColorBlindnessEval Fig. 2")
    assert list(marker.y) == [0.7] and marker.marker.symbol == "diamond-open"


# ----------------------------------------------------------------------------------------------- resolution
def test_resolution_line_is_accuracy_by_size_with_wilson_bars_and_huemanity_table5_beside_it():
    from plates.results.reference import load_reference

    frame = concat(
        *(
            outcomes("gpt", k, 10, size=s, prompt_name="huemanity-numeric")
            for s, k in ((900, 3), (300, 5), (500, 2))
        )
    )
    fig = charts.resolution_figure(frame, load_reference("HueManity"))
    line = by_name(fig, "gpt")
    table = metrics.accuracy_table(frame, ["model", "size"]).sort_values("size")
    assert list(line.x) == [300, 500, 900]
    np.testing.assert_allclose(line.y, table["accuracy"])
    np.testing.assert_allclose(line.error_y.array, table["ci_high"] - table["accuracy"])
    assert [t.name for t in charts.resolution_figure(frame).data] == ["gpt"]  # without the papers' numbers
    assert not [t for t in fig.data if t.name.endswith("HueManity Table 2")]  # one size only: not a sweep
    paper = by_name(fig, "GPT-4.1 — HueManity Table 5")
    assert list(paper.x) == [300, 500, 700, 900, 1100, 1300]
    assert paper.y[0] == pytest.approx(0.49) and paper.error_y.array[0] == pytest.approx(
        0.098
    )  # "49.0 ± 9.8%"


# ------------------------------------------------------------------------------------------------ grayscale
def test_grayscale_bars_are_metrics_grayscale_delta_per_model_and_task():
    frame = concat(
        outcomes("a", 4, 5),
        outcomes("a", 2, 5, grayscale=True),
        outcomes("b", 2, 4),
        outcomes("b", 3, 4, grayscale=True),
    )
    fig = charts.grayscale_figure(frame)
    expect = metrics.grayscale_delta(frame, ["model", "task"]).set_index("model")
    assert (
        by_name(fig, "a").y[0] == pytest.approx(expect.loc["a", "delta"]) == pytest.approx((0.8 - 0.4) / 0.8)
    )
    assert by_name(fig, "b").y[0] == pytest.approx(expect.loc["b", "delta"]) == pytest.approx(-0.5)


def test_grayscale_reference_ratio_comes_from_colorbench_table9_accuracies():
    from plates.results.reference import load_reference

    table9 = load_reference("ColorBench", "Table 9")
    ratios = charts.reference_grayscale(table9)
    acc = table9.set_index(["model", "task", "condition"])["value"]
    model, task = ratios.iloc[0][["model", "task"]]
    expect = (acc[(model, task, "standard")] - acc[(model, task, "grayscale")]) / acc[
        (model, task, "standard")
    ]
    assert ratios.iloc[0]["value"] == pytest.approx(expect)
    frame = concat(
        outcomes("a", 4, 5, prompt_name="colorbench-mc"),
        outcomes("a", 2, 5, grayscale=True, prompt_name="colorbench-mc"),
    )
    names = [t.name for t in charts.grayscale_figure(frame, table9).data]
    assert any(n.endswith("ColorBench Table 9") for n in names)


# ------------------------------------------------------------------------------------------ chain of thought
def test_cot_bars_are_metrics_cot_delta_and_colorbench_table4_is_beside_them():
    from plates.results.reference import load_reference

    frame = concat(
        outcomes("a", 2, 5, prompt_name="colorbench-mc"), outcomes("a", 4, 5, prompt_name="colorbench-mc-cot")
    )
    fig = charts.cot_figure(frame, load_reference("ColorBench", "Table 4"))
    expect = metrics.cot_delta(frame, ["model"])
    bars = by_name(fig, "a")
    assert list(bars.x) == ["colorbench-mc"]
    assert bars.y[0] == pytest.approx(expect["delta"].iloc[0]) == pytest.approx(0.4)
    paper = by_name(fig, "GPT-4o — ColorBench Table 4")
    assert dict(zip(paper.x, paper.y))["Perception: Color Extraction"] == pytest.approx(0.146)


# ---------------------------------------------------------------------------------------------------- yes/no
def test_yes_no_point_is_metrics_yes_no_balance_with_wilson_bars_on_both_axes():
    from plates.results.reference import load_reference

    frame = concat(
        outcomes("a", 9, 10, prompt_name="cbe-yn-correct"),
        outcomes("a", 3, 10, prompt_name="cbe-yn-incorrect"),
    )
    fig = charts.yes_no_figure(frame, load_reference("ColorBlindnessEval", "Table 1"))
    balance = metrics.yes_no_balance(frame, "model").iloc[0]
    point = by_name(fig, "a")
    assert point.x[0] == pytest.approx(balance["y_star_n"]) == pytest.approx(0.9)
    assert point.y[0] == pytest.approx(balance["y_n_star"]) == pytest.approx(0.3)
    low, high = metrics.wilson_interval(9, 10)
    assert point.error_x.array[0] == pytest.approx(high - 0.9) and point.error_x.arrayminus[
        0
    ] == pytest.approx(0.9 - low)
    low, high = metrics.wilson_interval(3, 10)
    assert point.error_y.array[0] == pytest.approx(high - 0.3)
    paper = by_name(fig, "published (ColorBlindnessEval)")
    assert (0.936, 0.554) in {(round(x, 3), round(y, 3)) for x, y in zip(paper.x, paper.y)}  # GPT-4o, Table 1


# ----------------------------------------------------------------------------------------------------- ΔE
def test_delta_e_points_are_binned_accuracy_and_the_curve_is_the_fitted_logistic():
    de = [2.0] * 10 + [5.0] * 10 + [10.0] * 10 + [20.0] * 10
    correct = (
        [i < 1 for i in range(10)]
        + [i < 4 for i in range(10)]
        + [i < 7 for i in range(10)]
        + [True] * 9
        + [False]
    )
    frame = rows(40, model="a", delta_e=de, correct=correct, item_id=[f"i{i}" for i in range(40)])
    fig = charts.delta_e_figure(frame)
    points = by_name(fig, "a")
    np.testing.assert_allclose(points.x, [2, 5, 10, 20])
    np.testing.assert_allclose(points.y, [0.1, 0.4, 0.7, 0.9])
    expect = metrics.accuracy_table(frame.assign(bin=frame["delta_e"]), ["bin"])
    np.testing.assert_allclose(points.error_y.array, expect["ci_high"] - expect["accuracy"])
    fit = metrics.fit_psychometric(np.array(de), np.array(correct))
    curve = by_name(fig, "a fit")
    np.testing.assert_allclose(curve.y, fit.predict(curve.x))
    threshold = [t for t in fig.data if t.name and t.name.startswith("a 50% at ΔE")][0]
    assert threshold.x[0] == pytest.approx(fit.threshold) and 2 < fit.threshold < 10


# -------------------------------------------------------------------------------------------- failure modes
def test_failure_mode_shares_are_counted_among_wrong_answers_only():
    frame = rows(
        8,
        model="a",
        correct=[True, True, False, False, False, False, None, False],
        failure_mode=[None, None, "hallucination", "hallucination", "evasion", None, None, "erratic"],
    )
    table = charts.failure_mode_table(frame).set_index("model")
    assert table.loc["a", "wrong"] == 5  # the failed request (correct null) is not a wrong answer
    assert table.loc["a", "hallucination"] == pytest.approx(2 / 5)
    assert table.loc["a", "other"] == pytest.approx(1 / 5)
    fig = charts.failure_mode_figure(frame)
    assert by_name(fig, "evasion").y[0] == pytest.approx(1 / 5)


ALL_CHARTS = [
    charts.overview_figure,
    charts.colour_set_figure,
    charts.resolution_figure,
    charts.grayscale_figure,
    charts.cot_figure,
    charts.yes_no_figure,
    charts.delta_e_figure,
    charts.failure_mode_figure,
]


# ---------------------------------------------------------------------------------------------- empty input
@pytest.mark.parametrize("chart", ALL_CHARTS)
def test_every_chart_says_what_it_needs_instead_of_failing_on_rows_it_cannot_use(chart):
    fig = chart(rows(2, correct=None, parse_status="error", error="timeout"))  # only failed requests
    assert fig.layout.meta["empty"] and fig.layout.annotations[0].text == fig.layout.meta["empty"]


def test_the_charts_tables_are_the_metrics_tables():
    frame = concat(
        outcomes("a", 3, 5),
        outcomes("b", 0, 2, colour_set=None),
        rows(3, model="a", correct=None, error="timeout"),
        rows(2, model="c", correct=None),
    )
    expect = metrics.accuracy_table(charts.with_condition(frame), ["model", "prompt_name", charts.CONDITION])
    pd.testing.assert_frame_equal(charts.overview_table(frame), expect)
    assert not hasattr(charts, "_accuracy")  # one implementation: plates.analysis.metrics


def _plain(table: pd.DataFrame) -> pd.DataFrame:
    """String-like columns as Python objects, nulls as None: plain and categorical runs compare equal."""
    table = table.reset_index(drop=True)
    for c in table.columns:
        if table[c].dtype.kind in "OUS" or str(table[c].dtype) in ("category", "str", "string"):
            table[c] = [None if pd.isna(v) else v for v in table[c].astype(object)]
    return table


def test_chart_tables_on_categorical_strings_equal_plain_strings_and_show_only_observed_values():
    items = [f"i{i}" for i in range(4)]
    frame = concat(
        outcomes("a", 3, 4, item_id=items, delta_e=[3.0, 6, 9, 12]),
        outcomes("a", 1, 4, grayscale=True, item_id=items),
        outcomes("b", 2, 4, item_id=items, colour_set="colorblindnesseval-2", delta_e=[3.0, 6, 9, 12]),
        outcomes("b", 2, 4, item_id=items, prompt_name="colorbench-mc"),
        outcomes("b", 4, 4, item_id=items, prompt_name="colorbench-mc-cot"),
        outcomes("a", 3, 4, prompt_name="cbe-yn-correct"),
        outcomes("a", 1, 4, prompt_name="cbe-yn-incorrect", failure_mode="evasion"),
        rows(2, model="b", correct=None, error="timeout"),
    )
    strings = [c for c in frame.columns if frame[c].dtype in (object, "str", "string")]
    categorical = frame.astype({c: "category" for c in strings})
    categorical["model"] = categorical["model"].cat.add_categories(["ghost"])  # a value no row has
    tables = {
        "overview": charts.overview_table,
        "failure modes": charts.failure_mode_table,
        "grayscale": charts.grayscale_table,
        "cot": charts.cot_table,
        "yes/no": charts.yes_no_table,
        "delta e": charts.delta_e_table,
    }
    for name, table in tables.items():
        plain, cat = table(frame), table(categorical)
        pd.testing.assert_frame_equal(_plain(cat), _plain(plain), check_dtype=False, obj=name)
        assert "ghost" not in set(cat["model"]), name
    fits = charts.psychometric_fits(categorical)
    assert set(fits) == {"a", "b"}



@pytest.mark.parametrize("categorical", [False, True], ids=["strings", "categoricals"])
@pytest.mark.parametrize("with_reference", [False, True], ids=["runs-only", "with-papers"])
def test_every_chart_draws_a_run_of_every_kind_with_or_without_the_papers(categorical, with_reference):
    from plates.results.reference import load_reference

    items = [f"i{i}" for i in range(6)]
    frame = concat(
        outcomes("a", 4, 6, item_id=items, delta_e=[3.0, 6, 9, 12, 15, 18]),
        outcomes("a", 2, 6, grayscale=True, item_id=items),
        outcomes("a", 3, 6, size=300, item_id=items, prompt_name="huemanity-numeric"),
        outcomes("a", 5, 6, item_id=items, prompt_name="cbe-yn-correct"),
        outcomes("a", 1, 6, prompt_name="cbe-yn-incorrect"),
        outcomes("a", 2, 6, item_id=items, prompt_name="colorbench-mc"),
        outcomes("a", 4, 6, item_id=items, prompt_name="colorbench-mc-cot"),
        rows(2, model="a", correct=None, error="timeout"),
    )
    if categorical:  # if load_results ever returns dictionary-encoded strings
        frame = frame.astype(
            {c: "category" for c in frame.columns if frame[c].dtype in (object, "str", "string")}
        )
    reference = load_reference() if with_reference else None
    for chart in ALL_CHARTS:
        fig = chart(frame, reference)
        assert fig.data and not (fig.layout.meta or {}).get("empty"), (chart.__name__, fig.layout.meta)


def test_delta_e_figure_needs_only_model_delta_e_and_correct():
    """The explorer's ΔE sweep (plates.ui.explorer_models.sweep_figure) calls it on just these columns."""
    frame = pd.DataFrame(
        {"model": ["m"] * 4, "delta_e": [2.0, 4.0, 8.0, 16.0], "correct": [False, True, False, True]}
    )
    fig = charts.delta_e_figure(frame, bins=4)
    np.testing.assert_allclose(by_name(fig, "m").y, [0, 1, 0, 1])


# ----------------------------------------------------------------------------------- readable on first start
def test_one_model_still_has_its_name_in_a_legend():
    """plotly hides the legend of a one-trace figure: a run of one model would not say which model it is."""
    frame = concat(
        outcomes("solo", 4, 5), outcomes("solo", 2, 5, grayscale=True), outcomes("solo", 3, 5, size=300)
    )
    for chart in (charts.colour_set_figure, charts.resolution_figure, charts.grayscale_figure):
        fig = chart(frame)
        assert fig.layout.showlegend is True and by_name(fig, "solo")


def test_delta_bars_print_their_value_so_a_zero_delta_is_not_an_empty_chart():
    frame = concat(
        outcomes("a", 4, 5, prompt_name="colorbench-mc"),
        outcomes("a", 4, 5, grayscale=True, prompt_name="colorbench-mc"),
        outcomes("a", 4, 5, prompt_name="colorbench-mc-cot"),
    )
    gray = by_name(charts.grayscale_figure(frame), "a")
    assert gray.y[0] == 0 and list(gray.text) == ["+0.0%"] and gray.textposition == "outside"
    cot = by_name(charts.cot_figure(frame), "a")
    assert cot.y[0] == 0 and list(cot.text) == ["+0.0%"]
    never = concat(outcomes("b", 0, 5), outcomes("b", 2, 5, grayscale=True))  # Acc_ori 0: ratio undefined
    assert list(by_name(charts.grayscale_figure(never), "b").text) == ["n/a"]


def test_a_threshold_outside_the_tested_delta_e_says_it_is_extrapolated():
    de = [30.0] * 10 + [40.0] * 10
    correct = [i < 9 for i in range(10)] + [i < 7 for i in range(10)]  # falls slowly: 50% far beyond 40
    frame = rows(20, model="a", delta_e=de, correct=correct, item_id=[f"i{i}" for i in range(20)])
    fit = metrics.fit_psychometric(np.array(de), np.array(correct))
    assert fit.threshold is not None and fit.threshold > 40
    names = [t.name for t in charts.delta_e_figure(frame).data if t.name and "50% at" in t.name]
    assert names == [f"a 50% at ΔE {fit.threshold:.1f} (extrapolated)"]


def test_overview_cell_text_shrinks_as_columns_narrow_so_intervals_do_not_overlap():
    few = charts.overview_figure(outcomes("a", 3, 4))
    many = charts.overview_figure(concat(*(outcomes("a", 3, 4, size=s) for s in range(100, 900, 100))))
    assert len(many.data[0].x) == 8
    assert few.data[0].textfont.size == 12 and many.data[0].textfont.size <= 10


def test_the_empty_yes_no_and_cot_charts_say_what_to_run_and_why_the_baseline_cannot():
    only_open = outcomes("baseline-cnn", 4, 5)  # the first-start run: open prompts only
    for chart, prompts in ((charts.yes_no_figure, ("cbe-yn-correct", "cbe-yn-incorrect")),
                           (charts.cot_figure, ("colorbench-mc", "colorbench-mc-cot"))):
        message = chart(only_open).layout.meta["empty"]
        assert all(p in message for p in prompts) and "baseline reader declines" in message
