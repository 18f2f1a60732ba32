"""A Bayesian adaptive procedure over a grid posterior: QUEST+ (Watson 2017, *J. Vision* 17(3):10) with the
Psi-marginal choice of stimulus (Prins 2013, *J. Vision* 13(7):3) by default.

Two tasks share the machinery:

* ``"threshold"`` (plates): the parameters are (α, β, λ) of ψ(x) = γ + (1 − γ − λ) F(x; α, β)
  (`plates.analysis.psychometric`), x the ΔE2000 of a plate (CIELAB D65 2°), γ the task's guess rate
  (`guess_rate`); the outcomes are 0 (wrong) and 1 (correct); α, the threshold, is the level halfway between
  guess and ceiling.
* ``"pse"`` (illusions): the parameters are (μ, β, δ, λ) of the comparison model of `plates.analysis.pse`,
  x the signed physical difference (x > 0: B darker), the outcomes −1 / +1 (/ 0 "same" with three
  alternatives). The "threshold" is the PSE μ; there is no guess rate (a lapse answers uniformly at random, λ/k
  per answer) and the band δ is a nuisance like the slope.

The prior is uniform over the grid points (a log-spaced threshold grid is a log-uniform prior). Each trial,
for every candidate level x, the criterion is computed in closed form with numpy (no loop over levels or
outcomes); the next level minimises it (or, with ``top_k`` > 1, is drawn among the ``top_k`` best with a stream
from ``SeedSequence((seed, trial))``). ``criterion="entropy"`` (default): the expected entropy after the answer,
Σ_r P(r | x) H(posterior | x, r); with ``entropy="threshold"`` that of the threshold's marginal posterior
(Psi-marginal: slope, band and lapse are nuisances, so no trials are spent to learn them for their own sake),
``"joint"`` Watson's QUEST+ entropy over every parameter. ``criterion="variance"`` (our option, after the
minimum-expected-variance placement of King-Smith et al. 1994, *Vision Res.* 34:885, on the marginal): the
expected posterior variance of the threshold, Σ_r P(r | x) Var(α | x, r). The estimate is the marginal posterior
mean (default), its median (``"median"``: interpolated on the cumulative marginal as the credible interval is)
or its mode (``"map"``), with an equal-tailed credible interval. Stopping: ``max_trials`` or, after
``min_trials``, the credible interval narrower than ``ci_width``.

Defaults: every alternative tried on bench/bench_adaptive.py's simulated observers was no better where the
defaults miss, and worse in some conditions; the figures are on the documentation's benchmarks page
(docs/benchmarks.md, "The adaptive procedure's defaults").

State: `AdaptiveState` is frozen. Its log posterior is the sum, in trial order, of the log likelihoods of the
history's answers, so `AdaptiveState.replay` (or `from_json` after a kill) rebuilds exactly the same floats as
the updates did, and the next level follows. Written from the papers (no code taken from GPL packages such as
psignifit, PsychoPy or questplus).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from itertools import pairwise
from typing import Any

import numpy as np
from scipy import special

from plates.analysis.pse import PSE_FAMILIES, outcomes, pse_probabilities
from plates.analysis.psychometric import FAMILIES, psychometric
from plates.analysis.psychometric_fits import fit_psychometric
from plates.validation import check_choice, check_int, check_number

__all__ = ["ADAPTIVE_TASKS", "AdaptiveEstimate", "AdaptiveSpec", "AdaptiveState"]

ADAPTIVE_TASKS = ("threshold", "pse")
_ENTROPIES = ("threshold", "joint")
_ESTIMATES = ("mean", "median", "map")
CRITERIA = ("entropy", "variance")
_TINY = 1e-300  # floor of a likelihood inside a logarithm


def _floats(name: str, values: Any, *, increasing: bool) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r}") from None
    if not out or not all(np.isfinite(out)):
        raise ValueError(f"{name} must hold at least one finite number, got {values!r}")
    if increasing and any(b <= a for a, b in pairwise(out)):
        raise ValueError(f"{name} must be strictly increasing, got {values!r}")
    return out


@dataclass(frozen=True)
class AdaptiveSpec:
    """The procedure: candidate levels, the parameter grid, the task, stopping rules (module docstring).

    Fields added later have defaults, so older `AdaptiveState.to_json` texts still load. Every grid is
    stored as a strictly increasing tuple of floats.

    Parameters
    ----------
    candidates : tuple of float
        The levels it may test (plates: ΔE2000, CIELAB D65 2°), strictly increasing.
    thresholds : tuple of float
        Grid of α (task "threshold") or of μ (task "pse"), strictly increasing.
    slopes : tuple of float
        Grid of β (the family's units), each > 0.
    lapses : tuple of float
        Grid of λ, in [0, 1 − γ).
    guess : float or None
        γ in [0, 1) for "threshold" (from `guess_rate`); None for "pse".
    task : str
        "threshold" or "pse" (`TASKS`).
    alternatives : int
        2 for "threshold"; 2 or 3 for "pse".
    bands : tuple of float
        Grid of δ >= 0 (task "pse" with three alternatives; else (0,)).
    family : str
        A psychometric family (`plates.analysis.psychometric.FAMILIES`; "pse": a symmetric one); "weibull"
        needs candidates >= 0 and thresholds > 0.
    max_trials : int
        Stop after this many answers, >= 1.
    min_trials : int
        No stop on ``ci_width`` before this many, >= 0.
    ci_width : float or None
        Stop when the credible interval is at most this wide (> 0), or None.
    credible : float
        Level of the equal-tailed credible interval, strictly in (0, 1).
    estimate : str
        "mean", "median" or "map" of the threshold's marginal posterior.
    entropy : str
        "threshold" (Psi-marginal) or "joint" (QUEST+).
    criterion : str
        "entropy" or "variance" (`CRITERIA`).
    top_k : int
        Draw the next level among the ``top_k`` best (1: the best), at most the number of candidates.
    seed : int
        >= 0: the stream of those draws.

    Raises
    ------
    ValueError
        A grid not strictly increasing, a name not known (task, entropy, estimate, criterion, family for the
        task), a slope <= 0, a guess out of [0, 1) for "threshold" or not None for "pse", alternatives other
        than 2 for "threshold" (2 or 3 for "pse"), lapses or bands out of range, a Weibull grid below 0, an
        integer field below its minimum, ``top_k`` above the candidates, ``ci_width`` <= 0, ``credible``
        outside (0, 1).

    References
    ----------
    Watson (2017), *J. Vision* 17(3):10 (QUEST+); Prins (2013), *J. Vision* 13(7):3 (Psi-marginal);
    King-Smith et al. (1994), *Vision Res.* 34: 885-912 (minimum expected variance).
    """

    candidates: tuple[float, ...]
    thresholds: tuple[float, ...]
    slopes: tuple[float, ...]
    lapses: tuple[float, ...] = (0.0, 0.02, 0.04, 0.06)
    guess: float | None = 0.5
    task: str = "threshold"
    alternatives: int = 2
    bands: tuple[float, ...] = (0.0,)
    family: str = "logistic"
    max_trials: int = 40
    min_trials: int = 0
    ci_width: float | None = None
    credible: float = 0.95
    estimate: str = "mean"
    entropy: str = "threshold"
    criterion: str = "entropy"
    top_k: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        for name, increasing in (("candidates", True), ("thresholds", True), ("slopes", True),
                                 ("lapses", True), ("bands", True)):
            object.__setattr__(self, name, _floats(name, getattr(self, name), increasing=increasing))
        for name, value, allowed in (("task", self.task, ADAPTIVE_TASKS), ("entropy", self.entropy, _ENTROPIES),
                                     ("estimate", self.estimate, _ESTIMATES),
                                     ("criterion", self.criterion, CRITERIA)):
            check_choice(name, value, allowed)
        families = FAMILIES if self.task == "threshold" else PSE_FAMILIES
        if self.family not in families:
            raise ValueError(f"family {self.family!r} is not allowed for task {self.task!r}; "
                             f"allowed: {', '.join(families)}")
        if min(self.slopes) <= 0:
            raise ValueError(f"slopes must be > 0, got {self.slopes}")
        if self.task == "threshold":
            if self.guess is None or not 0.0 <= float(self.guess) < 1.0:
                raise ValueError(f"guess must lie in [0, 1) for task 'threshold', got {self.guess!r}")
            if self.alternatives != 2:
                raise ValueError(f"task 'threshold' has two outcomes (wrong, correct): alternatives must be 2, "
                                 f"got {self.alternatives!r}")
        elif self.guess is not None:
            raise ValueError(f"task 'pse' has no guess rate (lapses answer at random); guess must be None, "
                             f"got {self.guess!r}")
        outcomes(self.alternatives)
        ceiling = 1.0 - (self.guess or 0.0)
        if min(self.lapses) < 0 or max(self.lapses) >= ceiling:
            raise ValueError(f"lapses must lie in [0, {ceiling:g}), got {self.lapses}")
        if min(self.bands) < 0 or (self.alternatives == 2 and self.bands != (0.0,)):
            raise ValueError(f"bands must be >= 0, and (0.0,) unless task 'pse' has 3 alternatives; "
                             f"got {self.bands}")
        if self.family == "weibull" and (min(self.candidates) < 0 or min(self.thresholds) <= 0):
            raise ValueError("the weibull family needs candidates >= 0 and thresholds > 0")
        for name in ("max_trials", "min_trials", "top_k", "seed"):
            check_int(name, getattr(self, name), 1 if name in ("max_trials", "top_k") else 0)
        if self.top_k > len(self.candidates):
            raise ValueError(f"top_k must be <= the {len(self.candidates)} candidates, got {self.top_k}")
        if self.ci_width is not None and not (np.isfinite(self.ci_width) and self.ci_width > 0):
            raise ValueError(f"ci_width must be None or a number > 0, got {self.ci_width!r}")
        if not 0.0 < self.credible < 1.0:
            raise ValueError(f"credible must lie strictly between 0 and 1, got {self.credible!r}")

    @classmethod
    def for_threshold(cls, guess: float, *, low: float = 0.5, high: float = 40.0, n_candidates: int = 80,
                      threshold_step: float = 0.25, slopes: Sequence[float] = tuple(np.geomspace(0.1, 8.0, 12)),
                      **options: Any) -> AdaptiveSpec:
        """Plates: ``n_candidates`` levels log-spaced over [``low``, ``high``] ΔE2000 (CIELAB D65 2°); the
        threshold grid evenly spaced by ``threshold_step`` over the same range (a prior uniform in ΔE2000: a
        log-spaced grid, i.e. a log-uniform prior, pulled the posterior mean low and met ±1 ΔE2000 less often
        in bench/bench_adaptive.py); logistic slopes 0.1..8 per ΔE2000 (12, log-spaced); lapses 0..0.06. Narrower
        slope grids, a wider lapse grid and slopes scaled with the threshold were measured and not better
        (module docstring).

        Parameters
        ----------
        guess : float
            γ, the guess rate in [0, 1) (`guess_rate`).
        low, high : float
            The range of levels and thresholds, 0 < ``low`` < ``high`` (plates: ΔE2000).
        n_candidates : int, optional
            Candidate levels, log-spaced over the range.
        threshold_step : float, optional
            The threshold grid's spacing, > 0; the grid runs from ``low`` in these steps up to at most ``high``.
        slopes : sequence of float, optional
            The grid of β.
        **options
            Any other `AdaptiveSpec` field (``lapses``, ``max_trials``, ``family``, ...).

        Returns
        -------
        AdaptiveSpec
            The task "threshold" spec.

        Raises
        ------
        ValueError
            ``low``, ``high`` or ``threshold_step`` out of range, or anything `AdaptiveSpec` refuses.
        """
        if not (0 < low < high and threshold_step > 0):
            raise ValueError(f"need 0 < low < high and threshold_step > 0, got low={low!r}, high={high!r}, "
                             f"threshold_step={threshold_step!r}")
        steps = int(np.floor((high - low) / threshold_step + 1e-9))
        return cls(candidates=tuple(np.geomspace(low, high, n_candidates)),
                   thresholds=tuple(low + threshold_step * np.arange(steps + 1)), slopes=tuple(slopes),
                   guess=guess, **options)

    @classmethod
    def for_pse(cls, *, low: float, high: float, alternatives: int = 2, n_candidates: int = 41,
                n_thresholds: int = 81, slopes: Sequence[float] | None = None,
                bands: Sequence[float] | None = None, **options: Any) -> AdaptiveSpec:
        """Illusions: candidates and PSE grid evenly spaced over the signed range [``low``, ``high``]; slopes
        log-spaced from 0.5 to 200 per range width (12); with three alternatives, bands 0..range/4 (6).

        Parameters
        ----------
        low, high : float
            The signed range of levels and of the PSE grid (the illusion's units), ``low`` < ``high``.
        alternatives : int, optional
            2 or 3 answer options.
        n_candidates : int, optional
            Candidate levels, evenly spaced over the range.
        n_thresholds : int, optional
            Points of the PSE grid, evenly spaced over the range.
        slopes : sequence of float or None, optional
            The grid of β; None for the default above.
        bands : sequence of float or None, optional
            The grid of δ; None for the default above ((0,) with two alternatives).
        **options
            Any other `AdaptiveSpec` field.

        Returns
        -------
        AdaptiveSpec
            The task "pse" spec.

        Raises
        ------
        ValueError
            Anything `AdaptiveSpec` refuses.
        """
        width = high - low
        slopes = tuple(np.geomspace(0.5 / width, 200.0 / width, 12)) if slopes is None else tuple(slopes)
        if bands is None:
            bands = tuple(np.linspace(0.0, width / 4, 6)) if alternatives == 3 else (0.0,)
        return cls(candidates=tuple(np.linspace(low, high, n_candidates)),
                   thresholds=tuple(np.linspace(low, high, n_thresholds)), slopes=slopes, guess=None,
                   task="pse", alternatives=alternatives, bands=tuple(bands), **options)

    @property
    def outcomes(self) -> tuple[int, ...]:
        """The answer codes, in the order of the likelihood tables: (0, 1) for "threshold" (wrong, correct)."""
        return (0, 1) if self.task == "threshold" else outcomes(self.alternatives)

    @property
    def grid_shape(self) -> tuple[int, int, int, int]:
        """(thresholds, slopes, bands, lapses): the shape of `AdaptiveState.posterior`."""
        return len(self.thresholds), len(self.slopes), len(self.bands), len(self.lapses)

    def probabilities(self, levels: Any) -> np.ndarray:
        """P(outcome | level, θ) for every grid point θ: shape (outcomes, levels, *grid_shape).

        Parameters
        ----------
        levels : array_like
            Levels.

        Returns
        -------
        numpy.ndarray
            Shape (outcomes, levels, *grid_shape).
        """
        x = np.asarray(levels, dtype=float).reshape(-1, 1, 1, 1, 1)
        a = np.asarray(self.thresholds)[:, None, None, None]
        b = np.asarray(self.slopes)[None, :, None, None]
        d = np.asarray(self.bands)[None, None, :, None]
        lam = np.asarray(self.lapses)[None, None, None, :]
        if self.task == "threshold":
            right = psychometric(x, a, b, guess=self.guess, lapse=lam, family=self.family)
            right = np.broadcast_to(right, (x.shape[0], *self.grid_shape))
            return np.stack([1.0 - right, right])
        p = pse_probabilities(x, a, b, band=d, lapse=lam, alternatives=self.alternatives, family=self.family)
        return np.broadcast_to(p, (len(self.outcomes), x.shape[0], *self.grid_shape)).copy()

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AdaptiveSpec:
        """The spec `to_dict` wrote.

        Parameters
        ----------
        data : dict
            `to_dict`'s output.

        Returns
        -------
        AdaptiveSpec
            The spec.

        Raises
        ------
        ValueError
            For keys that are not fields, or values the spec refuses.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown AdaptiveSpec fields {unknown}; allowed: {', '.join(sorted(known))}")
        return cls(**data)

    def replace(self, **changes: Any) -> AdaptiveSpec:
        """A copy with ``changes`` applied.

        Parameters
        ----------
        **changes
            Field names and their new values.

        Returns
        -------
        AdaptiveSpec
            The new spec, validated again.
        """
        return replace(self, **changes)


@dataclass(frozen=True)
class AdaptiveEstimate:
    """The threshold (or PSE) after ``trials`` answers, as `AdaptiveState.estimate` returns it.

    Parameters
    ----------
    threshold : float
        Posterior mean, median or mode of its marginal, per the spec; in the unit of the levels (plates:
        ΔE2000).
    ci_low : float
        Lower end of the equal-tailed credible interval at ``credible``.
    ci_high : float
        Upper end.
    credible : float
        Level of that interval.
    slope : float
        Posterior mean of β.
    band : float
        Posterior mean of δ (0 unless "pse" with three alternatives).
    lapse : float
        Posterior mean of λ.
    trials : int
        Answers so far.
    done : bool
        A stopping rule holds.
    stop_reason : str
        Which ("" while not done).
    status : str
        "unchecked" unless the estimate was asked to check the history (task "threshold"): then "fit",
        "non-monotonic", "at-chance" or "too-few" from the maximum-likelihood fit
        (`plates.analysis.psychometric_fits.fit_psychometric`).
    message : str
        Why the status is not "fit".
    deviance_p : float
        That fit's goodness-of-fit p (NaN unchecked).
    monotone_p : float
        Its monotonicity p (NaN unchecked).
    chance_p : float
        Its p against answering at chance (NaN unchecked).
    """

    threshold: float
    ci_low: float
    ci_high: float
    credible: float
    slope: float
    band: float
    lapse: float
    trials: int
    done: bool
    stop_reason: str
    status: str = "unchecked"
    message: str = ""
    deviance_p: float = float("nan")
    monotone_p: float = float("nan")
    chance_p: float = float("nan")


def _entropy_terms(p: np.ndarray) -> np.ndarray:
    """p log p, 0 where p is 0."""
    return special.xlogy(p, p)


#: The `AdaptiveSpec` fields the likelihood tables depend on (not the stopping rules, criterion or seed).
_MODEL_FIELDS = ("candidates", "thresholds", "slopes", "lapses", "guess", "task", "alternatives", "bands", "family")


def _model_key(spec: AdaptiveSpec) -> AdaptiveSpec:
    """``spec`` with every field the tables do not depend on set to its default: the key of `_tables`."""
    return AdaptiveSpec(**{name: getattr(spec, name) for name in _MODEL_FIELDS})


@functools.lru_cache(maxsize=8)
def _table(model: AdaptiveSpec) -> np.ndarray:
    """P(outcome | candidate, θ), shape (outcomes, candidates, grid): read-only, computed once per model and
    grid, then shared by every state (each quiz start made two of its own, 33.5 MB, which visitors starting
    fresh sessions could pile up without bound). A bounded memo of a pure function: 8 entries at most."""
    table = model.probabilities(model.candidates).reshape(len(model.outcomes), len(model.candidates), -1)
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=2)
def _table_log(model: AdaptiveSpec) -> np.ndarray:
    """T log T of `_table` (the "joint" entropy's term), shared the same way."""
    out = _entropy_terms(_table(model))
    out.setflags(write=False)
    return out


def _tables(model: AdaptiveSpec, joint: bool) -> tuple[np.ndarray, np.ndarray | None]:
    return _table(model), (_table_log(model) if joint else None)


@dataclass(frozen=True, eq=False)
class AdaptiveState:
    """The procedure after ``history``. Build with `start`, `replay` or `from_json`; `update` returns a new
    state.

    Parameters
    ----------
    spec : AdaptiveSpec
        The procedure.
    history : tuple of (float, int)
        (level, outcome) pairs, in trial order (outcomes: 0 / 1 for "threshold", `plates.analysis.pse.outcomes`
        for "pse").
    log_posterior : numpy.ndarray
        Unnormalised, over the flattened grid; read-only.

    Raises
    ------
    TypeError
        `start` given something other than an `AdaptiveSpec`.

    References
    ----------
    Watson (2017), *J. Vision* 17(3):10 (QUEST+); Prins (2013), *J. Vision* 13(7):3 (Psi-marginal);
    King-Smith et al. (1994), *Vision Res.* 34: 885-912 (minimum expected variance).

    Examples
    --------
    >>> spec = AdaptiveSpec(candidates=(1.0, 2.0, 3.0), thresholds=(1.0, 2.0, 3.0), slopes=(1.0, 2.0))
    >>> AdaptiveState.start(spec).estimate().threshold
    2.0
    """

    spec: AdaptiveSpec
    history: tuple[tuple[float, int], ...]
    log_posterior: np.ndarray = field(repr=False)
    _table: np.ndarray = field(repr=False)  # (outcomes, candidates, grid) P(outcome | candidate, θ), shared
    _table_log: np.ndarray | None = field(repr=False)  # T log T ("joint" entropy only), shared

    @classmethod
    def start(cls, spec: AdaptiveSpec) -> AdaptiveState:
        """The state before any answer (uniform prior over the grid). The likelihood tables are shared by
        every state whose spec has the same model and grid (`_tables`), so a state of its own costs only its
        log posterior (a 40-trial plate staircase: 7,632 floats, 61 KB; not the 9.8 MB table).

        Parameters
        ----------
        spec : AdaptiveSpec
            The procedure.

        Returns
        -------
        AdaptiveState
            The prior state.
        """
        if not isinstance(spec, AdaptiveSpec):
            raise TypeError(f"spec must be an AdaptiveSpec, got {type(spec).__name__}")
        table, table_log = _tables(_model_key(spec), spec.entropy == "joint")
        log_post = np.zeros(table.shape[-1])
        log_post.setflags(write=False)
        return cls(spec, (), log_post, table, table_log)

    @classmethod
    def replay(cls, spec: AdaptiveSpec, history: Sequence[Sequence[Any]]) -> AdaptiveState:
        """The state after ``history`` ((level, outcome) pairs), rebuilt answer by answer as `update` does.

        Parameters
        ----------
        spec : AdaptiveSpec
            The procedure.
        history : sequence of (float, outcome)
            The answers, in order.

        Returns
        -------
        AdaptiveState
            The state after them.
        """
        state = cls.start(spec)
        for item in history:
            if len(item) != 2:
                raise ValueError(f"history items must be (level, outcome) pairs, got {item!r}")
            state = state.update(*item)
        return state

    def update(self, level: float, outcome: Any) -> AdaptiveState:
        """The state after one more answer: ``outcome`` 0/1 (or bool) for "threshold", a code of
        `AdaptiveSpec.outcomes` for "pse". ``level`` need not be a candidate (its likelihood is computed).

        Parameters
        ----------
        level : float
            The level shown.
        outcome : int or bool
            The answer's code.

        Returns
        -------
        AdaptiveState
            A new state (this one is unchanged).
        """
        spec = self.spec
        check_number("level", level, 0 if spec.family == "weibull" else None)
        codes = spec.outcomes
        if spec.task == "threshold" and isinstance(outcome, (bool, np.bool_)):
            outcome = int(outcome)
        elif isinstance(outcome, (bool, np.bool_)) or outcome not in codes:
            raise ValueError(f"outcome must be one of {codes} for task {spec.task!r}, got {outcome!r}")
        level, r = float(level), codes.index(int(outcome))
        p = spec.probabilities([level])[r, 0].ravel()
        log_post = self.log_posterior + np.log(np.maximum(p, _TINY))
        log_post.setflags(write=False)
        return AdaptiveState(spec, (*self.history, (level, int(outcome))), log_post, self._table,
                             self._table_log)

    @property
    def posterior(self) -> np.ndarray:
        """The normalised posterior over the grid, shape `AdaptiveSpec.grid_shape`."""
        w = np.exp(self.log_posterior - self.log_posterior.max())
        return (w / w.sum()).reshape(self.spec.grid_shape)

    def expected_entropy(self) -> np.ndarray:
        """Σ_r P(r | x) H(posterior after answer r at x), per candidate x (nats; module docstring)."""
        if self.spec.entropy == "joint":
            # Σ_θ A log A with A = T p: (T log T) p + T (p log p); then E[H] = Σ_r P_r log P_r − Σ_θ A log A.
            p = self.posterior.ravel()
            prob = self._table @ p  # (R, X)
            s = self._table_log @ p + self._table @ _entropy_terms(p)
            return np.sum(_entropy_terms(prob) - s, axis=0)
        weighted = self._weighted()
        return np.sum(_entropy_terms(weighted.sum(-1)) - _entropy_terms(weighted).sum(-1), axis=0)

    def _weighted(self) -> np.ndarray:
        """P(r, α | x) = Σ_nuisances P(r | x, θ) p(θ): shape (outcomes, candidates, thresholds)."""
        p = self.posterior.ravel()
        table, n_a = self._table, self.spec.grid_shape[0]
        return (table.reshape(*table.shape[:2], n_a, -1) * p.reshape(n_a, -1)).sum(-1)

    def expected_variance(self) -> np.ndarray:
        """Σ_r P(r | x) Var(α | answer r at x), per candidate x (squared threshold units): the expected
        posterior variance of the threshold's marginal (criterion "variance")."""
        w = self._weighted()  # (R, X, α)
        a = np.asarray(self.spec.thresholds)
        m1, m2 = w @ a, w @ (a * a)  # P_r E[α | r] and P_r E[α² | r]
        return np.sum(m2 - m1 * m1 / np.maximum(w.sum(-1), _TINY), axis=0)

    def criterion_values(self) -> np.ndarray:
        """Per candidate, the quantity `next_level` minimises: `expected_entropy` or `expected_variance`."""
        return self.expected_variance() if self.spec.criterion == "variance" else self.expected_entropy()

    def next_level(self) -> float:
        """The candidate minimising the criterion (expected entropy or variance; or one of the ``top_k`` best,
        seeded per trial)."""
        order = np.argsort(self.criterion_values(), kind="stable")
        pick = 0
        if self.spec.top_k > 1:
            seq = np.random.SeedSequence((self.spec.seed, len(self.history)))
            pick = int(np.random.Generator(np.random.PCG64(seq)).integers(self.spec.top_k))
        return self.spec.candidates[int(order[pick])]

    def estimate(self, *, check: bool = False) -> AdaptiveEstimate:
        """The threshold's estimate and credible interval now (module docstring); with ``check`` (task
        "threshold"), the status and goodness of fit of the answers so far (`AdaptiveEstimate`; one
        maximum-likelihood fit, so the stopping rules leave it off).

        Parameters
        ----------
        check : bool, optional
            Add the status and goodness of fit (task "threshold").

        Returns
        -------
        AdaptiveEstimate
            The estimate.
        """
        spec, post = self.spec, self.posterior
        grid = np.asarray(spec.thresholds)
        marginal = post.sum(axis=(1, 2, 3))
        # Quantiles treat each grid point's mass as spread evenly over its cell (halfway to its neighbours,
        # clipped to the grid's range): interpolating the cumulative sum between grid points instead put the
        # upper end of a posterior concentrated on one point below that point, and the mean outside its
        # own interval.
        edges = np.concatenate([grid[:1], (grid[1:] + grid[:-1]) / 2, grid[-1:]])
        cdf = np.concatenate([[0.0], np.cumsum(marginal)])
        if spec.estimate == "mean":
            value = float(marginal @ grid)
        elif spec.estimate == "median":
            value = float(np.interp(0.5, cdf, edges))
        else:
            value = float(grid[np.argmax(marginal)])
        tail = (1.0 - spec.credible) / 2
        low, high = np.interp([tail, 1.0 - tail], cdf, edges)
        done, reason = self._stopping(high - low)
        return AdaptiveEstimate(value, float(low), float(high), spec.credible,
                                slope=float(post.sum(axis=(0, 2, 3)) @ np.asarray(spec.slopes)),
                                band=float(post.sum(axis=(0, 1, 3)) @ np.asarray(spec.bands)),
                                lapse=float(post.sum(axis=(0, 1, 2)) @ np.asarray(spec.lapses)),
                                trials=len(self.history), done=done, stop_reason=reason,
                                **(self._check() if check and spec.task == "threshold" else {}))

    def _check(self) -> dict[str, Any]:
        """Status and goodness of fit of the history (`AdaptiveEstimate`): the maximum-likelihood fit of
        `plates.analysis.psychometric_fits.fit_psychometric` with the spec's guess rate and family. Its
        "below-range" / "above-range" are no reason to refuse the posterior (the grid prior bounds it), so
        they count as "fit"."""
        levels = [h[0] for h in self.history]
        fit = fit_psychometric(levels, [h[1] for h in self.history], guess=float(self.spec.guess),
                               family=self.spec.family, interval=False)
        status = fit.status if fit.status in ("non-monotonic", "at-chance", "too-few") else "fit"
        return {"status": status, "message": fit.message if status != "fit" else "",
                "deviance_p": fit.deviance_p, "monotone_p": fit.monotone_p, "chance_p": fit.chance_p}

    def _stopping(self, width: float) -> tuple[bool, str]:
        spec, trials = self.spec, len(self.history)
        if trials >= spec.max_trials:
            return True, f"max_trials ({spec.max_trials}) reached"
        if spec.ci_width is not None and trials >= spec.min_trials and width <= spec.ci_width:
            return True, f"credible interval {width:.4g} <= ci_width {spec.ci_width:g}"
        return False, ""

    @property
    def done(self) -> bool:
        """Whether a stopping rule holds (the procedure may still be asked for a level)."""
        return self.estimate().done

    def to_json(self) -> str:
        """Compact JSON of the spec and the history (sorted keys): all a resumed run needs."""
        return json.dumps({"spec": self.spec.to_dict(), "history": [list(h) for h in self.history]},
                          sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> AdaptiveState:
        """The state `to_json` wrote, rebuilt by `replay`.

        Parameters
        ----------
        text : str
            `to_json`'s output.

        Returns
        -------
        AdaptiveState
            The state.
        """
        data = json.loads(text)
        if not isinstance(data, dict) or set(data) != {"spec", "history"}:
            raise ValueError("adaptive state JSON must be an object with exactly 'spec' and 'history'")
        return cls.replay(AdaptiveSpec.from_dict(data["spec"]), data["history"])
