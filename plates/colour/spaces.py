"""sRGB 0-255 <-> CIELAB, CIEDE2000 and colour parsing: thin wrappers over colour-science (``import colour``).

Domains, every time: *sRGB 0-255* means IEC 61966-2-1 sRGB, gamma-encoded, 8-bit scale (what PNG pixels
hold); *sRGB 0-1* the same on a unit scale; *linear RGB* the decoded sRGB primaries (0-1); *CIELAB* is
CIE ``L*a*b*`` under D65 / CIE 1931 2° (``L*`` 0-100). ΔE2000 is CIEDE2000 (Luo et al. 2001; HueManity App. C)
computed by ``colour_science().delta_E(..., method="CIE 2000")``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from plates.validation import is_number

__all__ = ["RGB", "srgb255_to_lab", "lab_to_srgb255", "delta_e2000", "delta_e2000_lab", "parse_colour", "to_hex"]

@lru_cache(maxsize=1)
def colour_science():
    """colour-science, imported on first use: it costs ~130 MB and half a second, and rendering a plate from a
    named palette never needs it (so `plates generate` workers stay small)."""
    with warnings.catch_warnings():  # colour-science warns once that matplotlib (plotting only) is absent
        warnings.filterwarnings("ignore", message=".*Matplotlib.*")
        # lazy: colour-science (~130 MB, ~0.5 s): see the docstring
        import colour

    return colour

RGB = tuple[int, int, int]  # sRGB 0-255
_HEX = re.compile(r"^#?([0-9a-fA-F]{6})$")
_FUNC = re.compile(r"^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$", re.IGNORECASE)
_ALLOWED = '"#rrggbb", "rgb(r, g, b)" or an (r, g, b) tuple of integers 0-255 (sRGB 0-255)'


def srgb255_to_lab(rgb) -> np.ndarray:
    """sRGB 0-255 to CIELAB (D65, CIE 1931 2°).

    Parameters
    ----------
    rgb : array_like, shape (..., 3)
        Colours in sRGB 0-255 (gamma-encoded, as PNG pixels hold them); floats are taken as they are.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        CIELAB ``L*`` (0-100), ``a*``, ``b*``.

    References
    ----------
    IEC 61966-2-1 (sRGB); CIE 15:2004 (CIELAB); colour-science's ``sRGB_to_XYZ`` and ``XYZ_to_Lab``.

    Examples
    --------
    >>> srgb255_to_lab([255, 0, 0]).round(3).tolist()
    [53.233, 80.111, 67.224]
    """
    a = np.asarray(rgb, dtype=np.float64) / 255.0
    cs = colour_science()
    return cs.XYZ_to_Lab(cs.sRGB_to_XYZ(a))


def lab_to_srgb255(lab) -> np.ndarray:
    """CIELAB (D65, CIE 1931 2°) to sRGB 0-255, not clipped.

    Parameters
    ----------
    lab : array_like, shape (..., 3)
        CIELAB ``L*`` (0-100), ``a*``, ``b*``.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        sRGB 0-255 as float64, NOT clipped: values outside 0-255 mean the colour is outside the sRGB gamut.
        Round and clip yourself when you need pixels.

    Examples
    --------
    >>> lab_to_srgb255([50, 120, 0]).round(1).tolist()  # far outside sRGB: negative green
    [281.0, -440.5, 124.3]
    """
    cs = colour_science()
    return cs.XYZ_to_sRGB(cs.Lab_to_XYZ(np.asarray(lab, dtype=np.float64))) * 255.0


def delta_e2000_lab(lab_a, lab_b):
    """CIEDE2000 between CIELAB colours.

    colour-science's ``delta_E_CIE2000``, the function its ``delta_E(..., method="CIE 2000")`` dispatches to
    (the same values), called without that dispatch (its cost is on docs/benchmarks.md).
    The ΔE2000 searches (`plates.colour.gamut`) make ~80 one-pair calls each.

    Parameters
    ----------
    lab_a, lab_b : array_like, shape (..., 3)
        CIELAB (D65, 2°) colours; the two broadcast against each other.

    Returns
    -------
    numpy.ndarray or numpy.float64
        ΔE2000, shape of the broadcast inputs without the last axis.

    References
    ----------
    Luo, Cui and Rigg (2001), *Color Res. Appl.* 26(5):340-350; Sharma, Wu and Dalal (2005), *Color Res. Appl.*
    30(1):21-30, Table 1 (the test pairs).

    Examples
    --------
    >>> round(float(delta_e2000_lab([50, 2.6772, -79.7751], [50, 0, -82.7485])), 4)  # Sharma 2005, pair 1
    2.0425
    """
    return colour_science().difference.delta_E_CIE2000(lab_a, lab_b)


def delta_e2000(rgb_a, rgb_b) -> np.ndarray | float:
    """CIEDE2000 between sRGB 0-255 colours (through CIELAB, D65 / 2°: `srgb255_to_lab`).

    Parameters
    ----------
    rgb_a, rgb_b : array_like, shape (..., 3)
        sRGB 0-255 colours; the two broadcast against each other.

    Returns
    -------
    float or numpy.ndarray
        ΔE2000: a float for one pair, else an array of the broadcast shape without the last axis.

    Examples
    --------
    >>> round(delta_e2000((255, 0, 0), (0, 255, 0)), 4)
    86.6143
    """
    d = delta_e2000_lab(srgb255_to_lab(rgb_a), srgb255_to_lab(rgb_b))
    return float(d) if np.ndim(d) == 0 else d


def parse_colour(value) -> RGB:
    """An sRGB 0-255 integer triple from a hex string, an ``rgb()`` string or a sequence.

    Parameters
    ----------
    value : str or sequence of int
        ``"#aabbcc"`` (the ``#`` optional, either case), ``"rgb(1, 2, 3)"``, or an ``(r, g, b)`` sequence of
        integers 0-255 (numpy integers too; booleans and floats are refused).

    Returns
    -------
    tuple of int
        ``(r, g, b)``, sRGB 0-255.

    Raises
    ------
    ValueError
        For anything else, naming the value and the forms allowed.

    Examples
    --------
    >>> parse_colour("#B22222"), parse_colour("rgb(1, 2, 3)"), parse_colour([0, 128, 255])
    ((178, 34, 34), (1, 2, 3), (0, 128, 255))
    >>> parse_colour("#12")
    Traceback (most recent call last):
    ...
    ValueError: colour '#12' is not valid; allowed: "#rrggbb", "rgb(r, g, b)" or an (r, g, b) tuple of integers 0-255 (sRGB 0-255)
    """
    if isinstance(value, str):
        s = value.strip()
        m = _HEX.match(s)
        if m:
            h = m.group(1)
            return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))
        m = _FUNC.match(s)
        if m:
            parts = tuple(int(g) for g in m.groups())
            if all(0 <= p <= 255 for p in parts):
                return parts  # type: ignore[return-value]
        raise ValueError(f"colour {value!r} is not valid; allowed: {_ALLOWED}")
    if isinstance(value, Sequence | np.ndarray) and len(value) == 3:
        out = []
        for p in value:
            if not is_number(p, integer=True) or not 0 <= int(p) <= 255:
                raise ValueError(f"colour {value!r} is not valid; allowed: {_ALLOWED}")
            out.append(int(p))
        return (out[0], out[1], out[2])
    raise ValueError(f"colour {value!r} is not valid; allowed: {_ALLOWED}")


def to_hex(rgb: RGB) -> str:
    """An sRGB 0-255 triple as ``"#rrggbb"`` (lower case; `parse_colour` reads it back).

    Parameters
    ----------
    rgb : tuple of int
        sRGB 0-255.

    Returns
    -------
    str

    Examples
    --------
    >>> to_hex((178, 34, 34))
    '#b22222'
    """
    return "#{:02x}{:02x}{:02x}".format(*rgb)
