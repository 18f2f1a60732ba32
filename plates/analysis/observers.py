"""Simulated observers with a known psychometric function, for tests and benchmarks.

An observer answers a trial at level ``x`` (plates: ΔE2000 between text and background dots, CIELAB D65 2°)
correctly with probability ψ(x) = γ + (1 − γ − λ) F(x; α, β) (`plates.analysis.psychometric`) and otherwise
gives a wrong answer of the task's kind: the other word (yes/no), a uniformly random other option (k-way
choice), a uniformly random other label of the label space (open answers). A `ComparisonObserver` answers an
illusion's A / B (/ same) comparison by the PSE model of `plates.analysis.pse`.

Randomness: every method takes a ``numpy.random.Generator``; `SimulatedObserver.rng` and
`ComparisonObserver.rng` give the observer's own PCG64 stream from ``SeedSequence(seed)``. `correct` draws one
uniform per trial, so answering a list at once or one trial at a time from the same stream gives the same
verdicts. The other methods draw the verdicts first, then the wrong answers (one integer per trial).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from plates.analysis.pse import PSE_FAMILIES, outcomes, pse_probabilities
from plates.analysis.psychometric import FAMILIES, guess_rate, psychometric
from plates.validation import check_choice, check_int, check_number

__all__ = ["ComparisonObserver", "SimulatedObserver"]


@dataclass(frozen=True)
class SimulatedObserver:
    """A simulated observer of a threshold task with a known psychometric function ψ (`psychometric`).

    Parameters
    ----------
    threshold : float
        The level where ψ is halfway between guess and ceiling, e.g. a plate's ΔE2000 (CIELAB D65 2°); finite,
        and > 0 for the Weibull family.
    slope : float
        β of ``family``, per unit of level, finite and > 0.
    answer_kind : str
        "yesno", "mc" or "open": the task, whose guess rate γ follows (`guess_rate`: ½, 1/``n_options``,
        1/``label_space_size``).
    lapse : float
        λ, 0 <= λ < 1 − γ.
    n_options : int or None
        Options of an "mc" task (>= 2).
    label_space_size : int or None
        Labels of an "open" task.
    family : str
        One of `plates.analysis.psychometric.FAMILIES`.
    seed : int
        >= 0: the observer's stream (`rng`).

    Raises
    ------
    ValueError
        A threshold or slope out of range, a lapse outside [0, 1 − γ), an answer kind not known or without
        its ``n_options`` / ``label_space_size``, a family not known, a negative or non-integer seed.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313 (ψ with guess and lapse rates).

    Examples
    --------
    >>> observer = SimulatedObserver(threshold=8.0, slope=1.0, answer_kind="yesno")
    >>> observer.guess, float(observer.p_correct(8.0)[()])
    (0.5, 0.75)
    """

    threshold: float
    slope: float
    answer_kind: str
    lapse: float = 0.0
    n_options: int | None = None
    label_space_size: int | None = None
    family: str = "logistic"
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice("family", self.family, FAMILIES)
        if self.family == "weibull":
            check_number("threshold (weibull)", self.threshold, 0, open=True)
        else:
            check_number("threshold", self.threshold)
        check_number("slope", self.slope, 0, open=True)
        guess = guess_rate(self.answer_kind, self.n_options, self.label_space_size)  # validates the task
        if not 0.0 <= self.lapse < 1.0 - guess:
            raise ValueError(f"lapse must lie in [0, 1 - guess) = [0, {1 - guess:g}), got {self.lapse!r}")
        check_int("seed", self.seed, 0)

    @property
    def guess(self) -> float:
        """γ, the task's guess rate."""
        return guess_rate(self.answer_kind, self.n_options, self.label_space_size)

    def replace(self, **changes: Any) -> SimulatedObserver:
        """A copy with ``changes`` applied.

        Parameters
        ----------
        **changes
            Field names and their new values.

        Returns
        -------
        SimulatedObserver
            The new observer.
        """
        return replace(self, **changes)

    def rng(self) -> np.random.Generator:
        """A fresh PCG64 stream of this observer (``SeedSequence(seed)``)."""
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed)))

    def p_correct(self, levels: Any) -> np.ndarray:
        """ψ at ``levels``: the probability of a correct answer.

        Parameters
        ----------
        levels : array_like
            Stimulus levels (ΔE2000 for plates).

        Returns
        -------
        numpy.ndarray
            ψ, 0-1.
        """
        return psychometric(levels, self.threshold, self.slope, guess=self.guess, lapse=self.lapse,
                            family=self.family)

    def correct(self, levels: Any, rng: np.random.Generator) -> np.ndarray:
        """One verdict (bool) per level: correct with probability ψ(level); one uniform draw per trial.

        Parameters
        ----------
        levels : array_like
            Stimulus levels (ΔE2000 for plates).
        rng : numpy.random.Generator
            One uniform draw per trial.

        Returns
        -------
        numpy.ndarray of bool
            The verdicts.
        """
        p = self.p_correct(np.atleast_1d(np.asarray(levels, dtype=float)))
        return rng.random(p.shape) < p

    def answer_yesno(self, levels: Any, truths: Sequence[str], rng: np.random.Generator) -> list[str]:
        """"yes"/"no" per trial, where ``truths`` holds the right answer of each ("yes" or "no").

        Parameters
        ----------
        levels : array_like
            Stimulus levels (ΔE2000 for plates).
        truths : sequence of str
            Each trial's right answer.
        rng : numpy.random.Generator
            One uniform draw per trial.

        Returns
        -------
        list of str
            The answers.
        """
        if self.answer_kind != "yesno":
            raise ValueError(f"answer_yesno needs an observer of answer kind 'yesno', not {self.answer_kind!r}")
        bad = [t for t in truths if t not in ("yes", "no")]
        if bad:
            raise ValueError(f"truths must be 'yes' or 'no'; found {bad[0]!r}")
        ok = self._verdicts(levels, len(truths), rng)
        flip = {"yes": "no", "no": "yes"}
        return [t if c else flip[t] for t, c in zip(truths, ok.tolist())]

    def answer_choice(self, levels: Any, right: Any, rng: np.random.Generator) -> np.ndarray:
        """The option index (0..n_options-1) chosen per trial, where ``right`` holds each right index; a wrong
        answer is a uniformly random other option.

        Parameters
        ----------
        levels : array_like
            Stimulus levels (ΔE2000 for plates).
        right : array_like of int
            Each trial's right option.
        rng : numpy.random.Generator
            One uniform draw per trial.

        Returns
        -------
        numpy.ndarray of int
            The options chosen.
        """
        if self.answer_kind != "mc":
            raise ValueError(f"answer_choice needs an observer of answer kind 'mc', not {self.answer_kind!r}")
        right = np.atleast_1d(np.asarray(right))
        if right.dtype.kind not in "iu" or np.any((right < 0) | (right >= self.n_options)):
            raise ValueError(f"right must hold option indices in 0..{self.n_options - 1}, got {right!r}")
        ok = self._verdicts(levels, right.size, rng)
        other = (right + rng.integers(1, self.n_options, right.size)) % self.n_options
        return np.where(ok, right, other)

    def answer_open(self, levels: Any, targets: Sequence[str], labels: Sequence[str],
                    rng: np.random.Generator) -> list[str]:
        """The label given per trial: the target when correct, else a uniformly random other label of
        ``labels`` (the label space; its size must equal ``label_space_size``).

        Parameters
        ----------
        levels : array_like
            Stimulus levels (ΔE2000 for plates).
        targets : sequence of str
            Each trial's right label.
        labels : sequence of str
            The label space.
        rng : numpy.random.Generator
            One uniform draw per trial.

        Returns
        -------
        list of str
            The labels given.
        """
        if self.answer_kind != "open":
            raise ValueError(f"answer_open needs an observer of answer kind 'open', not {self.answer_kind!r}")
        if len(labels) != self.label_space_size or len(set(labels)) != len(labels):
            raise ValueError(f"labels must be {self.label_space_size} distinct labels (label_space_size), "
                             f"got {len(labels)} ({len(set(labels))} distinct)")
        index = {label: i for i, label in enumerate(labels)}
        missing = [t for t in targets if t not in index]
        if missing:
            raise ValueError(f"target {missing[0]!r} is not in the label space")
        ok = self._verdicts(levels, len(targets), rng)
        target_i = np.array([index[t] for t in targets], dtype=np.int64)
        other = (target_i + rng.integers(1, len(labels), target_i.size)) % len(labels)
        return [labels[i] for i in np.where(ok, target_i, other).tolist()]

    def _verdicts(self, levels: Any, count: int, rng: np.random.Generator) -> np.ndarray:
        levels = np.atleast_1d(np.asarray(levels, dtype=float))
        if levels.size != count:
            raise ValueError(f"levels and answers differ in length: {levels.size} vs {count}")
        return self.correct(levels, rng)


