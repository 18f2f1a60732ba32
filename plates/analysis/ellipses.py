"""Discrimination ellipses: a centred ellipse fitted to thresholds along directions, intervals by drawing the
thresholds from their posteriors, and the comparison with MacAdam's (1942) ellipses.

Units: chromaticities are CIE 1931 xy; an ellipse is (a, b, theta_deg): semi-axes a >= b in xy units and the
orientation of a from the x axis in degrees, 0-180. Its area is π a b (xy units²).

The fit. Each direction's threshold gives one point p (xy, relative to the centre) on the ellipse
pᵀ M p = 1, M symmetric. With the centre known, the ellipse has three unknowns; three directions on distinct
axes are the least (opposite directions share an axis). They are found by least squares on the logarithm of
the radii: log r_i against log R(φ_i; a, b, θ), the ellipse's radius along each point's direction
(`scipy.optimize.least_squares`, log a and log b bounded to [min r / 100, 100 max r]), started from the
linear least squares of pᵀ M p = 1 over the points. The linear fit alone is not used as the estimate: its
residual pᵀ M p − 1 = (r / R)² − 1 weighs the long radii most, and the area π / √det M is convex in M, so
radii with a relative scatter of 8% (QUEST+'s after 30 trials) gave areas 3-4% too large and 15% scatter
10-18% too large, at any orientation (simulated in tests/analysis/test_ellipses.py); on the logarithm, a
relative error counts the same at every radius and the median area's bias stays within 3%. M not positive definite,
or a log fit that runs to its bounds, is "not-an-ellipse". Goodness of fit: each point's radius against
the fitted radius along its direction, in units of the threshold's posterior standard deviation (from its
95% credible interval, width / 3.92); their sum of squares against χ² with (points − 3) degrees of freedom
gives ``fit_p``; ``fit_rms_rel`` is the RMS of (observed / fitted radius − 1).

Intervals: a bootstrap: ``draws`` times, every direction's threshold is drawn anew and the ellipse refitted;
the 2.5 and 97.5 percentiles of a, b, area and theta (unwrapped around the estimate) are the 95% intervals.
`threshold_draws` draws a direction's thresholds one of two ways (`INTERVAL_METHODS`; the runs write the one
used as ``interval_method``):

* ``"trials"`` (the runs' default): a nonparametric bootstrap of that direction's trials (Efron & Tibshirani
  1993, ch. 6): its n (level shown, answer) pairs are drawn n times with replacement, the QUEST+ posterior
  is rebuilt from them (the same grid and uniform prior) and its threshold estimated as the staircase does.
  It treats the adaptively placed levels as fixed, as bootstraps of staircase data usually do.
* ``"posterior"``: each threshold drawn from its posterior marginal (QUEST+'s grid,
  `plates.analysis.adaptive.AdaptiveState`), a parametric bootstrap that inherits the prior.

References
----------
MacAdam, D. L. (1942), "Visual sensitivities to color differences in daylight", JOSA 32(5): 247-274; the data
as tabulated in Wyszecki & Stiles (2000), Color Science, Table 2(5.4.1), p. 309 (colour-science's
``DATA_MACADAM_1942_ELLIPSES``: x, y, a and b in 10⁻³ xy units, θ in degrees; observed columns used here).
MacAdam's ellipses are standard deviations of colour matching by one observer (PGN), not just-noticeable
differences. Efron, B. & Tibshirani, R. J. (1993), An Introduction to the Bootstrap, Chapman & Hall, ch. 6 and
13 (the nonparametric bootstrap and its percentile intervals).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

# scipy.optimize and scipy.stats are imported where used: ~1 s of CPU that the apps' first pages never need
import numpy as np

from plates.analysis.adaptive import AdaptiveState
from plates.colour.chromaticity import max_luminance
from plates.colour.spaces import colour_science
from plates.validation import check_choice, check_number

__all__ = ["INTERVAL_METHODS", "MACADAM_FACTOR", "Ellipse", "EllipseFit", "compare_macadam", "fit_ellipse",
           "macadam_centres", "macadam_ellipses", "threshold_draws"]

#: How `threshold_draws` draws a direction's thresholds for the intervals (module docstring): the first is the
#: runs' default.
INTERVAL_METHODS = ("trials", "posterior")

#: The factor MacAdam's standard deviations are scaled by to stand beside a threshold: a just-noticeable
#: difference is conventionally taken as about three standard deviations of colour matching (stated in
#: docs/ellipses.md with its caveats: it is a convention, not a measurement at our task's criterion).
MACADAM_FACTOR = 3.0


@lru_cache(maxsize=1)
def macadam_ellipses() -> dict[str, np.ndarray]:
    """MacAdam's 25 observed ellipses: arrays ``x``, ``y`` (CIE 1931 xy), ``a``, ``b`` (semi-axes, xy units,
    i.e. the table's 10⁻³ values / 1000) and ``theta_deg``; ``name`` "macadam-01".."macadam-25" in table order."""
    data = np.asarray(colour_science().DATA_MACADAM_1942_ELLIPSES, dtype=float)
    out = {"x": data[:, 0], "y": data[:, 1], "a": data[:, 2] / 1000, "b": data[:, 3] / 1000,
           "theta_deg": data[:, 4], "name": np.array([f"macadam-{i + 1:02d}" for i in range(len(data))])}
    for v in out.values():
        v.setflags(write=False)
    return out


