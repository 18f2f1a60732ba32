"""Every ColorBench form on synthetic scenes, each answer recomputed from the pixels (ColorBench §2.1, Table 7):
recognition "present", Object Recognition, Colour Mimicry (camouflage), the counting floor on CIEDE2000 between
colours, and presets that draw every form in balance at the size asked."""

from __future__ import annotations

import itertools
import warnings
from collections import Counter

import numpy as np
import pytest
from scipy import ndimage

from plates.datasets.family_presets import FAMILY_PRESETS
from plates.datasets.scenes import SCENE_TASK_NAMES, scene_entries
from plates.stimuli.scenes import SCENE_PALETTES, SHAPES, SceneSpec, render
from plates.tasks.colorbench import COUNT_MIN_DELTA_E, FORMS, TASKS, NotAskable, build_question
from plates.tasks.scenes import scene_question_from

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*Matplotlib.*")
    import colour

PALETTE = SCENE_PALETTES["xkcd-basic-11"].colours
NAMED = [SceneSpec(seed=s, size=192, n_regions=7, n_colours=5, palette="xkcd-basic-11", shapes=SHAPES,
                   min_delta_e=15) for s in range(10)]
MIMICRY = [SceneSpec(seed=s, size=192, n_regions=1 + s % 4, n_colours=1, background=None, min_delta_e=8,
                     spacing="tight", shading="mottled", shapes=SHAPES, fill=0.25) for s in range(10)]


def _lab(rgb) -> np.ndarray:
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(np.asarray(rgb, dtype=float) / 255.0))


def _asked(task, specs, **params):
    out = []
    for i, spec in enumerate(specs):
        stim = render(spec)
        try:
            out.append((stim, build_question(task, stim, seed=i, **params)))
        except NotAskable:
            continue
    assert len(out) >= len(specs) // 3, f"{task}: too few scenes could carry the question"
    return out


def _pixels_of(stim, rgb) -> np.ndarray:
    return np.all(np.asarray(stim.image) == np.asarray(rgb, dtype=np.uint8), axis=-1)


def test_recognition_present_colour_is_the_only_option_in_the_pixels():
    for stim, q in _asked("colour-recognition", NAMED, mode="present"):
        assert q.text == "What color exists in this image?" and q.wording == "ours"
        for text in q.options.values():
            assert _pixels_of(stim, PALETTE[text]).any() == (text == q.answer_text), text


def test_object_recognition_answer_is_the_shape_of_the_one_blob_in_that_colour():
    for stim, q in _asked("object-recognition", NAMED):
        name = q.params["colour"]
        assert q.text == f"What object has a color of {name} in this image?" and q.wording == "colorbench"
        mask = _pixels_of(stim, PALETTE[name])
        assert ndimage.label(mask, structure=np.ones((3, 3)))[1] == 1  # one object of that colour, from pixels
        (region,) = q.target
        assert np.array_equal(mask, stim.masks[region])
        assert q.answer_text == stim.truth["regions"][int(region.split("-")[1])]["shape"]
        others = {r["shape"] for r in stim.truth["regions"] if r["region"] != region and r["share"] > 0}
        assert q.answer_text not in others and len(set(q.options.values())) == 4


def _camouflage(stim) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's nearest scene colour (CIELAB, from the truth's two colours) -> object mask; and the two
    colours' CIELAB."""
    t = stim.truth
    bases = np.array([t["background"]["colour"], t["colours"][0]["colour"]], dtype=float)
    lab = _lab(np.asarray(stim.image).reshape(-1, 3))
    base_lab = _lab(bases)
    nearest = np.argmin(np.linalg.norm(lab[:, None] - base_lab[None], axis=-1), axis=1)
    return nearest.reshape(stim.image.size[::-1]) == 1, base_lab


