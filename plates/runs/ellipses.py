"""``plates ellipses``: thresholds along N directions around centre colours, one QUEST+ per direction, trials
interleaved, and a discrimination ellipse per centre.

The run is split by what each part does: `plates.runs.ellipse_plan` (the centres, directions, levels and plates:
`EllipseRun`), `plates.runs.ellipse_trials` (one trial drawn and recorded, and the states a run's rows say),
`plates.runs.ellipse_summary` (thresholds and ellipses) and this module (the loop that asks a backend every trial,
and resumes). A person's directions quiz (`plates.runs.quiz_directions`) uses the same parts.

Each trial is a plate (`plates.stimuli.ishihara`, the run's style, font and size) whose ground is the centre
colour (8-bit sRGB) and whose figure is the centre moved by the level along the direction; the label comes from
the prompt's label space. Two modes:

* ``"uv"`` (chromatic): N directions evenly spaced in the CIE 1976 u'v' plane (angle 0 = +u'), at the centre's
  luminance Y; the level is the u'v' distance in units of 10⁻³. Thresholds become xy points and an ellipse per
  centre (`plates.analysis.ellipses`).
* ``"lab"``: the six CIELAB directions L*+, L*−, C*+, C*−, h+, h− (D65 2°): lightness, chroma and metric hue
  difference ΔH*ab; the level is in CIELAB units. Thresholds only (no ellipse); the centre needs C*ab >= 1.

The level shown is measured on the dots as drawn (as the drawn ΔE2000 is, `plates.stimuli.ishihara.measure`):
the area-weighted mean of the figure dots in linear light against the ground. With ``dither``, a figure colour
between 8-bit codes is drawn as 16 colours per plate, each channel floor or ceil of the wanted value in the
share that makes its mean the wanted value, one drawn per dot (the plate's colour choice): sub-step levels
exist on average over the figure, and the level shown says what the dots give. Without it the figure is the
wanted colour rounded to 8 bits, and a level under half a step shows nothing.

Per direction: the largest level inside sRGB (``gamut_max``); a level asked beyond it is shown at it, and a
threshold whose upper credible bound reaches it is "gamut-limited" (a lower bound, left out of the ellipse).
A threshold whose upper bound reaches the top of the level range is "range-limited" (also left out).
``code_steps``: the largest channel difference, in 8-bit codes, between the figure at the threshold and the
centre; within one step the threshold is "quantisation-limited".

Trial order: round r asks every (centre, direction) once, in order; a trial's label and plate seed come from
SHA-256(seed, centre, direction, r, attempt), attempt 0 unless an earlier ask of that trial brought no answer
(a failed request, a declined query), which is asked again as attempt 1, 2, ... (item ``centre|direction|rrrr``,
then ``centre|direction|rrrr|attempt``: every ask is its own row).

Resume, as `plates.runs.staircase` does: the run id hashes the run's settings; a rerun reads the run's rows
under ``out``, replays each (centre, direction)'s answered trials in round order into its QUEST+ state
(`AdaptiveState.replay`: the posterior is rebuilt exactly, so the next level asked is the one an unbroken run
would ask), skips the rounds answered and goes on. The run holds its lock (`plates.runs.locks.run_lock`) while
it asks, so two processes never continue the same rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plates.analysis.adaptive import AdaptiveState
from plates.models import make_backend as registry_make
from plates.results import ResultsWriter, compact_run
from plates.runs.ellipse_plan import EllipseRun
from plates.runs.ellipse_summary import gamut_table, summarise, write_summary
from plates.runs.ellipse_trials import answer_code, answered, present_direction, resume_state, trial_row
from plates.runs.locks import run_lock
from plates.tasks.prompts import query_for

__all__ = ["EllipseResult", "run_ellipses"]

_MAX_FAILURES = 10


@dataclass
class EllipseResult:
    """What a run did: its ``thresholds`` (one row per centre x direction) and ``ellipses`` (one per centre,
    mode "uv"; empty in mode "lab") as lists of dicts, queries, errors, seconds, where the files are.

    Attributes
    ----------
    run_id : str
        The run.
    out : str
        Where the files are.
    thresholds : list of dict
        One row per centre x direction.
    ellipses : list of dict
        One per centre (mode "uv"; empty in mode "lab").
    queries, errors : int
        This call's asks, and those that failed.
    seconds : float
        Wall-clock time.
    """

    run_id: str
    out: str
    thresholds: list[dict[str, Any]]
    ellipses: list[dict[str, Any]]
    queries: int
    errors: int
    seconds: float



def run_ellipses(run: EllipseRun, *, make_backend: Callable[..., Any] | None = None,
                 on_trial: Callable[[str, str, int, float, dict], None] | None = None) -> EllipseResult:
    """Run (or continue: module docstring, Resume) every staircase of ``run`` to its trials, write the rows,
    DIR/thresholds.parquet and (mode "uv") DIR/ellipses.parquet; ``on_trial(centre, direction, round,
    level_shown, row)`` reports progress. ``queries`` and ``errors`` count this call's asks.

    Parameters
    ----------
    run : EllipseRun
        The run.
    make_backend : callable, optional
        ``make_backend(kind, model=..., **options)`` -> backend (default: the backend registry's).
    on_trial : callable, optional
        Called after each answered trial.

    Returns
    -------
    EllipseResult
        What the run did.

    Raises
    ------
    ValueError
        When rows already under ``run.out`` do not fit the run (`resume_state`), another process runs it, or
        too many trials in a row bring no answer (the rows so far stay on disk).
    """
    t0 = time.monotonic()
    out = Path(run.out)
    out.mkdir(parents=True, exist_ok=True)
    with run_lock(out, run.run_id):
        states, queries, errors = _ask_all(run, out, make_backend, on_trial)
    compact_run(out, run.run_id)
    thresholds, ellipses = summarise(run, states, gamut_table(run), backend_name=run.model.backend)
    write_summary(thresholds, out / "thresholds.parquet")
    if run.mode == "uv":
        write_summary(ellipses, out / "ellipses.parquet")
    return EllipseResult(run.run_id, str(out), thresholds, ellipses, queries, errors, time.monotonic() - t0)


def _ask_all(run: EllipseRun, out: Path, make_backend: Callable[..., Any] | None,
             on_trial: Callable[[str, str, int, float, dict], None] | None,
             ) -> tuple[dict[tuple[int, int], AdaptiveState], int, int]:
    """Ask every trial not yet answered (module docstring); (the final states, asks made, error rows)."""
    spec = run.adaptive_spec()
    names = run.direction_names
    gamut = gamut_table(run)
    states, counts = resume_state(run, spec)
    if all(answered(states, key, r) for key in states for r in range(run.trials)):
        return states, 0, 0
    m = run.model
    backend = (make_backend or registry_make)(m.backend, model=m.model, **m.options)
    writer = ResultsWriter(out, run.run_id, flush_rows=64, flush_seconds=1.0)
    queries = errors = failures = 0
    try:
        for r in range(run.trials):
            for (ci, k), state in list(states.items()):
                if answered(states, (ci, k), r):
                    continue
                c = run.centres[ci]
                attempt = counts.get((ci, k, r), 0)
                while True:
                    trial = present_direction(run, ci, k, r, attempt, state.next_level(), gamut[(ci, k)])
                    query = query_for(trial.question, trial.image, max_tokens=m.max_tokens, temperature=m.temperature)
                    (_, reply), = list(backend.ask([query]))
                    row = trial_row(run, trial, reply)
                    writer.add(row)
                    queries += 1
                    attempt += 1
                    errors += row["parse_status"] == "error"
                    if on_trial is not None:
                        on_trial(c.name, names[k], r, trial.shown, row)
                    code = answer_code(row)
                    if code is None:
                        failures += 1
                        if failures >= _MAX_FAILURES:
                            raise ValueError(f"{failures} trials in a row brought no answer (last: parse status "
                                             f"{row['parse_status']!r}, {row['error'] or 'no error text'}); the "
                                             f"rows so far are in {out}; fix the cause and rerun to continue")
                        continue
                    failures = 0
                    states[(ci, k)] = state.update(trial.shown, code)
                    break
    finally:
        writer.close()
        backend.close()
    return states, queries, errors


