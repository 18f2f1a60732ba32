"""The Bayesian adaptive procedure (plates.analysis.adaptive): its posterior on scripted answers."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plates.analysis.adaptive import AdaptiveSpec, AdaptiveState
from plates.analysis.observers import ComparisonObserver, SimulatedObserver

SMALL = AdaptiveSpec(candidates=(1.0, 2.0, 4.0, 8.0, 16.0), thresholds=(1.0, 3.0, 6.0, 10.0, 15.0),
                     slopes=(0.5, 2.0), lapses=(0.0, 0.05), guess=0.25)


def run(state: AdaptiveState, observer, rng, trials: int) -> AdaptiveState:
    for _ in range(trials):
        level = state.next_level()
        answer = observer.correct([level], rng)[0] if isinstance(observer, SimulatedObserver) else int(
            observer.answer([level], rng)[0])
        state = state.update(level, answer)
    return state


def test_posterior_equals_bayes_by_hand():
    # Prior uniform over the 5 x 2 x 2 grid; likelihood of each answer from the logistic written out here.
    history = [(4.0, 1), (2.0, 0), (8.0, 1), (5.5, 1), (1.0, 0)]  # 5.5 is not a candidate: still allowed
    state = AdaptiveState.replay(SMALL, history)
    weights = {}
    for a, b, lam in itertools.product(SMALL.thresholds, SMALL.slopes, SMALL.lapses):
        w = 1.0
        for x, r in history:
            psi = 0.25 + (1 - 0.25 - lam) / (1 + math.exp(-b * (x - a)))
            w *= psi if r else 1 - psi
        weights[a, b, lam] = w
    total = sum(weights.values())
    expected = np.array([weights[k] / total for k in itertools.product(SMALL.thresholds, SMALL.slopes,
                                                                         SMALL.lapses)])
    assert state.posterior.shape == (5, 2, 1, 2)
    assert state.posterior.ravel() == pytest.approx(expected, rel=1e-10)
    est = state.estimate()
    marginal = expected.reshape(5, 4).sum(1)
    assert est.threshold == pytest.approx(float(marginal @ np.array(SMALL.thresholds)))


@pytest.mark.parametrize("entropy", ["threshold", "joint"])
def test_expected_entropy_equals_a_brute_force_loop(entropy):
    spec = SMALL.replace(entropy=entropy)
    state = AdaptiveState.replay(spec, [(4.0, 1), (2.0, 0)])
    prior = state.posterior.reshape(5, -1)
    naive = []
    for x in spec.candidates:
        h = 0.0
        for r in (0, 1):
            post = np.array([[(0.25 + (0.75 - lam) / (1 + math.exp(-b * (x - a))))
                              for b, lam in itertools.product(spec.slopes, spec.lapses)] for a in spec.thresholds])
            like = post if r else 1 - post
            joint = prior * like
            p_r = joint.sum()
            dist = (joint / p_r).sum(1) if entropy == "threshold" else (joint / p_r).ravel()
            h += p_r * -sum(q * math.log(q) for q in dist if q > 0)
        naive.append(h)
    assert state.expected_entropy() == pytest.approx(naive, rel=1e-9)
    assert state.next_level() == spec.candidates[int(np.argmin(naive))]


def brute_force_posterior(spec, history):
    """Posterior over (α, (β, λ)) of SMALL-like specs (γ 0.25, logistic), by Bayes' rule written out."""
    rows = []
    for a in spec.thresholds:
        row = []
        for b, lam in itertools.product(spec.slopes, spec.lapses):
            w = 1.0
            for x, r in history:
                psi = spec.guess + (1 - spec.guess - lam) / (1 + math.exp(-b * (x - a)))
                w *= psi if r else 1 - psi
            row.append(w)
        rows.append(row)
    joint = np.array(rows)
    return joint / joint.sum()


