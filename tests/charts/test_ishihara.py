"""plates.charts.ishihara (colour sets, resolution) and every plate chart together (the paired, ΔE2000 and
comparison charts, overview, yes/no and failure modes have test files of their own): every figure's
numbers equal what plates.analysis.metrics computes, no chart pools conditions, runs or prompts, and the papers'
numbers appear at the same x as ours, labelled with their source."""

from __future__ import annotations

import numpy as np
import pytest

from plates.analysis import metrics
from plates.charts import ishihara as charts
from plates.charts.failure_modes import failure_mode_figure
from plates.charts.overview import overview_figure
from plates.charts.yes_no import yes_no_figure
from tests.support.dashboard_rows import concat, outcomes, rows
from tests.support.figures import by_name


# ------------------------------------------------------------------------------------------- conditions
def test_condition_labels_name_each_part_and_stay_short():
    assert charts.condition_label("standard", False, 0.0, "none", 0.0, 900) == "original @900px"
    assert charts.condition_label("clear", True, 0.0, "none", 0.0, 300) == "clear · gray @300px"
    assert (
        charts.condition_label("standard", False, -30.0, "deutan", 0.6, 900) == "hue -30° · deutan 0.6 @900px"
    )
    assert charts.condition_label("standard", False, 0.0, "protan", 1.0, None) == "protan"
    assert charts.condition_label(None, None, float("nan"), None, None, None) == "original"
    assert charts.condition_label("standard", True, 0.0, "none", 0.0, 512, True) == "text-only @512px"


def test_with_condition_labels_every_row_like_the_scalar_function_and_can_leave_a_column_out():
    frame = concat(
        rows(3),
        rows(2, grayscale=True, size=300),
        rows(2, cvd="tritan", cvd_severity=0.5),
        rows(1, variant="mask"),
        rows(1, text_only=True),
    )
    labelled = charts.with_condition(frame)
    expected = [
        charts.condition_label(**{c: r[c] for c in charts.CONDITION_COLUMNS})
        for r in frame.to_dict("records")
    ]
    assert list(labelled[charts.CONDITION]) == expected and charts.CONDITION not in frame.columns
    assert set(charts.with_condition(frame, without=("size",))[charts.CONDITION]) == {
        "original",
        "gray",
        "tritan 0.5",
        "mask",
        "text-only",
    }


def test_a_model_in_two_runs_is_two_series_and_one_run_keeps_the_plain_name():
    frame = concat(
        outcomes("a", 3, 4, run_id="r1"), outcomes("a", 1, 4, run_id="r2"), outcomes("b", 2, 2, run_id="r3")
    )
    assert set(charts.with_series(frame)[charts.SERIES]) == {"a · r1", "a · r2", "b"}


# ------------------------------------------------------------------------------ one condition at a time
def test_colour_sets_show_one_condition_and_name_the_others_instead_of_pooling_grayscale():
    frame = concat(
        outcomes("a", 10, 10, colour_set="colorblindnesseval-1"),
        outcomes("a", 1, 10, colour_set="colorblindnesseval-1", grayscale=True),
        outcomes("a", 8, 10, colour_set="colorblindnesseval-3"),
    )
    fig = charts.colour_set_figure(frame)
    assert fig.layout.meta["condition"] == "original @900px" and fig.layout.meta["others"] == ["gray @900px"]
    assert "gray @900px" in fig.layout.title.text
    bars = by_name(fig, "a")
    assert dict(zip(bars.x, bars.y)) == {"colorblindnesseval-1": 1.0, "colorblindnesseval-3": 0.8}  # not 0.55
    gray = by_name(charts.colour_set_figure(frame, condition="gray @900px"), "a")
    assert list(gray.y) == [pytest.approx(0.1)]
    expect = metrics.accuracy_table(frame[~frame["grayscale"]], ["colour_set"])
    np.testing.assert_allclose(bars.error_y.array, expect["ci_high"] - expect["accuracy"])
    with pytest.raises(ValueError, match="allowed: gray @900px, original @900px"):
        charts.colour_set_figure(frame, condition="protan")


def test_two_prompts_are_two_bars_not_one():
    frame = concat(outcomes("a", 4, 5), outcomes("a", 1, 5, prompt_name="cbe-yn-correct"))
    names = [t.name for t in charts.colour_set_figure(frame).data]
    assert names == ["a · cbe-open", "a · cbe-yn-correct"]


def test_resolution_lines_per_condition_without_size_and_huemanity_table5_drawn_with_its_wald_bars():
    from plates.results.reference import load_reference

    frame = concat(
        *(
            outcomes("gpt", k, 10, size=s, prompt_name="huemanity-numeric")
            for s, k in ((900, 3), (300, 5), (500, 2))
        ),
        outcomes("gpt", 0, 10, size=300, prompt_name="huemanity-numeric", grayscale=True),
    )
    fig = charts.resolution_figure(frame, load_reference("HueManity"))
    line = by_name(fig, "gpt")
    assert list(line.x) == [300, 500, 900] and list(line.y) == pytest.approx([0.5, 0.2, 0.3])
    assert fig.layout.meta["others"] == ["gray"]
    paper = by_name(fig, "GPT-4.1 — HueManity Table 5 (± as printed: Wald)")
    assert list(paper.x) == [300, 500, 700, 900, 1100, 1300]
    assert paper.y[0] == pytest.approx(0.49) and paper.error_y.array[0] == pytest.approx(
        0.098
    )  # "49.0 ± 9.8%"
    assert [t.name for t in charts.resolution_figure(frame).data] == ["gpt"]


