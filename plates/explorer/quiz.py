"""The "Try it yourself" tab's logic, apart from any widget: a person's quiz (`plates.runs.quiz`)
from consent to result, and the models' estimates on the same stimuli beside theirs.

* The bundled reader's plate threshold: `plates.runs.staircase.run_staircase` with the baseline backend on the
  participant's plate staircase with only the model, the seed (0) and the output folder (a temporary one this
  module makes) changed: the same plates (palette, font, size), prompt, ΔE2000 range (CIEDE2000, CIELAB D65 2°),
  trial count and psychometric model. Its seed is fixed so that one run per (palette, size, trials, range)
  serves every participant (`ReaderCache`, one per app; a lock makes concurrent first requests run it once).
  The reader declines illusion questions, so it has no PSE.
* Other models (`ModelBoard`): results rows a Space's operator stored in the folder named by
  ``PLATES_QUIZ_MODELS`` (e.g. from ``plates staircase examples/staircase-illusion.toml`` against an API
  model, or a ``plates run``): per model, the plate threshold by the chance-aware fit over its rows on the
  quiz's colour set and prompt (`plates.analysis.people.threshold_table`), and the illusion magnitude by
  the PSE fit over its RCID comparison rows of the quiz's illusion kind and strength
  (`plates.analysis.illusions.pse_table`). Human rows there are left out.

Directions mode (`MODES`): instead of plates and an illusion, the person measures their own discrimination ellipse
at one centre (`plates.runs.quiz_directions.DirectionsSession`: the same trials and fit as ``plates ellipses``),
with the display caveat (`plates.runs.quiz_directions.DISPLAY_CAVEAT`) in the consent and on the result, which
draws their ellipse beside MacAdam's (`directions_result`). Either mode may carry the person's optional
self-reported colour-vision type (`plates.runs.quiz.COLOUR_VISION`).

The illusion is reported as its **magnitude** (ΔE2000): how much darker, physically, the target the illusion
makes look lighter had to be for the two to look equal (−PSE in the frame aligned with that target, as
`pse_table` reports it); 0 is a pixel-exact observer, and positive means fooled the way people are.

Public mode: at most ``max_sessions`` quiz starts per browser session on top of the per-session limits of
`plates.runs.quiz.QuizLimits`, and the per-address and server-wide limits of `plates.admission.Admission`
(`start_session`); a visitor's typed answer is only ever a reply text (never a path or a name).
"""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from plates.admission import Admission
from plates.analysis.adaptive import AdaptiveEstimate
from plates.analysis.conditions import condition_label
from plates.analysis.illusions import pse_table
from plates.analysis.people import threshold_table
from plates.integrations.answers_push import PUSH_NOTE, push_config
from plates.reader import MODEL_NAME
from plates.results import load_results
from plates.runs.ellipse_plan import parse_centres
from plates.runs.experiment import ModelSpec
from plates.runs.quiz import COLOUR_VISION, CONSENT, PersonSession, QuizLimits, QuizSession, Trial
from plates.runs.quiz_directions import DEFAULT_CENTRE, DISPLAY_CAVEAT, DirectionsSession
from plates.runs.staircase import Staircase, run_staircase
from plates.stimuli import render
from plates.stimuli.illusions.kinds import ILLUSION_TYPES
from plates.stimuli.ishihara.palettes import PALETTES
from plates.tasks.prompts import get_prompt
from plates.validation import check_choice

__all__ = ["ANSWER_KEYS", "COLOUR_VISION_CHOICES", "MODELS_ENV", "MODES", "ModelBoard", "ModelEstimate", "QuizConfig",
           "ReaderCache", "append_key", "consent_text", "directions_result", "mode_choices", "illusion_magnitude", "progress_text",
           "result_markdown", "start_session"]

