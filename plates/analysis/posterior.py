"""Equal-tailed credible intervals of one parameter from a grid posterior (numpy), for small bounded models.

Shared by `plates.analysis.psychometric_fits` (the threshold interval of a constant-stimuli fit). A model gives its
log-likelihood on a grid, ``loglik(a, log_b, lam)`` -> array of shape ``(a.size, log_b.size, lam.size)``: ``a``
the parameter of interest (a threshold on the fit's axis), ``log_b`` the log of a scale nuisance (a slope), ``lam``
a second nuisance (a lapse rate). The prior is uniform in ``a`` over its range, uniform in ``log_b`` (log-uniform
in the slope) and uniform over the ``lam`` values given: the priors of the project's adaptive procedure
(`plates.analysis.adaptive.AdaptiveSpec.for_threshold`: a threshold uniform over the levels' range, log-spaced
slopes, lapses 0-0.06; Watson 2017, *J. Vision* 17(3):10, §"Prior"). The marginal posterior of ``a`` is the sum
over the nuisances (Prins 2013, *J. Vision* 13(7):3, "Psi-marginal": nuisances integrated out, not profiled);
the interval's ends are its quantiles, interpolated on the trapezoid cumulative.

Passes: a coarse grid over the whole box, then a fine one over the part of it where the marginals exceed 1e-7 of
their peak (in ``a`` and in ``log_b``), zooming again (4 fine passes at most) until that part fills at least half
the fine grid, so a posterior 1/1000 of the range wide is resolved as well as a wide one. Deterministic: no sampling, no seed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["credible_interval"]

COARSE = (61, 17)  # grid points in (a, log_b) of the first pass
FINE = (121, 25)  # and of the second, over the region that holds the posterior
_PASSES = 4  # fine passes at most: each zooms in on the kept part until it fills at least half the grid
_KEEP = 1e-7  # a grid slice is kept for the second pass where its marginal exceeds this share of the peak


def _marginals(loglik: Callable, a: np.ndarray, log_b: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ll = np.asarray(loglik(a, log_b, lam), dtype=float)
    if ll.shape != (a.size, log_b.size, lam.size) or not np.all(np.isfinite(ll)):
        raise ValueError(f"loglik must return finite values of shape {(a.size, log_b.size, lam.size)}, "
                         f"got {ll.shape}")
    w = np.exp(ll - ll.max())
    return w.sum(axis=(1, 2)), w.sum(axis=(0, 2))


def _span(marginal: np.ndarray, grid: np.ndarray) -> tuple[float, float]:
    """The grid range where ``marginal`` exceeds `_KEEP` of its peak, one grid step wider on each side."""
    kept = np.nonzero(marginal > marginal.max() * _KEEP)[0]
    i0, i1 = max(int(kept[0]) - 1, 0), min(int(kept[-1]) + 1, grid.size - 1)
    return float(grid[i0]), float(grid[i1])


def credible_interval(loglik: Callable, a_range: tuple[float, float], log_b_range: tuple[float, float],
                      lapses: np.ndarray, *, confidence: float) -> tuple[float, float]:
    """The equal-tailed ``confidence`` credible interval of ``a`` (module docstring) under a prior uniform over
    ``a_range`` × ``log_b_range`` × the values ``lapses``; both ranges finite with low < high.

    Parameters
    ----------
    loglik : callable
        ``loglik(a, log_b, lam)`` -> finite log-likelihoods of shape ``(a.size, log_b.size, lam.size)``.
    a_range : (float, float)
        The prior's range of ``a`` (the fit's axis), low < high.
    log_b_range : (float, float)
        The prior's range of ``log_b``, low < high.
    lapses : numpy.ndarray
        The lapse values, equally likely a priori.
    confidence : float
        The interval's level, strictly in (0, 1).

    Returns
    -------
    (float, float)
        The interval's ends, in ``a``'s units.

    Raises
    ------
    ValueError
        ``confidence`` outside (0, 1), a range not finite or not low < high, or ``loglik`` returning another
        shape or a value that is not finite.

    References
    ----------
    Prins (2013), *J. Vision* 13(7):3 (Psi-marginal); Watson (2017), *J. Vision* 17(3):10, §"Prior".
    """
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    (a_lo, a_hi), (b_lo, b_hi) = (tuple(float(v) for v in r) for r in (a_range, log_b_range))
    if not (np.isfinite([a_lo, a_hi, b_lo, b_hi]).all() and a_lo < a_hi and b_lo < b_hi):
        raise ValueError(f"a_range and log_b_range must be finite (low, high) with low < high, got "
                         f"{a_range!r}, {log_b_range!r}")
    lam = np.atleast_1d(np.asarray(lapses, dtype=float))
    a, log_b = np.linspace(a_lo, a_hi, COARSE[0]), np.linspace(b_lo, b_hi, COARSE[1])
    marginal_a, marginal_b = _marginals(loglik, a, log_b, lam)
    for _ in range(_PASSES):
        (a0, a1), (b0, b1) = _span(marginal_a, a), _span(marginal_b, log_b)
        resolved = a.size == FINE[0] and a1 - a0 > (a[-1] - a[0]) / 2  # the kept part is most of the grid
        if resolved:
            break
        a, log_b = np.linspace(a0, a1, FINE[0]), np.linspace(b0, b1, FINE[1])
        marginal_a, marginal_b = _marginals(loglik, a, log_b, lam)
    cdf = np.concatenate(([0.0], np.cumsum((marginal_a[1:] + marginal_a[:-1]) / 2.0)))
    cdf /= cdf[-1]
    tail = (1.0 - float(confidence)) / 2.0
    low, high = np.interp([tail, 1.0 - tail], cdf, a)
    return float(low), float(high)
