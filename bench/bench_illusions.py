"""Benchmark the illusion family: render time per kind, and a 2,000-image set generated on 2 cores.

Run: python3 bench/bench_illusions.py [--n 30] [--size 512] [--images 2000] [--workers 2]

Prints each figure with its ratio to the target (ratio <= 1 meets it):
* render median per kind (IllusionSpec -> Stimulus: image, masks, truth measured on the pixels), 512 px,
  over ``--n`` specs with varied seeds and target differences: target <= 20 ms for every kind. Wall-clock
  (time.perf_counter) and CPU time (time.process_time, which leaves out waiting for a core on a busy
  machine) are both printed; the verdict uses the wall-clock median.
* a 2,000-image sweep (every kind x signed ΔE2000 -6..6 x strength 0 / 0.5 / 1 x swap x layout, cycled),
  rendered and PNG-encoded (`plates.images.encode_png`) and written to a temporary folder by ``--workers``
  forked processes: target <= 60 s. With ``--images`` below 2,000 the time is extrapolated linearly (the
  line says so); the CPU-time figure (sum over workers / workers) is what idle cores would take.
Timings are wall-clock on whatever else this machine runs: rerun on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing as mp
import os
import shutil
import statistics
import tempfile
import time

from plates.images import encode_png
from plates.stimuli.illusions import KINDS, IllusionSpec, render

TARGET_RENDER_MS = 20.0
TARGET_SET_S = 60.0
SET_SIZE = 2000


def line(name: str, value: float, unit: str, target: float) -> None:
    ratio = value / target
    verdict = "meets" if ratio <= 1 else "MISSES"
    print(f"{name:<48} {value:10.2f} {unit:<3} target <= {target:<6g} ratio {ratio:5.2f}  {verdict}")


def sweep(n: int, size: int) -> list[IllusionSpec]:
    """``n`` specs cycling kinds, differences, strengths, swaps and layouts (a stand-in for a magnitude
    preset)."""
    grid = itertools.product(
        [-6.0, -3.0, -1.5, 0.0, 1.5, 3.0, 6.0], [0.0, 0.5, 1.0], [False, True], ["left-right", "up-down"]
    )
    combos = list(grid)
    return [
        IllusionSpec(
            KINDS[i % len(KINDS)],
            size=size,
            seed=i,
            delta_e=combos[i % len(combos)][0],
            strength=combos[i % len(combos)][1],
            swap=combos[i % len(combos)][2],
            layout=combos[i % len(combos)][3],
        )
        for i in range(n)
    ]


def _work(job: tuple[str, list[str]]) -> tuple[float, int]:
    folder, specs = job
    c0 = time.process_time()
    written = 0
    for text in specs:
        spec = IllusionSpec.from_json(text)
        data = encode_png(render(spec).image)
        with open(os.path.join(folder, f"{spec.kind}-{spec.seed}.png"), "wb") as fh:
            fh.write(data)
        written += len(data)
    return time.process_time() - c0, written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="renders timed per kind")
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument(
        "--images", type=int, default=SET_SIZE, help="images in the set run (extrapolated to 2,000)"
    )
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    render(IllusionSpec("whites", size=64))  # imports colour-science (~1.5 s, once per process)

    ms = 1e3
    print(
        f"illusion bench: {args.n} renders per kind at {args.size} px; set of {args.images} on "
        f"{args.workers} "
        "workers"
    )
    for kind in KINDS:
        wall, cpu = [], []
        for i in range(args.n):
            spec = IllusionSpec(
                kind, size=args.size, seed=i, delta_e=(-3.0, 0.0, 1.5)[i % 3], swap=bool(i % 2)
            )
            t0, c0 = time.perf_counter(), time.process_time()
            render(spec)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        line(f"render median {kind}", statistics.median(wall) * ms, "ms", TARGET_RENDER_MS)
        p90 = sorted(wall)[int(0.9 * len(wall))]
        print(f"{'  CPU median / wall p90':<48} {statistics.median(cpu) * ms:10.2f} / {p90 * ms:.2f} ms")

    stims = [render(s) for s in sweep(36, args.size)]
    enc = []
    for s in stims:
        t0 = time.perf_counter()
        encode_png(s.image)
        enc.append(time.perf_counter() - t0)
    print(f"{'encode_png median (512 px illusion)':<48} {statistics.median(enc) * ms:10.2f} ms")

    specs = [s.to_json() for s in sweep(args.images, args.size)]
    folder = tempfile.mkdtemp(prefix="bench-illusions-")
    chunks = [specs[i :: args.workers * 8] for i in range(args.workers * 8)]
    try:
        t0 = time.perf_counter()
        with mp.get_context("fork").Pool(args.workers) as pool:
            results = pool.map(_work, [(folder, c) for c in chunks])
        wall_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    cpu_s = sum(r[0] for r in results)
    scale = SET_SIZE / args.images
    label = "measured" if args.images == SET_SIZE else f"extrapolated x{scale:.2f}"
    line(f"2,000 images, {args.workers} workers ({label})", wall_s * scale, "s", TARGET_SET_S)
    line("  same from CPU time / workers", cpu_s / args.workers * scale, "s", TARGET_SET_S)
    print(f"{'  PNG bytes per image (mean)':<48} {sum(r[1] for r in results) / len(specs):10.0f} B")


if __name__ == "__main__":
    main()
