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

The fits (`fit_psychometric`, `fit_psychometric_counts`, `fit_groups`, `chance_test`: every group at once)
are in `plates.analysis.psychometric_fits`; this module holds the model they fit, the `PsychometricFit` they
return, its statuses, and the monotonicity test (`monotone_test`) behind the "non-monotonic" status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

# scipy (optimize, stats, special) is imported where used: ~1 s of CPU that the apps' first pages never need
import numpy as np

from plates.validation import check_choice, check_int

__all__ = [
    "ANSWER_KINDS",
    "FAMILIES",
    "LAPSE_MAX",
    "CHANCE_ALPHA",
    "MONOTONE_ALPHA",
    "STATUSES",
    "PsychometricFit",
    "cdf",
    "cdf_pdf",
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
MONOTONE_DRAWS = 1000  # parametric bootstrap draws of `monotone_test` (its p is never below 1/1001)
EPS = 1e-12  # ψ is clipped to [EPS, 1 - EPS] inside logarithms


def guess_rate(answer_kind: str, n_options: int | None = None, label_space_size: int | None = None) -> float:
    """The share correct of an observer who sees nothing (γ), set by the task.

    * ``"yesno"``: ½ (a balanced design: half the candidates shown are the true label; ColorBlindnessEval
      §3.1 asks both). No ``n_options`` / ``label_space_size``.
    * ``"mc"``: 1/``n_options`` for a k-way choice (ColorBench §3: 2-6 options; HueManity: 4 options).
    * ``"open"``: 1/``label_space_size``: a uniform guess over the labels that can be drawn (ColorBlindnessEval
      §3: 100 numbers; HueManity App. B.1: 90 numbers or 3,364 pairs).

    Parameters
    ----------
    answer_kind : str
        "yesno", "mc" or "open".
    n_options : int, optional
        The options shown (>= 2), for "mc" only.
    label_space_size : int, optional
        The labels that can be drawn (>= 2), for "open" only.

    Returns
    -------
    float
        γ, 0-1.

    Raises
    ------
    ValueError
        An unknown kind, a count the kind does not take, or a count below 2.

    Examples
    --------
    >>> guess_rate("yesno"), guess_rate("mc", n_options=4), round(guess_rate("open", label_space_size=90), 4)
    (0.5, 0.25, 0.0111)
    """
    def count(name: str, value: Any) -> int:
        return check_int(name, value, 2, note=f" for answer kind {answer_kind!r}")

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
    """γ of a prompt template: `guess_rate` of its kind.

    Parameters
    ----------
    template : plates.tasks.prompts.PromptTemplate
        Its ``kind``, ``n_options`` and ``label_space`` are read.
    n_options : int or None
        Options shown (default: the template's), for a multiple-choice prompt.

    Returns
    -------
    float
        ½ for yes/no, 1/options for multiple choice, 1/(label space size) for an open prompt; 0 for an open
        prompt over an unbounded space ("any": no finite guess).

    Raises
    ------
    ValueError
        A multiple-choice prompt with fewer than 2 options.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313.
    """
    if template.kind == "open":
        from plates.stimuli.ishihara.labels import LABEL_SPACES  # the stimulus registry: where used

        space = LABEL_SPACES.get(template.label_space)
        return guess_rate("open", label_space_size=len(space)) if space else 0.0
    if template.kind == "mc":
        return guess_rate("mc", n_options=template.n_options if n_options is None else n_options)
    return guess_rate(template.kind)


def check_family(family: str) -> None:
    """Check a psychometric family's name.

    Parameters
    ----------
    family : str

    Raises
    ------
    ValueError
        ``family`` is not one of `FAMILIES`; the message lists them.
    """
    check_choice("family", family, FAMILIES)


def to_u(family: str, x: np.ndarray) -> np.ndarray:
    """The axis each family is a location-scale curve on.

    Parameters
    ----------
    family : str
        One of `FAMILIES` ("logistic", "gaussian", "weibull").
    x : numpy.ndarray
        Levels (e.g. ΔE2000).

    Returns
    -------
    numpy.ndarray
        ``x`` itself, or log x for the Weibull (log 0 = -inf).
    """
    if family != "weibull":
        return x
    with np.errstate(divide="ignore"):
        return np.log(x)


def from_u(family: str, u: float) -> float:
    """The inverse of `to_u` for one value.

    Parameters
    ----------
    family : str
        One of `FAMILIES`.
    u : float
        A value on the family's axis.

    Returns
    -------
    float
        ``u`` itself, or exp u for the Weibull.
    """
    return float(np.exp(u)) if family == "weibull" else float(u)


def cdf(family: str, z: np.ndarray) -> np.ndarray:
    """F(z) of the standard curve of ``family`` (F(0) = ½): the first of `cdf_pdf`, without the density.

    Parameters
    ----------
    family : str
        One of `FAMILIES` ("logistic", "gaussian", "weibull").
    z : numpy.ndarray
        Standardised levels, β (x − α) on the family's axis (`to_u`).

    Returns
    -------
    numpy.ndarray
        F(z) in [0, 1].
    """
    from scipy import special  # lazy: see the module imports

    if family == "logistic":
        return special.expit(z)
    if family == "gaussian":
        return special.ndtr(z)
    with np.errstate(over="ignore"):
        return -np.expm1(-(np.log(2.0) * np.exp(z)))


def cdf_pdf(family: str, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F(z) and dF/dz of the standard curve of ``family`` (F(0) = ½).

    Parameters
    ----------
    family : str
        One of `FAMILIES` ("logistic", "gaussian", "weibull").
    z : numpy.ndarray
        Standardised levels.

    Returns
    -------
    tuple of numpy.ndarray
        F(z) and its density.

    Examples
    --------
    >>> import numpy as np
    >>> [v.round(4).tolist() for v in cdf_pdf("gaussian", np.array([0.0]))]
    [[0.5], [0.3989]]
    """
    from scipy import special  # lazy: see the module imports

    if family == "logistic":
        f = special.expit(z)
        return f, f * (1.0 - f)
    if family == "gaussian":
        return special.ndtr(z), np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    with np.errstate(over="ignore"):
        e = np.log(2.0) * np.exp(z)
        return -np.expm1(-e), np.exp(np.log(np.log(2.0)) + z - e)


def check_guess_lapse(guess: Any, lapse: Any) -> None:
    """Check a guess rate and a lapse rate (scalars or arrays, broadcast).

    Parameters
    ----------
    guess : array_like
        γ in [0, 1).
    lapse : array_like
        λ in [0, 1 − γ).

    Raises
    ------
    ValueError
        Not numbers, or out of those ranges.
    """
    try:
        g, lam = np.asarray(guess, dtype=float), np.asarray(lapse, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"guess and lapse must be numbers, got guess={guess!r}, lapse={lapse!r}") from None
    if not np.all((g >= 0.0) & (g < 1.0)):
        raise ValueError(f"guess must lie in [0, 1), got {guess!r}")
    if not np.all((lam >= 0.0) & (lam < 1.0 - g)):
        raise ValueError(f"lapse must lie in [0, 1 - guess), got lapse={lapse!r} with guess={guess!r}")


def sigmoid(x: Any, threshold: Any, slope: Any, family: str = "logistic") -> np.ndarray:
    """F(x; α, β) of ``family`` (module docstring), broadcast over its arguments; F(threshold) = ½.

    Parameters
    ----------
    x : array_like
        Levels (ΔE2000 for plates); >= 0 for the Weibull.
    threshold : array_like
        α, in the unit of ``x``; > 0 for the Weibull.
    slope : array_like
        β > 0 (the family's units).
    family : str
        One of `FAMILIES` ("logistic", "gaussian", "weibull").

    Returns
    -------
    numpy.ndarray
        F in [0, 1].

    Raises
    ------
    ValueError
        A family not known, a slope <= 0, or Weibull levels below 0 or thresholds <= 0.

    Examples
    --------
    >>> float(sigmoid(5.0, 5.0, 1.0))
    0.5
    """
    check_family(family)
    x, a, b = (np.asarray(v, dtype=float) for v in (x, threshold, slope))
    if not np.all(b > 0):
        raise ValueError(f"slope must be > 0, got {slope!r}")
    if family == "weibull" and (np.any(x < 0) or not np.all(a > 0)):
        raise ValueError(f"the weibull family needs levels >= 0 and thresholds > 0, got x={x!r}, "
                         f"threshold={threshold!r}")
    return cdf(family, b * (to_u(family, x) - to_u(family, a)))


def psychometric(
    x: Any, threshold: Any, slope: Any, *, guess: Any, lapse: Any = 0.0, family: str = "logistic"
) -> np.ndarray:
    """ψ(x) = guess + (1 − guess − lapse) F(x; threshold, slope): the probability of a correct answer at
    level ``x``, broadcast over its arguments.

    Parameters
    ----------
    x : array_like
        Levels (ΔE2000 for plates, CIELAB D65 2°).
    threshold : array_like
        α: where ψ is halfway between ``guess`` and ``1 - lapse``.
    slope : array_like
        β > 0.
    guess : array_like
        γ in [0, 1): the task's guess rate (`guess_rate`).
    lapse : array_like
        λ in [0, 1 − γ).
    family : str
        One of `FAMILIES` ("logistic", "gaussian", "weibull").

    Returns
    -------
    numpy.ndarray
        ψ in [γ, 1 − λ].

    Raises
    ------
    ValueError
        ``guess`` or ``lapse`` not numbers or out of range, or any `sigmoid` error.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313.

    Examples
    --------
    >>> float(psychometric(8.0, 8.0, 1.0, guess=0.5))
    0.75
    """
    check_guess_lapse(guess, lapse)
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

    Parameters
    ----------
    status : str
        One of `STATUSES`.
    threshold : float
        α, level units (NaN unless ``status`` is "fit").
    ci_low, ci_high : float
        The threshold's interval at ``confidence``, level units (±inf where open).
    slope : float
        β, family units.
    lapse : float
        λ.
    guess : float
        γ.
    family : str
        One of `FAMILIES`.
    n : int
        Single trials.
    x_min, x_max : float
        The lowest and highest tested levels.
    extrapolated : bool
        The threshold lies outside [``x_min``, ``x_max``].
    log_likelihood : float
        Σ log P(answer) over the trials.
    lapse_fixed : bool
        ``lapse`` was fixed, not fitted.
    confidence : float
        The interval's level.
    converged : bool
        The optimiser's verdict.
    message : str, optional
        What the status means for these data.
    deviance, deviance_p : float, optional
        The goodness-of-fit deviance and its χ² tail.
    monotone_deviance, monotone_p : float, optional
        `monotone_test`.
    chance_deviance, chance_p : float, optional
        The test against guessing (`chance_test`).
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
        rate (the only parts of the curve the data locate); "non-monotonic" and "too-few": NaN.

        Parameters
        ----------
        x : array_like
            Levels.

        Returns
        -------
        numpy.ndarray
            ψ, 0-1 (NaN where the fit has no curve).
        """
        x = np.asarray(x, dtype=float)
        if self.status == "below-range":
            return np.full(x.shape, 1.0 - self.lapse)
        if self.status in ("above-range", "at-chance"):
            return np.full(x.shape, self.guess)
        if self.status != "fit":
            return np.full(x.shape, np.nan)
        return psychometric(x, self.threshold, self.slope, guess=self.guess, lapse=self.lapse, family=self.family)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (`dataclasses.asdict`)."""
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


def grouped(levels: Any, correct: Any, family: str,
             weights: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Single answers pooled per distinct level, after validation.

    Parameters
    ----------
    levels : array_like
        One level per answer (ΔE2000 for plates), finite; >= 0 for the Weibull.
    correct : array_like
        One verdict per answer: booleans or 0/1.
    family : str
        One of `FAMILIES`.
    weights : array_like or None
        Trials each (level, verdict) stands for, each >= 1 (default 1 each).

    Returns
    -------
    tuple
        (distinct levels, correct per level, trials per level, n), the first three float arrays.

    Raises
    ------
    ValueError
        ``levels`` and ``correct`` of different lengths, a verdict other than a boolean or 0/1, weights of the
        wrong length or below 1, a level that is NaN or inf, or a negative level for the Weibull.

    Examples
    --------
    >>> [v.tolist() for v in grouped([1, 2, 2], [1, 0, 1], "logistic")[:3]]
    [[1.0, 2.0], [1.0, 1.0], [1.0, 2.0]]
    """
    x = np.asarray(levels, dtype=float).ravel()
    y = _binary(correct)
    if x.shape != y.shape:
        raise ValueError(f"levels and correct differ in length: {x.size} vs {y.size}")
    w = np.ones(x.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != x.shape or not np.all(np.isfinite(w)) or np.any(w < 1):
        raise ValueError(f"weights must be one number >= 1 per level ({x.size}); got {w.size} values")
    return (*pool_levels(x, y * w, w, family), int(round(w.sum())))


def pool_levels(x: np.ndarray, k: np.ndarray, n: np.ndarray,
                family: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts pooled per distinct level, after checking the levels suit ``family``.

    Parameters
    ----------
    x : numpy.ndarray
        Levels, finite (>= 0 for the Weibull).
    k : numpy.ndarray
        Correct answers at each, per answer or per level (same length as ``x``).
    n : numpy.ndarray
        Trials at each (same length).
    family : str
        One of `FAMILIES`.

    Returns
    -------
    tuple of numpy.ndarray
        (distinct levels, correct per level, trials per level).

    Raises
    ------
    ValueError
        A level that is NaN or inf, or a negative level for the Weibull.
    """
    if not np.all(np.isfinite(x)):
        raise ValueError("levels must be finite numbers; found NaN or inf -- drop those rows first")
    if family == "weibull" and np.any(x < 0):
        raise ValueError(f"the weibull family needs levels >= 0; found {x[x < 0][0]!r}")
    xs, inverse = np.unique(x, return_inverse=True)
    return xs, np.bincount(inverse, weights=k, minlength=xs.size), np.bincount(inverse, weights=n, minlength=xs.size)


def bernoulli_ll(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> float:
    """The Bernoulli log-likelihood Σ k log p + (n − k) log(1 − p), with 0 log 0 = 0 (a probability of 0 or 1
    where every answer agrees); no binomial coefficients.

    Parameters
    ----------
    k : numpy.ndarray
        Correct answers per level.
    n : numpy.ndarray
        Trials per level.
    p : numpy.ndarray
        P(correct) per level, 0-1.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> bernoulli_ll(np.array([1.0]), np.array([1.0]), np.array([1.0]))
    0.0
    """
    from scipy import special  # lazy: see the module imports

    return float(np.sum(special.xlogy(k, p) + special.xlogy(n - k, 1.0 - p)))


def iso_deviance(k: np.ndarray, n: np.ndarray) -> tuple[float, np.ndarray]:
    """2 (log L of one accuracy per level − log L of the best non-decreasing accuracies) and the latter.

    The best non-decreasing accuracies are the trials-weighted isotonic regression of the per-level accuracies
    (scipy's ``optimize.isotonic_regression``); the deviance is the likelihood-ratio statistic of
    `monotone_test`, floored at 0.

    Parameters
    ----------
    k : numpy.ndarray
        Correct answers per level, levels in ascending order of the stimulus.
    n : numpy.ndarray
        Trials per level, each positive (a level with none gives a NaN accuracy), same shape as ``k``.

    Returns
    -------
    tuple of (float, numpy.ndarray)
        The deviance (≥ 0) and the isotonic accuracy per level (proportions 0-1, non-decreasing).
    """
    rate = k / n
    from scipy import optimize  # lazy: see the module imports
    iso = np.clip(optimize.isotonic_regression(rate, weights=n, increasing=True).x, 0.0, 1.0)
    return max(0.0, 2.0 * (bernoulli_ll(k, n, rate) - bernoulli_ll(k, n, iso))), iso


def monotone_from_counts(groups: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[float, float]]:
    """(deviance, p) of the saturated per-level fit against the best non-decreasing one (`monotone_test`) for
    each group of (correct per level, trials per level), every group's bootstrap together (`iso_deviances`).

    Parameters
    ----------
    groups : sequence of (numpy.ndarray, numpy.ndarray)
        (correct per level, trials per level) per group.

    Returns
    -------
    list of (float, float)
        (deviance, p) per group.
    """
    from scipy import stats  # lazy: see the module imports
    out: list[tuple[float, float]] = [(0.0, 1.0)] * len(groups)
    boot = []  # (group, trials, observed deviance, isotonic fit): the groups the bootstrap settles
    for g, (k, n) in enumerate(groups):
        if k.size < 2:
            continue
        deviance, iso = iso_deviance(k, n)
        if deviance < 1e-9:
            continue
        pooled_out = k.size - 1 - int(np.count_nonzero(np.abs(np.diff(iso)) > 1e-12))
        p = float(stats.chi2.sf(deviance, pooled_out))  # an upper bound: every pooled level a free parameter
        out[g] = (deviance, p)
        if p >= MONOTONE_ALPHA:
            boot.append((g, n, deviance, iso))
    # the bound is far from sharp when one dip pools many levels: a parametric bootstrap from the ordered fit
    # (the likeliest monotone observer) settles it, each group's draws from its own generator with a fixed seed
    # (the verdict is deterministic, whatever else is fitted beside it), the groups of similar level counts
    # together in passes of about `_BOOT_CELLS` numbers
    boot.sort(key=lambda b: b[1].size)
    while boot:
        take = 1
        while take < len(boot) and (take + 1) * MONOTONE_DRAWS * boot[take][1].size <= _BOOT_CELLS:
            take += 1
        part, boot = boot[:take], boot[take:]
        width = part[-1][1].size
        k_all = np.zeros((take * MONOTONE_DRAWS, width))
        n_all = np.zeros((take * MONOTONE_DRAWS, width))
        for j, (_, n, _, iso) in enumerate(part):
            rows = slice(j * MONOTONE_DRAWS, (j + 1) * MONOTONE_DRAWS)
            rng = np.random.Generator(np.random.PCG64(0))
            k_all[rows, :n.size] = rng.binomial(n.astype(np.int64), iso, size=(MONOTONE_DRAWS, n.size))
            n_all[rows, :n.size] = n
        above = (iso_deviances(k_all, n_all).reshape(take, MONOTONE_DRAWS)
                 >= np.array([d for _, _, d, _ in part])[:, None] - 1e-9).sum(axis=1)
        for (g, _, deviance, _), count in zip(part, above):
            out[g] = (deviance, (1 + int(count)) / (1 + MONOTONE_DRAWS))
    return out


_BOOT_CELLS = 2**19  # draws x levels per bootstrap pass (4 MB a number array: the page stays small)


def iso_deviances(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """`iso_deviance` of each row of ``k`` (rows, levels) over its trials ``n`` (rows, levels; a row of fewer
    levels padded at the end with no trials), all rows at once: pool-adjacent-violators (Barlow et al. 1972,
    ch. 1) on every row together, a stack of blocks (answers, trials) per row; each level is pushed, then pooled
    into the block below while less accurate (compared as cross products of whole counts: exact). A block's
    accuracy is its answers over its trials (the max-min formula's weighted mean), the same at each of its
    levels, so the isotonic fit's log-likelihood is the blocks' own.

    Parameters
    ----------
    k : numpy.ndarray
        Correct answers, shape (rows, levels), levels in ascending order of the stimulus.
    n : numpy.ndarray
        Trials, same shape as ``k``; a padded level holds 0 trials (and 0 correct) and adds nothing.

    Returns
    -------
    numpy.ndarray
        The deviance of each row, shape (rows,), each ≥ 0: what `iso_deviance` gives for the row's levels
        with trials.
    """
    from scipy import special  # lazy: see the module imports

    rows, size = k.shape
    base = np.arange(rows)  # the flat arrays below hold block b of row r at b * rows + r (level-major: cached)
    total, trials = np.zeros(rows * size), np.zeros(rows * size)
    top = np.full(rows, -1, dtype=np.int64)  # each row's top block
    k_levels, n_levels = np.ascontiguousarray(k.T), np.ascontiguousarray(n.T)
    for i in range(size):
        top += 1
        at = base + top * rows
        total[at], trials[at] = k_levels[i], n_levels[i]
        live, at = (base, at) if i else (base[:0], at[:0])
        while live.size:  # a top block less accurate than the block under it pools into it; padding (no
            # trials) never does: 0 < 0 is false
            low = total[at] * trials[at - rows] < total[at - rows] * trials[at]
            live, at = live[low], at[low]
            total[at - rows] += total[at]
            trials[at - rows] += trials[at]
            top[live] -= 1
            live, at = live[top[live] >= 1], at[top[live] >= 1] - rows
    blocks = (np.arange(size)[:, None] <= top[None, :]) & (trials.reshape(size, rows) > 0)
    total, trials = total.reshape(size, rows), trials.reshape(size, rows)
    used = n_levels > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        p_iso, rate = total / trials, k_levels / n_levels
        ll_iso = np.sum(np.where(blocks, special.xlogy(total, p_iso) + special.xlogy(trials - total, 1.0 - p_iso),
                                 0.0), axis=0)
        ll_rate = np.sum(np.where(used, special.xlogy(k_levels, rate) + special.xlogy(n_levels - k_levels,
                                                                                       1.0 - rate), 0.0), axis=0)
    return np.maximum(0.0, 2.0 * (ll_rate - ll_iso))


def chance_from_counts(k: np.ndarray, n: np.ndarray, guess: float, log_likelihood: float, params: int) -> tuple[float, float]:
    """(deviance, p) of a fitted curve (``log_likelihood``, ``params`` free parameters) against answering at
    the guess rate everywhere.

    Parameters
    ----------
    k, n : numpy.ndarray
        Correct answers and trials per level.
    guess : float
        The guess rate.
    log_likelihood : float
        The fitted curve's.
    params : int
        Its free parameters.

    Returns
    -------
    (float, float)
        Deviance and p.
    """
    deviance = max(0.0, 2.0 * (log_likelihood - bernoulli_ll(k, n, np.full(k.shape, guess))))
    from scipy import stats  # lazy: see the module imports
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

    Parameters
    ----------
    levels : array_like
        Each answer's level.
    correct : array_like of bool
        Each answer's verdict.

    Examples
    --------
    >>> monotone_test([1, 1, 2, 2, 3, 3], [0, 0, 1, 1, 1, 1])
    (0.0, 1.0)
    """
    xs, k, n, _ = grouped(levels, correct, "logistic")
    (deviance, p), = monotone_from_counts([(k, n)])
    return round(deviance, 12), p
