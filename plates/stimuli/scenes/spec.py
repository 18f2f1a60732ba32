"""SceneSpec: everything that decides a synthetic colour scene's pixels (ColorBench-style).

A scene is flat (or softly shaded) shapes on a background, every region's mask and colour known, for the
ColorBench tasks that can be drawn with exact truth (Liang et al., ColorBench, Table 7: Colour Extraction,
Proportion, Counting, Object Counting, Comparison, Recognition; §2.3 / App. C robustness). The difficulty
parameters are the issue's: number of objects and colours, minimum CIEDE2000 between distinct colours, area
ratio, clutter, size. Colours: sRGB 0-255 (hex strings accepted, stored as tuples).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from plates import colour as C
from plates.stimuli.base import SpecBase
from plates.stimuli.scenes.colours import MAX_COLOURS, SPACINGS, farthest_point_bound, palette_subsets
from plates.stimuli.scenes.palettes import SCENE_PALETTES, get_scene_palette
from plates.stimuli.scenes.shapes import SHAPES
from plates.validation import check_choice, check_number

__all__ = ["FAMILY", "MAX_REGIONS", "SHADINGS", "SIZES", "SceneSpec"]

FAMILY = "scene"
SHADINGS = ("flat", "soft", "mottled")
MAX_REGIONS = 64
#: The image sizes (px, side, inclusive) a scene may be drawn at.
SIZES = (64, 4096)



@dataclass(frozen=True)
class SceneSpec(SpecBase):
    """A synthetic colour scene. Validated on construction (ValueError naming the bad value and what is allowed).

    Every field, its unit and its range are described on the documentation's scenes page
    (docs/scenes.md, "The fields of a SceneSpec").

    Parameters
    ----------
    seed : int, optional
        0 <= seed < 2**63; numpy PCG64 streams from ``SeedSequence(seed)``.
    size : int, optional
        Image width = height, px (64-4096).
    n_regions : int, optional
        Number of objects, 0-64 (0: the background alone).
    n_colours : int, optional
        Distinct object colours, 1..n_regions (at most 32; 0 iff n_regions is 0).
    min_delta_e : float, optional
        Least CIEDE2000 between any two distinct colours of the scene, background included (0.5-100).
    spacing : str, optional
        "spread" or "tight" (colours crowd near ``min_delta_e``); ignored with a palette.
    area_ratio : float, optional
        Largest / smallest object area before occlusion (1-100).
    fill : float, optional
        Total object area / image area before occlusion (0.01-0.6).
    clutter : float, optional
        0-1: how far differently coloured objects may overlap (0: never touch).
    shapes : str or sequence of str, optional
        Names of `plates.stimuli.scenes.shapes.SHAPES`, each at most once.
    shading : str, optional
        "flat", "soft" or "mottled" (camouflage).
    background : colour or None, optional
        sRGB 0-255 (or hex), or None for one drawn with the object colours.
    palette : str or None, optional
        A name of `SCENE_PALETTES` (named colours), or None for colours drawn from all of sRGB.

    Raises
    ------
    ValueError
        A value out of its range, or a ``min_delta_e`` no set of that many colours can reach, naming it and what
        is allowed.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.1 and Table 7.
    """

    FAMILY: ClassVar[str] = FAMILY

    seed: int = 0
    size: int = 512
    n_regions: int = 6
    n_colours: int = 4
    min_delta_e: float = 20.0
    spacing: str = "spread"
    area_ratio: float = 1.0
    fill: float = 0.3
    clutter: float = 0.0
    shapes: tuple[str, ...] = ("circle", "square", "triangle", "star")
    shading: str = "flat"
    background: C.RGB | None = (255, 255, 255)
    palette: str | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        check_number("seed", self.seed, 0, 2**63 - 1, integer=True)
        check_number("size", self.size, *SIZES, integer=True)
        check_number("n_regions", self.n_regions, 0, MAX_REGIONS, integer=True)
        check_number("n_colours", self.n_colours, 0, MAX_COLOURS, integer=True)
        if self.n_regions == 0 and self.n_colours != 0:
            raise ValueError(f"n_colours={self.n_colours} is not valid with n_regions=0; allowed: 0")
        if self.n_regions > 0 and not 1 <= self.n_colours <= self.n_regions:
            raise ValueError(
                f"n_colours={self.n_colours} is not valid with n_regions={self.n_regions}; allowed: 1 to "
                f"{min(self.n_regions, MAX_COLOURS)} (every colour is used by at least one object)"
            )
        s(self, "min_delta_e", check_number("min_delta_e", self.min_delta_e, 0.5, 100.0))
        check_choice("spacing", self.spacing, SPACINGS)
        s(self, "area_ratio", check_number("area_ratio", self.area_ratio, 1.0, 100.0))
        s(self, "fill", check_number("fill", self.fill, 0.01, 0.6))
        s(self, "clutter", check_number("clutter", self.clutter, 0.0, 1.0))
        shapes = (self.shapes,) if isinstance(self.shapes, str) else self.shapes
        if not isinstance(shapes, tuple | list) or not shapes:
            raise ValueError(f"shapes={self.shapes!r} is not valid; allowed: one or more of {', '.join(SHAPES)}")
        bad = [x for x in shapes if x not in SHAPES]
        if bad:
            raise ValueError(f"shapes {bad!r} are not known; allowed: {', '.join(SHAPES)}")
        if len(set(shapes)) != len(shapes):
            raise ValueError(f"shapes={tuple(shapes)!r} repeats a shape; allowed: each shape at most once")
        s(self, "shapes", tuple(shapes))
        check_choice("shading", self.shading, SHADINGS)
        if self.background is not None:
            s(self, "background", C.parse_colour(self.background))
        if self.palette is not None:
            get_scene_palette(self.palette)  # raises, listing the names
        self._check_feasible()

    def _check_feasible(self) -> None:
        """Refuse a min_delta_e that no set of n_colours (+ a drawn background) colours can satisfy."""
        drawn = self.n_colours + (self.background is None)
        if drawn == 0 or (drawn == 1 and self.background is None):
            return
        where = "the drawn background" if self.background is None else f"background {self.background}"
        if self.palette is not None:
            pal = SCENE_PALETTES[self.palette]
            if drawn > len(pal.colours):
                raise ValueError(
                    f"n_colours={self.n_colours} is larger than palette {self.palette!r} allows ({len(pal.colours)} "
                    f"colours{', one of them the background' if self.background is None else ''}); allowed: "
                    f"n_colours <= {len(pal.colours) - (self.background is None)}"
                )
            if palette_subsets(self.palette, self.background, self.min_delta_e, drawn):
                return
            most = max((k for k in range(1, drawn) if palette_subsets(self.palette, self.background,
                                                                      self.min_delta_e, k)), default=0)
            raise ValueError(
                f"palette {self.palette!r} has no {self.n_colours} colours at CIEDE2000 >= {self.min_delta_e:g} "
                f"apart and from {where}; allowed: n_colours <= {most - (self.background is None)} at this "
                f"min_delta_e, or a smaller min_delta_e (the palette's own minimum is {pal.min_delta_e:g})"
            )
        _, bound = farthest_point_bound(self.background)
        if self.min_delta_e > bound[self.n_colours]:
            raise ValueError(
                f"min_delta_e={self.min_delta_e:g} is not reachable by {self.n_colours} colours on {where} within "
                f"sRGB; allowed: min_delta_e <= {math.floor(bound[self.n_colours] * 10) / 10:g} for "
                f"{self.n_colours} colours (greedy farthest-point bound over a 16-level sRGB grid)"
            )

