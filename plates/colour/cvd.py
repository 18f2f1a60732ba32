"""Colour-vision-deficiency views: Machado, Oliveira & Fernandes (2009), applied in linear RGB.

Matrices come from ``colour.blindness.matrix_cvd_Machado2009`` (colour-science). Pixels are sRGB 0-255.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np

from plates.colour.spaces import _cs

__all__ = ["CVD_KINDS", "CVD_VIEWS", "simulate_cvd"]

CVD_KINDS = {"protan": "Protanomaly", "deutan": "Deuteranomaly", "tritan": "Tritanomaly"}
#: Every CVD view a condition may ask for ("none" = normal vision).
CVD_VIEWS = ("none", *CVD_KINDS)


@lru_cache(maxsize=1)
def _decode_lut() -> np.ndarray:
    lut = _cs().cctf_decoding(np.arange(256) / 255.0, function="sRGB")
    lut.setflags(write=False)
    return lut


def simulate_cvd(rgb_array, kind: str, severity: float = 1.0) -> np.ndarray:
    """Colour-vision-deficiency view (Machado et al. 2009) of sRGB 0-255 pixels.

    Args:
        rgb_array: (..., 3) sRGB 0-255 (uint8 or numbers).
        kind: "protan", "deutan" or "tritan" (also "none": returns the input unchanged as uint8).
        severity: 0-1 (0 = normal vision, 1 = dichromacy). Tritan uses Machado's tritanomaly matrices, which
            colour-science flags as an approximation (shift paradigm).
    Returns:
        uint8 (..., 3) sRGB 0-255. The Machado matrix is applied in linear RGB, then re-encoded and clipped.
    """
    if kind != "none" and kind not in CVD_KINDS:
        raise ValueError(f"cvd kind {kind!r} is not valid; allowed: none, {', '.join(CVD_KINDS)}")
    if isinstance(severity, bool) or not isinstance(severity, int | float) or not 0 <= severity <= 1:
        raise ValueError(f"cvd severity {severity!r} is not valid; allowed: a number in 0-1")
    a = np.asarray(rgb_array)
    if a.shape[-1:] != (3,):
        raise ValueError(f"rgb_array shape {a.shape} is not valid; allowed: (..., 3) sRGB 0-255")
    u8 = np.clip(np.rint(a), 0, 255).astype(np.uint8) if a.dtype != np.uint8 else a
    if kind == "none" or severity == 0:
        return u8.copy()
    with warnings.catch_warnings():  # colour-science notes that its tritan matrices use the shift paradigm
        warnings.simplefilter("ignore")
        from colour.blindness import matrix_cvd_Machado2009

        m = matrix_cvd_Machado2009(CVD_KINDS[kind], float(severity))
    flat = u8.reshape(-1, 3)
    # plates hold few distinct colours: transform each distinct colour once
    packed = (flat[:, 0].astype(np.uint32) << 16) | (flat[:, 1].astype(np.uint32) << 8) | flat[:, 2]
    uniq, inv = np.unique(packed, return_inverse=True)
    cols = np.stack([(uniq >> 16) & 255, (uniq >> 8) & 255, uniq & 255], axis=1)
    lin = _decode_lut()[cols] @ m.T
    enc = _cs().cctf_encoding(np.clip(lin, 0, 1), function="sRGB")
    out = np.clip(np.rint(enc * 255), 0, 255).astype(np.uint8)
    return out[inv.reshape(-1)].reshape(u8.shape)
