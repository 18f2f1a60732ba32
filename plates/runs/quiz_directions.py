"""A person's own discrimination ellipse ("Try it yourself", directions mode): the same interleaved QUEST+ per
direction around one centre as ``plates ellipses`` (`plates.runs.ellipse_plan.EllipseRun`, trials drawn by
`plates.runs.ellipse_trials.present_direction`, summarised by `plates.runs.ellipse_summary.summarise`), answered
by a person on their own screen, with the consent, limits and storage of every quiz (`plates.runs.quiz`).

Each answer is one results row with backend ``human``, model "participant-<random id>", dataset "quiz" and the
ellipse columns (centre, direction, level asked and shown, code steps) exactly as a model's ellipse trial has
them, plus the person's optional self-reported colour-vision type (``colour_vision``). Trials go in rounds:
round r asks every direction once, in order (`DirectionsSession.next_trial`), as ``plates ellipses`` does; a
trial's label and plate seed come from the session's seed (random per session) like a run's.

`ellipses_from_rows` fits people's ellipses from their stored rows alone (what the dashboard's Observers page
and the explorer's charts draw): the run is rebuilt from the rows (the centre from the plates' ground colour,
the directions from their names), each direction's QUEST+ state replayed from its answers, and the same
summary made.

The display caveat (`DISPLAY_CAVEAT`): the screen is not calibrated. The stimuli are sRGB 0-255 and the levels
are computed as if the screen showed sRGB (IEC 61966-2-1: D65 white, the sRGB transfer curve); a real screen's
primaries, white point, gamma, brightness and the room's light all change what reaches the eye, so the figures
describe this person on this screen, not their colour vision. On an 8-bit screen one code step is already
comparable to MacAdam's ellipses at many centres (`plates.runs.ellipses`): a threshold within one step is
flagged "quantisation-limited" and is the screen's, not the person's.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from plates.admission import RateLimit
from plates.analysis.adaptive import AdaptiveState
from plates.colour.chromaticity import srgb255_to_xyY
from plates.models.base import Reply
from plates.runs.ellipse_plan import MIN_TRIALS, Centre, EllipseRun, parse_centres
from plates.runs.ellipse_summary import gamut_table, summarise
from plates.runs.ellipse_trials import (
    DirectionTrial,
    answer_code,
    present_direction,
    states_from_rows,
    trial_row,
)
from plates.runs.experiment import ModelSpec
from plates.runs.quiz import PersonSession, QuizLimits, Trial, check_colour_vision, results_folder
from plates.runs.rows import PARTICIPANT_PREFIX
from plates.stimuli import spec_from_json

__all__ = ["DEFAULT_CENTRE", "DIRECTIONS_BLOCK", "DISPLAY_CAVEAT", "DirectionsSession", "ellipses_from_rows",
           "present_direction_here"]

#: The quiz's default centre: MacAdam's centre 13 (x 0.305, y 0.323), inside sRGB, where the bundled reader's
#: ellipse ships (results/runs/ellipses-baseline).
DEFAULT_CENTRE = "macadam-13"
DIRECTIONS_BLOCK = "direction"
#: Shown before the first image and with the result (module docstring).
DISPLAY_CAVEAT = (
    "**Your screen is not calibrated.** The colours are computed as if your screen showed sRGB (most screens "
    "are set close to it), but its real colours, brightness and your room's light change what you see: the "
    "ellipse you get describes what *this screen* shows you, not your colour vision, and it is not a medical "
    "test. On an ordinary 8-bit screen the smallest step a colour can take is already about as large as the "
    "finest differences people can see near this colour, so a threshold within one step is marked "
    "“quantisation-limited”: the screen's limit, not yours.")
_PROMPT = "Type the number you see (or ? if you see none)."
#: The ellipse figures an incomplete session's row leaves empty.
_ELLIPSE_NUMBERS = ("a", "b", "theta_deg", "area", "a_low", "a_high", "b_low", "b_high", "theta_low", "theta_high",
                    "area_low", "area_high", "area_ratio", "axis_ratio", "theta_diff_deg")


def present_direction_here(run: EllipseRun, k: int, r: int, attempt: int, state: AdaptiveState) -> DirectionTrial:
    """Round ``r``'s ask ``attempt`` along direction ``k`` at the level ``state`` picks next, drawn in this
    process (`plates.runs.ellipse_trials.present_direction`).

    Parameters
    ----------
    run : EllipseRun
        The session's run (one centre, index 0).
    k : int
        The direction's index.
    r : int
        The round.
    attempt : int
        The ask within the round (0 first).
    state : AdaptiveState
        The direction's QUEST+ state; its next level is in 10⁻³ u'v'.

    Returns
    -------
    DirectionTrial
        The trial to show.
    """
    return present_direction(run, 0, k, r, attempt, state.next_level())


@dataclass
class DirectionsSession(PersonSession):
    """One person's directions quiz (module docstring): ``run`` (one centre, backend "human"), one QUEST+
    ``states[k]`` per direction, and ``asks[(k, r)]``: the asks so far of direction ``k``'s round ``r``.

    Build it with `DirectionsSession.start`.

    Parameters
    ----------
    limits, folder, participant, rows, client, store_share, colour_vision, store_note
        As in `plates.runs.quiz.PersonSession`.
    run : EllipseRun or None
        The session's run (one centre, mode "uv", backend "human"); `start` sets it.
    states : dict of int to AdaptiveState
        Direction index -> its QUEST+ state (levels in 10⁻³ u'v').
    asks : dict of (int, int) to int
        ``(direction index, round)`` -> the asks made so far.

    Attributes
    ----------
    run : EllipseRun or None
        The session's run.
    states : dict of int to AdaptiveState
        The QUEST+ state per direction after the answers so far.
    asks : dict of (int, int) to int
        The asks per direction and round.
    """

    run: EllipseRun | None = None
    states: dict[int, AdaptiveState] = field(default_factory=dict)
    asks: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def start(cls, *, centre: str = DEFAULT_CENTRE, directions: int = 8, trials: int = 10, size: int = 512,
              seed: int | None = None, limits: QuizLimits | None = None, folder: str | os.PathLike | None = None,
              client: str = "", store_share: RateLimit | None = None,
              colour_vision: str | None = None) -> DirectionsSession:
        """A new session: ``trials`` answers along each of ``directions`` u'v' directions around ``centre``
        (one centre, as ``--centres`` takes it: a MacAdam name or "x,y"), plates of ``size`` px; the run's
        rules (`EllipseRun`) validate them.

        Parameters
        ----------
        centre : str, optional
            One centre: a MacAdam centre's name (default `DEFAULT_CENTRE`) or "x,y" in CIE 1931 xy.
        directions : int, optional
            Directions evenly spaced in the u'v' plane.
        trials : int, optional
            Answers per direction (at least `plates.runs.ellipse_plan.MIN_TRIALS`).
        size : int, optional
            The plates' side, px.
        seed : int or None, optional
            Seeds the trials' labels and plates (None: a random one).
        limits : QuizLimits or None, optional
            The session's caps (None: the defaults).
        folder : str or os.PathLike or None, optional
            Where answers are stored (`plates.runs.quiz.results_folder`).
        client : str, optional
            The participant's address.
        store_share : RateLimit or None, optional
            The address's share of the answer store.
        colour_vision : str or None, optional
            The person's self-reported type (`plates.runs.quiz.COLOUR_VISION`), None: not given.

        Returns
        -------
        DirectionsSession
            The session, with a fresh participant id and a started QUEST+ state per direction.

        Raises
        ------
        ValueError
            A bad centre, direction count or trial count (`EllipseRun`), more than one centre, more answers
            than ``limits.max_answers``, or a colour-vision type not in `plates.runs.quiz.COLOUR_VISION`.
        """
        limits = limits or QuizLimits()
        colour_vision = check_colour_vision(colour_vision)
        centres, _ = parse_centres(centre)
        if len(centres) != 1:
            raise ValueError(f"centre {centre!r} names {len(centres)} centres; allowed: one centre (a MacAdam "
                             "centre's name inside sRGB, e.g. macadam-13, or 'x,y')")
        participant = uuid.uuid4().hex[:16]
        seed = int(uuid.uuid4().int % 2**31) if seed is None else seed
        where = results_folder(folder)
        run = EllipseRun(centres=(centres[0],), model=ModelSpec("human", f"{PARTICIPANT_PREFIX}{participant}"),
                         directions=directions, trials=trials, seed=seed, size=size, out=str(where or "."))
        total = len(run.direction_names) * run.trials
        if total > limits.max_answers:
            raise ValueError(f"{len(run.direction_names)} directions x {run.trials} trials = {total} answers; "
                             f"allowed: at most {limits.max_answers} per session")
        spec = run.adaptive_spec()
        return cls(limits=limits, folder=where, participant=participant, client=client, store_share=store_share,
                   colour_vision=colour_vision, run=run,
                   states={k: AdaptiveState.start(spec) for k in range(len(run.direction_names))})

    @property
    def centre(self) -> Centre:
        """The session's one centre (its ``rgb``, sRGB 0-255, is the plates' ground)."""
        return self.run.centres[0]

    @property
    def trials(self) -> int:
        """The most trials this session shows (every direction's answers)."""
        return min(self.limits.max_answers, len(self.states) * self.run.trials)

    @property
    def done(self) -> bool:
        """Whether the session has shown its last trial (its cap, or every direction's QUEST+ stopped)."""
        return len(self.rows) >= self.trials or all(s.done for s in self.states.values())

    def _next(self) -> tuple[int, int]:
        """(direction, round) of the next trial: round r asks every direction once, in order."""
        for r in range(self.run.trials):
            for k, state in self.states.items():
                if len(state.history) <= r:
                    return k, r
        raise ValueError("this session is finished; see the result, or start again")

    def next_trial(self, present: Callable[[EllipseRun, int, int, int, AdaptiveState], DirectionTrial] | None = None,
                   ) -> Trial:
        """The plate to show (the same one again until it is answered). A new one is drawn by ``present(run,
        k, r, attempt, state)``: `present_direction_here` by default, or where a server draws its images
        (`plates.explorer.pool.ExplorerPool.direction_trial`).

        Parameters
        ----------
        present : callable or None, optional
            ``present(run, k, r, attempt, state) -> DirectionTrial``; None for `present_direction_here`.

        Returns
        -------
        plates.runs.quiz.Trial
            The trial: its number, block `DIRECTIONS_BLOCK`, the level the dots show (10⁻³ u'v'), the image
            (sRGB 0-255) and the prompt.

        Raises
        ------
        ValueError
            The session is finished (`done`).
        """
        if self._shown is not None:
            return self._shown[0]
        if self.done:
            raise ValueError("this session is finished; see the result, or start again")
        k, r = self._next()
        drawn = (present or present_direction_here)(self.run, k, r, self.asks.get((k, r), 0), self.states[k])
        trial = Trial(len(self.rows) + 1, DIRECTIONS_BLOCK, drawn.shown, drawn.image, _PROMPT)
        self._shown = (trial, drawn, time.monotonic())
        return trial

    def answer(self, text: str) -> dict:
        """Record the person's typed label for the plate shown, update its direction's QUEST+ at the level the
        dots showed, and store the row unless storing has stopped.

        Parameters
        ----------
        text : str
            The number the person typed ("?" or blank: they saw none, scored wrong).

        Returns
        -------
        dict
            The result row (`plates.results.schema` columns, the ellipse columns filled).

        Raises
        ------
        ValueError
            As `plates.runs.quiz.QuizSession.answer`: nothing shown, too long, too fast, too many answers.
        """
        _, drawn, shown_at, now = self._accept(text)
        row = trial_row(self.run, drawn, Reply(text.strip() or "?", latency_s=now - shown_at), run_id=self.run_id,
                        model=self.model, backend="human", dataset="quiz")
        self.asks[(drawn.k, drawn.r)] = self.asks.get((drawn.k, drawn.r), 0) + 1
        code = answer_code(row)
        if code is not None:
            self.states[drawn.k] = self.states[drawn.k].update(drawn.shown, code)
        return self._record(row, now)

    def summary(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(Per-direction thresholds, the ellipse) so far, as ``plates ellipses`` writes them
        (`plates.runs.ellipse_summary.summarise`), named by this session's run id, with ``colour_vision``."""
        thresholds, ellipses = summarise(self.run, {(0, k): s for k, s in self.states.items()},
                                         gamut_table(self.run), backend_name="human", run_id=self.run_id)
        for row in ellipses:
            row["colour_vision"] = self.colour_vision
        return thresholds, ellipses


def _run_from_rows(rows: pd.DataFrame) -> EllipseRun:
    """The directions quiz's run that wrote ``rows`` (one person's u'v' ellipse rows at one centre): the
    centre from the plates' ground colour (8-bit sRGB 0-255) and name, the directions from their names, the
    plates' size (a session stopped early has answered only some directions: the fewest evenly spaced ones
    that name them all); the rest are the quiz's settings, checked against the first row's stored plate."""
    first = rows.iloc[0]
    spec = spec_from_json(first["spec_json"])
    rgb = np.asarray(spec.background[0], dtype=float)
    xy, Y = srgb255_to_xyY(rgb)
    centre = Centre(str(first["item_id"]).split("|")[0], float(xy[0]), float(xy[1]), float(Y))
    names = set(rows["direction"].astype(str))
    # the fewest evenly spaced directions whose names hold every one answered (a session may stop early)
    count = next((n for n in (3, *range(5, 73)) if names <= {f"uv-{360.0 * k / n:05.1f}" for k in range(n)}), None)
    if count is None or centre.rgb != tuple(int(v) for v in rgb):
        raise ValueError(f"rows of {first['run_id']} are not a directions quiz's: centre {centre.rgb} vs ground "
                         f"{tuple(int(v) for v in rgb)}, directions {sorted(names)}; allowed: rows the quiz wrote")
    rounds = int(max(int(str(i).split("|")[2]) for i in rows["item_id"])) + 1
    run = EllipseRun(centres=(centre,), model=ModelSpec("human", str(first["model"])), directions=count,
                     trials=max(rounds, 10), size=int(spec.size), font=spec.font, out=".")
    again = run.base_spec(centre, tuple(map(tuple, spec.foreground)), spec.text, spec.seed)
    if again.to_json() != spec.to_json():
        raise ValueError(f"rows of {first['run_id']} were drawn with plate settings the quiz does not use; "
                         "allowed: rows the directions quiz wrote")
    return run


def ellipses_from_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """People's ellipses fit from their rows alone (module docstring): one row per person's session
    (``run_id``) and centre, with the columns of ``plates ellipses``' ellipses.parquet (``model`` the
    participant) plus ``colour_vision`` (the type the person reported, or None). Rows that are not a person's
    u'v' direction trials are ignored; a session whose rows cannot be rebuilt into a run gets status
    "unreadable", and one with fewer than `MIN_TRIALS` answers in some direction (stopped early) status
    "incomplete" and no ellipse, each with its reason in ``message``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows (any backends); those with backend "human" and ``level_unit`` "1e-3 u'v'" are read.

    Returns
    -------
    pandas.DataFrame
        One row per session, ellipse axes in CIE 1931 xy; empty when ``frame`` is empty or lacks a column the
        fit needs (``backend``, ``level_unit``, ``run_id``, ``item_id``, ``direction``, ``spec_json``,
        ``level_shown``, ``correct``).
    """
    need = {"backend", "level_unit", "run_id", "item_id", "direction", "spec_json", "level_shown", "correct"}
    if frame.empty or not need <= set(frame.columns):
        return pd.DataFrame()
    mine = frame[(frame["backend"].astype(object) == "human") & (frame["level_unit"].astype(object) == "1e-3 u'v'")]
    out = []
    for run_id, rows in mine.groupby(mine["run_id"].astype(str), sort=True):
        types = rows["colour_vision"].dropna() if "colour_vision" in rows else pd.Series(dtype=object)
        colour_vision = str(types.iloc[-1]) if len(types) else None
        try:
            run = _run_from_rows(rows)
            spec = run.adaptive_spec()
            states, _ = states_from_rows(run, spec, rows.to_dict("records"), f"run {run_id}")
            _, ellipses = summarise(run, states, gamut_table(run), backend_name="human", run_id=run_id)
            answered = min(len(state.history) for state in states.values())
            if answered < MIN_TRIALS:  # a session stopped early: no ellipse is claimed from it
                for row in ellipses:
                    row.update({k: float("nan") for k in _ELLIPSE_NUMBERS if k in row})
                    row.update(status="incomplete", message=f"a direction has {answered} answers; an ellipse "
                               f"needs {MIN_TRIALS} in every direction (the session stopped early)")
        except ValueError as exc:
            out.append({"run_id": run_id, "model": str(rows["model"].iloc[0]), "backend": "human",
                        "centre": str(rows["item_id"].iloc[0]).split("|")[0], "a": float("nan"),
                        "status": "unreadable", "message": str(exc), "colour_vision": colour_vision})
            continue
        for row in ellipses:
            row["colour_vision"] = colour_vision
        out += ellipses
    return pd.DataFrame(out)
