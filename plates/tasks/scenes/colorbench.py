"""ColorBench's multiple-choice questions over synthetic scenes, with answers from the scene's exact truth.

Liang et al., ColorBench (Table 7; App. F prompts; §2.3 / App. C robustness). Every question is multiple choice
with 3-6 lettered options (§2.1: "multiple-choice (3 to 6) options, with only one correct answer"); options are
distinct and the correct one appears exactly once. Wording is ColorBench's Table 7 sample question where one
fits ("colorbench") and ours otherwise ("ours"), recorded in ``SceneQuestion.wording``:

    =====================  ===========================================================  ===========
    task                   question                                                     wording
    =====================  ===========================================================  ===========
    colour-extraction      What is the {RGB|HSV|HEX} value of the given color in the    colorbench
                           image?  (single-colour image, ``n_regions=0``)
                           ... value of the color of the {shape} in the image?          ours
    colour-proportion      What is the closest to the proportion of the {name} color    colorbench
                           in the image?
    colour-counting        How many different colors are in this image?                 colorbench
                           How many different colors do the shapes in this image have?  ours
    object-counting        How many objects with {name} color are in this image?        colorbench
    colour-comparison      Which object has a darker color in the image?                colorbench
                           Which object has a lighter / warmer / cooler / more          ours
                           saturated / less saturated color in the image?
    colour-recognition     What is the color of object in this image? (one object)      colorbench
                           What is the color of the {shape} in this image?              ours
                           What color does not exist in this image?                     colorbench
                           What color exists in this image?                             ours
    shape-counting         How many {shape}s are in this image?                         ours
    object-recognition,    `plates.tasks.scenes.objects`
    colour-mimicry
    =====================  ===========================================================  ===========

`FORMS` lists every form of each task (extraction in RGB, HSV and HEX; comparison by each criterion; recognition
naming, present and absent; counting with and without the background; mimicry count and which), so a preset
can draw them in balance. Counting questions need every two of the scene's colours at least
`COUNT_MIN_DELTA_E` = 10 CIEDE2000 apart (stated in the question's ``params``, so in the manifest), so no count
hangs on whether two near colours are "different".

``shape-counting`` is not a ColorBench task: it is the colour-invariant question for the robustness set
(ColorBench App. C chooses "questions that are color-invariant"); a hue rotation leaves its answer unchanged.
For every other task `expected_for` recomputes the answer on a recoloured variant.

Definitions (ours; ColorBench gives none): *darker* = lower CIELAB ``L*``; *more saturated* = higher CIELAB chroma
``C*ab = sqrt(a*² + b*²)``; *warmer* = higher ``C*ab · cos(h_ab − 50°)``, the colour's projection on the orange
direction of the ``a*b*`` plane (h_ab 50°, between red ~40° and yellow ~100°; cool blues near 230° score lowest,
greys 0); *lighter*, *cooler* and *less saturated* are the same scores negated. CIELAB D65 / 2° of the region's
unshaded colour. The answer must lead the runner-up by ``margin``.

Distractors: counts are a window of consecutive integers containing the answer at a random place; proportions
are the answer's whole percent ± multiples of ``step`` percentage points; colour codes lie at ``delta_e``
CIEDE2000 from the answer (`plates.tasks.scenes.colour_values`); names come from the scene's palette. Seeded: the same
stimulus, task, seed and parameters give the same question.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from plates.colour import srgb255_to_lab
from plates.stimuli.base import Stimulus
from plates.stimuli.scenes.palettes import get_scene_palette
from plates.stimuli.scenes.recolour import render_variant, variant_specs
from plates.stimuli.scenes.shapes import plural
from plates.tasks.prompts import COLORBENCH_COT_INSTRUCTION, COLORBENCH_INSTRUCTION
from plates.tasks.scenes import common as sc
from plates.tasks.scenes.colour_values import CODE_FORMATS, CODE_NAMES, distractor_colours, format_code
from plates.tasks.scenes.common import LETTERS, NotAskable, SceneQuestion
from plates.tasks.scenes.objects import MIMICRY_MODES, OBJECT_TASKS
from plates.tasks.scenes.objects import solve as solve_objects
from plates.validation import check_choice, check_int, check_number, not_known

__all__ = [
    "ANSWER_KIND",
    "COUNT_MIN_DELTA_E",
    "CRITERIA",
    "FORMS",
    "RECOGNITION_MODES",
    "PAPER_NAMES",
    "SCENE_BUILDERS",
    "NotAskable",
    "SceneQuestion",
    "RobustnessItem",
    "build_question",
    "expected_for",
    "prompt_text",
    "robustness_items",
]

CRITERIA = ("darker", "lighter", "warmer", "cooler", "more saturated", "less saturated")
_MARGIN = MappingProxyType({"darker": 10.0, "lighter": 10.0, "warmer": 15.0, "cooler": 15.0,
                            "more saturated": 15.0, "less saturated": 15.0})
#: The least CIEDE2000 between any two colours of a scene a counting question is asked about.
COUNT_MIN_DELTA_E = 10.0
RECOGNITION_MODES = ("name", "present", "absent")
_WARM_HUE = 50.0

#: Our task name -> ColorBench's (Table 7); "shape-counting" is ours (the robustness question).
PAPER_NAMES = MappingProxyType({
    "colour-extraction": "Color Extraction", "colour-proportion": "Color Proportion",
    "colour-counting": "Color Counting", "object-counting": "Object Counting",
    "colour-comparison": "Color Comparison", "colour-recognition": "Color Recognition",
    "shape-counting": "Shape Counting (ours; colour-invariant, for Color Robustness)",
    "object-recognition": "Object Recognition", "colour-mimicry": "Color Mimicry",
})


#: Task -> what its correct option is (`plates.tasks.base.ANSWER_KINDS`); every one is asked as options ("mc").
ANSWER_KIND = MappingProxyType({
    "colour-extraction": "colour", "colour-proportion": "proportion", "colour-counting": "count",
    "object-counting": "count", "colour-comparison": "choice", "colour-recognition": "choice",
    "shape-counting": "count", "object-recognition": "choice", "colour-mimicry": "count",
})


def prompt_text(question: SceneQuestion, *, cot: bool = False) -> str:
    """ColorBench App. F instruction (or its CoT instruction), then the question and its options in the form
    of ColorBench's released data: "... Select from the following choices. (A) x (B) y".

    Parameters
    ----------
    question : plates.tasks.scenes.common.SceneQuestion
        The question and its lettered options.
    cot : bool, optional
        Use the chain-of-thought instruction instead of the direct one.

    Returns
    -------
    str
        The prompt: instruction, a newline, the question and its options.

    References
    ----------
    Liang et al. 2025 (ColorBench), App. F.
    """
    instruction = COLORBENCH_COT_INSTRUCTION if cot else COLORBENCH_INSTRUCTION
    options = " ".join(f"({k}) {v}" for k, v in question.options.items())
    return f"{instruction}\n{question.text} Select from the following choices. {options}"


# --- helpers ---------------------------------------------------------------------------------------------------

def _n_options(n: Any) -> int:
    check_int("n_options", n, 3, 6)  # ColorBench §2.1: 3 to 6 options
    return n


def _score(criterion: str, rgb) -> float:
    """How strongly a colour (sRGB 0-255) meets ``criterion`` (module docstring): higher wins."""
    L, a, b = srgb255_to_lab(np.asarray(rgb, dtype=np.float64))
    if criterion in ("darker", "lighter"):
        value = float(-L)
    elif criterion in ("more saturated", "less saturated"):
        value = float(math.hypot(a, b))
    else:
        value = float(math.hypot(a, b) * math.cos(math.atan2(b, a) - math.radians(_WARM_HUE)))
    return -value if criterion in ("lighter", "cooler", "less saturated") else value



# --- solvers: the correct option text from a (possibly recoloured) scene's truth, or None -----------------------

def _solve(q: SceneQuestion, stimulus: Stimulus) -> str | None:
    if q.task in OBJECT_TASKS:
        return solve_objects(q, stimulus)
    t, p = stimulus.truth, q.params
    if q.task == "colour-extraction":
        return format_code(sc.region(t, p["region"])["colour"], p["format"])
    if q.task == "colour-proportion":
        share = 100 * sum(c["share"] for c in t["colours"] if c["name"] == p["colour"])
        values = {int(v.rstrip("%")): v for v in q.options.values()}
        best = min(values, key=lambda v: abs(v - share))
        return values[best] if abs(best - share) < p["step"] / 2 - 0.5 else None
    if q.task == "colour-counting":
        return str(t["distinct_colours"] if p["include_background"] else t["object_colours"])
    if q.task == "object-counting":
        return str(sum(1 for r in sc.visible(t) if r["name"] == p["colour"]))
    if q.task == "shape-counting":
        return str(sum(1 for r in sc.visible(t) if r["shape"] == p["shape"]))
    if q.task == "colour-comparison":
        scores = sorted(((_score(p["criterion"], sc.region(t, r)["colour"]), sc.region(t, r)["shape"])
                         for r in p["regions"]), reverse=True)
        return scores[0][1] if scores[0][0] - scores[1][0] >= 1.0 else None
    if q.task == "colour-recognition":
        if p["mode"] == "name":
            return sc.region(t, p["region"])["name"]
        present = {r["name"] for r in sc.visible(t)} | ({t["background"]["name"]} if t["background"]["share"] > 0 else set())
        pick = [v for v in q.options.values() if (v in present) == (p["mode"] == "present")]
        return pick[0] if len(pick) == 1 else None
    raise not_known("task", q.task, SCENE_BUILDERS)


def expected_for(question: SceneQuestion, stimulus: Stimulus) -> str | None:
    """The correct letter of ``question`` on ``stimulus`` (the scene it was built on, or a recoloured variant),
    from the stimulus's truth; None when no option is correct there (or the answer became ambiguous).

    Parameters
    ----------
    question : plates.tasks.scenes.common.SceneQuestion
        The question, with its options and parameters.
    stimulus : plates.stimuli.base.Stimulus
        A rendered scene (or a recoloured variant) whose truth answers it.

    Returns
    -------
    str or None
        The one option letter whose text is the answer, or None.
    """
    text = _solve(question, stimulus)
    letters = [k for k, v in question.options.items() if v == text]
    return letters[0] if len(letters) == 1 else None


def _finish(task: str, text: str, options: dict[str, str], target, params: dict, wording: str,
            stimulus: Stimulus) -> SceneQuestion:
    return sc.finish(task, text, options, target, params, wording, stimulus, answer_kind=ANSWER_KIND[task],
                     solve=_solve)


# --- builders ----------------------------------------------------------------------------------------------------

def _extraction(stim, rng, n, *, format: str = "rgb", delta_e: float = 10.0, region: str | None = None):
    check_choice("format", format, CODE_FORMATS)
    check_number("delta_e", delta_e, 0.5, 60)  # CIEDE2000
    sc.flat(stim, "colour-extraction")
    t = stim.truth
    if region is None:
        if not t["regions"]:
            region = "background"
        else:
            choices = sc.unique_shapes(t)
            if not choices:
                raise NotAskable("colour-extraction needs an object with a shape no other object has")
            region = choices[int(rng.integers(len(choices)))]["region"]
    colour = sc.region(t, region)["colour"]
    try:
        distract = [format_code(c, format) for c in distractor_colours(colour, delta_e, n - 1, rng, fmt=format)]
    except ValueError as exc:  # the colour sits where sRGB ends: too few directions reach delta_e
        raise NotAskable(f"colour-extraction: {exc}") from None
    options = sc.arrange(format_code(colour, format), distract, rng)
    name = CODE_NAMES[format]
    if region == "background":
        if t["regions"]:
            raise NotAskable("the background's colour is 'the given color' only in a single-colour image")
        text, wording = f"What is the {name} value of the given color in the image?", "colorbench"
    else:
        shape = sc.region(t, region)["shape"]
        text, wording = f"What is the {name} value of the color of the {shape} in the image?", "ours"
    params = {"format": format, "delta_e": float(delta_e), "region": region}
    return _finish("colour-extraction", text, options, (region,), params, wording, stim)


def _proportion(stim, rng, n, *, step: int = 10, colour: str | None = None):
    check_int("step", step, 2, 30)  # percentage points
    named = sc.named_colours(stim, "colour-proportion")
    if colour is not None:
        named = [c for c in named if c["name"] == colour]
        if not named:
            raise NotAskable(f"colour {colour!r} is not a visible named colour of this scene")
    if not named:
        raise NotAskable("colour-proportion found no visible named colour")
    entry = named[int(rng.integers(len(named)))]
    p = round(100 * entry["share"])
    pos_hi = min(n - 1, p // step)
    pos_lo = max(0, n - 1 - (100 - p) // step)
    if pos_lo > pos_hi:
        raise ValueError(f"{n} options {step} points apart do not fit in 0-100%; allowed: a smaller step or n_options")
    pos = int(rng.integers(pos_lo, pos_hi + 1))
    options = {LETTERS[i]: f"{p + (i - pos) * step}%" for i in range(n)}
    target = [r["region"] for r in stim.truth["regions"] if r["name"] == entry["name"]]
    params = {"colour": entry["name"], "step": step, "share": entry["share"]}
    text = f"What is the closest to the proportion of the {entry['name']} color in the image?"
    return _finish("colour-proportion", text, options, target, params, "colorbench", stim)


def _colour_counting(stim, rng, n, *, include_background: bool = True):
    sc.flat(stim, "colour-counting")
    t = stim.truth
    _far_apart(t, "colour-counting")
    count = t["distinct_colours"] if include_background else t["object_colours"]
    text, wording = ("How many different colors are in this image?", "colorbench") if include_background else (
        "How many different colors do the shapes in this image have?", "ours")
    params = {"include_background": bool(include_background), "min_delta_e": t["min_delta_e"],
              "min_delta_e_floor": COUNT_MIN_DELTA_E}
    return _finish("colour-counting", text, sc.window(count, n, 1, rng), (), params, wording, stim)


def _far_apart(truth, task: str) -> None:
    """`NotAskable` when two of the scene's colours lie under `COUNT_MIN_DELTA_E` apart: a count of colours
    (or of the objects of one colour) would hang on whether they are "different"."""
    if truth["min_delta_e"] is not None and truth["min_delta_e"] < COUNT_MIN_DELTA_E:
        raise NotAskable(f"{task}: two colours lie {truth['min_delta_e']:.1f} CIEDE2000 apart; allowed: scenes "
                         f"whose colours are all >= {COUNT_MIN_DELTA_E:g} apart (SceneSpec.min_delta_e)")


def _separate(stim, regions: list[dict]) -> bool:
    """True when the regions' visible pixels form exactly len(regions) connected blobs (8-connectivity)."""
    mask = np.zeros(stim.image.size[::-1], dtype=bool)
    for r in regions:
        mask |= stim.masks[r["region"]]
    from scipy import ndimage  # lazy: ~0.3 s of CPU that only asking about a scene needs

    return ndimage.label(mask, structure=np.ones((3, 3)))[1] == len(regions)


