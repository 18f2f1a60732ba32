"""Circle packing for Ishihara-style plates: non-overlapping dots of varied sizes filling a disc.

Implements the packing stage of ColorBlindnessEval App. E (Algorithm 1: random circles inside the unit disc,
rejected when they overlap) and of HueManity §3 (random centres, each given its "maximum non-colliding radius"
within 4-15 px at 900 px), vectorised so a 900 px plate packs in a few milliseconds.

Method (vectorised dart throwing in rounds; about ten rounds fill a 900 px disc):

* a round lays a randomly offset grid of candidate cells of side ``2 * max_r + gap`` over the disc and throws
  one candidate per cell: the first of ``tries`` uniform points that a coarse "free-centre" raster (pixels of
  side ``min_r`` where a ``min_r`` dot may still fit; each accepted dot stamps out its surroundings) marks free,
  or, once few free pixels remain, one free pixel picked at random per cell;
* each candidate takes one step towards the centre of its hole (away from its nearest dot until it is as far
  from it as from the second nearest), so it gets the largest dot the hole can take;
* its radius is then HueManity's maximum non-colliding radius,
  ``min(max_r, distance to the nearest existing dot's edge - gap, distance to the disc edge)``, found through a
  lookup grid (cells of side ``2 * max_r + gap``: the 3 x 3 neighbourhood holds every dot it can touch);
  a candidate whose radius falls below ``min_r`` is dropped;
* candidates of one round can only clash with those of the 8 neighbouring cells (the radius cap
  ``max_r - step`` keeps pushed candidates of cells further apart clear of each other): clashes are resolved
  greedily, larger first (ties: the earlier cell in row-major order), in three passes;
* packing stops once ``coverage`` (dot area over disc area) reaches ``target_coverage``, when no free pixel is
  left, when a round adds almost nothing (<= 1.2% more dots), or after ``max_rounds``.

Coordinates are pixels with the origin at the image's top-left corner; the disc is centred at (R, R).
The result depends only on the inputs and the numpy ``Generator`` passed in (PCG64 in `plates.stimuli.ishihara.plate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["Packing", "pack_circles"]


@dataclass(frozen=True)
class Packing:
    """Packed dots in a disc.

    Attributes
    ----------
    x, y : numpy.ndarray of float64, shape (n,)
        The dots' centres, px.
    r : numpy.ndarray of float64, shape (n,)
        Their radii, px.
    centre : float
        The disc's centre on both axes, px.
    radius : float
        The disc's radius, px.
    """

    x: np.ndarray
    y: np.ndarray
    r: np.ndarray
    centre: float
    radius: float

    @property
    def coverage(self) -> float:
        """Dot area over disc area (0-1): sum(pi r^2) / (pi R^2)."""
        return float(np.sum(self.r * self.r) / (self.radius * self.radius))

    def __len__(self) -> int:
        return int(self.r.size)


def pack_circles(
    disc_radius: float,
    min_r: float,
    max_r: float,
    gap: float,
    rng: np.random.Generator,
    *,
    target_coverage: float = 0.72,
    max_rounds: int = 40,
    tries: int = 4,
) -> Packing:
    """Pack non-overlapping circles into a disc of radius ``disc_radius`` px centred at (R, R).

    Parameters
    ----------
    disc_radius : float
        The disc's radius R, px (the image is 2R px wide).
    min_r, max_r : float
        The dot radius range, px (HueManity §3: 4-15 px at 900 px).
    gap : float
        The least empty space between two dots' edges, px (>= 0).
    rng : numpy.random.Generator
        Every random number.
    target_coverage : float, optional
        Stop once dot area / disc area reaches this (0-1).
    max_rounds : int, optional
        The most rounds.
    tries : int, optional
        Uniform points tried per candidate cell to find a free spot.

    Returns
    -------
    Packing
        The dots, in acceptance order.

    Raises
    ------
    ValueError
        Unless 0 < ``min_r`` <= ``max_r`` and ``gap`` >= 0.

    References
    ----------
    HueManity §3 (dot radii); the packing itself is this project's.
    """
    if not (0 < min_r <= max_r):
        raise ValueError(f"radii min_r={min_r!r}, max_r={max_r!r}: need 0 < min_r <= max_r")
    if gap < 0:
        raise ValueError(f"gap={gap!r}: need gap >= 0")
    R = float(disc_radius)
    if max_r * 2 > R:
        raise ValueError(f"max_r={max_r!r} is too large for a disc of radius {R!r}: need max_r <= R / 2")
    # lookup grid (one spare cell each side, so neighbour lookups never wrap)
    cell = 2.0 * max_r + gap
    n_side = int(np.ceil(2 * R / cell)) + 2
    k_cap = int(np.ceil((cell / (2 * min_r + gap) + 1) ** 2 * 1.16)) + 2  # densest count per cell
    # each cell's dots' x, y, r, (cell, slot): slots past the cell's count hold a far-away sentinel dot of radius
    # 0; the tables are as wide as the fullest cell (they grow), so gathers of whole rows need no slicing
    tx, ty, tr = _sentinels(n_side * n_side, 1)
    counts = np.zeros(n_side * n_side, dtype=np.int32)
    cap_n = int(4 * R * R / (min_r * min_r)) + 16
    # float32 halves the memory traffic of the neighbour gathers; radii keep a 1e-3 px safety margin
    xs = np.full(cap_n + 1, 1e9, dtype=np.float32)  # index -1 -> a far-away sentinel dot
    ys = np.full(cap_n + 1, 1e9, dtype=np.float32)
    rs = np.zeros(cap_n + 1, dtype=np.float32)
    n = 0
    neigh = np.array([dy * n_side + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)], dtype=np.int64)
    # free-centre raster, q px per pixel: True where a min_r dot's centre may still go
    q = max(min_r, 1.0)
    m_side = int(np.ceil(2 * R / q))
    # stored inside a padded buffer: stamps that reach past the raster's ends land in the padding (the raster's
    # first and last pixels, where clipped stamps used to land, are corners outside the disc: never free)
    pad = (int(np.rint((max_r + gap + min_r) / q)) + 2) * (m_side + 1)
    free_buf = np.zeros(m_side * m_side + 2 * pad, dtype=bool)
    free = free_buf[pad : pad + m_side * m_side]
    free[...] = _initial_free(m_side, q, R, min_r)
    target_area = target_coverage * R * R  # in units of pi
    covered = 0.0
    n_free = int(free.sum())
    fid = None  # free pixel list, kept from the first few-holes round on
    grid = _Grid(int(np.ceil(2 * R / cell)) + 1)
    for _ in range(max_rounds):
        if covered >= target_area or n_free == 0:
            break
        s = cell  # candidate-cell side: only candidates in neighbouring cells can overlap
        nc = int(np.ceil(2 * R / s)) + 1
        off = rng.random(2) * s  # random grid offset per round: no lattice artefacts
        if n_free > 6 * nc * nc:  # plenty of room: a few uniform tries per cell, first free one wins
            u = rng.random((2, nc, nc, tries), dtype=np.float32) * np.float32(s)
            base = (np.arange(nc) * s).astype(np.float32)
            px = u[0] + (base[None, :, None] - np.float32(off[0]))  # (row, col, try)
            py = u[1] + (base[:, None, None] - np.float32(off[1]))
            col = np.minimum(np.maximum((px * np.float32(1 / q)).astype(np.int32), 0), m_side - 1)  # np.clip is slow
            row = np.minimum(np.maximum((py * np.float32(1 / q)).astype(np.int32), 0), m_side - 1)
            ok = free[row * m_side + col].reshape(nc * nc, tries)
            pick = np.arange(nc * nc) * tries + ok.argmax(axis=1)  # flat index of each cell's first free try
            has = ok.reshape(-1)[pick].reshape(nc, nc)
            px = px.reshape(-1)[pick].reshape(nc, nc)
            py = py.reshape(-1)[pick].reshape(nc, nc)
        else:  # few holes left: one random free raster pixel per cell
            # the free pixels, ascending: pixels only ever stop being free, so last round's list, filtered, is it
            fid = np.flatnonzero(free) if fid is None else fid[free[fid]]
            u = rng.random((2, fid.size), dtype=np.float32)
            fy_i, fx_i = np.divmod(fid, m_side)
            fx = (fx_i + u[0]) * np.float32(q)
            fy = (fy_i + u[1]) * np.float32(q)
            gc = np.minimum(((fy + np.float32(off[1])) // np.float32(s)).astype(np.int64), nc - 1) * nc + np.minimum(
                ((fx + np.float32(off[0])) // np.float32(s)).astype(np.int64), nc - 1
            )
            # per cell, the free pixel of lowest random rank
            firsts = _first_per_cell(gc, rng.integers(0, 2**31, size=fid.size), nc * nc)
            has = np.zeros(nc * nc, dtype=bool)
            px = np.zeros(nc * nc, dtype=np.float32)
            py = np.zeros(nc * nc, dtype=np.float32)
            has[gc[firsts]] = True
            px[gc[firsts]] = fx[firsts]
            py[gc[firsts]] = fy[firsts]
            has, px, py = has.reshape(nc, nc), px.reshape(nc, nc), py.reshape(nc, nc)
        cand = np.flatnonzero(has)
        qx, qy = px.ravel()[cand].astype(np.float32), py.ravel()[cand].astype(np.float32)
        inside = np.hypot(qx - R, qy - R) <= R - min_r  # clipped raster reads may admit points off the disc
        cand, qx, qy = cand[inside], qx[inside], qy[inside]
        if cand.size == 0:
            break
        ci = (np.floor(qx / cell).astype(np.int64) + 1) + (np.floor(qy / cell).astype(np.int64) + 1) * n_side
        nb = ci[:, None] + neigh[None, :]  # (B, 9): the 3 x 3 cells around each candidate
        B = cand.size
        gx = np.take(tx, nb, axis=0).reshape(B, -1)  # (B, 9 kmax), (cell, slot) order
        gy = np.take(ty, nb, axis=0).reshape(B, -1)
        gr = np.take(tr, nb, axis=0).reshape(B, -1)
        dx = gx - qx[:, None]
        dy = gy - qy[:, None]
        dist = np.sqrt(dx * dx + dy * dy)
        edge = dist - gr
        # step away from the nearest dot until as far from it as from the second nearest: the centre of
        # the hole, where the largest dot fits (one step of a max-min-distance ascent)
        rows_ = np.arange(qx.size)
        j1 = edge.argmin(axis=1)
        d1 = edge[rows_, j1]
        edge[rows_, j1] = np.inf
        d2 = edge.min(axis=1)
        step = np.minimum(np.maximum((np.minimum(d2, max_r + gap) - d1) / 2, 0), (max_r + gap) / 2)
        n1 = np.maximum(dist[rows_, j1], 1e-9)
        qx = qx - dx[rows_, j1] / n1 * step
        qy = qy - dy[rows_, j1] / n1 * step
        # the 3 x 3 block around the old cell holds every dot within max_r + gap - step of the edge of a dot of
        # radius max_r - step at the new point: capping the radius there keeps the old neighbour list exact
        cap = max_r - step
        room_edge = R - np.hypot(qx - R, qy - R)
        dx = gx - qx[:, None]
        dy = gy - qy[:, None]
        edge = np.sqrt(dx * dx + dy * dy) - gr
        pxf, pyf = px.ravel().astype(np.float32), py.ravel().astype(np.float32)
        pxf[cand], pyf[cand] = qx, qy
        px, py = pxf.reshape(nc, nc), pyf.reshape(nc, nc)
        nearest = edge.min(axis=1)
        # HueManity's maximum non-colliding radius (1e-3 px margin for float32 rounding)
        rq = np.minimum(np.minimum(cap, nearest - (gap + 1e-3)), room_edge - 1e-3).astype(np.float64)
        # back on the (row, col) candidate grid: resolve clashes between neighbouring cells, larger wins
        rg = np.full(nc * nc, -1.0)
        rg[cand] = np.where(rq >= min_r - 1e-5, np.maximum(rq, min_r), -1.0)  # float32 slack; margins absorb it
        rg = rg.reshape(nc, nc)
        keep = _grid_winners(grid, px, py, rg, gap)
        acc = np.flatnonzero(keep.ravel())
        m = acc.size
        if m <= 0.012 * n:  # diminishing returns: the last free pixels of the raster hold little room
            break
        px, py, r = px.ravel()[acc], py.ravel()[acc], rg.ravel()[acc]
        ci = (np.floor(px / cell).astype(np.int64) + 1) + (np.floor(py / cell).astype(np.int64) + 1) * n_side
        xs[n : n + m], ys[n : n + m], rs[n : n + m] = px, py, r
        order = np.argsort(ci, kind="stable")
        cs = ci[order]
        slot = counts[cs] + (np.arange(m) - np.searchsorted(cs, cs, side="left"))
        if slot.max() >= k_cap:
            raise RuntimeError("packing grid cell overflow (internal error: cell capacity too small)")
        if slot.max() >= tx.shape[1]:
            more = _sentinels(tx.shape[0], int(slot.max()) + 1 - tx.shape[1])
            tx, ty, tr = (np.concatenate([t, e], axis=1) for t, e in zip((tx, ty, tr), more))
        tx[cs, slot], ty[cs, slot], tr[cs, slot] = px[order], py[order], r[order]
        counts += np.bincount(cs, minlength=counts.size).astype(np.int32)
        covered += float(np.sum(r * r))
        n += m
        n_free = _stamp_out(free_buf, pad, free, m_side, q, px, py, r + gap + min_r)
    # float32 storage may round a radius a hair past [min_r, max_r]; the 1e-3 px margins absorb the clamp
    r_out = np.clip(rs[:n].astype(np.float64), min_r, max_r)
    return Packing(x=xs[:n].astype(np.float64), y=ys[:n].astype(np.float64), r=r_out, centre=R, radius=R)


def _first_per_cell(gc: np.ndarray, rank: np.ndarray, cells: int) -> np.ndarray:
    """Positions of the smallest ``rank`` (0 <= rank < 2**31; ties: the earliest position) in each cell ``gc``,
    in cell order: what a stable argsort by (cell, rank) puts first in each cell, found in one pass
    (np.minimum.at over rank and position packed in one int64)."""
    pb = int(rank.size).bit_length()
    packed = (rank.astype(np.int64) << pb) | np.arange(rank.size, dtype=np.int64)
    none = np.iinfo(np.int64).max
    best = np.full(cells, none, dtype=np.int64)
    np.minimum.at(best, gc, packed)
    return best[best != none] & ((1 << pb) - 1)


def _sentinels(cells: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, y, r (cells, k) float32 tables of empty slots: x = y = 1e9 (far away), r = 0."""
    return (np.full((cells, k), 1e9, dtype=np.float32), np.full((cells, k), 1e9, dtype=np.float32),
            np.zeros((cells, k), dtype=np.float32))


