"""Points of subjective equality (PSE) from two- or three-alternative comparisons.

An illusion shows two targets A and B whose physical difference ``x`` is signed: ``x > 0`` means B is
physically darker than A by ``x`` (e.g. ``x = L*_A − L*_B`` in CIELAB, D65 2°, or a ΔE2000 with a sign; the
caller picks the unit and the direction, the maths only needs "larger x favours the answer B"). Each answer is
coded +1 ("B looks darker"), −1 ("A looks darker") or, with three alternatives, 0 ("they look the same"): the
RCID questions (§3.3: "A is darker", "B is darker", "exactly the same") and a two-way forced choice.

The model (wording and choice ours; the three-way form is the "ternary" model of García-Pérez & Alcalá-Quintana
2013, *Front. Psychol.* 4:253, with a symmetric undecided band):

    P(+1 | x) = λ/k + (1 − λ) F(β (x − μ − δ))
    P(−1 | x) = λ/k + (1 − λ) (1 − F(β (x − μ + δ)))
    P( 0 | x) = λ/k + (1 − λ) (F(β (x − μ + δ)) − F(β (x − μ − δ)))      (three alternatives only)

with ``F`` a logistic or cumulative Gaussian (`plates.analysis.psychometric` families, symmetric ones only),
``k`` the number of alternatives, ``λ`` the lapse rate (a lapse answers uniformly at random: there is no guess
rate beyond λ/k, since no answer is "correct"), and ``δ ≥ 0`` the half-width of the band where "same" wins
(δ = 0 with two alternatives). The **PSE** is μ: there P(+1) = P(−1) (= ½ with two alternatives), i.e. the
physical difference at which the targets look equal; an unbiased observer has μ = 0, and an illusion that makes
B look darker gives μ < 0 (B must be made lighter to look equal). Fitted by maximum likelihood over the
multinomial counts per level; the PSE's interval is the profile-likelihood interval (`likelihood`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from plates.analysis import likelihood
from plates.analysis.psychometric import LAPSE_MAX, cdf, cdf_pdf

__all__ = ["PSE_FAMILIES", "PSEFit", "fit_pse", "fit_pse_counts", "outcomes", "pse_probabilities"]

PSE_FAMILIES = ("logistic", "gaussian")
_EPS = 1e-12


def outcomes(alternatives: int) -> tuple[int, ...]:
    """The answer codes for ``alternatives``, in the order of `pse_probabilities`' first axis.

    Parameters
    ----------
    alternatives : int
        2 (A / B) or 3 (A / same / B).

    Returns
    -------
    tuple of int
        (−1, +1) or (−1, 0, +1): −1 "A looks darker", 0 "the same", +1 "B looks darker".

    Raises
    ------
    ValueError
        ``alternatives`` is not 2 or 3.

    Examples
    --------
    >>> outcomes(3)
    (-1, 0, 1)
    """
    if alternatives not in (2, 3):
        raise ValueError(f"alternatives must be 2 (A / B) or 3 (A / same / B), got {alternatives!r}")
    return (-1, 1) if alternatives == 2 else (-1, 0, 1)


def _cdf(family: str, z: np.ndarray) -> np.ndarray:
    if family not in PSE_FAMILIES:
        raise ValueError(f"family {family!r} is not allowed for a PSE (a symmetric curve is needed); "
                         f"allowed: {', '.join(PSE_FAMILIES)}")
    return cdf(family, z)


def pse_probabilities(
    x: Any, pse: Any, slope: Any, *, band: Any = 0.0, lapse: Any = 0.0, alternatives: int = 2,
    family: str = "logistic",
) -> np.ndarray:
    """P(answer | x) of the PSE model (module docstring) for each answer code of `outcomes(alternatives)`.

    Parameters
    ----------
    x : array_like
        Signed physical differences (x > 0: B darker), in the caller's unit (e.g. ``L*`` difference, CIELAB
        D65 2°, or a signed ΔE2000).
    pse : array_like
        μ, in the unit of ``x``.
    slope : array_like
        β > 0, per unit of ``x``.
    band : array_like
        δ >= 0, the half-width of the "same" band; 0 with two alternatives.
    lapse : array_like
        λ in [0, 1).
    alternatives : int
        2 or 3.
    family : str
        One of `PSE_FAMILIES` (a symmetric curve).

    Returns
    -------
    numpy.ndarray
        Probabilities stacked on a new first axis (one row per code of `outcomes`), broadcast over the rest.

    Raises
    ------
    ValueError
        A slope <= 0, a negative band (or any band with two alternatives), a lapse outside [0, 1), a family
        not in `PSE_FAMILIES`, or ``alternatives`` not 2 or 3.

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253 (the ternary model); RCID (Mao et al.
    2025) §3.3 (the three answers).

    Examples
    --------
    >>> pse_probabilities([0.0], 0.0, 1.0).tolist()
    [[0.5], [0.5]]
    """
    codes = outcomes(alternatives)
    x, mu, b, d, lam = (np.asarray(v, dtype=float) for v in (x, pse, slope, band, lapse))
    if not np.all(b > 0):
        raise ValueError(f"slope must be > 0, got {slope!r}")
    if not np.all(d >= 0) or (alternatives == 2 and np.any(d != 0)):
        raise ValueError(f"band must be >= 0, and 0 with two alternatives; got {band!r} with {alternatives}")
    if not np.all((lam >= 0) & (lam < 1)):
        raise ValueError(f"lapse must lie in [0, 1), got {lapse!r}")
    upper = _cdf(family, b * (x - mu - d))  # F for "+1"
    lower = _cdf(family, b * (x - mu + d))  # 1 - this for "-1"
    base, keep = lam / len(codes), 1.0 - lam
    minus, plus = base + keep * (1.0 - lower), base + keep * upper
    if alternatives == 2:
        return np.stack(np.broadcast_arrays(minus, plus))
    return np.stack(np.broadcast_arrays(minus, base + keep * (lower - upper), plus))


@dataclass(frozen=True)
class PSEFit:
    """A maximum-likelihood fit of the PSE model (module docstring), as `fit_pse` returns it.

    Parameters
    ----------
    status : str
        "fit", "below-range" (every answer says B even at the lowest level: the PSE lies below it),
        "above-range" (the converse), "too-few" (fewer than two distinct levels).
    pse : float
        μ in the unit of the signed difference; NaN unless status is "fit".
    ci_low : float
        Lower end of its profile-likelihood interval at ``confidence`` (-inf where open).
    ci_high : float
        Upper end (+inf where open).
    slope : float
        β per unit of x.
    band : float
        δ, the half-width of the "same" band (0 with two alternatives).
    lapse : float
        λ, fitted in [0, 0.06] unless ``lapse_fixed``.
    alternatives : int
        2 or 3.
    family : str
        One of `PSE_FAMILIES`.
    n : int
        Single answers fitted.
    x_min : float
        Lowest level asked.
    x_max : float
        Highest level asked.
    extrapolated : bool
        The PSE lies outside ``[x_min, x_max]``.
    log_likelihood : float
        Σ log P(answer) over the ``n`` answers.
    lapse_fixed : bool
        λ was given, not fitted.
    confidence : float
        Level of the interval.
    converged : bool
        The optimiser reported success.
    message : str
        Why there is no fit, or the optimiser's note.

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253 (the ternary model); RCID (Mao et al.
    2025) §3.3 (the three answers).
    """

    status: str
    pse: float
    ci_low: float
    ci_high: float
    slope: float
    band: float
    lapse: float
    alternatives: int
    family: str
    n: int
    x_min: float
    x_max: float
    extrapolated: bool
    log_likelihood: float
    lapse_fixed: bool
    confidence: float
    converged: bool
    message: str = ""

    def predict(self, x: Any) -> np.ndarray:
        """P(answer | x) under the fitted model.

        Parameters
        ----------
        x : array_like
            Signed differences, in the unit of the fit.

        Returns
        -------
        numpy.ndarray
            Shape (alternatives, *x.shape), rows in `outcomes` order; NaN unless status is "fit".
        """
        x = np.asarray(x, dtype=float)
        if self.status != "fit":
            return np.full((self.alternatives, *x.shape), np.nan)
        return pse_probabilities(x, self.pse, self.slope, band=self.band, lapse=self.lapse,
                                 alternatives=self.alternatives, family=self.family)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (`dataclasses.asdict`)."""
        return asdict(self)


