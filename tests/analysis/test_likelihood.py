"""plates.analysis.likelihood's fits of many groups at once (`fit_batch`): the same optimum and profile
interval as scipy's optimiser and `profile_interval` group by group, whatever else is in the batch."""

from __future__ import annotations

import numpy as np
import pytest

from plates.analysis import likelihood, psychometric, psychometric_fits
from plates.analysis import pse as pse_module
from plates.analysis.observers import ComparisonObserver, SimulatedObserver
from plates.analysis.pse import fit_pse, fit_pse_counts, outcomes
from plates.analysis.psychometric_fits import fit_psychometric, fit_psychometric_counts
from tests.support.reference_grid import grid_starts_elementwise

LEVELS = np.linspace(1.0, 20.0, 12)


def _observer_counts(threshold: float, kind: str, seed: int, repeats: int = 30):
    extra = {"label_space_size": 100} if kind == "open" else {"n_options": 4} if kind == "mc" else {}
    observer = SimulatedObserver(threshold, 0.6, kind, lapse=0.02, seed=seed, **extra)
    x = np.repeat(LEVELS, repeats)
    correct = observer.rng().random(x.size) < observer.p_correct(x)
    k = np.array([correct[x == level].sum() for level in LEVELS], dtype=float)
    return k, np.full(LEVELS.size, float(repeats)), observer.guess


def _scipy_threshold(k: np.ndarray, n: np.ndarray, guess: float) -> tuple[float, float, float]:
    """The threshold and its interval by `likelihood.fit` (scipy SLSQP, `profile_interval`) on the model's
    likelihood (what every fit ran before the batch), through the fit's interval rule."""
    fun = psychometric_fits.batch_nll(LEVELS[None], k[None], n[None], np.array([guess]), None, "logistic")

    def one(theta):
        value, grad = fun(theta[None], np.array([0]))
        return float(value[0]), grad[0]

    span = LEVELS[-1] - LEVELS[0]
    bounds = [(LEVELS[0] - span, LEVELS[-1] + span), (np.log(0.5 / span), np.log(1000.0 / span)),
              (0.0, psychometric.LAPSE_MAX)]
    starts = psychometric_fits.grid_starts(LEVELS, k, n, guess, None, "logistic", bounds)
    best, prof = likelihood.fit(one, starts, bounds, jac=True, cutoff=likelihood.chi2_cutoff(0.95))
    # the interval a located threshold reports: the posterior's, widened to this profile interval
    low, high = psychometric_fits.threshold_interval(LEVELS, k, n, LEVELS, guess, None, "logistic", bounds[1][1],
                                                     0.95, prof.low, prof.high)
    return float(best.theta[0]), low, high


def test_psychometric_fits_together_equal_scipy_fits_one_by_one():
    groups = [(*_observer_counts(t, kind, seed), kind) for seed, (t, kind) in
              enumerate([(6.0, "yesno"), (9.0, "open"), (12.0, "mc"), (4.0, "yesno"), (15.0, "open")])]
    counts = [(LEVELS, k, n, guess) for k, n, guess, _ in groups]
    together = fit_psychometric_counts(counts)
    assert [f.status for f in together] == ["fit"] * 5
    for fit, (k, n, guess, _) in zip(together, groups):
        threshold, low, high = _scipy_threshold(k, n, guess)
        assert (fit.threshold, fit.ci_low, fit.ci_high) == pytest.approx((threshold, low, high), abs=1e-3)
        answers = np.repeat(np.tile(LEVELS, 2), np.concatenate([k, n - k]).astype(int))
        right = np.repeat([True, False], [int(k.sum()), int((n - k).sum())])
        alone = fit_psychometric(answers, right, guess=guess)  # the row-level entry point: the same fit
        assert (alone.threshold, alone.ci_low, alone.ci_high) == pytest.approx(
            (fit.threshold, fit.ci_low, fit.ci_high), abs=1e-9)
    for i, (k, n, guess, _) in enumerate(groups):  # a group's fit does not depend on the others in its batch
        single = fit_psychometric_counts([(LEVELS, k, n, guess)])[0]
        assert (single.threshold, single.ci_low, single.ci_high) == pytest.approx(
            (together[i].threshold, together[i].ci_low, together[i].ci_high), abs=1e-9)


