"""render(SceneSpec) -> Stimulus: a synthetic colour scene with its masks and exact truth.

Stages, each with its own numpy PCG64 stream spawned from ``SeedSequence(spec.seed)``: colours
(`plates.stimuli.scenes.colours`), layout (shapes, colour assignment, sizes, places, poses), the mottled
texture (mottled shading only), then drawing
(`plates.stimuli.scenes.draw`: a label image, no anti-aliasing). Same spec, same bytes.

Truth (JSON-able; colours sRGB 0-255 as [r, g, b] lists, shares of the whole image, 0-1):

* ``background``: {"colour", "name", "share"}.
* ``regions``: one per object in drawing order (``"region-0"`` is drawn first; later regions occlude earlier
  ones): {"region", "shape", "colour", "name", "colour_index", "share" (visible pixels / image pixels),
  "visible_fraction" (visible pixels / the object's polygon area, ~1 unless occluded; rasterisation makes it
  approximate, within a few %), "centre" [x, y] px, "radius" px}.
* ``colours``: one per object colour, in order of first use: {"colour", "name", "share" (visible pixels of all
  its objects), "objects" (objects of that colour with any visible pixel)}; a region's ``colour_index`` points
  here.
* ``distinct_colours``: distinct colours visible in the image, background included (with flat shading, exactly
  the number of distinct pixel values); ``object_colours``: the same without the background.
* ``objects_per_colour``: {"#rrggbb": objects}; ``min_delta_e``: the smallest CIEDE2000 between two of the
  scene's colours (background included; None for a single-colour image); ``shading``.

Masks: ``"background"`` and ``"region-k"``, bool (H, W), the visible pixels (occlusion applied); they partition
the image.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from plates.colour import srgb255_to_lab, to_hex
from plates.stimuli.base import Stimulus
from plates.stimuli.scenes.colours import choose_colours, delta_e_lab
from plates.stimuli.scenes.draw import label_image, layout, paint
from plates.stimuli.scenes.palettes import get_scene_palette
from plates.stimuli.scenes.spec import SceneSpec

__all__ = ["render", "summarise"]


def _rgb(c) -> list[int]:
    return [int(v) for v in c]


def summarise(regions: list[dict], background: dict, shading: str) -> dict[str, Any]:
    """The truth mapping (module docstring) from its ``regions`` and ``background`` entries: colours are
    grouped by exact sRGB 0-255 value (in drawing order of first use), ``colour_index`` set in each region, and
    the minimum CIEDE2000 recomputed over the distinct colours. `plates.stimuli.scenes.recolour` calls it
    again after changing colours.

    Parameters
    ----------
    regions : list of dict
        One entry per object region, each with its ``colour`` (sRGB 0-255) among its truth.
    background : dict
        The background's entry.
    shading : str
        The scene's shading.

    Returns
    -------
    dict
        ``background``, ``regions`` (each with its ``colour_index`` set), ``colours`` (grouped, with their
        share and object count), ``distinct_colours``, ``object_colours``, ``objects_per_colour`` (hex ->
        count), ``min_delta_e`` (None with fewer than two colours shown) and ``shading``.
    """
    groups: dict[tuple, dict] = {}
    for reg in regions:
        key = tuple(reg["colour"])
        entry = groups.setdefault(key, {"colour": list(key), "name": reg["name"], "share": 0.0, "objects": 0})
        reg["colour_index"] = list(groups).index(key)
        entry["share"] += reg["share"]
        entry["objects"] += int(reg["share"] > 0)
    colours = list(groups.values())
    shown = [tuple(c["colour"]) for c in colours if c["objects"] > 0]
    bg_key = tuple(background["colour"])
    every = list(dict.fromkeys([*shown, *([bg_key] if background["share"] > 0 else [])]))
    min_de = None
    if len(every) >= 2:
        lab = srgb255_to_lab(np.array(every, dtype=np.float64))
        d = delta_e_lab(lab[:, None], lab[None])
        min_de = float(np.min(d[np.triu_indices(len(every), 1)]))
    return {
        "background": background, "regions": regions, "colours": colours, "distinct_colours": len(every),
        "object_colours": len(shown), "objects_per_colour": {to_hex(tuple(c["colour"])): c["objects"] for c in colours},
        "min_delta_e": min_de, "shading": shading,
    }


def _regions(counts: np.ndarray, lay, colours: np.ndarray, names: tuple[str | None, ...], total: int) -> list[dict]:
    visible, nominal = counts[1:], lay.nominal_area
    return [
        {
            "region": f"region-{k}", "shape": shape, "colour": _rgb(colours[ci]), "name": names[ci],
            "colour_index": 0, "share": float(visible[k] / total),
            "visible_fraction": float(min(1.0, visible[k] / nominal[k])) if nominal[k] > 0 else 0.0,
            "centre": [round(float(lay.cx[k]), 3), round(float(lay.cy[k]), 3)], "radius": round(float(lay.r[k]), 3),
        }
        for k, (shape, ci) in enumerate(zip(lay.shapes, lay.colour_index.tolist()))
    ]


def render(spec: SceneSpec) -> Stimulus:
    """Draw a scene: a pure function of the spec.

    Parameters
    ----------
    spec : SceneSpec

    Returns
    -------
    plates.stimuli.base.Stimulus
        ``image`` PIL RGB (sRGB 0-255); masks, truth and stats as the module docstring lists them.

    References
    ----------
    Liang et al., ColorBench, Table 7 (the tasks the truth answers).

    Examples
    --------
    >>> scene = render(SceneSpec(seed=3, size=128, n_regions=4, n_colours=2))
    >>> scene.truth["distinct_colours"], len(scene.truth["regions"])  # two object colours and the background
    (3, 4)
    """
    if not isinstance(spec, SceneSpec):
        raise ValueError(f"render needs a SceneSpec, got {type(spec).__name__}")
    streams = np.random.SeedSequence(spec.seed).spawn(3)  # the first two as before a third was spawned
    rng_colour, rng_layout, rng_texture = (np.random.Generator(np.random.PCG64(s)) for s in streams)
    choice = choose_colours(spec.n_colours, spec.min_delta_e, spec.background, rng_colour, spacing=spec.spacing,
                            palette=spec.palette)
    colours = np.array(choice.colours, dtype=np.uint8).reshape(-1, 3)
    lay = layout(spec, len(choice.colours), rng_layout)
    labels = label_image(lay, spec.size)
    pixels = paint(labels, lay, choice.background, colours, spec.shading, rng_texture)
    n = spec.n_regions
    counts = np.bincount(labels.ravel(), minlength=n + 1)
    total = spec.size * spec.size
    bg_name = None
    if spec.palette is not None:
        bg_name = get_scene_palette(spec.palette).name_of(choice.background)
    background = {"colour": _rgb(choice.background), "name": bg_name, "share": float(counts[0] / total)}
    truth = summarise(_regions(counts, lay, colours, choice.names, total), background, spec.shading)
    masks: Mapping[str, np.ndarray] = {"background": labels == 0, **{f"region-{k}": labels == k + 1 for k in range(n)}}
    stats = {
        "fill_nominal": spec.fill, "fill_drawn": float(lay.nominal_area.sum() / total) if n else 0.0,
        "fill_visible": float(1.0 - counts[0] / total), "scale": round(lay.scale, 6), "placement_batches": lay.tries,
        "colour_sampler": choice.sampler, "min_delta_e": truth["min_delta_e"],
    }
    return Stimulus(spec=spec, image=Image.fromarray(pixels, "RGB"), masks=masks, truth=truth, stats=stats)