#: The on-screen keys: digits, "?" (I see no number), and "⌫" (delete the last character).
ANSWER_KEYS = (*"0123456789", "?", "⌫")
READER = ModelSpec("baseline", MODEL_NAME)
MODELS_ENV = "PLATES_QUIZ_MODELS"
#: Illusion kinds the quiz can show: compared (not named) and reaching ±15 ΔE2000 from their default target.
QUIZ_ILLUSIONS = tuple(k for k in ILLUSION_TYPES if k not in ("rcid-filter", "neon-spreading"))
#: What a person may measure: (value, the words on the page; {directions} from `QuizConfig`).
MODES = (("plates", "Plates and illusions"), ("directions", "My colour ellipse (one colour, {directions} directions)"))
#: The colour-vision choice: (the words on the page, the value stored; "" = not given).
COLOUR_VISION_CHOICES = (("Prefer not to say", ""), *((label, key) for key, label in COLOUR_VISION.items()))


@dataclass(frozen=True)
class QuizConfig:
    """How the quiz tab runs.

    Attributes
    ----------
    palette : str
        The plates' colour set (a `plates.stimuli.ishihara.palettes.PALETTES` name).
    trials : int
        Plate trials per person, 1 to ``limits.max_answers``.
    illusion : str or None
        The illusion kind (:data:`QUIZ_ILLUSIONS`); None: plates only.
    illusion_trials : int
        Illusion trials per person, 0 to ``limits.max_answers``.
    size : int
        Image side in px, 64-1024.
    limits : QuizLimits
        The per-session limits (`plates.runs.quiz.QuizLimits`).
    max_sessions : int
        Quizzes a browser session may start, >= 1.
    centre : str
        The directions mode's one colour centre (`plates.runs.ellipse_plan.parse_centres`).
    directions : int
        The directions mode's directions around the centre.
    direction_trials : int
        Trials per direction; ``directions x direction_trials`` is 1 to ``limits.max_answers``.

    Raises
    ------
    ValueError
        On construction, naming the bad field and what is allowed.
    """

    palette: str = "huemanity-01"
    trials: int = 24
    illusion: str | None = "simultaneous-contrast"
    illusion_trials: int = 16
    size: int = 512
    limits: QuizLimits = field(default_factory=QuizLimits)
    max_sessions: int = 5
    centre: str = DEFAULT_CENTRE
    directions: int = 8
    direction_trials: int = 10

    def __post_init__(self) -> None:
        check_choice("palette", self.palette, PALETTES)
        if len(parse_centres(self.centre)[0]) != 1:
            raise ValueError(f"centre {self.centre!r} is not allowed; allowed: one centre (e.g. {DEFAULT_CENTRE})")
        total = self.directions * self.direction_trials if isinstance(self.directions, int) and isinstance(
            self.direction_trials, int) else None
        if total is None or not 1 <= total <= self.limits.max_answers:
            raise ValueError(f"directions x direction_trials = {self.directions!r} x {self.direction_trials!r} is "
                             f"not allowed; allowed: integers whose product is 1-{self.limits.max_answers}")
        if self.illusion is not None and self.illusion not in QUIZ_ILLUSIONS:
            raise ValueError(f"illusion {self.illusion!r} is not allowed; allowed: None, {', '.join(QUIZ_ILLUSIONS)}")
        for name in ("trials", "illusion_trials"):
            value = getattr(self, name)
            if not (isinstance(value, int) and (name == "illusion_trials" or value >= 1) and value >= 0
                    and value <= self.limits.max_answers):
                raise ValueError(f"{name}={value!r} is not allowed; allowed: {int(name == 'trials')}-"
                                 f"{self.limits.max_answers}")
        if not (isinstance(self.size, int) and 64 <= self.size <= 1024):
            raise ValueError(f"size={self.size!r} is not allowed; allowed: an integer 64-1024 px")
        if not (isinstance(self.max_sessions, int) and self.max_sessions >= 1):
            raise ValueError(f"max_sessions={self.max_sessions!r} is not allowed; allowed: an integer >= 1")

    @property
    def total(self) -> int:
        """Images per session."""
        return min(self.limits.max_answers, self.trials + (self.illusion_trials if self.illusion else 0))


