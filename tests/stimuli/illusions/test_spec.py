"""The illusion spec (`plates.stimuli.illusions.spec.IllusionSpec`): JSON round trip tagged with the family, and
every bad value refused naming what is allowed."""

from __future__ import annotations

import json
import warnings

import pytest

from plates.stimuli.base import FAMILY_KEY
from plates.stimuli.illusions import FAMILY, IllusionSpec, render

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*Matplotlib.*")


def test_json_round_trip_is_tagged_with_the_family():
    spec = IllusionSpec(
        "munker-white",
        size=300,
        seed=7,
        strength=0.4,
        delta_e=-2.5,
        target=(50, 30, 20),
        inducers=((30, 20, -50), (85, -5, 70)),
        layout="up-down",
        swap=True,
        direction="diagonal",
        count=30,
    )
    d = json.loads(spec.to_json())
    assert d[FAMILY_KEY] == FAMILY.name == "illusion" == IllusionSpec.FAMILY
    assert FAMILY.spec_type is IllusionSpec and FAMILY.render is render
    assert IllusionSpec.from_json(spec.to_json()) == spec
    assert IllusionSpec.from_json(d) == spec
    assert spec.replace(seed=8).seed == 8 and spec.replace(seed=8) != spec
    assert IllusionSpec("whites", strength=1).to_json() == IllusionSpec("whites", strength=1.0).to_json()
    with pytest.raises(ValueError, match="family"):
        IllusionSpec.from_json({**d, FAMILY_KEY: "ishihara"})
    with pytest.raises(ValueError, match="allowed: kind, size"):
        IllusionSpec.from_json({**d, "colour": 1})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "hermann-grid"}, "allowed: rcid-contrast, rcid-stripe"),
        ({"kind": "whites", "delta_e": 80.0}, "reachable maximum"),
        ({"kind": "neon-spreading", "delta_e": 30.0}, r"allowed: 0 or .* <= \|delta_e\| <="),
        ({"kind": "munker-white", "size": 64}, "stripe width of 0.80 px, under 1 px; allowed: count <= 32"),
        ({"kind": "whites", "count": 300}, "under 1 px"),
        ({"kind": "whites", "direction": "spiral"}, "allowed: horizontal, vertical, diagonal"),
        ({"kind": "cornsweet", "direction": "vertical"}, "direction applies to"),
        ({"kind": "cornsweet", "count": 4}, "count applies to"),
        ({"kind": "chevreul", "count": 6}, "odd number"),
        ({"kind": "checker-shadow", "count": 7}, "even number"),
        ({"kind": "whites", "edge_noise": 0.01}, "edge_noise applies to rcid-contrast, rcid-stripe"),
        ({"kind": "rcid-contrast", "edge_noise": 0.5}, r"\[0, 0.05\]"),
        ({"kind": "whites", "strength": 1.5}, r"strength=1.5 is not valid; allowed: a number in \[0, 1\]"),
        ({"kind": "whites", "size": 32}, r"\[64, 2048\]"),
        ({"kind": "whites", "layout": "diagonal"}, "allowed: left-right, up-down"),
        ({"kind": "whites", "target": (50, 0)}, "CIELAB triple"),
        ({"kind": "whites", "target": (50, 120, -120)}, "outside sRGB"),
        ({"kind": "whites", "inducers": ((10, 0, 0),)}, "2 CIELAB triple"),
        ({"kind": "whites", "swap": 1}, "True or False"),
        ({"kind": "rcid-filter", "target": (80, 0, 0)}, "allowed: strength <="),
    ],
)
def test_bad_specs_raise_naming_what_is_allowed(kwargs, match):
    with pytest.raises(ValueError, match=match):
        IllusionSpec(**kwargs)
