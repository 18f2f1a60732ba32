"""The scene spec (`plates.stimuli.scenes.spec.SceneSpec`): JSON round trip tagged with the family, and every bad
value refused naming the value and what is allowed."""

from __future__ import annotations

import json

import pytest

from plates.stimuli.base import FAMILY_KEY
from plates.stimuli.scenes import FAMILY, SceneSpec


def test_spec_json_round_trip_is_tagged_scene():
    spec = SceneSpec(seed=5, n_regions=7, n_colours=3, shapes=("star", "heart"), background="#102030",
                     palette=None, clutter=0.3)
    text = spec.to_json()
    assert json.loads(text)[FAMILY_KEY] == FAMILY == "scene"
    assert SceneSpec.from_json(text) == spec and SceneSpec.from_json(json.loads(text)) == spec
    assert spec.background == (16, 32, 48) and spec.replace(seed=6).seed == 6


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"size": 10}, "size=10"),
        ({"size": True}, "size=True"),
        ({"seed": -1}, "seed=-1"),
        ({"n_regions": 3, "n_colours": 4}, "allowed: 1 to 3"),
        ({"n_regions": 0, "n_colours": 2}, "allowed: 0"),
        ({"min_delta_e": 0.1}, "min_delta_e=0.1"),
        ({"n_regions": 20, "n_colours": 20, "min_delta_e": 40}, "allowed: min_delta_e <="),
        ({"palette": "xkcd-basic-11", "n_regions": 12, "n_colours": 12}, "allowed: n_colours <= 11"),
        ({"palette": "xkcd-basic-11", "n_regions": 12, "n_colours": 11, "background": None}, "n_colours <= 10"),
        ({"palette": "xkcd-basic-11", "n_regions": 10, "n_colours": 10}, "allowed: n_colours <="),
        ({"palette": "xkcd-basic-11", "n_colours": 4, "min_delta_e": 40}, "has no 4 colours"),
        ({"palette": "nope"}, "allowed: xkcd-basic-11"),
        ({"shapes": ("circle", "blob")}, "allowed: circle"),
        ({"shapes": ("circle", "circle")}, "each shape at most once"),
        ({"shapes": ()}, "one or more of"),
        ({"shading": "glossy"}, "allowed: flat, soft"),
        ({"spacing": "even"}, "allowed: spread, tight"),
        ({"background": "nope"}, "allowed:"),
        ({"clutter": 1.5}, "clutter=1.5"),
        ({"area_ratio": 0.5}, "area_ratio=0.5"),
        ({"fill": 0.9}, "fill=0.9"),
    ],
)
def test_bad_spec_raises_naming_value_and_allowed(changes, needle):
    with pytest.raises(ValueError, match="allowed|not valid") as err:
        SceneSpec(**changes)
    assert needle in str(err.value)


def test_from_json_refuses_other_family_and_unknown_keys():
    with pytest.raises(ValueError, match="allowed: 'scene'"):
        SceneSpec.from_json('{"family": "illusion", "seed": 1}')
    with pytest.raises(ValueError, match=r"SceneSpec: unknown key\(s\) .*; allowed: "):
        SceneSpec.from_json('{"family": "scene", "colour": 1}')
