"""Benchmark one plate: render time, packing vs. Pillow drawing, dots and coverage against the speed targets.

Run: python3 bench/bench_plate.py [--n 60] [--size 900]

Prints each figure with its ratio to the target (ratio <= 1 meets it):
* render in memory (PlateSpec -> Plate with its standard image), 900 px, median <= 15 ms. Text masks are cached
  per (text, font, size) as the generator reuses them across palettes; the cold (first-use) mask cost is
  printed separately. HueManity's own generator: 140 ms per plate.
* packing time / time Pillow takes to draw the same dots (ImageDraw.ellipse per dot) <= 2.
* dots >= 2,000 and coverage (dot area / disc area) >= 0.70 at 900 px, worst plate of the sample.
Timings are wall-clock (time.perf_counter) on whatever else the machine is doing, plus the same in CPU time
(time.process_time), which leaves out time spent waiting for a core on a busy machine: rerun on a quiet one.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from PIL import Image, ImageDraw

from plates.stimuli.ishihara.glyphs import text_mask
from plates.stimuli.ishihara.labels import HUEMANITY_ALNUM
from plates.stimuli.ishihara.packing import pack_circles
from plates.stimuli.ishihara.plate import PlateSpec, render


def line(name: str, value: float, unit: str, target: float, lower_is_better: bool = True) -> None:
    ratio = value / target if lower_is_better else target / value
    verdict = "meets" if ratio <= 1 else "MISSES"
    print(f"{name:<46} {value:10.2f} {unit:<4} target {'<=' if lower_is_better else '>='} {target:<8g} "
          f"ratio {ratio:5.2f}  {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="plates to time")
    ap.add_argument("--size", type=int, default=900)
    args = ap.parse_args()
    distinct = [HUEMANITY_ALNUM[i * 37 % len(HUEMANITY_ALNUM)] for i in range(20)]  # within the mask cache
    labels = [distinct[i % len(distinct)] for i in range(args.n)]
    base = PlateSpec("A7", size=args.size)
    render(base)  # warm imports and caches

    cold = []
    for t in distinct[:10]:
        t0 = time.perf_counter()
        text_mask(t, base.font, args.size, base.r_max, base.text_scale)
        cold.append(time.perf_counter() - t0)
    for t in distinct:  # as in `plates generate`, where each label's mask serves its 25 colour pairs
        text_mask(t, base.font, args.size, base.r_max, base.text_scale)

    times, cpu, dots, cover = [], [], [], []
    for i, t in enumerate(labels):
        spec = base.replace(text=t, seed=i, palette=f"huemanity-{i % 25 + 1:02d}")
        t0, c0 = time.perf_counter(), time.process_time()
        plate = render(spec)
        plate.image  # noqa: B018 - the standard image is part of the render
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        dots.append(len(plate.r))
        cover.append(float(np.sum(plate.r**2)) / (args.size / 2) ** 2)

    pack_t, pil_t, pack_c, pil_c = [], [], [], []
    for i in range(min(args.n, 30)):
        rng = np.random.Generator(np.random.PCG64(1000 + i))
        t0, c0 = time.perf_counter(), time.process_time()
        p = pack_circles(args.size / 2, base.r_min, base.r_max, base.r_gap, rng, target_coverage=base.density)
        pack_t.append(time.perf_counter() - t0)
        pack_c.append(time.process_time() - c0)
        im = Image.new("RGB", (args.size, args.size), (255, 255, 255))
        d = ImageDraw.Draw(im)
        t0, c0 = time.perf_counter(), time.process_time()
        for x, y, r in zip(p.x.tolist(), p.y.tolist(), p.r.tolist()):
            d.ellipse((x - r, y - r, x + r, y + r), fill=(178, 34, 34))
        pil_t.append(time.perf_counter() - t0)
        pil_c.append(time.process_time() - c0)

    ms = 1e3
    print(f"plate bench: {args.n} plates at {args.size} px, default spec (radii {base.r_min:g}-{base.r_max:g} px, "
          f"gap {base.r_gap:g} px, density {base.density})")
    line("render median (mask cached)", statistics.median(times) * ms, "ms", 15.0)
    line("  same, CPU time (excludes waiting for a core)", statistics.median(cpu) * ms, "ms", 15.0)
    print(f"{'  render min / p90':<46} {min(times) * ms:10.2f} / {np.percentile(times, 90) * ms:.2f} ms")
    print(f"{'  text mask, first use (cached after)':<46} {statistics.median(cold) * ms:10.2f} ms")
    print(f"{'  vs HueManity generator (140 ms)':<46} {140 / (statistics.median(times) * ms):10.1f} x faster")
    line("packing / Pillow drawing the same dots", statistics.median(pack_t) / statistics.median(pil_t), "x", 2.0)
    print(f"{'  packing median / Pillow drawing median':<46} {statistics.median(pack_t) * ms:10.2f} / "
          f"{statistics.median(pil_t) * ms:.2f} ms")
    line("  same ratio in CPU time", statistics.median(pack_c) / statistics.median(pil_c), "x", 2.0)
    line("dots, worst plate", float(min(dots)), "", 2000, lower_is_better=False)
    line("coverage, worst plate", float(min(cover)), "", 0.70, lower_is_better=False)


if __name__ == "__main__":
    main()
