"""Benchmark `plates staircase` against a constant-stimuli sweep, two ways: at EQUAL COST (the staircase at its
default budget against a sweep given the same number of answers) and at EQUAL PRECISION (the answers each
needs to bring its 95% interval on the ΔE2000 threshold to a width <= 3 and <= 1.5).

Run: python3 bench/bench_staircase.py [--runs 30] [--reader-runs 30] [--reader-seeds 10] [--per-level 8]
     [--illusion-seeds 3]

* **Equal cost** (target: the staircase's estimate inside an independent sweep's 95% interval in >= 90% of
  runs). The staircase runs at `plates staircase`'s defaults (40 trials over 0.5-40 ΔE2000); the sweep gets the
  same 40 answers, one per level: simulated observers on 40 levels evenly spaced over the same range, the
  bundled reader on the fine grid 4, 4.75, ... 33.25 ΔE2000 (``--reader-grid``; the old coarse sweep stepped
  over a dip of the old reader's at 3.4). A sweep that does not adapt spends most answers away from the
  threshold, so its interval is the wider one: that is the comparison at equal cost. The bench also prints how often the sweep's own interval
  holds the TRUE threshold (simulated observers): under 90% there means the sweep's interval is too narrow at
  40 answers, which no staircase can fix.
* **Equal precision** (`--runs`, simulated observers, `plates.analysis.observers.SimulatedObserver`): yes/no,
  4-way choice and open answers over 90 labels. The staircase is QUEST+ (`AdaptiveSpec.for_threshold` with the
  task's guess rate) stopped when its 95% credible interval is at most the width; the sweep asks 12 log-spaced
  levels over 0.5-20 ΔE2000 one round at a time, up to 32 rounds; the fewest rounds whose fit
  (`fit_psychometric` and its 95% interval) is at most the width is found by bisection. Each
  staircase estimate (at width <= 1.5) is checked against an independent sweep of as many rounds as that run's
  sweep needed to reach width <= 1.5 (equal precision; a fixed 288 answers made the steep open observer's sweep
  far narrower than the staircase, and "inside" failed on precision, not bias).
  Two unbiased estimates of EQUAL precision meet "inside" in only about 83% of runs (|z| < 1.96/√2), so the
  bench also prints how often they agree within their combined interval, √(h1² + h2²) (about 95%).
* **The bundled reader at equal precision** (``--reader-seeds``, offline CNN, `huemanity-numeric`, 256 px):
  every trial's background lies along its own CIELAB direction at the level as drawn in 8 bits, and every dot
  carries HueManity §3's colour jitter (``--jitter 1``, the default; `plates staircase --jitter`). Without
  jitter every dot of a class is one colour, a pixel-exact reader separates the classes from ~0.3 ΔE2000 and
  both methods sit at the lowest level 8 bits draw (``--jitter 0 --reader-range 0.25 40 --reader-grid 0.25
  0.02`` shows it); with it the reader's threshold is ~15 ΔE2000, inside the staircase's default range. The
  sweep is the grid of 0.75 ΔE2000 steps over 4-34 (41 levels), ``--per-level`` rounds; staircases run until
  their interval is <= 1.5 (or 200 trials). Its fit status is printed: a reader that answers to one colour
  rather than to ΔE2000 is "non-monotonic".
* **Illusions** (``--illusion-seeds``): a simulated observer reads targets A and B from the image's pixels
  (simultaneous contrast, 256 px) and answers RCID's options (PSE -4 ΔE2000, slope 1, "same" half-band 1,
  lapse 2%); a 40-trial staircase against a sweep of 21 levels x 10 images fitted by `plates.analysis.pse.fit_pse`.

Wall times and the machine's load are printed; the "6x fewer queries" of earlier versions compared a 40-trial
staircase with a 240-answer sweep at unequal precision and is withdrawn.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from plates.analysis.adaptive import AdaptiveSpec, AdaptiveState
from plates.analysis.observers import ComparisonObserver, SimulatedObserver
from plates.analysis.pse import fit_pse
from plates.analysis.psychometric import prompt_guess_rate
from plates.analysis.psychometric_fits import fit_psychometric
from plates.colour import delta_e2000, srgb255_to_lab
from plates.models import make_backend
from plates.models.base import Backend, Reply
from plates.reader import MODEL_NAME
from plates.runs.rows import build_row
from plates.runs.staircase import Staircase, parse_staircase, run_staircase
from plates.stimuli.ishihara.jitter import HUEMANITY_JITTER, huemanity_jitter
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


WIDTHS = (3.0, 1.5)
SWEEP_LEVELS = np.geomspace(0.5, 20.0, 12)
OBSERVERS = {  # name -> observer (threshold ΔE2000, logistic slope per ΔE2000, lapse)
    "yes/no, slope 1, lapse 2%": SimulatedObserver(6.0, 1.0, "yesno", lapse=0.02),
    "4-way, slope 0.5, lapse 4%": SimulatedObserver(8.0, 0.5, "mc", lapse=0.04, n_options=4),
    "open/90, slope 2, lapse 0": SimulatedObserver(3.0, 2.0, "open", label_space_size=90),
}


def width_of(fit: Any) -> float:
    return float(fit.ci_high - fit.ci_low) if fit.status == "fit" else float("inf")


def sweep_queries(levels: np.ndarray, answer: Callable[[np.ndarray, int], np.ndarray], guess: float,
                  rounds: int) -> tuple[dict[float, int | None], Any]:
    """Ask ``rounds`` rounds of ``levels`` (``answer(levels, round)`` -> verdicts; one answer per level per
    round) and find, for each width of `WIDTHS`, the fewest rounds whose fit (`fit_psychometric`) has a 95%
    interval at most that wide (a bisection over rounds: the width shrinks as rounds are added, up to noise):
    the queries needed (None: not within ``rounds``) and the fit of all rounds."""
    x = [levels] * rounds
    y = [answer(levels, r) for r in range(rounds)]

    def fit_of(r: int) -> Any:
        return fit_psychometric(np.concatenate(x[:r]), np.concatenate(y[:r]), guess=guess)

    full = fit_of(rounds)
    needed: dict[float, int | None] = {}
    for w in WIDTHS:
        if width_of(full) > w:
            needed[w] = None
            continue
        lo, hi = 0, rounds  # width(lo rounds) > w (or lo = 0), width(hi rounds) <= w
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if width_of(fit_of(mid)) <= w else (mid, hi)
        needed[w] = hi * levels.size
    return needed, full


def staircase_queries(history: list[tuple[float, int]], spec: AdaptiveSpec) -> dict[float, int | None]:
    """The trial at which the credible interval of the staircase ``history`` first reaches each width."""
    state, needed = AdaptiveState.start(spec), {w: None for w in WIDTHS}
    for n, (level, code) in enumerate(history, 1):
        state = state.update(level, code)
        e = state.estimate()
        for w in WIDTHS:
            if needed[w] is None and e.ci_high - e.ci_low <= w:
                needed[w] = n
    return needed


def agrees(stair: Any, fit: Any) -> bool:
    """|staircase − sweep| within the combined 95% half-widths, sqrt(h1² + h2²): what two unbiased, calibrated
    estimates meet in about 95% of runs. "Inside the sweep's interval" is stricter: for two estimates of equal
    precision it holds in only about 83% of runs (|z| < 1.96/sqrt 2), whatever the procedure."""
    h1, h2 = (stair.ci_high - stair.ci_low) / 2, (fit.ci_high - fit.ci_low) / 2
    return abs(stair.threshold - fit.threshold) <= float(np.hypot(h1, h2))


def median_text(values: list[int | None]) -> str:
    done = [v for v in values if v is not None]
    if not done:
        return "never"
    q = np.percentile(done, [25, 50, 75])
    miss = len(values) - len(done)
    return f"{q[1]:.0f} ({q[0]:.0f}-{q[2]:.0f})" + (f", {miss} never" if miss else "")


#: `plates staircase`'s default budget and level range for plates (`plates.runs.staircase.Staircase`, `MEASURES`).
DEFAULT_TRIALS, DEFAULT_RANGE = 40, (0.5, 40.0)


def verdict(hits: int, runs: int, target: float = 0.9) -> str:
    return f"{hits}/{runs} ({hits / runs:.0%}; target >= {target:.0%}: {'meets' if hits >= target * runs else 'MISSES'})"


def equal_cost(runs: int) -> None:
    """Equal COST: the staircase at its default budget (`DEFAULT_TRIALS` answers, `DEFAULT_RANGE`) against a
    constant-stimuli sweep given the same number of answers: one at each of `DEFAULT_TRIALS` levels evenly
    spaced over the same range (a fine grid: 1 ΔE2000 apart), fitted by `fit_psychometric`. The sweep spends
    most answers far from the threshold, so its interval is the wider: that is the cost of not adapting. Target:
    the staircase's estimate inside the sweep's 95% interval in >= 90% of runs (the two are independent)."""
    print(f"\nsimulated observers, {runs} runs each, EQUAL COST: staircase at its default budget "
          f"({DEFAULT_TRIALS} trials over {DEFAULT_RANGE[0]}-{DEFAULT_RANGE[1]} ΔE2000) vs a sweep of the same "
          f"{DEFAULT_TRIALS} answers (one per level, {DEFAULT_TRIALS} levels evenly spaced over the same range)")
    levels = np.linspace(*DEFAULT_RANGE, DEFAULT_TRIALS)
    for name, base in OBSERVERS.items():
        t0 = time.perf_counter()
        spec = AdaptiveSpec.for_threshold(base.guess, low=DEFAULT_RANGE[0], high=DEFAULT_RANGE[1],
                                          max_trials=DEFAULT_TRIALS, min_trials=10)
        inside = fitted = covers = 0
        stair_w, sweep_w, errors = [], [], []
        for run in range(runs):
            obs, other = base.replace(seed=20_000 + run), base.replace(seed=30_000 + run)
            rng, other_rng = obs.rng(), other.rng()
            state = AdaptiveState.start(spec)
            while not state.done:
                level = state.next_level()
                state = state.update(level, int(obs.correct([level], rng)[0]))
            e = state.estimate()
            ref = fit_psychometric(levels, other.correct(levels, other_rng), guess=other.guess)
            stair_w.append(e.ci_high - e.ci_low)
            errors.append(e.threshold - base.threshold)
            if ref.status == "fit":
                fitted += 1
                sweep_w.append(ref.ci_high - ref.ci_low)
                inside += ref.ci_low <= e.threshold <= ref.ci_high
                covers += ref.ci_low <= base.threshold <= ref.ci_high
        print(f"{name:28s} (true {base.threshold:g}): inside the equal-cost sweep's interval {verdict(inside, runs)} "
              f"(sweeps that located a threshold: {fitted}/{runs}; the sweep's own interval holds the TRUE "
              f"threshold in {covers}/{fitted}: where that is under 90%, the sweep's interval is too narrow at "
              f"{DEFAULT_TRIALS} answers, not the staircase wrong); median 95% width staircase "
              f"{np.median(stair_w):.2f} vs sweep {np.median(sweep_w) if sweep_w else float('nan'):.2f} ΔE2000; "
              f"staircase error median {np.median(errors):+.2f}, |error| 90th pct {np.percentile(np.abs(errors), 90):.2f}; "
              f"{time.perf_counter() - t0:.0f} s")


def simulated(runs: int) -> None:
    print(f"\nsimulated observers, {runs} runs each: queries to reach a 95% interval of width <= 3 / <= 1.5 "
          "ΔE2000, median (quartiles)")
    for name, base in OBSERVERS.items():
        t0 = time.perf_counter()
        spec = AdaptiveSpec.for_threshold(base.guess, low=0.5, high=20.0, max_trials=400, ci_width=WIDTHS[-1])
        stair_n: dict[float, list] = {w: [] for w in WIDTHS}
        sweep_n: dict[float, list] = {w: [] for w in WIDTHS}
        inside = agree = 0
        widths: list[tuple[float, float]] = []
        for run in range(runs):
            obs = base.replace(seed=run)
            rng = obs.rng()
            state = AdaptiveState.start(spec)
            while not state.done:
                level = state.next_level()
                state = state.update(level, int(obs.correct([level], rng)[0]))
            needed = staircase_queries(list(state.history), spec)
            for w in WIDTHS:
                stair_n[w].append(needed[w])
            final = state.estimate()
            estimate = final.threshold
            got, _ = sweep_queries(SWEEP_LEVELS, lambda lv, r, obs=obs, rng=rng: obs.correct(lv, rng),
                                   obs.guess, 32)
            for w in WIDTHS:
                sweep_n[w].append(got[w])
            # an independent sweep of EQUAL precision: as many rounds as this run's sweep needed to reach width
            # <= 1.5 (32 where it never did). A fixed 288 answers made the open observer's sweep interval far
            # narrower than the staircase's (steep slope: 36 answers reach 1.5), so "inside" failed for precision,
            # not bias (20/30 inside, 30/30 within the combined interval)
            rounds = (got[WIDTHS[-1]] or 32 * SWEEP_LEVELS.size) // SWEEP_LEVELS.size
            other = base.replace(seed=10_000 + run)
            other_rng = other.rng()
            x = np.tile(SWEEP_LEVELS, rounds)
            ref = fit_psychometric(x, other.correct(x, other_rng), guess=other.guess)
            inside += ref.status == "fit" and ref.ci_low <= estimate <= ref.ci_high
            agree += ref.status == "fit" and agrees(final, ref)
            widths.append((final.ci_high - final.ci_low, width_of(ref)))
        w_stair, w_sweep = np.median(np.array(widths), axis=0)
        print(f"{name:28s} (true {base.threshold:g}): staircase {' / '.join(median_text(stair_n[w]) for w in WIDTHS)}; "
              f"sweep {' / '.join(median_text(sweep_n[w]) for w in WIDTHS)}; EQUAL PRECISION (median 95% width "
              f"staircase {w_stair:.2f}, independent sweep {w_sweep:.2f}): staircase inside the sweep's interval "
              f"{verdict(inside, runs)} (two unbiased estimates of equal precision meet this in ~83%: the >= 90% "
              f"target is for equal cost); within their combined 95% interval {verdict(agree, runs)}; "
              f"{time.perf_counter() - t0:.0f} s")


def jitter_text(stimulus: Mapping[str, Any]) -> str:
    amount = stimulus.get("jitter_rgb", 0.0) / HUEMANITY_JITTER["jitter_rgb"]
    return f"{amount:g} of HueManity §3's jitter" if amount else "no jitter"


def reader_staircase(stimulus: Mapping[str, Any], prompt: str, rng: tuple[float, float], **more: Any) -> dict:
    """A staircase's TOML data for the bundled reader on ``stimulus`` over ``rng`` (ΔE2000), plus ``more``."""
    return {"prompt": prompt, "low": rng[0], "high": rng[1], "stimulus": dict(stimulus),
            "models": [{"backend": "baseline", "model": MODEL_NAME}], **more}


