"""The PSE model and its fits (`plates.analysis.pse`): answer probabilities by hand, fits that find the truth in
expected counts and in a simulated observer's answers, degenerate data named, the grid starts of a batch, and
bad input refused naming what is allowed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from plates.analysis.observers import ComparisonObserver
from plates.analysis.pse import (
    fit_pse,
    fit_pse_counts,
    grid_starts,
    outcomes,
    parameter_bounds,
    pse_probabilities,
)
from plates.analysis.psychometric import LAPSE_MAX


def test_pse_probabilities_by_hand():
    p = pse_probabilities([-2.0, 0.0, 2.0], 0.0, 1.0, alternatives=2)
    assert p.shape == (2, 3) and p[1] == pytest.approx(special.expit([-2.0, 0.0, 2.0]))
    p3 = pse_probabilities([-1.0, 0.5, 3.0], 0.5, 2.0, band=1.0, lapse=0.03, alternatives=3)
    assert p3.sum(axis=0) == pytest.approx([1, 1, 1])
    # At the PSE: P(A) = P(B) = 0.01 + 0.97 expit(-2); "same" takes the rest.
    assert p3[0, 1] == pytest.approx(p3[2, 1]) == pytest.approx(0.01 + 0.97 * special.expit(-2.0))


@pytest.mark.parametrize("alternatives, band", [(2, 0.0), (3, 1.5)])
def test_fit_pse_finds_the_truth_in_expected_counts(alternatives, band):
    levels = np.linspace(-8.0, 8.0, 9)
    p = pse_probabilities(levels, -1.5, 0.7, band=band, lapse=0.02, alternatives=alternatives)
    x, r = [], []
    for i, level in enumerate(levels):
        counts = np.round(p[:, i] * 20_000).astype(int)
        x += [level] * int(counts.sum())
        r += [c for c, k in zip(outcomes(alternatives), counts) for _ in range(k)]
    fit = fit_pse(x, r, alternatives=alternatives)
    assert fit.status == "fit" and fit.pse == pytest.approx(-1.5, abs=0.02)
    assert fit.band == pytest.approx(band, abs=0.03) and fit.ci_low < -1.5 < fit.ci_high
    assert fit.predict(levels) == pytest.approx(p, abs=2e-3)


def test_fit_pse_simulated_and_degenerate():
    observer = ComparisonObserver(pse=-2.0, slope=0.5, alternatives=3, band=1.0, lapse=0.02, seed=4)
    x = np.repeat(np.linspace(-10, 10, 11), 30)
    fit = fit_pse(x, observer.answer(x, observer.rng()), alternatives=3)
    assert fit.status == "fit" and abs(fit.pse + 2.0) < 0.7 and fit.ci_low < -2.0 < fit.ci_high
    all_b = fit_pse([-1, 0, 1] * 4, [1] * 12, alternatives=2)
    assert all_b.status == "below-range" and math.isnan(all_b.pse) and "below -1" in all_b.message
    all_a = fit_pse([-1, 0, 1] * 4, [-1] * 12, alternatives=3)
    assert all_a.status == "above-range"
    assert fit_pse([0, 0], [1, -1], alternatives=2).status == "too-few"


def test_fit_pse_bad_input():
    with pytest.raises(ValueError, match="responses must be codes \\(-1, 1\\).*found 0"):
        fit_pse([0, 1], [0, 1], alternatives=2)
    with pytest.raises(ValueError, match="found 'B'"):
        fit_pse([0, 1], ["B", 1], alternatives=3)
    with pytest.raises(ValueError, match="alternatives must be 2 .* or 3"):
        fit_pse([0, 1], [1, 1], alternatives=4)
    with pytest.raises(ValueError, match="family 'weibull' is not allowed for a PSE"):
        fit_pse([0, 1], [1, 1], alternatives=2, family="weibull")
    with pytest.raises(ValueError, match="band must be >= 0, and 0 with two alternatives"):
        pse_probabilities(0.0, 0.0, 1.0, band=1.0, alternatives=2)


def test_pse_grid_starts_of_a_batch_equal_each_group_alone():
    """Groups with the same levels share the grid's log-probabilities (`pse.grid_starts`): each group's start is
    the one it gets alone, bit for bit, beside groups of other levels, of more than 64 levels (pooled into bins
    weighted by its own counts) and of two alternatives or a fixed lapse."""
    rng = np.random.default_rng(3)
    shared = np.linspace(-10.0, 10.0, 11)
    for alternatives, lapse in ((3, None), (2, None), (3, 0.02)):
        k = len(outcomes(alternatives))
        groups = [(levels, rng.integers(1, 20, (k, levels.size)).astype(float)) for levels in
                  (shared, shared, np.linspace(-4.0, 6.0, 7), shared, np.linspace(-30.0, 30.0, 90),
                   np.linspace(-30.0, 30.0, 90))]
        plateau = np.zeros((k, shared.size))
        plateau[0] = 5.0  # every answer "A darker": a plateau of equal grid cells, the first one wins alone or not
        groups.append((shared, plateau))
        boxes = [parameter_bounds(xs, alternatives == 3, lapse is not None) for xs, _ in groups]
        together = grid_starts(groups, boxes, alternatives, lapse, "logistic")
        alone = [grid_starts([g], [b], alternatives, lapse, "logistic")[0] for g, b in zip(groups, boxes)]
        assert together == alone


def test_outcomes_are_the_answer_codes_and_other_alternatives_are_refused():
    assert outcomes(2) == (-1, 1) and outcomes(3) == (-1, 0, 1)
    with pytest.raises(ValueError, match="alternatives must be 2 .* or 3"):
        outcomes(4)


def test_counts_and_rows_give_the_same_fit():
    observer = ComparisonObserver(pse=1.0, slope=0.6, alternatives=3, band=0.8, lapse=0.02, seed=2)
    levels = np.linspace(-9.0, 9.0, 10)
    x = np.repeat(levels, 25)
    answers = observer.answer(x, observer.rng())
    counts = np.array([[np.sum((x == level) & (answers == code)) for level in levels] for code in outcomes(3)],
                      dtype=float)
    by_rows = fit_pse(x, answers, alternatives=3)
    (by_counts,) = fit_pse_counts([(levels, counts)], alternatives=3)
    assert by_counts.status == by_rows.status == "fit" and by_counts.n == by_rows.n == x.size
    assert by_counts.pse == pytest.approx(by_rows.pse, abs=1e-6)
    assert (by_counts.ci_low, by_counts.ci_high) == pytest.approx((by_rows.ci_low, by_rows.ci_high), abs=1e-4)


def test_parameter_bounds_follow_the_levels_and_the_model():
    xs = np.array([-4.0, 0.0, 6.0])  # span 10
    mu, log_beta = [-14.0, 16.0], [math.log(0.05), math.log(100.0)]

    def flat(bounds):
        return [float(v) for pair in bounds for v in pair]

    assert flat(parameter_bounds(xs, True, False)) == pytest.approx([*mu, *log_beta, 0.0, 10.0, 0.0, LAPSE_MAX])
    assert flat(parameter_bounds(xs, False, True)) == pytest.approx([*mu, *log_beta])  # no band, lapse fixed
    assert flat(parameter_bounds(xs, True, True)) == pytest.approx([*mu, *log_beta, 0.0, 10.0])