def macadam_centres() -> tuple[list[tuple[str, float, float]], list[str]]:
    """(the MacAdam centres inside the sRGB triangle as (name, x, y), the names of the others).

    >>> used, skipped = macadam_centres()
    >>> len(used), len(skipped)
    (14, 11)
    """
    table = macadam_ellipses()
    used, skipped = [], []
    for name, x, y in zip(table["name"], table["x"], table["y"], strict=True):
        (used if max_luminance([x, y]) > 0 else skipped).append((str(name), float(x), float(y)))
    return used, [s[0] for s in skipped]


@dataclass(frozen=True)
class Ellipse:
    """A centred ellipse: semi-axes ``a`` >= ``b`` (xy units), ``theta_deg`` of a from the x axis, 0-180.

    Parameters
    ----------
    a : float
        The semi-major axis, CIE 1931 xy units.
    b : float
        The semi-minor axis, xy units.
    theta_deg : float
        The orientation of ``a`` from the x axis, degrees, 0-180.

    Nothing is checked here: the fit (`fit_ellipse`) builds it with ``a`` >= ``b`` > 0.
    """

    a: float
    b: float
    theta_deg: float

    @property
    def area(self) -> float:
        """The area, π a b, xy units²."""
        return float(np.pi * self.a * self.b)

    def radius(self, angle_rad: np.ndarray) -> np.ndarray:
        """The distance from the centre to the ellipse along directions at ``angle_rad`` (from the x axis).

        Parameters
        ----------
        angle_rad : numpy.ndarray
            Directions, radians from the x axis.

        Returns
        -------
        numpy.ndarray
            Distances, xy units.
        """
        t = np.asarray(angle_rad) - np.radians(self.theta_deg)
        return 1.0 / np.sqrt((np.cos(t) / self.a) ** 2 + (np.sin(t) / self.b) ** 2)


def _fit_matrix(points: np.ndarray) -> np.ndarray:
    """Least-squares A, B, C of pᵀ [[A, B], [B, C]] p = 1 over points (n, 2)."""
    x, y = points[:, 0], points[:, 1]
    design = np.stack([x * x, 2 * x * y, y * y], axis=1)
    coef, *_ = np.linalg.lstsq(design, np.ones(len(points)), rcond=None)
    return np.array([[coef[0], coef[1]], [coef[1], coef[2]]])


