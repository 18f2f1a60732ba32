"""Benchmark the plate styles against what the papers' own generators draw, and their speed.

Run: python3 bench/bench_styles.py [--n 60] [--size 900]

For each style, ``--n`` plates of the preset that uses it (900 px, labels and colour sets drawn at random; text
masks warm, as in `plates generate`, where a label's mask serves every colour set), measured from the plates:

* dots (median), pixel coverage (median share of the disc's pixels that are not canvas), the radius range over
  all plates, and the gap between each dot and its nearest-centre neighbour (median and 5th percentile over all
  dots) -- targets: the issue's measurements of HueManity's released generator (2,029 dots, 0.764, 4-15 px,
  0.56 px / 0.00), of IshiharaMC's packer with CBE's Algorithm 1 colouring (647, 0.567, 4.5-27 px, 6.15 / 4.60)
  and of the dense style (2,126, 0.733, 3-15 px, 0.72 / 0.60); "within 10%" is the issue's criterion;
* render time (PlateSpec -> Plate with its standard image), median wall-clock and CPU time (time.process_time,
  which leaves out waiting for a core on a busy machine): <= 50 ms for cbe, <= 30 ms for huemanity,
  <= 15 ms for dense; IshiharaMC takes ~12 s per plate and HueManity's loop ~0.29 s;
* for the HueManity preset, the share of dots with a channel at 255 (released plates: 26%) and of near-white
  dots (every channel >= 250; released plates: 1.2%).

The machine's load average (``os.getloadavg``) is printed: other work on the cores slows the wall-clock times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from bench_plate import line

from plates.datasets import PRESETS, make_spec
from plates.stimuli.ishihara.plate import render

#: style -> (preset, dots, coverage, r_min, r_max, gap median, gap p5, render target ms), as measured on the papers' released generators
TARGETS = {
    "dense": ("huemanity-alnum-dense", 2126, 0.733, 3.0, 15.0, 0.72, 0.60, 15.0),
    "cbe": ("colorblindnesseval", 647, 0.567, 4.5, 27.0, 6.15, 4.60, 50.0),
    "huemanity": ("huemanity-alnum", 2029, 0.764, 4.0, 15.0, 0.56, 0.00, 30.0),
}


def nearest_centre_gaps(x: np.ndarray, y: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Per dot: centre distance to its nearest-centre neighbour minus both radii (px)."""
    from scipy.spatial import cKDTree

    d, j = cKDTree(np.c_[x, y]).query(np.c_[x, y], k=2)
    return d[:, 1] - r - r[j[:, 1]]


def within(name: str, value: float, target: float, unit: str = "") -> None:
    ratio = value / target if target else float("nan")
    verdict = "within 10%" if abs(ratio - 1) <= 0.10 else "OFF by more than 10%"
    print(f"{name:<46} {value:10.3f} {unit:<4} target {target:<8g} ratio {ratio:5.2f}  {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="plates per style (default 60)")
    ap.add_argument("--size", type=int, default=900)
    args = ap.parse_args()
    size, n = args.size, args.n
    yy, xx = np.mgrid[0:size, 0:size] + 0.5
    disc = (xx - size / 2) ** 2 + (yy - size / 2) ** 2 <= (size / 2) ** 2
    print(f"styles bench: {n} plates per style at {size} px; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores at the start")
    for style, (preset, dots_t, cov_t, rmin_t, rmax_t, gap_t, p5_t, ms_t) in TARGETS.items():
        p = PRESETS[preset]
        rng = np.random.default_rng(2024)
        labels = [p.labels[int(i)] for i in rng.integers(len(p.labels), size=20)]
        specs = [make_spec(preset, labels[i % 20], p.palettes[int(rng.integers(len(p.palettes)))], size=size,
                           seed=1000 + i) for i in range(n)]
        for s in specs[:20]:  # warm: masks cached, imports done
            render(s)
        wall, cpu, dots, cover, rmin, rmax, gaps, at255, white = [], [], [], [], [], [], [], [], []
        for s in specs:
            t0, c0 = time.perf_counter(), time.process_time()
            plate = render(s)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            k = 900 / size  # radii and gaps in px at 900 px
            dots.append(plate.r.size)
            cover.append(float((np.asarray(plate.image)[disc] != 255).any(axis=1).mean()))
            rmin.append(plate.r.min() * k)
            rmax.append(plate.r.max() * k)
            gaps.append(nearest_centre_gaps(plate.x, plate.y, plate.r) * k)
            at255.append(float((plate.dot_colours == 255).any(axis=1).mean()))
            white.append(float((plate.dot_colours >= 250).all(axis=1).mean()))
        g = np.concatenate(gaps)
        print(f"\n## {style} (preset {preset}: {p.convention})")
        within("dots, median", float(statistics.median(dots)), dots_t)
        within("pixel coverage of the disc, median", statistics.median(cover), cov_t)
        within("smallest radius, px at 900 px", min(rmin), rmin_t, "px")
        within("largest radius, px at 900 px", max(rmax), rmax_t, "px")
        within("gap to nearest-centre dot, median", float(np.median(g)), gap_t, "px")
        print(f"{'  gap, 5th percentile':<46} {np.percentile(g, 5):10.3f} px   target {p5_t:g} (absolute)")
        line("render median (mask cached)", statistics.median(wall) * 1e3, "ms", ms_t)
        line("  same, CPU time (excludes waiting for a core)", statistics.median(cpu) * 1e3, "ms", ms_t)
        print(f"{'  render min / p90':<46} {min(wall) * 1e3:10.2f} / {np.percentile(wall, 90) * 1e3:.2f} ms")
        if style == "huemanity":
            print(f"{'dots with a channel at 255 (released: 26%)':<46} {np.mean(at255):10.1%}")
            print(f"{'near-white dots, all >= 250 (released: 1.2%)':<46} {np.mean(white):10.1%}")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
