"""Choosing a scene's colours (`plates.stimuli.scenes.colours`): CIEDE2000 as colour-science computes it, the
farthest-point feasibility bound, palette subsets, and the three samplers' minimum on the exact 8-bit colours."""

from __future__ import annotations

import itertools

import colour
import numpy as np
import pytest

from plates.colour import delta_e2000, srgb255_to_lab
from plates.stimuli.scenes.colours import (
    MAX_COLOURS,
    choose_colours,
    delta_e_lab,
    farthest_point_bound,
    palette_subsets,
)
from plates.stimuli.scenes.palettes import get_scene_palette


def _min_pairwise(colours: np.ndarray) -> float:
    d = delta_e2000(colours[:, None, :], colours[None, :, :])
    return float(np.min(d[np.triu_indices(len(colours), 1)]))


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def test_delta_e_lab_is_colour_sciences_ciede2000():
    rng = _rng(0)
    a = srgb255_to_lab(rng.integers(0, 256, (50, 3)))
    b = srgb255_to_lab(rng.integers(0, 256, (50, 3)))
    np.testing.assert_allclose(delta_e_lab(a, b), colour.delta_E(a, b, method="CIE 2000"), rtol=0, atol=1e-10)
    assert delta_e_lab(a[:, None], b[None]).shape == (50, 50)


@pytest.mark.parametrize("background", [(255, 255, 255), (0, 0, 0), (200, 30, 30), None])
def test_farthest_point_bound_is_met_by_its_own_picks(background):
    picks, bound = farthest_point_bound(background)
    assert picks.shape == (MAX_COLOURS + 1, 3) and bound.shape == (MAX_COLOURS + 1,)
    assert np.isinf(bound[0]) and np.all(np.diff(bound[1:]) <= 0)
    for k in (1, 2, 5, 12, MAX_COLOURS):
        assert _min_pairwise(picks[: k + 1]) == pytest.approx(bound[k], abs=1e-9)
    with pytest.raises(ValueError):  # cached and shared: read-only
        picks[0, 0] = 1


def test_palette_subsets_are_every_far_enough_set_and_only_those():
    name, bg, d, n = "xkcd-basic-11", (255, 255, 255), 25.0, 3
    pal = get_scene_palette(name)
    got = set(palette_subsets(name, bg, d, n))
    want = set()
    for combo in itertools.combinations(pal.colours, n):
        rgb = np.array([pal.colours[k] for k in combo])
        far = _min_pairwise(rgb) >= d
        from_bg = all(delta_e2000(np.array(bg), c) >= d for c in rgb)
        if far and from_bg:
            want.add(combo)
    assert got == want and got


@pytest.mark.parametrize("spacing", ["spread", "tight"])
@pytest.mark.parametrize(
    ("n", "d", "background"), [(3, 20.0, (255, 255, 255)), (8, 10.0, None), (5, 4.0, (30, 30, 30))]
)
def test_random_samplers_keep_the_minimum_on_the_drawn_colours(spacing, n, d, background):
    choice = choose_colours(n, d, background, _rng(4), spacing=spacing)
    rgb = np.array([choice.background, *choice.colours])
    assert len(choice.colours) == n and choice.names == (None,) * n
    assert choice.min_delta_e == pytest.approx(_min_pairwise(rgb)) and choice.min_delta_e >= d - 1e-9
    if background is not None:
        assert choice.background == background
    assert choice == choose_colours(n, d, background, _rng(4), spacing=spacing), "seeded"


def test_at_the_bound_the_farthest_point_set_is_used_and_said():
    picks, bound = farthest_point_bound((255, 255, 255))
    choice = choose_colours(12, float(bound[12]), (255, 255, 255), _rng(1))
    assert choice.sampler in ("spread", "farthest-point")
    assert choice.min_delta_e >= bound[12] - 1e-9
    if choice.sampler == "farthest-point":
        assert [list(c) for c in choice.colours] == picks[1:13].tolist()


def test_a_palette_choice_names_its_colours():
    choice = choose_colours(3, 20.0, None, _rng(2), palette="css-basic-11")
    pal = get_scene_palette("css-basic-11")
    assert choice.sampler == "palette:css-basic-11" and len(choice.names) == 3
    assert all(pal.colours[k] == c for k, c in zip(choice.names, choice.colours, strict=True))
    assert choice.background in pal.colours.values() and choice.min_delta_e >= 20.0


def test_no_object_colours_is_the_background_alone():
    given = choose_colours(0, 10.0, (10, 20, 30), _rng(0))
    drawn = choose_colours(0, 10.0, None, _rng(0))
    assert (given.background, given.colours, given.min_delta_e) == ((10, 20, 30), (), float("inf"))
    assert len(drawn.background) == 3 and drawn.colours == ()


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"spacing": "even"}, "allowed"),
        ({"palette": "nope"}, "nope"),
        ({"palette": "css-basic-11", "min_delta_e": 200.0}, "no 3 colours"),
    ],
)
def test_bad_choices_are_refused_by_name(kw, match):
    args = {"n": 3, "min_delta_e": 10.0, "background": (255, 255, 255), "rng": _rng(0), **kw}
    with pytest.raises(ValueError, match=match):
        choose_colours(**args)


@pytest.mark.parametrize("d", [3.0, 8.0, 15.0])
def test_tight_spacing_crowds_colours_near_the_minimum(d):
    got = []
    for seed in range(6):
        rng = np.random.Generator(np.random.PCG64(seed))
        c = choose_colours(6, d, (255, 255, 255), rng, spacing="tight")
        rgb = np.array([(255, 255, 255), *c.colours])
        got.append(_min_pairwise(rgb))
        assert got[-1] >= d - 1e-9
    assert np.median(got) < 1.5 * d
