"""Benchmark `plates staircase` against a full constant-stimuli sweep, on the bundled offline reader (issue 15).

Run: python3 bench/bench_staircase.py [--trials 40] [--levels 12] [--per-level 20] [--seeds 3]

For one colour set and prompt, measures the reader's ΔE2000 threshold two ways and prints queries, wall time and
the estimate with its interval for each:
* the staircase (`plates.runs.staircase.run_staircase`, QUEST+ with the chance rate of the prompt), ``--trials``
  answers;
* a sweep of ``--levels`` ΔE2000 levels (log-spaced) x ``--per-level`` plates, fitted with the chance-aware
  psychometric fit (`plates.analysis.psychometric.fit_psychometric`, profile-likelihood 95% interval).
Issue 15's target: the staircase estimate lies within the sweep's interval, at >= 5x fewer queries. Wall times
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
import hashlib
import os
import tempfile
import time

import numpy as np

from plates.analysis.observers import ComparisonObserver
from plates.analysis.pse import fit_pse
from plates.analysis.psychometric import fit_psychometric, guess_rate
from plates.colour import delta_e2000, srgb255_to_lab
from plates.models import make_backend
from plates.models.base import Backend, Query, Reply
from plates.runs.rows import build_row
from plates.runs.staircase import parse_staircase, run_staircase
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec, render
from plates.tasks import task_of
from plates.tasks.prompts import build_turns, get_prompt


def sweep(prompt: str, base: PlateSpec, levels: np.ndarray, per_level: int, seed: int) -> tuple:
    template = get_prompt(prompt)
    task = task_of(template)
    labels = LABEL_SPACES[template.label_space]
    backend = make_backend("baseline")
    xs, ys, queries = [], [], []
    for li, level in enumerate(levels):
        for k in range(per_level):
            d = hashlib.sha256(f"{seed}\x1fsweep\x1f{li}\x1f{k}".encode()).digest()
            spec = base.replace(text=labels[int.from_bytes(d[:8], "big") % len(labels)], delta_e=float(level),
                                seed=int.from_bytes(d[8:16], "big") >> 1)
            plate = render(spec)
            q = task.question(plate.truth, template, seed=seed + k)
            queries.append((q, Query(build_turns(q, plate.image), kind=q.kind, answer_kind=q.answer_kind,
                                     label_space=q.label_space, answer_format=q.answer_format)))
            xs.append(level)
    for i, reply in backend.ask([query for _, query in queries]):
        ys.append((i, task.score(queries[i][0], reply.text).correct))
    ys = [c for _, c in sorted(ys)]
    guess = guess_rate("open", label_space_size=len(labels))
    return fit_psychometric(np.array(xs), np.array(ys, bool), guess=guess), len(xs)


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


def illusion_bench(trials: int, seeds: int, size: int) -> None:
    """The illusion part (module docstring)."""
    base = {"prompt": "rcid-compare-human", "trials": trials, "min_trials": trials, "low": -15.0, "high": 15.0,
            "stimulus": {"kind": "simultaneous-contrast", "size": size},
            "models": [{"backend": "baseline", "model": "pixel-comparer"}]}
    with tempfile.TemporaryDirectory() as tmp:
        stair = parse_staircase({**base, "out": tmp})
        backend, xs, codes = PixelComparer(seed=99), [], []
        t0 = time.perf_counter()
        for li, level in enumerate(np.linspace(-15.0, 15.0, 21)):
            for k in range(10):
                shown = stair.present(1000 * li + k, level)
                (_, reply), = list(backend.ask([Query(build_turns(shown.question, shown.image), kind="mc")]))
                row = build_row(stair.asked(shown, run_id="sweep", dataset="sweep", model="m", backend="b"), reply)
                xs.append(shown.level_drawn)
                codes.append(stair.outcome(row))
        fit = fit_pse(np.array(xs), np.array(codes), alternatives=3)
        t_sweep = time.perf_counter() - t0
    print("\nillusion (simultaneous contrast, simulated pixel observer, true PSE -4.00 ΔE2000)")
    print(f"sweep      {len(xs):4d} queries {t_sweep:6.1f} s  PSE {fit.pse:6.2f} (95% {fit.ci_low:.2f}-{fit.ci_high:.2f}) "
          f"status {fit.status}")
    inside = 0
    for seed in range(seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stair = parse_staircase({**base, "out": tmp, "seed": seed})
            t0 = time.perf_counter()
            r = run_staircase(stair, make_backend=lambda *a, seed=seed, **k: PixelComparer(seed))
            dt = time.perf_counter() - t0
        e = r.estimate
        ok = fit.ci_low <= e.threshold <= fit.ci_high
        inside += ok
        print(f"staircase  {r.queries:4d} queries {dt:6.1f} s  PSE {e.threshold:6.2f} (95% credible {e.ci_low:.2f}-"
              f"{e.ci_high:.2f})  inside the sweep's interval: {ok}  within ±1 of -4: {abs(e.threshold + 4) <= 1}")
    ratio = len(xs) / trials
    print(f"queries: sweep / staircase = {ratio:.1f}x (target >= 5x: {'meets' if ratio >= 5 else 'MISSES'}); "
          f"staircase PSEs inside the sweep's 95% interval: {inside}/{seeds}")


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
    base = PlateSpec("12", size=args.size, palette=args.palette, font="dejavu-sans-bold-oblique")
    levels = np.geomspace(0.5, 20.0, args.levels)
    t0 = time.perf_counter()
    fit, n_sweep = sweep(args.prompt, base, levels, args.per_level, seed=0)
    t_sweep = time.perf_counter() - t0
    print(f"sweep      {n_sweep:4d} queries {t_sweep:6.1f} s  threshold {fit.threshold:5.2f} "
          f"(95% {fit.ci_low:.2f}-{fit.ci_high:.2f}) status {fit.status}")
    inside = 0
    for seed in range(args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stair = parse_staircase({
                "prompt": args.prompt, "trials": args.trials, "min_trials": args.trials, "seed": seed, "out": tmp,
                "low": 0.5, "high": 20.0, "models": [{"backend": "baseline", "model": "baseline-cnn"}],
                "stimulus": {"palette": args.palette, "size": args.size, "font": "dejavu-sans-bold-oblique"}})
            t0 = time.perf_counter()
            r = run_staircase(stair)
            dt = time.perf_counter() - t0
        e = r.estimate
        ok = fit.ci_low <= e.threshold <= fit.ci_high
        inside += ok
        print(f"staircase  {r.queries:4d} queries {dt:6.1f} s  threshold {e.threshold:5.2f} "
              f"(95% credible {e.ci_low:.2f}-{e.ci_high:.2f})  inside the sweep's interval: {ok}  seed {seed}")
    ratio = n_sweep / args.trials
    print(f"queries: sweep / staircase = {ratio:.1f}x (target >= 5x: {'meets' if ratio >= 5 else 'MISSES'}); "
          f"staircase estimates inside the sweep's 95% interval: {inside}/{args.seeds}")
    if args.illusion_seeds:
        illusion_bench(args.trials, args.illusion_seeds, args.size)


if __name__ == "__main__":
    main()
