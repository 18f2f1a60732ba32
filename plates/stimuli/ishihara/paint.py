"""Painting dots: hard-edged (Pillow's ellipse fill) or anti-aliased (HueManity's pygame look), vectorised.

Colours: sRGB 0-255 (uint8 arrays (n, 3), or (n,) grey levels for mode "L"). Coordinates: px, origin at the
image's top-left corner; pixel (i, j) covers [i, i + 1) x [j, j + 1), its centre is (i + 0.5, j + 0.5).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

__all__ = ["AA_QUANTUM", "RIM_INNER", "paint_dots", "paint_dots_aa", "paint_dots_aa_pixels"]

#: The anti-aliased painter recomputes every pixel within this many px inside a dot's edge (Pillow's ellipse
#: fill, which paints the rest, is within about 0.75 px of the exact disc).
RIM_INNER = 0.85
#: Dot centres and radii are rounded to 1 / AA_QUANTUM px for the anti-aliased rim (exact on a pixel lattice).
AA_QUANTUM = 8
_PAD = 2  # px of padding around the image while rims are composed (rims reach 1 px past a dot)
_DOT_BITS = 23  # packed per pixel in an int32: (alpha 0-255) << 23 | dot index
_PIXEL = np.dtype("V3")  # one RGB pixel, uint8 x 3, as an opaque record


def paint_dots(size: int, x, y, r, colours: np.ndarray, canvas, mode: str = "RGB") -> Image.Image:
    """Draw dots (centres x, y and radii r in px; colours (n, 3) uint8 sRGB 0-255, or (n,) for mode "L") on a
    ``canvas``-coloured image with Pillow's ellipse fill (hard-edged).

    Calls Pillow's core ``draw_ellipse`` with inks resolved for every dot at once: the same pixels as
    ``ImageDraw.ellipse(..., fill=colour)``, without its per-call colour parsing.

    Parameters
    ----------
    size : int
        The image's side, px.
    x, y, r : array_like of float, shape (n,)
        The dots' centres and radii, px.
    colours : numpy.ndarray of uint8, shape (n, 3) or (n,)
        sRGB 0-255 per dot, or grey levels for mode "L".
    canvas : tuple of 3 int or int
        The background, sRGB 0-255 (a level for mode "L").
    mode : str, optional
        Pillow's image mode, "RGB" (the default) or "L".

    Returns
    -------
    PIL.Image.Image
        The painted image.
    """
    im = Image.new(mode, (size, size), canvas)
    core = ImageDraw.Draw(im).draw
    if mode == "RGB":
        packed = colours[:, 0].astype(np.int64) | (colours[:, 1].astype(np.int64) << 8) | (
            colours[:, 2].astype(np.int64) << 16
        )
        # Pillow's ink for an RGB colour is the packed pixel r | g << 8 | b << 16 | 255 << 24 as a signed
        # int32: computed for every dot at once, and checked against Pillow's own for the first dot
        ink_of = (packed | (255 << 24)).astype(np.uint32).view(np.int32).tolist()
        if packed.size and core.draw_ink(tuple(int(v) for v in colours[0])) != ink_of[0]:
            ink_of = [core.draw_ink((int(u) & 255, (int(u) >> 8) & 255, int(u) >> 16)) for u in packed.tolist()]
    else:
        uniq, inv = np.unique(np.asarray(colours).astype(np.int64), return_inverse=True)
        inks = [core.draw_ink(int(u)) for u in uniq.tolist()]
        ink_of = [inks[i] for i in inv.ravel().tolist()]
    # Pillow fills the pixels of the box's inclusive corners: this box paints closest to the pixels whose
    # centres lie within r of (x, y)
    h = np.maximum(np.asarray(r) - 0.5, 0.0)
    boxes = np.stack([x - h, y - h, x + h, y + h], axis=1).tolist()
    draw = core.draw_ellipse
    for box, ink in zip(boxes, ink_of):
        draw(box, ink, 1)
    return im


@lru_cache(maxsize=4096)
def _rim(r_q: int, fx_q: int, fy_q: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """The rim of a dot of radius r_q / Q px centred at fraction (fx_q / Q, fy_q / Q) of its pixel: flat offsets
    (dy * stride + dx) from that pixel of the pixels whose centre distance d lies in (r - RIM_INNER, r + 1), and
    their packed coverage ``round(255 * alpha) << 23`` with alpha = clip(r + 1 - d, 0, 1) (read-only int32)."""
    q = AA_QUANTUM
    r, fx, fy = r_q / q, fx_q / q, fy_q / q
    k = int(np.ceil(r + 2))
    steps = np.arange(-k, k + 1)  # dy down the rows, dx along them: broadcast, not a (2k+1)^2 grid each
    d = np.sqrt((steps[None, :] + 0.5 - fx) ** 2 + (steps[:, None] + 0.5 - fy) ** 2)
    alpha = np.rint(np.clip(r + 1.0 - d, 0.0, 1.0) * 255).astype(np.int32)
    sel = (d > r - RIM_INNER) & (alpha > 0)
    rows, cols = np.nonzero(sel)  # row-major, as boolean indexing orders them
    off = ((rows - k) * stride + (cols - k)).astype(np.int32)
    packed = alpha[rows, cols] << _DOT_BITS
    off.setflags(write=False)
    packed.setflags(write=False)
    return off, packed


def paint_dots_aa(size: int, x, y, r, colours: np.ndarray, canvas) -> Image.Image:
    """`paint_dots_aa_pixels` as a PIL RGB image.

    Parameters
    ----------
    size : int
        The image's side, px.
    x, y, r : array_like of float, shape (n,)
        The dots' centres and radii, px.
    colours : numpy.ndarray of uint8, shape (n, 3)
        sRGB 0-255 per dot.
    canvas : tuple of 3 int
        The background, sRGB 0-255.

    Returns
    -------
    PIL.Image.Image
        The painted RGB image.

    Raises
    ------
    ValueError
        When there are too many dots to anti-alias (`paint_dots_aa_pixels`).
    """
    return Image.fromarray(paint_dots_aa_pixels(size, x, y, r, colours, canvas), "RGB")


def paint_dots_aa_pixels(size: int, x, y, r, colours: np.ndarray, canvas) -> np.ndarray:
    """Anti-aliased dots, as HueManity's generator draws them (pygame ``gfxdraw.filled_circle`` then
    ``aacircle``: a solid disc with a one-pixel anti-aliased rim), on a ``canvas``-coloured RGB image.

    A pixel whose centre lies at distance d from a dot's centre gets coverage alpha = 1 for d <= r and
    r + 1 - d for r < d < r + 1 (the rim pygame's anti-aliased circle blends on), in steps of 1/255, and colour
    ``alpha * dot + (1 - alpha) * canvas`` (rounded); where rims of two dots meet in the gap between them, the
    larger alpha wins (ties: the later dot, as drawn later). Rims blend over the canvas, never over another dot
    (pygame blends a rim over whatever was drawn before: a sub-pixel difference, at most where dots touch).
    Inputs as `paint_dots` (colours (n, 3) uint8 sRGB 0-255; fewer than 2^23 dots). Centres and radii are
    rounded to 1/8 px for the rim only (exact for HueManity's whole-pixel centres and radii). Returns the
    (size, size, 3) uint8 sRGB 0-255 pixels (read-only).

    Parameters
    ----------
    size : int
        The image's side, px.
    x, y, r : array_like of float, shape (n,)
        The dots' centres and radii, px.
    colours : numpy.ndarray of uint8, shape (n, 3)
        sRGB 0-255 per dot.
    canvas : tuple of 3 int
        The background, sRGB 0-255.

    Returns
    -------
    numpy.ndarray of uint8, shape (size, size, 3)
        sRGB 0-255.

    Raises
    ------
    ValueError
        When there are too many dots to number in the painter's index bits.

    References
    ----------
    HueManity §3 and its released generator (pygame ``gfxdraw.filled_circle`` and ``aacircle``).
    """
    colours = np.asarray(colours, dtype=np.uint8)
    x, y, r = (np.asarray(v, dtype=np.float64) for v in (x, y, r))
    im = paint_dots(size, x, y, r, colours, canvas)  # Pillow's disc: exact up to the rim recomputed below
    n = r.size
    if n == 0:
        return _read_only(np.array(im))
    if n >= 1 << _DOT_BITS:
        raise ValueError(f"{n} dots is too many to anti-alias; allowed: fewer than {1 << _DOT_BITS}")
    # rims are composed on a padded image, so a rim pixel's flat offset never wraps into the next row: the pad
    # reaches past every rim of a dot that touches the image (dots that do not are left out of the rims)
    reach = r + 1.0
    touches = (x + reach > 0) & (y + reach > 0) & (x - reach < size) & (y - reach < size)
    past = np.maximum.reduce([reach - x, reach - y, x + reach - size, y + reach - size])[touches]
    pad = max(_PAD, int(np.ceil(past.max())) + _PAD) if past.size else _PAD
    q, side = AA_QUANTUM, size + 2 * pad
    xq, yq = np.rint(x * q).astype(np.int64), np.rint(y * q).astype(np.int64)
    ix, fx = np.divmod(xq, q)
    iy, fy = np.divmod(yq, q)
    base = ((iy + pad) * side + (ix + pad)).astype(np.int32)
    key = (np.rint(r * q).astype(np.int64) * q + fx) * q + fy
    key = np.where(touches, key, -1)  # dots off the image: no rim
    order = np.argsort(key, kind="stable")
    order = order[key[order] >= 0]
    ks = key[order]
    if not ks.size:
        return _read_only(np.array(im))
    starts = [0, *(np.flatnonzero(ks[1:] != ks[:-1]) + 1).tolist()]
    ends = [*starts[1:], ks.size]
    dot_id = order.astype(np.int32)
    # per padded pixel: (alpha << 23) | dot, the largest wins; every rim pixel of every dot as one int64
    # (pixel << 32 | value), sorted once: the last of each pixel's run is its largest (no ufunc.at scatter)
    keys = []
    for s, e in zip(starts, ends):
        k = int(ks[s])
        off, packed = _rim(k // (q * q), (k // q) % q, k % q, side)
        members = dot_id[s:e]
        keys.append((((base[members][:, None] + off[None, :]).astype(np.int64) << 32)
                     | (packed[None, :] | members[:, None])).ravel())
    rims = np.concatenate(keys)
    rims.sort()
    pixel = rims >> 32
    last = np.empty(pixel.size, dtype=bool)  # the last entry of each pixel's run
    np.not_equal(pixel[1:], pixel[:-1], out=last[:-1])
    last[-1] = True
    pad_pix = pixel[last]
    win = (rims[last] & 0xFFFFFFFF).astype(np.int32)
    # blend on the padded image (rims reaching past the image land in the pad): per channel, a table of
    # round(alpha * dot + (1 - alpha) * canvas) over (alpha, dot channel), the canvas channel fixed
    arr = np.empty((side, side, 3), dtype=np.uint8)
    arr[pad : pad + size, pad : pad + size] = np.asarray(im)
    lut = _blend_table(tuple(int(v) for v in canvas))
    a8 = (win >> _DOT_BITS) << 8
    rgb = (colours[:, 0].astype(np.int32) | (colours[:, 1].astype(np.int32) << 8)
           | (colours[:, 2].astype(np.int32) << 16))[win & ((1 << _DOT_BITS) - 1)]
    out = np.empty((win.size, 3), dtype=np.uint8)
    for ch in range(3):
        out[:, ch] = lut[ch][a8 | ((rgb >> (8 * ch)) & 255)]
    # pixels as 3-byte records: one scatter of whole pixels (a (k, 3) row scatter costs about twice as much)
    arr.reshape(-1).view(_PIXEL)[pad_pix] = out.reshape(-1).view(_PIXEL)
    return _read_only(np.ascontiguousarray(arr[pad : pad + size, pad : pad + size]))


@lru_cache(maxsize=64)
def _blend_table(canvas: tuple[int, int, int]) -> tuple[np.ndarray, ...]:
    """Per channel, (alpha * c + (255 - alpha) * canvas + 127) // 255 as uint8, indexed by alpha << 8 | c
    (alpha, c: 0-255; sRGB 0-255)."""
    a = np.arange(256, dtype=np.int32)[:, None]
    c = np.arange(256, dtype=np.int32)[None, :]
    return tuple(((a * c + (255 - a) * bg + 127) // 255).astype(np.uint8).ravel() for bg in canvas)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
