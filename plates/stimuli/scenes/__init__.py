"""Synthetic colour scenes with exact truth (ColorBench-style; issue 14).

``render(SceneSpec(...))`` draws flat or softly shaded shapes on a background and returns a
`plates.stimuli.base.Stimulus` whose masks and truth (every region's colour, shape and visible share; distinct
colour counts; objects per colour) are exact. `plates.stimuli.scenes.recolour` makes ColorBench's robustness
variants (§2.3, App. C); `plates.tasks.colorbench` asks the questions. Colours: sRGB 0-255.

``FAMILY`` is the family's name ("scene", the tag in its spec JSON); ``SCENES`` and ``RECOLOURED_SCENES`` are
the `plates.stimuli.base.Family` entries for `plates.stimuli.STIMULI` (the second regenerates a robustness
variant from its `RecolourSpec`, family "scene-recolour").
"""

from plates.stimuli.base import Family
from plates.stimuli.scenes.palettes import SCENE_PALETTES, ScenePalette, get_scene_palette
from plates.stimuli.scenes.recolour import RecolourSpec, render_variant
from plates.stimuli.scenes.render import render
from plates.stimuli.scenes.shapes import SHAPES
from plates.stimuli.scenes.spec import FAMILY, SHADINGS, SceneSpec

__all__ = [
    "FAMILY", "RECOLOURED_SCENES", "SCENES", "SCENE_PALETTES", "SHADINGS", "SHAPES", "RecolourSpec", "ScenePalette",
    "SceneSpec", "get_scene_palette", "render", "render_variant",
]

SCENES = Family(
    name=FAMILY, spec_type=SceneSpec, render=render,
    source="ColorBench (Liang et al.) Table 7 synthetic tasks; shapes, palettes and truth are ours (issue 14)",
)
RECOLOURED_SCENES = Family(
    name=RecolourSpec.FAMILY, spec_type=RecolourSpec, render=render_variant,
    source="ColorBench §2.3, App. C: entire image / target / largest segment, hue 90/180/270° in HSV",
)
