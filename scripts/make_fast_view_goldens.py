"""Golden outputs of transformers' REAL torchvision-backed ("fast") image processors, for the numpy ``-fast`` views.

Run it in a separate environment that has torchvision (it cannot be installed beside the project's torch):

    python3 -m venv /tmp/fastvenv
    /tmp/fastvenv/bin/pip install torch==2.14.1 torchvision==0.29.1 transformers==5.24.0 pillow==12.3.0 numpy==2.4.6
    /tmp/fastvenv/bin/python scripts/make_fast_view_goldens.py

It needs only torch, torchvision, transformers, Pillow and numpy (not the ``plates`` package): the input is the
committed plate ``tests/data/views-fast/plate-74.png`` (``PlateSpec(text="74", size=1200, seed=3)``, sRGB
0-255), cut to five sizes as ``tests/models/views/test_hf.py`` does. Each family's fast processor is built offline
with the same published ``preprocessor_config.json`` values as the PIL ones in ``test_hf.py`` (the two tables are
one: this script imports it from there when ``plates`` is importable, else reads the copy below), run on CPU,
and its pixel tensor de-normalised back to sRGB 0-255 (float64, unrounded).

Written to ``tests/data/views-fast/goldens.npz`` (small: full tiles would be tens of MB): per family and size the
tile shapes, each tile's mean per channel (unrounded), and the values (rounded to 8 bits) at up to 2,300
pixels per tile: every pixel where the
fast output differs from the PIL processor's by more than half a level (a random subset when more), plus 300
random pixels. ``resize.npz`` holds torchvision's resize itself of a 97 x 61 noise image to five sizes
with each filter (whole outputs). ``versions.json`` records torch, torchvision, transformers, Pillow, numpy and the CPU capability
torch used (the uint8 kernels are per instruction set). ``diffs.json`` records, per family, the fast-vs-PIL
distance over all the pixels (max, mean and share > 1 level), for docs/model-views.md.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import numpy as np
import PIL
import torch
import torchvision
import transformers
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "views-fast"
sys.path.insert(0, str(ROOT / "tests" / "models" / "views"))
from processors import PROCESSORS, SIZES, cut, tiles_from_processor  # noqa: E402

SAMPLE_DIFF, SAMPLE_RANDOM = 2000, 300
#: torch's resize itself on noise (every level, overshoot and clipping): (width, height) targets of a 97 x 61 image
NOISE_SIZES = [(40, 25), (150, 90), (97, 200), (13, 61), (300, 7)]


def resize_goldens() -> dict[str, np.ndarray]:
    """``torchvision.transforms.v2.functional.resize(uint8, antialias=True)`` of seeded noise, whole, per filter."""
    from torchvision.transforms.v2 import functional as tvF

    noise = np.random.default_rng(61).integers(0, 256, (61, 97, 3), dtype=np.uint8)
    out = {"noise": noise}
    modes = {"bilinear": tvF.InterpolationMode.BILINEAR, "bicubic": tvF.InterpolationMode.BICUBIC,
             "lanczos": tvF.InterpolationMode.LANCZOS}
    tensor = torch.from_numpy(noise.copy()).permute(2, 0, 1).contiguous()
    for name, mode in modes.items():
        for w, h in NOISE_SIZES:
            y = tvF.resize(tensor, [h, w], interpolation=mode, antialias=True)
            out[f"{name}|{w}x{h}"] = y.permute(1, 2, 0).numpy().copy()
    return out


def main() -> int:
    plate = np.asarray(Image.open(OUT / "plate-74.png").convert("RGB"))
    rng = np.random.default_rng(38)
    arrays: dict[str, np.ndarray] = {}
    diffs: dict[str, dict] = {}
    for family, (cls_name, config, call) in PROCESSORS.items():
        fast = getattr(transformers, cls_name.removesuffix("Pil"))(**config)
        slow = getattr(transformers, cls_name)(**config)
        if fast.backend != "torchvision":
            raise SystemExit(f"{family}: {type(fast).__name__} is not torchvision-backed")
        all_d = []
        for w, h in SIZES:
            image = cut(plate, w, h)
            theirs = tiles_from_processor(family, fast(image, return_tensors="pt", **call), config)
            pil = tiles_from_processor(family, slow(image, return_tensors="np", **call), config)
            key = f"{family}|{w}x{h}"
            arrays[f"{key}|shapes"] = np.array([t.shape for t in theirs], dtype=np.int32)
            for i, (t, p) in enumerate(zip(theirs, pil)):
                d = np.abs(np.rint(t) - np.rint(p))  # 8-bit levels (the floats carry ~1e-5 of float32 noise)
                all_d.append(d.ravel())
                d = d.max(axis=2)
                ys, xs = np.nonzero(d > 0.5)
                if len(ys) > SAMPLE_DIFF:
                    keep = rng.choice(len(ys), SAMPLE_DIFF, replace=False)
                    ys, xs = ys[keep], xs[keep]
                ry, rx = rng.integers(0, t.shape[0], SAMPLE_RANDOM), rng.integers(0, t.shape[1], SAMPLE_RANDOM)
                yx = np.stack([np.concatenate([ys, ry]), np.concatenate([xs, rx])], axis=1).astype(np.uint16)
                arrays[f"{key}|{i}|yx"] = yx
                arrays[f"{key}|{i}|values"] = np.clip(np.rint(t[yx[:, 0], yx[:, 1]]), 0, 255).astype(np.uint8)
                arrays[f"{key}|{i}|mean"] = t.reshape(-1, 3).mean(axis=0)
        d = np.concatenate(all_d)
        diffs[family] = {"max": round(float(d.max()), 3), "mean": round(float(d.mean()), 4),
                         "share_over_1": round(float((d > 1.0).mean()), 5)}
        print(f"{family:<22} fast vs PIL: max {d.max():6.2f}  mean {d.mean():.3f}  >1 level {(d > 1).mean():.3%}")
    np.savez_compressed(OUT / "goldens.npz", **arrays)
    np.savez_compressed(OUT / "resize.npz", **resize_goldens())
    versions = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                "transformers": transformers.__version__, "pillow": PIL.__version__, "numpy": np.__version__,
                "python": platform.python_version(), "machine": platform.machine(),
                "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
                "sizes": [list(s) for s in SIZES], "plate": "PlateSpec(text='74', size=1200, seed=3)"}
    (OUT / "versions.json").write_text(json.dumps(versions, indent=1) + "\n", encoding="utf-8")
    (OUT / "diffs.json").write_text(json.dumps(diffs, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