def mode_choices(config: QuizConfig) -> list[tuple[str, str]]:
    """The mode radio's (words, value) pairs for ``config`` (`MODES`).

    Parameters
    ----------
    config : QuizConfig
        The quiz's settings; its ``directions`` fill the directions mode's words.

    Returns
    -------
    list of (str, str)
        (words, value) per mode, in `MODES` order.
    """
    return [(label.format(directions=config.directions), value) for value, label in MODES]


def consent_text(config: QuizConfig) -> str:
    """The consent and display note shown before the first image (`plates.runs.quiz.CONSENT`).

    Parameters
    ----------
    config : QuizConfig
        The quiz's settings (trial counts, directions).

    Returns
    -------
    str
        Markdown: the consent with the number of images, what the directions mode shows with its display
        caveat,
        and where answers go when they are pushed (`plates.integrations.answers_push.PUSH_NOTE`).
    """
    directions = (f"\n\n**Or measure your own colour ellipse** (choose it below): {config.directions * config.direction_trials} "
                  "dot plates around one colour, each number a little off that colour in one of "
                  f"{config.directions} directions; the differences shrink until you can just read them. "
                  "The same is stored. " + DISPLAY_CAVEAT)
    return CONSENT.format(trials=config.total) + directions + (PUSH_NOTE if push_config() is not None else "")


def start_session(config: QuizConfig, *, agreed: bool, started: int, client: str = "",
                  admission: Admission | None = None, mode: str = "plates",
                  colour_vision: str | None = None) -> PersonSession:
    """A new quiz session once the person has agreed.

    With ``admission`` (public mode), the server's limits come first; the session then holds a slot until it
    is
    released or idle for the slot's time to live. Results go to the folder in ``PLATES_HUMAN_RESULTS`` (read
    by
    `QuizSession.start`), or stay in memory when it is unset; with ``admission``, at most ``client``'s share of
    that folder (``admission.quiz_store``), past which the quiz goes on without storing.

    Parameters
    ----------
    config : QuizConfig
        The quiz's settings.
    agreed : bool
        Whether the consent box is ticked.
    started : int
        How many quizzes this browser session has begun.
    client : str
        The sender's address (a fresh browser session is no fresh allowance).
    admission : Admission or None
        The server's limits (public mode), or None.
    mode : str
        One of :data:`MODES`: "plates" (`QuizSession`) or "directions" (`DirectionsSession` at
        ``config.centre``).
    colour_vision : str or None
        The person's optional self-reported type (`plates.runs.quiz.COLOUR_VISION`; "" or None: not given),
        checked before anything starts.

    Returns
    -------
    PersonSession
        The session.

    Raises
    ------
    ValueError
        In words: an unknown mode or colour-vision type, no consent, or past ``config.max_sessions``.
    plates.admission.Refused
        With ``admission``: the server is over its memory budget, ``client`` has started too many quizzes
        lately,
        or the most quizzes at once are running.
    """
    check_choice("mode", mode, [m for m, _ in MODES])
    if not agreed:
        raise ValueError("please read the note and tick the box to agree before starting")
    if started >= config.max_sessions:
        raise ValueError(f"this page has started {started} quizzes; allowed: {config.max_sessions} per visit")
    if admission is not None:
        admission.memory.check("a new quiz")
        admission.quiz_starts.take(client)
    share = admission.quiz_store if admission is not None else None
    if mode == "directions":
        session = DirectionsSession.start(centre=config.centre, directions=config.directions,
                                          trials=config.direction_trials, size=config.size, limits=config.limits,
                                          client=client, store_share=share, colour_vision=colour_vision)
    else:
        session = QuizSession.start(palette=config.palette, trials=config.trials, illusion=config.illusion,
                                    illusion_trials=config.illusion_trials, size=config.size, limits=config.limits,
                                    client=client, store_share=share, colour_vision=colour_vision)
    if admission is not None:
        admission.quizzes.admit(session.participant)
    return session


