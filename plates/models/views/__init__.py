"""The image as the model sees it: each VLM family's image processing, as pixels.

``view_plan("qwen2-vl", 1200, 700)`` gives the geometry a family's processor applies to an image of that size
(`ViewPlan`: tiles in the processor's order, seen size, crop boxes in input pixels, cropped fraction) and
``see(image, "llava-1.5")`` runs it: the images the vision encoder receives, de-normalised back to sRGB 0-255
(uint8), with a function that carries masks the same way. Open-weight families reproduce transformers'
PIL-backed image processors with each model repository's published configuration (`plates.models.views.hf`);
API providers follow their published rules (`plates.models.views.providers`). Numpy and Pillow only.

The torchvision-backed "fast" processors, which transformers picks when torchvision is installed, are the
``<family>-fast`` views (`plates.models.views.fast`): the same geometry, resized as torch's antialiased uint8
kernel does (`plates.models.views.tvresize`), in numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plates.models.views.core import FILTERS, Tile, ViewPlan, as_rgb, union_area
from plates.models.views.fast import FAST_FAMILIES
from plates.models.views.hf import HF_FAMILIES, family_of_config
from plates.models.views.providers import PROVIDER_FAMILIES
from plates.validation import check_int, lookup

__all__ = ["FAMILIES", "FAST_FAMILIES", "FILTERS", "HF_FAMILIES", "KNOWN_MODELS", "PROVIDER_FAMILIES", "Tile", "View", "ViewPlan",
           "as_rgb", "family_of_model", "tile_count",
           "see", "union_area", "view_plan"]

#: Every family with a view: name -> planner(width, height) -> ViewPlan.
FAMILIES = {**HF_FAMILIES, **FAST_FAMILIES, **PROVIDER_FAMILIES}


@dataclass(frozen=True)
class View:
    """A plan run on pixels: ``images`` are the tiles' (height, width, 3) uint8 sRGB 0-255 arrays in order.

    Attributes
    ----------
    plan : ViewPlan
        The geometry.
    images : tuple of numpy.ndarray
        The tiles, (height, width, 3) uint8 sRGB 0-255, in order.
    """

    plan: ViewPlan
    images: tuple[np.ndarray, ...]

    def transform_mask(self, mask) -> tuple[np.ndarray, ...]:
        """The input's (height, width) boolean mask as each tile shows it (`ViewPlan.apply_mask`).

        Parameters
        ----------
        mask : array_like of bool, shape (height, width)
            A mask of the input.

        Returns
        -------
        tuple of numpy.ndarray of bool
            One per tile.

        Raises
        ------
        ValueError
            For a mask that is not 2-D or not the input's size.
        """
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


#: Model repositories whose published preprocessor_config.json a family reproduces (`plates.models.views.hf`): a
#: local (hf) model of one of these ids, or a folder of that name, records its family's view without being told.
KNOWN_MODELS: dict[str, str] = {
    "llava-hf/llava-1.5-7b-hf": "llava-1.5",
    "qwen/qwen2-vl-7b-instruct": "qwen2-vl",
    "qwen/qwen2.5-vl-7b-instruct": "qwen2.5-vl",
    "huggingfacem4/idefics3-8b-llama3": "idefics3",
    "huggingfacetb/smolvlm-instruct": "smolvlm",
    "opengvlab/internvl3-1b-hf": "internvl",
    "google/paligemma-3b-pt-224": "paligemma-224",
    "google/paligemma-3b-pt-448": "paligemma-448",
    "google/paligemma-3b-pt-896": "paligemma-896",
    "google/gemma-3-4b-it": "gemma-3",
    "meta-llama/llama-3.2-11b-vision-instruct": "llama-3.2-vision",
    "florence-community/florence-2-large": "florence-2",
}


def family_of_model(model: str) -> str | None:
    """The view family of a local model: its Hugging Face id in `KNOWN_MODELS` (any case), a folder whose name
    is one of theirs, or a folder whose ``preprocessor_config.json`` holds a family's published configuration
    (`plates.models.views.hf.family_of_config`); None for any other model (its rows record no view unless the
    run names one).

    Parameters
    ----------
    model : str
        A hub id or a local folder.

    Returns
    -------
    str or None
        A view family, or None.

    Examples
    --------
    >>> family_of_model("Qwen/Qwen2-VL-7B-Instruct"), family_of_model("/models/SmolVLM-Instruct")
    ('qwen2-vl', 'smolvlm')
    """
    key = str(model).strip().rstrip("/").casefold()
    if key in KNOWN_MODELS:
        return KNOWN_MODELS[key]
    name = key.replace("\\", "/").rsplit("/", 1)[-1]
    by_name = {repo.rsplit("/", 1)[-1]: fam for repo, fam in KNOWN_MODELS.items()}
    if name in by_name:
        return by_name[name]
    config = Path(str(model)) / "preprocessor_config.json"
    try:
        return family_of_config(json.loads(config.read_text(encoding="utf-8"))) if config.is_file() else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def tile_count(plan: ViewPlan) -> int:
    """Images the encoder receives (a provider's published tile count where it tiles unseen).

    Parameters
    ----------
    plan : ViewPlan
        The geometry.

    Returns
    -------
    int
        Images.
    """
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
        check_int(name, v, 1, note=" (pixels)")
    return planner(int(width), int(height))


def see(image, family: str) -> View:
    """``image`` (PIL image or (height, width, 3) uint8 sRGB 0-255) as ``family``'s encoder receives it.

    Parameters
    ----------
    image : PIL.Image.Image or numpy.ndarray
        The image sent, sRGB 0-255.
    family : str
        A view family (`FAMILIES`).

    Returns
    -------
    View
        The tiles.

    Raises
    ------
    ValueError
        For an unknown family, or an array that is not (height, width, 3) uint8.
    """
    rgb = as_rgb(image)
    plan = view_plan(family, *rgb.size)
    return View(plan, plan.apply(rgb))
