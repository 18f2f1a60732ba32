"""The open-weight families' views against transformers' PIL-backed image processors, built offline with each
model repository's published configuration: the processor's pixel tensor de-normalised back to sRGB 8-bit must
equal our view within one level, tile by tile, at five sizes (square and not)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plates.models.views import see
from plates.stimuli.ishihara.plate import PlateSpec, render

transformers = pytest.importorskip("transformers")

CLIP = dict(image_mean=[0.48145466, 0.4578275, 0.40821073], image_std=[0.26862954, 0.26130258, 0.27577711])
HALF = dict(image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5])
IMAGENET = dict(image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225])

#: family -> (processor class name, the repository's preprocessor_config values, call kwargs)
PROCESSORS = {
    "llava-1.5": ("CLIPImageProcessorPil", dict(size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336},
                                                do_center_crop=True, resample=3, **CLIP), {}),
    "llava-1.5-pad": ("LlavaImageProcessorPil", dict(size={"shortest_edge": 336},
                                                     crop_size={"height": 336, "width": 336}, do_center_crop=True,
                                                     do_pad=True, resample=3, **CLIP), {}),
    "qwen2-vl": ("Qwen2VLImageProcessorPil", dict(min_pixels=3136, max_pixels=12845056, patch_size=14,
                                                  merge_size=2, temporal_patch_size=2, **CLIP), {}),
    "qwen2.5-vl": ("Qwen2VLImageProcessorPil", dict(min_pixels=3136, max_pixels=12845056, patch_size=14,
                                                    merge_size=2, temporal_patch_size=2, **CLIP), {}),
    "idefics3": ("Idefics3ImageProcessorPil", dict(size={"longest_edge": 1456}, max_image_size={"longest_edge": 364},
                                                   resample=1, do_image_splitting=True, **HALF), {}),
    "smolvlm": ("SmolVLMImageProcessorPil", dict(size={"longest_edge": 1536}, max_image_size={"longest_edge": 384},
                                                 resample=1, do_image_splitting=True, **HALF), {}),
    "internvl": ("GotOcr2ImageProcessorPil", dict(size={"height": 448, "width": 448}, resample=3, min_patches=1,
                                                  max_patches=12, **IMAGENET), {"crop_to_patches": True}),
    "paligemma-224": ("SiglipImageProcessorPil", dict(size={"height": 224, "width": 224}, resample=3, **HALF), {}),
    "paligemma-448": ("SiglipImageProcessorPil", dict(size={"height": 448, "width": 448}, resample=3, **HALF), {}),
    "paligemma-896": ("SiglipImageProcessorPil", dict(size={"height": 896, "width": 896}, resample=3, **HALF), {}),
    "gemma-3": ("Gemma3ImageProcessorPil", dict(size={"height": 896, "width": 896}, resample=2,
                                                do_pan_and_scan=None, **HALF), {}),
    "gemma-3-pan-and-scan": ("Gemma3ImageProcessorPil", dict(size={"height": 896, "width": 896}, resample=2,
                                                             do_pan_and_scan=True, pan_and_scan_min_crop_size=256,
                                                             pan_and_scan_max_num_crops=4,
                                                             pan_and_scan_min_ratio_to_activate=1.2, **HALF), {}),
    "llama-3.2-vision": ("MllamaImageProcessorPil", dict(size={"height": 560, "width": 560}, max_image_tiles=4,
                                                         resample=2, do_pad=True, **CLIP), {}),
    "florence-2": ("CLIPImageProcessorPil", dict(size={"height": 768, "width": 768}, do_center_crop=False,
                                                 crop_size={"height": 768, "width": 768}, resample=3, **IMAGENET),
                   {}),
}
SIZES = [(224, 224), (1200, 700), (700, 1200), (333, 517), (97, 61)]


@pytest.fixture(scope="module")
def plate_rgb() -> np.ndarray:
    """A real plate (sRGB 0-255) at 1200 px: dot edges are where resamplers disagree."""
    return np.asarray(render(PlateSpec(text="74", size=1200, seed=3)).image.convert("RGB"))


def _image(plate_rgb: np.ndarray, w: int, h: int) -> Image.Image:
    """A w x h image: a crop of the plate (scaled down first when it is smaller than the plate)."""
    side = max(w, h)
    src = plate_rgb if side >= 1200 else np.asarray(Image.fromarray(plate_rgb).resize((side, side), Image.BICUBIC))
    return Image.fromarray(np.ascontiguousarray(src[:h, :w]))


def _tiles_from_processor(family: str, out, mean, std) -> list[np.ndarray]:
    """The processor's pixel tensor, tile by tile, de-normalised to (h, w, 3) sRGB 0-255 floats."""
    mean, std = np.asarray(mean, np.float64), np.asarray(std, np.float64)
    pv = np.asarray(out["pixel_values"], dtype=np.float64)
    if family.startswith("qwen"):
        _, gh, gw = (int(v) for v in out["image_grid_thw"][0])
        # (gh/2 * gw/2 * 2 * 2, 3 * 2 * 14 * 14) -> (3, gh*14, gw*14): the first temporal copy
        x = pv.reshape(gh // 2, gw // 2, 2, 2, 3, 2, 14, 14)[:, :, :, :, :, 0]
        x = x.transpose(4, 0, 2, 5, 1, 3, 6).reshape(3, gh * 14, gw * 14)
        chw = [x]
    elif family in ("idefics3", "smolvlm"):
        chw = list(pv[0])
    elif family == "llama-3.2-vision":
        chw = list(pv[0, 0, : out["num_tiles"][0][0]])
    else:
        chw = list(pv)
    return [(np.moveaxis(t, 0, -1) * std + mean) * 255.0 for t in chw]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("family", list(PROCESSORS))
def test_view_equals_transformers_pil_processor(family, size, plate_rgb):
    cls_name, config, call = PROCESSORS[family]
    processor = getattr(transformers, cls_name)(**config)
    image = _image(plate_rgb, *size)
    out = processor(image, return_tensors="np", **call)
    theirs = _tiles_from_processor(family, out, config["image_mean"], config["image_std"])
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
            theirs = _tiles_from_processor(family, processor(image, return_tensors="np", **call),
                                           config["image_mean"], config["image_std"])
        except Exception:  # noqa: BLE001 - the processor refuses: so must we
            with pytest.raises(ValueError):
                see(image, family)
            continue
        ours = see(image, family).images
        assert len(ours) == len(theirs), f"{family} {w}x{h}"
        for a, b in zip(ours, theirs):
            assert np.abs(a - b[: a.shape[0], : a.shape[1]]).max() <= 1.0, f"{family} {w}x{h}"