@pytest.mark.parametrize("mode", ["count", "which"])
def test_mimicry_objects_are_found_from_pixels_under_the_camouflage(mode):
    specs = MIMICRY if mode == "count" else [s.replace(n_regions=1) for s in MIMICRY]
    for stim, q in _asked("colour-mimicry", specs, mode=mode):
        objects, base_lab = _camouflage(stim)
        masks = np.zeros_like(objects)
        for r in stim.truth["regions"]:
            masks |= stim.masks[r["region"]]
        assert np.array_equal(objects, masks)  # every pixel's nearest colour is its own region's
        blobs, count = ndimage.label(objects, structure=np.ones((3, 3)))
        px = np.asarray(stim.image)
        # camouflage: background and objects are textured (many pixel values), their colours near each other
        assert len(np.unique(px[~objects], axis=0)) > 50 and len(np.unique(px[objects], axis=0)) > 20
        assert float(colour.delta_E(base_lab[0], base_lab[1], method="CIE 2000")) < 20
        if mode == "count":
            assert q.text == "How many shapes are hidden in this image?" and q.answer_text == str(count)
        else:
            assert count == 1 and q.text == "Which shape is hidden in this image?"
            assert q.answer_text == stim.truth["regions"][0]["shape"]
            assert set(q.options.values()) <= set(SHAPES)


def test_mimicry_needs_camouflage():
    with pytest.raises(NotAskable, match="mottled"):
        build_question("colour-mimicry", render(NAMED[0]))


def test_counting_refuses_colours_closer_than_the_floor_and_states_it():
    close = render(SceneSpec(seed=1, size=128, n_regions=6, n_colours=4, min_delta_e=5, spacing="tight"))
    assert close.truth["min_delta_e"] < COUNT_MIN_DELTA_E
    with pytest.raises(NotAskable, match="CIEDE2000"):
        build_question("colour-counting", close)
    q = build_question("colour-counting", render(SceneSpec(seed=1, size=128, n_regions=6, n_colours=4,
                                                           min_delta_e=12, spacing="tight")))
    assert q.params["min_delta_e_floor"] == COUNT_MIN_DELTA_E >= 5 and q.params["min_delta_e"] >= 10


@pytest.mark.parametrize("task", ["colour-counting", "object-counting"])
def test_preset_counting_items_hold_no_two_pixel_colours_under_the_floor(task):
    for e in scene_entries(task, n=12, size=128, seed=3):
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
    entries = list(scene_entries(task, n=2 * len(forms), size=96, seed=1))
    counts = Counter(_form(task, e.question["params"]) for e in entries)
    assert len(counts) == len(forms) and set(counts.values()) == {2}
    for e in entries:
        assert e.spec.size == 96 and e.stimulus.image.size == (96, 96)
        q = scene_question_from(e.question)  # the manifest's question reads back and is right on its scene
        assert TASKS[q.task] and q.answer_text == e.label


def test_family_presets_pass_the_size_through():
    entries = FAMILY_PRESETS["colorbench-colour-mimicry"].entries(size=80, seed=0)
    first = next(iter(entries))
    assert first.spec.size == 80 and first.spec.shading == "mottled"


@pytest.mark.parametrize("delta_e", [0.5, 3.0, 20.0, 60.0])
def test_distractor_colours_sit_at_the_asked_difference(delta_e):
    from plates.tasks.colour_values import distractor_colours, format_code

    rng = np.random.default_rng(7)
    made = 0
    for rgb in rng.integers(0, 256, (12, 3)):
        rgb = tuple(int(v) for v in rgb)
        try:
            colours = distractor_colours(rgb, delta_e, 3, np.random.default_rng(made), fmt="hex")
        except ValueError:  # a colour at the gamut's edge reaches delta_e in too few directions: refused
            continue
        made += 1
        lab = _lab(np.array([rgb, *colours]))
        de = colour.delta_E(lab[0], lab[1:], method="CIE 2000")
        assert np.all(np.abs(de - delta_e) <= 1.0), de
        apart = colour.delta_E(lab[1:, None], lab[None, 1:], method="CIE 2000")[np.triu_indices(3, 1)]
        assert np.all(apart >= delta_e / 2)
        assert len({format_code(c, "hex") for c in [rgb, *colours]}) == 4
    assert made >= 6