def _object_counting(stim, rng, n, *, colour: str | None = None):
    named = sc.named_colours(stim, "object-counting")
    _far_apart(stim.truth, "object-counting")
    vis = sc.visible(stim.truth)
    ok = []
    for c in named:
        if colour is not None and c["name"] != colour:
            continue
        mine = [r for r in vis if r["name"] == c["name"]]
        if sc.clear(mine) and _separate(stim, mine):
            ok.append((c["name"], mine))
    if not ok:
        raise NotAskable("object-counting found no colour whose objects are all clearly visible and apart")
    name, mine = ok[int(rng.integers(len(ok)))]
    text = f"How many objects with {name} color are in this image?"
    return _finish("object-counting", text, sc.window(len(mine), n, 0, rng), [r["region"] for r in mine],
                   {"colour": name, "clutter": stim.spec.clutter, "min_delta_e": stim.truth["min_delta_e"],
                    "min_delta_e_floor": COUNT_MIN_DELTA_E}, "colorbench", stim)


def _shape_counting(stim, rng, n, *, shape: str | None = None):
    vis = sc.visible(stim.truth)
    shapes = sorted({r["shape"] for r in vis} if shape is None else {shape})
    ok = [(s, [r for r in vis if r["shape"] == s]) for s in shapes]
    ok = [(s, mine) for s, mine in ok if mine and sc.clear(mine)]
    if not ok:
        raise NotAskable("shape-counting found no shape whose objects are all clearly visible")
    s, mine = ok[int(rng.integers(len(ok)))]
    return _finish("shape-counting", f"How many {plural(s)} are in this image?", sc.window(len(mine), n, 0, rng),
                   [r["region"] for r in mine], {"shape": s}, "ours", stim)


