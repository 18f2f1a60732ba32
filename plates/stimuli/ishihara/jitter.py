"""Per-dot colour jitter: HueManity §3's three transforms, under two rules.

HueManity §3: "This initial color then undergoes three randomized transformations: a gradient shift towards
the other color, an RGB color shift (range [-30, +30]), and an RGB lightness scaling (factor 0.66 - 1.5)".

* ``keep-hue`` (this project's rule, the default): shift a uniform fraction U(0, jitter_shift) of the way to the
  other class's colour, add U(-j, j) per channel, scale by e^U(-s, s) capped so that no channel clips (hue
  kept), round; with ``allow_extremes`` False no channel leaves 8-247 unless the palette colour already does.
* ``released-code``: what HueManity's released generator does (its ``gradientshift``, ``colorschwift`` and
  ``lightschwift``, from github.com/hakrackete/Ishihara-color-plate-generator): the shift truncated to whole
  units, an *integer* shift in [-j, j] per channel clipped to 0-255, a lightness factor drawn *linearly* from
  [e^-s, e^s] (0.667-1.5 for s = ln 1.5; mean 1.08, so plates brighten on average) with every channel
  truncated and clipped at 255: bright colours saturate and change hue, and some dots turn near-white
  (HueManity's released plates: 26% of dots have a channel at 255, 1.2% are near white). The paper's text
  states the ranges but not the clipping; the released dataset, which its tables measured, has it.
  ``allow_extremes`` False still keeps channels within 8-247 afterwards (the HueManity presets allow them).

Colours: float (n, 3) sRGB 0-255 in, uint8 (n, 3) sRGB 0-255 out.
"""

from __future__ import annotations

import math

import numpy as np

from plates.validation import check_choice, check_number

__all__ = ["HUEMANITY_JITTER", "JITTER_RULES", "huemanity_jitter", "jitter"]

#: HueManity §3's jitter in PlateSpec units: shift up to 0.3 of the way to the other colour, RGB +-30,
#: lightness factor range e^(+-s) with s = ln 1.5 (0.667-1.5).
HUEMANITY_JITTER = {"jitter_shift": 0.3, "jitter_rgb": 30.0, "jitter_lightness": math.log(1.5)}
JITTER_RULES = ("keep-hue", "released-code")
EXTREME_LO, EXTREME_HI = 8, 247  # jitter may not push a channel past these unless allow_extremes


def huemanity_jitter(amount: float) -> dict[str, float]:
    """PlateSpec's jitter fields at ``amount`` (0-1) of HueManity §3's jitter (`HUEMANITY_JITTER`): 0 none (every
    dot of a class one colour), 1 the paper's. A ValueError names a value outside 0-1.

    Parameters
    ----------
    amount : float
        0 (no jitter) to 1 (HueManity's).

    Returns
    -------
    dict of str to float
        ``jitter_shift``, ``jitter_rgb`` and ``jitter_lightness`` values for a `PlateSpec`.

    Raises
    ------
    ValueError
        When ``amount`` is not a number in 0-1.

    References
    ----------
    HueManity §3 (the released generator's colour jitter).
    """
    amount = check_number("jitter", amount, 0.0, 1.0)
    return {k: v * amount for k, v in HUEMANITY_JITTER.items()}


def jitter(base: np.ndarray, other: np.ndarray, rng: np.random.Generator, *, shift: float, rgb: float,
           lightness: float, rule: str = "keep-hue", allow_extremes: bool = False) -> np.ndarray:
    """Jitter (n, 3) float sRGB 0-255 colours ``base`` (``other``: each dot's colour of the other class);
    returns uint8 (n, 3) sRGB 0-255. Draws, in order: the shift fractions (n,), the RGB shifts (n, 3), the
    lightness draws (n,) from ``rng``.

    Parameters
    ----------
    base : numpy.ndarray of float, shape (n, 3)
        Each dot's colour before jitter, sRGB 0-255.
    other : numpy.ndarray of float, shape (n, 3)
        Each dot's colour of the other class, sRGB 0-255 (the gradient shift moves towards it).
    rng : numpy.random.Generator
        The random stream.
    shift : float
        The largest fraction of the way towards ``other`` (0-1).
    rgb : float
        The largest shift per channel, sRGB 0-255 levels.
    lightness : float
        The largest log factor on every channel.
    rule : str, optional
        ``"keep-hue"`` (the default: scaled without clipping) or HueManity's integer rule; one of `JITTER_RULES`.
    allow_extremes : bool, optional
        Let channels pass the extremes (`EXTREME_LO`, `EXTREME_HI`) that the base colour does not.

    Returns
    -------
    numpy.ndarray of uint8, shape (n, 3)
        sRGB 0-255.

    Raises
    ------
    ValueError
        When ``rule`` is not one of `JITTER_RULES`.

    References
    ----------
    HueManity §3 and its released generator (gradient shift, colour shift, light shift).
    """
    check_choice("jitter rule", rule, JITTER_RULES)
    n = base.shape[0]
    t = rng.random(n) * shift
    if rule == "keep-hue":
        dv = rng.uniform(-1.0, 1.0, size=(n, 3)) * rgb
        logf = rng.uniform(-1.0, 1.0, size=n) * lightness
        col = base + t[:, None] * (other - base)  # gradient shift towards the other class's colour
        col = col + dv  # RGB shift
        f = np.exp(logf)
        top = col.max(axis=1)
        f = np.where(f > 1.0, np.minimum(f, 255.0 / np.maximum(top, 1e-9)), f)  # brighten without clipping
        col = col * np.maximum(f, 0.0)[:, None]
    else:
        j = round(rgb)
        dv = rng.integers(-j, j + 1, size=(n, 3))
        f = rng.uniform(math.exp(-lightness), math.exp(lightness), size=n)
        col = np.trunc(base - (base - other) * t[:, None])  # gradientshift: int(first - difference * g)
        col = np.clip(col + dv, 0, 255)  # colorschwift: randint(c - j, c + j), clipped to 0-255
        col = np.trunc(np.minimum(255.0, col * f[:, None]))  # lightschwift: int(min(255, c * factor))
    if not allow_extremes:
        col = np.clip(col, np.minimum(base, EXTREME_LO), np.maximum(base, EXTREME_HI))
    return np.clip(np.rint(col), 0, 255).astype(np.uint8)
