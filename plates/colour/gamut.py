"""The gamut search behind every ΔE2000 control: a colour at a given CIEDE2000 from another, inside sRGB.

Colours are sRGB 0-255 in and out; the search runs along straight lines in CIELAB (D65, 2°).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from plates.colour.spaces import RGB, delta_e2000_lab, lab_to_srgb255, parse_colour, srgb255_to_lab, to_hex
from plates.validation import check_number

__all__ = ["background_at_delta_e", "colour_at_delta_e", "max_delta_e_along"]


def _in_gamut(lab: np.ndarray, tol: float = 4e-4) -> np.ndarray:
    """True where CIELAB ``lab`` lies inside sRGB 0-1 within ``tol``. colour-science's sRGB -> CIELAB -> sRGB
    round trip is off by up to ~3e-4 at the gamut edges (pure blue comes back at 1.0003), so the tolerance
    sits just above that (a wider one lets a ray run past black: cyan -> black would overstate its reach)."""
    s = lab_to_srgb255(lab) / 255.0
    return np.all((s >= -tol) & (s <= 1 + tol), axis=-1)


def bisect(keep_lo, lo: float, hi: float, steps: int, depth: int = 8) -> tuple[float, float]:
    """``steps`` rounds of bisection, ``mid = (lo + hi) / 2`` then ``lo = mid`` where ``keep_lo(mid)`` else
    ``hi = mid``; the final (lo, hi).

    ``keep_lo`` takes an array of midpoints and answers for each. Each call asks it about the whole binary tree of
    the next ``depth`` midpoints (2**depth - 1 of them), computed with the loop's own float operations, then
    walks the tree: the same (lo, hi) as the one-at-a-time loop in ceil(steps / depth) calls instead of
    ``steps`` (a colour-science call costs about the same whatever its size; figures on docs/benchmarks.md).

    Parameters
    ----------
    keep_lo : callable
        Midpoints (array) -> booleans (array): True keeps the lower bound at the midpoint.
    lo, hi : float
        The bracket.
    steps : int
        Rounds (>= 0).
    depth : int, optional
        Levels of midpoints asked per call (>= 1).

    Returns
    -------
    (float, float)
        The final bracket.

    Raises
    ------
    ValueError
        For ``steps`` < 0 or ``depth`` < 1.
    """
    if steps < 0 or depth < 1:
        raise ValueError(f"bisect needs steps >= 0 and depth >= 1, got steps={steps}, depth={depth}")
    while steps > 0:
        d = min(depth, steps)
        levels: list[list[float]] = []
        los, his = [lo], [hi]
        for _ in range(d):
            mids = [(a + b) / 2 for a, b in zip(los, his)]
            levels.append(mids)
            # node j's children at the next level: 2j when keep_lo (mid, hi), 2j + 1 otherwise (lo, mid)
            los = [x for a, m in zip(los, mids) for x in (m, a)]
            his = [x for b, m in zip(his, mids) for x in (b, m)]
        answers = np.asarray(keep_lo(np.array([m for mids in levels for m in mids])), dtype=bool)
        node = start = 0
        for mids in levels:
            if answers[start + node]:
                lo, node = mids[node], 2 * node
            else:
                hi, node = mids[node], 2 * node + 1
            start += len(mids)
        steps -= d
    return lo, hi


@lru_cache(maxsize=4096)
def _ray(fg: RGB, direction: RGB) -> tuple[np.ndarray, np.ndarray, float]:
    """CIELAB start point, unit-free step (direction - fg) and the largest in-gamut t along the ray."""
    if fg == direction:
        raise ValueError(
            f"background direction {direction!r} equals the foreground {fg!r}; allowed: any other sRGB colour"
        )
    p0 = srgb255_to_lab(fg)
    return _lab_ray(fg, tuple(float(v) for v in srgb255_to_lab(direction) - p0))


@lru_cache(maxsize=4096)
def _lab_ray(fg: RGB, step: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray, float]:
    """`_ray` along a CIELAB step (ΔL*, Δa*, Δb*) from ``fg``: start point, step, largest in-gamut t."""
    p0 = srgb255_to_lab(fg)
    v = np.asarray(step, dtype=float)
    ts = np.linspace(0.0, 8.0, 801)
    ok = _in_gamut(p0 + ts[:, None] * v)
    bad = np.flatnonzero(~ok)
    if bad.size and bad[0] == 0:  # the start itself is an sRGB colour: only a broken round trip gets here
        raise RuntimeError(f"sRGB colour {fg!r} tests out of the sRGB gamut after the CIELAB round trip")
    hi = ts[bad[0]] if bad.size else ts[-1]
    lo = ts[bad[0] - 1] if bad.size else ts[-1]
    lo, _ = bisect(lambda t: _in_gamut(p0 + t[:, None] * v), lo, hi, steps=40)  # the gamut exit
    return p0, v, float(lo)


def _rgb_at(p0: np.ndarray, v: np.ndarray, t: float) -> np.ndarray:
    return np.clip(lab_to_srgb255(p0 + t * v), 0, 255)


def max_delta_e_along(fg_rgb, bg_direction_rgb) -> float:
    """The largest ΔE2000 from a colour reachable in sRGB along the CIELAB ray towards another.

    Parameters
    ----------
    fg_rgb, bg_direction_rgb : sequence of int
        sRGB 0-255: the start of the ray and a colour it passes through (CIELAB D65 / 2°).

    Returns
    -------
    float
        CIEDE2000 between ``fg_rgb`` and the point where the ray leaves the sRGB gamut.

    Examples
    --------
    >>> round(max_delta_e_along((178, 34, 34), (143, 188, 143)), 2)  # brick red towards sage
    79.74
    """
    fg, d = parse_colour(fg_rgb), parse_colour(bg_direction_rgb)
    p0, v, tmax = _ray(fg, d)
    ts = np.linspace(0, tmax, 257)
    de = delta_e2000_lab(p0, p0 + ts[:, None] * v)
    return float(np.max(de))


def background_at_delta_e(fg_rgb, bg_direction_rgb, target: float) -> RGB:
    """A background colour at CIEDE2000 ``target`` from the foreground, on the line from it towards a direction.

    The candidate moves along the straight CIELAB line from the foreground through ``bg_direction_rgb`` (and
    beyond it, up to the sRGB gamut boundary); the first point whose ΔE2000 equals ``target`` is found by
    bisection, rounded to 8-bit sRGB, and the rounded colour is then nudged by ±1 per channel when that brings
    it closer.

    Parameters
    ----------
    fg_rgb, bg_direction_rgb : sequence of int
        sRGB 0-255: the foreground, and a colour on the line the background moves along.
    target : float
        The CIEDE2000 wanted, > 0.

    Returns
    -------
    tuple of int
        The background, sRGB 0-255, within 0.5 ΔE2000 of ``target``.

    Raises
    ------
    ValueError
        ``target`` not positive, or larger than the largest ΔE2000 reachable inside sRGB along that line (the
        message states that maximum, `max_delta_e_along`).

    References
    ----------
    HueManity §3 (foreground-background pairs at a CIEDE2000 difference); Sharma et al. (2005) for ΔE2000.

    Examples
    --------
    >>> background_at_delta_e((178, 34, 34), (143, 188, 143), 12.0)
    (179, 90, 63)
    """
    fg, d = parse_colour(fg_rgb), parse_colour(bg_direction_rgb)
    _check_target(target)
    return _background_at(fg, d, target)


@lru_cache(maxsize=4096)
def _background_at(fg: RGB, d: RGB, target: float) -> RGB:
    """`background_at_delta_e` of parsed colours, memoised: its search makes ~80 colour-science calls (their cost:
    docs/benchmarks.md), and a set's plates (one per label and colour set) or an explorer's ΔE2000 slider ask the same few (colour,
    direction, target) again and again. A failed search raises each time (exceptions are not cached)."""
    return _along(fg, *_ray(fg, d), target, f"towards {to_hex(d)}")


def colour_at_delta_e(fg_rgb, direction_lab, target: float) -> RGB:
    """A colour at CIEDE2000 ``target`` from ``fg_rgb`` along a CIELAB direction.

    The search is that of `background_at_delta_e` (the first point on the ray at ``target``, rounded to 8-bit
    sRGB, the closest of its 27 neighbours kept) along ``fg + t * direction`` instead of the line towards a
    second colour.

    Parameters
    ----------
    fg_rgb : sequence of int
        The start, sRGB 0-255.
    direction_lab : sequence of float
        (``ΔL*``, ``Δa*``, ``Δb*``) in CIELAB (D65, 2°), any length but not zero.
    target : float
        The CIEDE2000 wanted, > 0.

    Returns
    -------
    tuple of int
        sRGB 0-255, within 0.5 ΔE2000 of ``target``.

    Raises
    ------
    ValueError
        ``target`` not positive, a zero direction, or a ray that leaves sRGB before ``target`` (the message
        names the largest reachable ΔE2000).

    Examples
    --------
    >>> colour_at_delta_e((128, 128, 128), (0, 0, 1), 5.0)  # grey towards yellow (+b*)
    (132, 127, 118)
    """
    fg = parse_colour(fg_rgb)
    _check_target(target)
    try:
        v = tuple(float(c) for c in direction_lab)
    except (TypeError, ValueError):
        raise ValueError(f"direction {direction_lab!r} is not valid; allowed: three numbers (ΔL*, Δa*, Δb*)") from None
    if len(v) != 3 or not np.all(np.isfinite(v)) or not np.any(v):
        raise ValueError(f"direction {direction_lab!r} is not valid; allowed: three finite numbers (ΔL*, Δa*, "
                         "Δb*), not all zero")
    scale = 100.0 / float(np.linalg.norm(v))  # 100 CIELAB units per step: the ray's search spans 0-800 units
    step = tuple(float(c) * scale for c in v)
    return _colour_along(fg, step, tuple(v), target)


@lru_cache(maxsize=4096)
def _colour_along(fg: RGB, step: tuple[float, float, float], v: tuple[float, ...], target: float) -> RGB:
    """`colour_at_delta_e` of a parsed colour and scaled step (``v``: the direction as given, for the message),
    memoised like `_background_at`."""
    return _along(fg, *_lab_ray(fg, step), target, f"along CIELAB direction {tuple(round(c, 3) for c in v)}")


def _check_target(target) -> None:
    check_number("delta_e target", target, 0, open=True, note=" (CIEDE2000)")


def _along(fg: RGB, p0: np.ndarray, v: np.ndarray, tmax: float, target: float, where: str) -> RGB:
    """The 8-bit colour at ΔE2000 ``target`` from ``fg`` on the ray ``p0 + t v``, 0 <= t <= tmax."""
    ts = np.linspace(0, tmax, 257)
    de = delta_e2000_lab(p0, p0 + ts[:, None] * v)
    reach = float(np.max(de))
    if target > reach + 0.25:
        raise ValueError(
            f"delta_e target {target} is not reachable in sRGB from foreground {to_hex(fg)} {where}; "
            f"allowed: 0 < delta_e <= {reach:.2f} (the largest CIEDE2000 along that line)"
        )
    above = np.flatnonzero(de >= target)
    if above.size == 0:
        t = float(ts[int(np.argmax(de))])
    else:
        k = int(above[0])
        lo, hi = float(ts[max(k - 1, 0)]), float(ts[k])
        _, t = bisect(lambda m: delta_e2000_lab(p0, p0 + m[:, None] * v) < target, lo, hi, steps=50)
    best = np.rint(_rgb_at(p0, v, t)).astype(int)
    # 8-bit rounding can move ΔE by a few tenths: try the 27 neighbours and keep the closest
    offs = np.array([(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)])
    cands = np.clip(best[None, :] + offs, 0, 255)
    errs = np.abs(delta_e2000_lab(p0, srgb255_to_lab(cands)) - target)
    pick = cands[int(np.argmin(errs))]
    if float(np.min(errs)) > 0.5:
        raise ValueError(
            f"delta_e target {target} cannot be met within 0.5 by an 8-bit sRGB colour from {to_hex(fg)} {where}; "
            f"allowed: 0 < delta_e <= {reach:.2f}"
        )
    return (int(pick[0]), int(pick[1]), int(pick[2]))
