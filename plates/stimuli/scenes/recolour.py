"""ColorBench's colour-robustness variants of a scene (Liang et al., ColorBench §2.3, App. C, Fig. 3).

ColorBench segments a seed image with Grounded-SAM and recolours one region at a time by rotating hue in HSV
by 90, 180 or 270 degrees, for three strategies: the *entire image*, the *target segment* (the object the
question refers to) and the *largest segment* that is irrelevant to the question: nine variants per seed.
Scenes have exact masks, so here a strategy recolours exactly its pixels and nothing else:

* ``image``: every pixel (the background too).
* ``target``: the regions the question refers to (`plates.tasks.scenes.colorbench.SceneQuestion.target`; several when
  it refers to several objects, e.g. every star of "How many stars ...").
* ``largest``: the object region with the most visible pixels that is not a target. The background is left
  out by default: a neutral background has no hue to rotate (ColorBench's human filter drops such negligible
  edits, App. C); ``include_background=True`` lets it compete.

Hue rotation is `plates.conditions.hue_shift`: HSV as in ColorBench (the default), or CIELAB ``a*b*`` rotation
about ``L*`` (``space="cielab"``, keeps lightness and chroma; clipped to sRGB). The variant's truth is recomputed:
a recoloured region's colour is the rotated colour (the same per-colour function as its pixels, so for flat
shading exactly its pixel value), its palette name is the nearest palette colour's when within CIEDE2000
``NAME_TOLERANCE`` = 8 of it (a grey rotated in HSV stays "grey"; a red turned blue is "blue" only if it lands
near the palette's blue, else it has no name), and colour counts, shares and the minimum CIEDE2000 are summarised again. ``truth["recolour"]``
records the edit, ``min_change_delta_e`` and ``max_change_delta_e``: the smallest and largest CIEDE2000 between
a visible recoloured region's colour before and after (for the entire image, the background and every
object): near 0 for a grey region, whose hue rotation changes nothing visible (ColorBench's filter
drops such "negligible modifications" by hand; a preset can drop them by this number). With flat shading the
rotated colours are painted into the masks; with soft shading the image is rotated with `hue_shift` and its
pixels kept inside the masks (the same per-colour function either way). Images: PIL RGB, sRGB 0-255.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from plates.colour import srgb255_to_lab
from plates.conditions import HUE_SPACES, hue_shift
from plates.stimuli.base import SpecBase, Stimulus
from plates.stimuli.scenes.colours import delta_e_lab
from plates.stimuli.scenes.palettes import get_scene_palette
from plates.stimuli.scenes.render import render, summarise
from plates.stimuli.scenes.spec import SceneSpec
from plates.validation import check_choice, check_number

__all__ = [
    "DEGREES",
    "FAMILY",
    "NAME_TOLERANCE",
    "STRATEGIES",
    "VARIANTS",
    "RecolourSpec",
    "largest_other",
    "recolour",
    "render_variant",
    "variant_specs",
]

FAMILY = "scene-recolour"
STRATEGIES = ("image", "target", "largest")
DEGREES = (90, 180, 270)
#: A recoloured colour takes the name of the nearest palette colour within this CIEDE2000 (ours), else none:
#: under half the palettes' smallest pairwise distance (17.96), so at most one name ever fits.
NAME_TOLERANCE = 8.0
#: The nine ColorBench variants, "strategy-degrees" (App. C): entire image, target segment, largest segment.
VARIANTS = tuple(f"{s}-{d}" for s in STRATEGIES for d in DEGREES)


@dataclass(frozen=True)
class RecolourSpec(SpecBase):
    """One recoloured variant of a scene: ``scene`` rendered, then ``regions`` (names of its masks:
    "background", "region-k"; empty for the entire image) hue-rotated by ``degrees`` in ``space`` ("hsv" as
    ColorBench, or "cielab"). ``strategy`` (image / target / largest) records why those regions.

    Parameters
    ----------
    scene : SceneSpec
        The scene.
    strategy : str
        Why those regions: one of `STRATEGIES` (image / target / largest).
    degrees : float
        The hue rotation, in (0, 360) degrees (ColorBench: 90, 180, 270).
    regions : tuple of str, optional
        Distinct mask names of the scene; empty (the default) for the entire image.
    space : str, optional
        ``"hsv"`` (ColorBench's, the default) or ``"cielab"``.

    Raises
    ------
    ValueError
        For a ``scene`` that is not a `SceneSpec`, an unknown ``strategy`` or ``space``, ``degrees`` outside
        (0, 360), or regions that are not distinct mask names or do not fit the strategy.

    References
    ----------
    Liang et al., ColorBench, §3 (the colour robustness set).
    """

    FAMILY: ClassVar[str] = FAMILY

    scene: SceneSpec
    strategy: str
    degrees: float
    regions: tuple[str, ...] = ()
    space: str = "hsv"

    def __post_init__(self) -> None:
        if not isinstance(self.scene, SceneSpec):
            raise ValueError(f"scene must be a SceneSpec, got {type(self.scene).__name__}")
        check_choice("strategy", self.strategy, STRATEGIES)
        check_number("degrees", self.degrees, 0, 360, open=True, note=" (ColorBench: 90, 180, 270)")
        check_choice("space", self.space, HUE_SPACES)
        regions = (self.regions,) if isinstance(self.regions, str) else tuple(self.regions)
        allowed = {"background", *(f"region-{k}" for k in range(self.scene.n_regions))}
        bad = [r for r in regions if r not in allowed]
        if bad or len(set(regions)) != len(regions):
            raise ValueError(f"regions={regions!r} is not valid; allowed: distinct names among {sorted(allowed)}")
        if (self.strategy == "image") != (not regions):
            raise ValueError(
                f"strategy={self.strategy!r} with regions={regions!r} is not valid; allowed: no regions for "
                "'image', one or more for 'target' and 'largest'"
            )
        object.__setattr__(self, "regions", regions)

    @property
    def seed(self) -> int:
        """The scene's seed."""
        return self.scene.seed

    @property
    def size(self) -> int:
        """The scene's side, px."""
        return self.scene.size

    @property
    def name(self) -> str:
        """The variant's name, e.g. "target-90"."""
        return f"{self.strategy}-{self.degrees:g}"

    @classmethod
    def decode_fields(cls, data: dict) -> dict:
        """The nested scene's dict back to its `SceneSpec`, lists back to tuples.

        Parameters
        ----------
        data : dict
            Field names to their JSON values.

        Returns
        -------
        dict
            Field names to field values.
        """
        out = super().decode_fields(data)
        if "scene" in out:
            out["scene"] = SceneSpec.from_json(data["scene"])
        return out


def _rotate_colours(colours: list[list[int]], degrees: float, space: str) -> list[list[int]]:
    """sRGB 0-255 colours rotated exactly as `hue_shift` rotates pixels of those colours."""
    strip = Image.fromarray(np.array(colours, dtype=np.uint8)[None], "RGB")
    return np.asarray(hue_shift(strip, degrees, space))[0].astype(int).tolist()


def recolour(stimulus: Stimulus, regions: tuple[str, ...] | None, degrees: float, space: str = "hsv",
             *, spec: Any = None) -> Stimulus:
    """``stimulus`` (a rendered scene) with ``regions`` (mask names; None: the entire image) hue-rotated by
    ``degrees`` in ``space``; every other pixel unchanged. Truth recomputed (module docstring).

    Parameters
    ----------
    stimulus : Stimulus
        A rendered scene.
    regions : tuple of str or None
        Mask names ("background", "region-k"); None or empty: the entire image.
    degrees : float
        The hue rotation, degrees.
    space : str, optional
        ``"hsv"`` (ColorBench's, the default) or ``"cielab"``.
    spec : RecolourSpec, optional
        The spec the result carries (default: the scene's).

    Returns
    -------
    Stimulus
        The recoloured scene, sRGB 0-255, its truth recomputed.

    Raises
    ------
    ValueError
        When a region is not a mask of the scene.

    References
    ----------
    Liang et al., ColorBench, §3 (the colour robustness set: hue rotations of the image, the target and the
    largest other segment).
    """
    masks = stimulus.masks
    names = tuple(masks) if regions is None else tuple(regions)
    bad = [r for r in names if r not in masks]
    if bad:
        raise ValueError(f"regions {bad!r} are not masks of this scene; allowed: {', '.join(masks)}")
    truth = copy.deepcopy(dict(stimulus.truth))
    entries = [truth["background"] if r == "background" else truth["regions"][int(r.split("-")[1])] for r in names]
    before = [list(e["colour"]) for e in entries]
    after = _rotate_colours(before, degrees, space) if entries else []
    original = np.asarray(stimulus.image)
    if truth["shading"] == "flat":  # each region is one colour: paint the rotated colours into the masks
        pixels = original.copy()
        for r, new in zip(names, after):
            pixels[masks[r]] = new
    else:  # shaded regions hold many colours: rotate the image, keep the rotated pixels inside the masks
        rotated = np.asarray(hue_shift(stimulus.image, degrees, space))
        mask = np.zeros(original.shape[:2], dtype=bool)
        for r in names:
            mask |= masks[r]
        pixels = np.where(mask[..., None], rotated, original)
    palette = getattr(stimulus.spec, "palette", None)
    pal = get_scene_palette(palette) if palette is not None else None
    for entry, new in zip(entries, after):
        entry["colour"] = new
        entry["name"] = pal.name_of(new, NAME_TOLERANCE) if pal is not None else None
    summary = summarise(truth["regions"], truth["background"], truth["shading"])
    shown = [(b, a) for b, a, e in zip(before, after, entries) if e["share"] > 0]
    change = delta_e_lab(srgb255_to_lab([b for b, _ in shown]), srgb255_to_lab([a for _, a in shown])) if shown else [0.0]
    summary["recolour"] = {"regions": "image" if regions is None else list(names), "degrees": degrees, "space": space,
                           "min_change_delta_e": float(np.min(change)), "max_change_delta_e": float(np.max(change))}
    stats = {**stimulus.stats, "recolour": summary["recolour"]}
    return Stimulus(spec=stimulus.spec if spec is None else spec, image=Image.fromarray(pixels.astype(np.uint8), "RGB"),
                    masks=masks, truth=summary, stats=stats)


def render_variant(spec: RecolourSpec, base: Stimulus | None = None) -> Stimulus:
    """Render a `RecolourSpec` (``base``: the scene already rendered from ``spec.scene``, to save a render).

    Parameters
    ----------
    spec : RecolourSpec
        The variant.
    base : Stimulus or None, optional
        ``spec.scene`` already rendered.

    Returns
    -------
    Stimulus
        The recoloured scene.

    Raises
    ------
    ValueError
        When ``spec`` is not a `RecolourSpec`, or ``base`` was rendered from another scene spec.
    """
    if not isinstance(spec, RecolourSpec):
        raise ValueError(f"render_variant needs a RecolourSpec, got {type(spec).__name__}")
    if base is None:
        base = render(spec.scene)
    elif base.spec != spec.scene:
        raise ValueError("base was rendered from another scene spec than spec.scene")
    return recolour(base, None if spec.strategy == "image" else spec.regions, spec.degrees, spec.space, spec=spec)


def largest_other(stimulus: Stimulus, target: tuple[str, ...], *, include_background: bool = False) -> str:
    """The region with the most visible pixels that is not in ``target`` (objects only unless
    ``include_background``); ValueError when there is none.

    Parameters
    ----------
    stimulus : Stimulus
        A rendered scene.
    target : tuple of str
        The question's target regions.
    include_background : bool, optional
        Count the background as a region too.

    Returns
    -------
    str
        A mask name.

    Raises
    ------
    ValueError
        When no other region is visible.
    """
    truth = stimulus.truth
    candidates = [(r["share"], r["region"]) for r in truth["regions"] if r["region"] not in target and r["share"] > 0]
    if include_background and "background" not in target and truth["background"]["share"] > 0:
        candidates.append((truth["background"]["share"], "background"))
    if not candidates:
        raise ValueError(
            f"the scene has no visible region outside the target {list(target)}, so ColorBench's 'largest segment' "
            "variant does not exist; allowed: scenes with at least one object the question does not refer to"
        )
    return max(candidates, key=lambda c: (c[0], c[1] == "background"))[1]


def variant_specs(
    stimulus: Stimulus, target: tuple[str, ...], *, space: str = "hsv", include_background: bool = False
) -> tuple[RecolourSpec, ...]:
    """The nine `RecolourSpec` of ColorBench's robustness set for a rendered scene and a question's target
    regions, in `VARIANTS` order.

    Parameters
    ----------
    stimulus : Stimulus
        A rendered scene.
    target : tuple of str
        The question's target regions.
    space : str, optional
        ``"hsv"`` (ColorBench's, the default) or ``"cielab"``.
    include_background : bool, optional
        Let the background be the largest other region.

    Returns
    -------
    tuple of RecolourSpec
        Nine variants, in `VARIANTS` order.

    Raises
    ------
    ValueError
        When ``stimulus`` is not a rendered scene, the question has no target region, or no other region is
        visible.

    References
    ----------
    Liang et al., ColorBench, §3 (the colour robustness set).
    """
    if not isinstance(stimulus.spec, SceneSpec):
        raise ValueError(f"variant_specs needs a rendered scene (a SceneSpec stimulus), got {type(stimulus.spec).__name__}")
    target = tuple(target)
    if not target:
        raise ValueError("the question has no target region, so the 'target segment' variants do not exist; "
                         "allowed: a question that refers to one or more regions")
    other = largest_other(stimulus, target, include_background=include_background)
    chosen = {"image": (), "target": target, "largest": (other,)}
    return tuple(RecolourSpec(stimulus.spec, s, d, chosen[s], space) for s in STRATEGIES for d in DEGREES)
