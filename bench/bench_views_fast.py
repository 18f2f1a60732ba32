"""How far transformers' torchvision-backed ("fast") image processors may be from the PIL-backed ones that
plates.models.views reproduces: each family's view with every resize done by torch's antialiased interpolation
instead of Pillow, compared in 8-bit levels.

Run: python3 bench/bench_views_fast.py [--plates 2]

torchvision is not installable beside this machine's CPU torch, so transformers' fast processors cannot run
here. What they call, ``torchvision.transforms.v2.functional.resize(uint8 tensor, antialias=True)``, resamples
with ``torch.nn.functional.interpolate(..., antialias=True)`` (natively on uint8 for bicubic on CPU; through
float32 with rounding elsewhere); this bench takes the float32 route with round-and-clamp, and bicubic where
Lanczos is asked (torchvision < 0.27 or CUDA: transformers' own fallback). So the figures APPROXIMATE the fast
variant's distance; they are not a measurement of transformers' fast processors. Printed per family: the max
and mean absolute difference in 8-bit levels over every tile's pixels, and the share of pixels more than one
level apart. No target: a figure to document (docs/model-views.md), not a speed.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from PIL import Image

from plates.models.views import HF_FAMILIES, view_plan
from plates.models.views.core import apply_op
from plates.stimuli.ishihara.plate import PlateSpec, render

MODES = {"bicubic": "bicubic", "bilinear": "bilinear", "lanczos": "bicubic", "nearest": "nearest"}
SIZES = [(512, 512), (1200, 700), (333, 517)]


def _torch_resize(img: Image.Image, w: int, h: int, name: str) -> Image.Image:
    x = torch.from_numpy(np.asarray(img).copy()).permute(2, 0, 1)[None].float()
    mode = MODES[name]
    kw = {} if mode == "nearest" else dict(antialias=True, align_corners=False)
    y = torch.nn.functional.interpolate(x, size=(h, w), mode=mode, **kw)
    return Image.fromarray(y[0].round().clamp(0, 255).to(torch.uint8).permute(1, 2, 0).numpy(), "RGB")


def fast_tiles(plan, image: Image.Image) -> list[np.ndarray]:
    memo = {(): image}
    out = []
    for tile in plan.tiles:
        for i in range(1, len(tile.ops) + 1):
            key = tile.ops[:i]
            if key not in memo:
                prev, op = memo[tile.ops[: i - 1]], tile.ops[i - 1]
                memo[key] = _torch_resize(prev, *op[1:]) if op[0] == "resize" else apply_op(prev, op, mask=False)
        out.append(np.asarray(memo[tile.ops]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plates", type=int, default=2)
    args = ap.parse_args(argv)
    plates = [np.asarray(render(PlateSpec(text="74", size=1200, seed=s, palette="huemanity-01")).image)
              for s in range(args.plates)]
    print(f"{'family':<22} {'max':>4} {'mean':>6} {'>1 level':>9}   (8-bit levels, Pillow vs torch antialias)")
    for family in HF_FAMILIES:
        worst, diffs = 0, []
        for px in plates:
            for w, h in SIZES:
                img = Image.fromarray(np.ascontiguousarray(px[:h, :w]))
                plan = view_plan(family, w, h)
                ours = plan.apply(img)
                for a, b in zip(ours, fast_tiles(plan, img)):
                    d = np.abs(a.astype(int) - b.astype(int))
                    worst = max(worst, int(d.max()))
                    diffs.append(d.ravel())
        d = np.concatenate(diffs)
        print(f"{family:<22} {worst:>4} {d.mean():6.2f} {(d > 1).mean():9.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
