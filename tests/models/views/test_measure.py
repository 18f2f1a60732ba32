"""A plate measured as a family sees it: the figure cut by a crop, and ΔE2000 on the viewed pixels measured as
the drawn ΔE is."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plates.models.views import view_plan
from plates.models.views.measure import figure_cut, measure_view, plate_regions, resize_mask
from plates.stimuli.ishihara.plate import PlateSpec, render


@pytest.fixture(scope="module")
def plate():
    return render(PlateSpec(text="74", size=400, seed=3))


def test_regions_are_the_dots_as_painted(plate):
    r = plate_regions(plate)
    px = plate.pixels
    assert not (r["figure"] & r["ground"]).any()
    (fg,), (bg,) = plate.spec.colours
    assert (px[r["figure"]] == fg).all() and (px[r["ground"]] == bg).all()


def test_unchanged_pixels_give_the_drawn_delta_e(plate):
    # gemini's published rule shows the pixels unchanged: one colour pair, so the drawn ΔE2000 exactly
    cols = measure_view(plate.image, "gemini", plate_regions(plate))
    assert cols["view_delta_e_median"] == pytest.approx(plate.delta_e_drawn.median)
    assert cols["view_delta_e_p05"] == pytest.approx(plate.delta_e_drawn.p05)
    assert cols["view_figure_cut"] is False


def test_resampling_blurs_the_low_quantile(plate):
    small = measure_view(plate.image, "paligemma-224", plate_regions(plate))
    assert small["view_delta_e_p05"] < plate.delta_e_drawn.p05 - 1


def test_a_centre_crop_cuts_a_figure_at_the_edge(plate):
    wide = Image.new("RGB", (1200, 400), (255, 255, 255))
    wide.paste(plate.image, (0, 0))  # the plate at the left edge: LLaVA's 400 px centre crop misses it
    regions = {k: np.pad(v, ((0, 0), (0, 800))) for k, v in plate_regions(plate).items()}
    cols = measure_view(wide, "llava-1.5", regions)
    assert cols["view_figure_cut"] is True and cols["view_cropped_fraction"] == pytest.approx(2 / 3, abs=0.01)
    assert measure_view(wide, "llava-1.5-pad", regions)["view_figure_cut"] is False


def test_without_regions_only_the_geometry(plate):
    cols = measure_view(plate.image, "internvl")
    assert cols["view_tiles"] == 1 and cols["view_delta_e_median"] is None and cols["view_figure_cut"] is None


def test_figure_cut_counts_pixel_centres():
    plan = view_plan("llava-1.5", 1200, 700)  # box x from 250 to 950
    fig = np.zeros((700, 1200), bool)
    fig[300, 600] = True
    assert not figure_cut(plan, fig)
    fig[300, 100] = True
    assert figure_cut(plan, fig)


def test_resize_mask_is_nearest():
    m = np.zeros((4, 4), bool)
    m[:2] = True
    assert resize_mask(m, (8, 8))[:4].all() and not resize_mask(m, (8, 8))[4:].any()