def _fit_log(points: np.ndarray) -> Ellipse | None:
    """The ellipse whose radii best match the points' in log (module docstring); None when none does."""
    start = _ellipse_of(_fit_matrix(points))
    if start is None:
        return None
    ang = np.arctan2(points[:, 1], points[:, 0])
    log_r = np.log(np.hypot(points[:, 0], points[:, 1]))
    low, high = log_r.min() - np.log(100.0), log_r.max() + np.log(100.0)

    def residuals(p: np.ndarray) -> np.ndarray:
        t = ang - p[2]
        return log_r + 0.5 * np.log((np.cos(t) * np.exp(-p[0])) ** 2 + (np.sin(t) * np.exp(-p[1])) ** 2)

    x0 = np.clip([np.log(start.a), np.log(start.b)], low + 1e-9, high - 1e-9)
    from scipy import optimize  # lazy: see the module imports
    sol = optimize.least_squares(residuals, [x0[0], x0[1], np.radians(start.theta_deg)],
                                 bounds=([low, low, -np.inf], [high, high, np.inf]))
    if not sol.success or np.any(np.isclose(sol.x[:2], low) | np.isclose(sol.x[:2], high)):
        return None
    a, b, theta = float(np.exp(sol.x[0])), float(np.exp(sol.x[1])), float(np.degrees(sol.x[2]))
    if b > a:
        a, b, theta = b, a, theta + 90.0
    return Ellipse(a, b, theta % 180.0)


def _ellipse_of(m: np.ndarray) -> Ellipse | None:
    values, vectors = np.linalg.eigh(m)  # ascending: the smaller eigenvalue is the major axis
    if values[0] <= 0:
        return None
    major = vectors[:, 0]
    theta = float(np.degrees(np.arctan2(major[1], major[0])) % 180.0)
    return Ellipse(float(1 / np.sqrt(values[0])), float(1 / np.sqrt(values[1])), theta)


def _axes(angles: np.ndarray) -> int:
    return len({round(float(np.degrees(a)) % 180.0, 6) % 180.0 for a in angles})


@dataclass(frozen=True)
class EllipseFit:
    """One centre's ellipse: the estimate (None when no ellipse was fitted), 95% intervals, the points used,
    ``fit_p`` and ``fit_rms_rel`` (module docstring), ``status`` ("fit", "not-an-ellipse", "too-few-directions",
    "at-chance", "non-monotonic") and ``message``.

    Parameters
    ----------
    ellipse : Ellipse or None
        The estimate; None when ``status`` is "not-an-ellipse", "too-few-directions" or "at-chance" (a
        "non-monotonic" fit keeps its ellipse).
    a_ci, b_ci : (float, float)
        95% intervals of the semi-axes, xy units (NaN without draws or an estimate).
    theta_ci : (float, float)
        95% interval of the orientation, degrees (unwrapped around the estimate).
    area_ci : (float, float)
        95% interval of the area, xy units².
    points : int
        The threshold points given.
    fit_p : float
        The goodness of fit: χ² survival probability with (points − 3) degrees of freedom (NaN with 3 points).
    fit_rms_rel : float
        RMS of (observed / fitted radius − 1).
    status : str
        "fit", "not-an-ellipse", "too-few-directions", "at-chance" or "non-monotonic".
    message : str
        Why the status is not "fit", in words (empty when it is).
    """

    ellipse: Ellipse | None
    a_ci: tuple[float, float]
    b_ci: tuple[float, float]
    theta_ci: tuple[float, float]
    area_ci: tuple[float, float]
    points: int
    fit_p: float
    fit_rms_rel: float
    status: str
    message: str


_NAN2 = (float("nan"), float("nan"))


