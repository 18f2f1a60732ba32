"""Benchmark the ellipse fit on simulated observers with known ellipses, and time an ellipse run.

Run: PYTHONPATH=. python bench/bench_ellipses.py [--runs 4] [--trials 30] [--size 192] [--time-trials 10]
     [--skip-time] [--dither off|on|both] [--only ratio2-theta120] [--first-seed 0]

Part 1, the fit's bias and spread. Simulated observers (`plates.models.simulated.EllipseObserver`: logistic
slope 6 per unit of Mahalanobis distance, lapse 2%, the ellipse as their threshold contour) with four known
ellipses at MacAdam's centre 13 (x 0.305, y 0.323, Y half the sRGB maximum): a = 6e-3 xy with axis ratios 3
(theta 30°), 2 (120°) and 1.2 (0°), and a smaller one, a = 3e-3 with ratio 2 (75°). Each runs
`plates.runs.ellipses.run_ellipses` (8 directions in u'v', the huemanity-numeric prompt: 90 labels, γ = 1/90)
``--runs`` times with different seeds at ``--trials`` answers per direction, 8-bit and/or dithered. Printed
per observer: the area ratio (fitted / true) mean ± SD over runs with the mean's standard error, its median,
the orientation error mean ± SD, and how often the 95% intervals (`interval_method` "trials": the trials
resampled) cover the truth; then the same pooled over the observers. Targets: |mean area ratio − 1| <= 5%;
where the axis ratio exceeds 1.5, |mean orientation error| <= 5°. One run's area scatters by about 10% (11% for
the near-circular observer on dithered plates, 16 seeds), so a mean over n runs is known to about 10% / √n: a
verdict on fewer than ~16 runs says little. Each mean's 95% interval (Student's t over the runs) is printed
beside it, and whether it holds 1 (no bias shown) or excludes it. Four runs can look tight by chance: seeds 0-3
of the near-circular observer, dithered, give 1.09 ± 0.04, seeds 0-15 give 1.04 ± 0.11 (interval 0.98-1.09).

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
from scipy import stats

warnings.filterwarnings("ignore", message=".*Matplotlib.*")

from plates.models import simulated  # noqa: E402
from plates.models.simulated import EllipseObserver, fixed_ellipse  # noqa: E402
from plates.reader import MODEL_NAME  # noqa: E402
from plates.runs.ellipse_plan import EllipseRun, parse_centres  # noqa: E402
from plates.runs.ellipses import run_ellipses  # noqa: E402
from plates.runs.experiment import ModelSpec  # noqa: E402

OBSERVERS = {"ratio3-theta30": (6e-3, 2e-3, 30.0), "ratio2-theta120": (6e-3, 3e-3, 120.0),
             "ratio1.2-theta0": (6e-3, 5e-3, 0.0), "small-ratio2-theta75": (3e-3, 1.5e-3, 75.0)}
DITHER = {"off": (False,), "on": (True,), "both": (True, False)}


def _one(name: str, seed: int, trials: int, size: int, dither: bool) -> dict | None:
    """One simulated run: the area ratio, orientation error and interval cover, or None without a fit."""
    a, b, theta = OBSERVERS[name]
    centres, _ = parse_centres("0.305,0.323")
    setattr(simulated, f"_bench_{seed}", EllipseObserver(fixed_ellipse(a, b, theta), seed=seed))
    with tempfile.TemporaryDirectory() as out:
        run = EllipseRun(centres=tuple(centres), trials=trials, seed=seed, size=size, out=out, dither=dither,
                         model=ModelSpec("python", f"plates.models.simulated:_bench_{seed}", 512, 0.0, {}))
        e = run_ellipses(run).ellipses[0]
    if e["status"] != "fit":
        print(f"  {name} seed {seed}: status {e['status']} ({e['message']})", flush=True)
        return None
    err = (e["theta_deg"] - theta + 90) % 180 - 90
    lo, hi = e["theta_low"] - theta, e["theta_high"] - theta  # unwrapped around the estimate: try each turn
    return {"area": e["area"] / (np.pi * a * b), "theta": err,
            "cover": {"a": e["a_low"] <= a <= e["a_high"], "b": e["b_low"] <= b <= e["b_high"],
                      "theta": any(lo <= k * 180.0 <= hi for k in (-1, 0, 1)),
                      "area": e["area_low"] <= np.pi * a * b <= e["area_high"]}}


def _report(label: str, results: list[dict], ratio: float | None) -> bool:
    if not results:
        print(f"  {label}: no fit", flush=True)
        return False
    areas = np.array([r["area"] for r in results])
    n = len(areas)
    se = float(np.std(areas, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    half = float(stats.t.ppf(0.975, n - 1)) * se if n > 1 else float("nan")
    low, high = float(areas.mean()) - half, float(areas.mean()) + half
    shown = ("no interval from one run" if n < 2 else "no bias shown: it holds 1" if low <= 1 <= high
             else "a bias: it excludes 1")
    meets_area = abs(float(areas.mean()) - 1) <= 0.05
    line = (f"  {label}: n {n}, area ratio {areas.mean():.3f} ± {areas.std():.3f} (mean's SE {se:.3f}, its 95% CI "
            f"{low:.3f}-{high:.3f}, {shown}; median {np.median(areas):.3f}; target |bias| <= 5%: "
            f"{'meets' if meets_area else 'MISSES'})")
    meets_theta = True
    if ratio is not None and ratio > 1.5:
        errors = np.array([r["theta"] for r in results])
        meets_theta = abs(float(errors.mean())) <= 5.0
        line += (f"; orientation error {errors.mean():+.1f} ± {errors.std():.1f} deg (target |mean| <= 5: "
                 f"{'meets' if meets_theta else 'MISSES'})")
    cover = {k: sum(r["cover"][k] for r in results) for k in ("a", "b", "theta", "area")}
    line += f"; 95% intervals cover a/b/theta/area in {cover['a']}/{cover['b']}/{cover['theta']}/{cover['area']} of {n}"
    print(line, flush=True)
    return meets_area and meets_theta


def part_fit(runs: int, trials: int, size: int, dither: str = "off", only: str | None = None,
             first_seed: int = 0) -> bool:
    names = [n for n in OBSERVERS if only is None or n == only]
    ok = True
    for dithered in DITHER[dither]:
        print(f"fit: {runs} runs x 8 directions x {trials} trials per direction, plates {size} px, "
              f"{'dithered' if dithered else '8-bit'}", flush=True)
        results: dict[str, list[dict]] = {n: [] for n in names}
        for seed in range(first_seed, first_seed + runs):  # every observer once per seed: a stopped bench
            # still covers them all, and another session's seeds add to these
            for name in names:
                r = _one(name, seed, trials, size, dithered)
                if r is not None:
                    results[name].append(r)
                    print(f"    {name} seed {seed}: area ratio {r['area']:.3f}, orientation error "
                          f"{r['theta']:+.1f} deg", flush=True)
        for name in names:
            a, b, _ = OBSERVERS[name]
            ok = _report(name, results[name], a / b) and ok
        pooled = [r for name in names for r in results[name]]
        _report(f"pooled over {len(names)} observers", pooled, None)
    return ok


def part_time(trials: int, size: int) -> None:
    from plates.analysis.ellipses import macadam_ellipses

    t = macadam_ellipses()
    picks = [12, 13, 14]  # macadam-13, -14, -15
    text = ";".join(f"{t['x'][i]},{t['y'][i]}" for i in picks)
    centres, _ = parse_centres(text)
    with tempfile.TemporaryDirectory() as out:
        run = EllipseRun(centres=tuple(centres), trials=trials, size=size, out=out,
                         model=ModelSpec("baseline", MODEL_NAME, 512, 0.0, {}))
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
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + runs - 1")
    parser.add_argument("--size", type=int, default=192)
    parser.add_argument("--time-trials", type=int, default=10)
    parser.add_argument("--skip-time", action="store_true")
    parser.add_argument("--dither", choices=list(DITHER), default="off",
                        help="8-bit figures (off), dithered ones (on: sub-step colours) or both")
    parser.add_argument("--only", choices=list(OBSERVERS), help="one simulated observer")
    args = parser.parse_args()
    print("load:", os.getloadavg())
    ok = part_fit(args.runs, args.trials, args.size, args.dither, args.only, args.first_seed)
    print("fit targets:", "all met" if ok else "NOT all met")
    if not args.skip_time:
        part_time(args.time_trials, args.size)
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