class _Grid:
    """Padded candidate grid for `_grid_winners`: (nc+2)^2 cells stored flat with one spare slot at each end,
    so the 3 x 3 neighbourhood of every cell of rows 1..nc is a strided view (no gathers). Pad cells hold
    radius -1 (no candidate), like the grid's outside. Allocated once per `pack_circles` call."""

    def __init__(self, nc: int):
        w = nc + 2
        self.nc, self.w, self.size = nc, w, nc * w
        self.r = np.full(w * w + 2, -1.0, dtype=np.float32)
        self.x = np.zeros(w * w + 2, dtype=np.float32)
        self.y = np.zeros(w * w + 2, dtype=np.float32)
        self.alive = np.zeros(w * w + 2, dtype=bool)
        self.won = np.zeros(w * w + 2, dtype=bool)
        self.earlier = np.array([[a == 0 or (a == 1 and b == 0) for b in range(3)] for a in range(3)])[:, :, None]
        self.r_w, self.x_w, self.y_w = self.window(self.r), self.window(self.x), self.window(self.y)
        self.alive_w, self.won_w = self.window(self.alive), self.window(self.won)

    def inner(self, a: np.ndarray) -> np.ndarray:
        """(nc, nc) view of the real cells."""
        return a[1:-1].reshape(self.w, self.w)[1:-1, 1:-1]

    def centre(self, a: np.ndarray) -> np.ndarray:
        """Flat view of rows 1..nc (pad columns included)."""
        return a[1 + self.w : 1 + self.w + self.size]

    def window(self, a: np.ndarray) -> np.ndarray:
        """(3, 3, nc*w) view: [a, b, p] is centre cell p's neighbour at row offset a-1, column offset b-1."""
        st = a.strides[0]
        return np.lib.stride_tricks.as_strided(a, shape=(3, 3, self.size), strides=(self.w * st, st, st),
                                               writeable=False)


