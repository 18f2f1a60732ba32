"""The monotonicity test's bootstrap as it was computed before the batched one (`plates.analysis.psychometric.
monotone_from_counts`): group by group, each draw's isotonic fit by the max-min formula (Barlow et al. 1972,
ch. 1). A reference only the tests use: the batched path must give the same p on realistic tables."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from plates.analysis.psychometric import MONOTONE_ALPHA, MONOTONE_DRAWS, iso_deviance


def iso_deviances_maxmin(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The isotonic deviance of each row of ``k`` (draws, levels) over the trials ``n`` (levels): the fit at
    level i is the largest over j <= i of the smallest over k >= i of the weighted mean of levels j..k."""
    cum = np.concatenate([np.zeros((k.shape[0], 1)), np.cumsum(k, axis=1)], axis=1)
    weight = np.concatenate([[0.0], np.cumsum(n)])
    size = n.size
    j, last = np.triu_indices(size)
    means = np.full((k.shape[0], size, size), np.inf)  # [draw, j, k]: the mean of levels j..k
    means[:, j, last] = (cum[:, last + 1] - cum[:, j]) / (weight[last + 1] - weight[j])
    suffix_min = np.minimum.accumulate(means[:, :, ::-1], axis=2)[:, :, ::-1]  # [draw, j, i]: min over k >= i
    below = np.tril_indices(size, -1)
    suffix_min[:, below[0], below[1]] = -np.inf  # j > i: not a start
    iso = np.clip(suffix_min.max(axis=1), 0.0, 1.0)
    rate = k / n
    ll_rate = np.sum(special.xlogy(k, rate) + special.xlogy(n - k, 1.0 - rate), axis=1)
    ll_iso = np.sum(special.xlogy(k, iso) + special.xlogy(n - k, 1.0 - iso), axis=1)
    return np.maximum(0.0, 2.0 * (ll_rate - ll_iso))


def monotone_one(k: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """(deviance, p) of one group (correct per level, trials per level), its bootstrap alone."""
    if k.size < 2:
        return 0.0, 1.0
    deviance, iso = iso_deviance(k, n)
    if deviance < 1e-9:
        return 0.0, 1.0
    pooled_out = k.size - 1 - int(np.count_nonzero(np.abs(np.diff(iso)) > 1e-12))
    p = float(stats.chi2.sf(deviance, pooled_out))
    if p < MONOTONE_ALPHA:
        return deviance, p
    rng = np.random.Generator(np.random.PCG64(0))
    draws = rng.binomial(n.astype(np.int64), iso, size=(MONOTONE_DRAWS, k.size)).astype(float)
    above = int(np.count_nonzero(iso_deviances_maxmin(draws, n) >= deviance - 1e-9))
    return deviance, (1 + above) / (1 + MONOTONE_DRAWS)


def monotone_one_by_one(groups) -> list[tuple[float, float]]:
    """`monotone_one` of each (correct, trials) group: the signature of `monotone_from_counts`."""
    return [monotone_one(np.asarray(k, float), np.asarray(n, float)) for k, n in groups]
