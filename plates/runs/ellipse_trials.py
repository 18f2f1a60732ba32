"""One trial of an ellipse run (`plates.runs.ellipse_plan.EllipseRun`), as every observer is asked it: its seed
and label, its plate and the level its dots show, its results row, and the QUEST+ states a run's rows say.

A model's run (`plates.runs.ellipses`) and a person's directions quiz (`plates.runs.quiz_directions`) both
present trials with `present_direction` and record them with `trial_row`, so a person's rows and a model's are
the same rows: the same item ids, columns and levels, read back by `states_from_rows`. The rules (the trial
seeds, the level shown, attempts after no answer) are in `plates.runs.ellipses`'s docstring.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from plates.analysis.adaptive import AdaptiveSpec, AdaptiveState
from plates.colour.spaces import delta_e2000
from plates.colour.transfer import linear_to_srgb255, srgb255_to_linear
from plates.models.base import Reply
from plates.results import load_results
from plates.runs.ellipse_plan import UNITS, Centre, EllipseRun
from plates.runs.rows import Asked, build_row
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec, render
from plates.tasks import task_of
from plates.tasks.prompts import get_prompt

__all__ = ["DirectionTrial", "answer_code", "answered", "item_id", "present_direction", "resume_state",
           "states_from_rows", "trial_row", "trial_seed"]


def trial_seed(run: EllipseRun, ci: int, k: int, r: int, attempt: int = 0) -> tuple[int, int]:
    """(label pick, plate seed) of round ``r``'s ask ``attempt`` of centre ``ci``, direction ``k``: from
    SHA-256 of the run's seed and those numbers (`plates.runs.ellipses`, Trial order).

    Parameters
    ----------
    run : EllipseRun
        The run; its ``seed`` is hashed.
    ci : int
        The centre's index.
    k : int
        The direction's index.
    r : int
        The round.
    attempt : int, optional
        The ask within the round (0 first; later ones after no answer).

    Returns
    -------
    (int, int)
        The label pick (the digest's first 8 bytes, big-endian; taken modulo the label space's size) and the plate
        seed (the next 8 bytes, shifted to 63 bits).
    """
    tail = f"\x1f{r}" if attempt == 0 else f"\x1f{r}\x1f{attempt}"
    digest = hashlib.sha256(f"{run.seed}\x1fellipses\x1f{ci}\x1f{k}{tail}".encode()).digest()
    return int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:16], "big") >> 1


def shown_level(run: EllipseRun, c: Centre, k: int, plate: Any) -> tuple[float, float]:
    """(The level the figure dots show, its ΔE2000): their area-weighted mean in linear light, re-encoded as
    sRGB 0-255, against the ground.

    Parameters
    ----------
    run : EllipseRun
        The run (`EllipseRun.shown` measures the level).
    c : Centre
        The centre (the ground, sRGB 0-255).
    k : int
        The direction's index.
    plate : Plate
        The rendered plate: its ``is_fg`` mask, ``dot_colours`` (sRGB 0-255) and dot radii ``r``.

    Returns
    -------
    (float, float)
        The level shown (the mode's units: 10⁻³ u'v' or CIELAB) and its CIEDE2000 ΔE from the centre's colour;
        (0.0, 0.0) when the plate has no figure dots.
    """
    fg = plate.is_fg
    if not fg.any():
        return 0.0, 0.0
    dots = plate.dot_colours[fg].astype(float)
    if (dots == dots[0]).all():  # one colour: itself (the linear-light round trip would leave ~1e-13)
        enc = dots[0]
    else:
        lin = srgb255_to_linear(dots)
        enc = linear_to_srgb255((lin * (plate.r[fg] ** 2)[:, None]).sum(0) / (plate.r[fg] ** 2).sum())
    return run.shown(c, k, enc), float(delta_e2000(enc, np.array(c.rgb, dtype=float)))


def item_id(run: EllipseRun, c: Centre, k: int, r: int, attempt: int) -> str:
    """``centre|direction|rrrr`` (attempt 0) or ``centre|direction|rrrr|attempt``.

    Parameters
    ----------
    run : EllipseRun
        The run (its direction names).
    c : Centre
        The centre (its name).
    k : int
        The direction's index.
    r : int
        The round, written with four digits.
    attempt : int
        The ask within the round.

    Returns
    -------
    str
        The item id; `states_from_rows` parses it back.
    """
    base = f"{c.name}|{run.direction_names[k]}|{r:04d}"
    return base if attempt == 0 else f"{base}|{attempt}"


def answer_code(row: Mapping[str, Any]) -> int | None:
    """The answer code a trial row gives QUEST+ (1 correct, 0 wrong; an unparsed reply is wrong, as the task
    scores it), or None when it is no answer (a failed request, a declined query).

    Parameters
    ----------
    row : mapping
        A results row: its ``correct`` (bool, or None/NaN) and ``parse_status``.

    Returns
    -------
    int or None
        1 or 0, or None when ``parse_status`` is "error" or "unsupported" or ``correct`` is None or NaN.
    """
    correct = row.get("correct")
    if row.get("parse_status") in ("error", "unsupported") or correct is None or (
            isinstance(correct, float) and math.isnan(correct)):
        return None
    return int(bool(correct))


@dataclass(frozen=True)
class DirectionTrial:
    """One trial as drawn: where it is (``ci``, ``k``, round ``r``, ``attempt``), the ``level`` asked (the
    mode's units, at most the direction's gamut limit), the plate's spec, the ``shown`` level and ``delta_e``
    (ΔE2000) its dots give, the task's question and the image the observer sees (sRGB 0-255).

    Parameters
    ----------
    ci : int
        The centre's index.
    k : int
        The direction's index.
    r : int
        The round.
    attempt : int
        The ask within the round.
    level : float
        The level asked, in the mode's units (10⁻³ u'v' or CIELAB), already clipped to the gamut limit.
    spec : PlateSpec
        The plate's spec.
    shown : float
        The level the figure dots show (`shown_level`), in the mode's units.
    delta_e : float
        CIEDE2000 ΔE between the figure dots' mean and the centre.
    question : Question
        The task's question.
    image : PIL.Image.Image
        The image shown (the prompt's variant of the plate), sRGB 0-255.
    """

    ci: int
    k: int
    r: int
    attempt: int
    level: float
    spec: PlateSpec
    shown: float
    delta_e: float
    question: Any
    image: Any


def present_direction(run: EllipseRun, ci: int, k: int, r: int, attempt: int, level: float,
                      gamut: float | None = None) -> DirectionTrial:
    """Draw round ``r``'s ask ``attempt`` of centre ``ci``, direction ``k`` at ``level`` (clipped to ``gamut``,
    the direction's `EllipseRun.gamut_max`, computed when None): its label and seed (`trial_seed`), plate,
    level shown and question.

    Parameters
    ----------
    run : EllipseRun
        The run.
    ci : int
        The centre's index.
    k : int
        The direction's index.
    r : int
        The round.
    attempt : int
        The ask within the round.
    level : float
        The level asked, in the mode's units (10⁻³ u'v' or CIELAB).
    gamut : float or None, optional
        The direction's gamut limit, or None to compute it.

    Returns
    -------
    DirectionTrial
        The trial, ready to ask.
    """
    c = run.centres[ci]
    level = min(float(level), run.gamut_max(c, k) if gamut is None else gamut)
    template = get_prompt(run.prompt)
    labels = LABEL_SPACES[template.label_space]
    label_pick, seed = trial_seed(run, ci, k, r, attempt)
    spec = run.base_spec(c, run.figure_colours(c, k, level), labels[label_pick % len(labels)], seed)
    plate = render(spec)
    shown, delta_e = shown_level(run, c, k, plate)
    question = task_of(template).question(plate.truth, template, seed=seed)
    return DirectionTrial(ci, k, r, attempt, level, spec, shown, delta_e, question, plate.variant(template.variant))


def trial_row(run: EllipseRun, trial: DirectionTrial, reply: Reply, *, run_id: str | None = None,
              model: str | None = None, backend: str | None = None, dataset: str = "ellipses") -> dict[str, Any]:
    """The results row of one trial (`plates.runs.rows.build_row`) with the ellipse columns; ``run_id``,
    ``model``, ``backend`` default to the run's (a person's quiz names its participant and "human").

    The row key is the first 20 hex digits of SHA-256 over ``run_id|item_id``; the ellipse columns are
    ``centre_x``, ``centre_y`` (the centre as drawn, CIE 1931 xy), ``direction``, ``direction_deg`` (None in
    mode "lab"), ``level`` (asked), ``level_shown``, ``level_unit`` (`UNITS`) and ``code_steps``.

    Parameters
    ----------
    run : EllipseRun
        The run.
    trial : DirectionTrial
        The trial asked.
    reply : Reply
        The observer's reply.
    run_id : str or None, optional
        The row's run id; None for ``run.run_id``.
    model : str or None, optional
        The row's model; None for the run's.
    backend : str or None, optional
        The row's backend; None for the run's.
    dataset : str, optional
        The row's dataset (default "ellipses").

    Returns
    -------
    dict
        The results row.
    """
    c = run.centres[trial.ci]
    run_id = run_id or run.run_id
    item = item_id(run, c, trial.k, trial.r, trial.attempt)
    asked = Asked(run_id=run_id, row_key=hashlib.sha256(f"{run_id}|{item}".encode()).hexdigest()[:20],
                  item_id=item, dataset=dataset, model=model or run.model.model,
                  backend=backend or run.model.backend, question=trial.question, spec_json=trial.spec.to_json(),
                  family="ishihara", variant=get_prompt(run.prompt).variant, group=f"ellipse-{run.mode}",
                  delta_e=trial.delta_e, font=trial.spec.font, size=int(trial.image.size[0]))
    row = build_row(asked, reply)
    row.update({"centre_x": c.xy_drawn[0], "centre_y": c.xy_drawn[1], "direction": run.direction_names[trial.k],
                "direction_deg": run.angle(trial.k), "level": float(trial.level),
                "level_shown": float(trial.shown), "level_unit": UNITS[run.mode],
                "code_steps": run.code_steps(c, trial.k, trial.level)})
    return row


def states_from_rows(run: EllipseRun, spec: AdaptiveSpec, rows: Iterable[Mapping[str, Any]], where: str = "the rows",
                     ) -> tuple[dict[tuple[int, int], AdaptiveState], dict[tuple[int, int, int], int]]:
    """What trial rows of ``run`` (``item_id``, ``level_shown``, ``correct``, ``parse_status``) say: (every
    (centre, direction)'s QUEST+ state with its answered trials replayed in round order, the asks so far per
    (centre, direction, round)). ``where`` names the rows in errors.

    Parameters
    ----------
    run : EllipseRun
        The run that wrote the rows.
    spec : AdaptiveSpec
        The QUEST+ specification (`EllipseRun.adaptive_spec`).
    rows : iterable of mapping
        Trial rows (`trial_row`); rows without an answer (`answer_code` None) count as asks only.
    where : str, optional
        Where the rows come from, for error messages.

    Returns
    -------
    (dict, dict)
        ``(centre index, direction index)`` -> `AdaptiveState` (every pair, empty when unasked), and
        ``(centre index, direction index, round)`` -> the number of asks made.

    Raises
    ------
    ValueError
        A row names a centre or direction the run does not have (it was not written by these settings).
    """
    keys = {(c.name, name): (ci, k) for ci, c in enumerate(run.centres) for k, name in enumerate(run.direction_names)}
    asks: dict[tuple[int, int, int], list[tuple[int, float, int | None]]] = {}
    for row in rows:
        parts = str(row["item_id"]).split("|")
        if len(parts) not in (3, 4) or (parts[0], parts[1]) not in keys or not parts[2].isdigit() or (
                len(parts) == 4 and not parts[3].isdigit()):
            raise ValueError(f"row {row['item_id']!r} in {where} is not one of this run's trials; allowed: "
                             "'centre|direction|round[|attempt]' with this run's centres and directions")
        ci, k = keys[(parts[0], parts[1])]
        attempt = int(parts[3]) if len(parts) == 4 else 0
        asks.setdefault((ci, k, int(parts[2])), []).append((attempt, float(row["level_shown"]), answer_code(row)))
    history: dict[tuple[int, int], list[tuple[float, int]]] = {key: [] for key in keys.values()}
    counts = {}
    for (ci, k, r), tries in sorted(asks.items()):
        tries.sort()
        counts[(ci, k, r)] = len(tries)
        history[(ci, k)] += [(level, code) for _, level, code in tries if code is not None]
    return {key: AdaptiveState.replay(spec, pairs) for key, pairs in history.items()}, counts


def resume_state(run: EllipseRun, spec: AdaptiveSpec) -> tuple[dict[tuple[int, int], AdaptiveState],
                                                              dict[tuple[int, int, int], int]]:
    """`states_from_rows` over the rows of ``run`` already under ``run.out`` (`plates.runs.ellipses`, Resume).

    Parameters
    ----------
    run : EllipseRun
        The run; its Parquet parts ``<run_id>-*.parquet`` under ``run.out`` are read (none when the folder is
        missing).
    spec : AdaptiveSpec
        The QUEST+ specification.

    Returns
    -------
    (dict, dict)
        As `states_from_rows`: the states per (centre, direction) and the asks per (centre, direction, round).

    Raises
    ------
    ValueError
        A row of this run names a centre or direction the run does not have.
    """
    out = Path(run.out)
    files = sorted(out.glob(f"{run.run_id}-*.parquet")) if out.is_dir() else []
    frame = load_results(files, columns=["run_id", "item_id", "level_shown", "correct", "parse_status"]).frame \
        if files else None
    rows = [] if frame is None else frame[frame["run_id"] == run.run_id].to_dict("records")
    return states_from_rows(run, spec, rows, f"run {run.run_id} in {out}")


def answered(states: Mapping[tuple[int, int], AdaptiveState], key: tuple[int, int], r: int) -> bool:
    """Round ``r`` of ``key`` has its answer (rounds are answered in order, one answer each).

    Parameters
    ----------
    states : mapping of (int, int) to AdaptiveState
        The states (`states_from_rows`).
    key : (int, int)
        ``(centre index, direction index)``.
    r : int
        The round.

    Returns
    -------
    bool
        Whether the state's history holds more than ``r`` answers.
    """
    return len(states[key].history) > r