def fit_ellipse(angles_xy: Sequence[float], radii: Sequence[float], sd: Sequence[float],
                draws: Sequence[Sequence[float]] | None = None, statuses: Sequence[str] = ()) -> EllipseFit:
    """Fit a centred ellipse to thresholds (module docstring).

    Parameters
    ----------
    angles_xy : direction of each threshold point from the centre in the xy plane, radians.
    radii : its distance from the centre, xy units (> 0).
    sd : its posterior standard deviation, xy units (for the goodness of fit).
    draws : optional (draws, points) radii drawn from the posteriors, xy units, for the intervals.
    statuses : each direction's threshold status ("fit", "at-chance", "non-monotonic", ...).

    Returns
    -------
    EllipseFit

    Raises
    ------
    ValueError
        Lengths differ or a radius is not a positive finite number.
    """
    ang, r, s = (np.asarray(v, dtype=float) for v in (angles_xy, radii, sd))
    if not (ang.shape == r.shape == s.shape) or ang.ndim != 1:
        raise ValueError(f"angles, radii and sd must be 1-d of one length, got {ang.shape}, {r.shape}, {s.shape}")
    if r.size and not np.all(np.isfinite(r) & (r > 0)):
        raise ValueError(f"radii must be positive finite xy distances, got {r.tolist()}")
    statuses = list(statuses)
    empty = dict(a_ci=_NAN2, b_ci=_NAN2, theta_ci=_NAN2, area_ci=_NAN2, points=int(r.size), fit_p=float("nan"),
                 fit_rms_rel=float("nan"))
    if statuses and sum(st == "at-chance" for st in statuses) * 2 > len(statuses):
        return EllipseFit(None, **empty, status="at-chance",
                          message=f"{sum(st == 'at-chance' for st in statuses)} of {len(statuses)} directions "
                                  "answered at chance: no ellipse")
    if _axes(ang) < 3:
        return EllipseFit(None, **empty, status="too-few-directions",
                          message=f"{r.size} threshold points on {_axes(ang)} axes; a centred ellipse needs 3 axes")
    points = np.stack([r * np.cos(ang), r * np.sin(ang)], axis=1)
    ellipse = _fit_log(points)
    if ellipse is None:
        return EllipseFit(None, **empty, status="not-an-ellipse",
                          message="the thresholds fit no ellipse (the quadratic form is not positive definite, "
                                  "or an axis runs to 100 times the longest radius)")
    fitted = ellipse.radius(ang)
    rms = float(np.sqrt(np.mean((r / fitted - 1) ** 2)))
    dof = r.size - 3
    from scipy import stats  # lazy: see the module imports
    fit_p = float(stats.chi2.sf(np.sum(((r - fitted) / np.maximum(s, 1e-12)) ** 2), dof)) if dof > 0 else float("nan")
    cis = dict(a_ci=_NAN2, b_ci=_NAN2, theta_ci=_NAN2, area_ci=_NAN2)
    if draws is not None:
        d = np.asarray(draws, dtype=float)
        fits = [_fit_log(np.stack([row * np.cos(ang), row * np.sin(ang)], axis=1)) for row in d]
        fits = [f for f in fits if f is not None]
        if fits:
            a = np.array([f.a for f in fits])
            b = np.array([f.b for f in fits])
            th = np.array([f.theta_deg for f in fits])
            th = ellipse.theta_deg + (th - ellipse.theta_deg + 90.0) % 180.0 - 90.0  # unwrap around the estimate
            q = lambda v: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5)))  # noqa: E731
            cis = dict(a_ci=q(a), b_ci=q(b), theta_ci=q(th), area_ci=q(np.pi * a * b))
    status, message = "fit", ""
    if "non-monotonic" in statuses:
        status = "non-monotonic"
        message = f"{statuses.count('non-monotonic')} direction(s) answered non-monotonically in the level"
    return EllipseFit(ellipse, **cis, points=int(r.size), fit_p=fit_p, fit_rms_rel=rms, status=status,
                      message=message)


