"""Colour codes as ColorBench's Colour Extraction options show them, and distractor colours at a set CIEDE2000.

ColorBench Table 7 (Colour Extraction): "What is the HSV value of the given color in the image?" / "... RGB
value ...", options are colour codes (its Figures 7, 49, 63). The print formats below are ours (the paper's
figures are images): RGB ``(34, 139, 34)``, HEX ``#228B22``, HSV ``(120°, 76%, 55%)`` (hue in whole degrees,
saturation and value in whole percent, from colour-science's ``RGB_to_HSV`` on sRGB 0-1).

Input colours are sRGB 0-255 triples.
"""

from __future__ import annotations

import numpy as np

from plates.colour import lab_to_srgb255, srgb255_to_lab
from plates.colour.spaces import colour_science
from plates.validation import check_number, not_known

__all__ = ["CODE_FORMATS", "CODE_NAMES", "distractor_colours", "format_code", "format_codes"]

CODE_FORMATS = ("rgb", "hsv", "hex")
#: How the question names each code ("What is the RGB value ...").
CODE_NAMES = {"rgb": "RGB", "hsv": "HSV", "hex": "HEX"}


def format_codes(rgb, fmt: str) -> list[str]:
    """Colours (n, 3) sRGB 0-255 printed as options in ``fmt`` (rgb / hsv / hex).

    Parameters
    ----------
    rgb : array_like, shape (n, 3) or (3,)
        sRGB 0-255 colours, read as integers.
    fmt : str
        One of `CODE_FORMATS`.

    Returns
    -------
    list of str
        One code per colour, as in the module docstring.

    Raises
    ------
    ValueError
        An unknown ``fmt``.
    """
    arr = np.asarray(rgb, dtype=np.int64).reshape(-1, 3)
    if fmt == "rgb":
        return [f"({r}, {g}, {b})" for r, g, b in arr.tolist()]
    if fmt == "hex":
        return [f"#{r:02X}{g:02X}{b:02X}" for r, g, b in arr.tolist()]
    if fmt == "hsv":
        hsv = np.atleast_2d(colour_science().RGB_to_HSV(arr / 255.0))
        return [f"({round(h * 360) % 360}°, {round(s * 100)}%, {round(v * 100)}%)" for h, s, v in hsv.tolist()]
    raise not_known("colour code format", fmt, CODE_FORMATS)


def format_code(rgb, fmt: str) -> str:
    """``rgb`` (sRGB 0-255) printed as an option in ``fmt`` (rgb / hsv / hex).

    Parameters
    ----------
    rgb : array_like, shape (3,)
        One sRGB 0-255 colour.
    fmt : str
        One of `CODE_FORMATS`.

    Returns
    -------
    str
        Its code.

    Raises
    ------
    ValueError
        An unknown ``fmt``.
    """
    return format_codes([rgb], fmt)[0]


#: Steps along each direction in `distractor_colours`, all measured in one CIEDE2000 call (a 30-step
#: bisection before, one call per halving: 57% of a ColorBench preset's time went to bisecting to 1e-7 CIELAB
#: units a colour then rounded to 8 bits).
RAY_STEPS = 96


def _de(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray(colour_science().delta_E(a, b, method="CIE 2000"), dtype=np.float64)


def distractor_colours(
    rgb, delta_e: float, n: int, rng: np.random.Generator, *, tolerance: float = 1.0, fmt: str = "rgb"
) -> list[tuple[int, int, int]]:
    """``n`` 8-bit sRGB colours, each at CIEDE2000 ``delta_e`` (within ``tolerance``, after rounding to 8-bit)
    from ``rgb`` (sRGB 0-255) and at least ``delta_e / 2`` from each other, whose ``fmt`` codes all differ.

    Directions are uniform in CIELAB (48 at a time); along each, CIEDE2000 is measured at `RAY_STEPS` + 1
    even steps out to 4 x delta_e + 10 CIELAB units (ΔE2000 grows slower than Euclidean distance) in one
    vectorised call, and the distance giving ``delta_e`` is interpolated linearly inside the first step that
    reaches it (steps of at most 2.6 units, where ΔE2000 is near linear: the error is far below the 8-bit
    rounding that follows); directions that never reach it are dropped. The points are rounded to 8-bit,
    out-of-gamut points dropped, and the survivors kept first-fit. ValueError when ``delta_e`` cannot be reached
    from ``rgb`` inside sRGB in enough directions.

    Parameters
    ----------
    rgb : array_like, shape (3,)
        The correct colour, sRGB 0-255.
    delta_e : float
        The CIEDE2000 distance wanted, 0.5-60.
    n : int
        Distractors wanted.
    rng : numpy.random.Generator
        Draws the directions.
    tolerance : float, optional
        How far (CIEDE2000) a rounded distractor may be from ``delta_e``.
    fmt : str, optional
        The code format whose codes must all differ (one of `CODE_FORMATS`).

    Returns
    -------
    list of (int, int, int)
        The distractors, sRGB 0-255.

    Raises
    ------
    ValueError
        ``delta_e`` outside 0.5-60, an unknown ``fmt``, or fewer than ``n`` colours found in 8 rounds of 48
        directions.
    """
    check_number("delta_e", delta_e, 0.5, 60)  # CIEDE2000
    centre = srgb255_to_lab(np.asarray(rgb, dtype=np.float64))
    code = format_code(rgb, fmt)
    kept: list[np.ndarray] = []
    for _ in range(8):
        u = rng.normal(size=(48, 3))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        t = np.linspace(0.0, 4.0 * delta_e + 10.0, RAY_STEPS + 1)  # CIELAB units along each direction
        de = _de(centre, centre + t[None, :, None] * u[:, None, :])  # (48, steps + 1); de[:, 0] = 0
        reach = de >= delta_e
        rows = np.flatnonzero(reach.any(axis=1))
        i = np.argmax(reach[rows], axis=1)  # the first step at or past delta_e (>= 1)
        d0, d1 = de[rows, i - 1], de[rows, i]
        dist = t[i - 1] + (delta_e - d0) / (d1 - d0) * (t[i] - t[i - 1])
        srgb = lab_to_srgb255(centre + dist[:, None] * u[rows])
        inside = np.all((srgb > -0.5) & (srgb < 255.5), axis=1)
        cand = np.clip(np.rint(srgb[inside]), 0, 255).astype(np.int64)
        if not len(cand):
            continue
        cand = cand[np.abs(_de(centre, srgb255_to_lab(cand)) - delta_e) <= tolerance]
        if not len(cand):
            continue
        pool = np.concatenate([np.array(kept).reshape(-1, 3), cand])  # kept first: first-fit continues
        lab = srgb255_to_lab(pool)
        far = _de(lab[:, None], lab[None]) >= delta_e / 2
        codes = format_codes(pool, fmt)
        chosen = list(range(len(kept)))
        seen = {code, *(codes[i] for i in chosen)}
        for i in range(len(kept), len(pool)):
            if codes[i] not in seen and all(far[i, j] for j in chosen):
                chosen.append(i)
                seen.add(codes[i])
                if len(chosen) == n:
                    return [tuple(int(v) for v in pool[j]) for j in chosen]
        kept = [pool[j] for j in chosen]
    raise ValueError(
        f"only {len(kept)} of {n} colours at CIEDE2000 {delta_e:g} from {tuple(int(v) for v in rgb)} fit inside sRGB; "
        "allowed: a smaller delta_e or fewer options"
    )
