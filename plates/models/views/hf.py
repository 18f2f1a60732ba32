"""Open-weight families: the geometry of each one's transformers image processor, with its published configuration.

Each planner reproduces the PIL-backed ("slow") processor of transformers 5 (``*ImageProcessorPil``) configured
with the values of the model repository's ``preprocessor_config.json`` (not the class defaults, which differ):

==================  ==========================================  ================================================
family              repository (preprocessor_config.json)        values used
==================  ==========================================  ================================================
llava-1.5           llava-hf/llava-1.5-7b-hf                     CLIPImageProcessor: size shortest_edge 336,
                                                                 crop_size 336x336, do_center_crop, resample 3
llava-1.5-pad       haotian-liu/LLaVA (llava/mm_utils.py         the same CLIP processor after ``expand2square``
                    ``expand2square``, image_aspect_ratio pad)   on the CLIP mean x 255 = (122, 116, 104);
                                                                 transformers: LlavaImageProcessor do_pad=True
qwen2-vl            Qwen/Qwen2-VL-7B-Instruct                    min_pixels 3136, max_pixels 12845056,
                                                                 patch_size 14, merge_size 2, resample 3
qwen2.5-vl          Qwen/Qwen2.5-VL-7B-Instruct                  min_pixels 3136, max_pixels 12845056,
                                                                 patch_size 14, merge_size 2, resample 3
idefics3            HuggingFaceM4/Idefics3-8B-Llama3             size longest_edge 1456, max_image_size
                                                                 longest_edge 364, resample 1 (Lanczos), splitting
smolvlm             HuggingFaceTB/SmolVLM-Instruct               size longest_edge 1536, max_image_size
                                                                 longest_edge 384, resample 1 (Lanczos), splitting
internvl            OpenGVLab/InternVL3-1B-hf                    GotOcr2ImageProcessor size 448x448, resample 3,
                                                                 min_patches 1, max_patches 12; crop_to_patches
                                                                 True (InternVLProcessor's images_kwargs)
paligemma-224/448/  google/paligemma-3b-pt-224, -448, -896       SiglipImageProcessor size NxN, resample 3
896
gemma-3             google/gemma-3-4b-it                         Gemma3ImageProcessor size 896x896, resample 2,
                                                                 do_pan_and_scan null (off)
gemma-3-pan-and-    google/gemma-3-4b-it, with the processor's   the same, do_pan_and_scan True: min crop 256,
scan                option on                                    max 4 crops, min ratio 1.2
llama-3.2-vision    meta-llama/Llama-3.2-11B-Vision-Instruct     MllamaImageProcessor size 560x560,
                                                                 max_image_tiles 4, resample 2, do_pad
florence-2          florence-community/Florence-2-large          CLIPImageProcessor size 768x768 (height/width),
                                                                 do_center_crop false, resample 3
==================  ==========================================  ================================================

Normalisation constants do not change the pixels (they are undone exactly); only padding colours depend on them.

References
----------
transformers 5.x, ``models/<family>/image_processing_pil_<family>.py`` (the code each planner follows; the
function named in each planner's docstring). Liu et al. 2024, "Improved Baselines with Visual Instruction
Tuning" (LLaVA-1.5), §3.4 / App. on "pad" image aspect ratio.
"""

from __future__ import annotations

import math

from plates.models.views.core import Tile, ViewPlan

__all__ = ["HF_FAMILIES", "PUBLISHED", "family_of_config"]

CLIP_MEAN_RGB = (122, 116, 104)  # int(x * 255) for OPENAI_CLIP_MEAN (0.48145466, 0.4578275, 0.40821073)


def _clip_short_side(w: int, h: int, short: int) -> tuple[int, int]:
    """transformers ``get_resize_output_image_size(default_to_square=False)``: (width, height)."""
    if w <= h:
        return short, int(short * h / w)
    return int(short * w / h), short