def test_pse_fits_together_equal_scipy_fits_one_by_one_and_the_row_fit():
    levels = np.linspace(-10.0, 10.0, 11)
    groups, rows = [], []
    for seed, (pse, band) in enumerate([(-2.0, 1.0), (1.5, 0.5), (-4.0, 2.0), (0.0, 1.5)]):
        observer = ComparisonObserver(pse=pse, slope=0.5, alternatives=3, band=band, lapse=0.02, seed=seed)
        x = np.repeat(levels, 40)
        r = observer.answer(x, observer.rng())
        rows.append((x, r))
        groups.append((levels, np.array([[np.sum((x == level) & (r == c)) for level in levels]
                                         for c in outcomes(3)], dtype=float)))
    together = fit_pse_counts(groups, alternatives=3)
    assert [f.status for f in together] == ["fit"] * 4
    cutoff = likelihood.chi2_cutoff(0.95)
    for fit, (xs, counts), (x, r) in zip(together, groups, rows):
        fun = pse_module.batch_nll(xs[None], counts[None], 3, None, "logistic")

        def one(theta, fun=fun):
            value, grad = fun(theta[None], np.array([0]))
            return float(value[0]), grad[0]

        box = pse_module.parameter_bounds(xs, True, False)
        start = pse_module.grid_starts([(xs, counts)], [box], 3, None, "logistic")[0]
        best, prof = likelihood.fit(one, [np.array(start)], box, jac=True, cutoff=cutoff)
        assert (fit.pse, fit.ci_low, fit.ci_high) == pytest.approx((best.theta[0], prof.low, prof.high), abs=1e-3)
        by_rows = fit_pse(x, r, alternatives=3)
        assert (by_rows.pse, by_rows.ci_low, by_rows.ci_high, by_rows.n) == pytest.approx(
            (fit.pse, fit.ci_low, fit.ci_high, fit.n), abs=1e-9)


def test_a_local_minimum_is_refitted_in_the_batch_as_scipy_refits_it(monkeypatch):
    """Three answers at three levels (a participant's cell on the Illusions page): the grid start's optimum is a
    local one, the profile meets a better point, and the batch fits again from there (`fit_batch`'s restarts),
    ending where scipy's `fit` (which restarts from the better point too) ends: no group refitted one by one."""
    levels = np.array([-10.0, -9.0, -8.0])
    groups = [(levels, np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])),
              (levels, np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))]
    box = pse_module.parameter_bounds(levels, True, False)
    starts = pse_module.grid_starts(groups, [box, box], 3, None, "logistic")
    fun = pse_module.batch_nll(np.stack([levels, levels]), np.stack([c for _, c in groups]), 3, None, "logistic")
    lower, upper = np.array([[b[0] for b in box]] * 2), np.array([[b[1] for b in box]] * 2)
    cutoff = likelihood.chi2_cutoff(0.95)
    first = likelihood.fit_batch(fun, np.array(starts), np.arange(2), lower, upper, cutoff=cutoff, restarts=0)
    assert first.trouble.all()  # without a restart both are left to the one-by-one refit
    batch = likelihood.fit_batch(fun, np.array(starts), np.arange(2), lower, upper, cutoff=cutoff)
    assert not batch.trouble.any() and (batch.nll < first.nll - 0.1).all()
    for row in range(2):
        theta, nll, _, low, high = likelihood.refit_row(fun, row, [np.array(starts[row])], lower[row], upper[row],
                                                        cutoff)
        assert batch.nll[row] == pytest.approx(nll, abs=1e-9)
        assert batch.theta[row][0] == pytest.approx(theta[0], abs=1e-6)
        assert (batch.low[row], batch.high[row]) == (low, high)
    monkeypatch.setattr(likelihood, "refit_row", None)  # fit_pse_counts must not need it
    fits = fit_pse_counts(groups, alternatives=3)
    assert [f.pse for f in fits] == pytest.approx(list(batch.theta[:, 0]), abs=1e-12)


