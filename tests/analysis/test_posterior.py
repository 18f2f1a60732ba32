"""Grid-posterior credible intervals (plates.analysis.posterior)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from plates.analysis.posterior import credible_interval


def gaussian(mean: float, sd: float, slope_sd: float | None = None):
    """A log-likelihood normal in a (mean, sd), flat or normal (around 0) in log b and flat in the lapse."""
    def loglik(a, log_b, lam):
        out = -0.5 * ((a[:, None, None] - mean) / sd) ** 2 + 0.0 * log_b[None, :, None] + 0.0 * lam[None, None, :]
        if slope_sd is not None:
            out = out - 0.5 * (log_b[None, :, None] / slope_sd) ** 2
        return out
    return loglik


@pytest.mark.parametrize("mean, sd, a_range", [(10.0, 2.0, (-40.0, 60.0)), (37.3, 0.05, (0.0, 100.0)),
                                                (-3.0, 0.5, (-20.0, 20.0))])
def test_a_normal_posterior_gives_its_quantiles(mean, sd, a_range):
    """Far from the prior's edges the interval is the normal's central 95%, also when the posterior is 1/700
    of the range wide (the second pass resolves it)."""
    low, high = credible_interval(gaussian(mean, sd, slope_sd=1.0), a_range, (-3.0, 3.0), np.array([0.0, 0.02]),
                                  confidence=0.95)
    z = stats.norm.ppf(0.975)
    assert low == pytest.approx(mean - z * sd, abs=0.02 * sd)
    assert high == pytest.approx(mean + z * sd, abs=0.02 * sd)


def test_the_prior_range_truncates_the_posterior():
    """A normal likelihood centred on the prior's upper edge: the posterior is its lower half, so the interval
    runs from the 2.5% to the 97.5% quantile of a half-normal below the edge."""
    low, high = credible_interval(gaussian(5.0, 1.0), (-10.0, 5.0), (0.0, 1.0), np.array([0.0]), confidence=0.9)
    assert low == pytest.approx(5.0 - stats.halfnorm.ppf(0.95), abs=0.02)
    assert high == pytest.approx(5.0 - stats.halfnorm.ppf(0.05), abs=0.02)


def test_bad_input_names_what_is_wrong():
    with pytest.raises(ValueError, match="confidence"):
        credible_interval(gaussian(0, 1), (-1, 1), (0, 1), np.array([0.0]), confidence=1.0)
    with pytest.raises(ValueError, match="a_range and log_b_range"):
        credible_interval(gaussian(0, 1), (1, -1), (0, 1), np.array([0.0]), confidence=0.95)
    with pytest.raises(ValueError, match="loglik must return"):
        credible_interval(lambda a, b, lam: np.zeros(3), (-1, 1), (0, 1), np.array([0.0]), confidence=0.95)
