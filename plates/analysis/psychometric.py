"""Chance-aware psychometric functions and their maximum-likelihood fits.

The function of stimulus level ``x`` (plates: the CIEDE2000 difference ΔE2000 between text and background dots
in CIELAB, D65, 2°; illusions: see `plates.analysis.pse`) is

    ψ(x) = γ + (1 − γ − λ) F(x; α, β)

(Wichmann & Hill 2001, *Percept. Psychophys.* 63(8), eq. 1), where ``γ`` (guess) is the share correct of an
observer who sees nothing, fixed by the task (`guess_rate`), ``λ`` (lapse) the share of trials lost to
inattention at any level, and ``F`` a sigmoid from 0 to 1 with ``F(α) = ½``. So the **threshold** ``α`` is the
level where ψ is halfway between the guess rate and the ceiling: ψ(α) = γ + (1 − γ − λ)/2 (75% correct on a
yes/no task without lapses; 62.5% on a 4-way choice; 50.5% on an open answer over 100 labels).

Families (``F``; ``β`` is the slope parameter, its unit depends on the family):

* ``"logistic"``: F = 1 / (1 + exp(−β (x − α))); β per unit of x (the 25–75% rise of F spans 2 ln 3 / β).
* ``"gaussian"``: F = Φ(β (x − α)), the cumulative normal with σ = 1/β.
* ``"weibull"``: F = 1 − exp(−ln 2 · (x/α)^β), x ≥ 0, β the (unit-free) shape; the ln 2 (our choice) puts
  F(α) = ½. A Gumbel curve in log x, the natural choice on a log ΔE scale.

Fits (`fit_psychometric`; many groups at once: `fit_psychometric_counts`, `fit_groups`) maximise the binomial
likelihood over the distinct levels (a projected Newton method in a box, started from a vectorised grid,
every group together: `plates.analysis.likelihood.fit_batch`; scipy's SLSQP for a group it cannot settle); ``λ`` is fitted inside [0, `LAPSE_MAX`] = [0, 0.06] (the range
Wichmann & Hill 2001 allow it) or fixed by the caller.

**The threshold's interval** (`_threshold_interval`, the one every page, report and bench shows for a located
threshold) is the equal-tailed credible interval of a grid posterior (`plates.analysis.posterior`) under the
priors of the project's staircase (`plates.analysis.adaptive.AdaptiveSpec.for_threshold`: the threshold uniform
over the tested levels on the fit's axis, the slope log-uniform over the fit's box, the lapse uniform on 0, 0.02,
0.04, 0.06 or fixed), slope and lapse integrated out (Prins 2013, *J. Vision* 13(7):3), then widened where needed
to the profile-likelihood interval (`plates.analysis.likelihood`; Venzon & Moolgavkar 1988) so it always holds
the maximum-likelihood threshold and is never narrower than the profile says. Deterministic, no seed. Why not
the profile alone: at small n the likelihood's best curve is often a step (the slope at its upper bound between
two levels one answer apart), and the profile around a step is far too narrow. Coverage of the TRUE threshold,
nominal 95%, simulated observers (100 seeds each; bench/bench_psychometric.py prints this interval's coverage
in both designs), 40 single answers over ΔE2000 0.5-40 (the staircase's equal-cost sweep): profile
alone 80% yes/no, 74-75% 4-way, 98% open over 90 labels; this interval 98%, 92-94%, 99% (median width 9.7, 7.6-9.1,
2.9 ΔE2000 against 4.3, 3.7-7.0, 2.2). With 10 answers at each of 20 levels over 1-20 both agree (profile 88-96%,
this 92-97%, widths within 5%). "below-range" / "above-range" keep the profile's one-sided limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from plates.analysis import likelihood, posterior
from plates.analysis.metrics import row_weights
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.validation import check_choice

__all__ = [
    "ANSWER_KINDS",
    "FAMILIES",
    "LAPSE_MAX",
    "CHANCE_ALPHA",
    "MONOTONE_ALPHA",
    "STATUSES",
    "PsychometricFit",
    "fit_groups",
    "fit_psychometric",
    "fit_psychometric_counts",
    "chance_test",
    "guess_rate",
    "monotone_test",
    "prompt_guess_rate",
    "psychometric",
    "sigmoid",
]

#: Answer kinds and their guess rate (the prompt kinds of the tasks registry: "yesno", "mc", "open").
ANSWER_KINDS = ("yesno", "mc", "open")
FAMILIES = ("logistic", "gaussian", "weibull")
#: Upper bound of a fitted lapse rate (Wichmann & Hill 2001 constrain λ to [0, 0.06]).
LAPSE_MAX = 0.06
#: Fit outcomes: "fit" (threshold located; ``extrapolated`` says whether outside the tested levels),
#: "below-range" / "above-range" (every tested level sits on the ceiling / on the guess floor, so the data
#: place the threshold below the lowest / above the highest level but not where), "non-monotonic" (accuracy
#: falls as the level rises by more than chance allows: `monotone_test`; the observer answers to something
#: other than the level, so no level is its threshold), "at-chance" (the answers cannot be told from guessing
#: at any tested level: `chance_test`), "too-few" (no data or fewer than two distinct levels).
STATUSES = ("fit", "below-range", "above-range", "non-monotonic", "at-chance", "too-few")
#: Significance level of `monotone_test` and `chance_test` behind the "non-monotonic" and "at-chance" statuses.
MONOTONE_ALPHA = 0.001
CHANCE_ALPHA = 0.01
_MONOTONE_DRAWS = 1000  # parametric bootstrap draws of `monotone_test` (its p is never below 1/1001)
_EPS = 1e-12  # ψ is clipped to [_EPS, 1 - _EPS] inside logarithms


def guess_rate(answer_kind: str, n_options: int | None = None, label_space_size: int | None = None) -> float:
    """The share correct of an observer who sees nothing (γ), set by the task.

    * ``"yesno"``: ½ (a balanced design: half the candidates shown are the true label; ColorBlindnessEval
      §3.1 asks both). No ``n_options`` / ``label_space_size``.
    * ``"mc"``: 1/``n_options`` for a k-way choice (ColorBench §3: 2-6 options; HueManity: 4 options).
    * ``"open"``: 1/``label_space_size``: a uniform guess over the labels that can be drawn (ColorBlindnessEval
      §3: 100 numbers; HueManity App. B.1: 90 numbers or 3,364 pairs).
    """
    def count(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
            raise ValueError(f"{name} must be an integer >= 2 for answer kind {answer_kind!r}, got {value!r}")
        return int(value)

    check_choice("answer kind", answer_kind, ANSWER_KINDS)
    extra = {"n_options": n_options, "label_space_size": label_space_size}
    wanted = {"yesno": None, "mc": "n_options", "open": "label_space_size"}[answer_kind]
    for name, value in extra.items():
        if name != wanted and value is not None:
            raise ValueError(f"answer kind {answer_kind!r} takes no {name} (got {value!r}); "
                             f"it needs {wanted or 'nothing else'}")
    if wanted is None:
        return 0.5
    return 1.0 / count(wanted, extra[wanted])


def prompt_guess_rate(template: Any, n_options: int | None = None) -> float:
    """γ of a prompt template (`plates.tasks.prompts.PromptTemplate`: its ``kind``, ``n_options`` and
    ``label_space``): `guess_rate` of its kind, with ``n_options`` options shown (default: the template's) or
    its label space's size; 0 for an open prompt over an unbounded space ("any": no finite guess)."""
    if template.kind == "open":
        space = LABEL_SPACES.get(template.label_space)
        return guess_rate("open", label_space_size=len(space)) if space else 0.0
    if template.kind == "mc":
        return guess_rate("mc", n_options=template.n_options if n_options is None else n_options)
    return guess_rate(template.kind)


def _check_family(family: str) -> None:
    check_choice("family", family, FAMILIES)


def _to_u(family: str, x: np.ndarray) -> np.ndarray:
    """The axis each family is a location-scale curve on: x itself, or log x (Weibull; log 0 = -inf)."""
    if family != "weibull":
        return x
    with np.errstate(divide="ignore"):
        return np.log(x)


def _from_u(family: str, u: float) -> float:
    return float(np.exp(u)) if family == "weibull" else float(u)


def cdf_pdf(family: str, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F(z) and dF/dz of the standard curve of ``family`` (F(0) = ½)."""
    if family == "logistic":
        f = special.expit(z)
        return f, f * (1.0 - f)
    if family == "gaussian":
        return special.ndtr(z), np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    with np.errstate(over="ignore"):
        e = np.log(2.0) * np.exp(z)
        return -np.expm1(-e), np.exp(np.log(np.log(2.0)) + z - e)


def _check_guess_lapse(guess: Any, lapse: Any) -> None:
    try:
        g, lam = np.asarray(guess, dtype=float), np.asarray(lapse, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"guess and lapse must be numbers, got guess={guess!r}, lapse={lapse!r}") from None
    if not np.all((g >= 0.0) & (g < 1.0)):
        raise ValueError(f"guess must lie in [0, 1), got {guess!r}")
    if not np.all((lam >= 0.0) & (lam < 1.0 - g)):
        raise ValueError(f"lapse must lie in [0, 1 - guess), got lapse={lapse!r} with guess={guess!r}")


def sigmoid(x: Any, threshold: Any, slope: Any, family: str = "logistic") -> np.ndarray:
    """F(x; α, β) of ``family`` (module docstring), broadcast over its arguments; F(threshold) = ½."""
    _check_family(family)
    x, a, b = (np.asarray(v, dtype=float) for v in (x, threshold, slope))
    if not np.all(b > 0):
        raise ValueError(f"slope must be > 0, got {slope!r}")
    if family == "weibull" and (np.any(x < 0) or not np.all(a > 0)):
        raise ValueError(f"the weibull family needs levels >= 0 and thresholds > 0, got x={x!r}, "
                         f"threshold={threshold!r}")
    return cdf_pdf(family, b * (_to_u(family, x) - _to_u(family, a)))[0]


def psychometric(
    x: Any, threshold: Any, slope: Any, *, guess: Any, lapse: Any = 0.0, family: str = "logistic"
) -> np.ndarray:
    """ψ(x) = guess + (1 − guess − lapse) F(x; threshold, slope): the probability of a correct answer at
    level ``x`` (ΔE2000 for plates), broadcast over its arguments."""
    _check_guess_lapse(guess, lapse)
    return np.asarray(guess, float) + (1.0 - np.asarray(guess, float) - np.asarray(lapse, float)) * sigmoid(
        x, threshold, slope, family)


@dataclass(frozen=True)
class PsychometricFit:
    """One maximum-likelihood fit of ψ (module docstring) to answers at levels ``x`` (ΔE2000 for plates).

    ``threshold``: α, the level where ψ is halfway between ``guess`` and ``1 - lapse`` (NaN unless status is
    "fit"); ``ci_low``/``ci_high``: its interval at ``confidence`` (module docstring; ±inf where open; for
    "below-range" only ``ci_high`` is finite: an upper limit, and for "above-range" only ``ci_low``);
    ``extrapolated``: the threshold lies outside ``[x_min, x_max]``, the tested levels. ``slope``: β (family
    units); ``lapse``: fitted within [0, 0.06] unless ``lapse_fixed``; ``guess``: the task's γ.
    ``log_likelihood``: Σ log P(answer) over the ``n`` single trials (Bernoulli, no binomial coefficients).
    ``converged``: the optimiser's verdict. ``message``: what the status means for these data.

    Goodness of fit (NaN for "too-few"): ``deviance`` = 2 (log L of one free accuracy per level − log L of
    the curve), ``deviance_p`` its χ² tail with (levels − fitted parameters) degrees of freedom (NaN when
    none are left; small p: the curve's shape does not describe the data, Wichmann & Hill 2001 §"goodness of
    fit" use the same deviance); ``monotone_deviance`` / ``monotone_p``: `monotone_test` (status
    "non-monotonic" when ``monotone_p`` < `MONOTONE_ALPHA`); ``chance_deviance`` / ``chance_p``: the curve
    against guessing at every level (status "at-chance" when ``chance_p`` > `CHANCE_ALPHA`).
    """

    status: str
    threshold: float
    ci_low: float
    ci_high: float
    slope: float
    lapse: float
    guess: float
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
    deviance: float = float("nan")
    deviance_p: float = float("nan")
    monotone_deviance: float = float("nan")
    monotone_p: float = float("nan")
    chance_deviance: float = float("nan")
    chance_p: float = float("nan")

    def predict(self, x: Any) -> np.ndarray:
        """ψ at levels ``x``. "below-range": the ceiling 1 − lapse; "above-range" and "at-chance": the guess
        rate (the only parts of the curve the data locate); "non-monotonic" and "too-few": NaN."""
        x = np.asarray(x, dtype=float)
        if self.status == "below-range":
            return np.full(x.shape, 1.0 - self.lapse)
        if self.status in ("above-range", "at-chance"):
            return np.full(x.shape, self.guess)
        if self.status != "fit":
            return np.full(x.shape, np.nan)
        return psychometric(x, self.threshold, self.slope, guess=self.guess, lapse=self.lapse, family=self.family)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _binary(correct: Any) -> np.ndarray:
    """``correct`` as a float 0/1 array; ValueError on anything but booleans or 0/1 (nulls included)."""
    raw = np.asarray(correct).ravel()
    if raw.dtype.kind not in "biuf":
        raw = np.asarray(correct, dtype=object).ravel()
    if raw.dtype.kind in "iuf":
        bad = raw[(raw != 0) & (raw != 1)].tolist()
    elif raw.dtype == object:
        bad = [v for v in raw if not (isinstance(v, (bool, np.bool_, int, float, np.integer, np.floating))
                                      and v in (0, 1))]
    else:
        bad = []
    if bad:
        raise ValueError(f"correct must hold booleans or 0/1; found {bad[0]!r} (drop failed requests first)")
    return raw.astype(float)


def _grouped(levels: Any, correct: Any, family: str,
             weights: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(distinct levels, correct per level, trials per level, n) after validation; ``weights``: trials each
    (level, verdict) stands for (default 1 each)."""
    x = np.asarray(levels, dtype=float).ravel()
    y = _binary(correct)
    if x.shape != y.shape:
        raise ValueError(f"levels and correct differ in length: {x.size} vs {y.size}")
    w = np.ones(x.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != x.shape or not np.all(np.isfinite(w)) or np.any(w < 1):
        raise ValueError(f"weights must be one number >= 1 per level ({x.size}); got {w.size} values")
    if not np.all(np.isfinite(x)):
        raise ValueError("levels must be finite numbers; found NaN or inf -- drop those rows first")
    if family == "weibull" and np.any(x < 0):
        raise ValueError(f"the weibull family needs levels >= 0; found {x[x < 0][0]!r}")
    xs, inverse = np.unique(x, return_inverse=True)
    k = np.bincount(inverse, weights=y * w, minlength=xs.size)
    n = np.bincount(inverse, weights=w, minlength=xs.size)
    return xs, k, n, int(round(w.sum()))


def _grid_starts(u: np.ndarray, k: np.ndarray, n: np.ndarray, guess: float, lapse: float | None, family: str,
                 bounds: list[tuple[float, float]]) -> list[np.ndarray]:
    """The two best points (different thresholds) of a vectorised grid over the box, as optimiser starts."""
    if u.size > 64:  # the grid only seeds the optimiser: pool neighbouring levels into 64 bins
        edges = np.linspace(0, u.size, 65).astype(int)
        u = np.add.reduceat(u * n, edges[:-1]) / np.add.reduceat(n, edges[:-1])
        k, n = np.add.reduceat(k, edges[:-1]), np.add.reduceat(n, edges[:-1])
    a = np.linspace(*bounds[0], 49)[1:-1]
    log_b = np.linspace(*bounds[1], 25)
    lam = np.array([0.0, 0.03, LAPSE_MAX]) if lapse is None else np.array([lapse])
    z = np.exp(log_b)[None, :, None, None] * (u[None, None, None, :] - a[:, None, None, None])
    psi = guess + (1.0 - guess - lam)[None, None, :, None] * cdf_pdf(family, z)[0]
    psi = np.clip(psi, _EPS, 1.0 - _EPS)
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
    """The log-likelihood of the grouped answers on a grid of (α on the u axis, log β, λ), for
    `plates.analysis.posterior.credible_interval`; thresholds in blocks so memory stays small."""
    def loglik(a: np.ndarray, log_b: np.ndarray, lam: np.ndarray) -> np.ndarray:
        out = np.empty((a.size, log_b.size, lam.size))
        scale = (1.0 - guess - lam)[None, None, :, None]
        b = np.exp(log_b)[None, :, None]
        step = max(1, 200_000 // max(1, log_b.size * lam.size * u.size))
        for i in range(0, a.size, step):
            f = cdf_pdf(family, b * (u[None, None, :] - a[i:i + step, None, None]))[0]
            psi = np.clip(guess + scale * f[:, :, None, :], _EPS, 1.0 - _EPS)
            out[i:i + step] = np.log(psi) @ k + np.log1p(-psi) @ (n - k)
        return out
    return loglik


def _threshold_interval(xs: np.ndarray, k: np.ndarray, n: np.ndarray, positive: np.ndarray, guess: float,
                        lapse: float | None, family: str, log_b_max: float, confidence: float,
                        prof_low: float, prof_high: float) -> tuple[float, float]:
    """THE interval of a located threshold (status "fit"), in level units: the equal-tailed credible interval
    of `plates.analysis.posterior` (threshold uniform over the tested levels on the fit's axis, slope
    log-uniform over the fit's box, lapse uniform on 0, 0.02, 0.04, 0.06 as in
    `plates.analysis.adaptive.AdaptiveSpec`, or fixed), widened where needed to the profile-likelihood interval
    (``prof_low``, ``prof_high`` on the fit's axis; module docstring: why)."""
    u_lo, u_hi = _to_u(family, positive[[0, -1]])
    lapses = np.array([lapse]) if lapse is not None else np.linspace(0.0, LAPSE_MAX, 4)
    low, high = posterior.credible_interval(_grid_loglik(_to_u(family, xs), k, n, guess, family), (u_lo, u_hi),
                                            (float(np.log(0.5 / (u_hi - u_lo))), log_b_max), lapses,
                                            confidence=confidence)
    return _from_u(family, min(low, prof_low)), _from_u(family, max(high, prof_high))


def _bernoulli_ll(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> float:
    """Σ k log p + (n − k) log(1 − p), with 0 log 0 = 0 (a probability of 0 or 1 where every answer agrees)."""
    return float(np.sum(special.xlogy(k, p) + special.xlogy(n - k, 1.0 - p)))


def _iso_deviance(k: np.ndarray, n: np.ndarray) -> tuple[float, np.ndarray]:
    """2 (log L of one accuracy per level − log L of the best non-decreasing accuracies) and the latter."""
    rate = k / n
    iso = np.clip(optimize.isotonic_regression(rate, weights=n, increasing=True).x, 0.0, 1.0)
    return max(0.0, 2.0 * (_bernoulli_ll(k, n, rate) - _bernoulli_ll(k, n, iso))), iso


def _monotone(k: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """(deviance, p) of the saturated per-level fit against the best non-decreasing one (`monotone_test`)."""
    if k.size < 2:
        return 0.0, 1.0
    deviance, iso = _iso_deviance(k, n)
    if deviance < 1e-9:
        return 0.0, 1.0
    pooled_out = k.size - 1 - int(np.count_nonzero(np.abs(np.diff(iso)) > 1e-12))
    p = float(stats.chi2.sf(deviance, pooled_out))  # an upper bound: every pooled level a free parameter
    if p < MONOTONE_ALPHA:
        return deviance, p
    # the bound is far from sharp when one dip pools many levels: a parametric bootstrap from the ordered
    # fit (the likeliest monotone observer) settles it, with a fixed seed so the verdict is deterministic
    rng = np.random.Generator(np.random.PCG64(0))
    draws = rng.binomial(n.astype(np.int64), iso, size=(_MONOTONE_DRAWS, k.size)).astype(float)
    if k.size > _MAXMIN_LEVELS:
        above = sum(_iso_deviance(row, n)[0] >= deviance - 1e-9 for row in draws)
    else:
        chunk = max(1, 2**20 // (k.size * k.size))  # draws per pass: about 8 MB of means each
        above = sum(int(np.count_nonzero(_iso_deviances(draws[i:i + chunk], n) >= deviance - 1e-9))
                    for i in range(0, len(draws), chunk))
    return deviance, (1 + above) / (1 + _MONOTONE_DRAWS)


_MAXMIN_LEVELS = 64  # `_iso_deviances` holds draws x levels x levels numbers: beyond this, PAVA draw by draw


def _iso_deviances(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """`_iso_deviance` of each row of ``k`` (draws, levels) over the same trials ``n``, all at once: the
    isotonic fit by the max-min formula (Barlow et al. 1972, ch. 1: the fit at level i is the largest over
    j <= i of the smallest over k >= i of the weighted mean of levels j..k), equal to pool-adjacent-violators."""
    cum = np.concatenate([np.zeros((k.shape[0], 1)), np.cumsum(k, axis=1)], axis=1)
    weight = np.concatenate([[0.0], np.cumsum(n)])
    size = n.size
    j, last = np.triu_indices(size)
    means = np.full((k.shape[0], size, size), np.inf)  # [draw, j, k]: the mean of levels j..k
    means[:, j, last] = (cum[:, last + 1] - cum[:, j]) / (weight[last + 1] - weight[j])
    suffix_min = np.minimum.accumulate(means[:, :, ::-1], axis=2)[:, :, ::-1]  # [draw, j, i]: min over k >= i
    suffix_min[:, np.tril_indices(size, -1)[0], np.tril_indices(size, -1)[1]] = -np.inf  # j > i: not a start
    iso = np.clip(suffix_min.max(axis=1), 0.0, 1.0)
    rate = k / n
    ll_rate = np.sum(special.xlogy(k, rate) + special.xlogy(n - k, 1.0 - rate), axis=1)
    ll_iso = np.sum(special.xlogy(k, iso) + special.xlogy(n - k, 1.0 - iso), axis=1)
    return np.maximum(0.0, 2.0 * (ll_rate - ll_iso))


def _chance(k: np.ndarray, n: np.ndarray, guess: float, log_likelihood: float, params: int) -> tuple[float, float]:
    """(deviance, p) of a fitted curve (``log_likelihood``, ``params`` free parameters) against answering at
    the guess rate everywhere."""
    deviance = max(0.0, 2.0 * (log_likelihood - _bernoulli_ll(k, n, np.full(k.shape, guess))))
    return deviance, float(stats.chi2.sf(deviance, params))


def monotone_test(levels: Any, correct: Any) -> tuple[float, float]:
    """Does accuracy fall as the level rises? The likelihood-ratio test of the per-level accuracies against
    the best non-decreasing sequence (isotonic regression by pool-adjacent-violators, weighted by answers:
    Barlow et al. 1972, *Statistical Inference under Order Restrictions*, ch. 1; scipy's
    `scipy.optimize.isotonic_regression`). Returns (deviance, p): the deviance is 0 for monotone data; p is
    the χ² tail with one degree of freedom per level pooled into a neighbour (an upper bound on the χ̄²
    tail of Robertson, Wright & Dykstra 1988 §2.3) when that is already below `MONOTONE_ALPHA`, else a
    parametric bootstrap (1,000 draws, fixed seed) from the isotonic fit. On simulated monotone observers
    (sweeps of 5-41 levels with 4-20 answers each, or 200 single answers) it called 0-0.5% non-monotonic.

    A ψ that is not monotone in ΔE2000 is not a psychometric function of ΔE2000: an observer (or a VLM)
    that answers to one 8-bit colour, not to the difference, can be always right at 3.3 and mostly wrong at
    3.4. ``levels``: any numbers (ΔE2000 for plates); ``correct``: booleans or 0/1, one per level.

    >>> monotone_test([1, 1, 2, 2, 3, 3], [0, 0, 1, 1, 1, 1])
    (0.0, 1.0)
    """
    xs, k, n, _ = _grouped(levels, correct, "logistic")
    deviance, p = _monotone(k, n)
    return round(deviance, 12), p


def chance_test(levels: Any, correct: Any, *, guess: float) -> tuple[float, float]:
    """Can the answers be told from guessing? The likelihood-ratio test of the chance-aware fit
    (`fit_psychometric`, lapse fitted) against ψ ≡ ``guess`` at every level; p from χ² with 3 degrees of
    freedom (threshold, slope, lapse). At `CHANCE_ALPHA` = 0.01, an observer guessing at every level passes
    for a rise in about 1% of runs (tests/analysis). Returns (deviance, p); the "at-chance" status is p > `CHANCE_ALPHA`."""
    fit = fit_psychometric(levels, correct, guess=guess, interval=False)
    return fit.chance_deviance, fit.chance_p


def fit_psychometric(
    levels: Any, correct: Any, *, guess: float, lapse: float | None = None, family: str = "logistic",
    confidence: float = 0.95, interval: bool = True, weights: Any = None,
) -> PsychometricFit:
    """Fit ψ(x) = γ + (1 − γ − λ) F(x; α, β) by maximum likelihood (module docstring).

    ``levels``: stimulus levels (plates: ΔE2000, CIELAB D65 2°); ``correct``: booleans or 0/1, one per level;
    ``guess``: γ from `guess_rate` (required: the chance level of the task); ``lapse``: None to fit λ in
    [0, 0.06], or a fixed value; ``family``: one of `FAMILIES`; ``interval``: compute the threshold's
    interval at ``confidence`` (module docstring). All-correct data give status "below-range", data at or below
    chance everywhere "above-range" (with a one-sided limit), never an arbitrary number.
    """
    _check_family(family)
    _check_guess_lapse(guess, 0.0 if lapse is None else lapse)
    xs, k, n, total = _grouped(levels, correct, family, weights)
    return _fit_counts([(xs, k, n, total, float(guess))], lapse=lapse, family=family, confidence=confidence,
                       interval=interval)[0]


def fit_psychometric_counts(
    groups: Sequence[tuple[Any, Any, Any, float]], *, lapse: float | None = None, family: str = "logistic",
    confidence: float = 0.95, interval: bool = True,
) -> list[PsychometricFit]:
    """`fit_psychometric` of many groups given as counts, all fitted together: each group is (levels, correct,
    trials, γ): per level (ΔE2000 for plates) the answers that were right of the trials there, and the task's
    guess rate. Levels may repeat (their counts add up); levels without trials are ignored."""
    _check_family(family)
    grouped = []
    for levels, correct, trials, guess in groups:
        _check_guess_lapse(guess, 0.0 if lapse is None else lapse)
        x, k, n = (np.asarray(v, dtype=float).ravel() for v in (levels, correct, trials))
        if not (x.shape == k.shape == n.shape) or np.any(k < 0) or np.any(k > n) or not np.all(np.isfinite(n)):
            raise ValueError(f"levels, correct and trials must be one number per level with 0 <= correct <= "
                             f"trials; got shapes {x.shape}, {k.shape}, {n.shape}")
        used = n > 0
        x, k, n = x[used], k[used], n[used]
        if not np.all(np.isfinite(x)):
            raise ValueError("levels must be finite numbers; found NaN or inf -- drop those rows first")
        if family == "weibull" and np.any(x < 0):
            raise ValueError(f"the weibull family needs levels >= 0; found {x[x < 0][0]!r}")
        xs, inverse = np.unique(x, return_inverse=True)
        grouped.append((xs, np.bincount(inverse, weights=k, minlength=xs.size),
                        np.bincount(inverse, weights=n, minlength=xs.size), int(round(n.sum())), float(guess)))
    return _fit_counts(grouped, lapse=lapse, family=family, confidence=confidence, interval=interval)


def _fit_counts(groups: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, int, float]], *, lapse: float | None,
                family: str, confidence: float, interval: bool) -> list[PsychometricFit]:
    """`fit_psychometric` of many groups at once, each (distinct levels, correct per level, trials per level,
    n, γ) from `_grouped`: every group's maximum and profile interval together
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
        ui = _to_u(family, xs)
        u[row, :xs.size], u[row, xs.size:] = ui, ui[-1]  # padding: no trials there
        k_all[row, :xs.size], n_all[row, :xs.size] = k, n
        u_lo, u_hi = _to_u(family, positive[[0, -1]])
        span = u_hi - u_lo
        bounds = [(u_lo - span, u_hi + span), (np.log(0.5 / span), np.log(1000.0 / span))]
        if not fixed:
            bounds.append((0.0, LAPSE_MAX))
        lower.append([b[0] for b in bounds])
        upper.append([b[1] for b in bounds])
        if bool(np.all(k == n)):  # the likelihood is 1 on a plateau below the levels: start on it, lower corner
            group_starts = [np.array([bounds[0][0], bounds[1][1], *([0.0] if not fixed else [])])]
        else:
            group_starts = _grid_starts(ui, k, n, guesses[row], lapse, family, bounds)
        starts += group_starts
        start_rows += [row] * len(group_starts)
    fun = _batch_nll(u, k_all, n_all, guesses, lapse, family)
    lower_a, upper_a, start_rows_a = np.array(lower), np.array(upper), np.array(start_rows)
    batch = likelihood.fit_batch(fun, np.array(starts), start_rows_a, lower_a, upper_a, cutoff=cutoff)
    for row, (i, common, positive) in enumerate(todo):
        theta, nll, converged = batch.theta[row], float(batch.nll[row]), bool(batch.converged[row])
        prof_low, prof_high = float(batch.low[row]), float(batch.high[row])
        if batch.trouble[row]:
            theta, nll, converged, prof_low, prof_high = likelihood.refit_row(
                fun, row, [starts[s] for s in np.flatnonzero(start_rows_a == row)], lower[row], upper[row], cutoff)
        xs, k, n, _, guess = groups[i]
        fits[i] = _psychometric_fit(theta, nll, converged, prof_low, prof_high, xs, k, n, positive, guess, lapse,
                                    family, upper[row][1], interval, common)
    return fits


def _batch_nll(u: np.ndarray, k: np.ndarray, n: np.ndarray, guess: np.ndarray, lapse: float | None,
               family: str) -> likelihood.BatchFun:
    """The negative binomial log-likelihood of θ = (α on the u axis, log β[, λ]) and its analytic gradient, for
    many groups: ``u`` (G, levels) on each family's axis, ``k``/``n`` correct and trials per level (padded
    levels hold none), ``guess`` (G,) each group's γ."""
    def fun(theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        uu, kk, nn, g = u[rows], k[rows], n[rows], guess[rows][:, None]
        a, b = theta[:, :1], np.exp(theta[:, 1:2])
        lam = theta[:, 2:3] if lapse is None else lapse
        with np.errstate(invalid="ignore"):
            z = b * (uu - a)
        f, df = cdf_pdf(family, z)
        scale = 1.0 - g - lam
        psi = np.clip(g + scale * f, _EPS, 1.0 - _EPS)
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
                      common: dict[str, Any]) -> PsychometricFit:
    """The `PsychometricFit` of an optimum θ with its interval: goodness of fit, the monotonicity and chance
    tests, and the status they and the curve's place on the levels give."""
    fixed = lapse is not None
    a_u, log_b = float(theta[0]), float(theta[1])
    lam = float(lapse) if fixed else float(theta[2])
    u_lo, u_hi = _to_u(family, positive[[0, -1]])
    f_lo, f_hi = cdf_pdf(family, np.exp(log_b) * (np.array([u_lo, u_hi]) - a_u))[0]
    low, high = (_from_u(family, prof_low), _from_u(family, prof_high)) if interval else (np.nan, np.nan)
    x_lo, x_hi = float(positive[0]), float(positive[-1])
    ll = -nll
    params = 2 if fixed else 3
    deviance = max(0.0, 2.0 * (_bernoulli_ll(k, n, k / n) - ll))
    m_dev, m_p = _monotone(k, n)
    c_dev, c_p = _chance(k, n, float(guess), ll, params)
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
        return PsychometricFit("below-range", np.nan, _from_u(family, -np.inf), high, extrapolated=True,
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
    threshold = _from_u(family, a_u)
    extrapolated = not x_lo <= threshold <= x_hi
    if interval:
        low, high = _threshold_interval(xs, k, n, positive, float(guess), lapse, family, log_b_max,
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
    row count as that many trials. Columns: ``by...``, ``n``, ``errors`` and the fields of
    `PsychometricFit` (but ``family``/``confidence``, the same on every row).
    """
    by = [by] if isinstance(by, str) else list(by)
    if not by:
        raise ValueError("by must name at least one column (fit_psychometric fits a single group)")
    columns = [*by, level, correct, *([guess] if isinstance(guess, str) else [])]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"fit_groups needs columns {missing}; the frame has {list(frame.columns)}")
    fields = [f for f in PsychometricFit.__dataclass_fields__ if f not in ("family", "confidence")]
    _check_family(family)
    rows, counts = [], []
    for key, group in frame.groupby(by, sort=True, dropna=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        ok = group[correct].notna().to_numpy() & group[level].notna().to_numpy()
        used = group[ok]
        if isinstance(guess, str):
            rates = (used if len(used) else group)[guess].dropna().unique()
            if len(rates) != 1:
                raise ValueError(f"guess column {guess!r} must hold one value per group; group {key} has "
                                 f"{sorted(rates.tolist())}")
            group_guess = float(rates[0])
        else:
            group_guess = guess
        verdicts = used[correct]
        verdicts = verdicts.to_numpy(dtype=bool) if pd.api.types.is_bool_dtype(verdicts.dtype) else (
            verdicts.to_numpy(dtype=object) if verdicts.dtype == object else verdicts.to_numpy())
        w = row_weights(group)  # a collapsed row (the dashboard's DuckDB counts) stands for `weight` rows
        _check_guess_lapse(group_guess, 0.0 if lapse is None else lapse)
        xs, k, n, total = _grouped(used[level].to_numpy(dtype=float), verdicts, family, w[ok])
        counts.append((xs, k, n, total, float(group_guess)))
        rows.append({**dict(zip(by, key)), "errors": int(w[~ok].sum())})
    fits = _fit_counts(counts, lapse=lapse, family=family, confidence=confidence, interval=interval)  # all at once
    rows = [{**row, **{f: getattr(fit, f) for f in fields}} for row, fit in zip(rows, fits)]
    table = pd.DataFrame(rows, columns=[*by, "errors", *fields])
    return table[[*by, "n", "errors", *[f for f in fields if f != "n"]]]
