"""plates.colour: conversions, CIEDE2000, parsing, ΔE targeting, CVD simulation."""

import numpy as np
import pytest

from plates import colour as C


def test_lab_round_trip():
    rgb = np.array([[0, 0, 0], [255, 255, 255], [178, 34, 34], [12, 200, 99]], dtype=float)
    back = C.lab_to_srgb255(C.srgb255_to_lab(rgb))
    assert np.allclose(back, rgb, atol=0.02)  # colour-science rounds its sRGB matrices
    assert C.srgb255_to_lab([255, 255, 255])[0] == pytest.approx(100.0, abs=1e-3)


def test_delta_e2000_known_pair():
    # Sharma, Wu & Dalal (2005) test data pair 1 is in CIELAB; here: white vs black is L* 100 apart
    assert C.delta_e2000((255, 255, 255), (0, 0, 0)) == pytest.approx(100.0, abs=1e-3)
    assert C.delta_e2000((10, 20, 30), (10, 20, 30)) == 0.0
    out = C.delta_e2000(np.zeros((2, 3)), np.full((2, 3), 255.0))
    assert out.shape == (2,)


@pytest.mark.parametrize(
    "value, expected",
    [("#B22222", (178, 34, 34)), ("b22222", (178, 34, 34)), ("rgb(1, 2, 3)", (1, 2, 3)), ((4, 5, 6), (4, 5, 6)),
     ([255, 0, 0], (255, 0, 0)), (np.array([1, 2, 3]), (1, 2, 3))],
)
def test_parse_colour(value, expected):
    assert C.parse_colour(value) == expected


@pytest.mark.parametrize("bad", ["#12345", "red", "rgb(1,2,300)", (1, 2), (1.5, 2, 3), (256, 0, 0), (True, 0, 0), None])
def test_parse_colour_rejects(bad):
    with pytest.raises(ValueError, match="allowed"):
        C.parse_colour(bad)


@pytest.mark.parametrize("target", [2.0, 5.0, 10.0, 20.0, 35.0, 50.0])
def test_background_at_delta_e_within_half(target):
    fg, direction = (178, 34, 34), (175, 238, 238)
    bg = C.background_at_delta_e(fg, direction, target)
    assert all(isinstance(v, int) and 0 <= v <= 255 for v in bg)
    assert abs(C.delta_e2000(fg, bg) - target) <= 0.5


def test_background_at_delta_e_unreachable_names_maximum():
    fg, direction = (128, 128, 128), (140, 128, 128)
    reach = C.max_delta_e_along(fg, direction)
    with pytest.raises(ValueError, match=r"allowed: 0 < delta_e <= \d+\.\d\d"):
        C.background_at_delta_e(fg, direction, reach + 5)
    with pytest.raises(ValueError, match="allowed"):
        C.background_at_delta_e(fg, direction, -1)
    with pytest.raises(ValueError, match="equals the foreground"):
        C.background_at_delta_e(fg, fg, 5)


def test_delta_e2000_lab_is_colour_sciences_cie_2000_bit_for_bit():
    """The direct call gives the very values of colour-science's dispatching ``delta_E(method="CIE 2000")``:
    the searches and drawn-ΔE statistics built on it keep every figure and colour they had."""
    from plates.colour.spaces import colour_science, delta_e2000_lab

    rng = np.random.default_rng(3)
    a = rng.uniform([0, -100, -100], [100, 100, 100], (500, 3))
    b = a + rng.normal(0, 5, (500, 3))
    slow = colour_science().delta_E(a, b, method="CIE 2000")
    assert np.array_equal(delta_e2000_lab(a, b), slow)
    assert delta_e2000_lab(a[0], b[0]) == colour_science().delta_E(a[0], b[0], method="CIE 2000")


