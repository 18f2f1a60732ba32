"""ΔE2000 measured on what a plate draws, beside the value the spec asked for.

A plate's nominal ΔE (`PlateStats.delta_e`) is the mean CIEDE2000 over the palette's (foreground, background)
colour pairs before jitter. What a reader sees differs in two ways:

* **Jitter** (HueManity §3: shift towards the other class, RGB ±30, lightness ×0.67-1.5) gives every dot its
  own colour: at a nominal ΔE2000 of 2 the drawn (foreground dot, background dot) pairs spread from ~0 to ~26.
* **Multi-colour sets** (ColorBlindnessEval App. D): a ``delta_e`` request places each background colour at
  that ΔE2000 from the *CIELAB mean of the foreground colours* (`PlateSpec.foreground_reference`), a colour
  that is never drawn; the drawn pairs are all further apart or nearer. `target_kind` says which quantity a
  spec's request targets, and `target_smallest_pair` offers the alternative: a spec whose *smallest* drawn
  (foreground, background) colour pair sits at the requested ΔE2000.

`measure_dots` gives the distribution over every (foreground dot, background dot) pair, each pair weighted
equally: min, 5th percentile, median, 95th percentile and mean (quantiles by the inverted CDF, i.e. the
smallest value whose cumulative share reaches q). Colours are sRGB 0-255 in, CIELAB (D65, 2°) for the
differences, via `plates.colour` (colour-science).

Exact or sampled: when the distinct foreground x distinct background colours number at most `EXACT_PAIRS`
(every unjittered palette) the distribution is exact (distinct colour pairs weighted by their dot counts).
Jittered plates draw nearly every dot in its own colour (~400 x 1,700 = 680,000 pairs; their cost in CIEDE2000
is on docs/benchmarks.md):
the quantiles and mean then come from `SAMPLE_PAIRS` dot pairs drawn uniformly with a seeded PCG64 stream (a
fourth child of ``SeedSequence(spec.seed)``, independent of the render's three), and the minimum is searched
among each foreground colour's `NEIGHBOURS` nearest background colours in CIELAB (ΔE76), which holds the
smallest ΔE2000 pair whenever ΔE2000 ranks near neighbours as ΔE76 does (tests/stimuli/ishihara/test_measure.py checks it
against every pair on jittered plates). ``exact`` says which.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from plates import colour as C
from plates.colour.gamut import bisect
from plates.colour.spaces import delta_e2000_lab
from plates.validation import check_choice, check_int, check_number

if TYPE_CHECKING:  # plate.py imports this module; these are for type hints only
    from plates.stimuli.ishihara.plate import Plate, PlateSpec

__all__ = [
    "EXACT_PAIRS",
    "SAMPLE_PAIRS",
    "TARGET_KINDS",
    "DrawnDeltaE",
    "measure_dots",
    "measure_plate",
    "smallest_pair_delta_e",
    "target_kind",
    "target_smallest_pair",
]

#: Distinct-colour pairs up to which the distribution is computed exactly.
EXACT_PAIRS = 16_384
#: Dot pairs sampled (seeded) when there are more distinct pairs than `EXACT_PAIRS`.
SAMPLE_PAIRS = 4_096
#: Nearest background colours (CIELAB, Euclidean) per foreground colour searched for the smallest pair.
NEIGHBOURS = 16
#: What a spec's ``delta_e`` request makes equal to the requested value (`target_kind`).
TARGET_KINDS = {
    "none": "no ΔE2000 was requested: the palette's own colours",
    "pair": "the one foreground colour vs each background colour (every drawn pair before jitter)",
    "foreground-mean": "the CIELAB mean of the foreground colours (never drawn) vs each background colour",
}
_QUANTILES = (0.05, 0.5, 0.95)


@dataclass(frozen=True)
class DrawnDeltaE:
    """CIEDE2000 between the colours a plate draws: the distribution over (foreground dot, background dot)
    pairs, beside the nominal value and the request.

    Attributes
    ----------
    nominal : float
        Mean ΔE2000 over the palette's colour pairs as resolved, before jitter (`PlateStats.delta_e`).
    target : float or None
        The spec's ``delta_e`` request, or None.
    target_kind : str
        A key of `TARGET_KINDS`.
    min, p05, median, p95, mean : float
        ΔE2000 of the drawn pairs.
    pairs : int
        Foreground dots x background dots.
    evaluated : int
        Pairs whose ΔE2000 was computed (distinct colour pairs when exact, else the sample).
    exact : bool
        True when every pair was counted, False when the quantiles come from a seeded sample.
    """

    nominal: float
    target: float | None
    target_kind: str
    min: float
    p05: float
    median: float
    p95: float
    mean: float
    pairs: int
    evaluated: int
    exact: bool

    def as_dict(self) -> dict:
        """The fields as a plain dict (`dataclasses.asdict`)."""
        return asdict(self)

    def columns(self) -> dict[str, float | None]:
        """The values under the results / manifest column names (`plates.results.schema.COLUMNS`)."""
        return {
            "delta_e_target": self.target,
            "delta_e_drawn_min": self.min,
            "delta_e_drawn_p05": self.p05,
            "delta_e_drawn_median": self.median,
            "delta_e_drawn_p95": self.p95,
        }


def _distinct(colours: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct colours (k, 3) uint8 sRGB 0-255 in sorted order, dot count of each (k,), each dot's index into
    them (n,))."""
    packed = (colours[:, 0].astype(np.uint32) << 16) | (colours[:, 1].astype(np.uint32) << 8) | colours[:, 2]
    uniq, inverse, counts = np.unique(packed, return_inverse=True, return_counts=True)
    rgb = np.stack([(uniq >> 16) & 255, (uniq >> 8) & 255, uniq & 255], axis=1).astype(np.uint8)
    return rgb, counts, inverse


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """Inverted-CDF quantiles of ``values`` with non-negative integer ``weights`` (numpy's
    ``quantile(..., method="inverted_cdf")`` of the values repeated by their weights)."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    total = cum[-1]
    return [float(values[order][np.searchsorted(cum, q * total, side="left")]) for q in qs]


def measure_dots(
    dot_colours,
    is_foreground,
    *,
    nominal: float = float("nan"),
    target: float | None = None,
    target_kind: str = "none",
    seed: int = 0,
    sample: int = SAMPLE_PAIRS,
) -> DrawnDeltaE:
    """The ΔE2000 distribution over every (foreground dot, background dot) pair of a plate.

    Parameters
    ----------
    dot_colours : array_like, shape (n, 3)
        sRGB 0-255 (uint8 or integers), one row per dot as painted.
    is_foreground : array_like of bool, shape (n,)
        True for the figure's dots.
    nominal, target, target_kind
        Carried into the result (`DrawnDeltaE`); ``target_kind`` is a key of `TARGET_KINDS`.
    seed : int, optional
        Seeds the pair sample (only used when the distinct colour pairs exceed `EXACT_PAIRS`).
    sample : int, optional
        Pairs sampled then (>= 1).

    Returns
    -------
    DrawnDeltaE
        The distribution.

    Raises
    ------
    ValueError
        For shapes other than (n, 3) and (n,), values outside 0-255, an unknown ``target_kind``, ``sample``
        under 1, or no dot of one class.

    References
    ----------
    Sharma, Wu and Dalal (2005), Color Res. Appl. 30(1):21-30 (CIEDE2000).
    """
    colours = np.asarray(dot_colours)
    fg_mask = np.asarray(is_foreground, dtype=bool)
    if colours.ndim != 2 or colours.shape[1:] != (3,) or fg_mask.shape != colours.shape[:1]:
        raise ValueError(
            f"dot_colours {colours.shape} and is_foreground {fg_mask.shape} are not valid; "
            "allowed: (n, 3) sRGB 0-255 and (n,) booleans"
        )
    check_choice("target_kind", target_kind, TARGET_KINDS)
    check_int("sample (dot pairs)", sample, 1)
    if colours.size and (colours.min() < 0 or colours.max() > 255):
        raise ValueError("dot_colours hold values outside 0-255; allowed: sRGB 0-255")
    colours = colours.astype(np.uint8)
    fg, bg = colours[fg_mask], colours[~fg_mask]
    if len(fg) == 0 or len(bg) == 0:
        raise ValueError(
            f"a plate with {len(fg)} foreground and {len(bg)} background dots has no pair to "
            "measure; allowed: at least one dot of each class"
        )
    fg_rgb, fg_n, fg_of = _distinct(fg)
    bg_rgb, bg_n, bg_of = _distinct(bg)
    # one conversion for both classes' distinct colours (colour-science's per-call cost dwarfs a few thousand
    # rows; the conversion is elementwise, so each colour's CIELAB is the same as converted alone)
    lab = C.srgb255_to_lab(np.concatenate([fg_rgb, bg_rgb]).astype(float))
    fg_lab, bg_lab = lab[: len(fg_rgb)], lab[len(fg_rgb):]
    pairs = len(fg) * len(bg)
    if len(fg_rgb) * len(bg_rgb) <= EXACT_PAIRS:
        de = _delta_e_lab(np.repeat(fg_lab, len(bg_lab), axis=0), np.tile(bg_lab, (len(fg_lab), 1)))
        weights = np.outer(fg_n, bg_n).ravel().astype(np.int64)
        p05, median, p95 = _weighted_quantiles(de, weights, _QUANTILES)
        return DrawnDeltaE(
            float(nominal),
            target,
            target_kind,
            float(de.min()),
            p05,
            median,
            p95,
            float(np.average(de, weights=weights)),
            pairs,
            int(de.size),
            True,
        )
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed).spawn(4)[3]))
    fi, bi = rng.integers(0, len(fg), sample), rng.integers(0, len(bg), sample)
    # the sampled dots' CIELAB from their distinct colours', and one CIEDE2000 call for the sample and the
    # nearest-neighbour search together (elementwise: the same values as separate calls)
    near_fg, near_bg = _nearest_pairs(fg_lab, bg_lab)
    de_all = _delta_e_lab(np.concatenate([fg_lab[fg_of[fi]], near_fg]), np.concatenate([bg_lab[bg_of[bi]], near_bg]))
    de, de_near = de_all[:sample], de_all[sample:]
    p05, median, p95 = (float(v) for v in np.quantile(de, _QUANTILES, method="inverted_cdf"))
    smallest = min(float(de.min()), float(de_near.min()))
    return DrawnDeltaE(
        float(nominal),
        target,
        target_kind,
        smallest,
        p05,
        median,
        p95,
        float(de.mean()),
        pairs,
        int(de.size),
        False,
    )


def _delta_e_lab(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CIEDE2000 between CIELAB rows (colour-science "CIE 2000")."""
    return np.asarray(delta_e2000_lab(a, b), dtype=float)


