"""The "Try it yourself" tab's logic (issue 15), apart from any widget: a person's quiz (`plates.ui.quiz`)
from consent to result, and the bundled reader's threshold measured by the same procedure beside theirs.

The reader's estimate: `plates.runs.staircase.run_staircase` with the baseline backend on the participant's
staircase with only the model, the seed (0) and the output folder (a temporary one this module makes) changed:
the same plates (palette, font, size), prompt, ΔE2000 range (CIEDE2000, CIELAB D65 2°), trial count and
psychometric model. Its seed is fixed so that one run per (palette, size, trials, range) serves every participant
(`ReaderCache`, one per app; a lock makes concurrent first requests run it once).

Public mode: at most ``max_sessions`` quiz starts per browser session on top of the per-session limits of
`plates.ui.quiz.QuizLimits`; a visitor's typed answer is only ever a reply text (never a path or a name).
"""

from __future__ import annotations

import dataclasses
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from plates.analysis.adaptive import AdaptiveEstimate
from plates.runs.experiment import ModelSpec
from plates.runs.staircase import Staircase, run_staircase
from plates.stimuli.ishihara.palettes import PALETTES
from plates.ui.quiz import CONSENT, QuizLimits, QuizSession

__all__ = ["ANSWER_KEYS", "QuizConfig", "ReaderCache", "append_key", "consent_text", "progress_text",
           "result_markdown", "start_session"]

#: The on-screen keys: digits, "?" (I see no number), and "⌫" (delete the last character).
ANSWER_KEYS = (*"0123456789", "?", "⌫")
READER = ModelSpec("baseline", "baseline-cnn")


@dataclass(frozen=True)
class QuizConfig:
    """How the quiz tab runs: the plates' palette (a `plates.stimuli.ishihara.palettes.PALETTES` name), trials
    per person, plate size (px), the per-session limits, and how many sessions a browser session may start."""

    palette: str = "huemanity-01"
    trials: int = 30
    size: int = 512
    limits: QuizLimits = field(default_factory=QuizLimits)
    max_sessions: int = 5

    def __post_init__(self) -> None:
        if self.palette not in PALETTES:
            raise ValueError(f"palette {self.palette!r} is not known; allowed: {', '.join(PALETTES)}")
        if not (isinstance(self.trials, int) and 1 <= self.trials <= self.limits.max_answers):
            raise ValueError(f"trials={self.trials!r} is not allowed; allowed: 1-{self.limits.max_answers}")
        if not (isinstance(self.size, int) and 64 <= self.size <= 1024):
            raise ValueError(f"size={self.size!r} is not allowed; allowed: an integer 64-1024 px")
        if not (isinstance(self.max_sessions, int) and self.max_sessions >= 1):
            raise ValueError(f"max_sessions={self.max_sessions!r} is not allowed; allowed: an integer >= 1")


def consent_text(config: QuizConfig) -> str:
    """The consent and display note shown before the first plate (`plates.ui.quiz.CONSENT`)."""
    return CONSENT.format(trials=config.trials)


def start_session(config: QuizConfig, *, agreed: bool, started: int) -> QuizSession:
    """A new quiz session once the person has agreed; ``started`` is how many this browser session has begun.
    ValueError (in words) without consent or past ``config.max_sessions``. Results go to the folder in
    ``PLATES_HUMAN_RESULTS`` (read by `QuizSession.start`), or stay in memory when it is unset."""
    if not agreed:
        raise ValueError("please read the note and tick the box to agree before starting")
    if started >= config.max_sessions:
        raise ValueError(f"this page has started {started} quizzes; allowed: {config.max_sessions} per visit")
    return QuizSession.start(palette=config.palette, trials=config.trials, size=config.size, limits=config.limits)


def append_key(text: str | None, key: str, max_text: int) -> str:
    """The answer box after pressing an on-screen key (`ANSWER_KEYS`): a digit or "?" appended (at most
    ``max_text`` characters), "⌫" deletes the last character."""
    text = text or ""
    if key not in ANSWER_KEYS:
        raise ValueError(f"key {key!r} is not known; allowed: {' '.join(ANSWER_KEYS)}")
    if key == "⌫":
        return text[:-1]
    return (text + key)[:max_text]


def progress_text(session: QuizSession) -> str:
    """"Plate n of N" for the plate on screen."""
    return f"**Plate {len(session.rows) + 1} of {session.staircase.trials}** · type the number you see, or `?`."


def _fmt(e: AdaptiveEstimate) -> str:
    return f"{e.threshold:.1f} (95% credible interval {e.ci_low:.1f}-{e.ci_high:.1f})"


def result_markdown(person: AdaptiveEstimate, reader: AdaptiveEstimate | None, answered: int,
                    correct: int) -> str:
    """The result page: the person's ΔE2000 threshold with its credible interval beside the reader's."""
    lines = ["## Your result",
             f"You answered **{answered}** plates, **{correct}** correctly.", "",
             "| who | ΔE2000 threshold | trials |", "|---|---|---|",
             f"| **you** | {_fmt(person)} | {person.trials} |"]
    if reader is not None:
        lines.append(f"| bundled reader (baseline-cnn) | {_fmt(reader)} | {reader.trials} |")
    lines += ["", "The threshold is the colour difference (CIEDE2000 between the number's dots and the "
              "background's) at which you read the number about halfway between guessing and always right. "
              "Lower is finer colour discrimination. It depends on your screen and lighting: it is not a "
              "medical test."]
    return "\n".join(lines)


class ReaderCache:
    """The bundled reader's threshold per quiz configuration, measured once (thread-safe) into a temporary
    folder this object owns; one per app (never module state)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="plates-quiz-reader-"))
        self._estimates: dict[str, AdaptiveEstimate] = {}
        self._lock = threading.Lock()

    def staircase(self, person: Staircase) -> Staircase:
        """The reader's staircase equivalent to ``person``'s: same plates, prompt, range and trials; model
        baseline-cnn, seed 0, out a folder named by the run id (a hash: nothing a visitor typed)."""
        stair = dataclasses.replace(person, model=READER, seed=0, name="quiz-reader", out=str(self.root))
        return dataclasses.replace(stair, out=str(self.root / stair.run_id))

    def estimate(self, person: Staircase) -> AdaptiveEstimate:
        """The reader's estimate on the staircase equivalent to ``person``'s (run on first use)."""
        stair = self.staircase(person)
        with self._lock:
            if stair.run_id not in self._estimates:
                self._estimates[stair.run_id] = run_staircase(stair).estimate
            return self._estimates[stair.run_id]

    @property
    def known(self) -> Mapping[str, AdaptiveEstimate]:
        return dict(self._estimates)
