"""The ColorBench scene presets (`plates.datasets.scenes`): every form of each task in balance, at the size
asked, and counting items whose colours are all at least `COUNT_MIN_DELTA_E` apart, read from the pixels."""

from __future__ import annotations

import itertools
import warnings
from collections import Counter

import numpy as np
import pytest

from plates.datasets.family_presets import FAMILY_PRESETS
from plates.datasets.scenes import SCENE_TASK_NAMES, scene_jobs
from plates.tasks.scenes import scene_question_from
from plates.tasks.scenes.colorbench import COUNT_MIN_DELTA_E, FORMS, SCENE_BUILDERS

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*Matplotlib.*")
    import colour


def _entries(task: str, **options) -> list:
    """The items of ``task`` in order, as `plates.datasets.write.write_items` makes them from the jobs."""
    return [entry for job in scene_jobs(task, **options) for entry in job()]


def _lab(rgb) -> np.ndarray:
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(np.asarray(rgb, dtype=float) / 255.0))


@pytest.mark.parametrize("task", ["colour-counting", "object-counting"])
def test_preset_counting_items_hold_no_two_pixel_colours_under_the_floor(task):
    for e in _entries(task, n=12, size=128, seed=3):
        px = np.unique(np.asarray(e.stimulus.image).reshape(-1, 3), axis=0)
        lab = _lab(px)
        de = colour.delta_E(lab[:, None], lab[None], method="CIE 2000")[np.triu_indices(len(px), 1)]
        assert float(de.min()) >= COUNT_MIN_DELTA_E, (e.item_id, float(de.min()))
        assert e.question["params"]["min_delta_e_floor"] == COUNT_MIN_DELTA_E


def _form(task: str, params: dict) -> tuple:
    keys = set(itertools.chain.from_iterable(FORMS[task]))
    return tuple(sorted((k, params[k]) for k in keys))


@pytest.mark.parametrize("task", SCENE_TASK_NAMES)
def test_presets_draw_every_form_in_balance_at_the_size_asked(task):
    forms = FORMS[task]
    entries = _entries(task, n=2 * len(forms), size=96, seed=1)
    counts = Counter(_form(task, e.question["params"]) for e in entries)
    assert len(counts) == len(forms) and set(counts.values()) == {2}
    for e in entries:
        assert e.spec.size == 96 and e.stimulus.image.size == (96, 96)
        q = scene_question_from(e.question)  # the manifest's question reads back and is right on its scene
        assert SCENE_BUILDERS[q.task] and q.answer_text == e.label


def test_family_presets_pass_the_size_through():
    entries = FAMILY_PRESETS["colorbench-colour-mimicry"].entries(size=80, seed=0)
    first = next(iter(entries))
    assert first.spec.size == 80 and first.spec.shading == "mottled"