def _nearest_pairs(fg_lab: np.ndarray, bg_lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fg, bg) CIELAB rows pairing each foreground colour with its `NEIGHBOURS` nearest background colours
    (CIELAB, Euclidean): the pairs among which the smallest CIEDE2000 is searched."""
    from scipy.spatial import cKDTree  # lazy: ~0.3 s of CPU the dashboard's pages never need

    k = min(NEIGHBOURS, len(bg_lab))
    _, idx = cKDTree(bg_lab).query(fg_lab, k=k)
    idx = np.asarray(idx).reshape(len(fg_lab), k)
    return np.repeat(fg_lab, k, axis=0), bg_lab[idx.ravel()]


def target_kind(spec: PlateSpec) -> str:
    """Which quantity ``spec``'s ``delta_e`` request sets (a key of `TARGET_KINDS`): "none" without a request,
    "pair" with one foreground colour (every pre-jitter pair is at the target), "foreground-mean" with several
    (the CIELAB mean of the foreground colours is at the target from each background colour; the drawn pairs
    are not: ColorBlindnessEval set 3 "at ΔE 3" draws pairs from ~4 to ~24).

    Parameters
    ----------
    spec : PlateSpec
        The plate's spec.

    Returns
    -------
    str
        "none", "pair" or "foreground-mean".

    References
    ----------
    ColorBlindnessEval §3 (set 3, "at ΔE 3").
    """
    if spec.delta_e is None:
        return "none"
    return "pair" if len(spec.colours[0]) == 1 else "foreground-mean"


def measure_plate(plate: Plate, *, sample: int = SAMPLE_PAIRS) -> DrawnDeltaE:
    """`measure_dots` of a rendered plate's dots (``plate.dot_colours``, ``plate.is_fg``), seeded by its
    spec.

    Parameters
    ----------
    plate : Plate
        A rendered plate.
    sample : int, optional
        Pairs sampled when there are more distinct pairs than `EXACT_PAIRS` (default `SAMPLE_PAIRS`).

    Returns
    -------
    DrawnDeltaE
        The distribution, with the nominal mean over the palette's pairs and the spec's request.

    Raises
    ------
    ValueError
        When the plate has no dot of one class, or ``sample`` is under 1.
    """
    spec = plate.spec
    nominal = float(smallest_pair_delta_e(*spec.colours, reduce="mean"))
    return measure_dots(
        plate.dot_colours,
        plate.is_fg,
        nominal=nominal,
        target=spec.delta_e,
        target_kind=target_kind(spec),
        seed=spec.seed,
        sample=sample,
    )


def smallest_pair_delta_e(foreground, background, *, reduce: str = "min") -> float:
    """CIEDE2000 over every (foreground, background) colour pair of two sRGB 0-255 lists, reduced by "min"
    (the smallest pair), "mean" (the nominal `PlateStats.delta_e`) or "max".

    Parameters
    ----------
    foreground, background : sequence of (3 int)
        Colours, sRGB 0-255.
    reduce : str, optional
        ``"min"`` (the default), ``"mean"`` or ``"max"``.

    Returns
    -------
    float
        The reduced ΔE2000.

    Raises
    ------
    ValueError
        When ``reduce`` is not one of those.

    Examples
    --------
    >>> round(smallest_pair_delta_e([(0, 0, 0)], [(255, 255, 255), (128, 128, 128)]), 2)
    39.93
    """
    reducers = {"min": np.min, "mean": np.mean, "max": np.max}
    check_choice("reduce", reduce, reducers)
    a = C.srgb255_to_lab(np.asarray(foreground, dtype=float).reshape(-1, 3))
    b = C.srgb255_to_lab(np.asarray(background, dtype=float).reshape(-1, 3))
    return float(reducers[reduce](_delta_e_lab(np.repeat(a, len(b), axis=0), np.tile(b, (len(a), 1)))))


def target_smallest_pair(spec: PlateSpec, delta_e: float) -> PlateSpec:
    """A spec whose SMALLEST (foreground colour, background colour) pair is at CIEDE2000 ``delta_e``.

    Each background colour of ``spec`` (its palette's, before any ``delta_e``) is replaced by the first point,
    on the CIELAB line from its nearest foreground colour towards it (and beyond, up to the sRGB gamut), whose
    ΔE2000 to the NEAREST foreground colour equals ``delta_e``, rounded to 8-bit sRGB 0-255 (within 0.5
    ΔE2000). The returned spec names its colours explicitly (``delta_e`` None: `target_kind` "none"), and
    `measure_plate` of its render reports the drawn pairs. With one foreground colour this is the ordinary
    request (``spec.replace(delta_e=...)``). Raises ValueError naming the largest reachable value when a line
    leaves the gamut first. Wording of the rule is ours; the papers target no smallest pair.

    Parameters
    ----------
    spec : PlateSpec
        The plate's spec.
    delta_e : float
        The requested smallest-pair CIEDE2000 (> 0).

    Returns
    -------
    PlateSpec
        A spec with explicit colours (sRGB 0-255).

    Raises
    ------
    ValueError
        When ``delta_e`` is not a finite number > 0, or a line leaves the sRGB gamut before reaching it.
    """
    check_number("delta_e", delta_e, 0, open=True, note=" (CIEDE2000)")
    base = spec.replace(delta_e=None)
    fg, directions = base.colours
    if len(fg) == 1:
        return spec.replace(delta_e=float(delta_e))
    fg_lab = C.srgb255_to_lab(np.asarray(fg, dtype=float))
    offs = np.array([(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)])
    backgrounds = []
    for direction in directions:
        end = C.srgb255_to_lab(np.asarray(direction, dtype=float))
        p0 = fg_lab[int(np.argmin(_delta_e_lab(fg_lab, np.broadcast_to(end, fg_lab.shape))))]  # nearest fg
        v = end - p0
        ts = np.linspace(0.0, 8.0, 1601)
        rgb = C.lab_to_srgb255(p0 + ts[:, None] * v)
        inside = np.all((rgb >= -0.5) & (rgb <= 255.5), axis=1)
        ts = ts[: int(np.argmin(inside))] if not inside.all() else ts
        near = _nearest_fg(fg_lab, p0 + ts[:, None] * v)
        above = np.flatnonzero(near >= delta_e)
        if above.size == 0:
            raise ValueError(
                f"delta_e={delta_e} cannot be the smallest pair towards background "
                f"{C.to_hex(tuple(direction))}: "
                f"the line leaves sRGB first; allowed: 0 < delta_e <= {near.max():.2f}"
            )
        k = int(above[0])
        _, hi = bisect(lambda mids, p0=p0, v=v: _nearest_fg(fg_lab, p0 + mids[:, None] * v) < delta_e,
                       float(ts[max(k - 1, 0)]), float(ts[k]), steps=50)
        best = np.clip(np.rint(C.lab_to_srgb255(p0 + hi * v)), 0, 255).astype(int)
        cands = np.clip(best[None, :] + offs, 0, 255)
        errs = np.abs(_nearest_fg(fg_lab, C.srgb255_to_lab(cands.astype(float))) - delta_e)
        if float(errs.min()) > 0.5:
            raise ValueError(
                f"delta_e={delta_e} cannot be met within 0.5 by an 8-bit sRGB colour towards "
                f"{C.to_hex(tuple(direction))}; allowed: a larger delta_e"
            )
        pick = cands[int(np.argmin(errs))]
        backgrounds.append((int(pick[0]), int(pick[1]), int(pick[2])))
    return spec.replace(foreground=tuple(fg), background=tuple(backgrounds), delta_e=None)


def _nearest_fg(fg_lab: np.ndarray, points_lab: np.ndarray) -> np.ndarray:
    """(m,) smallest CIEDE2000 from each CIELAB point to any of the foreground colours."""
    m, k = len(points_lab), len(fg_lab)
    de = _delta_e_lab(np.repeat(points_lab, k, axis=0), np.tile(fg_lab, (m, 1)))
    return de.reshape(m, k).min(axis=1)