def test_resolution_draws_many_people_as_one_median_line_in_an_interquartile_band_beside_each_model():
    """Past PEOPLE_SHOWN quiz participants, people are one orange line (the median of their accuracies per size)
    in a band from the 25th to the 75th percentile, never a line each; models keep a line each."""
    from plates.analysis.people import PEOPLE_SHOWN

    right = [(k % 10, 5 + k % 6) for k in range(PEOPLE_SHOWN + 1)]  # correct of 10 at 300 px, at 900 px
    people = {f"participant-{i:04d}": ks for i, ks in enumerate(right)}
    frame = concat(
        *(outcomes(m, k, 10, size=s, backend="human", prompt_name="huemanity-numeric")
          for m, ks in people.items() for s, k in zip((300, 900), ks)),
        *(outcomes("gpt", k, 10, size=s, prompt_name="huemanity-numeric") for s, k in ((300, 4), (900, 7))),
    )
    label = f"people ({PEOPLE_SHOWN + 1} participants): median, 25-75%"
    fig = charts.resolution_figure(frame)
    assert [t.name for t in fig.data if t.showlegend is not False] == ["gpt", label]
    assert not [t for t in fig.data if str(t.name).startswith("person: ")]
    accuracy = np.array(right, dtype=float).T / 10  # (sizes, people)
    median = by_name(fig, label)
    assert list(median.x) == [300, 900] and list(median.y) == pytest.approx(np.median(accuracy, axis=1))
    high, low = [t for t in fig.data if t.showlegend is False and t.legendgroup == median.legendgroup]
    assert list(high.y) == pytest.approx(np.quantile(accuracy, 0.75, axis=1))
    assert list(low.y) == pytest.approx(np.quantile(accuracy, 0.25, axis=1))
    assert low.fill == "tonexty"
    assert list(by_name(fig, "gpt").y) == pytest.approx([0.4, 0.7])
    few = charts.resolution_figure(frame[frame["model"].isin(["gpt", "participant-0000", "participant-0001"])])
    assert [t.name for t in few.data] == ["gpt", "person: participant-0000", "person: participant-0001"]


# ------------------------------------------------------------------------------------------ chance lines
def test_accuracy_bars_carry_the_prompts_chance_line_and_model_colours():
    from plates.charts.common import model_colour

    frame = concat(outcomes("model-a", 7, 10, colour_set="colorblindnesseval-1"),
                   outcomes("model-b", 5, 10, colour_set="colorblindnesseval-1"))
    fig = charts.colour_set_figure(frame)
    lines = [s for s in fig.layout.shapes if s.y0 == s.y1]
    assert [round(s.y0, 4) for s in lines] == [round(charts.chance_rate("cbe-open"), 4)]
    assert any("chance" in a.text for a in fig.layout.annotations)
    assert by_name(fig, "model-a").marker.color == model_colour("model-a")


def test_chance_lines_close_together_share_one_label_instead_of_printing_over_each_other():
    """Regression: cbe-open's 1/100 and huemanity-numeric's 1/90 both read "chance 1%" and their labels, a
    tenth of a point apart, printed over each other on the Resolution chart."""
    frame = concat(*(outcomes("gpt", 3, 10, size=s, prompt_name=p) for s in (300, 900)
                     for p in ("cbe-open", "huemanity-numeric", "cbe-yn-correct")))
    fig = charts.resolution_figure(frame)
    lines = sorted(round(s.y0, 4) for s in fig.layout.shapes if s.y0 == s.y1)
    assert lines == [0.01, 0.0111, 0.5]  # every chance line is still drawn
    labels = sorted((round(a.y, 4), a.text) for a in fig.layout.annotations if "chance" in a.text)
    assert labels == [(0.0111, "chance 1.0% (cbe-open) · 1.1% (huemanity-numeric)"),
                      (0.5, "chance 50% (cbe-yn-correct)")]


# ---------------------------------------------------------------------------------------------- all charts
ALL_CHARTS = [
    overview_figure,
    charts.colour_set_figure,
    charts.resolution_figure,
    charts.grayscale_figure,
    charts.cot_figure,
    yes_no_figure,
    charts.delta_e_figure,
    failure_mode_figure,
]


@pytest.mark.parametrize("chart", ALL_CHARTS)
def test_every_chart_says_what_it_needs_instead_of_failing_on_rows_it_cannot_use(chart):
    fig = chart(rows(2, correct=None, parse_status="error", error="timeout"))  # only failed requests
    assert fig.layout.meta["empty"] and fig.layout.annotations[0].text == fig.layout.meta["empty"]


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
    if categorical:
        frame = frame.astype(
            {c: "category" for c in frame.columns if frame[c].dtype in (object, "str", "string")}
        )
    ref = load_reference() if with_reference else None
    for chart in ALL_CHARTS:
        fig = chart(frame, ref)
        assert fig.data and not (fig.layout.meta or {}).get("empty"), (chart.__name__, fig.layout.meta)


def test_one_model_still_has_its_name_in_a_legend():
    frame = concat(
        outcomes("solo", 4, 5), outcomes("solo", 2, 5, grayscale=True), outcomes("solo", 3, 5, size=300)
    )
    for chart in (charts.colour_set_figure, charts.resolution_figure, charts.grayscale_figure):
        fig = chart(frame)
        assert fig.layout.showlegend is True and by_name(fig, "solo")


def test_the_empty_yes_no_and_cot_charts_say_what_to_run_and_why_the_baseline_cannot():
    only_open = outcomes("baseline-cnn", 4, 5)
    for chart, prompts in (
        (yes_no_figure, ("cbe-yn-correct", "cbe-yn-incorrect")),
        (charts.cot_figure, ("colorbench-mc", "colorbench-mc-cot")),
    ):
        message = chart(only_open).layout.meta["empty"]
        assert all(p in message for p in prompts) and "baseline reader declines" in message
