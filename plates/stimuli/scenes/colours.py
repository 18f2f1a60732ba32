"""Choosing a scene's colours in CIELAB under a minimum CIEDE2000 between every two of them.

Colours in and out are 8-bit sRGB 0-255 triples; distances are CIEDE2000 between their CIELAB values (D65, 2°),
computed by colour-science (``delta_E_CIE2000``), always on the exact 8-bit colours drawn, so
the minimum holds for the pixels and not only for an unrounded ideal. The background counts as one of the
colours: every object colour is at least ``min_delta_e`` from it too.

Three samplers, all seeded (a numpy Generator passed in):

* ``spread``: uniform random 8-bit colours, kept first-fit (a candidate is kept when it is at least
  ``min_delta_e`` from every colour kept so far): a vectorised rejection sampler over a batch of 48
  candidates (one pairwise CIEDE2000 matrix), then one fresh batch of 96. The minimum is a floor: the colours
  usually lie much further apart.
* ``tight``: the same first-fit over candidates drawn uniformly in a CIELAB ball about a random anchor colour,
  the ball growing (x1.4, five tries, colours kept from a smaller ball staying kept) until enough are kept: the colours crowd together, so the
  nearest pair sits close to ``min_delta_e`` (the difficulty control for counting and comparison).
* a named palette: one subset drawn uniformly from every subset of the eligible palette colours whose pairwise
  CIEDE2000 are all at least ``min_delta_e`` (enumerated: palettes hold 11 colours).

Feasibility: `farthest_point_bound` runs greedy farthest-point sampling from the background over the 4,096
colours of a 16-level sRGB grid; its k-th pick's distance is a minimum CIEDE2000 that k colours provably reach
on that background, and `plates.stimuli.scenes.spec.SceneSpec` refuses a larger ``min_delta_e``. When the
random samplers fall short (only near that bound), the farthest-point set itself is used and the render's stats
say so (``colour_sampler: "farthest-point"``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from plates.colour import RGB, lab_to_srgb255, srgb255_to_lab
from plates.colour.spaces import delta_e2000_lab
from plates.stimuli.scenes.palettes import get_scene_palette
from plates.validation import check_choice

__all__ = [
    "MAX_COLOURS",
    "SPACINGS",
    "ColourChoice",
    "choose_colours",
    "delta_e_lab",
    "farthest_point_bound",
    "palette_subsets",
]

MAX_COLOURS = 32  # object colours a scene may ask for
SPACINGS = ("spread", "tight")
_GREY = (119, 119, 119)  # the grid's middle grey: where the bound starts when the background is drawn too
_BATCH = 48


def delta_e_lab(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CIEDE2000 between CIELAB arrays (broadcasting), as a float64 array: `plates.colour.spaces.delta_e2000_lab`
    (colour-science's ``delta_E_CIE2000`` without the ``delta_E`` dispatch, the same values).

    Parameters
    ----------
    a, b : numpy.ndarray, shape (..., 3)
        CIELAB D65 colours, broadcast against each other.

    Returns
    -------
    numpy.ndarray of float64
        ΔE2000, the broadcast shape less the last axis.

    References
    ----------
    Sharma, Wu and Dalal (2005), Color Res. Appl. 30(1):21-30.
    """
    return np.asarray(delta_e2000_lab(a, b), dtype=np.float64)


@lru_cache(maxsize=1)
def _grid() -> tuple[np.ndarray, np.ndarray]:
    levels = np.arange(0, 256, 17)
    rgb = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), -1).reshape(-1, 3)
    lab = srgb255_to_lab(rgb)
    rgb.setflags(write=False)
    lab.setflags(write=False)
    return rgb, lab


