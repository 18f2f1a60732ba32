"""plates.charts.yes_no: the Y*/N vs Y/N* point with Wilson bars on both axes, the table by hand, and the
paper's labelled points when none of ours answered both prompts (ColorBlindnessEval Table 1)."""

from __future__ import annotations

import pytest

from plates.analysis import metrics
from plates.charts.yes_no import yes_no_figure, yes_no_table
from tests.support.dashboard_rows import concat, outcomes, rows
from tests.support.figures import by_name


def test_yes_no_point_is_the_yes_no_balance_with_wilson_bars_on_both_axes():
    from plates.results.reference import load_reference

    frame = concat(
        outcomes("a", 9, 10, prompt_name="cbe-yn-correct"),
        outcomes("a", 3, 10, prompt_name="cbe-yn-incorrect"),
    )
    fig = yes_no_figure(frame, load_reference("ColorBlindnessEval", "Table 1"))
    point = by_name(fig, "a")
    assert point.x[0] == pytest.approx(0.9)  # Y*/N: 9 of 10
    low, high = metrics.wilson_interval(3, 10)
    assert point.y[0] == pytest.approx(0.3) and point.error_y.array[0] == pytest.approx(high - 0.3)
    paper = by_name(fig, "published (ColorBlindnessEval Table 1)")
    assert (0.936, 0.554) in {(round(x, 3), round(y, 3)) for x, y in zip(paper.x, paper.y)}
    labels = "<br>".join(paper.text)  # every published point names its model (close points share a label)
    assert "GPT-4o" in labels and "Claude3-Haiku" in labels and "Qwen2-VL-Instruct-72B" in labels


def test_yes_no_without_our_rows_draws_the_papers_labelled_points_and_says_what_to_run():
    from plates.results.reference import load_reference

    fig = yes_no_figure(outcomes("a", 9, 10), load_reference("ColorBlindnessEval", "Table 1"))
    assert not fig.layout.meta.get("empty") and fig.layout.meta["ours"] == 0
    paper = by_name(fig, "published (ColorBlindnessEval Table 1)")
    assert len(paper.x) == 9 and "GPT-4o-mini" in "<br>".join(paper.text)  # zero-shot Table 1 only
    assert "cbe-yn-incorrect" in fig.layout.meta["hint"]


def test_yes_no_table_by_hand():
    frame = concat(
        outcomes("a", 9, 10, prompt_name="cbe-yn-correct"),
        outcomes("a", 3, 10, prompt_name="cbe-yn-incorrect"),
        rows(2, model="a", correct=None, prompt_name="cbe-yn-correct"),
    )
    got = yes_no_table(frame).iloc[0]
    # Y*/N 9 of 10, Y/N* 3 of 10 (the two failed requests are errors, not wrong answers); Fisher's exact test
    # on [[9, 1], [3, 7]]: two-sided p = 0.0198 < 0.05, so the model leans "yes".
    assert (got["n_y_star"], got["y_star_n"], got["n_n_star"], got["y_n_star"], got["errors"]) == (
        10, pytest.approx(0.9), 10, pytest.approx(0.3), 2)
    assert got["yes_bias"] == pytest.approx(0.6) and got["balanced_accuracy"] == pytest.approx(0.6)
    assert got["bias_p"] == pytest.approx(0.0198, abs=1e-4) and got["lean"] == "yes"
