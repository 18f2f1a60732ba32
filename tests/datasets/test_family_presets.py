"""The presets of the families other than plates (`plates.datasets.family_presets`): every preset makes items of
its family in a fixed order, sizes are checked never replaced, limits and shards, listings and the unknown-name
error."""

from __future__ import annotations

import itertools
from types import MappingProxyType

import pytest

from plates.datasets.family_presets import (
    FAMILY_PRESETS,
    FamilyPreset,
    presets_by_family,
    presets_listing,
    unknown_preset,
)
from plates.datasets.presets import PRESETS
from plates.datasets.write import Entry
from plates.stimuli.illusions import IllusionSpec
from plates.stimuli.scenes import SceneSpec
from plates.stimuli.scenes.recolour import RecolourSpec

#: a family -> the specs its items carry (robustness items recolour a scene: ColorBench §2.3)
SPEC_OF = {"illusion": (IllusionSpec,), "scene": (SceneSpec, RecolourSpec)}


@pytest.mark.parametrize("name", sorted(FAMILY_PRESETS))
def test_each_preset_makes_items_of_its_family_in_a_fixed_order(name):
    preset = FAMILY_PRESETS[name]
    size = max(preset.sizes[0], 96)
    first = list(itertools.islice(preset.entries(size=size, seed=3), 4))
    again = list(itertools.islice(preset.entries(size=size, seed=3), 4))
    assert first and all(isinstance(e, Entry) for e in first)
    assert [e.item_id for e in first] == [e.item_id for e in again]
    assert [e.spec for e in first] == [e.spec for e in again]
    assert all(isinstance(e.spec, SPEC_OF[preset.family]) and e.spec.size == size for e in first)
    assert len({e.item_id for e in first}) == len(first)


def test_a_size_is_checked_never_replaced():
    preset = FAMILY_PRESETS["illusions-classic"]
    assert preset.check_size(None) == preset.default_size and preset.check_size(120) == 120
    with pytest.raises(ValueError, match=r"illusions-classic.*default 512"):
        preset.check_size(70)
    with pytest.raises(ValueError, match="size"):
        next(preset.entries(size=10_000))


def test_a_limit_with_a_shard_is_refused_only_for_several_images_per_item():
    FAMILY_PRESETS["rcid-contrast"].check_limit_with_shard(5, object())
    FAMILY_PRESETS["colorbench-robustness"].check_limit_with_shard(None, object())
    FAMILY_PRESETS["colorbench-robustness"].check_limit_with_shard(5, None)
    with pytest.raises(ValueError, match="allowed: no limit with a shard"):
        FAMILY_PRESETS["colorbench-robustness"].check_limit_with_shard(5, object())


def test_the_registry_is_read_only_and_grouped_by_family():
    assert isinstance(FAMILY_PRESETS, MappingProxyType)
    with pytest.raises(TypeError):
        FAMILY_PRESETS["x"] = FAMILY_PRESETS["rcid-contrast"]  # type: ignore[index]
    groups = presets_by_family()
    assert groups["plate"] == tuple(PRESETS)
    assert set(groups) == {"plate", "illusion", "scene"}
    assert sorted(n for f in ("illusion", "scene") for n in groups[f]) == sorted(FAMILY_PRESETS)
    listing = presets_listing()
    assert all(f"{family}: " in listing for family in groups) and all(n in listing for n in FAMILY_PRESETS)


def test_an_unknown_name_lists_every_family_and_suggests_the_nearest():
    err = unknown_preset("rcid-contarst")
    assert isinstance(err, ValueError)
    assert "allowed: plate: " in str(err) and "did you mean 'rcid-contrast'?" in str(err)
    assert "did you mean" not in str(unknown_preset("zzzzzzzz"))


def test_a_preset_is_a_frozen_value():
    with pytest.raises(AttributeError):
        FAMILY_PRESETS["rcid-contrast"].default_size = 64  # type: ignore[misc]
    assert isinstance(FAMILY_PRESETS["rcid-contrast"], FamilyPreset)