def test_delta_e_searches_are_memoised_with_the_same_answers():
    """A set's plates and the explorer's slider ask the same searches again: the second answer is the memo's,
    equal to a fresh search's, whichever spelling of the colours; an unreachable target raises every time."""
    fg, direction = (30, 140, 200), (200, 90, 40)
    first = C.background_at_delta_e(fg, direction, 7.5)
    again = C.background_at_delta_e("#1e8cc8", [200, 90, 40], 7.5)
    assert again == first and again is first  # the memo's answer: the very tuple the search built
    lab = (2.0, -1.0, 0.5)
    colour = C.colour_at_delta_e(fg, lab, 4.0)
    assert C.colour_at_delta_e(fg, np.array(lab), 4.0) is colour
    for _ in range(2):
        with pytest.raises(ValueError, match=r"allowed: 0 < delta_e <= \d+\.\d\d"):
            C.background_at_delta_e((128, 128, 128), (140, 128, 128), 90.0)


def test_simulate_cvd():
    img = np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [120, 120, 120]]], dtype=np.uint8)
    for kind in ("protan", "deutan", "tritan"):
        out = C.simulate_cvd(img, kind, 1.0)
        assert out.dtype == np.uint8 and out.shape == img.shape
        assert not np.array_equal(out, img)
        assert np.abs(out[1, 1].astype(int) - 120).max() <= 2  # greys stay (nearly) grey
    assert np.array_equal(C.simulate_cvd(img, "protan", 0.0), img)
    assert np.array_equal(C.simulate_cvd(img, "none", 1.0), img)
    # protan confuses red and green more than normal vision does
    p = C.simulate_cvd(np.array([[[200, 60, 40], [60, 140, 40]]], dtype=np.uint8), "protan", 1.0)
    assert C.delta_e2000(p[0, 0], p[0, 1]) < C.delta_e2000((200, 60, 40), (60, 140, 40))
    with pytest.raises(ValueError, match="allowed: none, protan, deutan, tritan"):
        C.simulate_cvd(img, "achromat", 1.0)
    with pytest.raises(ValueError, match=r"cvd severity=1.5 is not valid; allowed: a number in \[0, 1\]"):
        C.simulate_cvd(img, "protan", 1.5)


from hypothesis import given, settings
from hypothesis import strategies as st

_rgb = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))


@settings(max_examples=60, deadline=None)
@given(_rgb, _rgb, st.floats(0.5, 80.0))
def test_background_at_delta_e_property(fg, direction, target):
    """Either a colour within 0.5 of the target, or a ValueError that states the reachable maximum."""
    if fg == direction:
        with pytest.raises(ValueError):
            C.background_at_delta_e(fg, direction, target)
        return
    try:
        bg = C.background_at_delta_e(fg, direction, target)
    except ValueError as exc:
        assert "allowed: 0 < delta_e <=" in str(exc)
        reach = float(str(exc).rsplit("<= ", 1)[1].split(" ")[0])
        assert target > reach - 0.5
        return
    assert abs(C.delta_e2000(fg, bg) - target) <= 0.5


_CORNERS = [(r, g, b) for r in (0, 255) for g in (0, 255) for b in (0, 255)]


@pytest.mark.parametrize("fg", _CORNERS)
def test_max_delta_e_from_gamut_corners_is_reachable(fg):
    """A ray that starts on an sRGB gamut corner (pure blue, yellow, ...) must not be judged out of gamut at its
    start by colour-science's ~3e-4 sRGB->Lab->sRGB round-trip error: the stated maximum is then a real one,
    never more than the ΔE2000 to the direction's own corner, and a target just under it is met."""
    for direction in _CORNERS:
        if direction == fg:
            continue
        reach = C.max_delta_e_along(fg, direction)
        assert reach <= C.delta_e2000(fg, direction) + 0.5, (fg, direction, reach)
        if reach > 2:
            bg = C.background_at_delta_e(fg, direction, reach - 1)
            assert abs(C.delta_e2000(fg, bg) - (reach - 1)) <= 0.5


def test_near_blue_towards_black_found_by_hypothesis():
    """test_background_at_delta_e_property's falsifying example on the old 1e-4 tolerance: #0000fd read as out of
    gamut at its start, so the ray ran to t=8 and the error stated an unreachable maximum of 133.54."""
    assert C.max_delta_e_along((0, 0, 253), (0, 0, 0)) < 41.0
    with pytest.raises(ValueError, match=r"allowed: 0 < delta_e <= 3\d\.\d\d"):
        C.background_at_delta_e((0, 0, 253), (0, 0, 0), 41.0)
