"""`plates.colour.gamut.bisect`: the tree-batched bisection gives the one-at-a-time loop's (lo, hi) exactly."""

import numpy as np
import pytest

from plates.colour.gamut import bisect


def _loop(keep, lo, hi, steps):
    for _ in range(steps):
        mid = (lo + hi) / 2
        if keep(np.array([mid]))[0]:
            lo = mid
        else:
            hi = mid
    return lo, hi


def test_the_batched_tree_walks_the_loops_path_bit_for_bit():
    rng = np.random.default_rng(0)
    for _ in range(500):
        lo, hi = sorted(rng.uniform(-5, 5, 2))
        cut = rng.uniform(lo, hi)
        steps, depth = int(rng.integers(0, 60)), int(rng.integers(1, 10))
        calls = []

        def keep(m, cut=cut, calls=calls):
            calls.append(len(m))
            return np.asarray(m) < cut

        assert bisect(keep, lo, hi, steps, depth) == _loop(lambda m, cut=cut: np.asarray(m) < cut, lo, hi, steps)
        assert len(calls) == -(-steps // depth)  # ceil(steps / depth) calls, not one per step


def test_bad_steps_or_depth_are_named():
    with pytest.raises(ValueError, match="steps >= 0 and depth >= 1"):
        bisect(lambda m: m < 0, 0.0, 1.0, steps=-1)
    with pytest.raises(ValueError, match="steps >= 0 and depth >= 1"):
        bisect(lambda m: m < 0, 0.0, 1.0, steps=3, depth=0)
