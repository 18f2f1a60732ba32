"""Benchmark synthetic colour scenes against the speed targets: one render, and a whole preset with robustness.

Run: python3 bench/bench_scenes.py [--n 100] [--items 3000] [--workers 2] [--sample 1.0]

Prints each figure with its ratio to the target (ratio <= 1 meets it):
* render in memory (SceneSpec -> Stimulus with image, masks and truth), 512 px, default spec, median <= 10 ms
  (also shown: soft shading, tight colour spacing, a cluttered 14-object scene, one recoloured variant).
* a whole preset of >= 3,000 items generated (render + question + `plates.images.encode_png`) on 2 worker
  processes <= 60 s. The preset here is representative, not the lead's final one: half perception/reasoning
  items (the six ColorBench tasks over varied difficulty: 3-10 objects, min ΔE2000 4-30, clutter 0-0.6,
  palette scenes for the tasks that name colours, single-colour patches for Colour Extraction), half
  robustness items (seed scenes with a shape-counting question, each seed plus its nine recoloured variants =
  10 images). With ``--sample`` < 1 only that share of the items is generated and the time is extrapolated
  linearly (printed as such). Wall time includes starting the worker processes and their imports.
Timings are wall-clock (time.perf_counter) on whatever else the machine is doing, plus CPU time
(time.process_time) for the single render, which leaves out waiting for a core on a busy machine.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time

import numpy as np

from plates.images import encode_png
from plates.stimuli.scenes import SHAPES, SceneSpec, render
from plates.stimuli.scenes.recolour import recolour
from plates.tasks.scenes.colorbench import NotAskable, build_question, robustness_items

PR_TASKS = ("colour-extraction", "colour-proportion", "colour-counting", "object-counting", "colour-comparison",
            "colour-recognition")
NAMED = {"colour-proportion", "object-counting", "colour-recognition"}


def line(name: str, value: float, unit: str, target: float, lower_is_better: bool = True) -> None:
    ratio = value / target if lower_is_better else target / value
    verdict = "meets" if ratio <= 1 else "MISSES"
    print(f"{name:<48} {value:10.2f} {unit:<4} target {'<=' if lower_is_better else '>='} {target:<8g} "
          f"ratio {ratio:5.2f}  {verdict}")


def _pr_spec(task: str, i: int, attempt: int) -> SceneSpec:
    rng = np.random.Generator(np.random.PCG64([i, attempt, 7]))
    seed = int(rng.integers(2**31))
    if task == "colour-extraction":
        return SceneSpec(seed=seed, n_regions=0, n_colours=0, background=None)
    n = int(rng.integers(3, 11))
    k = int(rng.integers(2, min(n, 6) + 1))
    if task in NAMED:
        return SceneSpec(seed=seed, n_regions=n, n_colours=k, palette="xkcd-basic-11", min_delta_e=15,
                         shapes=SHAPES, clutter=float(rng.choice([0.0, 0.3])))
    return SceneSpec(seed=seed, n_regions=n, n_colours=k, min_delta_e=float(rng.choice([4, 8, 15, 30])),
                     spacing=str(rng.choice(["spread", "tight"])), clutter=float(rng.choice([0.0, 0.3, 0.6])),
                     area_ratio=float(rng.choice([1, 4, 10])), shapes=SHAPES)


def _pr_item(arg: tuple[str, int]) -> tuple[int, int]:
    """One perception/reasoning item: (bytes written, scenes that could not carry the question)."""
    task, i = arg
    for attempt in range(20):
        stim = render(_pr_spec(task, i, attempt))
        try:
            build_question(task, stim, seed=i, n_options=3 if task == "colour-comparison" else 4)
        except NotAskable:
            continue
        return len(encode_png(stim.image)), attempt
    raise RuntimeError(f"{task} item {i}: no askable scene in 20 tries")


def _robust_seed(i: int) -> tuple[int, int]:
    """One robustness seed: the seed and its nine variants, each encoded (bytes, skipped scenes)."""
    for attempt in range(20):
        spec = SceneSpec(seed=10_000 + 97 * i + attempt, n_regions=6, n_colours=4, palette="xkcd-basic-11",
                         min_delta_e=15, shapes=SHAPES[:5])
        stim = render(spec)
        try:
            q = build_question("shape-counting", stim, seed=i)
            items = robustness_items(stim, q)
        except (NotAskable, ValueError):
            continue
        return sum(len(encode_png(it.stimulus.image)) for it in items), attempt
    raise RuntimeError(f"robustness seed {i}: no usable scene in 20 tries")


def _job(job: tuple[str, object]) -> tuple[int, int, int]:
    kind, arg = job
    if kind == "pr":
        size, skipped = _pr_item(arg)  # type: ignore[arg-type]
        return 1, size, skipped
    size, skipped = _robust_seed(arg)  # type: ignore[arg-type]
    return 10, size, skipped


def bench_render(n: int) -> None:
    base = SceneSpec()
    render(base)  # warm imports and caches (colour-science, the farthest-point bound)
    cases = {
        "render median, 512 px default spec": base,
        "  soft shading": base.replace(shading="soft"),
        "  tight spacing, 8 colours at ΔE 5": base.replace(n_regions=10, n_colours=8, min_delta_e=5, spacing="tight"),
        "  14 objects, clutter 0.6, all shapes": base.replace(n_regions=14, n_colours=6, clutter=0.6, fill=0.5,
                                                              shapes=SHAPES, min_delta_e=10),
    }
    for name, spec in cases.items():
        render(spec)
        wall, cpu = [], []
        for s in range(n):
            t0, c0 = time.perf_counter(), time.process_time()
            render(spec.replace(seed=s))
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        if name.startswith("render"):
            line(name, statistics.median(wall) * 1e3, "ms", 10.0)
            line("  same, CPU time (excludes waiting for a core)", statistics.median(cpu) * 1e3, "ms", 10.0)
            print(f"{'  min / p90':<48} {min(wall) * 1e3:10.2f} / {np.percentile(wall, 90) * 1e3:.2f} ms")
        else:
            print(f"{name:<48} {statistics.median(wall) * 1e3:10.2f} ms (CPU {statistics.median(cpu) * 1e3:.2f} ms)")
    stim = render(base.replace(palette="xkcd-basic-11", min_delta_e=15))
    rec, enc = [], []
    for d in range(n):
        t0 = time.perf_counter()
        recolour(stim, ("region-0",), 90 + d % 3 * 90)
        rec.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        encode_png(stim.image)
        enc.append(time.perf_counter() - t0)
    print(f"{'  one recoloured variant (target region)':<48} {statistics.median(rec) * 1e3:10.2f} ms")
    print(f"{'  encode_png, 512 px scene':<48} {statistics.median(enc) * 1e3:10.2f} ms")


def bench_preset(items: int, workers: int, sample: float) -> None:
    half = items // 2
    seeds = (items - half + 9) // 10
    jobs: list[tuple[str, object]] = [("pr", (PR_TASKS[i % len(PR_TASKS)], i)) for i in range(half)]
    jobs += [("robust", i) for i in range(seeds)]
    total_items = half + 10 * seeds
    step = max(1, round(1 / sample))
    run = jobs[::step]
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(workers) as pool:
        out = pool.map(_job, run, chunksize=8)
    wall = time.perf_counter() - t0
    made = sum(o[0] for o in out)
    size = sum(o[1] for o in out)
    skipped = sum(o[2] for o in out)
    print(f"preset: {total_items} items ({half} perception/reasoning over {len(PR_TASKS)} tasks, {seeds} robustness "
          f"seeds x 10 images), {workers} worker processes")
    if step > 1:
        est = wall * total_items / made
        print(f"  generated a 1/{step} sample: {made} items in {wall:.1f} s; extrapolated linearly to the whole preset")
        line("whole preset (EXTRAPOLATED from the sample)", est, "s", 60.0)
    else:
        line("whole preset, wall time", wall, "s", 60.0)
    print(f"{'  items per second':<48} {made / wall:10.1f}")
    print(f"{'  PNG bytes per item (mean)':<48} {size / made / 1e3:10.1f} kB")
    print(f"{'  scenes re-drawn because not askable':<48} {skipped:10d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="renders to time per case")
    ap.add_argument("--items", type=int, default=3000, help="items in the preset (>= 3000 for the target)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sample", type=float, default=1.0, help="share of the preset to generate (extrapolated)")
    ap.add_argument("--skip-preset", action="store_true")
    args = ap.parse_args()
    if not 0 < args.sample <= 1:
        raise SystemExit(f"--sample {args.sample} is not valid; allowed: 0 < sample <= 1")
    bench_render(args.n)
    if not args.skip_preset:
        bench_preset(args.items, args.workers, args.sample)


if __name__ == "__main__":
    main()