def _counts(differences: Any, responses: Any, alternatives: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(distinct levels, counts (alternatives, levels), n) after validation."""
    codes = outcomes(alternatives)
    x = np.asarray(differences, dtype=float).ravel()
    r = np.asarray(responses, dtype=object).ravel()
    if x.shape != r.shape:
        raise ValueError(f"differences and responses differ in length: {x.size} vs {r.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError("differences must be finite numbers; found NaN or inf -- drop those rows first")
    bad = [v for v in r if isinstance(v, (bool, np.bool_)) or v not in codes]
    if bad:
        raise ValueError(f"responses must be codes {codes} with {alternatives} alternatives "
                         f"(+1: B looks darker, -1: A, 0: same); found {bad[0]!r}")
    xs, inverse = np.unique(x, return_inverse=True)
    r = r.astype(int)
    counts = np.stack([np.bincount(inverse[r == c], minlength=xs.size) for c in codes]).astype(float)
    return xs, counts, int(x.size)


def fit_pse(
    differences: Any, responses: Any, *, alternatives: int, lapse: float | None = None,
    family: str = "logistic", confidence: float = 0.95, interval: bool = True,
) -> PSEFit:
    """Fit the PSE model (module docstring) by maximum likelihood within box bounds (`fit_pse_counts`).

    Parameters
    ----------
    differences : array_like
        Signed physical differences, one per answer (x > 0: B darker), finite.
    responses : array_like
        One code per answer: +1 / −1 (/ 0 with three alternatives).
    alternatives : int
        2 or 3.
    lapse : float or None
        None to fit λ in [0, 0.06], else λ fixed in [0, 1).
    family : str
        One of `PSE_FAMILIES`.
    confidence : float
        Level of the PSE's profile-likelihood interval.
    interval : bool
        Compute that interval (False: ``ci_low``/``ci_high`` NaN).

    Returns
    -------
    PSEFit
        Status "too-few" with fewer than two distinct differences.

    Raises
    ------
    ValueError
        ``differences`` and ``responses`` of different lengths, a difference that is NaN or inf, a response
        that is not a code of `outcomes(alternatives)`, a family not in `PSE_FAMILIES`, a lapse outside
        [0, 1).

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253 (the ternary model); RCID (Mao et al.
    2025) §3.3 (the three answers).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.repeat([-2.0, -1.0, 0.0, 1.0, 2.0], 4)
    >>> r = np.where(x > 0.5, 1, -1)
    >>> fit = fit_pse(x, r, alternatives=2, interval=False)
    >>> fit.status, 0.0 < fit.pse < 1.0
    ('fit', True)
    """
    _cdf(family, np.zeros(1))
    xs, counts, _ = _counts(differences, responses, alternatives)
    return fit_pse_counts([(xs, counts)], alternatives=alternatives, lapse=lapse, family=family,
                          confidence=confidence, interval=interval)[0]


def fit_pse_counts(
    groups: Sequence[tuple[Any, Any]], *, alternatives: int, lapse: float | None = None,
    family: str = "logistic", confidence: float = 0.95, interval: bool = True,
) -> list[PSEFit]:
    """`fit_pse` for many groups at once, each given as answer counts.

    All groups are fitted together (`plates.analysis.likelihood.fit_batch`: the same maximum and profile
    interval as one scipy fit per group, at a fraction of the cost).

    Parameters
    ----------
    groups : sequence of (array_like, array_like)
        (levels, counts) per group: ``levels`` the distinct signed differences, increasing; ``counts`` of shape
        (alternatives, levels), the answers of each code of `outcomes` at each level, >= 0.
    alternatives : int
        2 or 3.
    lapse : float or None
        None to fit λ in [0, 0.06], else λ fixed in [0, 1).
    family : str
        One of `PSE_FAMILIES`.
    confidence : float
        Level of the profile-likelihood interval.
    interval : bool
        Compute that interval.

    Returns
    -------
    list of PSEFit
        One per group, in order.

    Raises
    ------
    ValueError
        Levels not increasing, counts of the wrong shape or negative, a lapse outside [0, 1), a family not in
        `PSE_FAMILIES`, ``alternatives`` not 2 or 3.

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253 (the ternary model); RCID (Mao et al.
    2025) §3.3 (the three answers).
    """
    _cdf(family, np.zeros(1))
    if lapse is not None and not 0.0 <= float(lapse) < 1.0:
        raise ValueError(f"lapse must be None (fitted) or lie in [0, 1), got {lapse!r}")
    cutoff = likelihood.chi2_cutoff(confidence) if interval else None
    k = len(outcomes(alternatives))
    checked = []
    for xs, counts in groups:
        xs, counts = np.asarray(xs, dtype=float), np.asarray(counts, dtype=float)
        if xs.ndim != 1 or counts.shape != (k, xs.size) or np.any(np.diff(xs) <= 0) or np.any(counts < 0):
            raise ValueError(f"each group must be (levels increasing, counts of shape ({k}, levels) >= 0); got "
                             f"levels {xs.shape} and counts {counts.shape}")
        checked.append((xs, counts))
    fixed = lapse is not None
    three = alternatives == 3
    common = {"alternatives": alternatives, "family": family, "lapse_fixed": fixed, "confidence": float(confidence)}
    fits: list[PSEFit | None] = [None] * len(checked)
    fitted = []
    for i, (xs, counts) in enumerate(checked):
        if xs.size < 2:
            nan = float("nan")
            fits[i] = PSEFit("too-few", nan, nan, nan, nan, nan, float(lapse) if fixed else nan, x_min=nan,
                             x_max=nan, extrapolated=False, log_likelihood=nan, converged=False,
                             n=int(round(counts.sum())),
                             message=f"need answers at two or more distinct differences; got {xs.size}", **common)
        else:
            fitted.append(i)
    if not fitted:
        return fits
    width = max(checked[i][0].size for i in fitted)
    x = np.empty((len(fitted), width))
    c = np.zeros((len(fitted), k, width))
    lower, upper, boxes = [], [], []
    for row, i in enumerate(fitted):
        xs, counts = checked[i]
        x[row, :xs.size], x[row, xs.size:] = xs, xs[-1]  # padding: no answers there
        c[row, :, :xs.size] = counts
        boxes.append(parameter_bounds(xs, three, fixed))
        lower.append([b[0] for b in boxes[-1]])
        upper.append([b[1] for b in boxes[-1]])
    starts = grid_starts([checked[i] for i in fitted], boxes, alternatives, lapse, family)
    fun = batch_nll(x, c, alternatives, lapse, family)
    lower_a, upper_a = np.array(lower), np.array(upper)
    batch = likelihood.fit_batch(fun, np.array(starts), np.arange(len(fitted)), lower_a, upper_a, cutoff=cutoff)
    for row, i in enumerate(fitted):
        xs, counts = checked[i]
        theta, nll, converged = batch.theta[row], float(batch.nll[row]), bool(batch.converged[row])
        low, high = float(batch.low[row]), float(batch.high[row])
        if batch.trouble[row]:
            theta, nll, converged, low, high = likelihood.refit_row(fun, row, [np.array(starts[row])], lower[row],
                                                                    upper[row], cutoff)
        fits[i] = _pse_fit(theta, nll, converged, low, high, xs, int(round(counts.sum())), lapse, three, family,
                           common)
    return fits


def parameter_bounds(xs: np.ndarray, three: bool, fixed: bool) -> list[tuple[float, float]]:
    """The box of θ = ``(μ, log β[, δ][, λ])``: μ within a span either side of the levels, β from 0.5 to 1000 per
    span, δ up to a span, λ up to `LAPSE_MAX`.

    Parameters
    ----------
    xs : numpy.ndarray
        The group's signed physical differences, sorted ascending, in the caller's unit (module docstring); the
        span is ``xs[-1] - xs[0]`` and must be positive (no check here: `fit_pse_counts` only fits groups with
        two or more distinct levels).
    three : bool
        Three alternatives: θ holds the undecided band's half-width δ.
    fixed : bool
        The lapse rate is fixed by the caller: θ holds no λ.

    Returns
    -------
    list of (float, float)
        (lower, upper) per parameter of θ, in its order: μ in ``[xs[0] − span, xs[-1] + span]`` (the unit of
        ``xs``), log β in ``[log(0.5 / span), log(1000 / span)]`` (β per unit of ``xs``), then δ in ``[0, span]``
        with three alternatives, then λ in ``[0, LAPSE_MAX]`` unless the lapse is fixed.
    """
    x_lo, x_hi = float(xs[0]), float(xs[-1])
    span = x_hi - x_lo
    bounds = [(x_lo - span, x_hi + span), (np.log(0.5 / span), np.log(1000.0 / span))]
    bounds += [(0.0, span)] if three else []
    return bounds + ([] if fixed else [(0.0, LAPSE_MAX)])


def grid_starts(groups: Sequence[tuple[np.ndarray, np.ndarray]], boxes: Sequence[list[tuple[float, float]]],
                 alternatives: int, lapse: float | None, family: str) -> list[list[float]]:
    """Each group's best point of a vectorised grid over its box (axes: μ, log β, δ, λ): the optimiser's start.
    More than 64 levels are pooled into 64 bins for it (the answers-weighted mean level of each bin; the grid only
    seeds the optimiser, which uses every level).

    The log-probabilities on the grid depend on the levels and the box alone, not on the counts: groups with
    the same levels and box (a page's models and people asked the same differences) share them, and each group
    sums them against its own counts, one matrix-vector product per lapse and answer as a group alone would (so a
    group's start is the same, bit for bit, alone or in any batch).

    Parameters
    ----------
    groups : sequence of (numpy.ndarray, numpy.ndarray)
        Per group, its levels (signed differences in the caller's unit, sorted ascending, shape (levels,)) and its
        answer counts, shape (alternatives, levels), rows in the order of `outcomes`.
    boxes : sequence of list of (float, float)
        Each group's `parameter_bounds`, in the order of ``groups``.
    alternatives : int
        2 or 3, the number of answers (not checked here: `fit_pse_counts` checks it).
    lapse : float or None
        The fixed lapse rate, or None when λ is fitted (then the grid tries λ = 0, 0.03 and `LAPSE_MAX`).
    family : str
        One of `PSE_FAMILIES`.

    Returns
    -------
    list of list of float
        Per group, in order, the grid point of highest multinomial log-likelihood as θ = ``[μ, log β[, δ][, λ]]``
        (δ with three alternatives, λ unless the lapse is fixed).
    """
    three, fixed = alternatives == 3, lapse is not None
    pooled = []
    for xs, counts in groups:
        grid_x, grid_counts = xs, counts
        if xs.size > 64:
            edges = np.linspace(0, xs.size, 65).astype(int)[:-1]
            per_level = counts.sum(axis=0)
            grid_x = np.add.reduceat(xs * per_level, edges) / np.add.reduceat(per_level, edges)
            grid_counts = np.add.reduceat(counts, edges, axis=1)
        pooled.append((grid_x, grid_counts))
    shared: dict[bytes, list[int]] = {}
    for g, ((grid_x, _), box) in enumerate(zip(pooled, boxes)):
        shared.setdefault(grid_x.tobytes() + np.asarray(box, dtype=float).tobytes(), []).append(g)
    starts: list[list[float]] = [[] for _ in groups]
    for members in shared.values():
        grid_x, bounds = pooled[members[0]][0], boxes[members[0]]
        mu, log_b, band, lam, logs = _grid_logs(grid_x, bounds, alternatives, lapse, family)
        for g in members:
            # each answer's log P at every grid point, summed over the levels by a product
            ll = np.stack([sum(log_p @ c for log_p, c in zip(by_lapse, pooled[g][1])) for by_lapse in logs], axis=-1)
            i, j, m, q = np.unravel_index(np.argmax(ll), (mu.size, log_b.size, band.size, lam.size))
            starts[g] = [mu[i], log_b[j], *([band[m]] if three else []), *([] if fixed else [lam[q]])]
    return starts


def _grid_logs(grid_x: np.ndarray, bounds: list[tuple[float, float]], alternatives: int, lapse: float | None,
               family: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[list[np.ndarray]]]:
    """The grid of `grid_starts` over one box (μ, log β, δ, λ axes) and, per lapse and per answer of `outcomes`,
    log P at every (μ, β, δ) cell and level: (cells, levels) arrays, C-ordered cells."""
    three, fixed = alternatives == 3, lapse is not None
    # μ on the 47 inner points of 49 across its box, span/16 apart; the band's half-widths 0, span/8 and span/4
    # are 0, 2 and 4 of those steps, so F(β(x − μ ∓ δ)) is F(β(x − μ')) at a neighbour μ' of the grid: F is
    # computed once on the μ grid widened by 4 steps each side and each band reads it shifted (a fifth of the
    # F evaluations of one per band and side)
    step = (bounds[0][1] - bounds[0][0]) / 48
    offsets = (0, 2, 4) if three else (0,)
    reach = offsets[-1]
    mu_wide = bounds[0][0] + step * np.arange(1 - reach, 48 + reach)
    mu = mu_wide[reach:reach + 47]
    log_b = np.linspace(*bounds[1], 25)
    band = step * np.array(offsets, dtype=float)
    lam = np.array([lapse]) if fixed else np.array([0.0, 0.03, LAPSE_MAX])
    f = _cdf(family, np.exp(log_b)[None, :, None] * (grid_x[None, None, :] - mu_wide[:, None, None]))
    f_up = np.stack([f[reach + o:reach + o + 47] for o in offsets], axis=2)  # F(β(x − μ − δ)): (μ, β, δ, x)
    f_low = np.stack([f[reach - o:reach - o + 47] for o in offsets], axis=2)  # F(β(x − μ + δ))
    k = len(outcomes(alternatives))
    outcome_f = [1.0 - f_low, f_low - f_up, f_up] if three else [1.0 - f_low, f_up]
    logs = []
    for lam_q in lam:
        by_outcome = []
        for outcome in outcome_f:
            p = outcome.reshape(-1, grid_x.size)
            p = p if lam_q == 0.0 else lam_q / k + (1.0 - lam_q) * p
            # P <= 1 always: only the lower clip can bite, and not where the lapse alone gives more than it
            by_outcome.append(np.log(p if lam_q / k > _EPS else np.maximum(p, _EPS)))
        logs.append(by_outcome)
    return mu, log_b, band, lam, logs


def batch_nll(x: np.ndarray, counts: np.ndarray, alternatives: int, lapse: float | None,
               family: str) -> likelihood.BatchFun:
    """The negative log-likelihood and its analytic gradient in θ = ``(μ, log β[, δ][, λ])`` of many groups, for
    `plates.analysis.likelihood.fit_batch`.

    The likelihood is the multinomial one of the module's model over each group's counts per level, without the
    multinomial coefficients; a probability below 1e-12 is clipped there, and the gradient is 0 where it is.

    Parameters
    ----------
    x : numpy.ndarray
        Signed physical differences (the caller's unit), shape (G, levels), one row per group; a group with
        fewer levels is padded at the end.
    counts : numpy.ndarray
        Answer counts, shape (G, alternatives, levels), the middle axis in the order of `outcomes`; padded levels
        hold no answers, so they add nothing.
    alternatives : int
        2 or 3, the number of answers k (not checked here).
    lapse : float or None
        The fixed lapse rate, or None when λ is θ's last entry.
    family : str
        One of `PSE_FAMILIES`.

    Returns
    -------
    plates.analysis.likelihood.BatchFun
        ``fun(theta, rows)``: for θ of shape (R, parameters) and the ``rows`` (R,) of the groups they belong to,
        the negative log-likelihood, shape (R,), and its gradient in θ, shape (R, parameters).
    """
    three, fixed = alternatives == 3, lapse is not None
    k = len(outcomes(alternatives))

    def fun(theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xs, c = x[rows], counts[rows]
        mu, b = theta[:, :1], np.exp(theta[:, 1:2])
        band = theta[:, 2:3] if three else 0.0
        lam = float(lapse) if fixed else theta[:, -1:]
        z_up, z_low = b * (xs - mu - band), b * (xs - mu + band)
        f_up, d_up = cdf_pdf(family, z_up)
        f_low, d_low = cdf_pdf(family, z_low)
        keep = 1.0 - lam
        base = lam / k
        if three:
            p = np.stack([base + keep * (1.0 - f_low), base + keep * (f_low - f_up), base + keep * f_up], axis=1)
        else:
            p = np.stack([base + keep * (1.0 - f_low), base + keep * f_up], axis=1)
        inside = p > _EPS  # where the log is clipped, the likelihood is flat in θ
        weight = np.where(inside, c / np.where(inside, p, 1.0), 0.0)
        nll = -np.sum(c * np.log(np.clip(p, _EPS, 1.0)), axis=(1, 2))
        # dP/dz_low and dP/dz_up per outcome: "-1" -keep d_low; "0" keep (d_low - d_up); "+1" keep d_up
        w_minus, w_plus = weight[:, 0], weight[:, -1]
        by_low = keep * d_low * ((weight[:, 1] if three else 0.0) - w_minus)  # Σ_outcomes weight dP/dz_low
        by_up = keep * d_up * (w_plus - (weight[:, 1] if three else 0.0))
        # z_low, z_up against μ: −β, −β; against log β: z_low, z_up; against δ: +β, −β
        grad = [np.sum((by_low + by_up) * b, axis=1), -np.sum(by_low * z_low + by_up * z_up, axis=1)]
        if three:
            grad.append(-np.sum((by_low - by_up) * b, axis=1))
        if not fixed:
            by_lam = w_minus * (1.0 / k - (1.0 - f_low)) + w_plus * (1.0 / k - f_up)
            if three:
                by_lam = by_lam + weight[:, 1] * (1.0 / k - (f_low - f_up))
            grad.append(-np.sum(by_lam, axis=1))
        return nll, np.stack(grad, axis=1)

    return fun


def _pse_fit(theta: np.ndarray, nll: float, converged: bool, low: float, high: float, xs: np.ndarray, n: int,
             lapse: float | None, three: bool, family: str, common: dict[str, Any]) -> PSEFit:
    """The `PSEFit` of an optimum θ with its interval (status from where the curve sits on the levels)."""
    mu_hat, b_hat = float(theta[0]), float(np.exp(theta[1]))
    band_hat = float(theta[2]) if three else 0.0
    lam_hat = float(lapse) if lapse is not None else float(theta[-1])
    x_lo, x_hi = float(xs[0]), float(xs[-1])
    fields = dict(slope=b_hat, band=band_hat, lapse=lam_hat, x_min=x_lo, x_max=x_hi, log_likelihood=-nll,
                  converged=converged, n=n, **common)
    says_b_at_lowest = _cdf(family, b_hat * (x_lo - mu_hat - band_hat)) >= 0.99
    says_a_at_highest = _cdf(family, b_hat * (x_hi - mu_hat + band_hat)) <= 0.01
    if says_b_at_lowest:
        return PSEFit("below-range", np.nan, -np.inf, high, extrapolated=True,
                      message=f"'B looks darker' at every level but for lapses: the PSE lies below {x_lo:.4g}",
                      **fields)
    if says_a_at_highest:
        return PSEFit("above-range", np.nan, low, np.inf, extrapolated=True,
                      message=f"'A looks darker' at every level but for lapses: the PSE lies above {x_hi:.4g}",
                      **fields)
    extrapolated = not x_lo <= mu_hat <= x_hi
    message = f"PSE {mu_hat:.4g} extrapolated outside [{x_lo:.4g}, {x_hi:.4g}]" if extrapolated else ""
    return PSEFit("fit", mu_hat, low, high, extrapolated=extrapolated, message=message, **fields)
