"""Recoloured scenes (`plates.stimuli.scenes.recolour`): ColorBench's nine robustness variants (ColorBench §2.3,
App. C), checked on the pixels."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from plates.colour import srgb255_to_lab
from plates.conditions import hue_shift
from plates.stimuli.base import FAMILY_KEY, Stimulus
from plates.stimuli.scenes import SceneSpec, render
from plates.stimuli.scenes.recolour import (
    VARIANTS,
    RecolourSpec,
    largest_other,
    recolour,
    render_variant,
    variant_specs,
)
from tests.support.scene_pixels import png_digest as _digest
from tests.support.scene_pixels import unique_colours as _unique

CHROMA = SceneSpec(seed=3, n_regions=8, n_colours=5, palette="xkcd-basic-11", min_delta_e=15,
                   shapes=("heart", "house", "arrow", "cross"))


def _chromatic_region(stim: Stimulus) -> str:
    for reg in stim.truth["regions"]:
        lab = srgb255_to_lab(reg["colour"])
        if np.hypot(lab[1], lab[2]) > 30 and reg["share"] > 0:
            return reg["region"]
    raise AssertionError("no chromatic region")


def test_nine_variants_in_colorbench_order():
    assert VARIANTS == ("image-90", "image-180", "image-270", "target-90", "target-180", "target-270",
                        "largest-90", "largest-180", "largest-270")
    stim = render(CHROMA)
    target = (_chromatic_region(stim),)
    specs = variant_specs(stim, target)
    assert tuple(s.name for s in specs) == VARIANTS
    sizes = {r: m.sum() for r, m in stim.masks.items() if r != "background" and r not in target}
    assert specs[-1].regions == (max(sizes, key=sizes.get),)


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_target_hue_rotation_changes_exactly_one_segment(degrees):
    stim = render(CHROMA)
    region = _chromatic_region(stim)
    var = recolour(stim, (region,), degrees)
    changed = np.any(var.pixels != stim.pixels, axis=-1)
    assert np.array_equal(changed, stim.masks[region])  # every pixel of the segment, nothing else
    expected = np.asarray(hue_shift(stim.image, degrees))  # the HSV rotation ColorBench applies
    assert np.array_equal(var.pixels[changed], expected[changed])
    reg = var.truth["regions"][int(region.split("-")[1])]
    assert np.all(var.pixels[stim.masks[region]] == reg["colour"])
    assert len(_unique(var.pixels)[0]) == var.truth["distinct_colours"]


def test_entire_image_variant_is_the_plain_hue_shift_and_cielab_is_offered():
    stim = render(CHROMA)
    for space in ("hsv", "cielab"):
        var = recolour(stim, None, 180, space)
        assert np.array_equal(var.pixels, np.asarray(hue_shift(stim.image, 180, space)))
        assert var.truth["recolour"]["space"] == space


def test_soft_shaded_variant_rotates_masked_pixels_only():
    stim = render(CHROMA.replace(shading="soft"))
    region = _chromatic_region(stim)
    var = recolour(stim, (region,), 90)
    m = stim.masks[region]
    assert np.array_equal(var.pixels[~m], stim.pixels[~m])
    assert np.array_equal(var.pixels[m], np.asarray(hue_shift(stim.image, 90))[m])


def test_grey_region_rotation_is_reported_negligible():
    stim = render(CHROMA)
    greys = [r["region"] for r in stim.truth["regions"] if r["name"] in ("grey", "black")]
    var = recolour(stim, (greys[0],), 90)
    assert var.truth["recolour"]["max_change_delta_e"] < 3.5
    chroma = recolour(stim, (_chromatic_region(stim),), 90)
    assert chroma.truth["recolour"]["min_change_delta_e"] > 20


def test_recolour_spec_round_trip_regenerates_the_variant():
    stim = render(CHROMA)
    spec = variant_specs(stim, (_chromatic_region(stim),))[4]
    again = RecolourSpec.from_json(spec.to_json())
    assert again == spec and json.loads(spec.to_json())[FAMILY_KEY] == "scene-recolour"
    assert _digest(render_variant(again)) == _digest(render_variant(spec, stim))


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"strategy": "half", "degrees": 90, "regions": ("region-0",)}, "allowed: image, target, largest"),
        ({"strategy": "target", "degrees": 0, "regions": ("region-0",)}, "degrees=0"),
        ({"strategy": "target", "degrees": 90, "regions": ("region-99",)}, "region-99"),
        ({"strategy": "image", "degrees": 90, "regions": ("region-0",)}, "no regions for 'image'"),
        ({"strategy": "target", "degrees": 90, "regions": ("region-0",), "space": "hsl"}, "allowed: hsv, cielab"),
    ],
)
def test_bad_recolour_spec_raises(kwargs, needle):
    with pytest.raises(ValueError) as err:
        RecolourSpec(CHROMA, **kwargs)
    assert needle in str(err.value)


def test_largest_other_needs_another_region():
    stim = render(SceneSpec(seed=1, n_regions=1, n_colours=1))
    with pytest.raises(ValueError, match="largest segment"):
        largest_other(stim, ("region-0",))
    assert largest_other(stim, ("region-0",), include_background=True) == "background"


def test_variant_shares_stay_and_colour_counts_are_recomputed():
    stim = render(CHROMA)
    for spec in variant_specs(stim, (_chromatic_region(stim),)):
        var = render_variant(spec, stim)
        colours, _ = _unique(var.pixels)
        assert len(colours) == var.truth["distinct_colours"]
        for a, b in itertools.zip_longest(stim.truth["regions"], var.truth["regions"]):
            assert a["share"] == b["share"] and a["shape"] == b["shape"]
