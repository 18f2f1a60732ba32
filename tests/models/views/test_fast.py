"""The ``-fast`` views (numpy) against goldens made by transformers' REAL torchvision-backed image processors
(``scripts/make_fast_view_goldens.py``; versions in ``tests/data/views-fast/versions.json``): every family, a real
plate at five sizes (square and not), within one 8-bit level at every stored pixel, and equal at 99% of them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from plates.models.views import FAMILIES, HF_FAMILIES, see, view_plan
from tests.models.views.processors import PROCESSORS, SIZES, cut
from tests.support import ROOT

DATA = ROOT / "tests" / "data" / "views-fast"


@pytest.fixture(scope="module")
def goldens() -> dict[str, np.ndarray]:
    with np.load(DATA / "goldens.npz") as npz:
        return {k: npz[k] for k in npz.files}


@pytest.fixture(scope="module")
def plate_rgb() -> np.ndarray:
    return np.asarray(Image.open(DATA / "plate-74.png").convert("RGB"))


def test_goldens_cover_every_family_and_size(goldens):
    assert set(PROCESSORS) == set(HF_FAMILIES)
    for family in PROCESSORS:
        for w, h in SIZES:
            assert f"{family}|{w}x{h}|shapes" in goldens, f"{family} {w}x{h} has no golden"
    versions = json.loads((DATA / "versions.json").read_text(encoding="utf-8"))
    assert versions["torchvision"].startswith("0.29") and versions["transformers"] == "5.24.0"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("family", list(PROCESSORS))
def test_fast_view_equals_the_real_fast_processor(family, size, goldens, plate_rgb):
    w, h = size
    key = f"{family}|{w}x{h}"
    shapes = goldens[f"{key}|shapes"]
    ours = see(cut(plate_rgb, w, h), f"{family}-fast").images
    assert len(ours) == len(shapes), f"{family} {size}: {len(ours)} tiles, the processor gave {len(shapes)}"
    for i, (a, shape) in enumerate(zip(ours, shapes)):
        assert a.shape[0] <= shape[0] and a.shape[1] <= shape[1], f"{key} tile {i}: {a.shape} vs {tuple(shape)}"
        yx, theirs = goldens[f"{key}|{i}|yx"], goldens[f"{key}|{i}|values"].astype(np.float64)
        inside = (yx[:, 0] < a.shape[0]) & (yx[:, 1] < a.shape[1])
        diff = np.abs(a[yx[inside, 0], yx[inside, 1]].astype(np.float64) - theirs[inside])
        assert diff.max() <= 1.0, f"{key} tile {i}: off by up to {diff.max():.2f} levels"
        # the stored pixels are mostly where the fast processor and the PIL one disagree (by 1-3 levels): a view
        # resampled the Pillow way matches 58-89% of them exactly, torch's kernel (bit-exact on AVX2) all
        assert (diff == 0).mean() >= 0.99, f"{key} tile {i}: {(diff == 0).mean():.1%} of the pixels equal"
        if a.shape[:2] == tuple(shape[:2]):
            mean = a.reshape(-1, 3).mean(axis=0)
            assert np.abs(mean - goldens[f"{key}|{i}|mean"]).max() < 0.05, f"{key} tile {i}: mean {mean}"


def test_every_pil_family_has_a_fast_twin_with_the_same_geometry():
    for family in HF_FAMILIES:
        slow, fast = view_plan(family, 1200, 700), view_plan(f"{family}-fast", 1200, 700)
        assert f"{family}-fast" in FAMILIES and fast.family == f"{family}-fast"
        assert fast.boxes == slow.boxes and fast.seen_size == slow.seen_size
        assert [t.size for t in fast.tiles] == [t.size for t in slow.tiles]
        assert "torchvision" in fast.processor