def _llava(w: int, h: int, *, pad: bool) -> ViewPlan:
    """CLIPImageProcessor (llava-hf/llava-1.5-7b-hf): short side to 336 (bicubic), centre crop 336 x 336; with
    ``pad`` first ``expand2square`` onto the CLIP mean."""
    ops: list[tuple] = []
    ox = oy = 0
    sw, sh = w, h
    if pad and w != h:
        side = max(w, h)
        ox, oy = (side - w) // 2 if w < h else 0, (side - h) // 2 if h < w else 0
        ops.append(("pad", side, side, ox, oy, CLIP_MEAN_RGB))
        sw = sh = side
    rw, rh = _clip_short_side(sw, sh, 336)
    ops.append(("resize", rw, rh, "bicubic"))
    top, left = (rh - 336) // 2, (rw - 336) // 2
    ops.append(("crop", left, top, left + 336, top + 336))
    # crop box on the (padded) canvas, then back to input pixels
    sx, sy = sw / rw, sh / rh
    box = (left * sx - ox, top * sy - oy, (left + 336) * sx - ox, (top + 336) * sy - oy)
    box = (max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]), min(float(h), box[3]))
    seen = (round((box[2] - box[0]) * rw / sw), round((box[3] - box[1]) * rh / sh))
    name = "llava-1.5-pad" if pad else "llava-1.5"
    proc = ("LlavaImageProcessorPil(do_pad=True, size shortest_edge 336, crop 336, bicubic) = LLaVA expand2square"
            if pad else "CLIPImageProcessorPil(size shortest_edge 336, crop_size 336x336, bicubic)")
    return ViewPlan(name, (w, h), (Tile(tuple(ops), (336, 336), box),), seen, proc)


def smart_resize(h: int, w: int, factor: int = 28, min_pixels: int = 3136,
                 max_pixels: int = 12845056) -> tuple[int, int]:
    """Qwen2-VL's ``smart_resize``: (height, width) both multiples of ``factor``, area within the pixel budget.

    Raises ValueError when the aspect ratio exceeds 200 (the processor refuses it).

    Parameters
    ----------
    h, w : int
        The input's height and width, px.
    factor : int, optional
        Both sides become multiples of it.
    min_pixels, max_pixels : int, optional
        The pixel budget.

    Returns
    -------
    (int, int)
        (height, width).

    Examples
    --------
    >>> smart_resize(700, 1200)
    (700, 1204)
    """
    if max(h, w) / min(h, w) > 200:
        raise ValueError(f"an image of {w}x{h} px is refused: aspect ratio {max(h, w) / min(h, w):.0f} exceeds "
                         "200, the most Qwen2-VL's processor takes")
    hb, wb = round(h / factor) * factor, round(w / factor) * factor
    if hb * wb > max_pixels:
        beta = math.sqrt(h * w / max_pixels)
        hb = max(factor, math.floor(h / beta / factor) * factor)
        wb = max(factor, math.floor(w / beta / factor) * factor)
    elif hb * wb < min_pixels:
        beta = math.sqrt(min_pixels / (h * w))
        hb = math.ceil(h * beta / factor) * factor
        wb = math.ceil(w * beta / factor) * factor
    return hb, wb


def _qwen(name: str):
    def plan(w: int, h: int) -> ViewPlan:
        """Qwen2VLImageProcessorPil: ``smart_resize`` (factor 28 = patch 14 x merge 2, pixels 3136-12845056),
        bicubic."""
        rh, rw = smart_resize(h, w)
        return ViewPlan(name, (w, h), (Tile((("resize", rw, rh, "bicubic"),), (rw, rh), (0.0, 0.0, w, h)),),
                        (rw, rh), "Qwen2VLImageProcessorPil(min_pixels 3136, max_pixels 12845056, patch 14, "
                        "merge 2, bicubic)")
    return plan


def _longest_edge(w: int, h: int, max_len: int) -> tuple[int, int]:
    """Idefics3 ``_resize_output_size_rescale_to_max_len`` then ``..._scale_below_upper_bound(4096)``: (w, h)."""
    ar = w / h
    if w >= h:
        nw, nh = max_len, int(max_len / ar)
        nh += nh % 2
    else:
        nh, nw = max_len, int(max_len * ar)
        nw += nw % 2
    nw, nh = max(nw, 1), max(nh, 1)
    ar = nw / nh
    if nw >= nh and nw > 4096:
        nw, nh = 4096, int(4096 / ar)
    elif nh > nw and nh > 4096:
        nh, nw = 4096, int(4096 * ar)
    return max(nw, 1), max(nh, 1)


