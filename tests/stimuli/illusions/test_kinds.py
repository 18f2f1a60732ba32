"""The illusion kinds' table (`plates.stimuli.illusions.kinds`): every kind's fields are consistent with each
other and with the spec that draws it, the registry is read-only, and the derived lists say what the kinds say."""

from __future__ import annotations

import string
from types import MappingProxyType

import pytest

from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.illusions.kinds import (
    DIRECTIONS,
    HUMAN_KEYS,
    ILLUSION_TYPES,
    KINDS,
    STRIPE_KINDS,
    UNVALIDATED_KINDS,
    UNVALIDATED_NOTE,
)


def _is_lab(c) -> bool:
    return len(c) == 3 and 0.0 <= c[0] <= 100.0 and all(-128.0 <= v <= 127.0 for v in c[1:])


@pytest.mark.parametrize("kind", KINDS)
def test_each_kinds_fields_agree_with_each_other(kind):
    t = ILLUSION_TYPES[kind]
    assert t.name == kind and all(s.strip() for s in (t.description, t.source, t.prediction, t.strength))
    assert _is_lab(t.default_target) and all(_is_lab(c) for c in t.default_inducers)
    assert len(t.inducers) == len(t.default_inducers) >= 1
    fields = {f for _, f, _, _ in string.Formatter().parse(t.regions) if f}
    assert fields <= {"first", "second"} and "{first}" in t.regions and "{second}" in t.regions
    assert (t.count is None) == (t.default_count is None) == (t.count_range is None)
    if t.count_range is not None:
        lo, hi = t.count_range
        assert lo <= t.default_count <= hi
    assert t.default_direction is None or t.default_direction in DIRECTIONS
    assert t.edge_noise is None or 0.0 <= t.edge_noise < 0.5
    assert t.human_key in HUMAN_KEYS


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_builds_a_valid_spec_with_its_defaults(kind):
    spec = IllusionSpec(kind)
    assert spec.kind == kind
    assert IllusionSpec.from_json(spec.to_json()) == spec


def test_the_registry_is_read_only_and_the_lists_derive_from_it():
    assert isinstance(ILLUSION_TYPES, MappingProxyType) and KINDS == tuple(ILLUSION_TYPES)
    with pytest.raises(TypeError):
        ILLUSION_TYPES["new"] = ILLUSION_TYPES[KINDS[0]]  # type: ignore[index]
    assert len(set(KINDS)) == len(KINDS) >= 10
    assert set(STRIPE_KINDS) == {k for k, t in ILLUSION_TYPES.items() if t.default_direction is not None}
    assert set(UNVALIDATED_KINDS) == {k for k, t in ILLUSION_TYPES.items() if t.human_key == "unvalidated"}
    assert all(k in UNVALIDATED_NOTE for k in UNVALIDATED_KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_a_count_is_taken_inside_the_kinds_range_only(kind):
    t = ILLUSION_TYPES[kind]
    if t.count_range is None:
        with pytest.raises(ValueError, match="allowed: None"):
            IllusionSpec(kind, count=5)
        return
    lo, hi = t.count_range
    IllusionSpec(kind, count=lo, size=2048)
    IllusionSpec(kind, count=hi, size=2048)
    with pytest.raises(ValueError, match=str(hi)):
        IllusionSpec(kind, count=hi + 1, size=2048)
