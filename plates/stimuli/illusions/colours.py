"""Colour helpers for the illusion family: CIELAB -> 8-bit sRGB, and the target pair at a signed CIEDE2000.

Domains: CIELAB is D65 / 2° (L* 0-100); *sRGB 0-255* is gamma-encoded 8-bit sRGB (what PNG pixels hold).
All conversions go through `plates.colour` (colour-science).

The target pair (`target_pair`): targets A and B move apart along L* from the target's 8-bit base colour,
A = base + s, B = base - s (signs swapped for a negative difference), and the pair is chosen *after* 8-bit
rounding: every candidate s on a 0.05 L* grid is rounded to 8-bit sRGB, the CIEDE2000 of the rounded pair is
measured, and the candidate closest to the requested magnitude (smallest s on ties) whose L* order matches
the requested sign wins. The drawn pixels therefore meet the request within 0.5 ΔE2000, or the spec is
refused with the reachable range.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from plates import colour as C
from plates.colour.spaces import colour_science
from plates.colour.transfer import srgb255_to_linear

__all__ = [
    "TOLERANCE",
    "encode_linear",
    "in_gamut",
    "lerp",
    "luminance",
    "rgb8",
    "target_pair",
]

#: The largest |measured - requested| ΔE2000 a target pair may have.
TOLERANCE = 0.5
_STEP, _REACH = 0.05, 100.0  # the L* search grid: s = 0, 0.05, ..., 100


def in_gamut(lab) -> np.ndarray:
    """True where CIELAB colours round to an 8-bit sRGB colour without clipping.

    Parameters
    ----------
    lab : array_like, shape (..., 3)
        CIELAB D65 colours.

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        True where the sRGB 0-255 value lies in [-0.5, 255.5) on every channel.

    Examples
    --------
    >>> bool(in_gamut((50.0, 0.0, 0.0))), bool(in_gamut((50.0, 120.0, 0.0)))
    (True, False)
    """
    s = C.lab_to_srgb255(lab)
    return np.all((s >= -0.5) & (s < 255.5), axis=-1)


def rgb8(lab) -> np.ndarray:
    """CIELAB -> 8-bit sRGB: rounded, then clipped to the gamut.

    Callers that need no clipping check `in_gamut` first (targets and spec colours are checked; interpolated
    inducers may bow out of sRGB by a level and are clipped).

    Parameters
    ----------
    lab : array_like, shape (..., 3)
        CIELAB D65 colours.

    Returns
    -------
    numpy.ndarray of uint8, shape (..., 3)
        sRGB 0-255.

    Examples
    --------
    >>> rgb8((100.0, 0.0, 0.0)).tolist()
    [255, 255, 255]
    """
    return np.clip(np.rint(C.lab_to_srgb255(lab)), 0, 255).astype(np.uint8)


def lerp(a, b, t: float) -> np.ndarray:
    """``a + t * (b - a)`` for CIELAB triples (straight line in CIELAB).

    Parameters
    ----------
    a, b : array_like, shape (..., 3)
        CIELAB D65 colours at ``t = 0`` and ``t = 1``.
    t : float
        Where on the line (not clipped: outside [0, 1] extrapolates).

    Returns
    -------
    numpy.ndarray of float, shape (..., 3)
        CIELAB D65.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a + float(t) * (b - a)


@lru_cache(maxsize=1)
def _encode_thresholds() -> np.ndarray:
    """Linear values at which the 8-bit sRGB code steps up: decode((k + 0.5) / 255), k = 0..254."""
    return srgb255_to_linear(np.arange(255) + 0.5)