def _idefics(name: str, longest: int, tile: int, repo: str):
    def plan(w: int, h: int) -> ViewPlan:
        """Idefics3/SmolVLM ImageProcessorPil with splitting: long side to ``longest`` (Lanczos), then up to
        multiples of ``tile``, cut into ``tile`` squares row by row, then the whole squashed to ``tile`` last."""
        w1, h1 = _longest_edge(w, h, longest)
        ar = w1 / h1
        if w1 >= h1:
            w2 = math.ceil(w1 / tile) * tile
            h2 = math.ceil(int(w2 / ar) / tile) * tile
        else:
            h2 = math.ceil(h1 / tile) * tile
            w2 = math.ceil(int(h2 * ar) / tile) * tile
        base = (("resize", w1, h1, "lanczos"), ("resize", w2, h2, "lanczos"))
        tiles = []
        if h2 > tile or w2 > tile:
            rows, cols = (h2 - tile) // tile + 1, (w2 - tile) // tile + 1
            for r in range(rows):
                for c in range(cols):
                    box = (c * tile * w / w2, r * tile * h / h2, (c + 1) * tile * w / w2, (r + 1) * tile * h / h2)
                    tiles.append(Tile(base + (("crop", c * tile, r * tile, (c + 1) * tile, (r + 1) * tile),),
                                      (tile, tile), box))
            tiles.append(Tile(base + (("resize", tile, tile, "lanczos"),), (tile, tile), (0.0, 0.0, w, h)))
        else:
            tiles.append(Tile(base, (w2, h2), (0.0, 0.0, w, h)))
        return ViewPlan(name, (w, h), tuple(tiles), (w2, h2),
                        f"{'SmolVLM' if name == 'smolvlm' else 'Idefics3'}ImageProcessorPil(size longest_edge "
                        f"{longest}, max_image_size {tile}, lanczos, do_image_splitting) as in {repo}")
    return plan


def _internvl_grid(w: int, h: int, tile: int = 448, lo: int = 1, hi: int = 12) -> tuple[int, int]:
    """GotOcr2 ``get_optimal_tiled_canvas``: (columns, rows) closest to the image's aspect ratio."""
    grids = sorted(((a, b) for a in range(1, hi + 1) for b in range(1, hi + 1) if lo <= a * b <= hi),
                   key=lambda g: g[0] * g[1])
    ar, area = w / h, w * h
    best, best_diff = (1, 1), float("inf")
    for g in grids:
        diff = abs(ar - g[0] / g[1])
        if diff < best_diff:
            best, best_diff = g, diff
        elif diff == best_diff and area > 0.5 * tile * tile * g[0] * g[1]:
            best = g
    return best


def _internvl(w: int, h: int) -> ViewPlan:
    """GotOcr2ImageProcessorPil ``crop_image_to_patches``: resize to a grid of 448 px tiles (bicubic), tiles row
    by row, then the whole resized to 448 x 448 last (when there is more than one tile)."""
    cols, rows = _internvl_grid(w, h)
    cw, ch = 448 * cols, 448 * rows
    base = (("resize", cw, ch, "bicubic"),)
    tiles = [Tile(base + (("crop", c * 448, r * 448, (c + 1) * 448, (r + 1) * 448),), (448, 448),
                  (c * 448 * w / cw, r * 448 * h / ch, (c + 1) * 448 * w / cw, (r + 1) * 448 * h / ch))
             for r in range(rows) for c in range(cols)]
    if len(tiles) > 1:
        tiles.append(Tile((("resize", 448, 448, "bicubic"),), (448, 448), (0.0, 0.0, w, h)))
    else:
        tiles = [Tile(base, (448, 448), (0.0, 0.0, w, h))]
    return ViewPlan("internvl", (w, h), tuple(tiles), (cw, ch),
                    "GotOcr2ImageProcessorPil(crop_to_patches, size 448x448, patches 1-12, bicubic) as in "
                    "OpenGVLab/InternVL3-1B-hf")


def _squash(name: str, side: int, fil: str, proc: str):
    def plan(w: int, h: int) -> ViewPlan:
        """Resize to ``side`` x ``side`` regardless of aspect ratio."""
        return ViewPlan(name, (w, h), (Tile((("resize", side, side, fil),), (side, side), (0.0, 0.0, w, h)),),
                        (side, side), proc)
    return plan


