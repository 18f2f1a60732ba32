"""Synthetic colour scenes with exact truth (ColorBench-style).

``render(SceneSpec(...))`` draws flat or softly shaded shapes on a background and returns a
`plates.stimuli.base.Stimulus` whose masks and truth (every region's colour, shape and visible share; distinct
colour counts; objects per colour) are exact. `plates.stimuli.scenes.recolour` makes ColorBench's robustness
variants (§2.3, App. C); `plates.tasks.scenes.colorbench` asks the questions. Colours: sRGB 0-255.

``FAMILY`` is the family's name ("scene", the tag in its spec JSON); ``SCENES`` and ``RECOLOURED_SCENES`` are
the `plates.stimuli.base.Family` entries for `plates.stimuli.STIMULI` (the second regenerates a robustness
variant from its `RecolourSpec`, family "scene-recolour").
"""

import json
from collections.abc import Mapping
from typing import Any

from plates.stimuli.base import Family, ManifestColumn, Stimulus
from plates.stimuli.scenes.palettes import SCENE_PALETTES, ScenePalette, get_scene_palette
from plates.stimuli.scenes.recolour import RecolourSpec, render_variant
from plates.stimuli.scenes.render import render
from plates.stimuli.scenes.shapes import SHAPES
from plates.stimuli.scenes.spec import FAMILY, SHADINGS, SceneSpec

__all__ = [
    "FAMILY", "MANIFEST_COLUMNS", "RECOLOURED_SCENES", "SCENES", "SCENE_PALETTES", "SHADINGS", "SHAPES",
    "RecolourSpec", "ScenePalette", "SceneSpec", "get_scene_palette", "manifest_row", "render", "render_variant",
]

#: A scene's manifest columns (after the common ones): the question the item was made for (ColorBench Table 7
#: tasks; App. F's option form).
MANIFEST_COLUMNS = (
    ManifestColumn("task", "string", "the question's task (plates.tasks.scenes.colorbench: ColorBench Table 7 names)"),
    ManifestColumn("answer", "string", "the correct option's letter"),
    ManifestColumn("answer_text", "string", "what the correct option says"),
    ManifestColumn("options", "string", "the options as JSON, letter -> text"),
)


def manifest_row(stimulus: Stimulus, *, label: str, group: str, question: Mapping[str, Any] | None) -> dict:
    """A scene's `MANIFEST_COLUMNS` values from the question it was made for (all null without one).

    Parameters
    ----------
    stimulus : Stimulus
        A rendered scene (unused: the question holds the columns).
    label, group : str
        The item's label and group (unused here).
    question : mapping or None
        The question the item was made for.

    Returns
    -------
    dict
        The family's manifest columns (`MANIFEST_COLUMNS`), each null without a question.
    """
    if question is None:
        return {}
    options = dict(question.get("options") or {})
    answer = question.get("answer")
    return {"task": question.get("task"), "answer": answer, "answer_text": options.get(answer),
            "options": json.dumps(options, ensure_ascii=False)}


SCENES = Family(
    name=FAMILY, spec_type=SceneSpec, render=render,
    source="ColorBench (Liang et al.) Table 7 synthetic tasks; shapes, palettes and truth are ours",
    manifest_columns=MANIFEST_COLUMNS, manifest_row=manifest_row,
)
RECOLOURED_SCENES = Family(
    name=RecolourSpec.FAMILY, spec_type=RecolourSpec, render=render_variant,
    source="ColorBench §2.3, App. C: entire image / target / largest segment, hue 90/180/270° in HSV",
    manifest_columns=MANIFEST_COLUMNS, manifest_row=manifest_row,
)
