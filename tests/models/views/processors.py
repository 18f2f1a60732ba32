"""The transformers image processors each open-weight view family reproduces, as built offline in the tests and in
``scripts/make_fast_view_goldens.py``: class, the model repository's published ``preprocessor_config.json``
values, call arguments; the five test sizes; and the de-normalisation of a processor's pixel tensor.

Plain numpy and Pillow (no pytest, no ``plates``), so the goldens script can import it in an environment that has
torchvision. The torchvision-backed ("fast") class of each family is the PIL one's name without ``Pil``.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

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


def cut(plate_rgb: np.ndarray, w: int, h: int) -> Image.Image:
    """A w x h image: a crop of the plate (scaled down with Pillow's bicubic first when it is smaller)."""
    side = max(w, h)
    src = plate_rgb if side >= plate_rgb.shape[0] else np.asarray(
        Image.fromarray(plate_rgb).resize((side, side), Image.BICUBIC))
    return Image.fromarray(np.ascontiguousarray(src[:h, :w]))


def tiles_from_processor(family: str, out, config: dict) -> list[np.ndarray]:
    """The processor's pixel tensor (numpy or torch), tile by tile, de-normalised with ``config``'s image_mean and
    image_std to (h, w, 3) sRGB 0-255 floats (float64, unrounded)."""
    mean, std = np.asarray(config["image_mean"], np.float64), np.asarray(config["image_std"], np.float64)
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
        chw = list(pv[0, 0, : int(np.asarray(out["num_tiles"]).ravel()[0])])
    else:
        chw = list(pv)
    return [(np.moveaxis(t, 0, -1) * std + mean) * 255.0 for t in chw]
