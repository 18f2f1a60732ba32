"""plates.runs.builder: each row's request (few-shot examples of the same colour set, distractors from the
dataset's label space)."""

from __future__ import annotations

import re

import pytest

from plates.runs.builder import Builder, few_shot_examples
from plates.runs.plan import plan
from tests.support.cbe_runs import cbe_experiment


def test_few_shot_examples_come_from_the_same_colour_set(tmp_path, pool_items):
    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path, shots=[1, 2])
    builder = Builder(exp, pool_items)
    units = plan(exp, pool_items)
    assert units
    for unit in units:
        item = pool_items[unit.item]
        pool = builder.pool(unit.variant, item.group)
        picks = few_shot_examples(exp, pool_items, pool, unit.item, unit.shots)
        assert picks == few_shot_examples(exp, pool_items, pool, unit.item, unit.shots)  # seeded
        assert len(picks) == unit.shots and unit.item not in picks
        for i in picks:  # same colour set and variant, never the question's own plate
            assert pool_items[i].group == item.group and pool_items[i].variant == unit.variant
            assert pool_items[i].spec != item.spec
    with pytest.raises(ValueError, match="shots=1 needs 1 other items of group"):
        few_shot_examples(exp, pool_items, [0], 0, 1)


def test_distractors_come_from_the_datasets_label_space(tmp_path):
    # HueManity §4 numbers are "10".."99": colorbench-mc options and cbe-yn-incorrect candidates for those
    # plates must never be "0".."9" (the prompt templates' own space is ColorBlindnessEval's "0".."99").
    from itertools import islice

    from PIL import Image

    from plates.datasets import preset_items
    from plates.stimuli.ishihara.labels import HUEMANITY_NUMERIC

    items = list(islice(preset_items("huemanity-numeric", size=64), 0, 25 * 90, 25))  # each label, one pair
    assert {item.label for item in items} == set(HUEMANITY_NUMERIC)
    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path, dataset="huemanity-numeric",
                         prompts=["colorbench-mc", "cbe-yn-incorrect"], shots=[0, 1])
    builder = Builder(exp, items)
    builder.images.get = lambda *args, **kw: Image.new("RGB", (64, 64))  # the prompts are under test, not the plates
    seen = set()
    for unit in plan(exp, items):
        query, asked = builder.build(unit, exp.models[0])
        assert asked.question.label_space == query.label_space == "huemanity-numeric"
        if unit.prompt == "colorbench-mc":
            seen |= set(asked.question.options.values())
        else:
            seen.add(re.search(r"image is (\d+)\?", asked.question.text).group(1))
        texts = [t.text for t in query.turns if t.role == "user"]
        assert len(texts) == unit.shots + 1
    assert seen and seen <= set(HUEMANITY_NUMERIC), sorted(seen - set(HUEMANITY_NUMERIC))


def _view_run(tmp_path, view, size=96):
    from plates.datasets import generate, load_dataset
    from plates.results import load_results
    from plates.runs.experiment import quick_experiment
    from plates.runs.runner import run_experiment

    if not (tmp_path / "data").exists():
        generate("huemanity-numeric", tmp_path / "data", limit=2, size=size, workers=1, progress=False)
    exp = quick_experiment(dataset=str(tmp_path / "data"), prompt="huemanity-numeric", backend="baseline",
                           model="baseline-cnn", out=str(tmp_path / f"out-{view}"), view=view)
    run_experiment(exp, progress=False, items=load_dataset(tmp_path / "data"))
    return exp, load_results(tmp_path / f"out-{view}").frame


def test_rows_record_the_named_view(tmp_path):
    from plates.datasets import load_dataset
    from plates.models.views.measure import measure_view, plate_regions
    from plates.stimuli import render

    exp, rows = _view_run(tmp_path, "llava-1.5")
    assert len(rows) == 2 and set(rows["view_family"]) == {"llava-1.5"}
    assert set(rows["view_seen_width"]) == {336} and set(rows["view_tiles"]) == {1}
    assert set(rows["view_cropped_fraction"]) == {0.0} and not rows["view_figure_cut"].any()
    items = {i.item_id: i for i in load_dataset(tmp_path / "data")}
    for _, row in rows.iterrows():  # the same measurement as measuring the plate's image directly
        item = items[row["item_id"]]
        plate = render(item.spec)
        direct = measure_view(plate.image, "llava-1.5", plate_regions(plate), seed=item.spec.seed)
        assert row["view_delta_e_median"] == pytest.approx(direct["view_delta_e_median"])
        assert row["view_delta_e_p05"] == pytest.approx(direct["view_delta_e_p05"])
        assert 0 < row["view_delta_e_median"] <= row["delta_e_drawn_p95"] + 1e-9


def test_without_a_view_rows_carry_none_and_the_run_id_is_unchanged(tmp_path):
    from plates.runs.experiment import quick_experiment

    exp, rows = _view_run(tmp_path, None)
    assert rows["view_family"].isna().all() and rows["view_delta_e_median"].isna().all()
    again = quick_experiment(dataset=str(tmp_path / "data"), prompt="huemanity-numeric", backend="baseline",
                             model="baseline-cnn", out=str(tmp_path / "x"))
    assert "view" not in again.identity()["models"][0] and again.run_id == exp.run_id
    viewed = quick_experiment(dataset=str(tmp_path / "data"), prompt="huemanity-numeric", backend="baseline",
                              model="baseline-cnn", out=str(tmp_path / "x"), view="gemma-3")
    assert viewed.run_id != exp.run_id


def test_an_unknown_view_is_refused_with_the_known_ones(tmp_path):
    from plates.runs.experiment import quick_experiment

    with pytest.raises(ValueError, match=r"models\[0\]\.view 'llava-2' is not known; allowed: .*qwen2-vl"):
        quick_experiment(dataset="huemanity-numeric", prompt="huemanity-numeric", backend="baseline",
                         model="baseline-cnn", out=str(tmp_path), view="llava-2")


def test_a_local_model_records_its_own_familys_view(tmp_path):
    from PIL import Image

    from plates.datasets import load_dataset
    from plates.runs.experiment import ModelSpec

    exp, _ = _view_run(tmp_path, None)
    items = load_dataset(tmp_path / "data")
    builder = Builder(exp, items)
    unit = plan(exp, items)[0]
    image = Image.new("RGB", (96, 96), (200, 10, 10))
    cols = builder.view(unit, ModelSpec("hf", "Qwen/Qwen2-VL-7B-Instruct"), image)
    assert cols["view_family"] == "qwen2-vl" and (cols["view_seen_width"], cols["view_seen_height"]) == (84, 84)
    assert builder.view(unit, ModelSpec("hf", "some-lab/unknown-vlm"), image) == {}
    assert builder.view(unit, ModelSpec("hf", "some-lab/unknown-vlm", view="gemini"), image)["view_tiles"] == 1
