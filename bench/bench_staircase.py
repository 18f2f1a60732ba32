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
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time

import numpy as np

from plates.analysis.psychometric import fit_psychometric, guess_rate
from plates.models import make_backend
from plates.models.base import Query
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt", default="huemanity-numeric")
    ap.add_argument("--palette", default="huemanity-01")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--levels", type=int, default=12)
    ap.add_argument("--per-level", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=3)
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


if __name__ == "__main__":
    main()
