"""Image preprocessing of the baseline reader, in numpy/PIL only (shared by training and ONNX inference).

A plate is read from its colour *contrast*, not its absolute hues: the same network must read HueManity's 25
foreground/background pairs (HueManity §3, App. D Table 7), ColorBlindnessEval's five multi-colour sets
(CBE App. D) and random pairs. So each image is normalised on its own:

1. crop to the plate (:func:`plate_box`): when the image's border is one flat colour (a plate drawn on a page
   with a margin, as many generators do), keep the square around everything that differs from it; then
   resize to ``size`` x ``size`` (PIL box filter: an area average, so a 900 px plate and a 128 px plate of the
   same spec look alike; mode ``"contrast-dots"`` averages the dots alone, :func:`dots_only`, so the canvas
   between them -- white, black or coloured paper -- does not tint the plate);
2. convert sRGB 0-255 -> CIELAB (D65, colour-science);
3. take the pixels of the plate's disc (centre 90% of the radius), subtract their median colour (the
   dominant, background colour) and project onto the principal axes of their CIELAB covariance (PCA);
4. whiten each axis by its standard deviation (with a floor of 10% of the largest axis, so an axis holding
   only noise, e.g. a and b of a grayscale plate, is not blown up) and orient it so that its skewness is
   positive: the minority colour (usually the figure) then points the same way on every plate;
5. clip to [-4, 4] and zero everything outside the disc.

Output: float32 (3, size, size), channels = the three principal colour axes, strongest first.

The alternative mode ``"rgb"`` (sRGB 0-255 scaled to about -2..2, no per-image normalisation) is kept for the
experiment that decided between the two (see plates/assets/baseline/MODEL_CARD.md).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageChops
from scipy import ndimage

from plates.colour.spaces import colour_science
from plates.validation import check_choice

#: Side in pixels of the network input by default (an exported reader states its own: ONNX metadata ``input_size``).
INPUT_SIZE = 96
#: Input sides the reader's network takes (plates/reader/model.py, ``GRID_POOL``): 64 for the default training
#: recipe since 2026-11-26 (equal CPU time buys more plates and steps), 96 for the weights before it.
INPUT_SIZES = (64, 96)
#: Radius of the disc used for statistics, as a fraction of half the side.
DISC_FRACTION = 0.9
#: Floor on each axis' standard deviation, as a fraction of the largest one.
STD_FLOOR = 0.1
#: Absolute floor (CIELAB units) on each axis' standard deviation (a flat image stays flat).
STD_MIN = 1.0
CLIP = 4.0


def _srgb255_to_lab(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) sRGB 0-255 -> (..., 3) CIELAB (D65) via colour-science."""
    colour = colour_science()
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(rgb / 255.0))


@lru_cache(maxsize=16)
def _disc(size: int, fraction: float) -> np.ndarray:
    """(size, size) bool: inside the centred disc of radius fraction * size / 2 (read-only)."""
    yy, xx = np.mgrid[0:size, 0:size]
    c = (size - 1) / 2.0
    disc = (xx - c) ** 2 + (yy - c) ** 2 <= (fraction * size / 2.0) ** 2
    disc.setflags(write=False)
    return disc


#: Side (px) of the thumbnail on which the plate's box is found.
BOX_PROBE = 128
#: Border pixels within this many sRGB 0-255 units (largest channel difference) of the border's median are "flat".
BORDER_TOLERANCE = 12
#: Share of border pixels that must be flat for the image to count as a plate on a page.
BORDER_FLAT_SHARE = 0.9
#: Least share of the box's inscribed ellipse the plate must cover (a plate is a disc or square of dots; the
#: figure alone on white, the "clear" variant, is not).
PLATE_FILL = 0.6
#: Pixels further than this (largest channel difference) from the border colour belong to the plate.
INK_THRESHOLD = 24


