"""`plates.stimuli.illusions.naming`: one basic colour term (Berlin & Kay 1969) for an sRGB 0-255 colour, and the
terms a reply names: synonyms mapped, whole words only, first mention order."""

from __future__ import annotations

import numpy as np
import pytest

from plates.stimuli.illusions.naming import BASIC_NAMES, SYNONYMS, colour_name, names_in


@pytest.mark.parametrize(("rgb", "name"), [
    ((0, 0, 0), "black"), ((10, 10, 10), "black"), ((128, 128, 128), "grey"), ((255, 255, 255), "white"),
    ((250, 250, 245), "white"),  # low chroma: achromatic whatever the hue
    ((255, 0, 0), "red"), ((200, 30, 30), "red"), ((255, 255, 0), "yellow"), ((0, 128, 0), "green"),
    ((21, 176, 26), "green"), ((128, 0, 128), "purple"), ((255, 192, 203), "pink"), ((139, 69, 19), "brown"),
    ((101, 55, 0), "brown"), ((0, 100, 200), "blue"),
])
def test_colour_name_of_clear_examples(rgb, name):
    assert colour_name(rgb) == name
    assert colour_name(np.array(rgb, dtype=float)) == name  # any sequence of three numbers


def test_every_colour_gets_one_of_the_eleven_terms():
    rng = np.random.default_rng(0)
    assert {colour_name(c) for c in rng.integers(0, 256, size=(400, 3))} <= set(BASIC_NAMES)
    assert len(BASIC_NAMES) == 11 and set(SYNONYMS) == set(BASIC_NAMES)


def test_greys_get_lighter_names_as_they_get_lighter():
    names = [colour_name((v, v, v)) for v in range(0, 256, 5)]
    first_grey, first_white = names.index("grey"), names.index("white")
    assert set(names[:first_grey]) == {"black"} and set(names[first_grey:first_white]) == {"grey"}
    assert set(names[first_white:]) == {"white"}


@pytest.mark.parametrize(("reply", "names"), [
    ("It is gray.", ("grey",)),
    ("Crimson, or maybe scarlet", ("red",)),  # synonyms of one term: one name
    ("Sky blue, not navy", ("blue",)),  # a two-word synonym is one word
    ("not red, grey", ("red", "grey")),  # a negated mention still counts, in order
    ("redundant tangerine", ("orange",)),  # whole words only: no red, no tan
    ("JET BLACK and Ivory", ("black", "white")),  # case-insensitive
    ("12, 34 %% ##", ()),
    ("", ()),
])
def test_names_in_a_reply(reply, names):
    assert names_in(reply) == names


def test_every_synonym_names_its_term():
    for name, words in SYNONYMS.items():
        for word in words:
            assert names_in(f"I'd say {word}.") == (name,), word


@pytest.mark.parametrize("reply", [None, 3, b"red"])
def test_a_reply_that_is_not_text_is_refused_naming_its_type(reply):
    with pytest.raises(ValueError, match=f"reply must be a str, got {type(reply).__name__}"):
        names_in(reply)