def _comparison(stim, rng, n, *, criterion: str = "darker", margin: float | None = None):
    check_choice("criterion", criterion, CRITERIA)
    margin = _MARGIN[criterion] if margin is None else margin
    check_number("margin", margin, 1.0, 100)
    pool = sc.unique_shapes(stim.truth)
    if len(pool) < n:
        raise NotAskable(f"colour-comparison needs {n} objects of distinct shapes; the scene shows {len(pool)}")
    score_of = {r["region"]: _score(criterion, r["colour"]) for r in pool}  # once per object, not per draw
    for _ in range(64):
        pick = [pool[i] for i in rng.choice(len(pool), n, replace=False)]
        scores = sorted((score_of[r["region"]] for r in pick), reverse=True)
        if scores[0] - scores[1] >= margin:
            break
    else:
        raise NotAskable(f"no {n} objects of this scene differ by a '{criterion}' margin of {margin:g}")
    options = {LETTERS[i]: r["shape"] for i, r in enumerate(pick)}
    wording = "colorbench" if criterion == "darker" else "ours"
    params = {"criterion": criterion, "margin": float(margin), "regions": [r["region"] for r in pick],
              "lead": scores[0] - scores[1]}
    return _finish("colour-comparison", f"Which object has a {criterion} color in the image?", options,
                   params["regions"], params, wording, stim)


