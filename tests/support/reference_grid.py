"""The psychometric fit's grid start as it was computed before it read the posterior's grid log-likelihood
(`plates.analysis.psychometric_fits._grid_starts` over `_grid_loglik`): its own ψ grid, summed elementwise over
the levels. A reference only the tests use: the shared grid must start the optimiser where this one did, or
(where grid points tie) end at the same fit."""

from __future__ import annotations

import numpy as np

from plates.analysis.psychometric import EPS, LAPSE_MAX, cdf


def grid_starts_elementwise(u: np.ndarray, k: np.ndarray, n: np.ndarray, guess: float, lapse: float | None,
                            family: str, bounds: list[tuple[float, float]]) -> list[np.ndarray]:
    """The two best points (different thresholds) of the 47 x 25 x 3 grid over the box (the old code)."""
    if u.size > 64:
        edges = np.linspace(0, u.size, 65).astype(int)
        u = np.add.reduceat(u * n, edges[:-1]) / np.add.reduceat(n, edges[:-1])
        k, n = np.add.reduceat(k, edges[:-1]), np.add.reduceat(n, edges[:-1])
    a = np.linspace(*bounds[0], 49)[1:-1]
    log_b = np.linspace(*bounds[1], 25)
    lam = np.array([0.0, 0.03, LAPSE_MAX]) if lapse is None else np.array([lapse])
    z = np.exp(log_b)[None, :, None, None] * (u[None, None, None, :] - a[:, None, None, None])
    psi = guess + (1.0 - guess - lam)[None, None, :, None] * cdf(family, z)
    psi = np.clip(psi, EPS, 1.0 - EPS)
    ll = np.sum(k * np.log(psi) + (n - k) * np.log1p(-psi), axis=-1)
    order = np.argsort(-ll, axis=None)
    starts, used = [], []
    for flat in order:
        i, j, m = np.unravel_index(flat, ll.shape)
        if all(abs(i - q) > 4 for q in used):
            used.append(i)
            starts.append(np.array([a[i], log_b[j], *([lam[m]] if lapse is None else [])]))
        if len(starts) == 2:
            break
    return starts
