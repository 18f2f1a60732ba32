"""An ellipse run's summaries from its QUEST+ states: per-direction thresholds with their limits, and per centre
an ellipse (`plates.analysis.ellipses.fit_ellipse`) beside MacAdam's; written as Parquet beside the run's rows.
Whoever answered (a model's run, `plates.runs.ellipses`, or a person's directions quiz,
`plates.runs.quiz_directions`), the same states give the same summaries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from plates.analysis.adaptive import AdaptiveState
from plates.analysis.ellipses import INTERVAL_METHODS, compare_macadam, fit_ellipse, threshold_draws
from plates.colour.chromaticity import srgb255_to_xyY, uv_to_xy, xy_to_uv
from plates.colour.transfer import linear_to_srgb255, srgb255_to_linear
from plates.results.schema import KIND_KEY, SUMMARY_KIND
from plates.runs.ellipse_plan import LEVELS, UNITS, Centre, EllipseRun

__all__ = ["gamut_table", "shown_unit", "summarise", "write_summary"]


def gamut_table(run: EllipseRun) -> dict[tuple[int, int], float]:
    """Every (centre, direction)'s `EllipseRun.gamut_max`: the largest level whose figure lies in sRGB.

    Parameters
    ----------
    run : EllipseRun
        The run.

    Returns
    -------
    dict of (int, int) to float
        ``(centre index, direction index)`` -> the limit, in the mode's units (10⁻³ u'v' or CIELAB).
    """
    return {(ci, k): run.gamut_max(c, k) for ci, c in enumerate(run.centres) for k in range(len(run.direction_names))}


def write_summary(rows: list[dict[str, Any]], path: Path) -> None:
    """Write a summary table (thresholds or ellipses) as Parquet marked `SUMMARY_KIND` in its schema metadata,
    so the results readers leave it out (it sits beside the run's parts, and shares some column names).

    Parameters
    ----------
    rows : list of dict
        The table's rows.
    path : pathlib.Path
        The Parquet file, written atomically.
    """
    table = pa.Table.from_pylist(rows)
    pq.write_table(table.replace_schema_metadata({KIND_KEY: SUMMARY_KIND}), path)



def summarise(run: EllipseRun, states: Mapping[tuple[int, int], AdaptiveState], gamut: Mapping[tuple[int, int], float],
              *, backend_name: str, draws: int = 400, run_id: str | None = None,
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per-direction thresholds and, in mode "uv", per-centre ellipses (`plates.analysis.ellipses.fit_ellipse`)
    from the final QUEST+ states; ``run_id`` names the rows (default the run's: a person's quiz names its
    session).

    A threshold is flagged "quantisation-limited" when it spans at most one 8-bit code step, "gamut-limited" when
    its upper limit reaches the direction's gamut limit, "range-limited" when it reaches the top of `LEVELS`. In
    mode "uv" each direction neither gamut- nor range-limited gives the ellipse a point: the threshold placed on
    the u'v' direction the figure shows (`shown_unit`), as a CIE 1931 xy offset from the centre, with ``draws``
    resampled thresholds (`plates.analysis.ellipses.threshold_draws`) for the ellipse's intervals; the draws'
    generator is seeded from the run's seed, so the same states give the same rows. A MacAdam centre's ellipse
    row also carries the comparison with his (`plates.analysis.ellipses.compare_macadam`).

    Parameters
    ----------
    run : EllipseRun
        The run.
    states : mapping of (int, int) to AdaptiveState
        ``(centre index, direction index)`` -> the final QUEST+ state (levels in the mode's units).
    gamut : mapping of (int, int) to float
        The same keys -> the gamut limit (`gamut_table`).
    backend_name : str
        The ``backend`` column's value.
    draws : int, optional
        Resampled thresholds per direction for the ellipse intervals (default 400).
    run_id : str or None, optional
        The ``run_id`` column's value; None for ``run.run_id``.

    Returns
    -------
    (list of dict, list of dict)
        The threshold rows (one per centre and direction; ``threshold``, ``ci_low``, ``ci_high`` and
        ``gamut_max`` in the mode's units, ``limits`` the flags joined by commas) and the ellipse rows (one per
        centre in mode "uv", none in mode "lab"; axes ``a``, ``b`` in CIE 1931 xy, ``theta_deg`` in degrees,
        NaN when no ellipse was fitted).
    """
    run_id = run_id or run.run_id
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence((run.seed, 0xE11))))
    thresholds, ellipses = [], []
    for ci, c in enumerate(run.centres):
        angles, radii, sds, samples = [], [], [], []
        statuses = [states[(ci, k)].estimate(check=True).status for k in range(len(run.direction_names))]
        for k, name in enumerate(run.direction_names):
            state = states[(ci, k)]
            e = state.estimate(check=True)
            steps = run.code_steps(c, k, e.threshold)
            gmax = gamut[(ci, k)]
            gamut_limited = e.ci_high >= gmax - 1e-9
            range_limited = not gamut_limited and e.ci_high >= LEVELS[run.mode][1] - LEVELS[run.mode][2]
            flags = [f for f, on in (("quantisation-limited", steps <= 1.0), ("gamut-limited", gamut_limited),
                                     ("range-limited", range_limited)) if on]
            thresholds.append({"run_id": run_id, "model": run.model.model, "backend": backend_name,
                               "centre": c.name, "centre_x": c.xy_drawn[0], "centre_y": c.xy_drawn[1],
                               "centre_Y": c.Y_drawn, "mode": run.mode, "direction": name,
                               "direction_deg": run.angle(k), "unit": UNITS[run.mode], "threshold": e.threshold,
                               "ci_low": e.ci_low, "ci_high": e.ci_high, "gamut_max": gmax, "code_steps": steps,
                               "limits": ",".join(flags), "trials": e.trials, "status": e.status,
                               "message": e.message})
            if run.mode != "uv" or gamut_limited or range_limited or not state.history:
                continue  # no radius from a direction at a limit, or never asked (a person who stopped early)
            draw = threshold_draws(state, draws, rng, INTERVAL_METHODS[0])
            uv0 = xy_to_uv(c.xy_drawn)
            unit = shown_unit(run, c, k, e.threshold, uv0)
            pts = uv_to_xy(uv0 + np.outer(np.append(draw, e.threshold), unit) / 1000.0) - np.array(c.xy_drawn)
            ang = math.atan2(pts[-1, 1], pts[-1, 0])
            rad = np.hypot(pts[:, 0], pts[:, 1])
            scale = rad[-1] / max(e.threshold, 1e-12)  # xy per level unit along this direction
            angles.append(ang)
            radii.append(rad[-1])
            sds.append(scale * (e.ci_high - e.ci_low) / 3.92)
            samples.append(rad[:-1])
        if run.mode != "uv":
            continue
        fit = fit_ellipse(angles, radii, sds, np.array(samples).T if samples else None, statuses)
        trials = sum(states[(ci, k)].estimate().trials for k in range(len(run.direction_names)))
        row = {"run_id": run_id, "model": run.model.model, "backend": backend_name, "centre": c.name,
               "centre_x": c.xy_drawn[0], "centre_y": c.xy_drawn[1], "centre_Y": c.Y_drawn,
               "a": fit.ellipse.a if fit.ellipse else float("nan"),
               "b": fit.ellipse.b if fit.ellipse else float("nan"),
               "theta_deg": fit.ellipse.theta_deg if fit.ellipse else float("nan"),
               "area": fit.ellipse.area if fit.ellipse else float("nan"),
               "a_low": fit.a_ci[0], "a_high": fit.a_ci[1], "b_low": fit.b_ci[0], "b_high": fit.b_ci[1],
               "theta_low": fit.theta_ci[0], "theta_high": fit.theta_ci[1], "area_low": fit.area_ci[0],
               "area_high": fit.area_ci[1], "interval_method": INTERVAL_METHODS[0], "directions_used": fit.points, "trials": trials,
               "fit_p": fit.fit_p, "fit_rms_rel": fit.fit_rms_rel, "status": fit.status, "message": fit.message}
        row.update(_macadam(fit.ellipse, c.name, run.macadam_factor))
        ellipses.append(row)
    return thresholds, ellipses