def append_key(text: str | None, key: str, max_text: int) -> str:
    """The answer box after pressing an on-screen key.

    Parameters
    ----------
    text : str or None
        The answer box's text.
    key : str
        One of :data:`ANSWER_KEYS`: a digit or "?" is appended, "⌫" deletes the last character.
    max_text : int
        The longest answer kept, in characters.

    Returns
    -------
    str
        The new text.

    Raises
    ------
    ValueError
        When ``key`` is not an on-screen key.
    """
    text = text or ""
    if key not in ANSWER_KEYS:
        raise ValueError(f"key {key!r} is not known; allowed: {' '.join(ANSWER_KEYS)}")
    if key == "⌫":
        return text[:-1]
    return (text + key)[:max_text]


def progress_text(session: PersonSession, trial: Trial) -> str:
    """"Image n of N" and what to do with the image on screen.

    Parameters
    ----------
    session : PersonSession
        The person's session.
    trial : Trial
        The trial on screen.

    Returns
    -------
    str
        Markdown; with why answers are no longer stored when they are not (`QuizSession.store_note`).
    """
    what = "which square looks darker?" if trial.block == "illusion" else "type the number you see, or `?`."
    note = f"\n\n*{session.store_note}*" if session.store_note else ""
    return f"**Image {trial.number} of {session.trials}** · {what}{note}"


def illusion_magnitude(estimate: AdaptiveEstimate, staircase: Staircase) -> tuple[float, float, float]:
    """The illusion's magnitude from a PSE estimate in the A/B frame (+ = A lighter).

    Parameters
    ----------
    estimate : AdaptiveEstimate
        The illusion block's PSE estimate, ΔE2000 (CIEDE2000).
    staircase : Staircase
        The illusion block's staircase (its stimulus says which target the illusion makes look lighter).

    Returns
    -------
    tuple of float
        (magnitude, low, high) in ΔE2000: −PSE when the illusion makes A look lighter, +PSE when it makes B
        look
        lighter (module docstring); the 95% interval's ends in order.
    """
    induced = render(staircase.stimulus).truth.get("induced_lighter")
    sign = -1.0 if induced != "B" else 1.0
    ends = sorted((sign * estimate.ci_low, sign * estimate.ci_high))
    return sign * estimate.threshold, ends[0], ends[1]


@dataclass(frozen=True)
class ModelEstimate:
    """One model's estimate beside the person's.

    Attributes
    ----------
    model : str
        The model's name (with its framing for a magnitude).
    measure : str
        "threshold" (plates, ΔE2000) or "magnitude" (illusion, ΔE2000).
    value : float
        The estimate, ΔE2000.
    ci_low, ci_high : float
        Its 95% interval (±inf where open).
    n : int
        The answers it rests on.
    how : str
        How it was measured, in words.
    """

    model: str
    measure: str
    value: float
    ci_low: float
    ci_high: float
    n: int
    how: str