def _gemma_pan_and_scan(w: int, h: int) -> ViewPlan:
    """Gemma3ImageProcessorPil with ``do_pan_and_scan`` (min crop 256, at most 4 crops, from an aspect ratio of
    1.2): the whole image squashed to 896 first, then each crop along the long side squashed to 896."""
    crops: list[tuple[int, int, int, int]] = []
    long_w = w >= h
    ratio = w / h if long_w else h / w
    if ratio >= 1.2:
        along, across = (w, h) if long_w else (h, w)
        n = min(int(math.floor(along / across + 0.5)), int(math.floor(along / 256)))
        n = min(4, max(2, n))
        cw, ch = (int(math.ceil(w / n)), h) if long_w else (w, int(math.ceil(h / n)))
        if min(cw, ch) >= 256:
            crops = [(i * cw, 0, min((i + 1) * cw, w), h) if long_w else (0, i * ch, w, min((i + 1) * ch, h))
                     for i in range(n)]
    tiles = [Tile((("resize", 896, 896, "bilinear"),), (896, 896), (0.0, 0.0, w, h))]
    tiles += [Tile((("crop", *c), ("resize", 896, 896, "bilinear")), (896, 896), tuple(map(float, c)))
              for c in crops]
    return ViewPlan("gemma-3-pan-and-scan", (w, h), tuple(tiles), (896 * max(1, len(crops)), 896) if long_w
                    else (896, 896 * max(1, len(crops))),
                    "Gemma3ImageProcessorPil(size 896x896, bilinear, do_pan_and_scan, min crop 256, 4 crops, "
                    "ratio 1.2)")


def _mllama_canvas(w: int, h: int, tile: int = 560, max_tiles: int = 4) -> tuple[int, int]:
    """Mllama ``get_optimal_tiled_canvas``: (canvas height, canvas width)."""
    arrangements = [(a, b) for a in range(1, max_tiles + 1) for b in range(1, max_tiles + 1) if a * b <= max_tiles]
    best = None
    scales = []
    for ch_t, cw_t in arrangements:  # first element is taken as the height, as transformers does
        sh, sw = ch_t * tile / h, cw_t * tile / w
        scales.append(sh if sw > sh else sw)
    ups = [s for s in scales if s >= 1]
    chosen = min(ups) if ups else max(s for s in scales if s < 1)
    for (ch_t, cw_t), s in zip(arrangements, scales):
        if s == chosen and (best is None or ch_t * cw_t < best[0] * best[1]):
            best = (ch_t, cw_t)
    return best[0] * tile, best[1] * tile