def plate_box(rgb: Image.Image) -> tuple[tuple[int, int, int, int], tuple[int, int, int]] | None:
    """The square (left, top, right, bottom) px holding the plate in the RGB image ``rgb`` and the page's sRGB
    0-255 colour, or None to keep the whole image.

    Found on a ``BOX_PROBE`` px thumbnail: if at least ``BORDER_FLAT_SHARE`` of the outermost 2-px ring lies within
    ``BORDER_TOLERANCE`` of the ring's median colour, the plate is what differs from that colour by more than
    ``INK_THRESHOLD``; its bounding box, made square about its centre, is the crop, if that box is about square
    (aspect 0.85-1.18) and the plate covers at least ``PLATE_FILL`` of its inscribed ellipse. Plates whose dots reach the
    image edge (a disc filling the frame, a square of dots, a textured surround) have no flat border and keep
    the whole image; so does a box covering >= 95% of the side.

    Parameters
    ----------
    rgb : PIL.Image.Image
        Mode "RGB", sRGB 0-255.

    Returns
    -------
    tuple or None
        ((left, top, right, bottom) in px, page colour as an sRGB 0-255 triple), or None.
    """
    w, h = rgb.size
    thumb = np.asarray(rgb.resize((BOX_PROBE, BOX_PROBE), Image.Resampling.BOX), dtype=np.int16)
    ring = np.concatenate([thumb[:2].reshape(-1, 3), thumb[-2:].reshape(-1, 3), thumb[:, :2].reshape(-1, 3),
                           thumb[:, -2:].reshape(-1, 3)])
    edge = np.median(ring, axis=0)
    if np.mean(np.abs(ring - edge).max(axis=1) <= BORDER_TOLERANCE) < BORDER_FLAT_SHARE:
        return None
    ink = np.abs(thumb - edge).max(axis=2) > INK_THRESHOLD
    rows, cols = np.flatnonzero(ink.sum(axis=1) >= 2), np.flatnonzero(ink.sum(axis=0) >= 2)
    if rows.size == 0 or cols.size == 0:
        return None
    sx, sy = w / BOX_PROBE, h / BOX_PROBE
    x0, x1, y0, y1 = cols[0] * sx, (cols[-1] + 1) * sx, rows[0] * sy, (rows[-1] + 1) * sy
    side = max(x1 - x0, y1 - y0)
    bw, bh = cols[-1] + 1 - cols[0], rows[-1] + 1 - rows[0]
    fill = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1].sum() / (np.pi / 4 * bw * bh)
    if side >= 0.95 * min(w, h) or not 0.85 <= bw / bh <= 1.18 or fill < PLATE_FILL:
        return None
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = side / 2
    box = (round(cx - half), round(cy - half), round(cx - half) + round(side), round(cy - half) + round(side))
    return box, tuple(int(v) for v in edge)


#: Side (px, a share of the plate's side) of the corner patches where the canvas colour is looked for.
CANVAS_CORNER = 0.04
#: Pixels within this many sRGB 0-255 units (largest channel difference) of the canvas colour are canvas.
CANVAS_TOLERANCE = 6
#: Side of the neighbourhood whose dots fill a cell that holds none, as a share of the input side (see
#: :func:`dots_only`): 5 cells at 96 px, 3 at 64. A fixed 5 cells at 64 px reached 7.8% of the plate and filled the
#: holes of 6, 8 and 9 on "clear" plates (figure dots alone on the paper): a 64 px reader read 91% of clear
#: ColorBlindnessEval plates against 100% at 96 px (bench_baseline.py, 100 plates, 2026-11-26).
EMPTY_FILL_SHARE = 5 / 96


def empty_fill(size: int) -> int:
    """Cells of the :data:`EMPTY_FILL_SHARE` neighbourhood at input side ``size`` (at least 1).

    Parameters
    ----------
    size : int
        The input side, px.

    Returns
    -------
    int
        Cells.
    """
    return max(1, round(EMPTY_FILL_SHARE * size))


def canvas_colour(rgb: np.ndarray) -> np.ndarray | None:
    """The flat colour between and around the dots of the (H, W, 3) uint8 plate ``rgb``, or None.

    A disc filling its frame leaves its four corners to the canvas (the paper between the dots): when at least
    three corner patches (``CANVAS_CORNER`` of the side) are each flat within ``CANVAS_TOLERANCE`` and agree, their
    median is the canvas. A square of dots or a textured surround has no flat corners and gets None.

    Parameters
    ----------
    rgb : numpy.ndarray of uint8, shape (H, W, 3)
        The plate, sRGB 0-255.

    Returns
    -------
    numpy.ndarray or None
        The canvas, sRGB 0-255, or None.
    """
    h, w = rgb.shape[:2]
    k = max(2, round(CANVAS_CORNER * min(h, w)))
    patches = [rgb[:k, :k], rgb[:k, -k:], rgb[-k:, :k], rgb[-k:, -k:]]
    flat = []
    for patch in patches:
        px = patch.reshape(-1, 3).astype(np.int16)
        med = np.median(px, axis=0)
        if np.abs(px - med).max() <= CANVAS_TOLERANCE:
            flat.append(med)
    if len(flat) < 3:
        return None
    med = np.median(np.array(flat), axis=0)
    if sum(np.abs(f - med).max() <= CANVAS_TOLERANCE for f in flat) < 3:
        return None
    return med


