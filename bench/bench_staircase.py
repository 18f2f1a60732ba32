"""Benchmark `plates staircase` against a full constant-stimuli sweep, on the bundled offline reader.

Run: python3 bench/bench_staircase.py [--trials 40] [--levels 12] [--per-level 20] [--seeds 3] [--illusion-seeds 3]

For one colour set and prompt, measures the reader's ΔE2000 threshold two ways and prints queries, wall time and
the estimate with its interval for each:
* the staircase (`plates.runs.staircase.run_staircase`, QUEST+ with the chance rate of the prompt), ``--trials``
  answers;
* a sweep of ``--levels`` ΔE2000 levels (log-spaced) x ``--per-level`` plates, fitted with the chance-aware
  psychometric fit (`plates.analysis.psychometric.fit_psychometric`, profile-likelihood 95% interval). Its
  plates, questions and scoring are the staircase's own (`Staircase.present`, `Staircase.outcome`), asked in one
  batch.
The target: the staircase estimate lies within the sweep's interval, at >= 5x fewer queries. Wall times
depend on the machine's load (printed).

Illusions (``--illusion-seeds``, default 3): the bundled reader declines illusion questions, so a simulated
observer stands in for the model behind the same backend interface: it reads targets A and B from the image's
pixels (simultaneous contrast, 256 px: the centres of the two halves), takes their signed CIEDE2000 (+ = A
lighter) and answers RCID's options through `plates.analysis.observers.ComparisonObserver` (PSE -4 ΔE2000, slope
1 per ΔE2000, "same" half-band 1, lapse 2%). The staircase (``--trials`` answers over -15..15) is compared with
a sweep of 21 levels x 10 images over the same range fitted by `plates.analysis.pse.fit_pse`.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from plates.analysis.observers import ComparisonObserver
from plates.analysis.pse import fit_pse
from plates.analysis.psychometric import fit_psychometric, prompt_guess_rate
from plates.colour import delta_e2000, srgb255_to_lab
from plates.models import make_backend
from plates.models.base import Backend, Reply
from plates.runs.rows import build_row
from plates.runs.staircase import Staircase, parse_staircase, run_staircase
from plates.tasks.prompts import get_prompt, query_for


def sweep(stair: Staircase, levels: np.ndarray, per_level: int, backend: Backend) -> tuple[Any, int]:
    """A constant-stimuli sweep through the staircase's own trials (numbers 1000·level + k, apart from the
    staircase's), asked in one batch, fitted with the fit of its measure: (fit, queries)."""
    shown = [stair.present(1000 * li + k, float(level)) for li, level in enumerate(levels) for k in range(per_level)]
    queries = [query_for(s.question, s.image) for s in shown]
    codes: list[int | None] = [None] * len(shown)
    for i, reply in backend.ask(queries):
        row = build_row(stair.asked(shown[i], run_id="sweep", dataset="sweep", model="m", backend="b"), reply)
        codes[i] = stair.outcome(row)
    keep = [i for i, c in enumerate(codes) if c is not None]
    x = np.array([shown[i].level_drawn for i in keep])
    y = np.array([codes[i] for i in keep])
    if stair.measure == "pse":
        return fit_pse(x, y, alternatives=3), len(shown)
    return fit_psychometric(x, y.astype(bool), guess=prompt_guess_rate(get_prompt(stair.prompt))), len(shown)