def _llama(w: int, h: int) -> ViewPlan:
    """MllamaImageProcessorPil: pick a canvas of up to 4 tiles of 560, fit the image (bilinear), pad black to the
    canvas's bottom and right, cut into 560 px tiles row by row."""
    ch, cw = _mllama_canvas(w, h)
    tw, th = min(max(w, 560), cw), min(max(h, 560), ch)
    sh, sw = th / h, tw / w
    if sw < sh:
        nw, nh = tw, min(math.floor(h * sw) or 1, th)
    else:
        nh, nw = th, min(math.floor(w * sh) or 1, tw)
    base = (("resize", nw, nh, "bilinear"), ("pad", cw, ch, 0, 0, (0, 0, 0)))
    tiles = []
    for r in range(ch // 560):
        for c in range(cw // 560):
            x0, y0, x1, y1 = c * 560, r * 560, min((c + 1) * 560, nw), min((r + 1) * 560, nh)
            box = (x0 * w / nw, y0 * h / nh, max(x0, x1) * w / nw, max(y0, y1) * h / nh)
            tiles.append(Tile(base + (("crop", c * 560, r * 560, (c + 1) * 560, (r + 1) * 560),), (560, 560), box))
    return ViewPlan("llama-3.2-vision", (w, h), tuple(tiles), (nw, nh),
                    "MllamaImageProcessorPil(size 560x560, max_image_tiles 4, bilinear, pad black)")


#: family -> planner(width, height) -> ViewPlan, for the families transformers implements.
HF_FAMILIES = {
    "llava-1.5": lambda w, h: _llava(w, h, pad=False),
    "llava-1.5-pad": lambda w, h: _llava(w, h, pad=True),
    "qwen2-vl": _qwen("qwen2-vl"),
    "qwen2.5-vl": _qwen("qwen2.5-vl"),
    "idefics3": _idefics("idefics3", 1456, 364, "HuggingFaceM4/Idefics3-8B-Llama3"),
    "smolvlm": _idefics("smolvlm", 1536, 384, "HuggingFaceTB/SmolVLM-Instruct"),
    "internvl": _internvl,
    "paligemma-224": _squash("paligemma-224", 224, "bicubic", "SiglipImageProcessorPil(size 224x224, bicubic)"),
    "paligemma-448": _squash("paligemma-448", 448, "bicubic", "SiglipImageProcessorPil(size 448x448, bicubic)"),
    "paligemma-896": _squash("paligemma-896", 896, "bicubic", "SiglipImageProcessorPil(size 896x896, bicubic)"),
    "gemma-3": _squash("gemma-3", 896, "bilinear", "Gemma3ImageProcessorPil(size 896x896, bilinear, no pan-and-scan)"),
    "gemma-3-pan-and-scan": _gemma_pan_and_scan,
    "llama-3.2-vision": _llama,
    "florence-2": _squash("florence-2", 768, "bicubic",
                          "CLIPImageProcessorPil(size 768x768, do_center_crop False, bicubic)"),
}


_CLIP = {"image_processor_type": ("CLIPImageProcessor",)}
#: family -> what its repository's preprocessor_config.json says, as far as the view depends on it: the processor
#: class (``image_processor_type``; a "Fast" suffix is the same geometry) and the values planned above.
PUBLISHED: dict[str, dict] = {
    "llava-1.5": {**_CLIP, "size": {"shortest_edge": 336}, "crop_size": {"height": 336, "width": 336},
                  "do_center_crop": True, "resample": 3},
    "qwen2-vl": {"image_processor_type": ("Qwen2VLImageProcessor",), "min_pixels": 3136, "max_pixels": 12845056,
                 "patch_size": 14, "merge_size": 2},
    "qwen2.5-vl": {"image_processor_type": ("Qwen2_5_VLImageProcessor",), "min_pixels": 3136,
                   "max_pixels": 12845056, "patch_size": 14, "merge_size": 2},
    "idefics3": {"image_processor_type": ("Idefics3ImageProcessor",), "size": {"longest_edge": 1456},
                 "max_image_size": {"longest_edge": 364}, "resample": 1, "do_image_splitting": True},
    "smolvlm": {"image_processor_type": ("Idefics3ImageProcessor", "SmolVLMImageProcessor"),
                "size": {"longest_edge": 1536}, "max_image_size": {"longest_edge": 384}, "resample": 1,
                "do_image_splitting": True},
    "internvl": {"image_processor_type": ("GotOcr2ImageProcessor",), "size": {"height": 448, "width": 448},
                 "max_patches": 12, "min_patches": 1, "resample": 3},
    "paligemma-224": {"image_processor_type": ("SiglipImageProcessor",), "size": {"height": 224, "width": 224},
                      "resample": 3},
    "paligemma-448": {"image_processor_type": ("SiglipImageProcessor",), "size": {"height": 448, "width": 448},
                      "resample": 3},
    "paligemma-896": {"image_processor_type": ("SiglipImageProcessor",), "size": {"height": 896, "width": 896},
                      "resample": 3},
    "gemma-3": {"image_processor_type": ("Gemma3ImageProcessor",), "size": {"height": 896, "width": 896},
                "resample": 2, "do_pan_and_scan": None},
    "llama-3.2-vision": {"image_processor_type": ("MllamaImageProcessor",), "size": {"height": 560, "width": 560},
                         "max_image_tiles": 4, "resample": 2},
    "florence-2": {**_CLIP, "size": {"height": 768, "width": 768}, "do_center_crop": False, "resample": 3},
}


def family_of_config(config) -> str | None:
    """The family whose published configuration (`PUBLISHED`) a ``preprocessor_config.json`` (a dict) holds:
    same processor class and every planned value equal (a missing ``do_pan_and_scan`` reads as null); None when
    no family matches exactly (a model whose processor we do not reproduce records no view unless one is named).

    Parameters
    ----------
    config : dict
        A ``preprocessor_config.json``.

    Returns
    -------
    str or None
        A view family, or None.

    Examples
    --------
    >>> family_of_config({"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 3136,
    ...                   "max_pixels": 12845056, "patch_size": 14, "merge_size": 2, "resample": 3})
    'qwen2-vl'
    >>> family_of_config({"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 3136,
    ...                   "max_pixels": 1003520, "patch_size": 14, "merge_size": 2}) is None
    True
    """
    if not isinstance(config, dict):
        return None
    kind = str(config.get("image_processor_type", "")).removesuffix("Fast")
    size = config.get("size")
    if kind.startswith("Qwen2") and "min_pixels" not in config and isinstance(size, dict):
        # newer Qwen configs keep the pixel budget in size (shortest_edge = min, longest_edge = max pixels)
        config = {**config, "min_pixels": size.get("shortest_edge"), "max_pixels": size.get("longest_edge")}
    for family, published in PUBLISHED.items():
        if kind not in published["image_processor_type"]:
            continue
        if all(config.get(key, None) == value for key, value in published.items() if key != "image_processor_type"):
            return family
    return None
