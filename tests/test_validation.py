"""The one registry lookup and the one number validator (plates.validation), and the registries that use them."""

from __future__ import annotations

import math

import pytest

from plates.datasets import get_preset
from plates.stimuli import get_family
from plates.stimuli.ishihara.palettes import get_palette
from plates.tasks import get_task
from plates.tasks.prompts import get_prompt
from plates.validation import check_choice, check_number, lookup, not_known, suggestion


def test_lookup_returns_the_entry_or_names_every_allowed_one():
    registry = {"red": 1, "green": 2, "blue": 3}
    assert lookup(registry, "green", "colour") == 2
    with pytest.raises(ValueError, match=r"^colour 'purple' is not known; allowed: red, green, blue$"):
        lookup(registry, "purple", "colour")  # nothing close: no suggestion


def test_a_near_miss_gets_one_suggestion_case_insensitively():
    with pytest.raises(ValueError, match=r"allowed: red, green, blue; did you mean 'green'\?$"):
        lookup({"red": 1, "green": 2, "blue": 3}, "GREN", "colour")
    assert suggestion("huemanity-1", ["huemanity-01", "colorblindnesseval-1"]) == "huemanity-01"
    assert suggestion("zzz", ["red"]) is None and suggestion(None, ["red"]) is None


@pytest.mark.parametrize("bad", [None, 3, ["red"], {"red": 1}])
def test_lookup_of_a_non_string_is_the_same_error_not_a_type_error(bad):
    with pytest.raises(ValueError, match=r"colour .* is not known; allowed: red"):
        lookup({"red": 1}, bad, "colour")


def test_extra_text_follows_the_allowed_list():
    err = not_known("font", "Comic", ["dejavu-sans"], extra=" or a .ttf path")
    assert str(err) == "font 'Comic' is not known; allowed: dejavu-sans or a .ttf path"


def test_check_choice_takes_any_hashable_or_not():
    assert check_choice("direction", None, (None, "vertical")) is None
    with pytest.raises(ValueError, match=r"direction \['x'\] is not known; allowed: None, vertical"):
        check_choice("direction", ["x"], (None, "vertical"))


@pytest.mark.parametrize(
    ("get", "name", "near"),
    [(get_palette, "huemanty-01", "huemanity-01"), (get_preset, "huemanity-numerc", "huemanity-numeric"),
     (get_family, "ilusion", "illusion"), (get_task, "cbe-opn", None), (get_prompt, "cbe-opne", "cbe-open")],
)
def test_every_registry_getter_speaks_the_same_error(get, name, near):
    with pytest.raises(ValueError, match=rf"^\w[\w ]* '{name}' is not known; allowed: ") as caught:
        get(name)
    if near is not None:
        assert str(caught.value).endswith(f"; did you mean {near!r}?")


def test_check_number_ranges_integers_and_none():
    assert check_number("size", 512, 64, 4096, integer=True) == 512
    assert check_number("strength", 1, 0.0, 1.0) == 1.0 and isinstance(check_number("s", 1, 0, 1), float)
    assert check_number("delta_e", None, 0.0, 200.0, none_ok=True) is None
    with pytest.raises(ValueError, match=r"^size=32 is not valid; allowed: an integer in \[64, 4096\]$"):
        check_number("size", 32, 64, 4096, integer=True)
    with pytest.raises(ValueError, match=r"allowed: a number in \[0, 1\] or None$"):
        check_number("x", 2, 0.0, 1.0, none_ok=True)


@pytest.mark.parametrize("bad", [True, "1", math.nan, math.inf, 1.5, None, [1]])
def test_check_number_refuses_what_is_not_a_finite_integer(bad):
    with pytest.raises(ValueError, match="is not valid; allowed: an integer in"):
        check_number("n", bad, 0, 10, integer=True)
