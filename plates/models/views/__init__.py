"""The image as the model sees it: each VLM family's image processing, as pixels.

``view_plan("qwen2-vl", 1200, 700)`` gives the geometry a family's processor applies to an image of that size
(`ViewPlan`: tiles in the processor's order, seen size, crop boxes in input pixels, cropped fraction) and
``see(image, "llava-1.5")`` runs it: the images the vision encoder receives, de-normalised back to sRGB 0-255
(uint8), with a function that carries masks the same way. Open-weight families reproduce transformers'
PIL-backed image processors with each model repository's published configuration (`plates.models.views.hf`);
API providers follow their published rules (`plates.models.views.providers`). Numpy and Pillow only.

The torchvision-backed "fast" processors, which transformers picks when torchvision is installed, resample
differently (antialiased tensor bicubic); they are not reproduced here (see docs/model-views.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from plates.models.views.core import FILTERS, Tile, ViewPlan, as_rgb, union_area
from plates.models.views.hf import HF_FAMILIES
from plates.models.views.providers import PROVIDER_FAMILIES
from plates.validation import lookup

__all__ = ["FAMILIES", "FILTERS", "HF_FAMILIES", "PROVIDER_FAMILIES", "Tile", "View", "ViewPlan", "as_rgb",
           "tile_count",
           "see", "union_area", "view_plan"]

#: Every family with a view: name -> planner(width, height) -> ViewPlan.
FAMILIES = {**HF_FAMILIES, **PROVIDER_FAMILIES}


@dataclass(frozen=True)
class View:
    """A plan run on pixels: ``images`` are the tiles' (height, width, 3) uint8 sRGB 0-255 arrays in order."""

    plan: ViewPlan
    images: tuple[np.ndarray, ...]

    def transform_mask(self, mask) -> tuple[np.ndarray, ...]:
        """The input's (height, width) boolean mask as each tile shows it (`ViewPlan.apply_mask`)."""
        return self.plan.apply_mask(mask)

    def summary(self) -> dict:
        """``view.json``'s fields: family, input_size, seen_size, tiles, cropped_fraction, crop_boxes (input
        pixels, (left, top, right, bottom) per tile), tile_sizes, processor, exact, note."""
        p = self.plan
        return {
            "family": p.family,
            "input_size": list(p.input_size),
            "seen_size": list(p.seen_size),
            "tiles": tile_count(p),
            "cropped_fraction": round(p.cropped_fraction, 6),
            "crop_boxes": [[round(v, 3) for v in b] for b in p.boxes],
            "tile_sizes": [list(t.size) for t in p.tiles],
            "processor": p.processor,
            "exact": p.exact,
            "note": p.note,
        }


def tile_count(plan: ViewPlan) -> int:
    """Images the encoder receives (a provider's published tile count where it tiles unseen)."""
    return int(plan.extra.get("provider_tiles", len(plan.tiles)))


def view_plan(family: str, width: int, height: int) -> ViewPlan:
    """The geometry ``family``'s processor applies to an image of ``width`` x ``height`` pixels.

    Parameters
    ----------
    family : str
        A key of `FAMILIES` (e.g. ``"llava-1.5"``, ``"qwen2-vl"``, ``"openai-high"``).
    width, height : int
        The input's size in pixels, each >= 1.

    Returns
    -------
    ViewPlan

    Raises
    ------
    ValueError
        An unknown family (the error lists the known ones), a size that is not a positive integer, or an image the
        family refuses (e.g. Qwen2-VL past an aspect ratio of 200, Anthropic past 8000 px), with the reason.

    Examples
    --------
    >>> plan = view_plan("llava-1.5", 1200, 700)
    >>> plan.seen_size, round(plan.cropped_fraction, 3)
    ((336, 336), 0.417)
    """
    planner = lookup(FAMILIES, family, "view family")
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name}={v!r} is not valid; allowed: an integer >= 1 (pixels)")
    return planner(int(width), int(height))


def see(image, family: str) -> View:
    """``image`` (PIL image or (height, width, 3) uint8 sRGB 0-255) as ``family``'s encoder receives it."""
    rgb = as_rgb(image)
    plan = view_plan(family, *rgb.size)
    return View(plan, plan.apply(rgb))
