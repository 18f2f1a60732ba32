"""xy, u'v', luminance and the sRGB gamut, against colour-science and sRGB's primaries."""

from __future__ import annotations

import numpy as np
import pytest

from plates.colour.chromaticity import (
    check_centre,
    max_luminance,
    srgb255_to_xyY,
    uv_to_xy,
    within_locus,
    xy_to_uv,
    xyY_to_srgb,
)


def test_uv_round_trip_and_d65():
    xy = np.array([[0.3127, 0.329], [0.45, 0.41], [0.2, 0.3]])
    assert np.allclose(uv_to_xy(xy_to_uv(xy)), xy)
    assert np.allclose(xy_to_uv([0.3127, 0.329]), [0.19783, 0.46832], atol=1e-5)  # CIE 015 D65 u'v'


def test_xyY_and_srgb_agree():
    rgb = np.array([187.0, 120.0, 33.0])
    xy, Y = srgb255_to_xyY(rgb)
    # colour-science encodes with sRGB's published (rounded) matrix and decodes with the derived one: the round
    # trip lands within about 1e-3 of a code
    assert np.allclose(xyY_to_srgb(xy, Y) * 255, rgb, atol=1e-2)


def test_max_luminance_at_the_primaries_and_outside():
    assert max_luminance([0.3127, 0.3290]) == pytest.approx(1.0, abs=1e-3)
    red_y = max_luminance([0.64, 0.33])
    assert red_y == pytest.approx(0.2126, abs=2e-3)  # sRGB red's luminance
    assert max_luminance([0.16, 0.057]) == 0.0  # MacAdam's first centre: outside the sRGB triangle


def test_check_centre_errors_name_what_is_allowed():
    assert check_centre([0.3127, 0.329]) == pytest.approx(0.5, abs=1e-3)
    with pytest.raises(ValueError, match="outside the spectral locus"):
        check_centre([0.05, 0.9])
    with pytest.raises(ValueError, match="outside the sRGB gamut"):
        check_centre([0.16, 0.057])
    with pytest.raises(ValueError, match="0 < Y <= 0.2"):
        check_centre([0.64, 0.33], 0.9)
    assert within_locus([0.3127, 0.329]) and not within_locus([0.8, 0.3])