def threshold_draws(state: AdaptiveState, draws: int, rng: np.random.Generator,
                    method: str = INTERVAL_METHODS[0]) -> np.ndarray:
    """``draws`` bootstrap thresholds of one direction's staircase (module docstring, Intervals).

    Parameters
    ----------
    state : the direction's QUEST+ state (task "threshold"), its history the (level shown, answer) trials.
    draws : how many, >= 1.
    rng : the stream the resamples come from.
    method : "trials" (resample the trials, rebuild the posterior, estimate) or "posterior" (draw from the
        posterior marginal); `INTERVAL_METHODS`.

    Returns
    -------
    numpy.ndarray
        (draws,) thresholds in the state's level units (the runs: 10⁻³ u'v').

    Raises
    ------
    ValueError
        ``method`` not one of `INTERVAL_METHODS`, ``draws`` below 1, or a "trials" bootstrap of a state with no
        trials.

    >>> from plates.analysis.adaptive import AdaptiveSpec
    >>> spec = AdaptiveSpec.for_threshold(0.5, low=1.0, high=4.0, n_candidates=4, threshold_step=1.0)
    >>> state = AdaptiveState.replay(spec, [(2.0, 1)] * 3)  # three identical trials: every resample is them
    >>> draws = threshold_draws(state, 5, np.random.default_rng(0))
    >>> bool(np.allclose(draws, state.estimate().threshold))
    True
    """
    check_choice("method", method, INTERVAL_METHODS)
    check_number("draws", draws, 1, 10**6, integer=True)
    spec = state.spec
    if method == "posterior":
        marginal = state.posterior.sum(axis=(1, 2, 3))
        return rng.choice(np.asarray(spec.thresholds), size=draws, p=marginal / marginal.sum())
    history = state.history
    n = len(history)
    if n == 0:
        raise ValueError("a 'trials' bootstrap needs trials; the state has none (allowed: method 'posterior')")
    codes = [spec.outcomes.index(int(answer)) for _, answer in history]
    p = spec.probabilities([level for level, _ in history])[codes, np.arange(n)].reshape(n, -1)
    log_lik = np.log(np.maximum(p, 1e-300))  # (trials, grid): each trial's term of the log posterior
    start = AdaptiveState.start(spec)
    out = np.empty(draws)
    for i, counts in enumerate(rng.multinomial(n, np.full(n, 1.0 / n), size=draws)):
        resampled = tuple(h for h, c in zip(history, counts, strict=True) for _ in range(c))
        out[i] = replace(start, history=resampled, log_posterior=counts @ log_lik).estimate().threshold
    return out


def compare_macadam(ellipse: Ellipse, name: str, factor: float = MACADAM_FACTOR) -> dict[str, float]:
    """An observer's ellipse beside MacAdam's at centre ``name`` ("macadam-NN") scaled by ``factor``.

    Parameters
    ----------
    ellipse : Ellipse
        The observer's ellipse.
    name : str
        A MacAdam centre, "macadam-NN".
    factor : float, optional
        MacAdam's ellipse is scaled by it.

    Returns
    -------
    dict with ``macadam_a``, ``macadam_b`` (scaled, xy units), ``macadam_theta_deg``, ``macadam_factor``,
    ``area_ratio`` (observer / scaled MacAdam), ``axis_ratio`` ((a/b) observer / (a/b) MacAdam) and
    ``theta_diff_deg`` (observer − MacAdam, wrapped to -90..90).

    Raises
    ------
    ValueError
        ``name`` is not a MacAdam centre, or ``factor`` is not positive.

    >>> row = compare_macadam(Ellipse(0.0069, 0.0027, 58.0), "macadam-13")
    >>> round(row["area_ratio"], 2), round(row["theta_diff_deg"], 1)
    (1.0, 0.0)
    """
    table = macadam_ellipses()
    names = [str(n) for n in table["name"]]
    if name not in names:
        raise ValueError(f"centre {name!r} is not a MacAdam centre; allowed: {names[0]}..{names[-1]}")
    if not (np.isfinite(factor) and factor > 0):
        raise ValueError(f"factor {factor!r} is not allowed; allowed: a positive number")
    i = names.index(name)
    a, b, th = factor * table["a"][i], factor * table["b"][i], float(table["theta_deg"][i])
    return {"macadam_a": float(a), "macadam_b": float(b), "macadam_theta_deg": th, "macadam_factor": float(factor),
            "area_ratio": ellipse.area / float(np.pi * a * b),
            "axis_ratio": (ellipse.a / ellipse.b) / float(a / b),
            "theta_diff_deg": float((ellipse.theta_deg - th + 90.0) % 180.0 - 90.0)}
