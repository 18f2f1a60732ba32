"""A view's geometry: masks follow the pixels, boxes and cropped fractions add up, bad input is refused."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plates.models.views import FAMILIES, see, view_plan
from plates.models.views.core import union_area


def test_unknown_family_lists_the_known_ones():
    with pytest.raises(ValueError) as err:
        view_plan("llava-2", 100, 100)
    for name in ("llava-1.5", "qwen2-vl", "openai-high", "gemini"):
        assert name in str(err.value)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "100"])
def test_size_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="allowed: an integer >= 1"):
        view_plan("gemma-3", bad, 100)


def test_refusals_name_the_reason():
    with pytest.raises(ValueError, match="aspect ratio 201 exceeds 200"):
        view_plan("qwen2-vl", 201, 1)
    with pytest.raises(ValueError, match="over 8000 px"):
        view_plan("anthropic", 8001, 100)


def test_llava_centre_crop_of_a_wide_image_loses_its_sides():
    plan = view_plan("llava-1.5", 1200, 700)
    (box,) = plan.boxes
    assert box[1] == 0 and box[3] == 700  # full height
    assert box[0] == pytest.approx(250, abs=2) and box[2] == pytest.approx(950, abs=2)
    assert plan.cropped_fraction == pytest.approx(500 / 1200, abs=0.005)
    assert view_plan("llava-1.5-pad", 1200, 700).cropped_fraction == 0


def test_tiles_cover_the_input_and_the_global_image_comes_last():
    plan = view_plan("idefics3", 1200, 700)
    assert len(plan.tiles) == 13 and plan.tiles[-1].box == (0.0, 0.0, 1200, 700)
    assert union_area(plan.boxes[:-1], 1200, 700) == pytest.approx(1200 * 700)


def test_mask_follows_the_pixels():
    w, h = 1200, 700
    mask = np.zeros((h, w), bool)
    mask[:, : w // 2] = True  # left half
    img = Image.fromarray(np.where(mask[..., None], 255, 0).astype(np.uint8).repeat(3, axis=2))
    for family in ("idefics3", "internvl", "llama-3.2-vision", "llava-1.5-pad", "qwen2-vl"):
        v = see(img, family)
        for pixels, m in zip(v.images, v.transform_mask(mask)):
            assert pixels.shape[:2] == m.shape
            # away from the one edge, the mask says what the pixels show
            bright = pixels[..., 0] > 200
            dark = pixels[..., 0] < 55
            assert not (m & dark).any() or (m & dark).sum() < 0.02 * m.size, family
            assert not (~m & bright).any() or (~m & bright).sum() < 0.02 * m.size, family


def test_padding_is_never_in_the_mask():
    plan = view_plan("llama-3.2-vision", 1200, 700)  # fitted into 1120 x 653 on a 1120 x 1120 canvas
    masks = plan.apply_mask(np.ones((700, 1200), bool))
    assert all(m.shape == (560, 560) for m in masks)
    assert masks[0].all() and masks[2][:653 - 560].all() and not masks[2][653 - 560:].any()


def test_apply_refuses_an_image_of_another_size():
    plan = view_plan("gemma-3", 100, 60)
    with pytest.raises(ValueError, match=r"allowed: \(100, 60\)"):
        plan.apply(np.zeros((100, 100, 3), np.uint8))


def test_transparency_is_composited_onto_white():
    img = Image.new("RGBA", (64, 64), (255, 0, 0, 0))
    (pixels,) = see(img, "paligemma-224").images
    assert (pixels == 255).all()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_summary_has_the_view_json_fields(family):
    s = see(np.full((90, 160, 3), 128, np.uint8), family).summary()
    assert {"family", "input_size", "seen_size", "tiles", "cropped_fraction", "processor"} <= set(s)
    assert s["input_size"] == [160, 90] and s["tiles"] >= 1 and 0 <= s["cropped_fraction"] < 1


def test_union_area_counts_overlaps_once():
    assert union_area([(0, 0, 10, 10), (5, 5, 15, 15)], 100, 100) == 175.0
    assert union_area([(-5, -5, 5, 5)], 100, 100) == 25.0


@pytest.mark.parametrize("module", ["plates.models.views", "plates.models.views.core", "plates.models.views.hf"])
def test_the_docstrings_examples_hold(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted >= 1 and result.failed == 0


def test_a_local_model_folder_is_known_by_its_processor_configuration(tmp_path):
    import json

    from plates.models.views import family_of_model

    def folder(name, config):
        (tmp_path / name).mkdir()
        (tmp_path / name / "preprocessor_config.json").write_text(json.dumps(config))
        return str(tmp_path / name)

    qwen = {"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 3136, "max_pixels": 12845056,
            "patch_size": 14, "merge_size": 2, "temporal_patch_size": 2}
    assert family_of_model(folder("qwen2-vl-2b", qwen)) == "qwen2-vl"
    newer = {**{k: v for k, v in qwen.items() if not k.endswith("pixels")},
             "size": {"shortest_edge": 3136, "longest_edge": 12845056}, "image_processor_type": "Qwen2VLImageProcessorFast"}
    assert family_of_model(folder("qwen-newer", newer)) == "qwen2-vl"
    assert family_of_model(folder("qwen-small-budget", {**qwen, "max_pixels": 1003520})) is None
    clip = {"image_processor_type": "CLIPImageProcessor", "size": {"height": 768, "width": 768},
            "do_center_crop": False, "resample": 3}
    assert family_of_model(folder("my-florence", clip)) == "florence-2"
    assert family_of_model(str(tmp_path / "nothing-here")) is None
    assert family_of_model("meta-llama/Llama-3.2-11B-Vision-Instruct") == "llama-3.2-vision"