@dataclass(frozen=True)
class ComparisonObserver:
    """A simulated observer of an illusion's comparison under the PSE model (`plates.analysis.pse`).

    Answers +1 ("B looks darker"), −1 ("A looks darker") or, with three alternatives, 0 ("the same") at a
    signed physical difference x (x > 0: B physically darker).

    Parameters
    ----------
    pse : float
        μ, finite, in the unit of x.
    slope : float
        β per unit of x, finite and > 0.
    alternatives : int
        2 or 3.
    band : float
        δ >= 0, the undecided half-band; 0 with two alternatives.
    lapse : float
        λ in [0, 1).
    family : str
        One of `plates.analysis.pse.PSE_FAMILIES`.
    seed : int
        >= 0: the observer's stream (`rng`).

    Raises
    ------
    ValueError
        Any field out of the ranges above; the message names the value.

    References
    ----------
    García-Pérez and Alcalá-Quintana (2013), *Front. Psychol.* 4:253.
    """

    pse: float
    slope: float
    alternatives: int = 2
    band: float = 0.0
    lapse: float = 0.0
    family: str = "logistic"
    seed: int = 0

    def __post_init__(self) -> None:
        check_number("pse", self.pse)
        check_number("slope", self.slope, 0, open=True)
        outcomes(self.alternatives)
        if self.family not in PSE_FAMILIES:
            raise ValueError(f"family {self.family!r} is not allowed; allowed: {', '.join(PSE_FAMILIES)}")
        if not 0.0 <= self.band or (self.alternatives == 2 and self.band != 0.0):
            raise ValueError(f"band must be >= 0, and 0 with two alternatives; got {self.band!r}")
        if not 0.0 <= self.lapse < 1.0:
            raise ValueError(f"lapse must lie in [0, 1), got {self.lapse!r}")
        check_int("seed", self.seed, 0)

    def replace(self, **changes: Any) -> ComparisonObserver:
        """A copy with ``changes`` applied.

        Parameters
        ----------
        **changes
            Field names and their new values.

        Returns
        -------
        ComparisonObserver
            The new observer.
        """
        return replace(self, **changes)

    def rng(self) -> np.random.Generator:
        """A fresh PCG64 stream of this observer (``SeedSequence(seed)``)."""
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed)))

    def probabilities(self, differences: Any) -> np.ndarray:
        """P(answer) per answer code of `plates.analysis.pse.outcomes`, shape (alternatives, n).

        Parameters
        ----------
        differences : array_like
            Signed level differences.

        Returns
        -------
        numpy.ndarray, shape (alternatives, n)
            Probabilities.
        """
        return pse_probabilities(np.atleast_1d(np.asarray(differences, dtype=float)), self.pse, self.slope,
                                 band=self.band, lapse=self.lapse, alternatives=self.alternatives,
                                 family=self.family)

    def answer(self, differences: Any, rng: np.random.Generator) -> np.ndarray:
        """One answer code per difference (one uniform draw per trial).

        Parameters
        ----------
        differences : array_like
            Signed level differences.
        rng : numpy.random.Generator
            One uniform draw per trial.

        Returns
        -------
        numpy.ndarray of int
            Answer codes.
        """
        p = self.probabilities(differences)
        u = rng.random(p.shape[1])
        return np.asarray(outcomes(self.alternatives))[np.sum(u[None, :] >= np.cumsum(p, axis=0)[:-1], axis=0)]
