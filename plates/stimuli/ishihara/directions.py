"""Directions around the foreground in CIELAB: the background colour of each trial of a sweep or staircase is
drawn at the requested ΔE2000 along a direction drawn per trial, so a threshold describes a colour
DIFFERENCE and not the one 8-bit background colour a level happened to get.

Why: a reader whose accuracy follows one colour rather than ΔE2000 was always right at 3.3 and mostly wrong at
3.4 ΔE2000 on one palette line, and a staircase over that line converged on a threshold with an interval far
too narrow. Neither paper varied the direction: ColorBlindnessEval (App. D) draws plates from fixed colour
sets, HueManity (§3, Table 7) from 25 fixed foreground/background pairs; each level of their data is one
colour pair. Here each trial's direction is uniform on the unit sphere of CIELAB (ΔL*, Δa*, Δb*), D65 2°,
drawn from ``SeedSequence((seed, 0xD1))`` (the trial's seed), and kept only when the background it gives,
rounded to 8-bit sRGB, lies within `TOLERANCE` ΔE2000 of the request (a direction that leaves sRGB first, or
whose 8-bit colours miss the request, is skipped for the next draw): every trial of a level is at that level
as drawn. Directions the gamut cuts short (large ΔE2000 from a colour near the sRGB boundary) are drawn less
often: the distribution is uniform over the directions that reach the level.
"""

from __future__ import annotations

import numpy as np

from plates import colour as C
from plates.stimuli.ishihara.plate import PlateSpec
from plates.validation import check_int

__all__ = ["DIRECTION_MODES", "TOLERANCE", "drawn_delta_e", "random_direction", "with_direction"]

#: How a sweep or staircase sets each trial's background: "distributed" (a direction drawn per trial, this
#: module) or "palette" (the palette's own CIELAB lines, `PlateSpec.delta_e` alone: one colour per level).
DIRECTION_MODES = ("distributed", "palette")
#: Largest |drawn − requested| ΔE2000 of a trial's background (foreground reference vs the 8-bit background).
TOLERANCE = 0.05
_TRIES = 200
_STREAM = 0xD1


def random_direction(rng: np.random.Generator) -> tuple[float, float, float]:
    """A direction uniform on the unit sphere of CIELAB (ΔL*, Δa*, Δb*): three normal draws, normalised.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws three standard normals per try (again when their norm is under 1e-6).

    Returns
    -------
    tuple of 3 float
        A unit vector (ΔL*, Δa*, Δb*).
    """
    while True:
        v = rng.standard_normal(3)
        norm = float(np.linalg.norm(v))
        if norm > 1e-6:
            return tuple(float(c) for c in v / norm)  # type: ignore[return-value]


def drawn_delta_e(spec: PlateSpec) -> float:
    """ΔE2000 (CIEDE2000, CIELAB D65 2°) between the foreground reference and the first background colour as
    drawn in 8 bits, before jitter: the level a trial of a sweep or staircase has.

    Parameters
    ----------
    spec : PlateSpec
        The plate's spec.

    Returns
    -------
    float
        ΔE2000 between `PlateSpec.foreground_reference` and the first background colour, both sRGB 0-255.
    """
    fg, bg = spec.colours
    ref = np.array(spec.foreground_reference(fg), dtype=float)
    return float(C.delta_e2000(ref, np.array(bg[0], dtype=float)))


def with_direction(spec: PlateSpec, delta_e: float, seed: int) -> PlateSpec:
    """``spec`` at ``delta_e`` ΔE2000 along a direction drawn from ``seed`` (module docstring): the first
    draw whose 8-bit background lies within `TOLERANCE` of ``delta_e``. ValueError when none of 200 draws
    does (a level no direction reaches from this foreground).

    Parameters
    ----------
    spec : PlateSpec
        The plate's spec (its own ``delta_e`` and direction are replaced).
    delta_e : float
        The requested CIEDE2000 from the foreground reference.
    seed : int
        Seeds the directions drawn (>= 0).

    Returns
    -------
    PlateSpec
        ``spec`` with ``delta_e`` and ``delta_e_direction`` set.

    Raises
    ------
    ValueError
        When ``seed`` is not an integer >= 0, or no direction drawn reaches ``delta_e`` within `TOLERANCE`.

    References
    ----------
    HueManity §3 (foreground-background pairs at a CIEDE2000 difference); Sharma et al. (2005) for ΔE2000.
    """
    check_int("seed", seed, 0)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence((int(seed), _STREAM))))
    ref = spec.foreground_reference(spec.replace(delta_e=None, delta_e_direction=None).colours[0])
    for _ in range(_TRIES):
        direction = random_direction(rng)
        try:
            background = C.colour_at_delta_e(ref, direction, float(delta_e))
        except ValueError:  # this direction leaves sRGB before delta_e
            continue
        drawn = float(C.delta_e2000(np.array(ref, dtype=float), np.array(background, dtype=float)))
        if abs(drawn - float(delta_e)) <= TOLERANCE:
            return spec.replace(delta_e=float(delta_e), delta_e_direction=direction)
    raise ValueError(f"delta_e {delta_e} is not reachable within {TOLERANCE} ΔE2000 in 8-bit sRGB along any of "
                     f"{_TRIES} directions drawn around the foreground {C.to_hex(spec.foreground_reference(spec.colours[0]))}; "
                     "allowed: a smaller delta_e")