@lru_cache(maxsize=64)
def farthest_point_bound(background: RGB | None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy farthest-point sampling in CIEDE2000 over a 16-level sRGB grid, starting from ``background``
    (sRGB 0-255; None starts from grey (119, 119, 119), itself one of the colours then).

    Returns ``(picks, bound)``: ``picks`` (MAX_COLOURS + 1, 3) sRGB 0-255 and ``bound`` (MAX_COLOURS + 1,) where
    ``bound[k]`` (k >= 1) is the minimum pairwise CIEDE2000 of the start colour and the first k picks: k object
    colours at ``min_delta_e <= bound[k]`` certainly exist on that background. ``bound[0]`` is inf.

    Parameters
    ----------
    background : tuple of 3 int or None
        The start colour, sRGB 0-255; None starts from grey (119, 119, 119).
    """
    rgb, lab = _grid()
    start = np.asarray(_GREY if background is None else background, dtype=np.float64)
    dist = delta_e_lab(srgb255_to_lab(start), lab)
    picks, bound = [start.astype(np.int64)], [np.inf]
    for _ in range(MAX_COLOURS):
        i = int(np.argmax(dist))
        picks.append(rgb[i].astype(np.int64))
        bound.append(float(dist[i]))
        dist = np.minimum(dist, delta_e_lab(lab[i], lab))
    out_p, out_b = np.stack(picks), np.minimum.accumulate(np.asarray(bound))
    out_p.setflags(write=False)
    out_b.setflags(write=False)
    return out_p, out_b


@lru_cache(maxsize=256)
def palette_subsets(palette: str, background: RGB | None, min_delta_e: float, n: int) -> tuple[tuple[str, ...], ...]:
    """Every set of ``n`` colour names of ``palette`` whose pairwise CIEDE2000 are all >= ``min_delta_e`` and
    which are all >= ``min_delta_e`` from ``background`` (sRGB 0-255; None: no background constraint).

    Parameters
    ----------
    palette : str
        A name in `SCENE_PALETTES`.
    background : tuple of 3 int or None
        sRGB 0-255; None: no background constraint.
    min_delta_e : float
        The least CIEDE2000 between any two chosen colours, and from the background.
    n : int
        Colours per set.

    Returns
    -------
    tuple of (tuple of str)
        Every such set of colour names, in the palette's order.

    Raises
    ------
    ValueError
        When ``palette`` is not in `SCENE_PALETTES`.
    """
    pal = get_scene_palette(palette)
    names = list(pal.colours)
    lab = srgb255_to_lab(np.array([pal.colours[k] for k in names]))
    ok = np.ones(len(names), dtype=bool)
    if background is not None:
        ok = delta_e_lab(srgb255_to_lab(background), lab) >= min_delta_e
    far = delta_e_lab(lab[:, None], lab[None]) >= min_delta_e
    keep = np.flatnonzero(ok)
    return tuple(
        tuple(names[i] for i in combo)
        for combo in itertools.combinations(keep.tolist(), n)
        if all(far[a, b] for a, b in itertools.combinations(combo, 2))
    )


@dataclass(frozen=True)
class ColourChoice:
    """A scene's colours: ``background`` and ``colours`` (object colours) sRGB 0-255, ``names`` (palette names
    or None each), the ``sampler`` that chose them and the achieved minimum CIEDE2000 over every pair
    (background included).

    Attributes
    ----------
    background : tuple of 3 int
        sRGB 0-255.
    colours : tuple of (tuple of 3 int)
        The object colours, sRGB 0-255.
    names : tuple of (str or None)
        Each object colour's palette name, or None.
    sampler : str
        What chose them: a spacing, ``"farthest-point"`` or ``"palette:<name>"``.
    min_delta_e : float
        The achieved minimum CIEDE2000 over every pair, background included (inf for one colour).
    """

    background: RGB
    colours: tuple[RGB, ...]
    names: tuple[str | None, ...]
    sampler: str
    min_delta_e: float


def _first_fit(lab: np.ndarray, fixed: np.ndarray, n: int, d: float) -> list[int]:
    """Indices of the first candidates (in order) at >= d from ``fixed`` and from each other, up to n."""
    ok = np.ones(len(lab), dtype=bool)
    if len(fixed):
        ok &= np.all(delta_e_lab(fixed[:, None], lab[None]) >= d, axis=0)
    far = delta_e_lab(lab[:, None], lab[None]) >= d
    chosen: list[int] = []
    while len(chosen) < n:
        free = np.flatnonzero(ok)
        if free.size == 0:
            break
        i = int(free[0])
        chosen.append(i)
        ok &= far[i]
        ok[i] = False
    return chosen


def _uniform(rng: np.random.Generator, m: int) -> np.ndarray:
    return rng.integers(0, 256, size=(m, 3))


def _ball(rng: np.random.Generator, centre: np.ndarray, radius: float, m: int) -> np.ndarray:
    """Up to m distinct 8-bit sRGB colours uniform in a CIELAB ball (those outside sRGB dropped)."""
    u = rng.normal(size=(m, 3))
    u *= (radius * rng.random(m) ** (1 / 3) / np.linalg.norm(u, axis=1))[:, None]
    srgb = lab_to_srgb255(centre + u)
    inside = np.all((srgb > -0.5) & (srgb < 255.5), axis=1)
    return np.unique(np.clip(np.rint(srgb[inside]), 0, 255).astype(np.int64), axis=0)


def _min_pairwise(rgb: np.ndarray) -> float:
    if len(rgb) < 2:
        return float("inf")
    lab = srgb255_to_lab(rgb)
    d = delta_e_lab(lab[:, None], lab[None])
    return float(np.min(d[np.triu_indices(len(rgb), 1)]))


def _random(n: int, d: float, background: RGB | None, spacing: str, rng: np.random.Generator) -> np.ndarray | None:
    """n + 1 colours (the background first) by first-fit, or None when the batches fall short."""
    fixed = np.empty((0, 3), dtype=np.int64) if background is None else np.array([background])
    need = n + (background is None)
    # CIELAB of every colour converted once, the candidates' rows kept beside them (a colour-science call costs
    # ~0.4 ms whatever its size, and a row converts bit for bit as it does alone)
    fixed_lab = srgb255_to_lab(fixed) if len(fixed) else np.empty((0, 3))
    if spacing == "spread":
        for m in (_BATCH, 2 * _BATCH):
            cand = _uniform(rng, m)
            picked = _first_fit(srgb255_to_lab(cand), fixed_lab, need, d)
            if len(picked) == need:
                return np.concatenate([fixed, cand[picked]])
        return None
    # tight: an anchor at >= d from the background, then candidates crowding about it
    first = None
    for _ in range(4):
        cand = _uniform(rng, _BATCH)
        cand_lab = srgb255_to_lab(cand)
        picked = _first_fit(cand_lab, fixed_lab, 1, d)
        if picked:
            first, first_lab = cand[picked[0]], cand_lab[picked[0]]
            break
    if first is None:
        return None
    # grow the ball until enough colours are kept; colours kept from a smaller ball stay kept
    kept, kept_lab = [first], [first_lab]
    radius = d * (1.0 + 0.6 * need ** (1 / 3))
    for _ in range(5):
        ball = _ball(rng, first_lab, radius, 64)
        ball_lab = srgb255_to_lab(ball)
        picked = _first_fit(ball_lab, np.concatenate([fixed_lab, np.array(kept_lab)]), need - len(kept), d)
        kept.extend(ball[picked])
        kept_lab.extend(ball_lab[picked])
        if len(kept) == need:
            return np.concatenate([fixed, np.array(kept)])
        radius *= 1.4
    return None


def choose_colours(
    n: int, min_delta_e: float, background: RGB | None, rng: np.random.Generator, *, spacing: str = "spread",
    palette: str | None = None,
) -> ColourChoice:
    """``n`` object colours (and the background when ``background`` is None) at pairwise CIEDE2000 >=
    ``min_delta_e``, chosen with ``rng`` (see the module docstring). sRGB 0-255 throughout.

    Parameters
    ----------
    n : int
        Object colours to choose (0: the background alone).
    min_delta_e : float
        The least CIEDE2000 between any two colours, background included.
    background : tuple of 3 int or None
        sRGB 0-255; None draws it too.
    rng : numpy.random.Generator
        Every random number.
    spacing : str, optional
        A name in `SPACINGS` (default ``"spread"``); ignored with a palette.
    palette : str or None, optional
        Choose named colours of this scene palette instead.

    Returns
    -------
    ColourChoice
        The colours and how they were chosen.

    Raises
    ------
    ValueError
        For an unknown ``spacing`` or ``palette``, or a palette with no ``n`` colours that far apart.

    References
    ----------
    Liang et al., ColorBench, Table 7 (the tasks the scenes serve).
    """
    if palette is not None:
        pal = get_scene_palette(palette)
        subsets = palette_subsets(palette, background, float(min_delta_e), n + (background is None))
        if not subsets:
            raise ValueError(f"palette {palette!r} has no {n} colours at CIEDE2000 >= {min_delta_e} apart")
        names = list(subsets[int(rng.integers(len(subsets)))])
        rng.shuffle(names)
        bg = pal.colours[names.pop(0)] if background is None else background
        rgb = np.array([bg, *(pal.colours[k] for k in names)])
        return ColourChoice(bg, tuple(pal.colours[k] for k in names), tuple(names),
                            f"palette:{palette}", _min_pairwise(rgb))
    check_choice("spacing", spacing, SPACINGS)
    if n == 0:  # a single-colour image: the background alone (drawn when not given)
        rgb = np.array([background]) if background is not None else _uniform(rng, 1)
        return ColourChoice(tuple(int(v) for v in rgb[0]), (), (), spacing, float("inf"))  # type: ignore[arg-type]
    rgb = _random(n, float(min_delta_e), background, spacing, rng)
    sampler = spacing
    if rgb is None:
        picks, _ = farthest_point_bound(background)
        rgb = picks[: n + 1].copy()
        if background is None:  # any member may be the background: draw which
            rng.shuffle(rgb)
        sampler = "farthest-point"
    bg = tuple(int(v) for v in rgb[0])
    cols = tuple(tuple(int(v) for v in c) for c in rgb[1:])
    return ColourChoice(bg, cols, (None,) * len(cols), sampler, _min_pairwise(rgb))  # type: ignore[arg-type]