def staircases(data: Mapping[str, Any], seeds: int, backend: Callable[[int], Backend] | None, fit: Any,
               n_sweep: int, what: str, truth: float | None = None) -> None:
    """``seeds`` staircases of ``data`` (seeds 0..), each timed and checked against the sweep's interval
    (and ``truth`` ± 1 where known); then the queries' ratio against the issue's target."""
    inside, trials = 0, int(data["trials"])
    for seed in range(seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stair = parse_staircase({**data, "out": tmp, "seed": seed})
            make = None if backend is None else (lambda *a, seed=seed, **k: backend(seed))
            t0 = time.perf_counter()
            r = run_staircase(stair, make_backend=make)
            dt = time.perf_counter() - t0
        e = r.estimate
        ok = fit.ci_low <= e.threshold <= fit.ci_high
        inside += ok
        near = "" if truth is None else f"  within ±1 of {truth:g}: {abs(e.threshold - truth) <= 1}"
        print(f"staircase  {r.queries:4d} queries {dt:6.1f} s  {what} {e.threshold:6.2f} (95% credible "
              f"{e.ci_low:.2f}-{e.ci_high:.2f})  inside the sweep's interval: {ok}  seed {seed}{near}")
    ratio = n_sweep / trials
    print(f"queries: sweep / staircase = {ratio:.1f}x (target >= 5x: {'meets' if ratio >= 5 else 'MISSES'}); "
          f"staircase {what}s inside the sweep's 95% interval: {inside}/{seeds}")


class PixelComparer(Backend):
    """A simulated observer behind the backend interface (module docstring): reads the targets' pixels, answers
    RCID's options I (A darker), II (B darker), III (the same) through a `ComparisonObserver`."""

    kind, model = "simulated", "pixel-comparer"

    def __init__(self, seed: int) -> None:
        self.observer = ComparisonObserver(-4.0, 1.0, alternatives=3, band=1.0, lapse=0.02, seed=seed)
        self.rng = self.observer.rng()

    def ask(self, queries):
        for i, q in enumerate(queries):
            px = np.asarray(q.turns[-1].images[-1]).astype(float)
            a, b = px[px.shape[0] // 2, px.shape[1] // 4], px[px.shape[0] // 2, 3 * px.shape[1] // 4]
            x = float(delta_e2000(a, b)) * (1.0 if srgb255_to_lab(a)[0] > srgb255_to_lab(b)[0] else -1.0)
            code = int(self.observer.answer([x], self.rng)[0])
            yield i, Reply({-1: "I", 0: "III", 1: "II"}[code])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt", default="huemanity-numeric")
    ap.add_argument("--palette", default="huemanity-01")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--levels", type=int, default=12)
    ap.add_argument("--per-level", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--illusion-seeds", type=int, default=3)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; prompt {args.prompt}, "
          f"palette {args.palette}, {args.size} px, bundled reader")
    plates = {"prompt": args.prompt, "trials": args.trials, "min_trials": args.trials, "low": 0.5, "high": 20.0,
              "models": [{"backend": "baseline", "model": "baseline-cnn"}],
              "stimulus": {"palette": args.palette, "size": args.size, "font": "dejavu-sans-bold-oblique"}}
    t0 = time.perf_counter()
    fit, n_sweep = sweep(parse_staircase({**plates, "out": "."}), np.geomspace(0.5, 20.0, args.levels),
                         args.per_level, make_backend("baseline"))
    print(f"sweep      {n_sweep:4d} queries {time.perf_counter() - t0:6.1f} s  threshold {fit.threshold:6.2f} "
          f"(95% {fit.ci_low:.2f}-{fit.ci_high:.2f}) status {fit.status}")
    staircases(plates, args.seeds, None, fit, n_sweep, "threshold")
    if not args.illusion_seeds:
        return
    illusion = {"prompt": "rcid-compare-human", "trials": args.trials, "min_trials": args.trials, "low": -15.0,
                "high": 15.0, "stimulus": {"kind": "simultaneous-contrast", "size": args.size},
                "models": [{"backend": "baseline", "model": "pixel-comparer"}]}
    t0 = time.perf_counter()
    fit, n_sweep = sweep(parse_staircase({**illusion, "out": "."}), np.linspace(-15.0, 15.0, 21), 10,
                         PixelComparer(seed=99))
    print("\nillusion (simultaneous contrast, simulated pixel observer, true PSE -4.00 ΔE2000)")
    print(f"sweep      {n_sweep:4d} queries {time.perf_counter() - t0:6.1f} s  PSE {fit.pse:6.2f} "
          f"(95% {fit.ci_low:.2f}-{fit.ci_high:.2f}) status {fit.status}")
    staircases(illusion, args.illusion_seeds, PixelComparer, fit, n_sweep, "PSE", truth=-4.0)


if __name__ == "__main__":
    main()
