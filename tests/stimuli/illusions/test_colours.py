"""`plates.stimuli.illusions.colours`: target pairs at a signed CIEDE2000 difference in 8-bit sRGB (checked with
colour-science directly), the sRGB transfer (IEC 61966-2-1), luminance, and the filter's cast and its inverse.
Colours: sRGB 0-255, CIELAB (D65, 2°)."""

from __future__ import annotations

import colour
import numpy as np
import pytest

from plates.colour import srgb255_to_lab
from plates.colour.transfer import srgb255_to_linear
from plates.stimuli.illusions.colours import (
    TOLERANCE,
    cast,
    encode_linear,
    in_gamut,
    luminance,
    max_cast_alpha,
    rgb8,
    target_pair,
    uncast,
)

GREY50 = (50.0, 0.0, 0.0)


@pytest.mark.parametrize("delta_e", [1.0, 3.0, -3.0, 8.0, -12.5])
@pytest.mark.parametrize("target", [GREY50, (60.0, 20.0, -15.0)])
def test_the_pair_meets_the_signed_difference_on_the_8_bit_pixels(target, delta_e):
    a, b = target_pair(target, delta_e)
    lab_a, lab_b = srgb255_to_lab(np.array(a)), srgb255_to_lab(np.array(b))
    measured = float(colour.delta_E(lab_a, lab_b, method="CIE 2000"))
    assert abs(measured - abs(delta_e)) <= TOLERANCE
    assert np.sign(lab_a[0] - lab_b[0]) == np.sign(delta_e)  # positive: A lighter
    assert all(isinstance(v, int) and 0 <= v <= 255 for v in (*a, *b))


def test_zero_difference_gives_the_base_colours_pixels_twice():
    a, b = target_pair(GREY50, 0)
    assert a == b == tuple(int(v) for v in rgb8(np.array(GREY50)))


def test_a_base_outside_srgb_is_refused_naming_what_is_allowed():
    with pytest.raises(ValueError, match=r"target CIELAB \(50, 120, 0\) is outside sRGB .*allowed: a CIELAB colour "
                                         r"inside sRGB"):
        target_pair((50.0, 120.0, 0.0), 2.0)


def test_an_unreachable_difference_names_the_reachable_range():
    with pytest.raises(ValueError, match=r"delta_e 40 is not reachable .*\(8-bit pairs measure 0.40 to 2.42 "
                                         r"ΔE2000\); allowed: 0 or 0.40 <= \|delta_e\| <= 2.42"):
        target_pair((98.0, 0.0, 0.0), 40.0)  # near white: L* has little room either way


def test_gamut_and_rounding():
    assert in_gamut(np.array([GREY50, (50.0, 120.0, 0.0)])).tolist() == [True, False]
    assert rgb8(np.array([100.0, 0.0, 0.0])).tolist() == [255, 255, 255]
    assert rgb8(np.array([50.0, 120.0, 0.0])).dtype == np.uint8  # out of gamut: clipped, not wrapped


def test_encode_linear_inverts_decode_on_every_code_and_rounds_like_the_transfer_function():
    codes = np.arange(256)
    np.testing.assert_array_equal(encode_linear(srgb255_to_linear(codes)), codes)
    linear = np.linspace(0.0, 1.0, 10_001)
    direct = np.clip(np.rint(255 * colour.cctf_encoding(linear, function="sRGB")), 0, 255)
    np.testing.assert_array_equal(encode_linear(linear), direct)
    assert encode_linear([-0.1, 1.5]).tolist() == [0, 255]


def test_luminance_of_white_black_and_the_primaries():
    assert luminance((255, 255, 255)) == pytest.approx(1.0) and luminance((0, 0, 0)) == 0.0
    np.testing.assert_allclose(luminance(np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255]])),
                               [0.2126, 0.7152, 0.0722])


def test_uncast_inverts_cast_within_rounding():
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, size=(200, 3))
    tint = np.array([220, 40, 60])
    out = cast(rgb, tint, 0.45)
    assert out.dtype == np.uint8
    assert np.abs(uncast(out, tint, 0.45) - rgb).max() <= 0.5 / 0.55 + 1e-9
    assert (cast(rgb, tint, 0.0) == rgb).all() and (cast(rgb, tint, 1.0) == tint).all()


def test_max_cast_alpha_is_the_last_opacity_with_an_srgb_original_behind_every_colour():
    colours, tint = np.array([[10, 200, 30], [240, 20, 90]]), np.array([200, 0, 0])
    alpha = max_cast_alpha(colours, tint)
    assert 0 < alpha < 1
    inside = uncast(colours, tint, alpha * 0.999)
    assert (inside >= -0.5).all() and (inside < 255.5).all()
    beyond = uncast(colours, tint, min(1 - 1e-6, alpha * 1.01))
    assert ((beyond < -0.5) | (beyond >= 255.5)).any()
    assert max_cast_alpha([128, 128, 128], [128, 128, 128]) == 1.0  # a cast of the colour itself: any opacity
