"""plates.colour.transfer: the sRGB transfer function (IEC 61966-2-1) in numpy, bit-identical to colour-science's
``eotf_sRGB`` / ``eotf_inverse_sRGB`` on every 8-bit code, on means of codes and on linear values, so levels
stored before it replaced three hand-written copies do not move. Colours: sRGB 0-255, linear RGB 0-1."""

from __future__ import annotations

import colour
import numpy as np
import pytest

from plates.colour.transfer import linear_to_srgb255, srgb255_to_linear


def test_decoding_equals_colour_science_bit_for_bit_on_codes_and_fractions():
    codes = np.arange(256)
    np.testing.assert_array_equal(srgb255_to_linear(codes), colour.models.eotf_sRGB(codes / 255.0))
    fractions = np.linspace(0.0, 255.0, 100_003)  # means of dithered dots land between codes
    np.testing.assert_array_equal(srgb255_to_linear(fractions), colour.models.eotf_sRGB(fractions / 255.0))


def test_encoding_equals_colour_science_bit_for_bit():
    linear = np.concatenate([np.linspace(0.0, 1.0, 100_003), np.geomspace(1e-9, 0.01, 1_001), [0.0031308]])
    np.testing.assert_array_equal(linear_to_srgb255(linear), colour.models.eotf_inverse_sRGB(linear) * 255.0)


def test_the_known_points_and_the_toe():
    assert srgb255_to_linear([0, 255]).tolist() == [0.0, 1.0]
    assert srgb255_to_linear(10) == pytest.approx(10 / 255 / 12.92)  # below 0.04045: the linear toe
    assert srgb255_to_linear(128) == pytest.approx(0.2158605, abs=1e-7)  # IEC 61966-2-1's mid grey
    assert linear_to_srgb255(-0.001) == pytest.approx(-0.001 * 12.92 * 255)  # negative stays on the toe, no NaN


def test_round_trip_returns_every_code_and_keeps_the_shape():
    codes = np.arange(256, dtype=float).reshape(16, 16)
    back = linear_to_srgb255(srgb255_to_linear(codes))
    assert back.shape == (16, 16)
    np.testing.assert_allclose(back, codes, atol=1e-9)
    assert np.array_equal(np.rint(back), codes)
