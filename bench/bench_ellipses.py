"""Benchmark the ellipse fit on simulated observers with known ellipses, and time an ellipse run.

Run: PYTHONPATH=. python bench/bench_ellipses.py [--runs 4] [--trials 30] [--size 192] [--time-trials 10]
     [--skip-time] [--dither] [--only ratio2-theta120]

Part 1, the fit's bias and spread. Simulated observers (`plates.models.simulated.EllipseObserver`: logistic
slope 6 per unit of Mahalanobis distance, lapse 2%, the ellipse as their threshold contour) with three known
ellipses at MacAdam's centre 13 (x 0.305, y 0.323, Y half the sRGB maximum): a = 6e-3 xy with axis ratios 3
(theta 30°), 2 (120°) and 1.2 (0°). Each runs `plates.runs.ellipses.run_ellipses` (8 directions in u'v', the
huemanity-numeric prompt: 90 labels, γ = 1/90) ``--runs`` times with different seeds at ``--trials`` answers
per direction. Printed per observer: the area ratio (fitted / true) mean and SD over runs, the orientation
error mean and SD, how often the 95% intervals cover the truth. Targets: |mean area ratio − 1| <= 5%; where
the axis ratio exceeds 1.5, |mean orientation error| <= 5°.

Part 2, time: 3 MacAdam centres (13, 14, 15) x 8 directions x ``--time-trials`` answers with the bundled reader
(backend baseline) on this machine; printed as total seconds and seconds per trial, with the load (uptime).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore", message=".*Matplotlib.*")

from plates.models import simulated  # noqa: E402
from plates.models.simulated import EllipseObserver, fixed_ellipse  # noqa: E402
from plates.runs.ellipse_plan import EllipseRun, parse_centres  # noqa: E402
from plates.runs.ellipses import run_ellipses  # noqa: E402
from plates.runs.experiment import ModelSpec  # noqa: E402

OBSERVERS = {"ratio3-theta30": (6e-3, 2e-3, 30.0), "ratio2-theta120": (6e-3, 3e-3, 120.0),
             "ratio1.2-theta0": (6e-3, 5e-3, 0.0)}


def part_fit(runs: int, trials: int, size: int, dither: bool = False, only: str | None = None) -> bool:
    centres, _ = parse_centres("0.305,0.323")
    ok = True
    print(f"fit: {runs} runs x 8 directions x {trials} trials per direction, plates {size} px"
          f"{', dithered' if dither else ''}")
    for name, (a, b, theta) in OBSERVERS.items():
        if only is not None and name != only:
            continue
        ratios, errors, cover = [], [], {"a": 0, "b": 0, "theta": 0, "area": 0}
        for seed in range(runs):
            setattr(simulated, f"_bench_{seed}", EllipseObserver(fixed_ellipse(a, b, theta), seed=seed))
            with tempfile.TemporaryDirectory() as out:
                run = EllipseRun(centres=tuple(centres), trials=trials, seed=seed, size=size, out=out, dither=dither,
                                 model=ModelSpec("python", f"plates.models.simulated:_bench_{seed}", 512, 0.0, {}))
                e = run_ellipses(run).ellipses[0]
            if e["status"] != "fit":
                print(f"  {name} seed {seed}: status {e['status']} ({e['message']})")
                continue
            ratios.append(e["area"] / (np.pi * a * b))
            errors.append((e["theta_deg"] - theta + 90) % 180 - 90)
            cover["a"] += e["a_low"] <= a <= e["a_high"]
            cover["b"] += e["b_low"] <= b <= e["b_high"]
            cover["theta"] += e["theta_low"] <= theta <= e["theta_high"] or e["theta_low"] <= theta - 180 <= \
                e["theta_high"] or e["theta_low"] <= theta + 180 <= e["theta_high"]
            cover["area"] += e["area_low"] <= np.pi * a * b <= e["area_high"]
        if not ratios:
            print(f"  {name}: no fit")
            ok = False
            continue
        bias = float(np.mean(ratios)) - 1
        meets_area = abs(bias) <= 0.05
        line = (f"  {name}: area ratio {np.mean(ratios):.3f} ± {np.std(ratios):.3f} (target |bias| <= 5%: "
                f"{'meets' if meets_area else 'MISSES'})")
        meets_theta = True
        if a / b > 1.5:
            meets_theta = abs(float(np.mean(errors))) <= 5.0
            line += (f"; orientation error {np.mean(errors):+.1f} ± {np.std(errors):.1f} deg (target |mean| <= 5: "
                     f"{'meets' if meets_theta else 'MISSES'})")
        line += f"; 95% intervals cover a/b/theta/area in {cover['a']}/{cover['b']}/{cover['theta']}/" \
                f"{cover['area']} of {len(ratios)}"
        print(line)
        ok = ok and meets_area and meets_theta
    return ok


def part_time(trials: int, size: int) -> None:
    from plates.analysis.ellipses import macadam_ellipses

    t = macadam_ellipses()
    picks = [12, 13, 14]  # macadam-13, -14, -15
    text = ";".join(f"{t['x'][i]},{t['y'][i]}" for i in picks)
    centres, _ = parse_centres(text)
    with tempfile.TemporaryDirectory() as out:
        run = EllipseRun(centres=tuple(centres), trials=trials, size=size, out=out,
                         model=ModelSpec("baseline", "baseline-cnn", 512, 0.0, {}))
        start = time.perf_counter()
        result = run_ellipses(run)
        seconds = time.perf_counter() - start
    print(f"time: 3 centres x 8 directions x {trials} trials with the bundled reader, {size} px: {seconds:.1f} s, "
          f"{seconds / result.queries:.3f} s per trial ({result.queries} queries)")
    for e in result.ellipses:
        print(f"  {e['centre']}: status {e['status']}, a {e['a']:.5f}, b {e['b']:.5f}, theta {e['theta_deg']:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--size", type=int, default=192)
    parser.add_argument("--time-trials", type=int, default=10)
    parser.add_argument("--skip-time", action="store_true")
    parser.add_argument("--dither", action="store_true", help="dithered figures (sub-step colours)")
    parser.add_argument("--only", choices=list(OBSERVERS), help="one simulated observer")
    args = parser.parse_args()
    print("load:", os.getloadavg())
    ok = part_fit(args.runs, args.trials, args.size, args.dither, args.only)
    print("fit targets:", "all met" if ok else "NOT all met")
    if not args.skip_time:
        part_time(args.time_trials, args.size)
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