def dots_only(rgb: Image.Image, size: int) -> np.ndarray | None:
    """(size, size, 3) float64 sRGB 0-255 area averages of the plate's dots alone, or None without a canvas.

    Canvas pixels (:func:`canvas_colour`) get weight 0, so a cell's colour is the mean of its dot pixels whatever
    the canvas (white, black or any colour: the generator's paper no longer tints the plate); a cell holding no dot
    takes the mean of the dots within :func:`empty_fill` cells, and keeps the canvas only with none that near. The weights ride in an alpha channel: PIL box-filters RGBA with premultiplied alpha,
    i.e. exactly the weighted mean (to 8 bits).

    Parameters
    ----------
    rgb : PIL.Image.Image
        The plate, RGB, sRGB 0-255.
    size : int
        The output side, px.

    Returns
    -------
    numpy.ndarray of float64, shape (size, size, 3) or None
        sRGB 0-255, or None without a canvas.
    """
    canvas = canvas_colour(np.asarray(rgb))
    if canvas is None:
        return None
    # per channel 255 where the value is further than the tolerance from the canvas's (one lookup table each)
    lut = [255 if abs(v - c) > CANVAS_TOLERANCE else 0 for c in canvas for v in range(256)]
    far = rgb.point(lut).split()
    alpha = ImageChops.lighter(ImageChops.lighter(far[0], far[1]), far[2])
    rgba = rgb.copy()
    rgba.putalpha(alpha)
    small = np.asarray(rgba.resize((size, size), Image.Resampling.BOX), dtype=np.float64)
    out, cover = small[..., :3], small[..., 3] / 255.0
    # cells between dots take the mean of the dots around them (within empty_fill cells), so the canvas's colour
    # does not come back through the gaps; cells with no dot that near (a "clear" plate's surround) keep it
    reach = empty_fill(size)
    near_cover = ndimage.uniform_filter(cover, reach, mode="constant")
    near = np.stack([ndimage.uniform_filter(out[..., c] * cover, reach, mode="constant") for c in range(3)], -1)
    empty = cover == 0
    fill = empty & (near_cover > 1e-3)  # (the filter's running sums leave ~1e-17 where no dot is near)
    out[fill] = near[fill] / near_cover[fill][:, None]
    out[empty & ~fill] = canvas
    return np.clip(out, 0.0, 255.0)


def resize(image: Image.Image, size: int = INPUT_SIZE, neutralise_canvas: bool = False) -> np.ndarray:
    """A plate image cropped to the plate and box-filtered to the network's side.

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode (read as RGB, sRGB 0-255), any size.
    size : int
        Output side in px.
    neutralise_canvas : bool
        Average the dots alone where the plate has a flat canvas (:func:`dots_only`).

    Returns
    -------
    numpy.ndarray
        (size, size, 3) float64 sRGB 0-255: cropped to the plate (:func:`plate_box`; a crop reaching past the
        image is filled with the border colour), then box-filtered.
    """
    if not isinstance(image, Image.Image):
        raise ValueError(f"expected a PIL image, got {type(image).__name__}")
    if not 16 <= size <= 1024:
        raise ValueError(f"input size {size} is outside the allowed 16-1024 px")
    rgb = image.convert("RGB")
    found = plate_box(rgb)
    if found is not None:
        (x0, y0, x1, y1), page = found
        crop = Image.new("RGB", (x1 - x0, y1 - y0), page)  # a box reaching past the image: the page's colour
        crop.paste(rgb.crop((max(x0, 0), max(y0, 0), min(x1, rgb.width), min(y1, rgb.height))),
                   (max(-x0, 0), max(-y0, 0)))
        rgb = crop
    if neutralise_canvas:
        dots = dots_only(rgb, size)
        if dots is not None:
            return dots
    if rgb.size != (size, size):
        rgb = rgb.resize((size, size), Image.Resampling.BOX)
    return np.asarray(rgb, dtype=np.float64)


