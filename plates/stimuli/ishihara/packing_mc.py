"""Monte Carlo circle packing the way the papers' own generators pack: sequential random tries, vectorised.

Two rules, each the exact sequential process of a published generator for a given list of tries:

* `pack_layers` -- ColorBlindnessEval App. E, Algorithm 1 ("Generate circles in multiple layers ... random
  (x, y) within unit circle, random radius r in [s_min, s_max]_i ... if (x, y, r) does not overlap existing
  circles then P <- P u {(x, y, r)}"), with the layers of IshiharaMC (github.com/icfaust/IshiharaMC, the code
  CBE §2.1 footnote 1 names and modified): each layer draws a fixed number of tries, each try a centre at a
  uniformly drawn distance ``rho = R * U`` and angle from the plate centre (so tries fall more densely near
  the middle, as in IshiharaMC's ``genCirc``) and one of a few discrete radii; a try is kept when the dot
  lies inside the disc (``rho + r < R``) and keeps at least ``gap`` from every dot kept before it.
* `pack_largest` -- HueManity §3 ("Over 30,000 iterations, the generator randomly places circles, computes
  their maximum non-colliding radius (4-15 pixels)"), as its released generator (adapted from
  github.com/hakrackete/Ishihara-color-plate-generator) does it on a 900 x 900 canvas: each try is a random
  *pixel*; it is kept when the largest radius that fits there, ``min(R - |p - m|, min_c |p - c| - r_c)``, is
  at least ``min_r`` (their ``outer_radius - distance > min_radius`` test first), and then gets that radius
  truncated to whole pixels and capped at ``max_r``. Their "skip the try if the pixel is already painted"
  shortcut rejects only tries whose largest radius is below 1 px, which this test rejects anyway, so it is
  not repeated.

Vectorised, and still exactly the one-by-one process: tries are handled in batches. A batch is (1) filtered
through a raster of points where no dot can go any more, so a marked point is certainly rejected (CBE: Pillow
discs shrunk by 1 + sqrt(2) raster pixels on a 900 x 900 raster, read through float32 centres with a margin for
their error; HueManity: exact numpy stamps on its pixel-centred lattice); (2) the rest is checked exactly
against the accepted dots through a lookup grid (3 x 3 cells of side ``2 * max_r + gap`` hold every dot that
can matter); (3) the survivors are resolved among themselves in try order: a try that no earlier try of the
batch reaches (pairs within reach from a k-d tree) keeps its outcome, the others are decided one by one over
the few earlier tries that reach them. tests/stimuli/ishihara/test_styles.py compares the result with a plain
Python loop over the same tries.

Coordinates are pixels with the origin at the image's top-left corner; the disc is centred at (R, R).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from plates.stimuli.ishihara.packing import Packing

__all__ = ["CBE_LAYER_SHARES", "largest_tries", "layer_sizes", "layer_tries", "pack_largest", "pack_layers"]

#: IshiharaMC's tries per layer, 1e4 : 2e4 : 5e4 : 1e5 (its ``createPlate`` defaults), as shares of the total.
CBE_LAYER_SHARES = (1 / 18, 2 / 18, 5 / 18, 10 / 18)
_FAR = 1e9  # sentinel dot position: far from everything
_SLACK = 1.0 + math.sqrt(2.0)  # raster px a stamp is shrunk by (Pillow's rounding + a pixel's half diagonal)


def layer_sizes(min_r: float, max_r: float, layers: int = 4, per_layer: int = 3) -> tuple[tuple[float, ...], ...]:
    """IshiharaMC's discrete radii per layer, px: ``layers + per_layer - 1`` sizes evenly spaced from ``min_r``
    to ``max_r``; layer 1 takes the largest ``per_layer``, each later layer the next smaller ones.

    IshiharaMC (``genCirc``): radius = ``l * (s0 + (s1 - s0) * ceil(n * U) / n)`` with n = 3 and layer ranges
    [.03, .06], [.02, .05], [.01, .04], [0, .03] of the plate radius l: radii 0.01-0.06 l in steps of 0.01 l,
    three per layer, i.e. ``layer_sizes(0.01 * R, 0.06 * R)``.

    Parameters
    ----------
    min_r, max_r : float
        The smallest and largest radius, px.
    layers : int, optional
        Layers (default 4).
    per_layer : int, optional
        Sizes per layer (default 3).

    Returns
    -------
    tuple of (tuple of float)
        Each layer's radii, px, largest layer first.

    References
    ----------
    ColorBlindnessEval §2.1 (IshiharaMC's generator, ``genCirc``).

    Examples
    --------
    >>> layer_sizes(1.0, 6.0)
    ((4.0, 5.0, 6.0), (3.0, 4.0, 5.0), (2.0, 3.0, 4.0), (1.0, 2.0, 3.0))
    """
    n = layers + per_layer - 1
    steps = [min_r + (max_r - min_r) * k / (n - 1) for k in range(n)] if n > 1 else [max_r]
    return tuple(tuple(steps[n - per_layer - i + j] for j in range(per_layer)) for i in range(layers))


def layer_tries(total: int, shares: tuple[float, ...] = CBE_LAYER_SHARES) -> tuple[int, ...]:
    """Tries per layer: ``total`` split by ``shares`` (rounded; the last layer takes the remainder).

    Parameters
    ----------
    total : int
        Tries in all.
    shares : tuple of float, optional
        Each layer's share (default `CBE_LAYER_SHARES`, IshiharaMC's 1e4, 2e4, 5e4, 1e5 tries).

    Returns
    -------
    tuple of int
        Tries per layer.

    Examples
    --------
    >>> layer_tries(1000)
    (56, 111, 278, 555)
    """
    out = [round(total * s) for s in shares[:-1]]
    return (*out, max(total - sum(out), 0))


def largest_tries(rng: np.random.Generator, tries: int, lattice: int = 900) -> tuple[np.ndarray, np.ndarray]:
    """HueManity's tries: ``tries`` uniformly random pixels of a ``lattice`` x ``lattice`` canvas, as pixel-centre
    coordinates in lattice px (x + 0.5, y + 0.5).

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws ``2 * tries`` integers (x first, then y).
    tries : int
        Pixels to draw.
    lattice : int, optional
        The canvas side, lattice px (HueManity's 900).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        x and y, float, lattice px.

    References
    ----------
    HueManity §3 and its released generator.
    """
    ix = rng.integers(0, lattice, size=tries)
    iy = rng.integers(0, lattice, size=tries)
    return ix + 0.5, iy + 0.5


class _Grid:
    """Lookup grid over the accepted dots: cells of side ``cell``; the 3 x 3 cells around a point hold every dot
    whose centre is within ``cell`` of it. Dots are appended as they are accepted (a cell's slots in acceptance
    order); the table widens when a cell fills."""

    def __init__(self, extent: float, cell: float):
        self.cell = cell
        self.n = math.ceil(extent / cell) + 3
        self.neigh = np.array([dy * self.n + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)], dtype=np.int64)
        self.table = np.full((self.n * self.n, 1), -1, dtype=np.int64)
        self.counts = np.zeros(self.n * self.n, dtype=np.int64)

    def cells(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (np.floor(x / self.cell).astype(np.int64) + 1) + (np.floor(y / self.cell).astype(np.int64) + 1) * self.n

    def add(self, x: np.ndarray, y: np.ndarray, first: int) -> None:
        """Append dots ``first, first + 1, ...`` at (x, y)."""
        ci = self.cells(x, y)
        order = np.argsort(ci, kind="stable")
        cs = ci[order]
        slot = self.counts[cs] + (np.arange(cs.size) - np.searchsorted(cs, cs, side="left"))
        width = int(slot.max()) + 1
        if width > self.table.shape[1]:
            wider = np.full((self.table.shape[0], width), -1, dtype=np.int64)
            wider[:, : self.table.shape[1]] = self.table
            self.table = wider
        self.table[cs, slot] = order + first
        self.counts += np.bincount(cs, minlength=self.counts.size)

    def near(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """(B, 9 K) indices of the accepted dots near each point; -1 where a slot is empty."""
        nb = self.cells(x, y)[:, None] + self.neigh[None, :]
        return self.table[nb].reshape(x.size, -1)


class Raster:
    """Points (raster px of side ``q``) where no try can be accepted any more, stamped conservatively.

    Pillow draws the stamps (ink 1) straight into the numpy array ``blocked`` (an image made over its buffer
    and marked writable), so tries read every stamp at once. Were Pillow ever to copy the buffer instead, the
    array would only block fewer tries: a raster filters tries for the exact check, it never decides one.
    Stamps shrink by a further ``margin`` px, so a point read up to ``margin`` px away from the true one (the
    float32 centres of `pack_layers`) still finds only pixels where the true one is rejected.

    Parameters
    ----------
    extent : float
        The side of the square area covered (the plate's bounding square), in the packing's length unit; the
        raster has ``ceil(extent / q)`` px a side.
    q : float
        The side of one raster px, in the same unit, positive.
    margin : float, optional
        The largest error of a point read, in the same unit (0: points are exact).
    """

    def __init__(self, extent: float, q: float, margin: float = 0.0):
        self.q = q
        self.slack = _SLACK + margin / q
        self.side = math.ceil(extent / q)
        self.blocked = np.zeros((self.side, self.side), dtype=np.uint8)
        image = Image.frombuffer("L", (self.side, self.side), self.blocked, "raw", "L", 0, 1)
        image.readonly = 0  # draw into the array's memory (frombuffer images are read-only by default)
        self.image = image
        self.draw = ImageDraw.Draw(image).draw
        self.ink = self.draw.draw_ink(1)

    def stamp(self, x: np.ndarray, y: np.ndarray, reach: np.ndarray) -> None:
        """Mark raster px lying wholly within ``reach`` of (x, y).

        Each stamp is a filled circle drawn by Pillow, its radius ``reach / q`` less the raster's slack (Pillow's
        rounding, a px's half diagonal and the margin), so every point of a marked px, read up to ``margin``
        away, is within ``reach`` of the centre; a stamp of no positive radius marks nothing.

        Parameters
        ----------
        x, y : numpy.ndarray
            The centres, in the packing's length unit (the same shape).
        reach : numpy.ndarray
            Per centre, the distance within which no try can be accepted (same unit and shape).
        """
        h = reach / self.q - self.slack
        cx, cy = x / self.q, y / self.q
        draw, ink = self.draw.draw_ellipse, self.ink
        for a, b, hh in zip(cx.tolist(), cy.tolist(), h.tolist()):
            if hh > 0:
                draw((a - hh, b - hh, a + hh, b + hh), ink, 1)

    def free(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Whether each point's raster px is unmarked: a try there may still be accepted (the exact check
        decides); False where some stamp already rules it out.

        Parameters
        ----------
        x, y : numpy.ndarray
            The points, in the packing's length unit, inside ``[0, extent)`` (a point past the far edge reads
            the last row or column).

        Returns
        -------
        numpy.ndarray
            bool, the shape of ``x``.
        """
        col = np.minimum((x / self.q).astype(np.int64), self.side - 1)
        row = np.minimum((y / self.q).astype(np.int64), self.side - 1)
        return self.blocked[row, col] == 0


class PixelRaster:
    """Lattice pixels (side 1) where no try of `pack_largest` can be accepted any more, kept in numpy.

    A dot stamps every pixel whose centre lies within ``reach - slack`` of its own pixel's centre: ``slack`` is
    0 when every try and dot sits on a pixel centre (HueManity's lattice: the stamp is then exactly the set of
    tries the dot rejects), else sqrt(2) (a point lies within sqrt(2) / 2 of its pixel's centre). Stamps are
    flat offsets cached per reach; the raster is padded so stamps never wrap.

    Parameters
    ----------
    extent : float
        The side of the square canvas, lattice px (1 px a side); the raster has ``ceil(extent)`` px a side.
    reach_max : float
        The largest ``reach`` any stamp will have, lattice px (it sizes the padding).
    centred : bool
        Every try and dot sits on a pixel centre (slack 0), else the slack is sqrt(2).
    """

    def __init__(self, extent: float, reach_max: float, centred: bool):
        self.side = math.ceil(extent)
        self.pad = math.ceil(reach_max) + 2
        self.w = self.side + 2 * self.pad
        self.blocked = np.zeros(self.w * self.w, dtype=bool)
        self.slack = 0.0 if centred else math.sqrt(2.0)

    def _flat(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        col = np.minimum(np.floor(x).astype(np.int64), self.side - 1) + self.pad
        row = np.minimum(np.floor(y).astype(np.int64), self.side - 1) + self.pad
        return row * self.w + col

    def stamp(self, x: np.ndarray, y: np.ndarray, reach: np.ndarray) -> None:
        """Mark the pixels every point of which is within ``reach`` of (x, y) (rejected tries, by 1e-6 px).

        Parameters
        ----------
        x, y : numpy.ndarray
            The dots' centres, lattice px, inside ``[0, extent)`` (the same shape).
        reach : numpy.ndarray
            Per dot, the distance within which no try can be accepted, lattice px, at most ``reach_max``.
        """
        flat = self._flat(x, y)
        keys, inv = np.unique(reach, return_inverse=True)
        for k, value in enumerate(keys.tolist()):
            offsets = _disc_offsets(value - self.slack - 1e-6, self.w)
            if offsets.size:
                self.blocked[(flat[inv == k, None] + offsets[None, :]).ravel()] = True

    def free(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Whether each point's pixel is unmarked: a try there may still be accepted (the exact check decides).

        Parameters
        ----------
        x, y : numpy.ndarray
            The points, lattice px, inside ``[0, extent)`` (a point past the far edge reads the last row or
            column).

        Returns
        -------
        numpy.ndarray
            bool, the shape of ``x``.
        """
        return ~self.blocked[self._flat(x, y)]


@lru_cache(maxsize=256)
def _disc_offsets(radius: float, stride: int) -> np.ndarray:
    """Flat offsets (dy * stride + dx) of the pixels whose centre lies strictly within ``radius`` of a pixel
    centre (read-only; empty for radius <= 0)."""
    k = max(math.ceil(radius), 0)
    dy, dx = np.mgrid[-k : k + 1, -k : k + 1]
    inside = np.sqrt(dx * dx + dy * dy) < radius
    out = (dy[inside] * stride + dx[inside]).astype(np.int64)
    out.setflags(write=False)
    return out


def _dist(ax, ay, bx, by):
    dx = ax - bx
    dy = ay - by
    return np.sqrt(dx * dx + dy * dy)


def _next_batch(size: int, tried: int, kept: int) -> int:
    """Next batch size: about 128 survivors per batch (few rounds, small pairwise matrices)."""
    rate = kept / max(tried, 1)
    return int(min(max(128 / max(rate, 1e-4), 64), 16384))


def pack_largest(cx: np.ndarray, cy: np.ndarray, disc_radius: float, min_r: float, max_r: float, gap: float = 0.0,
                 *, scale: float = 1.0) -> Packing:
    """HueManity's rule over the tries (``cx``, ``cy``) in lattice px (see `largest_tries`), in order.

    A try at p is kept when ``R - |p - m| > min_r`` and ``b = min(R - |p - m|, min_c |p - c| - r_c - gap) >=
    min_r``; its radius is ``min(floor(b), max_r)`` (whole lattice px). ``gap`` is 0 in HueManity. The result
    is scaled by ``scale`` (px per lattice px) into image px. Returns a `Packing` in acceptance order.

    Parameters
    ----------
    cx, cy : numpy.ndarray
        The tries, lattice px, in order.
    disc_radius : float
        R, lattice px (the disc's centre m is at (R, R)).
    min_r, max_r : float
        The radius range, lattice px.
    gap : float, optional
        The least gap between dots, lattice px (0 in HueManity).
    scale : float, optional
        Image px per lattice px.

    Returns
    -------
    Packing
        The dots in image px, in acceptance order.

    Raises
    ------
    ValueError
        Unless 0 < ``min_r`` <= ``max_r`` and ``gap`` >= 0.

    References
    ----------
    HueManity §3 and its released generator.
    """
    if not (0 < min_r <= max_r):
        raise ValueError(f"radii min_r={min_r!r}, max_r={max_r!r}: need 0 < min_r <= max_r")
    if gap < 0:
        raise ValueError(f"gap={gap!r}: need gap >= 0")
    R = float(disc_radius)
    room = R - _dist(cx, cy, R, R)
    keep = room > min_r
    cx, cy, room = cx[keep], cy[keep], room[keep]
    n_t = cx.size
    X = np.full(n_t + 1, _FAR)  # index -1: the sentinel dot
    Y = np.full(n_t + 1, _FAR)
    Rr = np.zeros(n_t + 1)
    n = 0
    grid = _Grid(2 * R, 2 * max_r + gap)
    centred = bool(np.all(cx % 1 == 0.5) and np.all(cy % 1 == 0.5))
    raster = PixelRaster(2 * R, max_r + gap + min_r, centred)
    pos, bs = 0, 128
    while pos < n_t:
        stop = min(pos + bs, n_t)
        qx, qy, qb = cx[pos:stop], cy[pos:stop], room[pos:stop]
        f = raster.free(qx, qy)
        qx, qy, qb = qx[f], qy[f], qb[f]
        if n and qx.size:
            idx = grid.near(qx, qy)
            edge = _dist(X[idx], Y[idx], qx[:, None], qy[:, None]) - Rr[idx] - gap
            qb = np.minimum(qb, edge.min(axis=1))
        s = qb >= min_r
        qx, qy, qb = qx[s], qy[s], qb[s]
        acc, r = _resolve_largest(qx, qy, qb, min_r, max_r, gap)
        m = int(acc.sum())
        if m:
            X[n : n + m], Y[n : n + m], Rr[n : n + m] = qx[acc], qy[acc], r[acc]
            raster.stamp(qx[acc], qy[acc], r[acc] + gap + min_r)
            n += m
            grid.add(qx[acc], qy[acc], n - m)
        bs = _next_batch(bs, stop - pos, qx.size)
        pos = stop
    return Packing(x=X[:n] * scale, y=Y[:n] * scale, r=Rr[:n] * scale, centre=R * scale, radius=R * scale)


def _pairs(x: np.ndarray, y: np.ndarray, reach: float, interacts) -> list[tuple[int, list[int], list[float]]]:
    """The tries of a batch that an earlier try of it reaches, in try order: (try i, the earlier tries j
    ascending, the distances D_ij). Candidates are the pairs closer than ``reach`` (a k-d tree, with a margin
    for its own rounding); ``interacts(i, j, D)`` (arrays) keeps those that matter. D_ij is computed as the
    one-by-one loop does (`_dist`)."""
    from scipy.spatial import cKDTree  # lazy: ~0.3 s of CPU that importing plates (the dashboard) never needs

    found = cKDTree(np.c_[x, y]).query_pairs(reach + 1e-6 * (1.0 + reach), output_type="ndarray")
    if found.size == 0:
        return []
    j, i = found[:, 0].astype(np.int64), found[:, 1].astype(np.int64)  # j < i: j is the earlier try
    d = _dist(x[i], y[i], x[j], y[j])
    keep = interacts(i, j, d)
    i, j, d = i[keep], j[keep], d[keep]
    if i.size == 0:
        return []
    order = np.lexsort((j, i))
    i, j, d = i[order], j[order], d[order]
    starts = [0, *(np.flatnonzero(i[1:] != i[:-1]) + 1).tolist()]  # (np.r_ costs more than the rest)
    ends = [*starts[1:], i.size]
    il, jl, dl = i.tolist(), j.tolist(), d.tolist()
    return [(il[s], jl[s:e], dl[s:e]) for s, e in zip(starts, ends)]


def _resolve_largest(x, y, b, min_r, max_r, gap):
    """Decide survivors of one batch in try order (HueManity's rule): returns (kept mask, radii).

    A try that no earlier try of the batch can shrink keeps its own outcome (``b >= min_r``, radius
    ``min(floor(b), max_r)``); the others are decided one by one in try order over the few earlier tries that
    can reach them (plain floats: the same IEEE arithmetic as the array expressions)."""
    m = x.size
    # an outcome only depends on b up to max_r + 1 (kept, radius max_r beyond): capping it keeps far tries apart
    b = np.minimum(b, max_r + 1.0)
    ub = np.minimum(np.floor(b), max_r)  # each try's radius if no earlier try of the batch is kept
    if m == 0:
        return np.zeros(0, dtype=bool), ub
    acc = b >= min_r
    # earlier try j could shrink try i: D_ij - ub_j - gap < b_i (b <= max_r + 1, ub <= max_r)
    pairs = _pairs(x, y, 2 * max_r + gap + 1.0, lambda i, j, d: d - ub[j] - gap < b[i])
    if not pairs:
        return acc, ub
    acc_l, r_l, b_l = acc.tolist(), ub.tolist(), b.tolist()
    for i, cols, ds in pairs:
        bb = b_l[i]
        for j, d in zip(cols, ds):
            if acc_l[j]:
                v = d - r_l[j] - gap
                if v < bb:
                    bb = v
        acc_l[i] = bb >= min_r
        r_l[i] = min(float(math.floor(bb)), max_r)
    return np.array(acc_l, dtype=bool), np.array(r_l, dtype=np.float64)


def pack_layers(disc_radius: float, sizes: tuple[tuple[float, ...], ...], tries: tuple[int, ...], gap: float,
                rng: np.random.Generator) -> Packing:
    """ColorBlindnessEval's Algorithm 1 with IshiharaMC's layers, in px: layer i makes ``tries[i]`` tries with
    radii drawn uniformly from ``sizes[i]``; a try is kept when ``rho + r < R`` and it is at least ``gap``
    from every dot kept before it. Returns a `Packing` in acceptance order.

    Random numbers, per layer: rho = R U, angle = 2 pi U, size index uniform (one ``rng.random((2, n))`` and
    one ``rng.integers``), so a given ``rng`` state gives one packing.

    Parameters
    ----------
    disc_radius : float
        R, px.
    sizes : tuple of (tuple of float)
        Each layer's radii, px (`layer_sizes`).
    tries : tuple of int
        Each layer's tries (`layer_tries`).
    gap : float
        The least gap between dots, px (>= 0).
    rng : numpy.random.Generator
        Every random number.

    Returns
    -------
    Packing
        The dots, in acceptance order.

    Raises
    ------
    ValueError
        When ``sizes`` and ``tries`` are empty or differ in length, a radius is not > 0, or ``gap`` < 0.

    References
    ----------
    ColorBlindnessEval App. E, Algorithm 1; IshiharaMC's layers (ColorBlindnessEval §2.1).
    """
    if len(sizes) != len(tries) or not sizes:
        raise ValueError(f"sizes ({len(sizes)} layers) and tries ({len(tries)}) must be non-empty and of one length")
    flat = [s for layer in sizes for s in layer]
    if min(flat) <= 0:
        raise ValueError(f"layer radii {sizes!r}: need every radius > 0")
    if gap < 0:
        raise ValueError(f"gap={gap!r}: need gap >= 0")
    R = float(disc_radius)
    max_r = max(flat)
    # kept dots are disjoint discs of radius >= min(flat) inside the disc, so at most (R / min r)^2 of them: the
    # arrays (and the sentinel after them) need no slot per try (180,000 tries: 4 MB written per plate for ~650)
    cap = min(int(sum(tries)), math.floor((R / min(flat)) ** 2) + 1) + 1
    X, Y, Rr = np.full(cap, _FAR), np.full(cap, _FAR), np.zeros(cap)
    n = 0
    grid = _Grid(2 * R, 2 * max_r + gap)
    q = max(2 * R / 900, 1e-9)  # raster of 900 x 900 px at any plate size
    margin = 1e-5 * R  # bound on the float32 centres' error (< 1e-6 R), with room to spare
    for layer, n_try in zip(sizes, tries):
        layer_r = np.asarray(layer, dtype=np.float64)
        u = rng.random((2, int(n_try)))
        k = rng.integers(0, layer_r.size, size=int(n_try))
        rho, theta, rad = R * u[0], 2 * np.pi * u[1], layer_r[k]
        inside = rho + rad < R
        # the raster reads float32 centres (vectorised cos and sin); the exact float64 centres, as the one-by-one
        # loop computes them, are computed only for the tries inside the disc that it lets through (elementwise:
        # the same values)
        t32, r32 = theta.astype(np.float32), rho.astype(np.float32)
        ax, ay = np.float32(R) + r32 * np.cos(t32), np.float32(R) + r32 * np.sin(t32)
        raster = Raster(2 * R, q, margin=margin)
        s_min = float(layer_r.min())
        if n:
            raster.stamp(X[:n], Y[:n], Rr[:n] + gap + s_min)
        pos, bs, n_t = 0, 128, rad.size
        while pos < n_t:
            stop = min(pos + bs, n_t)
            sel = np.flatnonzero(raster.free(ax[pos:stop], ay[pos:stop]) & inside[pos:stop]) + pos
            qr, qrho, qth = rad[sel], rho[sel], theta[sel]
            qx, qy = R + qrho * np.cos(qth), R + qrho * np.sin(qth)
            if n and qx.size:
                idx = grid.near(qx, qy)
                clash = _dist(X[idx], Y[idx], qx[:, None], qy[:, None]) < (Rr[idx] + qr[:, None]) + gap
                ok = ~clash.any(axis=1)
                qx, qy, qr = qx[ok], qy[ok], qr[ok]
            acc = _resolve_fixed(qx, qy, qr, gap)
            m = int(acc.sum())
            if m:
                X[n : n + m], Y[n : n + m], Rr[n : n + m] = qx[acc], qy[acc], qr[acc]
                raster.stamp(qx[acc], qy[acc], qr[acc] + gap + s_min)
                grid.add(qx[acc], qy[acc], n)
                n += m
            bs = _next_batch(bs, stop - pos, qx.size)
            pos = stop
    return Packing(x=X[:n].copy(), y=Y[:n].copy(), r=Rr[:n].copy(), centre=R, radius=R)


def _resolve_fixed(x, y, r, gap):
    """Decide survivors of one batch in try order (fixed radii): kept unless it clashes with a kept earlier try
    (decided one by one in try order over the tries that have an earlier clash)."""
    m = x.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    pairs = _pairs(x, y, 2 * float(r.max()) + gap, lambda i, j, d: d < (r[j] + r[i]) + gap)
    if not pairs:
        return np.ones(m, dtype=bool)
    acc = [True] * m
    for i, cols, _ in pairs:
        acc[i] = not any(acc[j] for j in cols)
    return np.array(acc, dtype=bool)