class ModelBoard:
    """Models' estimates on the quiz's stimuli from stored results rows (module docstring).

    The rows are read once (thread-safe); human rows are left out.

    Parameters
    ----------
    folder : str or Path or None
        The results folder; None reads ``PLATES_QUIZ_MODELS`` (unset: an empty board).
    """

    def __init__(self, folder: str | Path | None = None) -> None:
        env = os.environ.get(MODELS_ENV)
        self.folder = Path(folder) if folder is not None else (Path(env) if env else None)
        self._frame: pd.DataFrame | None = None
        self._lock = threading.Lock()

    def frame(self) -> pd.DataFrame:
        """The stored rows, human rows left out, read on first use (an empty frame without a folder).

        Returns
        -------
        pandas.DataFrame
            Results rows in the results schema.
        """
        with self._lock:
            if self._frame is None:
                rows = pd.DataFrame()
                if self.folder is not None and self.folder.is_dir():
                    rows = load_results(self.folder).frame
                if len(rows) and "backend" in rows.columns:
                    rows = rows[rows["backend"].astype(object) != "human"]
                self._frame = rows
            return self._frame

    def plate_thresholds(self, stair: Staircase) -> list[ModelEstimate]:
        """Per model, the chance-aware plate threshold on the quiz's plates.

        One fit per condition and colour set (`plates.analysis.people.threshold_table`) over its rows on
        ``stair``'s
        colour set, prompt and viewing condition (the prompt's variant at the quiz's size, no other change): a
        model's
        answers in grayscale or at another size are not the quiz's stimuli. Fits without a located threshold
        are left
        out.

        Parameters
        ----------
        stair : Staircase
            The person's plate staircase.

        Returns
        -------
        list of ModelEstimate
            Thresholds in ΔE2000 with 95% intervals.
        """
        rows = self.frame()
        if rows.empty:
            return []
        rows = rows[(rows["prompt_name"] == stair.prompt) & (rows["colour_set"].astype(object) == stair.stimulus.palette)
                    & rows["correct"].notna()]
        table = threshold_table(rows)
        shown = condition_label(variant=get_prompt(stair.prompt).variant, size=stair.stimulus.size)
        table = table[table["condition"] == shown]
        return [ModelEstimate(str(r.model), "threshold", float(r.threshold), float(r.ci_low), float(r.ci_high),
                              int(r.n), f"chance-aware fit over {int(r.n)} stored answers")
                for r in table[table["status"] == "fit"].itertuples()]

    def illusion_magnitudes(self, stair: Staircase) -> list[ModelEstimate]:
        """Per model (and framing), the illusion magnitude over its RCID rows of the quiz's kind and strength.

        Parameters
        ----------
        stair : Staircase
            The person's illusion staircase.

        Returns
        -------
        list of ModelEstimate
            Magnitudes in ΔE2000 (`plates.analysis.illusions.pse_table`, fits only) with 95% intervals.
        """
        rows = self.frame()
        if rows.empty:
            return []
        table = pse_table(rows, by=("model", "framing", "kind", "strength"))
        spec = stair.stimulus
        table = table[(table["kind"] == spec.kind) & (table["strength"].astype(float).round(6) == round(spec.strength, 6))
                      & (table["status"] == "fit")]
        return [ModelEstimate(f"{r.model} ({r.framing} framing)", "magnitude", float(r.magnitude), float(-r.ci_high),
                              float(-r.ci_low), int(r.n), f"PSE fit over {int(r.n)} stored answers")
                for r in table.itertuples()]


def _fmt(value: float, low: float, high: float) -> str:
    ends = "-".join("open" if not math.isfinite(v) else f"{v:.1f}" for v in (low, high))
    return f"{value:.1f} ({ends})"


def _threshold_cell(estimate: AdaptiveEstimate) -> str:
    """A staircase's threshold with its interval, or why it has none (status "non-monotonic", "at-chance",
    "too-few": `plates.analysis.adaptive.AdaptiveEstimate`)."""
    if estimate.status in ("fit", "unchecked"):
        return _fmt(estimate.threshold, estimate.ci_low, estimate.ci_high)
    return f"no threshold: {estimate.status.replace('-', ' ')}"


