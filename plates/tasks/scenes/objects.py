"""ColorBench's Object Recognition and Colour Mimicry, drawn procedurally with exact truth.

Liang et al., ColorBench, Table 7 and §2.1 ("Object Recognition evaluates the model's capability to identify
objects that match a specified color described in the text input"; "Color Mimicry challenges the model to
detect objects camouflaged within their surroundings, where color serves as a misleading factor"). The paper's
images are photographs of things and camouflaged animals; ours are shapes, named as the objects:

    =====================  ===========================================================  ===========
    task                   question                                                     wording
    =====================  ===========================================================  ===========
    object-recognition     What object has a color of {name} in this image?             colorbench
    colour-mimicry         How many shapes are hidden in this image?  (mode "count")    ours, after
                                                                                        "How many animals are
                                                                                        in this image?"
                           Which shape is hidden in this image?  (mode "which")         ours
    =====================  ===========================================================  ===========

Object Recognition needs a named palette (`plates.stimuli.scenes.palettes`) and a colour held by exactly one
visible object, whose shape no other visible object has; distractors are the other objects' shapes first,
then shapes absent from the scene. Colour Mimicry needs mottled shading (`plates.stimuli.scenes.draw`: one
CIELAB noise texture over background and objects, the objects' colour near the background's by the scene's
``min_delta_e``): "count" asks how many objects there are (every one at least half visible and apart),
"which" names the one object's shape among shapes of `plates.stimuli.scenes.shapes.SHAPES`.
"""

from __future__ import annotations

from types import MappingProxyType

from plates.stimuli.base import Stimulus
from plates.stimuli.scenes.shapes import SHAPES
from plates.tasks.scenes import common as sc
from plates.tasks.scenes.common import NotAskable, SceneQuestion

__all__ = ["MIMICRY_MODES", "OBJECT_TASKS", "object_recognition", "colour_mimicry", "solve"]

MIMICRY_MODES = ("count", "which")


def _of_colour(truth, name: str) -> list[dict]:
    return [r for r in sc.visible(truth) if r["name"] == name]


def solve(q: SceneQuestion, stimulus: Stimulus) -> str | None:
    """The correct option text of an Object Recognition or Colour Mimicry question on ``stimulus`` (its
    truth), or None when the scene no longer carries one answer.

    Parameters
    ----------
    q : plates.tasks.scenes.common.SceneQuestion
        An "object-recognition" or "colour-mimicry" question.
    stimulus : plates.stimuli.base.Stimulus
        The rendered scene (or a recoloured variant).

    Returns
    -------
    str or None
        The answer's option text (a shape name, or a count as digits), or None.

    Raises
    ------
    ValueError
        A question of another task.
    """
    t, p = stimulus.truth, q.params
    if q.task == "object-recognition":
        mine = _of_colour(t, p["colour"])
        return mine[0]["shape"] if len(mine) == 1 else None
    if q.task == "colour-mimicry":
        vis = sc.visible(t)
        if p["mode"] == "count":
            return str(len(vis))
        return vis[0]["shape"] if len(vis) == 1 else None
    raise ValueError(f"task {q.task!r} is not known here; allowed: {', '.join(OBJECT_TASKS)}")


def _finish(task, text, options, target, params, wording, stimulus, answer_kind) -> SceneQuestion:
    return sc.finish(task, text, options, target, params, wording, stimulus, answer_kind=answer_kind, solve=solve)


def _other_shapes(truth, answer: str, n: int, rng) -> list[str]:
    """n shapes other than ``answer``: the scene's other shapes first (seeded order), then absent ones."""
    present = sorted({r["shape"] for r in sc.visible(truth)} - {answer})
    absent = [s for s in SHAPES if s != answer and s not in present]
    out = [present[i] for i in rng.permutation(len(present))] + [absent[i] for i in rng.permutation(len(absent))]
    return out[:n]


def object_recognition(stim, rng, n, *, colour: str | None = None):
    """"What object has a color of {name} in this image?" (ColorBench Table 7 verbatim); options: shapes.

    Parameters
    ----------
    stim : plates.stimuli.base.Stimulus
        A rendered scene with a named palette.
    rng : numpy.random.Generator
        Draws the target and the option order.
    n : int
        Options wanted, 3-6.
    colour : str or None, optional
        The colour name asked about; None picks one that can be asked.

    Returns
    -------
    plates.tasks.scenes.common.SceneQuestion

    Raises
    ------
    NotAskable
        No named colour is held by exactly one clearly seen object whose shape no other object has.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.1 and Table 7.
    """
    named = sc.named_colours(stim, "object-recognition")
    unique = {r["region"] for r in sc.unique_shapes(stim.truth)}
    ok = [c["name"] for c in named
          if (colour is None or c["name"] == colour) and len(mine := _of_colour(stim.truth, c["name"])) == 1
          and mine[0]["region"] in unique]
    if not ok:
        raise NotAskable("object-recognition needs a named colour held by exactly one clearly seen object whose "
                         "shape no other object has")
    name = ok[int(rng.integers(len(ok)))]
    obj = _of_colour(stim.truth, name)[0]
    options = sc.arrange(obj["shape"], _other_shapes(stim.truth, obj["shape"], n - 1, rng), rng)
    return _finish("object-recognition", f"What object has a color of {name} in this image?", options,
                   (obj["region"],), {"colour": name}, "colorbench", stim, "choice")


def colour_mimicry(stim, rng, n, *, mode: str = "count"):
    """Camouflaged shapes on a mottled scene: how many ("count") or which ("which").

    Parameters
    ----------
    stim : plates.stimuli.base.Stimulus
        A rendered scene with mottled shading.
    rng : numpy.random.Generator
        Draws the target and the option order.
    n : int
        Options wanted, 3-6.
    mode : str, optional
        One of `MIMICRY_MODES`: "count" (answer kind "count") or "which" (a shape, answer kind "choice").

    Returns
    -------
    plates.tasks.scenes.common.SceneQuestion

    Raises
    ------
    NotAskable
        No mottled shading, a hidden object less than half visible, or ("which") not exactly one object.
    ValueError
        An unknown ``mode``.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.1 and Table 7 (wording ours, after "How many animals are in this image?").
    """
    if mode not in MIMICRY_MODES:
        raise ValueError(f"mode={mode!r} is not valid; allowed: {', '.join(MIMICRY_MODES)}")
    if stim.truth["shading"] != "mottled":
        raise NotAskable("colour-mimicry needs camouflage; allowed: SceneSpec(shading='mottled')")
    vis = sc.visible(stim.truth)
    if not vis or not sc.clear(vis):
        raise NotAskable("colour-mimicry needs every hidden object at least half visible")
    params = {"mode": mode, "min_delta_e": stim.truth["min_delta_e"]}
    target = [r["region"] for r in vis]
    if mode == "count":
        return _finish("colour-mimicry", "How many shapes are hidden in this image?", sc.window(len(vis), n, 1, rng),
                       target, params, "ours", stim, "count")
    if len(vis) != 1:
        raise NotAskable("colour-mimicry 'which' needs exactly one hidden object")
    options = sc.arrange(vis[0]["shape"], _other_shapes(stim.truth, vis[0]["shape"], n - 1, rng), rng)
    return _finish("colour-mimicry", "Which shape is hidden in this image?", options, target, params, "ours",
                   stim, "choice")


#: Task name -> builder(stimulus, rng, n_options, **params), as in `plates.tasks.scenes.colorbench.SCENE_BUILDERS`.
OBJECT_TASKS = MappingProxyType({"object-recognition": object_recognition, "colour-mimicry": colour_mimicry})
