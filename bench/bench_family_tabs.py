"""Benchmark the explorer's family tabs' work per event, without the web layer.

Run: python3 bench/bench_family_tabs.py [--n 12] [--size 512]

Prints each figure with its ratio to the target (ratio <= 1 meets it); medians, wall-clock (time.perf_counter)
and CPU (time.process_time, which leaves out waiting for a core on a busy machine):
* Illusions tab update (render + targets outlined + measured values + PNG encode), every kind cycled, 512 px:
  median <= 80 ms (the render alone has its own 20 ms target in bench/bench_illusions.py). Targets are ours.
* Scenes tab update (render + facts + question + PNG encode), 512 px: median <= 60 ms.
* The quiz's reader staircase (baseline-cnn, 30 trials, 512 px; run once per configuration, then cached):
  <= 10 s, the wait of the first visitor to reach a result page.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from plates.explorer import families as fv
from plates.explorer import quiz as qv
from plates.explorer.plate import png_bytes
from plates.explorer.policy import Policy


def line(name: str, value: float, unit: str, target: float) -> None:
    ratio = value / target
    print(f"{name:<52} {value:10.2f} {unit:<4} target <= {target:<8g} ratio {ratio:5.2f}  "
          f"{'meets' if ratio <= 1 else 'MISSES'}")


def timed(fn, n: int) -> tuple[float, float]:
    wall, cpu = [], []
    for i in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(i)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return 1000 * statistics.median(wall), 1000 * statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=12, help="updates to time per tab")
    ap.add_argument("--size", type=int, default=512)
    args = ap.parse_args()
    policy = Policy()

    def illusion(i: int) -> None:
        kind = fv.ILLUSION_KINDS[i % len(fv.ILLUSION_KINDS)]
        stim = fv.render_illusion_controls(fv.IllusionControls(kind, 1.0, 2.0, seed=i, size=args.size), policy)
        png_bytes(fv.outlined(stim))
        fv.illusion_markdown(stim)

    def scene(i: int) -> None:
        stim = fv.render_scene_controls(fv.SceneControls(seed=i, size=args.size, palette="xkcd-basic-11"), policy)
        png_bytes(stim.image)
        fv.scene_markdown(stim)
        fv.question_markdown(fv.make_question(stim, fv.SCENE_PROMPTS["colour-counting"]))

    illusion(0), scene(0)  # warm imports
    wall, cpu = timed(illusion, args.n)
    line(f"illusion tab update, {args.size} px (wall)", wall, "ms", 80)
    line(f"illusion tab update, {args.size} px (CPU)", cpu, "ms", 80)
    wall, cpu = timed(scene, args.n)
    line(f"scene tab update, {args.size} px (wall)", wall, "ms", 60)
    line(f"scene tab update, {args.size} px (CPU)", cpu, "ms", 60)

    session = qv.start_session(qv.QuizConfig(size=args.size), agreed=True, started=0)
    with tempfile.TemporaryDirectory() as root:
        t0, c0 = time.perf_counter(), time.process_time()
        estimate = qv.ReaderCache(root).estimate(session.staircase)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    line(f"quiz reader staircase, {estimate.trials} trials (wall)", wall, "s", 10)
    line(f"quiz reader staircase, {estimate.trials} trials (CPU)", cpu, "s", 10)
    print(f"reader threshold {estimate.threshold:.2f} ΔE2000 [{estimate.ci_low:.2f}, {estimate.ci_high:.2f}]")


if __name__ == "__main__":
    main()
