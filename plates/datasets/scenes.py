"""The ColorBench presets on synthetic scenes: each item is a scene plus the one question made for it.

* ``colorbench-<task>``: ``ITEMS_PER_TASK`` questions of one task (ColorBench Table 7 names: colour
  extraction, proportion, counting, object counting, comparison, recognition, object recognition, colour
  mimicry), its forms (`plates.tasks.scenes.colorbench.FORMS`: RGB / HSV / HEX, each comparison criterion, naming /
  present / absent, counting with and without the background, mimicry count / which) taking turns item by
  item, over balanced difficulty: regions 3-10, colours 2-6, minimum CIEDE2000 between colours 4 / 8 / 15 / 30
  (counting: 10 / 15 / 30, `COUNT_MIN_DELTA_E`), tight or spread colours, clutter 0-0.6, area ratios 1 / 4 / 10
  (each drawn per item from a seeded stream). Colour mimicry: 1-4 shapes of one colour on a mottled background
  6 / 9 / 12 CIEDE2000 from it (tight), one shape for "which".
* ``colorbench-robustness``: ``ROBUSTNESS_SEEDS`` seed scenes, each with its nine recoloured variants (§2.3,
  App. C: entire image / target / largest other region, hue 90 / 180 / 270° in HSV) and one colour-invariant
  question (shape counting, ours): a seed counts as robust only if all ten are answered right.
* ``colorbench-synthetic``: all of the above (3,500 items: 8 tasks x 250, and 150 x 10 robustness).

A scene that cannot carry its question unambiguously (`plates.tasks.scenes.colorbench.NotAskable`) is replaced by the
next seed of the same item; everything is derived from (preset seed, task, item index), so a set is the same in
any process. Colours: sRGB 0-255.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np

from plates.datasets.write import Entry
from plates.stimuli.scenes import SHAPES, SceneSpec, render
from plates.tasks.scenes.colorbench import (
    COUNT_MIN_DELTA_E,
    FORMS,
    PAPER_NAMES,
    NotAskable,
    build_question,
    robustness_items,
)
from plates.validation import check_choice

__all__ = ["ITEMS_PER_TASK", "ROBUSTNESS_SEEDS", "SCENE_TASK_NAMES", "robustness_item",
           "robustness_jobs", "scene_item", "scene_jobs"]

ITEMS_PER_TASK = 250
ROBUSTNESS_SEEDS = 150
#: The ColorBench tasks with a preset of their own (shape counting serves robustness only).
SCENE_TASK_NAMES = tuple(t for t in PAPER_NAMES if t != "shape-counting")
#: Tasks whose questions name colours: their scenes draw from a named palette (xkcd basic 11, min ΔE2000 ~18).
_NAMED = ("colour-proportion", "object-counting", "colour-recognition", "object-recognition")
_COUNTING = ("colour-counting",)
_TRIES = 30


def _spec(task: str, i: int, attempt: int, size: int, seed: int, form: dict) -> SceneSpec:
    rng = np.random.Generator(np.random.PCG64([seed, SCENE_TASK_NAMES.index(task), i, attempt]))
    scene_seed = int(rng.integers(2**31))
    if task == "colour-extraction":  # a single-colour patch filling the image
        return SceneSpec(seed=scene_seed, size=size, n_regions=0, n_colours=0, background=None)
    if task == "colour-mimicry":  # shapes of one colour camouflaged on a mottled background of a near colour
        n = 1 if form.get("mode") == "which" else int(rng.integers(1, 5))
        return SceneSpec(seed=scene_seed, size=size, n_regions=n, n_colours=1, background=None,
                         min_delta_e=float(rng.choice([6, 9, 12])), spacing="tight", shading="mottled",
                         shapes=SHAPES, fill=0.25)
    n = int(rng.integers(3, 11))
    k = int(rng.integers(2, min(n, 6) + 1))
    if task in _NAMED:
        return SceneSpec(seed=scene_seed, size=size, n_regions=n, n_colours=k, palette="xkcd-basic-11",
                         min_delta_e=15, shapes=SHAPES, clutter=float(rng.choice([0.0, 0.3])))
    floors = [COUNT_MIN_DELTA_E, 15, 30] if task in _COUNTING else [4, 8, 15, 30]
    return SceneSpec(seed=scene_seed, size=size, n_regions=n, n_colours=k, min_delta_e=float(rng.choice(floors)),
                     spacing=str(rng.choice(["spread", "tight"])), clutter=float(rng.choice([0.0, 0.3, 0.6])),
                     area_ratio=float(rng.choice([1, 4, 10])), shapes=SHAPES)


def scene_item(task: str, i: int, size: int = 512, seed: int = 0) -> list[Entry]:
    """Item ``i`` of ``task``'s preset (one entry: a scene and the question made for it; options 3 for
    comparison, else 4); it asks form i mod len(forms) of the task (`plates.tasks.scenes.colorbench.FORMS`), so the
    forms are balanced. Depends only on its arguments: any process makes the same item.

    Parameters
    ----------
    task : str
        One of `SCENE_TASK_NAMES`.
    i : int
        The item's index.
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.

    Returns
    -------
    list of Entry
        One entry, id ``"<task>:<i:04d>"``, holding the rendered scene and its question.

    Raises
    ------
    ValueError
        An unknown task, or no scene carried the question in the tries allowed.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.1 and Table 7.
    """
    check_choice("scene task", task, SCENE_TASK_NAMES)
    forms = FORMS[task]
    form = dict(forms[i % len(forms)])
    for attempt in range(_TRIES):
        stim = render(_spec(task, i, attempt, size, seed, form))
        try:
            q = build_question(task, stim, seed=seed * 100_003 + i,
                               n_options=3 if task == "colour-comparison" else 4, **form)
        except NotAskable:
            continue
        return [Entry(f"{task}:{i:04d}", stim.spec, label=q.answer_text, group=task, question=q.to_dict(),
                      stimulus=stim)]
    raise ValueError(f"{task} item {i}: no scene could carry the question in {_TRIES} tries")


def scene_jobs(task: str, *, n: int = ITEMS_PER_TASK, size: int = 512, seed: int = 0) -> Iterator[partial]:
    """``n`` picklable jobs, job i making `scene_item` i of ``task`` (what `plates.datasets.write.write_items`
    hands its worker processes).

    Parameters
    ----------
    task : str
        One of `SCENE_TASK_NAMES`.
    n : int, optional
        Items.
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.

    Returns
    -------
    iterator of functools.partial
        Each returns `scene_item`'s list.

    Raises
    ------
    ValueError
        An unknown task.
    """
    check_choice("scene task", task, SCENE_TASK_NAMES)
    return (partial(scene_item, task, i, size, seed) for i in range(n))


def robustness_item(i: int, size: int = 512, seed: int = 0) -> list[Entry]:
    """Robustness seed ``i``: its scene and the 9 recoloured variants, one shape-counting question each.

    Parameters
    ----------
    i : int
        The seed's index.
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.

    Returns
    -------
    list of Entry
        The seed scene then its variants, ids ``"robustness:<i:04d>:<variant>"``, group ``"robustness-<i:04d>"``,
        each with the one question and its answer there.

    Raises
    ------
    ValueError
        No usable scene in the tries allowed.

    References
    ----------
    Liang et al. 2025 (ColorBench), §2.3 and App. C.
    """
    for attempt in range(_TRIES):
        spec = SceneSpec(seed=int(np.random.Generator(np.random.PCG64([seed, 99, i, attempt])).integers(2**31)),
                         size=size, n_regions=6, n_colours=4, palette="xkcd-basic-11", min_delta_e=15,
                         shapes=SHAPES[:5])
        stim = render(spec)
        try:
            q = build_question("shape-counting", stim, seed=seed * 100_003 + i)
            variants = robustness_items(stim, q)
        except (NotAskable, ValueError):
            continue
        return [Entry(f"robustness:{i:04d}:{v.variant}", v.spec, label=q.answer_text, group=f"robustness-{i:04d}",
                      question=q.to_dict(), stimulus=v.stimulus) for v in variants]
    raise ValueError(f"robustness seed {i}: no usable scene in {_TRIES} tries")


def robustness_jobs(*, n: int = ROBUSTNESS_SEEDS, size: int = 512, seed: int = 0) -> Iterator[partial]:
    """``n`` picklable jobs, job i making `robustness_item` i.

    Parameters
    ----------
    n : int, optional
        Robustness seeds.
    size : int, optional
        Image side, px.
    seed : int, optional
        The set's seed.

    Returns
    -------
    iterator of functools.partial
    """
    return (partial(robustness_item, i, size, seed) for i in range(n))

