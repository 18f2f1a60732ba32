"""Maximum likelihood and profile-likelihood intervals for small bounded models (scipy.optimize).

Shared by `plates.analysis.psychometric_fits` and `plates.analysis.pse`. `fit_batch` fits many groups at once (the
dashboard's tables: hundreds of small fits), `fit` one group with scipy (and the groups `fit_batch` hands back). A model is a negative log-likelihood
``fun(theta)`` over a parameter vector whose first entry is the parameter of interest (a threshold or a PSE);
every parameter has a finite box bound. With ``jac=True`` ``fun`` returns ``(nll, gradient)``.

The profile-likelihood interval (Venzon & Moolgavkar 1988; Pawitan 2001, *In All Likelihood*, §2.4) is the set
of values ``a`` of the first parameter whose profile deviance ``2 (min_rest nll(a, rest) - nll_min)`` stays at
or below the chi-square(1) quantile of the confidence level. Each side is bracketed by stepping outward from
the optimum (doubling steps) and then solved with `scipy.optimize.brentq`; a side that never crosses the cutoff
inside the bound is open (±inf).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# scipy.optimize and scipy.stats are imported where used: ~1 s of CPU that the apps' first pages never need
import numpy as np

Bounds = Sequence[tuple[float, float]]
#: The optimiser: SLSQP, not L-BFGS-B, whose C implementation (scipy >= 1.15) calls multithreaded OpenBLAS on
#: every iteration and ran these 3-parameter fits 4x slower on a busy 2-core machine (same optima).
METHOD = "SLSQP"
_OPTIONS = {"ftol": 1e-10, "maxiter": 200}


@dataclass(frozen=True)
class Optimum:
    """A local minimum of a negative log-likelihood.

    Parameters
    ----------
    theta : numpy.ndarray
        The parameters there (read-only).
    nll : float
        The negative log-likelihood there.
    converged : bool
        The optimiser's verdict.
    """

    theta: np.ndarray
    nll: float
    converged: bool


def minimise(fun: Callable, theta0: np.ndarray, bounds: Bounds, *, jac: bool) -> Optimum:
    """`METHOD` from ``theta0`` inside the box ``bounds``.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` -> negative log-likelihood, or (value, gradient) with ``jac``.
    theta0 : numpy.ndarray
        The start.
    bounds : Bounds
        One (low, high) per parameter.
    jac : bool
        ``fun`` returns its gradient too.

    Returns
    -------
    Optimum
    """
    from scipy import optimize  # lazy: see the module imports
    res = optimize.minimize(fun, np.asarray(theta0, dtype=float), jac=jac, method=METHOD, bounds=bounds,
                           options=_OPTIONS)
    theta = np.asarray(res.x, dtype=float)
    theta.setflags(write=False)
    return Optimum(theta, float(res.fun), bool(res.success))


def chi2_cutoff(confidence: float) -> float:
    """The profile-deviance cutoff of a ``confidence`` interval for one parameter.

    Parameters
    ----------
    confidence : float
        Strictly between 0 and 1.

    Returns
    -------
    float
        chi2(1).ppf(confidence).

    Raises
    ------
    ValueError
        ``confidence`` outside (0, 1).

    Examples
    --------
    >>> round(chi2_cutoff(0.95), 4)
    3.8415
    """
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    from scipy import stats  # lazy: see the module imports
    return float(stats.chi2.ppf(float(confidence), 1))


@dataclass(frozen=True)
class Profile:
    """A profile-likelihood interval of the first parameter.

    Parameters
    ----------
    low : float
        Lower end (-inf: open at the bound).
    high : float
        Upper end (+inf: open at the bound).
    better : numpy.ndarray or None
        A point whose negative log-likelihood beats the optimum by more than 1e-6 (the optimiser had stopped
        in a local minimum: refit from there), or None.
    """

    low: float
    high: float
    better: np.ndarray | None


def profile_interval(
    fun: Callable, best: Optimum, bounds: Bounds, *, cutoff: float, jac: bool
) -> Profile:
    """Profile-likelihood interval of ``theta[0]`` around the optimum ``best`` (see the module docstring).

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` -> negative log-likelihood, or (value, gradient) with ``jac``.
    best : Optimum
        The optimum the interval is taken around.
    bounds : Bounds
        One (low, high) per parameter, finite; ``bounds[0]`` limits the interval.
    cutoff : float
        The profile-deviance cutoff (`chi2_cutoff`).
    jac : bool
        ``fun`` returns its gradient too.

    Returns
    -------
    Profile
        The interval (an end open at its bound is ±inf) and the best point met below the optimum, if any.

    References
    ----------
    Venzon & Moolgavkar (1988), *Applied Statistics* 37(1): 87-94; Pawitan (2001), *In All Likelihood*, §2.4.
    """
    lo_bound, hi_bound = (float(b) for b in bounds[0])
    span = hi_bound - lo_bound
    rest_bounds = list(bounds[1:])
    found: list[tuple[float, np.ndarray]] = []  # (nll, theta) of points better than the optimum

    def profile(a: float, start: np.ndarray) -> tuple[float, np.ndarray]:
        if jac:
            def inner(rest: np.ndarray) -> tuple[float, np.ndarray]:
                value, grad = fun(np.concatenate(([a], rest)))
                return value, grad[1:]
        else:
            def inner(rest: np.ndarray) -> float:
                return fun(np.concatenate(([a], rest)))
        from scipy import optimize  # lazy: see the module imports
        res = optimize.minimize(inner, start, jac=jac, method=METHOD, bounds=rest_bounds,
                                   options=_OPTIONS)
        value = float(res.fun)
        if value < best.nll - 1e-6:
            found.append((value, np.concatenate(([a], res.x))))
        return value, np.asarray(res.x, dtype=float)

    def side(direction: int) -> float:
        edge = hi_bound if direction > 0 else lo_bound
        a_in, start = float(best.theta[0]), np.asarray(best.theta[1:], dtype=float)
        if a_in == edge:
            return direction * np.inf
        step = span / 64
        while True:
            a_out = min(max(a_in + direction * step, lo_bound), hi_bound)
            value, start_out = profile(a_out, start)
            if 2.0 * (value - best.nll) > cutoff:
                break
            if a_out == edge:
                return direction * np.inf
            a_in, start = a_out, start_out
            step *= 2.0

        def excess(a: float) -> float:
            return 2.0 * (profile(a, start)[0] - best.nll) - cutoff

        if excess(a_in) >= 0.0:  # warm starts differ: the inner side already crosses; keep the bracket's edge
            return a_in
        from scipy import optimize  # lazy: see the module imports
        return float(optimize.brentq(excess, a_in, a_out, xtol=span * 1e-6, rtol=1e-10))

    low, high = side(-1), side(+1)
    better = min(found, key=lambda f: f[0])[1] if found else None
    return Profile(float(low), float(high), better)


def fit(
    fun: Callable, starts: Sequence[np.ndarray], bounds: Bounds, *, jac: bool, cutoff: float | None
) -> tuple[Optimum, Profile | None]:
    """The best of the optimiser's runs from ``starts`` and, when ``cutoff`` is given, the profile interval of
    ``theta[0]``; a better point met while profiling restarts the search from it (twice at most).

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` -> negative log-likelihood, or (value, gradient) with ``jac``.
    starts : sequence of numpy.ndarray
        Optimiser starts (at least one); the lowest end point wins.
    bounds : Bounds
        One finite (low, high) per parameter.
    jac : bool
        ``fun`` returns its gradient too.
    cutoff : float or None
        The profile-deviance cutoff (`chi2_cutoff`), or None for no interval.

    Returns
    -------
    (Optimum, Profile or None)
        The optimum, and the interval of ``theta[0]`` (None without ``cutoff``).
    """
    best = min((minimise(fun, s, bounds, jac=jac) for s in starts), key=lambda o: o.nll)
    if cutoff is None:
        return best, None
    for _ in range(3):
        prof = profile_interval(fun, best, bounds, cutoff=cutoff, jac=jac)
        if prof.better is None:
            return best, prof
        best = min((best, minimise(fun, prof.better, bounds, jac=jac)), key=lambda o: o.nll)
    return best, prof


# ------------------------------------------------------------------------------------------ many fits at once
# The dashboard fits hundreds of small groups (a model x prompt x condition each); one scipy optimisation costs
# about a millisecond of Python overhead and a fit with its profile interval needs about 25 of them. Below, the
# same estimates (the maximum, and the profile interval solved to the same tolerance as `profile_interval`) for
# every group at once: a projected Newton method in numpy over all groups' parameter vectors together, the
# Hessian by forward differences of the analytic gradient. A group where it meets trouble (a better point while
# profiling: a local minimum; a line search that cannot descend) is refitted by `fit`, one by one.
#
# ``fun(theta, rows)``: theta (B, P) parameter vectors, rows (B,) the group each belongs to; returns the
# negative log-likelihoods (B,) and their gradients (B, P).
BatchFun = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
_NEWTON_ITER = 100
_ARMIJO = 1e-4


@dataclass(frozen=True)
class BatchFit:
    """`fit` over G groups at once.

    Parameters
    ----------
    theta : numpy.ndarray
        (G, P) optima.
    nll : numpy.ndarray
        (G,) negative log-likelihoods there.
    converged : numpy.ndarray
        (G,) bool.
    low : numpy.ndarray
        (G,) lower ends of the profile interval of ``theta[:, 0]`` (NaN without a cutoff).
    high : numpy.ndarray
        (G,) upper ends.
    trouble : numpy.ndarray
        (G,) bool: groups to refit one by one with `fit`.
    """

    theta: np.ndarray
    nll: np.ndarray
    converged: np.ndarray
    low: np.ndarray
    high: np.ndarray
    trouble: np.ndarray


def _newton(fun: BatchFun, theta: np.ndarray, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray, *,
            hold_first: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Minimise each row of ``theta`` (B, P) inside its box [lower, upper] (B, P): a projected Newton method
    (variables on a bound with the gradient pointing out are held; the Hessian's eigenvalues made positive),
    backtracking (Armijo) line search. ``hold_first``: theta[:, 0] stays as given (a profile). Returns theta,
    nll and whether each row converged (a predicted decrease below 1e-12 relative)."""
    theta = np.clip(np.array(theta, dtype=float), lower, upper)
    b, p = theta.shape
    f, g = fun(theta, rows)
    done = np.zeros(b, dtype=bool)
    ok = np.zeros(b, dtype=bool)
    width = upper - lower
    for _ in range(_NEWTON_ITER):
        idx = np.flatnonzero(~done)
        if not idx.size:
            break
        th, gi, fi, lo, hi, r = theta[idx], g[idx], f[idx], lower[idx], upper[idx], rows[idx]
        edge = 1e-12 * width[idx]
        free = ~(((th <= lo + edge) & (gi > 0)) | ((th >= hi - edge) & (gi < 0)))
        if hold_first:
            free[:, 0] = False
        hess = np.zeros((idx.size, p, p))
        # a column is read only where its variable is free (below): differences only there (a profile's held
        # first parameter, a lapse or band on its bound, costs no gradient); every column's moved points in one
        # call of ``fun`` (each row's value depends on that row alone: the same numbers as a call per column)
        which, moving = np.nonzero(free.T)  # (column, row) of each difference
        if which.size:
            h = 1e-7 * np.maximum(1.0, np.abs(th[moving, which]))
            h = np.where(th[moving, which] + h > hi[moving, which], -h, h)
            moved = th[moving].copy()
            moved[np.arange(which.size), which] += h
            hess[moving, :, which] = (fun(moved, r[moving])[1] - gi[moving]) / h[:, None]
        both = free[:, :, None] & free[:, None, :]
        hess = np.where(both, 0.5 * (hess + hess.transpose(0, 2, 1)), 0.0) + np.eye(p) * (~free)[:, :, None]
        w, v = np.linalg.eigh(hess)
        w = np.maximum(np.abs(w), 1e-10 * np.maximum(1.0, np.abs(w).max(axis=1, keepdims=True)))
        pg = np.where(free, gi, 0.0)
        step = -np.einsum("bij,bj->bi", v, np.einsum("bji,bj->bi", v, pg) / w)
        step = np.where(free, step, 0.0)
        predicted = -np.einsum("bi,bi->b", pg, step)  # the Newton decrement: the decrease a quadratic promises
        finished = predicted <= 1e-12 * (1.0 + np.abs(fi))
        t = np.ones(idx.size)
        new, fn, gn = th.copy(), fi.copy(), gi.copy()
        pending = ~finished
        for _ in range(40):
            if not pending.any():
                break
            k = np.flatnonzero(pending)
            trial = np.clip(th[k] + t[k, None] * step[k], lo[k], hi[k])
            ft, gt = fun(trial, r[k])
            good = ft <= fi[k] + _ARMIJO * np.einsum("bi,bi->b", gi[k], trial - th[k])
            new[k[good]], fn[k[good]], gn[k[good]] = trial[good], ft[good], gt[good]
            pending[k[good]] = False
            t[k[~good]] *= 0.5
        stuck = pending  # no descent along the Newton direction: at the limit of the arithmetic
        theta[idx], f[idx], g[idx] = new, fn, gn
        done[idx] = finished | stuck
        ok[idx] = finished | (stuck & (predicted <= 1e-8 * (1.0 + np.abs(fi))))
    return theta, f, ok


def refit_row(
    fun: Callable, row: int, starts: Sequence[np.ndarray], lower: Sequence[float], upper: Sequence[float],
    cutoff: float | None,
) -> tuple[np.ndarray, float, bool, float, float]:
    """One group of a batch fitted again by `fit` (scipy), for a row `fit_batch` marks ``trouble`` (a local
    minimum met while profiling, or no descent). ``fun`` is the batch's objective (θ rows, group rows) -> (value,
    gradient); ``starts``, ``lower`` and ``upper`` are that row's. Returns θ, its negative log-likelihood, whether
    it converged, and the profile interval's ends (NaN without one).

    Parameters
    ----------
    fun : BatchFun
        The batch's objective.
    row : int
        The group to refit.
    starts : sequence of numpy.ndarray
        That group's optimiser starts, (P,) each.
    lower, upper : sequence of float
        That group's box, P each.
    cutoff : float or None
        The profile-deviance cutoff, or None for no interval.

    Returns
    -------
    (numpy.ndarray, float, bool, float, float)
        θ (P,), its negative log-likelihood, whether it converged, the interval's low and high ends.
    """

    def one(t: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = fun(t[None, :], np.array([row]))
        return float(value[0]), grad[0]

    best, prof = fit(one, list(starts), list(zip(lower, upper)), jac=True, cutoff=cutoff)
    low, high = (prof.low, prof.high) if prof else (np.nan, np.nan)
    return best.theta, best.nll, best.converged, low, high


def fit_batch(fun: BatchFun, starts: np.ndarray, start_rows: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              *, cutoff: float | None, restarts: int = 2) -> BatchFit:
    """`fit` for G groups at once (the notes above): ``starts`` (S, P) optimiser starts, ``start_rows`` (S,)
    the group of each (every group at least one; the best end point wins), ``lower``/``upper`` (G, P) each
    group's box; the profile interval of theta[:, 0] when ``cutoff`` is given, solved as `profile_interval`
    solves it (the bracket doubled from span/64, then the crossing to span x 1e-6). A group whose profile met a
    better point than its optimum (a local minimum) is fitted again from the best such point, in a batch of its
    own, ``restarts`` times at most, as `fit` restarts from it (still in trouble after: refit one by one).

    Parameters
    ----------
    fun : BatchFun
        ``fun(theta, rows)``: θ (B, P) and the group (B,) of each -> negative log-likelihoods (B,) and
        gradients (B, P).
    starts : numpy.ndarray
        (S, P) optimiser starts.
    start_rows : numpy.ndarray
        (S,) the group of each start; every group has at least one.
    lower, upper : numpy.ndarray
        (G, P) each group's finite box.
    cutoff : float or None
        The profile-deviance cutoff (`chi2_cutoff`), or None for no interval.
    restarts : int, optional
        Batch refits from a better point met while profiling, at most.

    Returns
    -------
    BatchFit
        Every group's optimum and interval; ``trouble`` marks the groups to refit with `refit_row`.
    """
    groups = lower.shape[0]
    ends, values, ok = _newton(fun, starts, start_rows, lower[start_rows], upper[start_rows], hold_first=False)
    theta = np.empty_like(lower)
    nll = np.full(groups, np.inf)
    converged = np.zeros(groups, dtype=bool)
    for s in range(starts.shape[0]):  # the best start of each group
        gi = start_rows[s]
        if values[s] < nll[gi]:
            theta[gi], nll[gi], converged[gi] = ends[s], values[s], ok[s]
    low, high = np.full(groups, np.nan), np.full(groups, np.nan)
    trouble = ~converged
    if cutoff is None:
        return BatchFit(theta, nll, converged, low, high, trouble)
    better, better_nll = np.full_like(theta, np.nan), nll - 1e-6  # the best point met below each optimum
    rows = np.arange(groups)
    span = upper[:, 0] - lower[:, 0]
    for direction, out in ((-1, low), (1, high)):
        edge = upper[:, 0] if direction > 0 else lower[:, 0]
        a_in, a_out = theta[:, 0].copy(), np.full(groups, np.nan)
        rest = theta.copy()  # the profile's solution at a_in
        h_in = np.full(groups, -np.sqrt(cutoff))  # the signed root below
        h_out = np.full(groups, np.nan)
        step = span / 64
        out[a_in == edge] = direction * np.inf
        open_ = a_in != edge
        while open_.any():  # bracket: step outward, doubling, until the deviance crosses the cutoff
            k = np.flatnonzero(open_)
            probe = rest[k].copy()
            probe[:, 0] = np.clip(a_in[k] + direction * step[k], lower[k, 0], upper[k, 0])
            probe, value, good = _newton(fun, probe, rows[k], lower[k], upper[k], hold_first=True)
            trouble[k] |= ~good | (value < nll[k] - 1e-6)
            met = value < better_nll[k]
            better[k[met]], better_nll[k[met]] = probe[met], value[met]
            dev = 2.0 * (value - nll[k])
            crossed = dev > cutoff
            at_edge = probe[:, 0] == edge[k]
            a_out[k[crossed]] = probe[crossed, 0]
            h_out[k[crossed]] = np.sqrt(dev[crossed]) - np.sqrt(cutoff)
            out[k[~crossed & at_edge]] = direction * np.inf
            go = ~crossed & ~at_edge
            a_in[k[go]], rest[k[go]] = probe[go, 0], probe[go]
            h_in[k[go]] = np.sqrt(np.maximum(dev[go], 0.0)) - np.sqrt(cutoff)
            step[k[go]] *= 2.0
            open_[k[~go]] = False
        # the crossing: regula falsi (Illinois) on the signed root of the deviance, nearly linear in theta[0]
        solving = ~np.isnan(a_out)
        side_in = np.zeros(groups, dtype=int)  # which end was kept last time (for the Illinois halving)
        for _ in range(100):
            k = np.flatnonzero(solving)
            if not k.size:
                break
            a = (a_in[k] * h_out[k] - a_out[k] * h_in[k]) / (h_out[k] - h_in[k])
            a = np.where(np.isfinite(a) & (a > np.minimum(a_in[k], a_out[k])) & (a < np.maximum(a_in[k], a_out[k])),
                         a, 0.5 * (a_in[k] + a_out[k]))
            probe = rest[k].copy()
            probe[:, 0] = a
            probe, value, good = _newton(fun, probe, rows[k], lower[k], upper[k], hold_first=True)
            trouble[k] |= ~good | (value < nll[k] - 1e-6)
            met = value < better_nll[k]
            better[k[met]], better_nll[k[met]] = probe[met], value[met]
            h = np.sqrt(np.maximum(2.0 * (value - nll[k]), 0.0)) - np.sqrt(cutoff)
            below = h < 0
            kb, ka = k[below], k[~below]
            a_in[kb], h_in[kb], rest[kb] = a[below], h[below], probe[below]
            h_out[kb] = np.where(side_in[kb] == 1, 0.5 * h_out[kb], h_out[kb])
            a_out[ka], h_out[ka] = a[~below], h[~below]
            h_in[ka] = np.where(side_in[ka] == -1, 0.5 * h_in[ka], h_in[ka])
            side_in[kb], side_in[ka] = 1, -1
            finished = (np.abs(a_out[k] - a_in[k]) <= span[k] * 1e-6) | (np.abs(h) <= 1e-12)
            out[k[finished]] = np.where(np.abs(h[finished]) <= 1e-12, a[finished],
                                        0.5 * (a_in[k[finished]] + a_out[k[finished]]))
            solving[k[finished]] = False
        trouble |= solving
    again = np.flatnonzero(trouble & converged & ~np.isnan(better[:, 0]))
    if restarts and again.size:  # local minima: the same fit from the better point, these groups alone
        def sub(t: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return fun(t, again[r])

        redo = fit_batch(sub, better[again], np.arange(again.size), lower[again], upper[again], cutoff=cutoff,
                         restarts=restarts - 1)
        for j, g in enumerate(again):
            if redo.nll[j] < nll[g]:
                theta[g], nll[g], converged[g] = redo.theta[j], redo.nll[j], redo.converged[j]
                low[g], high[g], trouble[g] = redo.low[j], redo.high[j], redo.trouble[j]
    return BatchFit(theta, nll, converged, low, high, trouble)
