"""CIE 1931 xy, CIE 1976 u'v', luminance and the sRGB gamut: thin wrappers over colour-science.

Domains: *xy* is CIE 1931 chromaticity (2° observer); *u'v'* the CIE 1976 UCS chromaticity; *Y* relative
luminance 0-1 (sRGB white = 1); *sRGB 0-1* gamma-encoded IEC 61966-2-1 on a unit scale, NOT clipped (outside
0-1 = outside the gamut); *sRGB 0-255* the same on the 8-bit scale. The sRGB transforms are colour-science's
``XYZ_to_sRGB`` / ``sRGB_to_XYZ`` (D65, no adaptation), as `plates.colour.spaces` uses them.

References
----------
CIE 015:2018 Colorimetry, 4th ed., §8.1 (u', v'); IEC 61966-2-1:1999 (sRGB).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.spatial import Delaunay

from plates.colour.spaces import colour_science

__all__ = ["GAMUT_TOLERANCE", "check_centre", "max_luminance", "srgb255_to_xyY", "uv_to_xy",
           "within_locus", "xy_to_uv", "xyY_to_srgb"]

#: How far outside 0-1 an sRGB 0-1 channel may be and still count as inside the gamut (float rounding).
GAMUT_TOLERANCE = 1e-9


def xy_to_uv(xy) -> np.ndarray:
    """CIE 1931 xy (..., 2) -> CIE 1976 u'v' (..., 2).

    Parameters
    ----------
    xy : array_like, shape (..., 2)
        CIE 1931 chromaticity.

    Returns
    -------
    numpy.ndarray, shape (..., 2)
        CIE 1976 u'v'.

    References
    ----------
    CIE 015:2018 Colorimetry, 4th ed., §8.1 (u', v'); IEC 61966-2-1:1999 (sRGB).

    Examples
    --------
    >>> [round(float(v), 4) for v in xy_to_uv([0.3127, 0.329])]
    [0.1978, 0.4683]
    """
    return colour_science().xy_to_Luv_uv(np.asarray(xy, dtype=np.float64))


def uv_to_xy(uv) -> np.ndarray:
    """CIE 1976 u'v' (..., 2) -> CIE 1931 xy (..., 2).

    Parameters
    ----------
    uv : array_like, shape (..., 2)
        CIE 1976 u'v'.

    Returns
    -------
    numpy.ndarray, shape (..., 2)
        CIE 1931 xy.

    References
    ----------
    CIE 015:2018 Colorimetry, 4th ed., §8.1 (u', v'); IEC 61966-2-1:1999 (sRGB).
    """
    return colour_science().Luv_uv_to_xy(np.asarray(uv, dtype=np.float64))


def xyY_to_srgb(xy, Y) -> np.ndarray:  # noqa: N802 - the CIE's name
    """CIE 1931 xy (..., 2) at relative luminance ``Y`` (0-1) -> sRGB 0-1 (..., 3), gamma-encoded, NOT clipped.

    Parameters
    ----------
    xy : array_like, shape (..., 2)
        CIE 1931 chromaticity.
    Y : float or array_like
        Relative luminance, 0-1.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        Gamma-encoded sRGB 0-1, unclipped.

    References
    ----------
    CIE 015:2018 Colorimetry, 4th ed., §8.1 (u', v'); IEC 61966-2-1:1999 (sRGB).
    """
    cs = colour_science()
    xy = np.asarray(xy, dtype=np.float64)
    Y = np.broadcast_to(np.asarray(Y, dtype=np.float64), xy.shape[:-1])
    return cs.XYZ_to_sRGB(cs.xyY_to_XYZ(np.concatenate([xy, Y[..., None]], axis=-1)))


def srgb255_to_xyY(rgb) -> tuple[np.ndarray, np.ndarray]:
    """sRGB 0-255 (..., 3) -> (CIE 1931 xy (..., 2), relative luminance Y (...)). Black has no chromaticity:
    colour-science returns the D65 white point's for it.

    Parameters
    ----------
    rgb : array_like, shape (..., 3)
        sRGB 0-255.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        CIE 1931 xy (..., 2) and Y (...), 0-1.

    References
    ----------
    CIE 015:2018 Colorimetry, 4th ed., §8.1 (u', v'); IEC 61966-2-1:1999 (sRGB).
    """
    cs = colour_science()
    xyY = cs.XYZ_to_xyY(cs.sRGB_to_XYZ(np.asarray(rgb, dtype=np.float64) / 255.0))
    return xyY[..., :2], xyY[..., 2]


def max_luminance(xy) -> float:
    """The largest relative luminance Y at which chromaticity ``xy`` is inside sRGB (0 when xy lies outside the
    sRGB triangle): the linear sRGB of xy at Y = 1 scaled until its largest channel is 1.

    Parameters
    ----------
    xy : array_like, shape (2,)
        CIE 1931 chromaticity.

    Returns
    -------
    float
        Y, 0-1.

    Examples
    --------
    >>> round(max_luminance([0.3127, 0.3290]), 3)
    1.0
    """
    cs = colour_science()
    xy = np.asarray(xy, dtype=np.float64)
    XYZ = cs.xyY_to_XYZ(np.array([xy[0], xy[1], 1.0]))
    linear = cs.XYZ_to_sRGB(XYZ, apply_cctf_encoding=False)
    if np.min(linear) < -GAMUT_TOLERANCE:
        return 0.0
    return float(min(1.0, 1.0 / np.max(linear)))


@lru_cache(maxsize=1)
def _locus() -> Delaunay:
    """Triangulation of the CIE 1931 2° spectral locus's xy (colour-science's colour-matching functions,
    360-780 nm), closed by the purple line."""
    cs = colour_science()
    cmfs = cs.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"]
    return Delaunay(cs.XYZ_to_xy(cmfs.values))


def within_locus(xy) -> bool:
    """Whether chromaticity ``xy`` lies inside the CIE 1931 2° spectral locus (its convex hull: the locus is
    convex but for a slight dent near 500-520 nm, outside sRGB).

    Parameters
    ----------
    xy : array_like, shape (2,)
        CIE 1931 chromaticity.

    Returns
    -------
    bool
        Inside the locus's hull.

    Examples
    --------
    >>> within_locus([0.3127, 0.329]), within_locus([0.05, 0.9])
    (True, False)
    """
    xy = np.asarray(xy, dtype=np.float64)
    if not np.all(np.isfinite(xy)):
        return False
    return bool(_locus().find_simplex(xy[None, :])[0] >= 0)


def check_centre(xy, Y: float | None = None) -> float:
    """Validate a centre chromaticity (and luminance) and return the luminance used.

    Parameters
    ----------
    xy : CIE 1931 (x, y).
    Y : relative luminance 0-1, or None for half the largest in-gamut luminance at ``xy`` (`max_luminance`).

    Raises
    ------
    ValueError
        xy outside the spectral locus, outside the sRGB triangle, or Y outside what sRGB shows at xy.
    """
    xy = np.asarray(xy, dtype=np.float64)
    if xy.shape != (2,) or not np.all(np.isfinite(xy)):
        raise ValueError(f"centre {xy.tolist()!r} is not valid; allowed: two finite numbers x, y (CIE 1931 xy)")
    if not within_locus(xy):
        raise ValueError(f"centre xy ({xy[0]:g}, {xy[1]:g}) lies outside the spectral locus; allowed: a real "
                         "colour inside the sRGB triangle (red 0.64,0.33; green 0.30,0.60; blue 0.15,0.06)")
    top = max_luminance(xy)
    if top <= 0:
        raise ValueError(f"centre xy ({xy[0]:g}, {xy[1]:g}) lies outside the sRGB gamut; allowed: a chromaticity "
                         "inside the sRGB triangle (red 0.64,0.33; green 0.30,0.60; blue 0.15,0.06)")
    if Y is None:
        return top / 2
    if not (np.isfinite(Y) and 0 < Y <= top):
        raise ValueError(f"luminance Y={Y!r} at xy ({xy[0]:g}, {xy[1]:g}) is not shown by sRGB; allowed: "
                         f"0 < Y <= {top:.4f}")
    return float(Y)