def _recognition(stim, rng, n, *, mode: str = "name"):
    if mode not in RECOGNITION_MODES:
        raise ValueError(f"mode={mode!r} is not valid; allowed: {', '.join(RECOGNITION_MODES)}")
    sc.named_colours(stim, "colour-recognition")
    t = stim.truth
    pal = list(get_scene_palette(stim.spec.palette).colours)
    if mode in ("absent", "present"):
        present = sorted({r["name"] for r in sc.visible(t)} | ({t["background"]["name"]} - {None}), key=pal.index)
        absent = [k for k in pal if k not in present]
        right, wrong = (absent, present) if mode == "absent" else (present, absent)
        if len(wrong) < n - 1 or not right:
            raise NotAskable(f"'{mode}' needs one palette colour {mode} and {n - 1} the other way")
        shown = [wrong[i] for i in rng.choice(len(wrong), n - 1, replace=False)]
        options = sc.arrange(right[int(rng.integers(len(right)))], shown, rng)
        text, wording = (("What color does not exist in this image?", "colorbench") if mode == "absent"
                         else ("What color exists in this image?", "ours"))
        return _finish("colour-recognition", text, options, (), {"mode": mode}, wording, stim)
    vis = sc.visible(t)
    pool = vis if len(vis) == 1 else sc.unique_shapes(t)
    pool = [r for r in pool if r["name"] is not None]
    if not pool:
        raise NotAskable("colour-recognition needs a named object with a shape no other object has")
    reg = pool[int(rng.integers(len(pool)))]
    others = [k for k in pal if k != reg["name"]]
    distract = [others[i] for i in rng.choice(len(others), n - 1, replace=False)]
    if len(vis) == 1:
        text, wording = "What is the color of object in this image?", "colorbench"
    else:
        text, wording = f"What is the color of the {reg['shape']} in this image?", "ours"
    return _finish("colour-recognition", text, sc.arrange(reg["name"], distract, rng), (reg["region"],),
                   {"mode": mode, "region": reg["region"]}, wording, stim)


