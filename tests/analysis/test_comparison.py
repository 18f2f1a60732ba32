"""Our cells beside the papers' (`plates.analysis.comparison`): model names matched across spellings, the
paper's condition of ours, and a cell paired only with a run of the paper's own set and size, what is left out named."""

from __future__ import annotations

import pandas as pd

from plates.analysis.comparison import compare, model_key, paper_condition
from plates.charts.overview import overview_table
from tests.support.dashboard_rows import outcomes


# --------------------------------------------------------------------------------------- papers vs ours
def test_model_names_match_across_spellings():
    assert model_key("gpt-4.1-2025-04-14") == model_key("GPT-4.1") != model_key("GPT-4.1 mini")
    assert model_key("Qwen/Qwen2-VL-7B-Instruct") == model_key("Qwen2-VL-Instruct-7B")
    assert model_key("claude-3-5-sonnet-20241022") == model_key("Claude3.5-Sonnet")
    assert model_key("llava:13b") == model_key("LLaVA-v1.6-13B") != model_key("llava:7b")
    assert paper_condition("gray @900px", "colorbench-mc") == "grayscale"
    assert paper_condition("original @900px", "colorbench-mc-cot") == "cot"
    assert paper_condition("hue +90° @900px", "cbe-open") is None


def test_a_cell_with_fewer_items_than_the_paper_is_never_paired_and_is_named():
    """One explorer answer is not ColorBlindnessEval's 500-plate measurement: it is left out, and said so."""
    from plates.results.reference import load_reference

    table = compare(overview_table(outcomes("gpt-4o", 1, 1)), load_reference())
    assert table[table["prompt_name"] == "cbe-open"].empty
    left = table.attrs["left_out"]
    assert any("gpt-4o · cbe-open" in line and "1 answered item(s), fewer than the 500 of ColorBlindnessEval "
               "Table 1" in line for line in left), left
    kept = compare(overview_table(outcomes("gpt-4o", 160, 500)), load_reference())
    assert (kept["prompt_name"] == "cbe-open").any() and not kept.attrs["left_out"]


def test_the_comparison_pairs_a_papers_cell_only_with_a_run_of_its_set_and_says_what_it_left_out():
    """A one-answer explorer run (custom colour, dataset "explorer") or a run on our dense variant is not
    ColorBlindnessEval's set: no pairing, and a note names the cell, its set and the paper's."""
    from plates.results.reference import load_reference

    ref = load_reference()
    ours = compare(overview_table(outcomes("gpt-4o", 160, 500)), ref)
    assert len(ours) and set(ours["source"]) == {"ColorBlindnessEval Table 1"}
    for dataset in ("explorer", "colorblindnesseval-dense"):
        cells = overview_table(outcomes("gpt-4o", 160, 500, dataset=dataset))
        assert list(cells["datasets"]) == [(dataset,)]
        table = compare(cells, ref)
        assert table.empty
        assert any(f"asked on {dataset}, not ColorBlindnessEval's set (colorblindnesseval); not paired" in line
                   for line in table.attrs["left_out"]), table.attrs["left_out"]
    # a cell asked on two sets, one of them not the paper's, is not the paper's measurement either
    mixed = compare(overview_table(pd.concat([outcomes("gpt-4o", 160, 500),
                                              outcomes("gpt-4o", 1, 1, dataset="explorer")])), ref)
    assert mixed.empty and any("asked on colorblindnesseval, explorer" in line for line in mixed.attrs["left_out"])
