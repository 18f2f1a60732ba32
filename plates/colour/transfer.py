"""The sRGB transfer function (IEC 61966-2-1): sRGB 0-255 <-> linear RGB 0-1, in plain numpy.

The one home of the piecewise curve (a linear toe below 0.04045 encoded / 0.0031308 linear, a 2.4 power above).
It is written here rather than called from colour-science (``colour.models.eotf_sRGB`` /
``eotf_inverse_sRGB``) because the simulated observer and the ellipse runs evaluate it per trial and per
plate, where colour-science's domain-range handling costs up to five times the arithmetic on small arrays
(``bench/bench_transfer.py``), and because importing colour-science costs ~0.5 s or more that these paths
otherwise avoid. The results are bit-identical to colour-science's on every 8-bit code, on fractional codes
and on linear values (checked in ``tests/colour/test_transfer.py``), so stored levels and resumed runs do not
move. One difference: the decoding switches to the power segment above 0.04045 as the standard writes it,
colour-science above 12.92 x 0.0031308 = 0.0404499; inputs in that gap (sRGB 10.3147-10.3148 on the 0-255
scale, no 8-bit code) differ by under 3e-9.
"""

from __future__ import annotations

import numpy as np

__all__ = ["linear_to_srgb255", "srgb255_to_linear"]


def srgb255_to_linear(rgb) -> np.ndarray:
    """sRGB 0-255 -> linear RGB 0-1 (the IEC 61966-2-1 decoding, the EOTF).

    Parameters
    ----------
    rgb : array_like
        Gamma-encoded sRGB 0-255, any shape and numeric type; floats (for example a mean) are taken as they are.

    Returns
    -------
    numpy.ndarray of float64
        Linear RGB 0-1, the same shape.

    References
    ----------
    IEC 61966-2-1:1999, §5.2 (the sRGB transfer function); colour-science's ``colour.models.eotf_sRGB``.

    Examples
    --------
    >>> srgb255_to_linear([0, 128, 255]).round(7).tolist()
    [0.0, 0.2158605, 1.0]
    """
    c = np.asarray(rgb, dtype=float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb255(linear) -> np.ndarray:
    """Linear RGB 0-1 -> sRGB 0-255 as floats, not rounded (the IEC 61966-2-1 encoding, the inverse EOTF).

    Parameters
    ----------
    linear : array_like
        Linear RGB 0-1, any shape; values at or below 0 take the linear toe (negative stays negative), values
        above 1 encode above 255 (callers round and clip).

    Returns
    -------
    numpy.ndarray of float64
        Gamma-encoded sRGB 0-255, the same shape.

    References
    ----------
    IEC 61966-2-1:1999, §5.3 (the sRGB transfer function); colour-science's ``colour.models.eotf_inverse_sRGB``.

    Examples
    --------
    >>> linear_to_srgb255([0.0, 0.2158605, 1.0]).round(3).tolist()
    [0.0, 128.0, 255.0]
    """
    lin = np.asarray(linear, dtype=float)
    c = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * np.power(np.maximum(lin, 0), 1 / 2.4) - 0.055)
    return c * 255.0