def reader(seeds: int, per_level: int, stimulus: Mapping[str, Any], prompt: str,
           rng: tuple[float, float] = DEFAULT_RANGE, grid: tuple[float, float] = (4.0, 0.75)) -> None:
    plates = reader_staircase(stimulus, prompt, rng, trials=200, min_trials=0, ci_width=WIDTHS[-1])
    palette, size = stimulus["palette"], stimulus["size"]
    levels = np.round(grid[0] + grid[1] * np.arange(41), 3)  # 41 levels: 4-34 at the defaults
    stair0 = parse_staircase({**plates, "out": ".", "seed": 12345})
    backend = make_backend("baseline")
    guess = prompt_guess_rate(get_prompt(prompt))
    t0 = time.perf_counter()
    drawn: list[float] = []

    def answer(lv: np.ndarray, r: int) -> np.ndarray:
        shown = [stair0.present(100_000 * r + i, float(v)) for i, v in enumerate(lv)]
        codes = [0] * len(shown)
        for i, reply in backend.ask([query_for(s.question, s.image) for s in shown]):
            row = build_row(stair0.asked(shown[i], run_id="sweep", dataset="sweep", model="m", backend="b"), reply)
            codes[i] = stair0.outcome(row) or 0
        drawn.extend(s.level_drawn for s in shown)
        return np.array(codes, dtype=bool)

    needed, fit = sweep_queries(levels, answer, guess, per_level)
    print(f"\nbundled reader, {prompt}, {palette}, {size} px, {jitter_text(stimulus)}, directions drawn per trial; "
          f"sweep over {levels[0]}-{levels[-1]} ΔE2000 in {grid[1]} steps ({levels.size} levels), staircase from "
          f"{rng[0]}, {len(drawn)} answers "
          f"({time.perf_counter() - t0:.0f} s): status {fit.status}, threshold {fit.threshold:.2f} "
          f"(95% {fit.ci_low:.2f}-{fit.ci_high:.2f}), monotonicity p {fit.monotone_p:.3g}, goodness-of-fit p "
          f"{fit.deviance_p:.3g}; queries to width <= 3 / <= 1.5: "
          f"{' / '.join(str(needed[w]) if needed[w] else 'not reached' for w in WIDTHS)}")
    inside, agree, counts = 0, 0, {w: [] for w in WIDTHS}
    for seed in range(seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stair = parse_staircase({**plates, "out": tmp, "seed": seed})
            t1 = time.perf_counter()
            r = run_staircase(stair)
        e = r.estimate
        got = staircase_queries(r.history, stair.adaptive_spec())
        for w in WIDTHS:
            counts[w].append(got[w])
        ok = fit.status == "fit" and fit.ci_low <= e.threshold <= fit.ci_high
        inside += ok
        agree += fit.status == "fit" and agrees(e, fit)
        print(f"staircase seed {seed}: {r.queries} queries ({time.perf_counter() - t1:.0f} s), threshold "
              f"{e.threshold:.2f} (95% credible {e.ci_low:.2f}-{e.ci_high:.2f}), status {e.status}; width <= 3 "
              f"after {got[3.0]}, <= 1.5 after {got[1.5]}; inside the sweep's interval: {ok}")
    print(f"reader: staircase {' / '.join(median_text(counts[w]) for w in WIDTHS)} vs sweep "
          f"{' / '.join(str(needed[w]) for w in WIDTHS)} queries to width <= 3 / <= 1.5; inside {inside}/{seeds}; "
          f"agree within the combined interval {agree}/{seeds}")


def reader_equal_cost(runs: int, stimulus: Mapping[str, Any], prompt: str,
                      rng: tuple[float, float] = DEFAULT_RANGE, grid: tuple[float, float] = (4.0, 0.75)) -> None:
    """Equal cost on the bundled reader: ``runs`` staircases at the default budget (`DEFAULT_TRIALS`,
    `DEFAULT_RANGE`), each against its own independent sweep of the same number of answers on the FINE grid
    (one answer at each of 4, 4.75, ... ΔE2000 at the defaults, `DEFAULT_TRIALS` levels; every trial's
    background along its own CIELAB direction, as in the staircase). Target: the staircase inside the sweep's interval in >= 90%."""
    base = reader_staircase(stimulus, prompt, rng, trials=DEFAULT_TRIALS)
    palette, size = stimulus["palette"], stimulus["size"]
    levels = np.round(grid[0] + grid[1] * np.arange(DEFAULT_TRIALS), 3)
    backend = make_backend("baseline")
    guess = prompt_guess_rate(get_prompt(prompt))
    t0 = time.perf_counter()
    inside = fitted = 0
    stair_w, sweep_w, estimates = [], [], []
    for run in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            r = run_staircase(parse_staircase({**base, "out": tmp, "seed": run}))
        e = r.estimate
        other = parse_staircase({**base, "out": ".", "seed": 50_000 + run})  # its own trial seeds and directions
        shown = [other.present(1_000 + i, float(v)) for i, v in enumerate(levels)]
        codes = [0] * len(shown)
        for i, reply in backend.ask([query_for(s.question, s.image) for s in shown]):
            row = build_row(other.asked(shown[i], run_id="sweep", dataset="sweep", model="m", backend="b"), reply)
            codes[i] = other.outcome(row) or 0
        fit = fit_psychometric(np.array([s.level_drawn for s in shown]), np.array(codes, dtype=bool), guess=guess)
        stair_w.append(e.ci_high - e.ci_low)
        estimates.append(e.threshold)
        if fit.status == "fit":
            fitted += 1
            sweep_w.append(fit.ci_high - fit.ci_low)
            inside += fit.ci_low <= e.threshold <= fit.ci_high
    print(f"\nbundled reader, {prompt}, {palette}, {size} px, {jitter_text(stimulus)}, {runs} runs, EQUAL COST: "
          f"staircase at its default budget ({DEFAULT_TRIALS} trials, {rng[0]}-{rng[1]} ΔE2000) vs an independent sweep of "
          f"{DEFAULT_TRIALS} answers on the fine grid {levels[0]}-{levels[-1]} ({grid[1]} steps): inside the sweep's "
          f"interval {verdict(inside, runs)} (sweeps that located a threshold: {fitted}/{runs}); staircase "
          f"estimates median {np.median(estimates):.2f} (10-90th pct {np.percentile(estimates, 10):.2f}-"
          f"{np.percentile(estimates, 90):.2f}); median 95% width staircase {np.median(stair_w):.2f} vs sweep "
          f"{np.median(sweep_w) if sweep_w else float('nan'):.2f}; {time.perf_counter() - t0:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt", default="huemanity-numeric")
    ap.add_argument("--palette", default="huemanity-01")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--jitter", type=float, default=1.0,
                    help="the reader's plates: per-dot colour jitter, 0-1 of HueManity §3's (shift 0.3, sRGB ±30, "
                         "lightness ×e^±ln 1.5; `plates staircase --jitter`); default 1. At 0 every dot of a class "
                         "is one colour and a pixel-exact reader separates them from ~0.3 ΔE2000")
    ap.add_argument("--reader-range", type=float, nargs=2, default=list(DEFAULT_RANGE), metavar=("LOW", "HIGH"),
                    help="the reader's staircase range in ΔE2000 (default: plates staircase's); set it around the "
                         "reader's threshold (the weights of 2026-11-26 read huemanity-01 at 256 px without jitter "
                         "from ~0.35, with HueManity's jitter from ~15)")
    ap.add_argument("--reader-grid", type=float, nargs=2, default=[4.0, 0.75], metavar=("START", "STEP"),
                    help="the reader's fine sweep grid: START + STEP * k ΔE2000 (default 4 0.75: 4-34)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--reader-runs", type=int, default=30, help="reader staircases against equal-cost sweeps")
    ap.add_argument("--reader-seeds", type=int, default=10, help="reader staircases at equal width")
    ap.add_argument("--per-level", type=int, default=8)
    ap.add_argument("--illusion-seeds", type=int, default=3)
    ap.add_argument("--trials", type=int, default=40, help="illusion staircase trials")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if args.runs:
        equal_cost(args.runs)
        simulated(args.runs)
    stimulus = {"palette": args.palette, "size": args.size, "font": "dejavu-sans-bold-oblique",
                **huemanity_jitter(args.jitter)}
    if args.reader_runs:
        reader_equal_cost(args.reader_runs, stimulus, args.prompt, tuple(args.reader_range), tuple(args.reader_grid))
    if args.reader_seeds:
        reader(args.reader_seeds, args.per_level, stimulus, args.prompt, tuple(args.reader_range),
               tuple(args.reader_grid))
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