def _grid_winners(g: _Grid, px: np.ndarray, py: np.ndarray, rg: np.ndarray, gap: float) -> np.ndarray:
    """(nc, nc) bool: a set of candidates (radius rg > 0) of which no two overlap, chosen greedily.

    One candidate per cell, so only the 8 neighbouring cells can clash. The larger radius is stronger (ties:
    the earlier cell in row-major order). A candidate wins when no live stronger neighbour clashes with it;
    losers that clash with no winner stay live for the next of three passes (their stronger rival lost).
    """
    g.inner(g.r)[...] = rg  # float32 throughout: ties compare equal
    g.inner(g.x)[...] = px
    g.inner(g.y)[...] = py
    rc, xc, yc = g.centre(g.r), g.centre(g.x), g.centre(g.y)
    nr = g.r_w
    dx = g.x_w - xc
    dy = g.y_w - yc
    reach = nr + (rc + np.float32(gap))
    clash = (nr > 0) & (dx * dx + dy * dy < reach * reach)  # (3, 3, L): overlaps that neighbour
    clash[1, 1] = False  # not itself
    beaten = clash & ((nr > rc) | ((nr == rc) & g.earlier))  # ... and that neighbour is stronger
    alive, won = g.centre(g.alive), g.centre(g.won)
    alive_w, won_w = g.alive_w, g.won_w
    np.greater(rc, 0, out=alive)
    won[...] = False
    for _ in range(3):
        new = alive & ~(beaten & alive_w).any(axis=(0, 1))
        won |= new
        alive &= ~won & ~(clash & won_w).any(axis=(0, 1))
        if not alive.any():
            break
    return won.reshape(g.nc, g.w)[:, 1:-1]


