"""plates.runs.builder: each row's request (few-shot examples of the same colour set, distractors from the
dataset's label space)."""

from __future__ import annotations

import re

import pytest

from plates.runs.builder import Builder, _examples
from plates.runs.plan import plan
from tests.support.cbe_runs import cbe_experiment


def test_few_shot_examples_come_from_the_same_colour_set(tmp_path, pool_items):
    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path, shots=[1, 2])
    builder = Builder(exp, pool_items)
    units = plan(exp, pool_items)
    assert units
    for unit in units:
        item = pool_items[unit.item]
        pool = builder.pool(unit.variant, item.colour_set)
        picks = _examples(exp, pool_items, pool, unit.item, unit.shots)
        assert picks == _examples(exp, pool_items, pool, unit.item, unit.shots)  # seeded
        assert len(picks) == unit.shots and unit.item not in picks
        for i in picks:  # same colour set and variant, never the question's own plate
            assert pool_items[i].colour_set == item.colour_set and pool_items[i].variant == unit.variant
            assert pool_items[i].spec != item.spec
    with pytest.raises(ValueError, match="shots=1 needs 1 other plates of colour set"):
        _examples(exp, pool_items, [0], 0, 1)


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
