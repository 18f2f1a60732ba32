"""plates.integrations.transport: what each export path hands the model, measured through a view."""

from __future__ import annotations

import pytest

from plates.images import image_to_png_bytes
from plates.integrations.transport import TRANSPORTS, transport_shift, transported
from plates.stimuli.ishihara.plate import PlateSpec, render

pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def png():
    return image_to_png_bytes(render(PlateSpec(text="74", size=256, seed=3, palette="huemanity-01")).image)


@pytest.mark.parametrize("path", ["hf-datasets", "lmms-eval", "inspect_ai", "vlmevalkit"])
def test_lossless_paths_hand_over_the_very_pixels(png, path):
    assert transported(png, path).tobytes() == render(PlateSpec(text="74", size=256, seed=3,
                                                                palette="huemanity-01")).image.tobytes()
    assert transport_shift(png, path, "llava-1.5") == {"mean": 0.0, "p95": 0.0, "max": 0.0, "changed": 0.0}


def test_vlmevalkits_default_jpeg_shifts_colours(png):
    raw = transport_shift(png, "vlmevalkit-default-jpeg", None)
    assert raw["mean"] > 1.0 and raw["p95"] > raw["mean"] and raw["max"] >= raw["p95"] and 0 < raw["changed"] <= 1
    seen = transport_shift(png, "vlmevalkit-default-jpeg", "paligemma-224")
    assert 0 < seen["mean"] < raw["mean"]  # the view's resampling averages some of the JPEG noise away


def test_unknown_path_lists_the_known_ones(png):
    with pytest.raises(ValueError, match="allowed: " + ", ".join(TRANSPORTS)):
        transported(png, "zip")
