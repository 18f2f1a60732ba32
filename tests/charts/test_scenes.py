"""The scene family's tables and figures (`plates.charts.scenes`): recounted from the raw rows of the family
presets run through `plates run` (``frame`` and ``reference``: tests/charts/conftest.py), and on small hand-made
scene rows whose every number is known: which rows count, the overall micro-average, difficulty bins, the
paired grayscale and chain-of-thought effects, and bad parameters refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from plates.charts import scenes as sc
from tests.support.dashboard_rows import concat, outcomes


def _scene(model: str, task: str, k: int, n: int, params=None, recolour="seed", prompt=None, **columns):
    """``n`` scene rows of ``model`` on ``task``, the first ``k`` right; facts ``params`` and ``recolour``."""
    truth = json.dumps({"params": params or {}, "recolour": recolour})
    return outcomes(model, k, n, family="scene", task=task, prompt_name=prompt or f"colorbench-{task}",
                    truth_json=truth, **columns)


def test_scene_tables_recounted(frame, reference):
    raw = frame[frame["family"].isin(["scene", "scene-recolour"])]
    recolour = [json.loads(t).get("recolour") for t in raw["truth_json"]]
    colour = raw[~raw["grayscale"].astype(bool) & pd.Series([r in (None, "seed") for r in recolour], index=raw.index)]
    tasks = sc.task_long(frame, reference)
    for (model, task), part in colour.groupby(["model", "task"]):
        cell = tasks[(tasks["source"] == "ours") & (tasks["model"] == model) & (tasks["task"] == task)].iloc[0]
        assert cell["n"] == len(part) and cell["value"] == pytest.approx(part["correct"].astype(bool).mean())
    human = tasks[(tasks["source"] == "ColorBench Table 1") & (tasks["model"] == "Human")]
    assert dict(zip(human["task"], human["value"]))["colour-counting"] == pytest.approx(0.62)
    overall = sc.overall_long(frame, reference)
    pooled = colour[colour["task"] != "shape-counting"]
    for model, part in pooled.groupby("model"):
        cell = overall[(overall["source"] == "ours") & (overall["model"] == model)].iloc[0]
        assert cell["value"] == pytest.approx(part["correct"].astype(bool).mean())  # micro, not macro
    robust = sc.robustness_long(frame, reference)
    variants = raw.assign(recolour=recolour)
    variants = variants[variants["recolour"].notna() & ~variants["grayscale"].astype(bool)]
    for model, part in variants.groupby("model"):
        per_seed = part.groupby("group").agg(rows=("recolour", "nunique"), right=("correct", "sum"))
        judged = per_seed[per_seed["rows"] == 10]
        cell = robust[(robust["source"] == "ours") & (robust["model"] == model)].iloc[0]
        assert cell["n"] == len(judged) > 0 and cell["incomplete"] == len(per_seed) - len(judged)
        assert cell["value"] == pytest.approx((judged["right"] == 10).mean())
    assert (robust["source"] == "ColorBench Table 1").sum() >= 30


def test_grayscale_effect_and_difficulty(frame, reference):
    gray = sc.grayscale_long(sc.scene_effects(frame), reference)
    ours = gray[gray["source"] == "ours"]
    raw = frame[frame["task"] == "colour-recognition"]
    for model, part in raw.groupby("model"):
        c = part[~part["grayscale"].astype(bool)]["correct"].astype(bool).mean()
        g = part[part["grayscale"].astype(bool)]["correct"].astype(bool).mean()
        cell = ours[ours["model"] == model].iloc[0]
        assert cell["pairs"] == 8 and cell["effect"] == pytest.approx((c - g) / c)
    table9 = gray[gray["source"] == "ColorBench Table 9"]
    assert len(table9) == 5 * 11 and table9["effect"].notna().all()
    params = sc.difficulty_params(frame)
    assert "min_delta_e" in params
    curve = sc.difficulty_long(frame, "min_delta_e", bins=4)
    counting = frame[(frame["task"] == "colour-counting")]
    assert curve[curve["task"] == "colour-counting"]["n"].sum() == len(counting)
    assert curve.groupby(["model", "task"]).size().max() <= 4
    assert len(sc.difficulty_figure(curve, "min_delta_e").data) == curve.groupby(["model", "task"]).ngroups
    with pytest.raises(ValueError, match="allowed: .*min_delta_e"):
        sc.difficulty_long(frame, "no-such-parameter")
    assert sc.cot_long(sc.scene_effects(frame), reference)["source"].eq("ColorBench Table 4").all()


def test_only_standard_colour_seed_rows_count_for_accuracy():
    frame = concat(
        _scene("m", "colour-counting", 3, 4),
        _scene("m", "colour-counting", 0, 4, grayscale=True),
        _scene("m", "colour-counting", 0, 4, recolour="hue-90"),
        _scene("m", "colour-counting", 0, 4, prompt="colorbench-colour-counting-cot"),
        outcomes("m", 0, 4, task="colour-counting"),  # a plate row with a scene task name: not a scene row
    )
    rows = sc.scene_rows(frame)
    assert len(rows) == 16 and rows["grayscale"].sum() == 4 and rows["cot"].sum() == 4
    assert len(sc.colour_rows(rows)) == 4 and len(sc.colour_rows(rows, cot=True)) == 4
    cell = sc.task_long(frame).iloc[0]
    assert (cell["source"], cell["model"], cell["task"], cell["n"]) == ("ours", "m", "colour-counting", 4)
    assert cell["value"] == 0.75 and cell["low"] < 0.75 < cell["high"]


def test_overall_is_the_micro_average_without_shape_counting():
    frame = concat(
        _scene("m", "colour-counting", 1, 1),
        _scene("m", "colour-recognition", 0, 9),
        _scene("m", "shape-counting", 20, 20),
    )
    cell = sc.overall_long(frame).iloc[0]
    assert cell["task"] == "P & R Overall" and cell["n"] == 10
    assert cell["value"] == pytest.approx(0.1) and cell["macro"] == pytest.approx(0.5)  # micro 1/10, macro (1+0)/2


def test_paper_rows_sit_under_our_task_names():
    from plates.results.reference import load_reference

    table = sc.task_long(_scene("m", "colour-counting", 1, 2), load_reference("ColorBench"))
    paper = table[table["source"] == "ColorBench Table 1"]
    assert set(paper["task"]) <= set(sc.PAPER_TASKS) and "colour-counting" in set(paper["task"])
    assert paper["low"].isna().all() and paper["n"].isna().all()


def test_difficulty_params_are_the_numbers_and_labels_of_the_questions():
    frame = concat(_scene("m", "colour-counting", 1, 2, {"lead": 4.0, "criterion": "darker", "regions": ["a"]}),
                   _scene("m", "colour-comparison", 1, 2, {"count": 3}))
    assert sc.difficulty_params(frame) == ["count", "criterion", "lead"]  # the list-valued "regions" is not one
    assert sc.difficulty_params(outcomes("m", 1, 2)) == []


def test_difficulty_of_few_values_is_per_value_and_many_values_are_quantile_bins():
    levels = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    frame = concat(*(_scene("m", "colour-counting", int(v > 4), 1, {"lead": v, "criterion": "darker"})
                     for v in levels))
    per_value = sc.difficulty_long(frame, "lead", bins=8)
    assert per_value["value"].tolist() == levels and per_value["accuracy"].tolist() == [0] * 4 + [1] * 4
    binned = sc.difficulty_long(frame, "lead", bins=2)
    assert binned["n"].tolist() == [4, 4] and binned["accuracy"].tolist() == [0.0, 1.0]
    assert binned["value"].tolist() == pytest.approx([2.5, 6.5])  # each bin at its rows' mean
    labels = sc.difficulty_long(frame, "criterion")
    assert labels["value"].tolist() == ["darker"] and labels["n"].tolist() == [8]
    fig = sc.difficulty_figure(binned, "lead")
    assert [t.name for t in fig.data] == ["m · colour-counting"] and fig.layout.xaxis.title.text == "lead"
    with pytest.raises(ValueError, match="bins"):
        sc.difficulty_long(frame, "lead", bins=1)
    with pytest.raises(ValueError, match=r"allowed: criterion, lead"):
        sc.difficulty_long(frame, "regions")


def test_effects_pair_items_per_model_and_task():
    items = [f"i{i}" for i in range(4)]
    frame = concat(
        _scene("m", "colour-recognition", 4, 4, item_id=items),
        _scene("m", "colour-recognition", 1, 4, item_id=items, grayscale=True),
        _scene("m", "colour-counting", 1, 4, item_id=items),
        _scene("m", "colour-counting", 3, 4, item_id=items, prompt="colorbench-colour-counting-cot"),
    )
    effects = sc.scene_effects(frame)
    assert list(effects.columns) == sc.EFFECT_COLUMNS
    gray = sc.grayscale_long(effects)
    assert gray[["model", "task", "pairs", "acc_colour", "acc_gray"]].iloc[0].tolist() == [
        "m", "colour-recognition", 4, 1.0, 0.25]
    assert gray["effect"].iloc[0] == pytest.approx(0.75)
    cot = sc.cot_long(effects)
    assert cot[["task", "pairs"]].iloc[0].tolist() == ["colour-counting", 4]
    assert cot["delta"].iloc[0] == pytest.approx(0.5)
    assert sc.scene_effects(_scene("m", "colour-counting", 1, 2)).empty  # nothing asked both ways
    assert sc.grayscale_long(sc.scene_effects(outcomes("m", 1, 2))).empty


def test_task_figure_draws_ours_the_chosen_paper_models_and_chance_of_shown_tasks():
    long = pd.DataFrame({
        "source": ["ours", "ColorBench Table 1", "ColorBench Table 1"], "model": ["m", "Human", "Other"],
        "task": ["colour-counting"] * 3, "value": [0.5, 0.6, 0.7], "low": [0.3, np.nan, np.nan],
        "high": [0.7, np.nan, np.nan], "n": [10, np.nan, np.nan]})
    fig = sc.task_figure(long, chance={"colour-counting": 0.25, "shape-counting": 0.2})
    names = [t.name for t in fig.data]
    assert "m" in names and any("Human" in n for n in names) and not any("Other" in n for n in names)
    chance = [t for t in fig.data if t.type == "scatter"]
    assert len(chance) == 1 and list(chance[0].x) == ["colour-counting"] and list(chance[0].y) == [0.25]
