"""plates.explorer.seen: the Plate tab's "as the model sees it", without a browser."""

from __future__ import annotations

import numpy as np
import pytest

from plates.explorer.seen import OFF, OUTLINE, family_choices, montage, seen_by
from plates.models.views import FAMILIES, see
from plates.stimuli.ishihara.plate import PlateSpec, render

SPEC = PlateSpec(text="74", size=256, seed=3)


def test_off_shows_nothing_and_every_family_is_offered():
    assert seen_by(SPEC, OFF) is None
    assert family_choices() == [OFF, *FAMILIES]


def test_the_view_is_the_exact_pixels_and_the_summary_gives_the_numbers():
    shown = seen_by(SPEC, "paligemma-224")
    (tile,) = see(render(SPEC).image, "paligemma-224").images
    assert np.array_equal(np.asarray(shown.view), tile)
    assert "sees 224 × 224 px of this 256 × 256 px plate in 1 image(s)" in shown.summary
    assert "after the view" in shown.summary and "as drawn 63.3 / 63.3" in shown.summary


def test_the_crop_is_outlined_on_the_original():
    spec = SPEC.replace(size=256)
    shown = seen_by(spec, "llava-1.5")  # square: the crop is the whole plate, outlined at its border
    px = np.asarray(shown.original)
    assert (px[0, 10] == OUTLINE).all() and (px[128, 0] == OUTLINE).all() and not (px[128, 128] == OUTLINE).all()


def test_tiles_are_laid_out_in_order():
    tiles = [np.full((4, 4, 3), i * 40, np.uint8) for i in range(7)]
    m = np.asarray(montage(tiles, gap=2))
    assert m.shape == (4 + 2 + 4, 5 * 4 + 4 * 2, 3)
    assert (m[0, 6] == 40).all() and (m[6, 0] == 200).all() and (m[6, 6] == 240).all()


def test_an_unknown_family_is_a_clear_error():
    with pytest.raises(ValueError, match="allowed: llava-1.5"):
        seen_by(SPEC, "llava-9")
