"""The open-weight families' views against transformers' PIL-backed image processors, built offline with each
model repository's published configuration: the processor's pixel tensor de-normalised back to sRGB 8-bit must
equal our view within one level, tile by tile, at five sizes (square and not)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plates.models.views import see
from plates.stimuli.ishihara.plate import PlateSpec, render
from tests.models.views.processors import PROCESSORS, SIZES, cut, tiles_from_processor

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def plate_rgb() -> np.ndarray:
    """A real plate (sRGB 0-255) at 1200 px: dot edges are where resamplers disagree."""
    return np.asarray(render(PlateSpec(text="74", size=1200, seed=3)).image.convert("RGB"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("family", list(PROCESSORS))
def test_view_equals_transformers_pil_processor(family, size, plate_rgb):
    cls_name, config, call = PROCESSORS[family]
    processor = getattr(transformers, cls_name)(**config)
    image = cut(plate_rgb, *size)
    out = processor(image, return_tensors="np", **call)
    theirs = tiles_from_processor(family, out, config)
    ours = see(image, family).images
    assert len(ours) == len(theirs), f"{family} {size}: {len(ours)} tiles, processor gave {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        h, w = a.shape[:2]
        assert b.shape[0] >= h and b.shape[1] >= w, f"{family} {size} tile {i}: {a.shape} vs {b.shape}"
        diff = np.abs(a.astype(np.float64) - b[:h, :w])
        assert diff.max() <= 1.0, f"{family} {size} tile {i}: off by up to {diff.max():.2f} levels"


EDGE_SIZES = [(1, 1), (2, 300), (300, 2), (13, 7), (364, 364), (365, 364), (1456, 1), (560, 561), (1121, 560),
              (448, 449), (5000, 40)]


@pytest.mark.slow
@pytest.mark.parametrize("family", list(PROCESSORS))
def test_edge_and_random_sizes_match_too(family):
    """Noise images at the processors' thresholds (tile edges, one pixel past them, 1 px sides, extreme aspect
    ratios) and at seeded random sizes: the same tiles, within one level; where the processor raises, we refuse
    with a ValueError."""
    cls_name, config, call = PROCESSORS[family]
    processor = getattr(transformers, cls_name)(**config)
    rng = np.random.default_rng(7)
    sizes = EDGE_SIZES + [tuple(int(v) for v in s) for s in rng.integers(1, 2600, size=(6, 2))]
    for w, h in sizes:
        image = Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
        try:
            theirs = tiles_from_processor(family, processor(image, return_tensors="np", **call), config)
        except Exception:  # noqa: BLE001 - the processor refuses: so must we
            with pytest.raises(ValueError):
                see(image, family)
            continue
        ours = see(image, family).images
        assert len(ours) == len(theirs), f"{family} {w}x{h}"
        for a, b in zip(ours, theirs):
            assert np.abs(a - b[: a.shape[0], : a.shape[1]]).max() <= 1.0, f"{family} {w}x{h}"