def _stamp_out(free_buf: np.ndarray, pad: int, free: np.ndarray, m_side: int, q: float, px, py, reach) -> int:
    """Mark raster pixels within about ``reach`` px of (px, py) as not free (pixel-centred stamps, rounded
    to whole raster pixels; the raster only guides sampling, the radius test is exact); returns free count.
    ``free`` is the raster, a view into ``free_buf`` starting ``pad`` elements in (room for any stamp)."""
    kk = np.rint(reach / q).astype(np.int64)
    flat = (py / q).astype(np.int64) * m_side + (px / q).astype(np.int64) + pad
    for k in np.flatnonzero(np.bincount(kk)).tolist():
        free_buf[(flat[kk == k, None] + _stamp(k, m_side)[None, :]).ravel()] = False
    return int(np.count_nonzero(free))


@lru_cache(maxsize=256)
def _stamp(k: int, stride: int) -> np.ndarray:
    """Flat offsets (row * stride + col) of raster pixels within k pixels of a centre pixel (read-only)."""
    oy, ox = np.mgrid[-k : k + 1, -k : k + 1]
    inside = ox * ox + oy * oy <= k * k
    st = (oy[inside] * stride + ox[inside]).astype(np.int64)
    st.setflags(write=False)
    return st


@lru_cache(maxsize=16)
def _initial_free(m_side: int, q: float, R: float, min_r: float) -> np.ndarray:
    """Flat bool raster (m_side^2): pixel centres where a min_r dot fits inside the disc (read-only)."""
    c = (np.arange(m_side) + 0.5) * q - R
    free = ((c[None, :] ** 2 + c[:, None] ** 2) <= (R - min_r) ** 2).ravel()
    free.setflags(write=False)
    return free