def test_psychometric_grid_starts_on_the_shared_psi_grid_are_the_starts_before():
    """The starts' ψ grid is the posterior's (`psychometric_fits._psi_grid`) instead of one of their own
    (tests/support/reference_grid.py, the code before): the very same starts, bit for bit, on simulated observers
    of every answer kind and where grid points tie exactly (answers at the guess rate, ψ = γ wherever the curve
    has not risen; a step, flat in the slope past it), with the lapse fitted or fixed: no fit can change."""
    groups = [(*_observer_counts(t, kind, seed)[:2], _observer_counts(t, kind, seed)[2])
              for seed, (t, kind) in enumerate([(6.0, "yesno"), (9.0, "open"), (12.0, "mc"), (4.0, "yesno"),
                                                (15.0, "open"), (2.0, "mc"), (18.0, "yesno")])]
    groups += [(np.full(LEVELS.size, 10.0), np.full(LEVELS.size, 20.0), 0.5),  # always at chance: ties
               (np.r_[np.full(6, 10.0), np.full(6, 20.0)], np.full(LEVELS.size, 20.0), 0.5)]  # a step: ties
    span = LEVELS[-1] - LEVELS[0]
    bounds = [(LEVELS[0] - span, LEVELS[-1] + span), (np.log(0.5 / span), np.log(1000.0 / span))]
    for lapse in (None, 0.02):
        for k, n, guess in groups:
            shared = psychometric_fits.grid_starts(LEVELS, k, n, guess, lapse, "logistic", bounds)
            before = grid_starts_elementwise(LEVELS, k, n, guess, lapse, "logistic", bounds)
            assert len(shared) == len(before) == 2
            assert all(np.array_equal(a, b) for a, b in zip(shared, before))


def test_counts_entry_points_refuse_bad_groups():
    with pytest.raises(ValueError, match="0 <= correct <= trials"):
        fit_psychometric_counts([(LEVELS, LEVELS * 0 + 5, LEVELS * 0 + 4, 0.5)])
    with pytest.raises(ValueError, match="guess must lie in"):
        fit_psychometric_counts([(LEVELS, LEVELS * 0, LEVELS * 0 + 4, 1.5)])
    with pytest.raises(ValueError, match="levels increasing, counts of shape \\(3, levels\\)"):
        fit_pse_counts([(np.array([1.0, 0.0]), np.ones((3, 2)))], alternatives=3)
    assert fit_pse_counts([(np.array([1.0]), np.ones((2, 1)))], alternatives=2)[0].status == "too-few"


def test_bootstrap_isotonic_fits_at_once_equal_pool_adjacent_violators():
    rng = np.random.default_rng(5)
    for _ in range(40):
        size = int(rng.integers(2, 30))
        n = rng.integers(1, 25, size).astype(float)
        p = np.sort(rng.random(size))
        p[rng.integers(0, size)] *= rng.random()  # a dip
        draws = rng.binomial(n.astype(int), p, size=(20, size)).astype(float)
        one_by_one = [psychometric.iso_deviance(row, n)[0] for row in draws]
        trials = np.broadcast_to(n, draws.shape)
        assert psychometric.iso_deviances(draws, trials) == pytest.approx(one_by_one, abs=1e-9)
        # rows of fewer levels, padded at the end with no trials, beside wider ones: the same deviances
        pad = int(rng.integers(1, 4))
        padded = np.pad(draws, ((0, 0), (0, pad)))
        wider = np.hstack([draws, rng.binomial(5, 0.5, size=(20, pad))]).astype(float)
        together = psychometric.iso_deviances(np.vstack([padded, wider]),
                                               np.vstack([np.pad(trials, ((0, 0), (0, pad))),
                                                          np.hstack([trials, np.full((20, pad), 5.0)])]))
        assert together[:20] == pytest.approx(one_by_one, abs=1e-9)


def test_monotonicity_bootstrap_of_many_groups_equals_each_alone():
    """Each group's bootstrap draws come from its own seeded generator: its p is the same fitted alone or
    beside groups of other level counts (the dashboard fits hundreds together)."""
    rng = np.random.default_rng(11)
    groups = []
    for size in (3, 8, 20, 8, 5, 20):
        n = rng.integers(5, 60, size).astype(float)
        p = np.sort(rng.uniform(0.3, 0.9, size))
        p[size // 2] *= 0.8  # a small dip: the chi-square bound does not settle it, the bootstrap does
        groups.append((rng.binomial(n.astype(int), p).astype(float), n))
    together = psychometric.monotone_from_counts(groups)
    assert together == [psychometric.monotone_from_counts([g])[0] for g in groups]
    assert any(1 / 1001 < p < 1 for _, p in together)  # some went through the bootstrap
