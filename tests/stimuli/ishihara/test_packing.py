"""plates.stimuli.ishihara.packing: no overlaps, inside the disc, radii in range, deterministic."""

import numpy as np
import pytest

from plates.stimuli.ishihara.packing import pack_circles


def _rng(seed):
    return np.random.Generator(np.random.PCG64(seed))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_overlap_inside_disc(seed):
    p = pack_circles(450, 4, 15, 1.0, _rng(seed))
    x, y, r = p.x, p.y, p.r
    assert len(p) > 1000
    assert r.min() >= 4 - 1e-9 and r.max() <= 15 + 1e-9
    assert (np.hypot(x - 450, y - 450) + r).max() <= 450 + 1e-9
    d = np.hypot(x[:, None] - x[None], y[:, None] - y[None])
    np.fill_diagonal(d, np.inf)
    assert (d - r[:, None] - r[None]).min() >= 1.0 - 1e-9


def test_deterministic_and_seed_dependent():
    a, b, c = (pack_circles(200, 3, 8, 0.5, _rng(s)) for s in (5, 5, 6))
    assert np.array_equal(a.x, b.x) and np.array_equal(a.r, b.r)
    assert not (len(a) == len(c) and np.array_equal(a.x, c.x))


def test_target_coverage_stops_early():
    lo = pack_circles(450, 4, 15, 1.0, _rng(0), target_coverage=0.3)
    hi = pack_circles(450, 4, 15, 1.0, _rng(0), target_coverage=0.7)
    assert 0.3 <= lo.coverage < hi.coverage


@pytest.mark.parametrize("args", [(450, 5, 4, 1), (450, 0, 4, 1), (450, 4, 15, -1), (20, 4, 15, 1)])
def test_bad_parameters(args):
    with pytest.raises(ValueError, match="need"):
        pack_circles(*args, _rng(0))
