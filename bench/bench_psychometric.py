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
  and the coverage of the 95% profile-likelihood interval (target >= 0.9; nominal 0.95); the same with 10
  answers per level (200 trials), where only the coverage has a target.
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
from plates.analysis.psychometric import fit_groups, fit_psychometric

LEVELS = np.arange(1.0, 21.0)
TASKS = {"yes/no (γ=1/2)": ("yesno", {}), "4-choice (γ=1/4)": ("mc", {"n_options": 4}),
         "open, 100 labels (γ=1/100)": ("open", {"label_space_size": 100})}


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
    print(f"{'fit with profile interval, median wall / CPU':<52} {statistics.median(wall) * 1e3:10.1f} / "
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
