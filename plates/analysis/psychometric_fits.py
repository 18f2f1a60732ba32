"""Maximum-likelihood fits of the chance-aware psychometric function of `plates.analysis.psychometric`
(ψ = γ + (1 − γ − λ) F(x; α, β), Wichmann & Hill 2001 eq. 1): one group (`fit_psychometric`) or many at once
(`fit_psychometric_counts`, `fit_groups`: the dashboard's tables, hundreds of groups), and the chance test behind
the "at-chance" status (`chance_test`).

Fits (`fit_psychometric`; many groups at once: `fit_psychometric_counts`, `fit_groups`) maximise the binomial
likelihood over the distinct levels (a projected Newton method in a box, started from a vectorised grid,
every group together: `plates.analysis.likelihood.fit_batch`; scipy's SLSQP for a group it cannot settle); ``λ`` is fitted inside [0, `LAPSE_MAX`] = [0, 0.06] (the range
Wichmann & Hill 2001 allow it) or fixed by the caller.

**The threshold's interval** (`threshold_interval`, the one every page, report and bench shows for a located
threshold) is the equal-tailed credible interval of a grid posterior (`plates.analysis.posterior`) under the
priors of the project's staircase (`plates.analysis.adaptive.AdaptiveSpec.for_threshold`: the threshold uniform
over the tested levels on the fit's axis, the slope log-uniform over the fit's box, the lapse uniform on 0, 0.02,
0.04, 0.06 or fixed), slope and lapse integrated out (Prins 2013, *J. Vision* 13(7):3), then widened where needed
to the profile-likelihood interval (`plates.analysis.likelihood`; Venzon & Moolgavkar 1988) so it always holds
the maximum-likelihood threshold and is never narrower than the profile says. Deterministic, no seed. Why not
the profile alone: at small n the likelihood's best curve is often a step (the slope at its upper bound between
two levels one answer apart), and the profile around a step is far too narrow. Its coverage of the
TRUE threshold on simulated observers is on the documentation's benchmarks page (docs/benchmarks.md, "The
psychometric interval's coverage"). "below-range" / "above-range" keep the profile's one-sided limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# scipy.stats is imported where used: ~1 s of CPU that the apps' first pages never need
import numpy as np
import pandas as pd

from plates.analysis import likelihood, posterior
from plates.analysis.metrics import WEIGHT, row_weights
from plates.analysis.psychometric import (
    CHANCE_ALPHA,
    EPS,
    LAPSE_MAX,
    MONOTONE_ALPHA,
    PsychometricFit,
    bernoulli_ll,
    cdf,
    cdf_pdf,
    chance_from_counts,
    check_family,
    check_guess_lapse,
    from_u,
    grouped,
    monotone_from_counts,
    pool_levels,
    to_u,
)

__all__ = ["chance_test", "fit_groups", "fit_psychometric", "fit_psychometric_counts"]


def _psi_grid(u: np.ndarray, guess: float, family: str, a: np.ndarray, log_b: np.ndarray,
              lam: np.ndarray) -> np.ndarray:
    """ψ = γ + (1 − γ − λ) F(β (u − α)) at every (α, log β, λ) of a grid and level ``u`` (on the family's axis),
    shape (α, β, λ, levels), clipped into [`EPS`, 1 − `EPS`]: the grid of the optimiser's starts
    (`grid_starts`) and of the posterior (`_grid_loglik`)."""
    psi = (1.0 - guess - lam)[None, None, :, None] * cdf(
        family, np.exp(log_b)[None, :, None] * (u[None, None, :] - a[:, None, None]))[:, :, None, :]
    psi += guess
    return np.clip(psi, EPS, 1.0 - EPS, out=psi)


def grid_starts(u: np.ndarray, k: np.ndarray, n: np.ndarray, guess: float, lapse: float | None, family: str,
                 bounds: list[tuple[float, float]]) -> list[np.ndarray]:
    """The two best points (different thresholds) of a vectorised grid over the box, as optimiser starts.

    The grid holds 47 thresholds α evenly inside the box's α range, 25 log slopes across its log β range and,
    when λ is fitted, the lapse rates 0, 0.03 and `LAPSE_MAX`; each point's binomial log-likelihood is summed
    over the levels, and the second start is the best point whose α is more than 4 grid steps from the first's.
    More than 64 levels are pooled into 64 bins first (the trials-weighted mean level of each bin; the grid only
    seeds the optimiser, which uses every level).

    Parameters
    ----------
    u : numpy.ndarray
        The levels on the family's axis (`to_u`), ascending, shape (levels,).
    k : numpy.ndarray
        Correct answers per level.
    n : numpy.ndarray
        Trials per level.
    guess : float
        The guess rate γ (a proportion 0-1).
    lapse : float or None
        The fixed lapse rate, or None when λ is fitted.
    family : str
        One of `FAMILIES`.
    bounds : list of (float, float)
        The box: (lower, upper) of α (on the u axis) and of log β, then of λ when it is fitted.

    Returns
    -------
    list of numpy.ndarray
        One or two starts θ = ``[α, log β[, λ]]`` (λ only when fitted), the best first.
    """
    if u.size > 64:  # the grid only seeds the optimiser: pool neighbouring levels into 64 bins
        edges = np.linspace(0, u.size, 65).astype(int)
        u = np.add.reduceat(u * n, edges[:-1]) / np.add.reduceat(n, edges[:-1])
        k, n = np.add.reduceat(k, edges[:-1]), np.add.reduceat(n, edges[:-1])
    a = np.linspace(*bounds[0], 49)[1:-1]
    log_b = np.linspace(*bounds[1], 25)
    lam = np.array([0.0, 0.03, LAPSE_MAX]) if lapse is None else np.array([lapse])
    psi = _psi_grid(u, guess, family, a, log_b, lam)
    # summed over the levels elementwise (not by `_grid_loglik`'s products: where grid points tie, the order of
    # the sum picks the start, and a start on a flat ridge picks the slope a step fit reports)
    ll = np.sum(k * np.log(psi) + (n - k) * np.log1p(-psi), axis=-1)  # (α, β, λ)
    order = np.argsort(-ll, axis=None)
    starts, used = [], []
    for flat in order:
        i, j, m = np.unravel_index(flat, ll.shape)
        if all(abs(i - q) > 4 for q in used):
            used.append(i)
            starts.append(np.array([a[i], log_b[j], *([lam[m]] if lapse is None else [])]))
        if len(starts) == 2:
            break
    return starts


def _grid_loglik(u: np.ndarray, k: np.ndarray, n: np.ndarray, guess: float, family: str):
    """The log-likelihood of the grouped answers on a grid of (α on the u axis, log β, λ) (`_psi_grid`), for
    `plates.analysis.posterior.credible_interval`; thresholds in blocks so memory stays small."""
    def loglik(a: np.ndarray, log_b: np.ndarray, lam: np.ndarray) -> np.ndarray:
        out = np.empty((a.size, log_b.size, lam.size))
        step = max(1, 200_000 // max(1, log_b.size * lam.size * u.size))
        for i in range(0, a.size, step):  # in place: one (thresholds, slopes, lapses, levels) array per block
            psi = _psi_grid(u, guess, family, a[i:i + step], log_b, lam)
            right = np.log(psi) @ k
            out[i:i + step] = right + np.log1p(np.negative(psi, out=psi), out=psi) @ (n - k)
        return out
    return loglik


def threshold_interval(xs: np.ndarray, k: np.ndarray, n: np.ndarray, positive: np.ndarray, guess: float,
                        lapse: float | None, family: str, log_b_max: float, confidence: float,
                        prof_low: float, prof_high: float) -> tuple[float, float]:
    """THE interval of a located threshold (status "fit"), in level units: the equal-tailed credible interval
    of `plates.analysis.posterior` (threshold uniform over the tested levels on the fit's axis, slope
    log-uniform over the fit's box, lapse uniform on 0, 0.02, 0.04, 0.06 as in
    `plates.analysis.adaptive.AdaptiveSpec`, or fixed), widened where needed to the profile-likelihood interval
    (``prof_low``, ``prof_high`` on the fit's axis; module docstring: why).

    Parameters
    ----------
    xs : numpy.ndarray
        The distinct tested levels, increasing (ΔE2000 for plates).
    k : numpy.ndarray
        Correct answers at each level.
    n : numpy.ndarray
        Answers at each level.
    positive : numpy.ndarray
        The levels the family can use (weibull: those > 0), at least two; the first and last bound the prior.
    guess : float
        γ, the guess rate.
    lapse : float or None
        A fixed lapse rate, or None for the lapse grid.
    family : str
        The psychometric family (`plates.analysis.psychometric.FAMILIES`).
    log_b_max : float
        The upper end of the log-slope range (the fit's box).
    confidence : float
        The interval's level, strictly in (0, 1).
    prof_low, prof_high : float
        The profile-likelihood interval on the fit's axis.

    Returns
    -------
    (float, float)
        The interval's ends, in level units.
    """
    u_lo, u_hi = to_u(family, positive[[0, -1]])
    lapses = np.array([lapse]) if lapse is not None else np.linspace(0.0, LAPSE_MAX, 4)
    low, high = posterior.credible_interval(_grid_loglik(to_u(family, xs), k, n, guess, family), (u_lo, u_hi),
                                            (float(np.log(0.5 / (u_hi - u_lo))), log_b_max), lapses,
                                            confidence=confidence)
    return from_u(family, min(low, prof_low)), from_u(family, max(high, prof_high))


def chance_test(levels: Any, correct: Any, *, guess: float) -> tuple[float, float]:
    """Can the answers be told from guessing? The likelihood-ratio test of the chance-aware fit
    (`fit_psychometric`, lapse fitted) against ψ ≡ ``guess`` at every level; p from χ² with 3 degrees of
    freedom (threshold, slope, lapse). At `CHANCE_ALPHA` = 0.01, an observer guessing at every level passes
    for a rise in about 1% of runs (tests/analysis). The "at-chance" status is p > `CHANCE_ALPHA`.

    Parameters
    ----------
    levels : array_like
        One level per answer (ΔE2000 for plates).
    correct : array_like
        One verdict per answer (bool or 0/1).
    guess : float
        γ in [0, 1).

    Returns
    -------
    tuple of float
        (deviance, p).

    Raises
    ------
    ValueError
        ``levels`` and ``correct`` of different lengths, or ``guess`` outside [0, 1).

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313.
    """
    fit = fit_psychometric(levels, correct, guess=guess, interval=False)
    return fit.chance_deviance, fit.chance_p


def fit_psychometric(
    levels: Any, correct: Any, *, guess: float, lapse: float | None = None, family: str = "logistic",
    confidence: float = 0.95, interval: bool = True, weights: Any = None,
) -> PsychometricFit:
    """Fit ψ(x) = γ + (1 − γ − λ) F(x; α, β) by maximum likelihood (module docstring).

    Parameters
    ----------
    levels : array_like of float
        Stimulus levels, one per answer (plates: ΔE2000, CIELAB D65 2°).
    correct : array_like of bool or {0, 1}
        One per level.
    guess : float
        γ, the task's chance level (required): `plates.analysis.psychometric.guess_rate`.
    lapse : float, optional
        None to fit λ in [0, 0.06], or a fixed value.
    family : str, default "logistic"
        One of `plates.analysis.psychometric.FAMILIES`.
    confidence : float, default 0.95
        Of the threshold's interval (`threshold_interval`).
    interval : bool, default True
        Compute that interval.
    weights : array_like of float, optional
        The trials each (level, verdict) stands for, >= 1 (default 1 each: collapsed rows).

    Returns
    -------
    plates.analysis.psychometric.PsychometricFit
        Status "fit" with the threshold α and its interval; all-correct data give "below-range", data at or
        below chance everywhere "above-range" (with a one-sided limit), never an arbitrary number; also
        "at-chance", "non-monotonic" and "too-few", each with its message.

    Raises
    ------
    ValueError
        An unknown family, a guess or lapse outside [0, 1), or levels and answers that do not pair up.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8):1293-1313; Prins (2013), *J. Vision* 13(7):3.

    Examples
    --------
    >>> fit_psychometric([1, 2, 4], [1, 1, 1], guess=0.5).status  # right everywhere: below the range tested
    'below-range'
    """
    check_family(family)
    check_guess_lapse(guess, 0.0 if lapse is None else lapse)
    xs, k, n, total = grouped(levels, correct, family, weights)
    return _fit_counts([(xs, k, n, total, float(guess))], lapse=lapse, family=family, confidence=confidence,
                       interval=interval)[0]


def fit_psychometric_counts(
    groups: Sequence[tuple[Any, Any, Any, float]], *, lapse: float | None = None, family: str = "logistic",
    confidence: float = 0.95, interval: bool = True,
) -> list[PsychometricFit]:
    """`fit_psychometric` of many groups given as counts, all fitted together.

    Parameters
    ----------
    groups : sequence of (levels, correct, trials, guess)
        Per group: the levels (ΔE2000 for plates), the answers right and the trials at each, and the task's
        guess rate γ. Levels may repeat (their counts add up); levels without trials are ignored.
    lapse, family, confidence, interval
        As `fit_psychometric`.

    Returns
    -------
    list of plates.analysis.psychometric.PsychometricFit
        One per group, in order.

    Raises
    ------
    ValueError
        Counts that are not one number per level with 0 <= correct <= trials, or a bad family, guess or lapse.

    Examples
    --------
    >>> fit, = fit_psychometric_counts([([1, 2, 4, 8, 16], [10, 11, 14, 19, 20], [20] * 5, 0.5)])
    >>> fit.status, round(fit.threshold, 2), round(fit.ci_low, 2), round(fit.ci_high, 2)
    ('fit', 4.79, 3.09, 7.98)
    """
    check_family(family)
    counts = []
    for levels, correct, trials, guess in groups:
        check_guess_lapse(guess, 0.0 if lapse is None else lapse)
        x, k, n = (np.asarray(v, dtype=float).ravel() for v in (levels, correct, trials))
        if not (x.shape == k.shape == n.shape) or np.any(k < 0) or np.any(k > n) or not np.all(np.isfinite(n)):
            raise ValueError(f"levels, correct and trials must be one number per level with 0 <= correct <= "
                             f"trials; got shapes {x.shape}, {k.shape}, {n.shape}")
        used = n > 0
        x, k, n = x[used], k[used], n[used]
        counts.append((*pool_levels(x, k, n, family), int(round(n.sum())), float(guess)))
    return _fit_counts(counts, lapse=lapse, family=family, confidence=confidence, interval=interval)


def _fit_counts(groups: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, int, float]], *, lapse: float | None,
                family: str, confidence: float, interval: bool) -> list[PsychometricFit]:
    """`fit_psychometric` of many groups at once, each (distinct levels, correct per level, trials per level,
    n, γ) from `grouped`: every group's maximum and profile interval together
    (`plates.analysis.likelihood.fit_batch`: the same estimates as one scipy fit per group, far cheaper)."""
    cutoff = likelihood.chi2_cutoff(confidence) if interval else None
    fixed = lapse is not None
    fits: list[PsychometricFit | None] = [None] * len(groups)
    todo = []
    for i, (xs, _k, _n, total, guess) in enumerate(groups):
        common = {"guess": guess, "family": family, "n": total, "lapse_fixed": fixed, "confidence": float(confidence)}
        positive = xs[xs > 0] if family == "weibull" else xs
        if positive.size < 2:
            what = "positive levels (the weibull family ignores level 0)" if family == "weibull" else "levels"
            nan = float("nan")
            fits[i] = PsychometricFit("too-few", nan, nan, nan, nan, float(lapse) if fixed else nan, x_min=nan,
                                      x_max=nan, extrapolated=False, log_likelihood=nan, converged=False,
                                      message=f"need answers at two or more distinct {what}; got {positive.size}",
                                      **common)
        else:
            todo.append((i, common, positive))
    if not todo:
        return fits
    width = max(groups[i][0].size for i, _, _ in todo)
    u, k_all, n_all = np.zeros((len(todo), width)), np.zeros((len(todo), width)), np.zeros((len(todo), width))
    guesses = np.array([groups[i][4] for i, _, _ in todo])
    lower, upper, starts, start_rows = [], [], [], []
    for row, (i, _, positive) in enumerate(todo):
        xs, k, n = groups[i][:3]
        ui = to_u(family, xs)
        u[row, :xs.size], u[row, xs.size:] = ui, ui[-1]  # padding: no trials there
        k_all[row, :xs.size], n_all[row, :xs.size] = k, n
        u_lo, u_hi = to_u(family, positive[[0, -1]])
        span = u_hi - u_lo
        bounds = [(u_lo - span, u_hi + span), (np.log(0.5 / span), np.log(1000.0 / span))]
        if not fixed:
            bounds.append((0.0, LAPSE_MAX))
        lower.append([b[0] for b in bounds])
        upper.append([b[1] for b in bounds])
        if bool(np.all(k == n)):  # the likelihood is 1 on a plateau below the levels: start on it, lower corner
            group_starts = [np.array([bounds[0][0], bounds[1][1], *([0.0] if not fixed else [])])]
        else:
            group_starts = grid_starts(ui, k, n, guesses[row], lapse, family, bounds)
        starts += group_starts
        start_rows += [row] * len(group_starts)
    fun = batch_nll(u, k_all, n_all, guesses, lapse, family)
    lower_a, upper_a, start_rows_a = np.array(lower), np.array(upper), np.array(start_rows)
    batch = likelihood.fit_batch(fun, np.array(starts), start_rows_a, lower_a, upper_a, cutoff=cutoff)
    monotone = monotone_from_counts([groups[i][1:3] for i, _, _ in todo])  # every group's bootstrap together
    for row, (i, common, positive) in enumerate(todo):
        theta, nll, converged = batch.theta[row], float(batch.nll[row]), bool(batch.converged[row])
        prof_low, prof_high = float(batch.low[row]), float(batch.high[row])
        if batch.trouble[row]:
            theta, nll, converged, prof_low, prof_high = likelihood.refit_row(
                fun, row, [starts[s] for s in np.flatnonzero(start_rows_a == row)], lower[row], upper[row], cutoff)
        xs, k, n, _, guess = groups[i]
        fits[i] = _psychometric_fit(theta, nll, converged, prof_low, prof_high, xs, k, n, positive, guess, lapse,
                                    family, upper[row][1], interval, common, monotone[row])
    return fits


def batch_nll(u: np.ndarray, k: np.ndarray, n: np.ndarray, guess: np.ndarray, lapse: float | None,
               family: str) -> likelihood.BatchFun:
    """The negative binomial log-likelihood of θ = (α on the u axis, log β[, λ]) and its analytic gradient, for
    many groups, for `plates.analysis.likelihood.fit_batch`.

    ψ = γ + (1 − γ − λ) F(β (u − α)) (Wichmann & Hill 2001, eq. 1) is clipped into [`EPS`, 1 − `EPS`]; the
    likelihood has no binomial coefficients.

    Parameters
    ----------
    u : numpy.ndarray
        Levels on the family's axis (`to_u`), shape (G, levels), one row per group; a group with fewer levels
        is padded at the end.
    k : numpy.ndarray
        Correct answers per level, shape (G, levels); padded levels hold none.
    n : numpy.ndarray
        Trials per level, shape (G, levels); padded levels hold none, so they add nothing.
    guess : numpy.ndarray
        Each group's guess rate γ (a proportion 0-1), shape (G,).
    lapse : float or None
        The fixed lapse rate, or None when λ is θ's last entry.
    family : str
        One of `FAMILIES`.

    Returns
    -------
    plates.analysis.likelihood.BatchFun
        ``fun(theta, rows)``: for θ of shape (R, 2 or 3) and the ``rows`` (R,) of the groups they belong to,
        the negative log-likelihood, shape (R,), and its gradient in θ, shape (R, 2 or 3).
    """
    def fun(theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        uu, kk, nn, g = u[rows], k[rows], n[rows], guess[rows][:, None]
        a, b = theta[:, :1], np.exp(theta[:, 1:2])
        lam = theta[:, 2:3] if lapse is None else lapse
        with np.errstate(invalid="ignore"):
            z = b * (uu - a)
        f, df = cdf_pdf(family, z)
        scale = 1.0 - g - lam
        psi = np.clip(g + scale * f, EPS, 1.0 - EPS)
        ll = np.sum(kk * np.log(psi) + (nn - kk) * np.log1p(-psi), axis=1)
        dpsi = kk / psi - (nn - kk) / (1.0 - psi)
        zdf = np.where(df > 0, z * df, 0.0)
        grad = [-np.sum(dpsi * scale * df, axis=1) * b[:, 0], np.sum(dpsi * scale * zdf, axis=1)]
        if lapse is None:
            grad.append(-np.sum(dpsi * f, axis=1))
        return -ll, -np.stack(grad, axis=1)

    return fun


def _psychometric_fit(theta: np.ndarray, nll: float, converged: bool, prof_low: float, prof_high: float,
                      xs: np.ndarray, k: np.ndarray, n: np.ndarray, positive: np.ndarray, guess: float,
                      lapse: float | None, family: str, log_b_max: float, interval: bool,
                      common: dict[str, Any], monotone: tuple[float, float]) -> PsychometricFit:
    """The `PsychometricFit` of an optimum θ with its interval: goodness of fit, the monotonicity and chance
    tests, and the status they and the curve's place on the levels give."""
    from scipy import stats  # lazy: see the module imports
    fixed = lapse is not None
    a_u, log_b = float(theta[0]), float(theta[1])
    lam = float(lapse) if fixed else float(theta[2])
    u_lo, u_hi = to_u(family, positive[[0, -1]])
    f_lo, f_hi = cdf(family, np.exp(log_b) * (np.array([u_lo, u_hi]) - a_u))
    low, high = (from_u(family, prof_low), from_u(family, prof_high)) if interval else (np.nan, np.nan)
    x_lo, x_hi = float(positive[0]), float(positive[-1])
    ll = -nll
    params = 2 if fixed else 3
    deviance = max(0.0, 2.0 * (bernoulli_ll(k, n, k / n) - ll))
    m_dev, m_p = monotone  # `plates.analysis.psychometric.monotone_from_counts`
    c_dev, c_p = chance_from_counts(k, n, float(guess), ll, params)
    fields = dict(slope=float(np.exp(log_b)), lapse=lam, x_min=x_lo, x_max=x_hi, log_likelihood=ll,
                  converged=converged, deviance=deviance,
                  deviance_p=float(stats.chi2.sf(deviance, xs.size - params)) if xs.size > params else np.nan,
                  monotone_deviance=m_dev, monotone_p=m_p, chance_deviance=c_dev, chance_p=c_p, **common)
    all_correct = bool(np.all(k == n))
    if m_p < MONOTONE_ALPHA:
        return PsychometricFit("non-monotonic", np.nan, np.nan, np.nan, extrapolated=False,
                               message=f"accuracy falls as the level rises (monotonicity test p = {m_p:.2g}, "
                                       f"deviance {m_dev:.3g}): the answers follow something other than the "
                                       "level, so no level is a threshold", **fields)
    if all_correct or f_lo >= 0.99:
        return PsychometricFit("below-range", np.nan, from_u(family, -np.inf), high, extrapolated=True,
                               message=f"{'all' if all_correct else 'every level'} correct but for lapses: "
                                       f"the threshold lies below {x_lo:.4g}", **fields)
    if f_hi <= 0.01:
        return PsychometricFit("above-range", np.nan, low, np.inf, extrapolated=True,
                               message=f"at or below the guess rate {guess:.4g} at every level: the threshold "
                                       f"lies above {x_hi:.4g}", **fields)
    if c_p > CHANCE_ALPHA:
        return PsychometricFit("at-chance", np.nan, np.nan, np.nan, extrapolated=False,
                               message=f"the answers cannot be told from guessing at rate {guess:.4g} "
                                       f"(p = {c_p:.2g}) at the tested levels [{x_lo:.4g}, {x_hi:.4g}]",
                               **fields)
    threshold = from_u(family, a_u)
    extrapolated = not x_lo <= threshold <= x_hi
    if interval:
        low, high = threshold_interval(xs, k, n, positive, float(guess), lapse, family, log_b_max,
                                        common["confidence"], prof_low, prof_high)
    steep = log_b >= log_b_max - 1e-6
    message = "; ".join(m for m in (
        f"threshold {threshold:.4g} extrapolated outside the tested levels [{x_lo:.4g}, {x_hi:.4g}]"
        if extrapolated else "",
        "slope at its upper bound (a step between two levels)" if steep else "",
    ) if m)
    return PsychometricFit("fit", threshold, low, high, extrapolated=extrapolated, message=message, **fields)


def fit_groups(
    frame: pd.DataFrame, by: str | Sequence[str], *, level: str = "delta_e", correct: str = "correct",
    guess: float | str, lapse: float | None = None, family: str = "logistic", confidence: float = 0.95,
    interval: bool = True,
) -> pd.DataFrame:
    """One `fit_psychometric` per group of ``frame`` (e.g. model × prompt × condition × colour set); groups
    are never pooled (a null key is a group of its own).

    ``guess``: a γ for every group, or the name of a column holding each row's γ (constant within a group:
    e.g. filled from `guess_rate` per prompt kind). Rows with a null ``correct`` (failed requests) or a null
    level are left out and counted in ``errors``. A ``weight`` column (`plates.analysis.metrics.WEIGHT`) makes a
    row count as that many trials.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows with the ``by`` columns, ``level`` and ``correct``.
    by : str or sequence of str
        Grouping columns.
    level : str
        The level column (ΔE2000 for plates).
    correct : str
        The verdict column.
    guess : float or str
        γ for every group, or the name of a column holding each row's γ (one value per group).
    lapse : float or None
        None to fit λ in [0, 0.06], or fixed.
    family : str
        A psychometric family (`plates.analysis.psychometric.FAMILIES`).
    confidence : float
        Level of the threshold's interval.
    interval : bool
        Compute that interval.

    Returns
    -------
    pandas.DataFrame
        ``by...``, ``n``, ``errors`` and the fields of `PsychometricFit` (but ``family``/``confidence``, the
        same on every row).

    Raises
    ------
    ValueError
        A needed column missing, or a ``guess`` column with more than one value in a group.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313.
    """
    by = [by] if isinstance(by, str) else list(by)
    if not by:
        raise ValueError("by must name at least one column (fit_psychometric fits a single group)")
    columns = [*by, level, correct, *([guess] if isinstance(guess, str) else [])]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"fit_groups needs columns {missing}; the frame has {list(frame.columns)}")
    fields = [f for f in PsychometricFit.__dataclass_fields__ if f not in ("family", "confidence")]
    check_family(family)
    rows, counts = [], []
    # only the columns a fit reads travel into the grouping (a wide table copied costs more than the grouping);
    # one groupby numbers the groups, then each group is a slice of numpy arrays (a pandas group apiece cost
    # milliseconds: hundreds of groups on the dashboard)
    frame = frame[list(dict.fromkeys([*columns, *([WEIGHT] if WEIGHT in frame.columns else [])]))]
    grouper = frame.groupby(by, sort=True, dropna=False, observed=True)
    keys = list(grouper.size().reset_index()[by].itertuples(index=False, name=None))
    rank = np.argsort(grouper.ngroup().to_numpy(dtype=np.int64), kind="stable")
    ordered = frame.iloc[rank]
    ok = ordered[correct].notna().to_numpy() & ordered[level].notna().to_numpy()
    w = row_weights(ordered)  # a collapsed row (the dashboard's DuckDB counts) stands for `weight` rows
    verdicts = ordered[correct][ok]
    verdicts = verdicts.to_numpy(dtype=bool) if pd.api.types.is_bool_dtype(verdicts.dtype) else (
        verdicts.to_numpy(dtype=object) if verdicts.dtype == object else verdicts.to_numpy())
    levels = ordered[level][ok].to_numpy(dtype=float)
    rates = ordered[guess].to_numpy(dtype=float) if isinstance(guess, str) else None
    edges = np.concatenate([[0], np.cumsum(grouper.size().to_numpy())])
    used_edges = np.concatenate([[0], np.cumsum(ok)])[edges]  # the same groups among the rows a fit uses
    for g, key in enumerate(keys):
        start, stop, used_start, used_stop = edges[g], edges[g + 1], used_edges[g], used_edges[g + 1]
        if rates is not None:
            part = rates[start:stop][ok[start:stop]] if used_stop > used_start else rates[start:stop]
            values = np.unique(part[~np.isnan(part)])
            if len(values) != 1:
                raise ValueError(f"guess column {guess!r} must hold one value per group; group {key} has "
                                 f"{sorted(values.tolist())}")
            group_guess = float(values[0])
        else:
            group_guess = guess
        check_guess_lapse(group_guess, 0.0 if lapse is None else lapse)
        group_w = w[start:stop]
        xs, k, n, total = grouped(levels[used_start:used_stop], verdicts[used_start:used_stop], family,
                                  group_w[ok[start:stop]])
        counts.append((xs, k, n, total, float(group_guess)))
        rows.append({**dict(zip(by, key)), "errors": int(group_w[~ok[start:stop]].sum())})
    fits = _fit_counts(counts, lapse=lapse, family=family, confidence=confidence, interval=interval)  # all at once
    rows = [{**row, **{f: getattr(fit, f) for f in fields}} for row, fit in zip(rows, fits)]
    table = pd.DataFrame(rows, columns=[*by, "errors", *fields])
    return table[[*by, "n", "errors", *[f for f in fields if f != "n"]]]