#: Task name -> builder(stimulus, rng, n_options, **params) -> SceneQuestion. Read-only.
SCENE_BUILDERS: Mapping[str, Callable[..., SceneQuestion]] = MappingProxyType({
    "colour-extraction": _extraction, "colour-proportion": _proportion, "colour-counting": _colour_counting,
    "object-counting": _object_counting, "colour-comparison": _comparison, "colour-recognition": _recognition,
    "shape-counting": _shape_counting, **OBJECT_TASKS,
})

#: Task name -> every form it is asked in (the builder's parameters per form), ColorBench §2.1 and Table 7.
FORMS: Mapping[str, tuple[Mapping[str, Any], ...]] = MappingProxyType({
    "colour-extraction": tuple({"format": f} for f in CODE_FORMATS),
    "colour-proportion": ({},),
    "colour-counting": ({"include_background": True}, {"include_background": False}),
    "object-counting": ({},),
    "colour-comparison": tuple({"criterion": c} for c in CRITERIA),
    "colour-recognition": tuple({"mode": m} for m in RECOGNITION_MODES),
    "shape-counting": ({},),
    "object-recognition": ({},),
    "colour-mimicry": tuple({"mode": m} for m in MIMICRY_MODES),
})


def build_question(task: str, stimulus: Stimulus, *, seed: int = 0, n_options: int = 4, **params: Any) -> SceneQuestion:
    """A seeded ``task`` question about a rendered scene. ``params`` are the task's own (module docstring):
    extraction ``format`` ("rgb"/"hsv"/"hex"), ``delta_e``, ``region``; proportion ``step``, ``colour``;
    colour counting ``include_background``; object counting ``colour``; comparison ``criterion``, ``margin``;
    recognition ``mode`` ("name"/"present"/"absent"); shape counting ``shape``; object recognition ``colour``;
    colour mimicry ``mode`` ("count"/"which"). Raises `NotAskable` (a ValueError) when
    the scene cannot carry the question unambiguously, ValueError for bad parameters.

    Parameters
    ----------
    task : str
        A key of `SCENE_BUILDERS`.
    stimulus : plates.stimuli.base.Stimulus
        A rendered scene (its truth lists the ``regions``).
    seed : int, optional
        Non-negative; with the task's index it seeds the choice of target and the option order (numpy PCG64).
    n_options : int, optional
        Options offered, 3-6 (ColorBench §2.1).
    **params
        The task's own parameters, above.

    Returns
    -------
    plates.tasks.scenes.common.SceneQuestion

    Raises
    ------
    NotAskable
        The scene cannot carry the question unambiguously.
    ValueError
        An unknown task or parameter, a bad seed or ``n_options``, or no rendered scene.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.1 and Table 7.
    """
    check_choice("task", task, SCENE_BUILDERS)
    check_int("seed", seed, 0)
    allowed = [p.name for p in inspect.signature(SCENE_BUILDERS[task]).parameters.values() if p.kind == p.KEYWORD_ONLY]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(f"{task} has no parameters {unknown}; allowed: {', '.join(allowed) or 'none'}")
    if not isinstance(stimulus, Stimulus) or not isinstance(stimulus.truth.get("regions"), list):
        raise ValueError(f"build_question needs a rendered scene Stimulus, got {type(stimulus).__name__}")
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, list(SCENE_BUILDERS).index(task)])))
    return SCENE_BUILDERS[task](stimulus, rng, _n_options(n_options), **params)


