"""Colour-vision-deficiency views: Machado, Oliveira & Fernandes (2009), applied in linear RGB.

Machado et al. publish one 3x3 matrix (linear RGB -> linear RGB) per deficiency at severities 0, 0.1, ..., 1.0
(colour-science ships them as ``colour.blindness.CVD_MATRICES_MACHADO2010``). Between two rows we
interpolate linearly (our choice). We do NOT call
``colour.blindness.matrix_cvd_Machado2009``: in colour-science 0.4.7 it picks the segment with
``searchsorted(..., side="left")``, so a severity strictly between two rows is extrapolated from the next
segment (0.15 uses the 0.2 and 0.3 rows) and any severity in (0.9, 1.0) returns the 1.0 matrix; at the table's
own rows both agree exactly. Pixels are sRGB 0-255.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np

from plates.colour.spaces import colour_science
from plates.colour.transfer import linear_to_srgb255, srgb255_to_linear
from plates.validation import check_number

__all__ = ["CVD_KINDS", "CVD_VIEWS", "machado_matrix", "simulate_cvd"]

CVD_KINDS = {"protan": "Protanomaly", "deutan": "Deuteranomaly", "tritan": "Tritanomaly"}
#: Every CVD view a condition may ask for ("none" = normal vision).
CVD_VIEWS = ("none", *CVD_KINDS)


@lru_cache(maxsize=1)
def _decode_lut() -> np.ndarray:
    lut = srgb255_to_linear(np.arange(256))
    lut.setflags(write=False)
    return lut


@lru_cache(maxsize=3)
def severity_table(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(severities (11,), matrices (11, 3, 3)) of Machado et al.'s table for ``kind``, read-only.

    Read from colour-science's ``colour.blindness.CVD_MATRICES_MACHADO2010`` (the anomaly of ``kind``: protanomaly,
    deuteranomaly, tritanomaly), rows sorted by severity; cached, so the arrays are shared and not writable.

    Parameters
    ----------
    kind : str
        "protan", "deutan" or "tritan" (a key of `CVD_KINDS`; "none" has no table). Not validated here:
        `machado_matrix` checks it first.

    Returns
    -------
    tuple of numpy.ndarray
        The severities 0, 0.1, ..., 1.0 (float64, shape (11,)) and the matrices at them (float64, shape
        (11, 3, 3)), each linear RGB to linear RGB (sRGB primaries).

    Raises
    ------
    KeyError
        ``kind`` is not a key of `CVD_KINDS`.

    References
    ----------
    Machado, G. M., Oliveira, M. M. & Fernandes, L. A. F. (2009). A physiologically-based model for simulation
    of color vision deficiency. *IEEE TVCG* 15(6), 1291-1298, Table 1 (the matrices per severity).
    """
    rows = colour_science().blindness.CVD_MATRICES_MACHADO2010[CVD_KINDS[kind]]
    severities = np.array(sorted(rows), dtype=np.float64)
    matrices = np.stack([np.asarray(rows[s], dtype=np.float64) for s in severities])
    severities.setflags(write=False)
    matrices.setflags(write=False)
    return severities, matrices


def _check(kind: str, severity: float) -> None:
    if kind != "none" and kind not in CVD_KINDS:
        raise ValueError(f"cvd kind {kind!r} is not valid; allowed: none, {', '.join(CVD_KINDS)}")
    check_number("cvd severity", severity, 0, 1)


