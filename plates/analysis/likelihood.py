"""Maximum likelihood and profile-likelihood intervals for small bounded models (scipy.optimize).

Shared by `plates.analysis.psychometric` and `plates.analysis.pse`. A model is a negative log-likelihood
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

import numpy as np
from scipy import optimize, stats

Bounds = Sequence[tuple[float, float]]
#: The optimiser: SLSQP, not L-BFGS-B, whose C implementation (scipy >= 1.15) calls multithreaded OpenBLAS on
#: every iteration and ran these 3-parameter fits 4x slower on a busy 2-core machine (same optima).
METHOD = "SLSQP"
_OPTIONS = {"ftol": 1e-10, "maxiter": 200}


@dataclass(frozen=True)
class Optimum:
    """A local minimum of a negative log-likelihood: ``theta`` (read-only), ``nll``, the optimiser's verdict."""

    theta: np.ndarray
    nll: float
    converged: bool


def minimise(fun: Callable, theta0: np.ndarray, bounds: Bounds, *, jac: bool) -> Optimum:
    """`METHOD` from ``theta0`` inside the box ``bounds``."""
    res = optimize.minimize(fun, np.asarray(theta0, dtype=float), jac=jac, method=METHOD, bounds=bounds,
                           options=_OPTIONS)
    theta = np.asarray(res.x, dtype=float)
    theta.setflags(write=False)
    return Optimum(theta, float(res.fun), bool(res.success))


def chi2_cutoff(confidence: float) -> float:
    """The profile-deviance cutoff of a ``confidence`` interval for one parameter: chi2(1).ppf(confidence)."""
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return float(stats.chi2.ppf(float(confidence), 1))


@dataclass(frozen=True)
class Profile:
    """A profile-likelihood interval ``(low, high)`` of the first parameter (±inf: open at the bound), and
    ``better``: a point whose negative log-likelihood beats the optimum by more than 1e-6 (the optimiser had
    stopped in a local minimum: refit from there), or None."""

    low: float
    high: float
    better: np.ndarray | None


def profile_interval(
    fun: Callable, best: Optimum, bounds: Bounds, *, cutoff: float, jac: bool
) -> Profile:
    """Profile-likelihood interval of ``theta[0]`` around the optimum ``best`` (see the module docstring)."""
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
        return float(optimize.brentq(excess, a_in, a_out, xtol=span * 1e-6, rtol=1e-10))

    low, high = side(-1), side(+1)
    better = min(found, key=lambda f: f[0])[1] if found else None
    return Profile(float(low), float(high), better)


def fit(
    fun: Callable, starts: Sequence[np.ndarray], bounds: Bounds, *, jac: bool, cutoff: float | None
) -> tuple[Optimum, Profile | None]:
    """The best of the optimiser's runs from ``starts`` and, when ``cutoff`` is given, the profile interval of
    ``theta[0]``; a better point met while profiling restarts the search from it (twice at most)."""
    best = min((minimise(fun, s, bounds, jac=jac) for s in starts), key=lambda o: o.nll)
    if cutoff is None:
        return best, None
    for _ in range(3):
        prof = profile_interval(fun, best, bounds, cutoff=cutoff, jac=jac)
        if prof.better is None:
            return best, prof
        best = min((best, minimise(fun, prof.better, bounds, jac=jac)), key=lambda o: o.nll)
    return best, prof