def test_expected_variance_equals_a_brute_force_loop():
    spec = SMALL.replace(criterion="variance")
    history = [(4.0, 1), (2.0, 0), (8.0, 1)]
    state = AdaptiveState.replay(spec, history)
    grid = np.array(spec.thresholds)
    naive = []
    for x in spec.candidates:
        v = 0.0
        for r in (0, 1):
            joint = brute_force_posterior(spec, [*history, (x, r)])
            # P(r | x, data) = Σ_θ P(r | x, θ) p(θ | data): the ratio of the two evidences.
            like = np.array([[(0.25 + (0.75 - lam) / (1 + math.exp(-b * (x - a))))
                              for b, lam in itertools.product(spec.slopes, spec.lapses)] for a in grid])
            p_r = float((brute_force_posterior(spec, history) * (like if r else 1 - like)).sum())
            marginal = joint.sum(1)
            mean = float(marginal @ grid)
            v += p_r * float(marginal @ (grid - mean) ** 2)
        naive.append(v)
    assert state.expected_variance() == pytest.approx(naive, rel=1e-9)
    assert np.array_equal(state.criterion_values(), state.expected_variance())
    assert state.next_level() == spec.candidates[int(np.argmin(naive))]
    # Another criterion, another choice here: entropy of the marginal (the default) and variance differ.
    assert AdaptiveState.replay(SMALL, history).next_level() != state.next_level()


def test_median_and_interval_spread_each_grid_points_mass_over_its_cell():
    history = [(4.0, 1), (2.0, 0), (8.0, 1), (3.0, 1)]
    marginal = brute_force_posterior(SMALL, history).sum(1)
    grid = np.asarray(SMALL.thresholds)
    edges = [grid[0], *((grid[1:] + grid[:-1]) / 2), grid[-1]]  # cells halfway to the neighbours

    def quantile(q):  # walk the cells by hand: the mass of cell k lies evenly on [edges[k], edges[k + 1]]
        below = 0.0
        for k, mass in enumerate(marginal):
            if below + mass >= q:
                return edges[k] + (q - below) / mass * (edges[k + 1] - edges[k])
            below += mass
        return edges[-1]

    median = AdaptiveState.replay(SMALL.replace(estimate="median"), history).estimate()
    mean = AdaptiveState.replay(SMALL, history).estimate()
    assert median.threshold == pytest.approx(quantile(0.5), rel=1e-10)
    assert (mean.ci_low, mean.ci_high) == pytest.approx((quantile(0.025), quantile(0.975)), rel=1e-10)
    assert median.threshold != pytest.approx(mean.threshold, abs=0.05)
    assert (median.ci_low, median.ci_high) == (mean.ci_low, mean.ci_high)


def test_a_posterior_on_one_grid_point_holds_its_mean_inside_its_interval():
    # many answers pin the threshold: the mean sits on a grid point, and the interval must contain it
    history = [(x, int(x > 4.1)) for x in np.linspace(3.0, 5.0, 41) for _ in range(6)]
    e = AdaptiveState.replay(SMALL.replace(max_trials=1000), history).estimate()
    assert e.ci_low <= e.threshold <= e.ci_high


def test_new_spec_fields_have_defaults_and_round_trip():
    state = AdaptiveState.replay(SMALL.replace(criterion="variance", estimate="median"), [(4.0, 1), (2.0, 0)])
    again = AdaptiveState.from_json(state.to_json())
    assert again.spec.criterion == "variance" and again.spec.estimate == "median"
    assert np.array_equal(again.log_posterior, state.log_posterior) and again.next_level() == state.next_level()
    old = json.loads(AdaptiveState.replay(SMALL, [(4.0, 1)]).to_json())
    del old["spec"]["criterion"]  # a state written before the field existed
    resumed = AdaptiveState.from_json(json.dumps(old))
    assert resumed.spec.criterion == "entropy" and resumed.spec == SMALL


