"""Simulated observers (`plates.analysis.observers`): a plate observer answers at the rate of its
psychometric function and its wrong answers follow the task; a comparison observer answers at the PSE
model's probabilities; bad parameters are refused naming what is allowed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from plates.analysis.observers import ComparisonObserver, SimulatedObserver
from plates.analysis.pse import outcomes, pse_probabilities

LEVELS = np.arange(1.0, 21.0)  # ΔE2000 1..20, a constant-stimuli design


def test_observer_answers_at_the_rate_of_its_function():
    observer = SimulatedObserver(8.0, 1.0, "mc", n_options=4, lapse=0.04, seed=11)
    verdicts = observer.correct(np.full(40_000, 8.0), observer.rng())
    expected = 0.25 + (1 - 0.25 - 0.04) / 2
    assert abs(verdicts.mean() - expected) < 4 * math.sqrt(expected * (1 - expected) / 40_000)
    one_by_one = [observer.correct([x], rng)[0] for rng in [observer.rng()] for x in LEVELS]
    assert list(observer.correct(LEVELS, observer.rng())) == one_by_one


def test_observer_wrong_answers_by_task():
    rng = np.random.default_rng(0)
    blind = SimulatedObserver(1000.0, 1.0, "open", label_space_size=5)  # sees nothing at ΔE 1: guesses
    labels = ["a", "b", "c", "d", "e"]
    said = blind.answer_open(np.ones(5000), ["c"] * 5000, labels, rng)
    shares = pd.Series(said).value_counts(normalize=True)
    assert abs(shares["c"] - 0.2) < 0.03 and all(abs(shares[k] - 0.2) < 0.03 for k in "abde")
    chooser = SimulatedObserver(1000.0, 1.0, "mc", n_options=4)
    picks = chooser.answer_choice(np.ones(4000), np.full(4000, 2), rng)
    assert set(np.unique(picks)) == {0, 1, 2, 3} and abs(np.mean(picks == 2) - 0.25) < 0.03
    seer = SimulatedObserver(1.0, 5.0, "yesno")  # sees everything at ΔE 40
    assert seer.answer_yesno([40.0, 40.0], ["yes", "no"], rng) == ["yes", "no"]
    blind_yn = SimulatedObserver(1000.0, 1.0, "yesno")
    said_yn = blind_yn.answer_yesno(np.ones(4000), ["yes"] * 4000, rng)
    assert abs(said_yn.count("yes") / 4000 - 0.5) < 0.03


def test_observer_bad_input():
    with pytest.raises(ValueError, match="answer kind 'free' is not known"):
        SimulatedObserver(8.0, 1.0, "free")
    with pytest.raises(ValueError, match="lapse must lie in \\[0, 1 - guess\\)"):
        SimulatedObserver(8.0, 1.0, "yesno", lapse=0.5)
    with pytest.raises(ValueError, match="slope=-1.0 is not valid; allowed: a number > 0"):
        SimulatedObserver(8.0, -1.0, "yesno")
    with pytest.raises(ValueError, match="threshold='8' is not valid; allowed: a number$"):
        SimulatedObserver("8", 1.0, "yesno")
    with pytest.raises(ValueError, match="seed=-1 is not valid; allowed: an integer >= 0"):
        SimulatedObserver(8.0, 1.0, "yesno", seed=-1)
    observer = SimulatedObserver(8.0, 1.0, "open", label_space_size=3)
    with pytest.raises(ValueError, match="target 'z' is not in the label space"):
        observer.answer_open([1.0], ["z"], ["a", "b", "c"], np.random.default_rng(0))
    with pytest.raises(ValueError, match="answer_yesno needs an observer of answer kind 'yesno'"):
        observer.answer_yesno([1.0], ["yes"], np.random.default_rng(0))
    with pytest.raises(ValueError, match="band must be >= 0, and 0 with two alternatives"):
        ComparisonObserver(0.0, 1.0, alternatives=2, band=1.0)


def test_a_comparison_observer_answers_at_the_pse_models_probabilities():
    observer = ComparisonObserver(pse=-1.0, slope=0.8, alternatives=3, band=1.0, lapse=0.04, seed=9)
    levels = np.array([-5.0, -1.0, 0.5, 4.0])
    expected = pse_probabilities(levels, -1.0, 0.8, band=1.0, lapse=0.04, alternatives=3)
    assert observer.probabilities(levels) == pytest.approx(expected)
    n = 20_000
    answers = observer.answer(np.repeat(levels, n), observer.rng()).reshape(levels.size, n)
    for i in range(levels.size):
        for j, code in enumerate(outcomes(3)):
            p = expected[j, i]
            assert abs(np.mean(answers[i] == code) - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-9
    again = observer.answer(np.repeat(levels, n), observer.rng()).reshape(levels.size, n)
    assert np.array_equal(answers, again)  # the same seed, the same answers
    assert observer.replace(pse=2.0).pse == 2.0 and observer.pse == -1.0
    with pytest.raises(ValueError, match="family 'weibull' is not allowed; allowed: logistic, gaussian"):
        ComparisonObserver(0.0, 1.0, family="weibull")
