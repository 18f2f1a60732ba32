"""A stimulus measured as a family's model sees it: seen size, tiles, cropped fraction, whether the figure was
cut, and the ΔE2000 between figure and ground on the viewed pixels.

The ΔE2000 is `plates.stimuli.ishihara.measure.measure_dots`, the function the drawn ΔE is measured with,
applied to pixels instead of dots: every viewed pixel whose nearest input pixel (the masks follow the image
through the same geometry, `ViewPlan.apply_mask`) lies in a figure dot is a figure "dot", in a ground dot a ground
"dot". Resampling blends dot edges with their neighbours and the gaps between dots, so the low quantiles fall
where the view blurs: p05 and the median are recorded. At most `PIXELS` pixels of each class enter (a seeded
uniform sample, ``SeedSequence(seed)``), the pair sample beyond that is `measure_dots`' own.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from plates.models.views import ViewPlan, see, tile_count
from plates.stimuli.ishihara.measure import measure_dots
from plates.stimuli.ishihara.paint import paint_dots

__all__ = ["PIXELS", "figure_cut", "measure_view", "plate_regions", "resize_mask"]

#: Viewed pixels of each class (figure, ground) that enter the ΔE2000 measurement at most.
PIXELS = 20_000


def plate_regions(plate) -> dict[str, np.ndarray]:
    """An Ishihara plate's pixel regions at its own size, as (size, size) booleans: ``figure`` (pixels painted by
    foreground dots), ``ground`` (by background dots; the gaps between dots are neither) and ``text`` (the
    glyphs' mask, what "the figure was cut" is about).

    Parameters
    ----------
    plate : Plate
        A rendered plate.

    Returns
    -------
    dict of str to numpy.ndarray of bool
        ``figure``, ``ground`` and ``text``.
    """
    classes = np.where(plate.is_fg, 1, 2).astype(np.uint8)
    painted = np.asarray(paint_dots(plate.spec.size, plate.x, plate.y, plate.r, classes, 0, mode="L"))
    return {"figure": painted == 1, "ground": painted == 2, "text": np.asarray(plate.mask_array, dtype=bool)}


def resize_mask(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A boolean mask resized (nearest neighbour) to ``size`` (width, height): a stimulus's regions at the size
    a condition sent it at.

    Parameters
    ----------
    mask : numpy.ndarray of bool, shape (height, width)
        The mask.
    size : (int, int)
        (width, height), px.

    Returns
    -------
    numpy.ndarray of bool, shape (height, width)
        Resized.
    """
    mask = np.asarray(mask, dtype=bool)
    if (mask.shape[1], mask.shape[0]) == tuple(size):
        return mask
    img = Image.fromarray(mask.astype(np.uint8) * 255, mode="L").resize(tuple(size), Image.Resampling.NEAREST)
    return np.asarray(img) > 127


def figure_cut(plan: ViewPlan, figure: np.ndarray) -> bool:
    """Whether any pixel of ``figure`` ((height, width) booleans of the input) has its centre outside every
    tile's box (`ViewPlan.boxes`).

    Parameters
    ----------
    plan : ViewPlan
        The geometry.
    figure : numpy.ndarray of bool, shape (height, width)
        The figure's pixels.

    Returns
    -------
    bool
        Whether the view cuts the figure.
    """
    h, w = figure.shape
    inside = np.zeros((h, w), dtype=bool)
    for left, top, right, bottom in plan.boxes:
        x0, x1 = int(np.ceil(left - 0.5)), int(np.ceil(right - 0.5))  # pixel centres x + 0.5 in [left, right)
        y0, y1 = int(np.ceil(top - 0.5)), int(np.ceil(bottom - 0.5))
        inside[max(0, y0):min(h, y1), max(0, x0):min(w, x1)] = True
    return bool((figure & ~inside).any())


def measure_view(image, family: str, regions: dict[str, np.ndarray] | None = None, *, seed: int = 0) -> dict:
    """The view columns (`plates.results.schema.VIEW_COLUMNS`) of ``image`` as ``family`` sees it.

    Parameters
    ----------
    image : PIL.Image.Image or numpy.ndarray
        The image as sent (sRGB 0-255).
    family : str
        A `plates.models.views.FAMILIES` name.
    regions : dict, optional
        ``figure``, ``ground`` and ``text`` boolean masks of the stimulus (`plate_regions`), at any size (resized
        to the image's, nearest neighbour). Without them the figure columns are null.
    seed : int
        Seeds the pixel sample (`PIXELS`) and `measure_dots`' pair sample.

    Returns
    -------
    dict
        view_family, view_seen_width, view_seen_height, view_tiles, view_cropped_fraction, view_figure_cut,
        view_delta_e_p05, view_delta_e_median.
    """
    view = see(image, family)
    plan = view.plan
    cols = {
        "view_family": family, "view_seen_width": int(plan.seen_size[0]), "view_seen_height": int(plan.seen_size[1]),
        "view_tiles": tile_count(plan), "view_cropped_fraction": float(plan.cropped_fraction),
        "view_figure_cut": None, "view_delta_e_p05": None, "view_delta_e_median": None,
    }
    if not regions:
        return cols
    size = plan.input_size
    masks = {k: resize_mask(regions[k], size) for k in ("figure", "ground", "text")}
    cols["view_figure_cut"] = figure_cut(plan, masks["text"]) if masks["text"].any() else None
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    picked = {}
    for name in ("figure", "ground"):
        pixels = np.concatenate([px[m] for px, m in zip(view.images, plan.apply_mask(masks[name]))])
        if len(pixels) > PIXELS:
            pixels = pixels[rng.choice(len(pixels), PIXELS, replace=False)]
        picked[name] = pixels
    if len(picked["figure"]) and len(picked["ground"]):
        colours = np.concatenate([picked["figure"], picked["ground"]])
        is_fg = np.arange(len(colours)) < len(picked["figure"])
        d = measure_dots(colours, is_fg, seed=seed)
        cols["view_delta_e_p05"], cols["view_delta_e_median"] = float(d.p05), float(d.median)
    return cols