def machado_matrix(kind: str, severity: float) -> np.ndarray:
    """The Machado et al. (2009) matrix for ``kind`` at ``severity``, linear RGB to linear RGB.

    Severities on the table's 0.1 grid return its row exactly; others interpolate linearly between the two
    neighbouring rows: ``M(s) = M(a) + (s - a) / (b - a) * (M(b) - M(a))`` with ``a <= s <= b`` consecutive
    rows. Tritan uses Machado's tritanomaly matrices, which colour-science flags as an approximation (shift
    paradigm).

    Parameters
    ----------
    kind : str
        "protan", "deutan", "tritan" or "none" (`CVD_VIEWS`).
    severity : float
        0-1 (0: normal vision, the identity; 1: dichromacy).

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        Applied to linear RGB (0-1) column vectors.

    Raises
    ------
    ValueError
        An unknown ``kind`` or a severity outside 0-1, naming what is allowed.

    References
    ----------
    Machado, Oliveira and Fernandes (2009), *IEEE TVCG* 15(6):1291-1298, Table 1 (through colour-science's
    ``CVD_MATRICES_MACHADO2010``).

    Examples
    --------
    >>> machado_matrix("protan", 0.15).round(7)[0].tolist()  # halfway between the 0.1 and 0.2 rows
    [0.7954665, 0.258455, -0.053921]
    """
    _check(kind, severity)
    if kind == "none" or severity == 0:
        return np.eye(3)
    with warnings.catch_warnings():  # importing the table may warn about matplotlib; nothing here is plotted
        warnings.simplefilter("ignore")
        severities, matrices = severity_table(kind)
    s = float(severity)
    i = int(np.clip(np.searchsorted(severities, s, side="right") - 1, 0, len(severities) - 2))
    a, b = severities[i], severities[i + 1]
    t = (s - a) / (b - a)
    if t == 0.0:
        return matrices[i].copy()
    if t == 1.0:
        return matrices[i + 1].copy()
    return matrices[i] + t * (matrices[i + 1] - matrices[i])


def simulate_cvd(rgb_array, kind: str, severity: float = 1.0) -> np.ndarray:
    """Colour-vision-deficiency view (Machado et al. 2009) of sRGB 0-255 pixels.

    Parameters
    ----------
    rgb_array : array_like, shape (..., 3)
        sRGB 0-255 (uint8, or numbers rounded and clipped to it).
    kind : str
        "protan", "deutan" or "tritan"; "none" returns the input unchanged as uint8.
    severity : float, default 1.0
        0-1 (0: normal vision, 1: dichromacy); between the table's 0.1-step rows the matrix is interpolated
        linearly (`machado_matrix`).

    Returns
    -------
    numpy.ndarray of uint8, shape (..., 3)
        sRGB 0-255: the Machado matrix applied in linear RGB, then re-encoded and clipped.

    Raises
    ------
    ValueError
        An unknown ``kind``, a severity outside 0-1 or an array whose last axis is not 3.

    References
    ----------
    Machado, Oliveira and Fernandes (2009), *IEEE TVCG* 15(6):1291-1298.

    Examples
    --------
    >>> simulate_cvd(np.array([[255, 0, 0]], dtype=np.uint8), "protan").tolist()  # red, seen by a protanope
    [[109, 95, 0]]
    """
    _check(kind, severity)
    a = np.asarray(rgb_array)
    if a.shape[-1:] != (3,):
        raise ValueError(f"rgb_array shape {a.shape} is not valid; allowed: (..., 3) sRGB 0-255")
    u8 = np.clip(np.rint(a), 0, 255).astype(np.uint8) if a.dtype != np.uint8 else a
    if kind == "none" or severity == 0:
        return u8.copy()
    m = machado_matrix(kind, severity)
    flat = u8.reshape(-1, 3)
    # plates hold few distinct colours: transform each distinct colour once
    packed = (flat[:, 0].astype(np.uint32) << 16) | (flat[:, 1].astype(np.uint32) << 8) | flat[:, 2]
    uniq, inv = np.unique(packed, return_inverse=True)
    cols = np.stack([(uniq >> 16) & 255, (uniq >> 8) & 255, uniq & 255], axis=1)
    lin = _decode_lut()[cols] @ m.T
    out = np.clip(np.rint(linear_to_srgb255(np.clip(lin, 0, 1))), 0, 255).astype(np.uint8)
    return out[inv.reshape(-1)].reshape(u8.shape)