def result_markdown(session: QuizSession, reader: AdaptiveEstimate | None = None,
                    models: Sequence[ModelEstimate] = ()) -> str:
    """The result page: the person's estimates beside the bundled reader's and the stored models'.

    Parameters
    ----------
    session : QuizSession
        The person's finished (or stopped) session.
    reader : AdaptiveEstimate or None
        The bundled reader's plate threshold (:class:`ReaderCache`), or None to leave it out.
    models : sequence of ModelEstimate
        The stored models' estimates (:class:`ModelBoard`).

    Returns
    -------
    str
        Markdown: a table of plate thresholds and illusion magnitudes in ΔE2000 with 95% intervals (credible
        for
        the person and the reader), answers per row, and what the measures mean.
    """
    plates = [r for r in session.rows if r["family"] == "ishihara"]
    correct = sum(bool(r["correct"]) for r in plates)
    mine = session.estimates()
    lines = ["## Your result", f"You answered **{len(session.rows)}** images: **{len(plates)}** plates "
             f"(**{correct}** read correctly) and **{len(session.rows) - len(plates)}** pairs of squares.", "",
             "| who | plates: ΔE2000 threshold | illusion: magnitude, ΔE2000 | answers |", "|---|---|---|---|"]
    person = mine["plate"]
    illusion = "—"
    if "illusion" in mine:
        illusion = _fmt(*illusion_magnitude(mine["illusion"], session.blocks["illusion"].staircase))
    lines.append(f"| **you** | {_threshold_cell(person)} | {illusion} | "
                 f"{len(session.rows)} |")
    if reader is not None:
        lines.append(f"| bundled reader (baseline-cnn) | {_threshold_cell(reader)} | "
                     f"declines illusion questions | {reader.trials} |")
    for m in models:
        value = _fmt(m.value, m.ci_low, m.ci_high)
        cells = (value, "—") if m.measure == "threshold" else ("—", value)
        lines.append(f"| {m.model} | {cells[0]} | {cells[1]} | {m.n} |")
    lines.append("| a pixel-exact observer | — | 0.0 | — |")
    if session.store_note:
        lines += ["", f"*{session.store_note}*"]
    lines += ["", "Intervals are 95% (credible for you and the reader, from the adaptive procedure; "
              "for stored model answers a threshold's from its fit's posterior under the same priors, never narrower "
              "than the profile likelihood, a magnitude's profile-likelihood). **Threshold**: the colour difference "
              "(CIEDE2000 between "
              "the number's dots and the background's) at which you read the number about halfway between guessing "
              "and always right; lower is finer colour discrimination. **Magnitude**: how much darker, physically, "
              "the square its surround makes look lighter had to be for the two squares to look the same to you; 0 "
              "means the surround did not change what you saw. Both depend on your screen and lighting: this is not a "
              "medical test."]
    return "\n".join(lines)


def _num(value: float, scale: float = 1.0, digits: int = 2) -> str:
    return f"{value * scale:.{digits}f}" if value is not None and math.isfinite(value) else "—"


def directions_result(session: DirectionsSession) -> tuple[str, object]:
    """The directions mode's result: (markdown: the person's threshold per direction with its 95% credible
    interval, 8-bit code steps and limits, their ellipse and how it compares with MacAdam's, the display caveat;
    the figure: their ellipse on the CIE 1931 xy diagram beside MacAdam's, `plates.charts.ellipses`).

    Parameters
    ----------
    session : DirectionsSession
        The person's session (its summary so far, `DirectionsSession.summary`).

    Returns
    -------
    (str, plotly.graph_objects.Figure)
        The markdown (thresholds in 10⁻³ u'v', semi-axes in 10⁻³ CIE 1931 xy, the store note when answers are
        no longer stored) and the figure.
    """
    thresholds, (ellipse,) = session.summary()
    c = session.centre
    unit = "10⁻³ u′v′"
    lines = ["## Your colour ellipse",
             f"You answered **{len(session.rows)}** plates around **{c.name}** (CIE 1931 x {c.xy_drawn[0]:.4f}, "
             f"y {c.xy_drawn[1]:.4f}; sRGB {c.rgb[0]}, {c.rgb[1]}, {c.rgb[2]}).", "",
             f"| direction | threshold, {unit} | 95% interval | 8-bit code steps | limited by |", "|---|---|---|---|---|"]
    for t in thresholds:
        lines.append(f"| {t['direction']} | {_num(t['threshold'])} | {_num(t['ci_low'])}–{_num(t['ci_high'])} | "
                     f"{_num(t['code_steps'], digits=1)} | {t['limits'] or '—'} |")
    if ellipse["status"] == "fit":
        lines += ["", f"**Your ellipse**: semi-axes a {_num(ellipse['a'], 1e3, 2)} and b {_num(ellipse['b'], 1e3, 2)} "
                  f"(10⁻³ CIE 1931 xy), a at {_num(ellipse['theta_deg'], digits=0)}° from the x axis."]
        if math.isfinite(ellipse.get("area_ratio", math.nan)):
            lines.append(f"Beside MacAdam's (1942) ellipse here × {ellipse['macadam_factor']:g}: area ratio "
                         f"{_num(ellipse['area_ratio'])}, axis ratio {_num(ellipse['axis_ratio'])}, orientation "
                         f"{_num(ellipse['theta_diff_deg'], digits=0)}° apart.")
    else:
        lines += ["", f"**No ellipse**: {ellipse['status'].replace('-', ' ')}. {ellipse.get('message') or ''}"]
    lines += ["", DISPLAY_CAVEAT]
    if session.store_note:
        lines += ["", f"*{session.store_note}*"]
    from plates.charts.ellipses import ellipse_figure  # lazy: off the explorer's start (its first page)

    return "\n".join(lines), ellipse_figure(pd.DataFrame([ellipse]))


