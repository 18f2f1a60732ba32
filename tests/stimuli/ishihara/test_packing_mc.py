"""The Monte Carlo packers (`plates.stimuli.ishihara.packing_mc`): each is exactly its paper's one-by-one process
(HueManity's largest-radius loop, IshiharaMC's layers), their rejection rasters block only rejected tries, and
every packing keeps its dots apart and inside the disc."""

from __future__ import annotations

import math

import numpy as np
import pytest

from plates.stimuli.ishihara.packing_mc import (
    CBE_LAYER_SHARES,
    largest_tries,
    layer_sizes,
    layer_tries,
    pack_largest,
    pack_layers,
)


# ---- the packers are the papers' one-by-one processes, exactly ------------------------------------------------
def _loop_largest(cx, cy, R, lo, hi, gap):
    """HueManity's generator loop, one try at a time (plain Python)."""
    out = []
    for x, y in zip(cx.tolist(), cy.tolist()):
        room = R - math.sqrt((x - R) * (x - R) + (y - R) * (y - R))
        if not room > lo:
            continue
        b = room
        for a, c, r in out:
            b = min(b, math.sqrt((a - x) * (a - x) + (c - y) * (c - y)) - r - gap)
        if b >= lo:
            out.append((x, y, min(math.floor(b), hi)))
    return np.array(out).reshape(-1, 3)


def _loop_layers(R, sizes, tries, gap, rng):
    """IshiharaMC's genIshi loop over Algorithm 1's layers, one try at a time (plain Python)."""
    out = []
    for layer, n in zip(sizes, tries):
        radii = np.asarray(layer, dtype=float)
        u = rng.random((2, n))
        k = rng.integers(0, radii.size, size=n)
        rho, theta, rad = R * u[0], 2 * np.pi * u[1], radii[k]
        xs, ys = R + rho * np.cos(theta), R + rho * np.sin(theta)
        for x, y, r, p in zip(xs.tolist(), ys.tolist(), rad.tolist(), rho.tolist()):
            if p + r < R and all(
                math.sqrt((a - x) * (a - x) + (c - y) * (c - y)) >= (q + r) + gap for a, c, q in out
            ):
                out.append((x, y, r))
    return np.array(out).reshape(-1, 3)


@pytest.mark.parametrize("seed, gap", [(0, 0.0), (1, 0.0), (2, 1.5)])
def test_largest_radius_packing_is_the_sequential_loop(seed, gap):
    cx, cy = largest_tries(np.random.default_rng(seed), 6000, lattice=300)
    got = pack_largest(cx, cy, 150.0, 4.0, 15.0, gap)
    want = _loop_largest(cx, cy, 150.0, 4.0, 15.0, gap)
    assert len(got) > 150
    assert np.array_equal(np.c_[got.x, got.y, got.r], want)


@pytest.mark.parametrize("seed", [0, 1])
def test_layered_packing_is_the_sequential_loop(seed):
    sizes, tries = layer_sizes(3.0, 14.0), layer_tries(8000)
    got = pack_layers(150.0, sizes, tries, 2.0, np.random.default_rng(seed))
    want = _loop_layers(150.0, sizes, tries, 2.0, np.random.default_rng(seed))
    assert len(got) > 80
    assert np.array_equal(np.c_[got.x, got.y, got.r], want)


def test_the_rasters_block_only_rejected_tries_and_see_every_stamp_at_once():
    """The packers' filters: a raster pixel is marked only where every try in it is rejected, and a stamp shows
    at once (the CBE raster is drawn by Pillow straight into its numpy array)."""
    from plates.stimuli.ishihara.packing_mc import PixelRaster, Raster

    rng = np.random.default_rng(5)
    cx, cy, reach = np.array([40.3, 71.9]), np.array([52.6, 30.1]), np.array([12.5, 7.25])
    for raster in (Raster(120.0, 1.0, margin=0.01), Raster(120.0, 0.5), PixelRaster(120.0, 20.0, False)):
        raster.stamp(cx, cy, reach)
        assert not raster.free(cx, cy).any()  # the centres are blocked now
        px, py = rng.uniform(0, 120, 20000), rng.uniform(0, 120, 20000)
        near = np.min(np.hypot(px[:, None] - cx, py[:, None] - cy) - reach, axis=1)
        assert (near[~raster.free(px, py)] < 0).all()  # every blocked point is within reach of a dot
    lattice = PixelRaster(120.0, 20.0, True)  # pixel-centred tries and dots: blocked exactly where rejected
    lattice.stamp(np.array([40.5]), np.array([50.5]), np.array([9.0]))
    gx, gy = (a.ravel() + 0.5 for a in np.mgrid[0:120, 0:120])
    assert np.array_equal(~lattice.free(gx, gy), np.hypot(gx - 40.5, gy - 50.5) < 9.0)


def test_ishiharamc_layer_sizes():
    """IshiharaMC: [.03,.06], [.02,.05], [.01,.04], [0,.03] of R with n = 3: radii 0.01-0.06 R, three per layer."""
    assert layer_sizes(4.5, 27.0) == (
        (18.0, 22.5, 27.0),
        (13.5, 18.0, 22.5),
        (9.0, 13.5, 18.0),
        (4.5, 9.0, 13.5),
    )
    assert layer_tries(180_000) == (10_000, 20_000, 50_000, 100_000)


def _apart_and_inside(x, y, r, disc_radius, gap):
    d = np.hypot(x[:, None] - x[None], y[:, None] - y[None]) - r[:, None] - r[None]
    np.fill_diagonal(d, np.inf)
    assert d.min() >= gap - 1e-9, "two dots closer than the gap"
    assert np.all(np.hypot(x - disc_radius, y - disc_radius) + r <= disc_radius + 1e-9), (
        "a dot leaves the disc"
    )


@pytest.mark.parametrize("gap", [0.0, 2.0])
def test_every_packing_keeps_its_dots_apart_and_inside_the_disc(gap):
    cx, cy = largest_tries(np.random.default_rng(9), 8000, lattice=400)
    largest = pack_largest(cx, cy, 200.0, 3.0, 12.0, gap)
    _apart_and_inside(largest.x, largest.y, largest.r, 200.0, gap)
    assert largest.r.min() >= 3.0 and largest.r.max() <= 12.0
    layers = pack_layers(200.0, layer_sizes(3.0, 12.0), layer_tries(6000), gap, np.random.default_rng(9))
    _apart_and_inside(layers.x, layers.y, layers.r, 200.0, gap)


def test_layer_tries_split_the_total_by_the_shares():
    tries = layer_tries(1000)
    assert len(tries) == len(CBE_LAYER_SHARES) and sum(tries) == 1000
    assert list(tries) == sorted(tries), "smaller dots get more tries"


def test_largest_tries_are_seeded_pixel_centres_of_the_lattice():
    cx, cy = largest_tries(np.random.default_rng(1), 500, lattice=50)
    again = largest_tries(np.random.default_rng(1), 500, lattice=50)
    assert np.array_equal(cx, again[0]) and np.array_equal(cy, again[1]) and cx.size == 500
    assert np.all((cx >= 0) & (cx < 50) & (cy >= 0) & (cy < 50))