def normalise(rgb: np.ndarray) -> np.ndarray:
    """Contrast-normalised CIELAB principal axes of a plate (module doc, steps 2-5).

    Parameters
    ----------
    rgb : numpy.ndarray
        (S, S, 3) sRGB 0-255.

    Returns
    -------
    numpy.ndarray
        (3, S, S) float32 in [-4, 4], strongest axis first, zero outside the disc.

    Raises
    ------
    ValueError
        ``rgb`` is not a square (S, S, 3) array.
    """
    rgb = np.asarray(rgb, dtype=np.float64)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.shape[0] != rgb.shape[1]:
        raise ValueError(f"expected a square (S, S, 3) sRGB 0-255 array, got shape {rgb.shape}")
    size = rgb.shape[0]
    lab = _srgb255_to_lab(rgb)
    inside = lab[_disc(size, DISC_FRACTION)]  # (n, 3) CIELAB
    centre = np.median(inside, axis=0)
    cov = np.cov((inside - centre).T)
    eigval, eigvec = np.linalg.eigh(cov)  # ascending
    order = np.argsort(eigval)[::-1]
    eigval, eigvec = eigval[order], eigvec[:, order]
    std = np.sqrt(np.maximum(eigval, 0.0))
    std = np.maximum(std, max(STD_FLOOR * std[0], STD_MIN))
    proj = ((lab - centre) @ eigvec) / std  # (S, S, 3)
    inside_proj = proj[_disc(size, DISC_FRACTION)]
    skew = np.mean((inside_proj - inside_proj.mean(axis=0)) ** 3, axis=0)
    proj = proj * np.where(skew < 0, -1.0, 1.0)
    proj = np.clip(proj, -CLIP, CLIP)
    proj[~_disc(size, 1.0)] = 0.0
    return np.ascontiguousarray(proj.transpose(2, 0, 1), dtype=np.float32)


#: Preprocessing modes: per-image contrast normalisation (default), the same over the dots alone (canvas
#: between the dots neutralised, :func:`dots_only`) or plain scaled sRGB.
MODES = ("contrast", "contrast-dots", "rgb")


def scale_rgb(rgb: np.ndarray) -> np.ndarray:
    """The "rgb" mode's input: no per-image normalisation.

    Parameters
    ----------
    rgb : numpy.ndarray
        (S, S, 3) sRGB 0-255.

    Returns
    -------
    numpy.ndarray
        (3, S, S) float32 (rgb - 127.5) / 64, about -2..2.
    """
    rgb = np.asarray(rgb, dtype=np.float32)
    return np.ascontiguousarray(((rgb - 127.5) / 64.0).transpose(2, 0, 1))


def preprocess(image: Image.Image, size: int = INPUT_SIZE, mode: str = "contrast") -> np.ndarray:
    """A plate image as the network's input (module doc), as training and the ONNX reader both make it.

    Parameters
    ----------
    image : PIL.Image.Image
        The plate, sRGB 0-255, any size.
    size : int
        Input side in px (`INPUT_SIZES`; an exported reader states its own).
    mode : str
        One of `MODES`: "contrast", "contrast-dots" (the dots averaged alone) or "rgb".

    Returns
    -------
    numpy.ndarray
        (3, size, size) float32.

    Raises
    ------
    ValueError
        ``mode`` not in `MODES`, or ``image`` not a PIL image.

    Examples
    --------
    >>> from plates.stimuli import render
    >>> from plates.stimuli.ishihara import PlateSpec
    >>> x = preprocess(render(PlateSpec(text="12", size=128)).image, 64, "contrast-dots")
    >>> x.shape, x.dtype.name
    ((3, 64, 64), 'float32')
    """
    check_choice("preprocessing mode", mode, MODES)
    rgb = resize(image, size, neutralise_canvas=mode == "contrast-dots")
    return scale_rgb(rgb) if mode == "rgb" else normalise(rgb)
