"""The papers-vs-ours charts (`plates.charts.comparison`): the paper's cell beside ours with the difference and
its interval, and the papers' other models drawn as context, never as a match."""

from __future__ import annotations

import pytest

from plates.analysis.comparison import compare
from plates.charts.comparison import comparison_figure
from plates.charts.overview import overview_table
from tests.support.dashboard_rows import concat, outcomes
from tests.support.figures import by_name


def test_the_comparison_puts_the_papers_cell_beside_ours_with_difference_and_interval():
    from plates.results.reference import load_reference

    ref = load_reference()
    frame = concat(
        outcomes("gpt-4o", 160, 500),
        outcomes("gpt-4.1-2025-04-14", 49, 100, size=300, prompt_name="huemanity-numeric", dataset="huemanity"),
        outcomes("gpt-4o", 40, 50, hue_shift=90.0),
    )
    table = compare(overview_table(frame), ref)
    cbe = table[table["prompt_name"] == "cbe-open"].iloc[0]
    assert cbe["source"] == "ColorBlindnessEval Table 1" and cbe["paper_value"] == pytest.approx(0.308)
    assert cbe["difference"] == pytest.approx(0.32 - 0.308) and cbe["inside"]
    hue = table[table["condition"].str.startswith("hue")]
    assert hue.empty  # no paper published a hue-shifted cell
    hm = table[table["prompt_name"] == "huemanity-numeric"]
    assert list(hm["source"]) == ["HueManity Table 5"] and hm["paper_value"].iloc[0] == pytest.approx(0.49)
    fig = comparison_figure(table)
    assert list(by_name(fig, "paper").x) == list(table["paper_value"]) and fig.layout.meta["matches"] == len(
        table
    )
    outside = compare(overview_table(outcomes("gpt-4o", 450, 500)), ref).iloc[0]
    assert not outside["inside"] and outside["difference"] == pytest.approx(0.9 - 0.308)


def test_without_a_same_model_match_the_papers_models_are_context_never_a_match():
    from plates.analysis.comparison import context
    from plates.charts.comparison import context_figure
    from plates.results.reference import load_reference

    cells = overview_table(outcomes("baseline-cnn", 95, 100))
    reference = load_reference("ColorBlindnessEval", "Table 1")
    assert compare(cells, reference).empty  # no paper ran the bundled reader
    near = context(cells, reference)
    assert len(near) >= 5 and "GPT-4o" in set(near["paper_model"])
    fig = context_figure(near)
    assert "OTHER models" in fig.layout.title.text and "not a replication" in fig.layout.title.text
    assert [t.name for t in fig.data].count("baseline-cnn") == 1
