"""The human quiz ("Try it yourself", issue 15): a person answers plates chosen by the adaptive procedure, and
their ΔE2000 threshold is measured the same way as a model's (`plates.runs.staircase`), then shown beside the
bundled reader's on the same stimuli. Widget-free: the explorer's tab only shows what this module returns.

Privacy and storage: no name, no e-mail; a random participant id (``uuid4``); each answer is one results row with
backend ``human`` (`plates.runs.rows.build_row`), written at once as its own atomic Parquet part (a crash loses
nothing already answered) under the folder in ``PLATES_HUMAN_RESULTS`` (a Space's persistent storage, e.g.
``/data/human``), or kept in memory only when it is unset. The person can download their own rows. Nothing they
type becomes a path: file names come from the participant id and counters only.

Public mode limits (`QuizLimits`): answers per session, a least time between answers, text length, and a cap
on the folder's total size (a full folder stops writing, never deletes).
"""

from __future__ import annotations

import hashlib
import io
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from plates.analysis.adaptive import AdaptiveEstimate, AdaptiveState
from plates.models.base import Reply
from plates.results import SCHEMA, ResultsWriter
from plates.runs.experiment import ModelSpec
from plates.runs.rows import Asked, build_row
from plates.runs.staircase import Staircase
from plates.stimuli.ishihara.plate import PlateSpec, render
from plates.tasks import Question, task_of
from plates.tasks.prompts import get_prompt

__all__ = ["CONSENT", "HUMAN_RESULTS_ENV", "QuizLimits", "QuizSession", "Trial", "folder_bytes"]

HUMAN_RESULTS_ENV = "PLATES_HUMAN_RESULTS"
CONSENT = (
    "**Before you start.** You will see about {trials} dot plates and type the number you see (or `?` when you "
    "see none). The colours are chosen for you, one after another, to find the smallest colour difference you "
    "can read. Use a screen set to sRGB (most are), at normal brightness, without night-light or colour filters; "
    "if you have a colour-vision deficiency you are welcome too. **What is stored:** your answers, the plates' "
    "settings, the time you took and a random participant id: no name, no e-mail, no IP address. You can "
    "download your own answers at the end. Tick the box to agree and start."
)


@dataclass(frozen=True)
class QuizLimits:
    """Per-session and storage limits (public mode: a visitor is assumed hostile)."""

    max_answers: int = 60
    min_seconds_between: float = 0.5
    max_text: int = 16
    max_folder_bytes: int = 200_000_000


@dataclass(frozen=True)
class Trial:
    """The plate to show now: its image (PIL RGB, sRGB 0-255), the level (ΔE2000), the question text."""

    number: int
    level: float
    image: Image.Image
    prompt: str


def folder_bytes(folder: Path) -> int:
    """Total size of the Parquet parts under ``folder`` (0 if absent)."""
    return sum(p.stat().st_size for p in folder.glob("*.parquet")) if folder.is_dir() else 0


@dataclass
class QuizSession:
    """One participant's session: a staircase whose answers come from a person."""

    staircase: Staircase
    limits: QuizLimits = field(default_factory=QuizLimits)
    folder: Path | None = None
    participant: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    rows: list[dict] = field(default_factory=list)
    _state: AdaptiveState | None = None
    _shown: tuple[Trial, Question, PlateSpec, float] | None = None
    _last_answer: float = 0.0

    @classmethod
    def start(cls, *, palette: str = "huemanity-01", trials: int = 30, size: int = 512, seed: int | None = None,
              limits: QuizLimits | None = None, folder: str | os.PathLike | None = None) -> QuizSession:
        """A new session on HueManity's number prompt (typed answers), ``trials`` answers at most."""
        limits = limits or QuizLimits()
        seed = int(uuid.uuid4().int % 2**31) if seed is None else seed
        env = os.environ.get(HUMAN_RESULTS_ENV)
        where = Path(folder) if folder is not None else (Path(env) if env else None)
        stair = Staircase(stimulus=PlateSpec("12", size=size, palette=palette, font="dejavu-sans-bold-oblique"),
                          prompt="huemanity-numeric", model=ModelSpec("human", "participant"),
                          trials=min(trials, limits.max_answers), min_trials=min(trials, limits.max_answers),
                          low=0.5, high=40.0, seed=seed, out=str(where or "."), name="human")
        session = cls(stair, limits, where)
        session._state = AdaptiveState.start(stair.adaptive_spec())
        return session

    @property
    def run_id(self) -> str:
        return f"human-{self.participant}"

    @property
    def done(self) -> bool:
        return self._state is not None and self._state.done

    def next_trial(self) -> Trial:
        """The plate to show (the same one again until it is answered)."""
        if self._shown is not None:
            return self._shown[0]
        if self.done:
            raise ValueError("this session is finished; see the result, or start again")
        n = len(self.rows)
        level = self._state.next_level()
        spec = self.staircase.trial(n, level)
        template = get_prompt(self.staircase.prompt)
        plate = render(spec)
        question = task_of(template).question(plate.truth, template, seed=self.staircase.seed + n)
        trial = Trial(n + 1, float(level), plate.image, "Type the number you see (or ? if you see none).")
        self._shown = (trial, question, spec, time.monotonic())
        return trial

    def answer(self, text: str) -> dict:
        """Record the person's answer to the plate shown; returns the result row (correct or not)."""
        if self._shown is None:
            raise ValueError("no plate is shown; ask for the next trial first")
        if not isinstance(text, str) or len(text) > self.limits.max_text:
            raise ValueError(f"an answer is at most {self.limits.max_text} characters")
        now = time.monotonic()
        if now - self._last_answer < self.limits.min_seconds_between:
            raise ValueError("answering too fast: take a moment to look at the plate")
        if len(self.rows) >= self.limits.max_answers:
            raise ValueError(f"this session has reached its {self.limits.max_answers} answers")
        trial, question, spec, shown_at = self._shown
        reply = Reply(text.strip() or "?", latency_s=now - shown_at)
        item_id = f"trial-{len(self.rows):04d}"
        asked = Asked(run_id=self.run_id, row_key=hashlib.sha256(f"{self.run_id}|{item_id}".encode()).hexdigest()[:20],
                      item_id=item_id, dataset="quiz", model=f"participant-{self.participant}", backend="human",
                      question=question, spec_json=spec.to_json(), family="ishihara", colour_set=spec.palette,
                      delta_e=trial.level, font=spec.font, size=spec.size)
        row = build_row(asked, reply)
        self.rows.append(row)
        self._state = self._state.update(trial.level, int(bool(row["correct"])))
        self._shown, self._last_answer = None, now
        self._store(row)  # after the session has it: a full store never loses the answer from the download
        return row

    def _store(self, row: dict) -> None:
        if self.folder is None:
            return
        if folder_bytes(self.folder) > self.limits.max_folder_bytes:
            raise ValueError("the answer store is full; your answers are kept in this session only: download them")
        with ResultsWriter(self.folder, self.run_id, flush_rows=1) as writer:
            writer.add(row)

    def estimate(self) -> AdaptiveEstimate:
        """The person's threshold (ΔE2000) so far, with its credible interval."""
        return self._state.estimate()

    def parquet(self) -> bytes:
        """This session's rows as a Parquet file in the results schema (the participant's download)."""
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pylist([{k: r.get(k) for k in SCHEMA.names} for r in self.rows],
                                            schema=SCHEMA), buf)
        return buf.getvalue()