def encode_linear(linear) -> np.ndarray:
    """Linear RGB 0-1 -> sRGB 0-255 uint8: the code whose rounding interval holds the value, i.e.
    rint(`plates.colour.transfer.linear_to_srgb255`) clipped, found by a search over the 255 step points
    (computed once), so many pixels cost no transfer-function evaluation.

    Parameters
    ----------
    linear : array_like
        Linear RGB 0-1, any shape (values outside 0-1 land on 0 or 255).

    Returns
    -------
    numpy.ndarray of uint8
        Gamma-encoded sRGB 0-255, same shape.

    Examples
    --------
    >>> encode_linear([0.0, 0.2158605, 1.0]).tolist()  # 0.2158605 is sRGB 128 decoded
    [0, 128, 255]
    """
    return np.searchsorted(_encode_thresholds(), np.asarray(linear, dtype=float), side="right").astype(
        np.uint8
    )


def luminance(rgb) -> np.ndarray | float:
    """Relative luminance Y (0-1) of sRGB 0-255 colours (Rec. 709 / sRGB primaries, D65).

    Parameters
    ----------
    rgb : array_like, shape (..., 3)
        Gamma-encoded sRGB 0-255.

    Returns
    -------
    float or numpy.ndarray of float, shape (...)
        Y in 0-1: a float for one colour.

    References
    ----------
    ITU-R BT.709-6, the luminance equation (weights 0.2126, 0.7152, 0.0722; sRGB shares its primaries).

    Examples
    --------
    >>> luminance((255, 255, 255))
    1.0
    """
    y = srgb255_to_linear(rgb) @ np.array([0.2126, 0.7152, 0.0722])
    return float(y) if np.ndim(y) == 0 else y


def _fmt(lab) -> str:
    return "(" + ", ".join(f"{v:g}" for v in lab) + ")"


