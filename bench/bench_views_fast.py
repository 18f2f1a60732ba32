"""How far transformers' torchvision-backed ("fast") image processors are from the PIL-backed ones, per family:
pixels (8-bit levels) and the CIEDE2000 between figure and ground on the viewed pixels.

Run: python3 bench/bench_views_fast.py [--plates 3] [--size 1200]

Each open-weight family's view (``<family>``, the PIL-backed processor) against its ``<family>-fast`` twin (the
torchvision-backed one), both in numpy (``plates.models.views``), on HueManity plates cut to four sizes (square,
wide, tall, small). The ``-fast`` views equal the real fast processors within one level (checked on goldens from
torch 2.14.1 / torchvision 0.29.1 / transformers 5.24.0 in tests/models/views/test_fast.py), so these are the real
processors' differences up to that level. Printed per family: the max absolute difference over every tile's pixels,
the share of pixels more than one level apart, and the shift of the view's ΔE2000 median and 5th percentile
(``plates.models.views.measure.measure_view``, fast minus PIL), the largest over plates and sizes. No target: figures
to document (docs/model-views.md), not a speed.
"""

from __future__ import annotations

import argparse

import numpy as np
from PIL import Image

from plates.models.views import HF_FAMILIES, see
from plates.models.views.measure import measure_view, plate_regions
from plates.stimuli.ishihara.plate import PlateSpec, render

SIZES = [(1.0, 1.0), (1.0, 0.6), (0.6, 1.0), (0.3, 0.3)]  # (width, height) as shares of the plate's side


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plates", type=int, default=3)
    ap.add_argument("--size", type=int, default=1200, help="the plates' side in pixels")
    args = ap.parse_args(argv)
    plates = [render(PlateSpec(text="74", size=args.size, seed=s, palette="huemanity-01")) for s in range(args.plates)]
    print(f"{'family':<22} {'max':>4} {'>1 level':>9} {'ΔE median shift':>16} {'ΔE p05 shift':>13}")
    for family in HF_FAMILIES:
        worst, over, total, d_med, d_p05 = 0, 0, 0, 0.0, 0.0
        for plate in plates:
            rgb = np.asarray(plate.image.convert("RGB"))
            regions = plate_regions(plate)
            for fw, fh in SIZES:
                w, h = round(fw * args.size), round(fh * args.size)
                img = Image.fromarray(np.ascontiguousarray(rgb[:h, :w]))
                if (w, h) != (args.size, args.size) and fw == fh:  # the small size: the whole plate scaled down
                    img = plate.image.convert("RGB").resize((w, h), Image.Resampling.BICUBIC)
                    reg = regions
                else:
                    reg = {k: v[:h, :w] for k, v in regions.items()}
                for a, b in zip(see(img, family).images, see(img, f"{family}-fast").images):
                    d = np.abs(a.astype(int) - b.astype(int))
                    worst, over, total = max(worst, int(d.max())), over + int((d > 1).sum()), total + d.size
                slow, fast = measure_view(img, family, reg), measure_view(img, f"{family}-fast", reg)
                if slow["view_delta_e_median"] is not None:
                    med = fast["view_delta_e_median"] - slow["view_delta_e_median"]
                    p05 = fast["view_delta_e_p05"] - slow["view_delta_e_p05"]
                    d_med = med if abs(med) > abs(d_med) else d_med
                    d_p05 = p05 if abs(p05) > abs(d_p05) else d_p05
        print(f"{family:<22} {worst:>4} {over / total:9.3%} {d_med:+16.2f} {d_p05:+13.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