def reader_estimate(stair: Staircase) -> AdaptiveEstimate:
    """Run the reader's staircase and return its estimate.

    A top-level function, so a worker process can run it (`plates.explorer.pool.ExplorerPool.run`).

    Parameters
    ----------
    stair : Staircase
        The reader's staircase (:meth:`ReaderCache.staircase`).

    Returns
    -------
    AdaptiveEstimate
        `plates.runs.staircase.run_staircase`'s estimate (threshold in ΔE2000).
    """
    return run_staircase(stair).estimate


class ReaderCache:
    """The bundled reader's threshold per quiz configuration, measured once (thread-safe).

    One per app (never module state).

    Parameters
    ----------
    root : str or Path or None
        The folder its runs are written under; None makes a temporary one this object owns.
    run : callable or None
        ``run(fn, stair)`` runs `reader_estimate`; None runs it here (the app passes its
        `plates.explorer.pool.ExplorerPool.run`, a worker process in public mode).
    """

    def __init__(self, root: str | Path | None = None,
                 run: Callable[[Callable[[Staircase], AdaptiveEstimate], Staircase], AdaptiveEstimate] | None = None,
                 ) -> None:
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="plates-quiz-reader-"))
        self._run = run if run is not None else (lambda fn, stair: fn(stair))
        self._estimates: dict[str, AdaptiveEstimate] = {}
        self._lock = threading.Lock()

    def staircase(self, person: Staircase) -> Staircase:
        """The reader's staircase equivalent to ``person``'s.

        Parameters
        ----------
        person : Staircase
            The person's plate staircase.

        Returns
        -------
        Staircase
            Same plates, prompt, range and trials; model baseline-cnn, seed 0, out a folder under ``root``
            named by
            the run id (a hash: nothing a visitor typed).
        """
        stair = dataclasses.replace(person, model=READER, seed=0, name="quiz-reader", out=str(self.root))
        return dataclasses.replace(stair, out=str(self.root / stair.run_id))

    def estimate(self, person: Staircase) -> AdaptiveEstimate:
        """The reader's estimate on the staircase equivalent to ``person``'s (run on first use, then kept).

        Parameters
        ----------
        person : Staircase
            The person's plate staircase.

        Returns
        -------
        AdaptiveEstimate
            The reader's threshold in ΔE2000.
        """
        stair = self.staircase(person)
        with self._lock:
            if stair.run_id not in self._estimates:
                self._estimates[stair.run_id] = self._run(reader_estimate, stair)
            return self._estimates[stair.run_id]

    @property
    def known(self) -> Mapping[str, AdaptiveEstimate]:
        """The estimates measured so far, by run id (a copy)."""
        return dict(self._estimates)
