"""Synthetic colour scenes with exact truth (ColorBench-style; issue 14).

``render(SceneSpec(...))`` draws flat or softly shaded shapes on a background and returns a
`plates.stimuli.base.Stimulus` whose masks and truth (every region's colour, shape and visible share; distinct
colour counts; objects per colour) are exact. `plates.stimuli.scenes.recolour` makes ColorBench's robustness
variants (§2.3, App. C); `plates.tasks.colorbench` asks the questions. Colours: sRGB 0-255.
"""

from plates.stimuli.scenes.palettes import SCENE_PALETTES, ScenePalette, get_scene_palette
from plates.stimuli.scenes.render import render
from plates.stimuli.scenes.shapes import SHAPES
from plates.stimuli.scenes.spec import FAMILY, SHADINGS, SceneSpec

__all__ = ["FAMILY", "SCENE_PALETTES", "SHADINGS", "SHAPES", "ScenePalette", "SceneSpec", "get_scene_palette", "render"]