def test_correct_answers_move_the_estimate_down_and_wrong_ones_up():
    spec = AdaptiveSpec.for_threshold(0.5)
    for answer, direction in ((1, -1), (0, +1)):
        state, before = AdaptiveState.start(spec), AdaptiveState.start(spec).estimate().threshold
        for _ in range(12):
            state = state.update(state.next_level(), answer)
            now = state.estimate().threshold
            assert direction * (now - before) > 0
            before = now
    right = AdaptiveState.replay(spec, [(4.0, 1)] * 30).estimate()
    assert right.ci_high < 4.0  # thirty correct answers at ΔE 4 put the threshold below 4


def test_replay_rebuilds_the_same_posterior_and_choice():
    observer = SimulatedObserver(6.0, 1.0, "mc", n_options=4, lapse=0.03, seed=5)
    state = run(AdaptiveState.start(AdaptiveSpec.for_threshold(0.25)), observer, observer.rng(), 25)
    again = AdaptiveState.replay(state.spec, state.history)
    assert np.array_equal(again.log_posterior, state.log_posterior)
    assert again.next_level() == state.next_level() and again.estimate() == state.estimate()
    resumed = AdaptiveState.from_json(state.to_json())
    assert np.array_equal(resumed.log_posterior, state.log_posterior) and resumed.history == state.history
    assert resumed.spec == state.spec and resumed.to_json() == state.to_json()
    assert json.loads(state.to_json())["history"][0] == list(state.history[0])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 50.0), st.booleans()), max_size=30))
def test_any_history_replays_to_the_same_finite_posterior(history):
    state = AdaptiveState.start(SMALL)
    for level, answer in history:
        state = state.update(level, answer)
    again = AdaptiveState.from_json(state.to_json())
    assert np.array_equal(again.log_posterior, state.log_posterior)
    post = state.posterior
    assert np.all(np.isfinite(post)) and post.sum() == pytest.approx(1.0) and post.min() >= 0
    est = state.estimate()
    lo, hi = SMALL.thresholds[0], SMALL.thresholds[-1]
    assert lo <= est.ci_low <= est.ci_high <= hi and lo <= est.threshold <= hi  # (a mean may leave the CrI)
    assert state.next_level() in SMALL.candidates


def test_weibull_procedure_finds_a_weibull_observer():
    spec = AdaptiveSpec(candidates=tuple(np.geomspace(0.5, 40, 60)), thresholds=tuple(np.geomspace(0.5, 40, 120)),
                        slopes=(1.0, 1.5, 2.0, 3.0, 4.5, 6.0), guess=0.25, family="weibull")
    observer = SimulatedObserver(6.0, 3.0, "mc", n_options=4, family="weibull", seed=9)
    est = run(AdaptiveState.start(spec), observer, observer.rng(), 40).estimate()
    assert abs(est.threshold - 6.0) < 1.0 and est.ci_low < 6.0 < est.ci_high


def test_stimulus_choice_is_deterministic_for_a_seed():
    observer = SimulatedObserver(10.0, 0.8, "yesno", seed=2)

    def levels(spec):
        return [x for x, _ in run(AdaptiveState.start(spec), observer, observer.rng(), 15).history]

    spec = AdaptiveSpec.for_threshold(0.5, top_k=3, seed=7)
    assert levels(spec) == levels(spec)
    assert levels(spec) != levels(spec.replace(seed=8))
    assert levels(spec.replace(top_k=1)) == levels(spec.replace(top_k=1, seed=8))  # no draw when top_k is 1


def test_stopping_rules():
    state = AdaptiveState.start(SMALL.replace(max_trials=3))
    for i in range(3):
        assert not state.done
        state = state.update(state.next_level(), i % 2)
    assert state.done and "max_trials (3)" in state.estimate().stop_reason
    wide = AdaptiveState.start(SMALL.replace(ci_width=100.0, min_trials=2))
    assert not wide.done and not wide.update(4.0, 1).done and wide.update(4.0, 1).update(2.0, 0).done
    assert "credible interval" in wide.update(4.0, 1).update(2.0, 0).estimate().stop_reason