@dataclass(frozen=True)
class RobustnessItem:
    """One image of a ColorBench robustness instance: ``variant`` ("seed" or e.g. "target-90"), its ``spec``
    (SceneSpec / RecolourSpec: regenerates the image), the ``stimulus``, the ``expected`` letter there (None when
    no option is right after recolouring) and ``changed`` (expected differs from the seed's answer).

    Parameters
    ----------
    variant : str
        "seed", or the recoloured variant's name (e.g. "target-90").
    spec : SceneSpec or RecolourSpec
        Regenerates the image.
    stimulus : plates.stimuli.base.Stimulus
        The rendered image.
    expected : str or None
        The correct option letter on this image, None when no option is right.
    changed : bool
        Whether ``expected`` differs from the seed image's answer.
    """

    variant: str
    spec: Any
    stimulus: Stimulus
    expected: str | None
    changed: bool


def robustness_items(stimulus: Stimulus, question: SceneQuestion, *, space: str = "hsv",
                     include_background: bool = False) -> tuple[RobustnessItem, ...]:
    """ColorBench §2.3 / App. C: the seed and its nine recoloured variants (`plates.stimuli.scenes.recolour`),
    the question unchanged, each with its recomputed expected letter.

    Parameters
    ----------
    stimulus : plates.stimuli.base.Stimulus
        The rendered seed scene.
    question : plates.tasks.scenes.common.SceneQuestion
        The question built on it (its ``target`` regions are recoloured).
    space : str, optional
        The colour space the hue rotations are made in (`plates.stimuli.scenes.recolour`), default "hsv".
    include_background : bool, optional
        Also recolour the background.

    Returns
    -------
    tuple of RobustnessItem
        The seed first, then each variant.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.3 and App. C.
    """
    out = [RobustnessItem("seed", stimulus.spec, stimulus, question.answer, False)]
    for spec in variant_specs(stimulus, question.target, space=space, include_background=include_background):
        var = render_variant(spec, stimulus)
        exp = expected_for(question, var)
        out.append(RobustnessItem(spec.name, spec, var, exp, exp != question.answer))
    return tuple(out)