def shown_unit(run: EllipseRun, c: Centre, k: int, level: float, uv0: np.ndarray) -> np.ndarray:
    """The u'v' direction the figure at ``level`` shows from the centre: its 8-bit colours (the mean of the
    dithered ones in linear light) rather than the direction asked. Rounding to 8 bits turns the figure off
    its direction by several degrees at levels of a few code steps, while the procedure's level is the distance
    shown; placing that distance on the asked direction turned the fitted ellipses by +4 to +7° in
    bench/bench_ellipses.py. When the figure rounds to the centre itself the direction asked is used (nothing
    was shown to measure one from).

    Parameters
    ----------
    run : EllipseRun
        The run (mode "uv": `EllipseRun.angle` gives the direction asked).
    c : Centre
        The centre.
    k : int
        The direction's index.
    level : float
        The level, in 10⁻³ u'v'.
    uv0 : numpy.ndarray, shape (2,)
        The centre's drawn colour in CIE 1976 u'v'.

    Returns
    -------
    numpy.ndarray, shape (2,)
        A unit vector in the u'v' plane.
    """
    encoded = linear_to_srgb255(srgb255_to_linear(run.figure_colours(c, k, level)).mean(axis=0))
    step = xy_to_uv(srgb255_to_xyY(encoded)[0]) - uv0
    norm = float(np.hypot(*step))
    if norm < 1e-9:
        t = math.radians(run.angle(k))
        return np.array([math.cos(t), math.sin(t)])
    return step / norm


def _macadam(ellipse: Any, name: str, factor: float) -> dict[str, float]:
    keys = ("macadam_a", "macadam_b", "macadam_theta_deg", "macadam_factor", "area_ratio", "axis_ratio",
            "theta_diff_deg")
    if ellipse is None or not name.startswith("macadam-"):
        return dict.fromkeys(keys, float("nan"))
    return compare_macadam(ellipse, name, factor)