def test_simulated_observer_is_found_within_40_trials():
    # bench_adaptive.py's figure in small: an open-answer observer (γ = 1/100), slope 2 per ΔE2000; bench_adaptive.py
    # runs the full grid of tasks, slopes and lapses.
    errors = []
    for seed in range(6):
        observer = SimulatedObserver(9.0, 2.0, "open", label_space_size=100, lapse=0.02, seed=seed)
        state = run(AdaptiveState.start(AdaptiveSpec.for_threshold(0.01)), observer, observer.rng(), 40)
        est = state.estimate()
        assert state.done and est.ci_low <= est.threshold <= est.ci_high
        errors.append(abs(est.threshold - 9.0))
    assert sum(e <= 1.0 for e in errors) >= 5


def test_pse_moves_with_scripted_answers():
    spec = AdaptiveSpec.for_pse(low=-10.0, high=10.0, alternatives=3)
    assert spec.outcomes == (-1, 0, 1) and spec.guess is None
    start = AdaptiveState.start(spec).estimate().threshold
    assert start == pytest.approx(0.0, abs=1e-9)
    says_b = AdaptiveState.replay(spec, [(0.0, 1)] * 8).estimate()
    says_a = AdaptiveState.replay(spec, [(0.0, -1)] * 8).estimate()
    says_same = AdaptiveState.replay(spec, [(0.0, 0)] * 8).estimate()
    # "B looks darker" at equal targets: B must be made lighter (x < 0) to look equal, so the PSE is negative.
    assert says_b.threshold < -1.0 and says_a.threshold > 1.0
    assert says_same.threshold == pytest.approx(0.0, abs=1e-9) and says_same.band > start_band(spec)
    observer = ComparisonObserver(pse=-3.0, slope=0.8, alternatives=3, band=1.0, seed=1)
    state = run(AdaptiveState.start(spec), observer, observer.rng(), 40)
    assert abs(state.estimate().threshold + 3.0) < 1.5


def start_band(spec):
    return AdaptiveState.start(spec).estimate().band


def test_plate_spec_grid():
    spec = AdaptiveSpec.for_threshold(0.25)
    assert spec.thresholds[0] == 0.5 and spec.thresholds[-1] == 40.0 and len(spec.thresholds) == 159
    assert np.allclose(np.diff(spec.thresholds), 0.25) and len(spec.candidates) == 80
    assert spec.candidates[0] == pytest.approx(0.5) and spec.candidates[-1] == pytest.approx(40.0)
    with pytest.raises(ValueError, match="need 0 < low < high and threshold_step > 0"):
        AdaptiveSpec.for_threshold(0.5, low=5.0, high=1.0)


def test_spec_bad_input():
    with pytest.raises(ValueError, match="candidates must be strictly increasing"):
        SMALL.replace(candidates=(2.0, 1.0))
    with pytest.raises(ValueError, match="task 'pse' has no guess rate"):
        AdaptiveSpec.for_pse(low=-1, high=1).replace(guess=0.5)
    with pytest.raises(ValueError, match="guess must lie in \\[0, 1\\) for task 'threshold'"):
        SMALL.replace(guess=None)
    with pytest.raises(ValueError, match="lapses must lie in \\[0, 0.5\\)"):
        SMALL.replace(guess=0.5, lapses=(0.0, 0.6))
    with pytest.raises(ValueError, match="family 'weibull' is not allowed for task 'pse'"):
        AdaptiveSpec.for_pse(low=-1, high=1, family="weibull")
    with pytest.raises(ValueError, match="top_k must be <= the 5 candidates"):
        SMALL.replace(top_k=6)
    with pytest.raises(ValueError, match="entropy 'full' is not known; allowed: threshold, joint"):
        SMALL.replace(entropy="full")
    with pytest.raises(ValueError, match="criterion 'miss' is not known; allowed: entropy, variance"):
        SMALL.replace(criterion="miss")
    with pytest.raises(ValueError, match="estimate 'mode' is not known; allowed: mean, median, map"):
        SMALL.replace(estimate="mode")
    with pytest.raises(ValueError, match="bands must be >= 0, and \\(0.0,\\) unless"):
        SMALL.replace(bands=(0.0, 1.0))
    with pytest.raises(ValueError, match="max_trials=0 is not valid; allowed: an integer >= 1"):
        SMALL.replace(max_trials=0)
    with pytest.raises(ValueError, match="unknown AdaptiveSpec fields \\['colour'\\]"):
        AdaptiveSpec.from_dict({**SMALL.to_dict(), "colour": 1})