@lru_cache(maxsize=2048)
def target_pair(
    target: tuple[float, float, float], delta_e: float
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 8-bit sRGB 0-255 colours of targets A and B for base colour ``target`` (CIELAB) and a signed
    CIEDE2000 ``delta_e`` (positive: A lighter, i.e. L*(A) > L*(B); 0: A and B are the base colour's pixels).

    Parameters
    ----------
    target : tuple of 3 float
        The base colour, CIELAB D65 (hashable: results are cached).
    delta_e : float
        The signed ΔE2000 between the rounded A and B.

    Returns
    -------
    (tuple of 3 int, tuple of 3 int)
        A and B, sRGB 0-255.

    Raises
    ------
    ValueError
        When the base colour is outside sRGB, or when no 8-bit pair along L* meets ``|delta_e|`` within
        `TOLERANCE` with the requested sign (the message gives the reachable range).
    """
    target = tuple(float(v) for v in target)
    if not bool(in_gamut(target)):
        raise ValueError(
            f"target CIELAB {_fmt(target)} is outside sRGB (it maps to sRGB 0-255 "
            f"{np.round(C.lab_to_srgb255(target), 1).tolist()}); allowed: a CIELAB colour inside sRGB"
        )
    base8 = rgb8(target)
    base = tuple(int(v) for v in base8)
    if delta_e == 0:
        return base, base
    sign = 1.0 if delta_e > 0 else -1.0
    want = abs(float(delta_e))
    lab0 = C.srgb255_to_lab(base8)
    s = np.arange(0.0, _REACH + _STEP / 2, _STEP)
    shift = np.zeros((s.size, 3))
    shift[:, 0] = sign * s
    both = np.concatenate([lab0 + shift, lab0 - shift])  # A candidates, then B candidates
    srgb = C.lab_to_srgb255(both)
    ok = np.all((srgb >= -0.5) & (srgb < 255.5), axis=-1)
    ok = ok[: s.size] & ok[s.size :]
    rounded = np.clip(np.rint(srgb), 0, 255)
    lab_r = C.srgb255_to_lab(rounded)
    la, lb = lab_r[: s.size], lab_r[s.size :]
    de = np.asarray(colour_science().delta_E(la, lb, method="CIE 2000"))
    ok &= sign * (la[:, 0] - lb[:, 0]) > 0  # the requested order of lightness, pixels differing
    if not ok.any():
        raise ValueError(
            f"delta_e {delta_e:g} is not reachable from target CIELAB {_fmt(target)}: no 8-bit pair along L* "
            "differs in the requested direction; allowed: delta_e = 0 or a mid-lightness target"
        )
    err = np.where(ok, np.abs(de - want), np.inf)
    k = int(np.argmin(err))
    if err[k] > TOLERANCE:
        lo, hi = float(de[ok].min()), float(de[ok].max())
        raise ValueError(
            f"delta_e {delta_e:g} is not reachable in sRGB from target CIELAB {_fmt(target)} along L* "
            f"(8-bit pairs measure {lo:.2f} to {hi:.2f} ΔE2000); allowed: 0 or {lo:.2f} <= |delta_e| <= "
            f"{hi:.2f} (the reachable maximum along L*; a mid-lightness, low-chroma target reaches further)"
        )
    a = tuple(int(v) for v in rounded[k])
    b = tuple(int(v) for v in rounded[s.size + k])
    return a, b


#: The filter kind's cast opacity at strength 1.
CAST_ALPHA = 0.45


def cast(rgb, cast_rgb, alpha: float) -> np.ndarray:
    """A uniform colour cast as an alpha blend in sRGB 0-1 (a "normal" layer of colour ``cast_rgb`` at opacity
    ``alpha`` over the image, the way photo filters and Kitaoka's strawberries are made): sRGB 0-255 in,
    sRGB 0-255 uint8 out (rounded).

    Parameters
    ----------
    rgb : array_like, shape (..., 3)
        The image's colours, sRGB 0-255.
    cast_rgb : array_like, shape (3,)
        The cast's colour, sRGB 0-255.
    alpha : float
        The cast's opacity, 0-1.

    Returns
    -------
    numpy.ndarray of uint8, shape (..., 3)
        sRGB 0-255, rounded and clipped.

    Examples
    --------
    >>> cast((0, 0, 0), (255, 0, 0), 0.5).tolist()
    [128, 0, 0]
    """
    out = (1.0 - alpha) * np.asarray(rgb, dtype=float) + alpha * np.asarray(cast_rgb, dtype=float)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def uncast(rgb, cast_rgb, alpha: float) -> np.ndarray:
    """The colour that `cast` turns into ``rgb`` (the inverse blend), sRGB 0-255 as float64, NOT clipped: a
    channel outside 0-255 means no sRGB colour lies behind ``rgb`` under that cast.

    Parameters
    ----------
    rgb : array_like, shape (..., 3)
        Colours seen through the cast, sRGB 0-255.
    cast_rgb : array_like, shape (3,)
        The cast's colour, sRGB 0-255.
    alpha : float
        The cast's opacity, 0 <= alpha < 1.

    Returns
    -------
    numpy.ndarray of float, shape (..., 3)
        The colours behind the cast, sRGB 0-255, unrounded and unclipped.
    """
    return (np.asarray(rgb, dtype=float) - alpha * np.asarray(cast_rgb, dtype=float)) / (1.0 - alpha)


def max_cast_alpha(rgbs, cast_rgb) -> float:
    """The largest opacity (0-1) at which every sRGB 0-255 colour in ``rgbs`` still has an sRGB original
    behind it (`uncast` within [-0.5, 255.5) on each channel).

    Parameters
    ----------
    rgbs : array_like, shape (n, 3) or (3,)
        Colours to be seen through the cast, sRGB 0-255.
    cast_rgb : array_like, shape (3,)
        The cast's colour, sRGB 0-255.

    Returns
    -------
    float
        The largest opacity, in [0, 1].
    """
    p = np.atleast_2d(np.asarray(rgbs, dtype=float))
    c = np.broadcast_to(np.asarray(cast_rgb, dtype=float), p.shape)
    limits = [1.0]
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(c > p + 0.5, (p + 0.5) / (c - (-0.5)), np.inf)  # original >= -0.5
        hi = np.where(c < p - 0.5, (255.5 - p) / (255.5 - c), np.inf)  # original < 255.5
    limits += [float(lo.min()), float(hi.min())]
    return max(0.0, min(limits))
