"""Benchmark the chance-aware psychometric fit against the old two-parameter one.

Run: python3 bench/bench_psychometric.py [--seeds 200]

Simulated observers (plates.analysis.observers) answer a constant-stimuli sweep: ΔE2000 1, 2, ..., 20, 20 answers
per level (400 trials). Printed against targets (ratio <= 1 meets them):

* bias on yes/no prompts, true threshold ΔE2000 8, slopes 0.5 / 1 / 2 per ΔE2000: median fitted threshold of
  the old fit (a logistic through 50% correct: this family with guess 0 and lapse 0, the model of the deleted
  two-parameter fit; tests/analysis/test_psychometric.py checks it against a plain logistic regression) and of
  the new fit (guess ½, lapse fitted in [0, 0.06]). The old fit gave 1.5–3.7 (median bias −4.3 to
  −6.5); target for the new one |median bias| <= 0.1.
* recovery per task (yes/no γ = ½, 4-way choice γ = ¼, open over 100 labels γ = 1/100), true threshold 8,
  slope 1, lapse 2%, 100 answers per level (2,000 trials): share of seeds within 0.5 ΔE2000 (target >= 0.9)
  and the coverage of the threshold's 95% interval (`plates.analysis.psychometric_fits`: a grid posterior widened to
  the profile likelihood; target >= 0.9, nominal 0.95); the same with 10 answers per level (200 trials), where
  only the coverage has a target.
* small n: coverage of that interval with ONE answer at each of 40 levels over ΔE2000 0.5-40 (the sweep
  `bench/bench_staircase.py` sets against a 40-trial staircase), for the yes/no, 4-way and open observers of that
  bench (target >= 0.9; the profile-likelihood interval alone held the truth in 74-80% of yes/no and 4-way runs).
* time per fit with its interval (median, wall and CPU), and `fit_groups` over a million answers in 40 groups
  (8 models x 5 prompts; 20 ΔE levels) with and without intervals, against the dashboard's whole-view budget
  of 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from plates.analysis.observers import SimulatedObserver
from plates.analysis.psychometric_fits import fit_groups, fit_psychometric

LEVELS = np.arange(1.0, 21.0)
TASKS = {"yes/no (γ=1/2)": ("yesno", {}), "4-choice (γ=1/4)": ("mc", {"n_options": 4}),
         "open, 100 labels (γ=1/100)": ("open", {"label_space_size": 100})}
SMALL_N = {"yes/no, threshold 6, slope 1, lapse 2%": SimulatedObserver(6.0, 1.0, "yesno", lapse=0.02),
           "4-way, threshold 8, slope 0.5, lapse 4%": SimulatedObserver(8.0, 0.5, "mc", lapse=0.04, n_options=4),
           "open/90, threshold 3, slope 2": SimulatedObserver(3.0, 2.0, "open", label_space_size=90)}


def line(name: str, value: float, unit: str, target: float, lower_is_better: bool = True) -> None:
    ratio = value / target if lower_is_better else target / value
    verdict = "meets" if ratio <= 1 else "MISSES"
    print(f"{name:<52} {value:10.3f} {unit:<4} target {'<=' if lower_is_better else '>='} {target:<8g} "
          f"ratio {ratio:5.2f}  {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200, help="simulated observers per condition")
    args = ap.parse_args()
    print(f"psychometric bench: {args.seeds} seeds per condition, constant stimuli at ΔE2000 1..20")

    print("\nbias on yes/no prompts, true threshold 8, 20 answers per level")
    worst_new = 0.0
    for slope in (0.5, 1.0, 2.0):
        old, new = [], []
        for seed in range(args.seeds):
            observer = SimulatedObserver(8.0, slope, "yesno", seed=seed)
            x = np.repeat(LEVELS, 20)
            y = observer.correct(x, observer.rng())
            old.append(fit_psychometric(x, y, guess=0.0, lapse=0.0, interval=False).threshold)
            new.append(fit_psychometric(x, y, guess=0.5, interval=False).threshold)
        o, n = statistics.median(old), statistics.median(new)
        print(f"  slope {slope:g}/ΔE: old fit median {o:6.2f} (bias {o - 8:+6.2f}, "
              f"p10-p90 {np.percentile(old, 10):.2f}-{np.percentile(old, 90):.2f}); new fit median {n:6.2f} "
              f"(bias {n - 8:+6.3f}, p10-p90 {np.percentile(new, 10):.2f}-{np.percentile(new, 90):.2f})")
        worst_new = max(worst_new, abs(n - 8.0))
    line("new fit: worst |median bias| over the slopes", worst_new, "ΔE", 0.1)

    wall, cpu = [], []
    for repeats in (100, 10):
        print(f"\nrecovery, true threshold 8, slope 1, lapse 2%, {repeats} answers per level ({20 * repeats:,} trials)")
        for name, (kind, options) in TASKS.items():
            within, covered = [], []
            for seed in range(args.seeds):
                observer = SimulatedObserver(8.0, 1.0, kind, lapse=0.02, seed=10_000 * repeats + seed, **options)
                x = np.repeat(LEVELS, repeats)
                y = observer.correct(x, observer.rng())
                t0, c0 = time.perf_counter(), time.process_time()
                fit = fit_psychometric(x, y, guess=observer.guess)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                within.append(abs(fit.threshold - 8.0) <= 0.5)
                covered.append(fit.ci_low <= 8.0 <= fit.ci_high)
            if repeats == 100:
                line(f"{name}: share within 0.5 ΔE2000", float(np.mean(within)), "", 0.9, lower_is_better=False)
            else:
                print(f"{name + ': share within 0.5 ΔE2000':<52} {np.mean(within):10.3f}       (no target: sparse)")
            line(f"{name}: 95% interval coverage", float(np.mean(covered)), "", 0.9, lower_is_better=False)
    print("\nsmall n: one answer at each of 40 levels over ΔE2000 0.5-40 (bench/bench_staircase.py's equal-cost sweep)")
    for name, observer in SMALL_N.items():
        x, covered = np.linspace(0.5, 40.0, 40), []
        for seed in range(args.seeds):
            obs = observer.replace(seed=30_000 + seed)
            fit = fit_psychometric(x, obs.correct(x, obs.rng()), guess=obs.guess)
            if fit.status == "fit":
                covered.append(fit.ci_low <= obs.threshold <= fit.ci_high)
        line(f"{name}: 95% interval coverage ({len(covered)} fits)", float(np.mean(covered)), "", 0.9,
             lower_is_better=False)
    print(f"{'fit with its interval, median wall / CPU':<52} {statistics.median(wall) * 1e3:10.1f} / "
          f"{statistics.median(cpu) * 1e3:.1f} ms")

    rng = np.random.default_rng(0)
    rows = 1_000_000
    frame = pd.DataFrame({
        "model": pd.Categorical(rng.integers(0, 8, rows).astype(str)),
        "prompt_name": pd.Categorical(rng.integers(0, 5, rows).astype(str)),
        "delta_e": rng.choice(LEVELS, rows),
    })
    frame["correct"] = pd.array(rng.random(rows) < 0.5 + 0.5 / (1 + np.exp(-(frame["delta_e"] - 8.0))),
                                dtype="boolean")
    for interval in (False, True):
        t0, c0 = time.perf_counter(), time.process_time()
        table = fit_groups(frame, ["model", "prompt_name"], guess=0.5, interval=interval)
        wall_s, cpu_s = time.perf_counter() - t0, time.process_time() - c0
        line(f"fit_groups, 1M rows, 40 groups, interval={interval}", wall_s, "s", 2.0)
        print(f"{'  CPU s; median threshold (truth 8)':<52} {cpu_s:10.2f}      {table['threshold'].median():.3f}")


if __name__ == "__main__":
    main()