def test_update_bad_input():
    state = AdaptiveState.start(SMALL)
    with pytest.raises(ValueError, match="outcome must be one of \\(0, 1\\) for task 'threshold', got 2"):
        state.update(4.0, 2)
    with pytest.raises(ValueError, match="level=nan is not valid; allowed: a number$"):
        state.update(float("nan"), 1)
    with pytest.raises(ValueError, match="level='4' is not valid; allowed: a number"):
        state.update("4", 1)
    pse = AdaptiveState.start(AdaptiveSpec.for_pse(low=-1, high=1))
    with pytest.raises(ValueError, match="outcome must be one of \\(-1, 1\\) for task 'pse', got 0"):
        pse.update(0.0, 0)
    with pytest.raises(ValueError, match="history items must be \\(level, outcome\\) pairs"):
        AdaptiveState.replay(SMALL, [(1.0, 1, 2)])
    with pytest.raises(ValueError, match="exactly 'spec' and 'history'"):
        AdaptiveState.from_json('{"history": []}')


def test_a_staircase_reports_status_and_goodness_of_fit():
    spec = AdaptiveSpec.for_threshold(0.5, low=1.0, high=8.0, n_candidates=15, max_trials=200)
    levels = np.asarray(spec.candidates)
    rng = np.random.Generator(np.random.PCG64(4))
    # an observer that answers to one colour, not to the level: wrong at the two levels nearest 4 ΔE2000
    dip = np.argsort(np.abs(levels - 4.0))[:2]
    history = []
    for level in np.repeat(levels, 12):
        right = 0.1 if level in levels[dip] else (0.5 if level < 3 else 0.98)
        history.append((float(level), int(rng.random() < right)))
    estimate = AdaptiveState.replay(spec, history).estimate(check=True)
    assert estimate.status == "non-monotonic" and estimate.monotone_p < 1e-3 and "falls" in estimate.message
    assert math.isfinite(estimate.threshold)  # the posterior has a mean; the status says it is no threshold
    # at chance everywhere
    chance = [(float(x), int(rng.random() < 0.5)) for x in np.repeat(levels, 6)]
    assert AdaptiveState.replay(spec, chance).estimate(check=True).status == "at-chance"
    # a monotone observer is "fit", with its goodness of fit; without check the status is "unchecked"
    obs = SimulatedObserver(threshold=4.0, slope=2.0, answer_kind="yesno", lapse=0.02, seed=1)
    state = run(AdaptiveState.start(spec.replace(max_trials=60)), obs, obs.rng(), 60)
    checked = state.estimate(check=True)
    assert checked.status == "fit" and checked.message == "" and 0 <= checked.deviance_p <= 1
    assert state.estimate().status == "unchecked" and math.isnan(state.estimate().monotone_p)


def test_states_share_tables_across_seeds_and_stopping_rules_but_not_models():
    base = AdaptiveSpec.for_threshold(0.1)
    one = AdaptiveState.start(base)
    other = AdaptiveState.start(base.replace(seed=7, max_trials=12, ci_width=2.0, criterion="variance"))
    assert one._table is other._table and not one._table.flags.writeable
    assert AdaptiveState.start(base.replace(guess=0.2))._table is not one._table  # another model
    joint = AdaptiveState.start(base.replace(entropy="joint"))
    assert joint._table is one._table and joint._table_log is not None and one._table_log is None
    replayed = AdaptiveState.replay(base, [(5.0, 1), (2.0, 0)])
    assert np.array_equal(replayed.log_posterior, one.update(5.0, 1).update(2.0, 0).log_posterior)
