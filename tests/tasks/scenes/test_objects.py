"""ColorBench's Object Recognition and Colour Mimicry on synthetic scenes (`plates.tasks.scenes.objects`),
each answer recomputed from the pixels (ColorBench §2.1, Table 7)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import ndimage

from plates.stimuli.scenes import SCENE_PALETTES, SHAPES, SceneSpec, render
from plates.tasks.scenes.colorbench import NotAskable, build_question

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


