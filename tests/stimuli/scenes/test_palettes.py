"""`plates.stimuli.scenes.palettes`: the two named palettes of the eleven basic colour terms (sRGB 0-255), a colour
named back from its value, and the lookup's error naming what is allowed."""

from __future__ import annotations

import pytest

from plates.colour import to_hex
from plates.stimuli.scenes.palettes import SCENE_PALETTES, get_scene_palette

BASIC_11 = {"red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "grey"}


@pytest.mark.parametrize("name", list(SCENE_PALETTES))
def test_each_palette_names_the_eleven_basic_terms_in_srgb_0_255(name):
    palette = get_scene_palette(name)
    assert palette.name == name and set(palette.colours) == BASIC_11
    assert all(len(v) == 3 and all(isinstance(c, int) and 0 <= c <= 255 for c in v) for v in palette.colours.values())
    assert palette.source and palette.min_delta_e > 15


def test_the_published_values_are_kept():
    xkcd, css = get_scene_palette("xkcd-basic-11"), get_scene_palette("css-basic-11")
    assert to_hex(xkcd.colours["blue"]).lower() == "#0343df" and to_hex(xkcd.colours["grey"]).lower() == "#929591"
    assert css.colours["brown"] == (165, 42, 42) and css.colours["grey"] == (128, 128, 128)


def test_name_of_an_exact_value_and_within_a_tolerance():
    palette = get_scene_palette("xkcd-basic-11")
    assert palette.name_of((229, 0, 0)) == "red"
    assert palette.name_of([229.0, 0.0, 0.0]) == "red"  # any sequence of numbers
    assert palette.name_of((230, 0, 0)) is None  # tolerance 0: exactly the colour only
    assert palette.name_of((230, 0, 0), tolerance=5) == "red"
    assert palette.name_of((128, 128, 128), tolerance=1) is None  # CSS grey is not xkcd's grey


def test_an_unknown_palette_names_the_known_ones():
    with pytest.raises(ValueError, match="scene palette 'nope' is not known; allowed: xkcd-basic-11, css-basic-11"):
        get_scene_palette("nope")


def test_the_registry_and_the_palettes_are_read_only():
    with pytest.raises(TypeError):
        SCENE_PALETTES["mine"] = SCENE_PALETTES["css-basic-11"]
    with pytest.raises(TypeError):
        get_scene_palette("css-basic-11").colours["red"] = (0, 0, 0)
