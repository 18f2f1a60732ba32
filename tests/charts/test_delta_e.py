"""The ΔE2000 chart (`plates.charts.delta_e`, drawn through `plates.charts.ishihara`): one psychometric fit per model,
prompt, condition and colour set, never pooled; its points and thresholds equal a direct fit; chance rates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from plates.analysis.psychometric_fits import fit_psychometric
from plates.charts import delta_e as delta_e_chart
from plates.charts import ishihara as charts
from plates.charts.delta_e import chance_rate
from tests.support.dashboard_rows import concat, rows
from tests.support.figures import by_name


# ------------------------------------------------------------------------------------------------- ΔE2000
def _psychometric(model, threshold, *, grayscale=False, colour_set="colorblindnesseval-1", prompt="cbe-open"):
    levels = np.repeat([2.0, 4.0, 8.0, 16.0, 32.0], 8)
    correct = [bool(i % 8 < (8 if de > threshold else 1)) for i, de in enumerate(levels)]
    return rows(
        len(levels),
        model=model,
        delta_e=list(levels),
        correct=correct,
        grayscale=grayscale,
        colour_set=colour_set,
        prompt_name=prompt,
        item_id=[f"{model}{colour_set}{i}" for i in range(len(levels))],
    )


def test_one_fit_per_model_prompt_condition_and_colour_set_through_the_one_function(monkeypatch):
    frame = concat(
        _psychometric("a", 5),
        _psychometric("a", 20, grayscale=True),
        _psychometric("a", 10, colour_set="colorblindnesseval-3"),
        _psychometric("b", 3),
        _psychometric("a", 3, prompt="cbe-yn-correct"),
    )
    calls = []
    real = delta_e_chart.fit_psychometric_counts

    def spy(groups):
        calls.extend((tuple(levels), int(np.sum(n)), guess) for levels, n, _, guess in groups)
        return real(groups)

    monkeypatch.setattr(delta_e_chart, "fit_psychometric_counts", spy)
    fits = charts.psychometric_fits(frame)
    assert len(calls) == len(fits) == 5  # a x {cs1, cs3} x original, a x gray, b, a x yes/no: never pooled
    assert sorted(fits["guess"]) == pytest.approx(sorted([0.01] * 4 + [0.5]))  # open 1/100, yes/no 1/2
    assert all(n == 40 for _, n, _ in calls)
    fig = charts.delta_e_figure(frame)  # original @900px, cbe-open: a x 2 colour sets, b
    assert fig.layout.meta["fits"] == 3 and fig.layout.meta["others"] == ["gray @900px"]
    assert fig.layout.meta["prompt"] == "cbe-open" and fig.layout.meta["other_prompts"] == ["cbe-yn-correct"]
    fit = fits[
        (fits["series"] == "a")
        & (fits["condition"] == "original @900px")
        & (fits["colour_set"] == "colorblindnesseval-1")
        & (fits["prompt_name"] == "cbe-open")
    ]["fit"].iloc[0]
    curve = by_name(fig, "a · colorblindnesseval-1 fit")
    np.testing.assert_allclose(curve.y, fit.predict(curve.x))
    gray = charts.delta_e_figure(frame, condition="gray @900px")
    assert [t.name for t in gray.data if "threshold" in t.name][0].startswith("a threshold at ΔE")


def test_counts_fit_equals_the_fit_of_the_answers():
    de = [2.0] * 10 + [5.0] * 10 + [10.0] * 10 + [20.0] * 10
    correct = (
        [i < 1 for i in range(10)]
        + [i < 4 for i in range(10)]
        + [i < 7 for i in range(10)]
        + [True] * 9
        + [False]
    )
    frame = rows(40, model="a", delta_e=de, correct=correct, item_id=[f"i{i}" for i in range(40)])
    guess = chance_rate(frame["prompt_name"].iloc[0])  # the chance-aware fit, the prompt's guess rate
    direct = fit_psychometric(np.array(de), np.array(correct), guess=guess, interval=False)
    fig = charts.delta_e_figure(frame)
    points = by_name(fig, "a")
    np.testing.assert_allclose(points.x, [2, 5, 10, 20])
    np.testing.assert_allclose(points.y, [0.1, 0.4, 0.7, 0.9])
    threshold = [t for t in fig.data if t.name.startswith("a threshold at ΔE")][0]
    assert threshold.x[0] == pytest.approx(direct.threshold, rel=1e-6)


def test_a_threshold_outside_the_tested_delta_e_says_it_is_extrapolated():
    de = [30.0] * 10 + [40.0] * 10
    correct = [i < 9 for i in range(10)] + [i < 7 for i in range(10)]  # falls slowly: far beyond 40
    frame = rows(20, model="a", delta_e=de, correct=correct, item_id=[f"i{i}" for i in range(20)])
    guess = chance_rate(frame["prompt_name"].iloc[0])
    fit = fit_psychometric(np.array(de), np.array(correct), guess=guess, interval=False)
    names = [t.name for t in charts.delta_e_figure(frame).data if "threshold" in t.name]
    assert names == [f"a threshold at ΔE {fit.threshold:.1f} (extrapolated)"]


def test_delta_e_figure_needs_only_model_delta_e_and_correct():
    """The explorer's ΔE sweep (plates.explorer.compare.sweep_figure) calls it on just these columns."""
    frame = pd.DataFrame(
        {"model": ["m"] * 4, "delta_e": [2.0, 4.0, 8.0, 16.0], "correct": [False, True, False, True]}
    )
    np.testing.assert_allclose(by_name(charts.delta_e_figure(frame, bins=4), "m").y, [0, 1, 0, 1])


def test_chance_rates_follow_the_prompt():
    assert charts.chance_rate("cbe-yn-correct") == 0.5
    assert charts.chance_rate("colorbench-mc") == 0.25
    assert charts.chance_rate("huemanity-numeric") == pytest.approx(1 / 90)
    assert charts.chance_rate("plain-open") == 0.0 and charts.chance_rate("nope") == 0.0
