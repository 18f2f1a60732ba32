"""plates.runs.plan: which rows a run asks (each plate once per variant)."""

from __future__ import annotations

from plates.runs.plan import plan
from tests.support.cbe_runs import cbe_experiment


def test_each_plate_is_asked_once_per_variant(tmp_path, pool_items):
    # ColorBlindnessEval stores each plate twice (standard and clear images): cbe-open asks the standard
    # items, cbe-open-clear the clear ones; a variant the dataset lacks is rendered once per plate.
    exp = cbe_experiment("http://127.0.0.1:9/v1", tmp_path, prompts=["cbe-open", "cbe-open-clear"],
                         conditions={"sizes": [64], "variants": ["standard", "clear", "mask"]})
    units = plan(exp, pool_items)
    for variant in ("standard", "clear", "mask"):
        asked = [pool_items[u.item] for u in units if u.variant == variant and u.prompt == "cbe-open"]
        assert len({item.spec for item in asked}) == len(asked) == len({item.spec for item in pool_items})
        if variant != "mask":
            assert {item.variant for item in asked} == {variant}
